// resample_taps.wgsl -- separable resampling along one dim by taps (interpolate, adaptive average pooling).
//
// Computes: for each element e = (a, o, b) of the contiguous output (outer a, O outputs, inner b):
//   OUT[e] = (W[o*K] * X[(a*L + I[o*K]) * inner + b] + W[o*K + 1] * X[..I[o*K + 1]..] + ...) / DIV[o]
// the taps added in order, each multiplied even when its weight is 0 (inf * 0 gives NaN, as PyTorch's kernels); a
// tap I = -1 is none (not read). HAS_WEIGHT false: every weight 1 (no product); HAS_DIVISOR false: no division
// (W / DIV are then bound to another buffer and never read). X starts at the given offset.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256).
// Specialization: HAS_WEIGHT, HAS_DIVISOR.
// Parameters P (i32): [0] (total, inner, O, gx * 256)  [1] (L, K, x offset, -)

const HAS_WEIGHT: bool = true;
const HAS_DIVISOR: bool = true;

@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> I: array<i32>;
@group(0) @binding(2) var<storage, read> W: array<f32>;
@group(0) @binding(3) var<storage, read> DIV: array<f32>;
@group(0) @binding(4) var<storage, read_write> OUT: array<f32>;
@group(0) @binding(5) var<uniform> P: array<vec4<i32>, 2>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].w;
  if (e >= P[0].x) {
    return;
  }
  let inner = P[0].y;
  let O = P[0].z;
  let K = P[1].y;
  let b = e % inner;
  let o = (e / inner) % O;
  let base = P[1].z + (e / (inner * O)) * P[1].x * inner + b;
  var acc = 0.0;
  for (var k = 0; k < K; k++) {
    let j = I[o * K + k];
    if (j < 0) {
      continue;
    }
    var v = X[base + j * inner];
    if (HAS_WEIGHT) {
      v = W[o * K + k] * v;
    }
    acc += v;
  }
  if (HAS_DIVISOR) {
    acc = acc / DIV[o];
  }
  OUT[e] = acc;
}
