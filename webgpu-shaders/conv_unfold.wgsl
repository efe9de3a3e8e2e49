// conv_unfold.wgsl -- F.unfold (im2col) and F.fold (col2im), its adjoint (webtorch backend "webgpu").
//
// FOLD = false: for each element (n, c, k0, k1, k2, l0, l1, l2) of the contiguous (N, C * K, L) output
// (rows ordered (c, k), columns the output positions l), x at position l * stride - pad + k * dilation
// (0 outside the input). FOLD = true: for each element (n, c, s0, s1, s2) of the contiguous (N, C, *S)
// output, the sum over kernel offsets k of cols[n, c * K + k, l] with l = (s + pad - k * dilation) / stride
// wherever that divides and lies in [0, L_d). The read operand is read through strides (n, row, spatial).
// Spatial dims are padded to three with size-1 dims.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256).
// Specialization: FOLD.
// Parameters P (i32): [0] (total, C, gx * 256, -)  [1] (S0, S1, S2, -)  [2] (K0, K1, K2, -)  [3] (L0, L1, L2, -)
//   [4] (stride0..2, -)  [5] (pad0..2, -)  [6] (dilation0..2, -)  [7] (read strides: n, c or row, -, offset)
//   [8] (read spatial strides 0..2, -): x's for unfold; for fold cols' column stride in .x

const FOLD: bool = false;

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
    let l = unravel(&t, L);
    let k = unravel(&t, K);
    let c = t % P[0].y;
    let n = t / P[0].y;
    let i = l * st - pad + k * dil;
    var v = 0.0;
    if (all(i >= vec3<i32>(0)) && all(i < S)) {
      v = X[P[7].w + n * P[7].x + c * P[7].y + dot(i, P[8].xyz)];
    }
    Y[e] = v;
  } else {
    let s = unravel(&t, S);
    let c = t % P[0].y;
    let n = t / P[0].y;
    let Kp = K.x * K.y * K.z;
    var acc = 0.0;
    for (var kf = 0; kf < Kp; kf = kf + 1) {
      let k = vec3<i32>(kf / (K.y * K.z), (kf / K.z) % K.y, kf % K.z);
      let v = s + pad - k * dil;
      if (all(v >= vec3<i32>(0)) && all(v % st == vec3<i32>(0))) {
        let l = v / st;
        if (all(l < L)) {
          acc = acc + X[P[7].w + n * P[7].x + (c * Kp + kf) * P[7].y + ((l.x * L.y + l.y) * L.z + l.z) * P[8].x];
        }
      }
    }
    Y[e] = acc;
  }
}
