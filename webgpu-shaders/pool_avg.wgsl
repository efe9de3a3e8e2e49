// pool_avg.wgsl -- average pooling, forward and backward (webtorch backend "webgpu").
//
// BACKWARD = false: for each output element (n, c, o0, o1, o2) of a contiguous (N, C, O0, O1, O2) output,
// the sum of x over its window (positions o * stride - pad + t, t < kernel, padding counting 0) divided
// by the window's divisor (integers: truncating division). BACKWARD = true: for each element (n, c, s0, s1, s2)
// of a contiguous (N, C, S0, S1, S2) input gradient, the sum over every output o whose window covers s of
// g[o] / divisor(o). The divisor: P[8].x when nonzero (divisor_override), else the window clipped to the
// input plus padding, and also to the input unless count_include_pad. The read operand (x or g) is read
// through strides; spatial dims are padded to three with size-1 dims.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256).
// Specialization: T (f32 or i32), BACKWARD.
// Parameters P (i32): [0] (total, C, gx * 256, -)  [1] (O0, O1, O2, -)  [2] (S0, S1, S2, -)
//   [3] (kernel0..2, -)  [4] (stride0..2, -)  [5] (pad0..2, -)  [6] (read strides of n, c, d0, d1)
//   [7] (read stride of d2, read offset, -, -)  [8] (divisor_override or 0, count_include_pad, -, -)

alias T = f32;
const BACKWARD: bool = false;

@group(0) @binding(0) var<storage, read> X: array<T>;
@group(0) @binding(1) var<storage, read_write> Y: array<T>;
@group(0) @binding(2) var<uniform> P: array<vec4<i32>, 9>;

fn divisor(o: vec3<i32>) -> i32 {
  if (P[8].x != 0) {
    return P[8].x;
  }
  let S = P[2].xyz;
  let start = o * P[4].xyz - P[5].xyz;
  let end = min(start + P[3].xyz, S + P[5].xyz);
  var n = end - start;
  if (P[8].y == 0) {
    n = min(end, S) - max(start, vec3<i32>(0));
  }
  return n.x * n.y * n.z;
}


fn unravel(e: i32, size: vec3<i32>) -> vec4<i32> {
  var t = e;
  let a2 = t % size.z; t = t / size.z;
  let a1 = t % size.y; t = t / size.y;
  let a0 = t % size.x; t = t / size.x;
  return vec4<i32>(a0, a1, a2, t);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].z;
  if (e >= P[0].x) {
    return;
  }
  let O = P[1].xyz;
  let S = P[2].xyz;
  let K = P[3].xyz;
  let st = P[4].xyz;
  let pad = P[5].xyz;
  var acc = T(0);
  if (BACKWARD) {
    let u = unravel(e, S);
    let s = u.xyz;
    let base = P[7].y + (u.w / P[0].y) * P[6].x + (u.w % P[0].y) * P[6].y;
    // outputs whose window [o * stride - pad, + kernel) covers s
    let lo = max((s + pad - K + st) / st, vec3<i32>(0));
    let hi = min((s + pad) / st, O - 1);
    for (var a = lo.x; a <= hi.x; a = a + 1) {
      for (var b = lo.y; b <= hi.y; b = b + 1) {
        for (var c = lo.z; c <= hi.z; c = c + 1) {
          let gv = X[base + a * P[6].z + b * P[6].w + c * P[7].x];
          acc = acc + gv / T(divisor(vec3<i32>(a, b, c)));
        }
      }
    }
  } else {
    let u = unravel(e, O);
    let o = u.xyz;
    let base = P[7].y + (u.w / P[0].y) * P[6].x + (u.w % P[0].y) * P[6].y;
    let start = o * st - pad;
    let lo = max(start, vec3<i32>(0));
    let hi = min(start + K, S);
    for (var a = lo.x; a < hi.x; a = a + 1) {
      for (var b = lo.y; b < hi.y; b = b + 1) {
        for (var c = lo.z; c < hi.z; c = c + 1) {
          acc = acc + X[base + a * P[6].z + b * P[6].w + c * P[7].x];
        }
      }
    }
    acc = acc / T(divisor(o));  // integers: truncating division, as PyTorch
  }
  Y[e] = acc;
}
