// pad_nd.wgsl -- F.pad of a tensor of up to 6 dims: constant, reflect, replicate or circular (webtorch "webgpu").
//
// Computes: for each element of the contiguous padded output (sizes out_d = in_d + lo_d + hi_d), the input
// element it copies: along dim d, q = index - lo_d mapped into [0, in_d) by MODE (1 reflect: mirror without
// the edge; 2 replicate: clamp; 3 circular: wrap), or, for MODE 0 (constant), VALUE when q is outside.
// The input is read through strides; elements are moved as 32-bit words (f32, i32, u32 and bool alike).
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256).
// Specialization: MODE.
// Parameters P (i32): [0] (total, rank, gx * 256, VALUE bits)  [1..2] output sizes  [3..4] input sizes
//   [5..6] lo  [7..8] input strides  [9] (input offset, -, -, -)   (dims in order, 4 per row, rank <= 6)

const MODE: u32 = 0u;

@group(0) @binding(0) var<storage, read> X: array<u32>;
@group(0) @binding(1) var<storage, read_write> Y: array<u32>;
@group(0) @binding(2) var<uniform> P: array<vec4<i32>, 10>;

fn at(row: i32, d: i32) -> i32 {
  return P[row + d / 4][d % 4];
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].z;
  if (e >= P[0].x) {
    return;
  }
  var t = e;
  var src = P[9].x;
  var inside = true;
  for (var d = P[0].y - 1; d >= 0; d = d - 1) {
    let size = at(1, d);
    let n = at(3, d);
    var q = t % size - at(5, d);
    t = t / size;
    if (MODE == 0u) {
      inside = inside && q >= 0 && q < n;
    } else if (MODE == 1u) {
      q = select(q, -q, q < 0);
      q = select(q, 2 * (n - 1) - q, q >= n);
    } else if (MODE == 2u) {
      q = clamp(q, 0, n - 1);
    } else {
      q = select(q, q + n, q < 0);
      q = select(q, q - n, q >= n);
    }
    src = src + q * at(7, d);
  }
  if (inside) {
    Y[e] = X[src];
  } else {
    Y[e] = bitcast<u32>(P[0].w);
  }
}
