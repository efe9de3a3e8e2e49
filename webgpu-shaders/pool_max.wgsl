// pool_max.wgsl -- max pooling and adaptive max pooling with argmax indices (webtorch backend "webgpu").
//
// Computes: for each output element (n, c, o0, o1, o2) of a contiguous (N, C, O0, O1, O2) output, the
// maximum of x over its window and the flat per-plane index (i0 * S1 + i1) * S2 + i2 of the first maximum in
// window order (NaN wins; padding never wins). x is read through strides (N, C, S0, S1, S2); spatial dims
// are padded to three with size-1 dims. Window along dim d: positions start_d + t * step_d for t < count_d,
// with start = o * stride - pad, count = kernel, step = dilation (positions outside the input skipped), or
// ADAPTIVE: PyTorch's [floor(o * S / O), ceil((o + 1) * S / O)) with step 1.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256).
// Specialization: T (f32 or i32 storage and compute type), IS_FLOAT, ADAPTIVE.
// Parameters P (i32): [0] (total, C, gx * 256, -)  [1] (O0, O1, O2, -)  [2] (S0, S1, S2, -)
//   [3] (kernel0..2, -)  [4] (stride0..2, -)  [5] (pad0..2, -)  [6] (dilation0..2, -)
//   [7] (x strides of n, c, s0, s1)  [8] (x stride of s2, x offset, -, -)

alias T = f32;
const IS_FLOAT: bool = true;
const ADAPTIVE: bool = false;

@group(0) @binding(0) var<storage, read> X: array<T>;
@group(0) @binding(1) var<storage, read_write> Y: array<T>;
@group(0) @binding(2) var<storage, read_write> I: array<i32>;
@group(0) @binding(3) var<uniform> P: array<vec4<i32>, 9>;

fn is_nan(v: T) -> bool {
  return IS_FLOAT && (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].z;
  if (e >= P[0].x) {
    return;
  }
  let O = P[1].xyz;
  let S = P[2].xyz;
  var t = e;
  let o2 = t % O.z; t = t / O.z;
  let o1 = t % O.y; t = t / O.y;
  let o0 = t % O.x; t = t / O.x;
  let o = vec3<i32>(o0, o1, o2);
  var start: vec3<i32>;
  var count: vec3<i32>;
  var step: vec3<i32>;
  if (ADAPTIVE) {
    start = (o * S) / O;
    count = ((o + 1) * S + O - 1) / O - start;
    step = vec3<i32>(1);
  } else {
    start = o * P[4].xyz - P[5].xyz;
    count = P[3].xyz;
    step = P[6].xyz;
  }
  let base = P[8].y + (t / P[0].y) * P[7].x + (t % P[0].y) * P[7].y;
  var best: T;
  var best_i = -1;
  for (var a = 0; a < count.x; a = a + 1) {
    let i0 = start.x + a * step.x;
    if (i0 < 0 || i0 >= S.x) {
      continue;
    }
    for (var b = 0; b < count.y; b = b + 1) {
      let i1 = start.y + b * step.y;
      if (i1 < 0 || i1 >= S.y) {
        continue;
      }
      for (var c = 0; c < count.z; c = c + 1) {
        let i2 = start.z + c * step.z;
        if (i2 < 0 || i2 >= S.z) {
          continue;
        }
        let v = X[base + i0 * P[7].z + i1 * P[7].w + i2 * P[8].x];
        if (best_i < 0 || (!is_nan(best) && (v > best || is_nan(v)))) {
          best = v;
          best_i = (i0 * S.y + i1) * S.z + i2;
        }
      }
    }
  }
  Y[e] = best;
  I[e] = best_i;
}
