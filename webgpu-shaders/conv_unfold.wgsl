// conv_unfold.wgsl -- F.unfold (im2col) and F.fold (col2im), its adjoint (webtorch backend "webgpu").
//
// FOLD = false: for each element (n, c, k0, k1, k2, l0, l1, l2) of the contiguous (N, C * K, L) output
// (rows ordered (c, k), columns the output positions l), x at position l * stride - pad + k * dilation
// (0 outside the input). Each invocation writes one column l for up to CH consecutive kernel positions k
// (work item = (n, c, chunk of CH positions, l), l fastest: neighbouring invocations read and write
// neighbouring elements), stepping k without divisions: on a CPU adapter integer division is a scalar
// instruction per lane, and one element per invocation spent most of its time unravelling indices.
// FOLD = true: for each element (n, c, s0, s1, s2) of the contiguous (N, C, *S) output, the sum over kernel
// offsets k of cols[n, c * K + k, l] with l = (s + pad - k * dilation) / stride wherever that divides and
// lies in [0, L_d) (kernel offsets looped nested, no division at stride 1). The read operand is read
// through strides (n, row, spatial). Spatial dims are padded to three with size-1 dims.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256), total the
// work items (unfold: N C x chunks of kernel positions x L; fold: output elements).
// Specialization: FOLD; CH.
// Parameters P (i32): [0] (total, C, gx * 256, unfold's chunks of kernel positions)  [1] (S0, S1, S2, -)
//   [2] (K0, K1, K2, -)  [3] (L0, L1, L2, -)  [4] (stride0..2, -)  [5] (pad0..2, -)  [6] (dilation0..2, -)
//   [7] (read strides: n, c or row, -, offset)  [8] (read spatial strides 0..2, -): x's for unfold; for fold
//   cols' column stride in .x

const FOLD: bool = false;
const CH: i32 = 32;  // kernel positions of one unfold column per invocation

@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@group(0) @binding(2) var<uniform> P: array<vec4<i32>, 9>;

fn unravel(t: ptr<function, i32>, size: vec3<i32>) -> vec3<i32> {
  let a2 = *t % size.z; *t = *t / size.z;
  let a1 = *t % size.y; *t = *t / size.y;
  let a0 = *t % size.x; *t = *t / size.x;
  return vec3<i32>(a0, a1, a2);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].z;
  if (e >= P[0].x) {
    return;
  }
  let S = P[1].xyz;
  let K = P[2].xyz;
  let L = P[3].xyz;
  let st = P[4].xyz;
  let pad = P[5].xyz;
  let dil = P[6].xyz;
  var t = e;
  if (!FOLD) {
    let Lp = L.x * L.y * L.z;
    let Kp = K.x * K.y * K.z;
    let lf = t % Lp;
    t = t / Lp;
    let q = t % P[0].w;
    t = t / P[0].w;
    let c = t % P[0].y;
    let n = t / P[0].y;
    var r = lf;
    let at = unravel(&r, L) * st - pad;
    let base = P[7].w + n * P[7].x + c * P[7].y;
    let start = q * CH;
    r = start;
    var k = unravel(&r, K);
    var o = ((n * P[0].y + c) * Kp + start) * Lp + lf;
    for (var kf = start; kf < min(start + CH, Kp); kf = kf + 1) {
      let i = at + k * dil;
      var v = 0.0;
      if (all(i >= vec3<i32>(0)) && all(i < S)) {
        v = X[base + dot(i, P[8].xyz)];
      }
      Y[o] = v;
      o = o + Lp;
      k.z = k.z + 1;  // the next kernel position, without a division
      if (k.z == K.z) {
        k.z = 0;
        k.y = k.y + 1;
        if (k.y == K.y) {
          k.y = 0;
          k.x = k.x + 1;
        }
      }
    }
  } else {
    let s = unravel(&t, S);
    let c = t % P[0].y;
    let n = t / P[0].y;
    let Kp = K.x * K.y * K.z;
    let unit = all(st == vec3<i32>(1));
    var acc = 0.0;
    var kf = 0;
    for (var k0 = 0; k0 < K.x; k0 = k0 + 1) {
      for (var k1 = 0; k1 < K.y; k1 = k1 + 1) {
        for (var k2 = 0; k2 < K.z; k2 = k2 + 1) {
          let v = s + pad - vec3<i32>(k0, k1, k2) * dil;
          var l = v;
          var hit = all(v >= vec3<i32>(0));
          if (!unit) {  // stride 1 (uniform): no division
            hit = hit && all(v % st == vec3<i32>(0));
            l = v / st;
          }
          if (hit && all(l < L)) {
            acc = acc + X[P[7].w + n * P[7].x + (c * Kp + kf) * P[7].y + ((l.x * L.y + l.y) * L.z + l.z) * P[8].x];
          }
          kf = kf + 1;
        }
      }
    }
    Y[e] = acc;
  }
}
