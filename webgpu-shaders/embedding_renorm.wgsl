// embedding_renorm.wgsl -- embedding_renorm_: rescale in place the rows named by the indices (webtorch "webgpu").
//
// Computes: for each row r of W (num_weights, D) with COUNTS[r] > 0 (the row occurs among the indices):
// norm = (sum_d |W[r, d]|^p)^(1/p); when norm > max_norm, W[r, :] *= max_norm / (norm + 1e-7).
// W is read and written through (row stride, column stride, offset). A table past one binding is rescaled in
// launches over runs of its rows (binding_windows.py): W and COUNTS are then windows, and r counts from the run's
// first row, which sits at COUNTS[r0] (the COUNTS offset).
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(num_weights / 256).
// Parameters P: [0] (num_weights, D, gx * 256, COUNTS offset) i32  [1] (W row stride, W column stride, W offset, -)
//   [2] (max_norm, norm_type p, -, -) as f32 bits

@group(0) @binding(0) var<storage, read> COUNTS: array<u32>;
@group(0) @binding(1) var<storage, read_write> W: array<f32>;
@group(0) @binding(2) var<uniform> P: array<vec4<i32>, 3>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let r = i32(gid.x) + i32(gid.y) * P[0].z;
  if (r >= P[0].x || COUNTS[P[0].w + r] == 0u) {
    return;
  }
  let D = P[0].y;
  let base = P[1].z + r * P[1].x;
  let max_norm = bitcast<f32>(P[2].x);
  let p = bitcast<f32>(P[2].y);
  var s = 0.0;
  for (var d = 0; d < D; d = d + 1) {
    let a = abs(W[base + d * P[1].y]);
    if (p == 2.0) {
      s = s + a * a;
    } else if (p == 1.0) {
      s = s + a;
    } else {
      s = s + pow(a, p);
    }
  }
  let norm = select(select(pow(s, 1.0 / p), s, p == 1.0), sqrt(s), p == 2.0);
  if (norm > max_norm) {
    let scale = max_norm / (norm + 1e-7);
    for (var d = 0; d < D; d = d + 1) {
      W[base + d * P[1].y] = W[base + d * P[1].y] * scale;
    }
  }
}
