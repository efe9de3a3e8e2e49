// pad_backward.wgsl -- the adjoint of pad_nd along one dim: fold a padded dim's gradient back (webtorch "webgpu").
//
// Computes: G is a contiguous (outer, lo + L + hi, inner) gradient; OUT (outer, L, inner) contiguous gets at
// (o, i, k) the sum of G[o, q, k] over every padded position q whose MODE (0 constant, 1 reflect,
// 2 replicate, 3 circular; pads <= L, reflect pads < L) copies input position i. A padding of several
// dims runs one dispatch per padded dim.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256).
// Specialization: MODE.
// Parameters P (i32): [0] (total, L, inner, gx * 256)  [1] (lo, hi, -, -)

const MODE: u32 = 0u;

@group(0) @binding(0) var<storage, read> G: array<f32>;
@group(0) @binding(1) var<storage, read_write> OUT: array<f32>;
@group(0) @binding(2) var<uniform> P: array<vec4<i32>, 2>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].w;
  if (e >= P[0].x) {
    return;
  }
  let L = P[0].y;
  let inner = P[0].z;
  let lo = P[1].x;
  let hi = P[1].y;
  let k = e % inner;
  let i = (e / inner) % L;
  let o = e / (inner * L);
  let row = o * (lo + L + hi) * inner + k;
  var acc = G[row + (lo + i) * inner];
  if (MODE == 1u) {
    if (i >= 1 && i <= lo) {
      acc = acc + G[row + (lo - i) * inner];
    }
    if (i >= L - 1 - hi && i <= L - 2) {
      acc = acc + G[row + (lo + 2 * (L - 1) - i) * inner];
    }
  } else if (MODE == 2u) {
    if (i == 0) {
      for (var q = 0; q < lo; q = q + 1) {
        acc = acc + G[row + q * inner];
      }
    }
    if (i == L - 1) {
      for (var q = lo + L; q < lo + L + hi; q = q + 1) {
        acc = acc + G[row + q * inner];
      }
    }
  } else if (MODE == 3u) {
    if (i >= L - lo) {
      acc = acc + G[row + (lo + i - L) * inner];
    }
    if (i < hi) {
      acc = acc + G[row + (lo + i + L) * inner];
    }
  }
  OUT[e] = acc;
}
