// embedding_gather.wgsl -- F.embedding forward: rows of a weight table at integer indices (webtorch "webgpu").
//
// Computes: OUT[i, d] = W[w offset + I[i] * row stride + d * column stride] for i < n indices, d < D, into a
// contiguous (n, D) output from OUT offset, for the indices in the row range [row lo, row hi) (the others are left for the
// dispatch of their range: a weight past one binding is bound a window of rows at a time); elements are moved
// as 32-bit words (indices were range-checked before).
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(n * D / 256).
// Parameters P (i32): [0] (total, D, gx * 256, OUT offset)  [1] (W row stride, W column stride, W offset, I offset)
//                     [2] (row lo, row hi, -, -)

@group(0) @binding(0) var<storage, read> W: array<u32>;
@group(0) @binding(1) var<storage, read> I: array<i32>;
@group(0) @binding(2) var<storage, read_write> OUT: array<u32>;
@group(0) @binding(3) var<uniform> P: array<vec4<i32>, 3>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].z;
  if (e >= P[0].x) {
    return;
  }
  let D = P[0].y;
  let r = I[P[1].w + e / D];
  if (r < P[2].x || r >= P[2].y) {
    return;
  }
  OUT[P[0].w + e] = W[P[1].z + r * P[1].x + (e % D) * P[1].y];
}
