// batchnorm_backward.wgsl -- gradients of training-mode batch normalization, one channel per workgroup
// (webtorch backend "webgpu").
//
// Computes, for channel c of G and X viewed as (N, C, S) through strides, over its M = N * S elements, with the
// forward's saved MEAN[c] / RSTD[c]: xhat = (x - mean) * rstd, sg = sum(g), sgx = sum(g * xhat);
// GW[c] = sgx, GB[c] = sg, and (when P[0].w & 2) GX = W[c] * rstd * (g - sg / M - xhat * sgx / M), GX contiguous
// (N, C, S) (W[c] taken as 1 unless P[0].w & 1; W is a (C,) view with offset and stride). When GX or W is
// absent another buffer is bound in its place (flags, not specialization: the binding layout never changes).
// Launch: workgroup_size WG; grid = C workgroups, as (x, y) when over 65535. Both sums are reduced together
// over the WG invocations of the channel (RT = WG: the shared row helpers of the row kernels).
// Specialization: WG = RT (a power of two); subgroup_reduce.py's variant replaces slot / row_sum2 with
// subgroup operations (the tree here is the fallback for adapters without subgroups).
// Parameters P: [0] = (C, N, S, flags: 1 W, 2 GX); [1] = G (offset, N stride, C stride, S stride);
//               [2] = X (offset, N stride, C stride, S stride); [3] = (W offset, W stride, -, -).

const WG: u32 = 256u;
const RT: u32 = 256u;

@group(0) @binding(0) var<storage, read> G: array<f32>;
@group(0) @binding(1) var<storage, read> X: array<f32>;
@group(0) @binding(2) var<storage, read> MEAN: array<f32>;
@group(0) @binding(3) var<storage, read> RSTD: array<f32>;
@group(0) @binding(4) var<storage, read> W: array<f32>;
@group(0) @binding(5) var<storage, read_write> GX: array<f32>;
@group(0) @binding(6) var<storage, read_write> GW: array<f32>;
@group(0) @binding(7) var<storage, read_write> GB: array<f32>;
@group(0) @binding(8) var<uniform> P: array<vec4<u32>, 4>;

var<workgroup> sh: array<vec2<f32>, WG>;

// This invocation's slot q in the workgroup: slot q works on local row q / RT, part q % RT of it.
fn slot(lid: u32) -> u32 { return lid; }

// The sum of the RT values of slot q's row (t = q % RT), given to each of them; every invocation calls it.
fn row_sum2(q: u32, t: u32, v: vec2<f32>) -> vec2<f32> {
  sh[q] = v;
  workgroupBarrier();
  for (var h = RT / 2u; h > 0u; h = h >> 1u) {
    if (t < h) {
      sh[q] = sh[q] + sh[q + h];
    }
    workgroupBarrier();
  }
  return sh[q - t];
}

// address of element i (= n S + s) of channel c in a view with (offset, N, C, S strides) st
fn at(st: vec4<u32>, c: u32, i: u32) -> u32 {
  let S = P[0].z;
  return st.x + (i / S) * st.y + c * st.z + (i % S) * st.w;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let C = P[0].x;
  let S = P[0].z;
  let M = P[0].y * S;
  let flags = P[0].w;
  let c = wid.x + wid.y * nwg.x;
  if (c >= C) {
    return;  // uniform: a whole workgroup
  }
  let q = slot(lid);
  let t = q % RT;
  let mean = MEAN[c];
  let rstd = RSTD[c];
  var acc = vec2<f32>(0.0);
  for (var i = t; i < M; i = i + RT) {
    let g = G[at(P[1], c, i)];
    acc = acc + vec2<f32>(g, g * (X[at(P[2], c, i)] - mean) * rstd);
  }
  let s = row_sum2(q, t, acc);
  if (t == 0u) {
    GB[c] = s.x;
    GW[c] = s.y;
  }
  if ((flags & 2u) != 0u) {
    var w = 1.0;
    if ((flags & 1u) != 0u) {
      w = W[P[3].x + c * P[3].y];
    }
    let scale = w * rstd;
    let a = s.x / f32(M);
    let b = s.y / f32(M);
    for (var i = t; i < M; i = i + RT) {
      let xhat = (X[at(P[2], c, i)] - mean) * rstd;
      GX[(i / S) * C * S + c * S + i % S] = (G[at(P[1], c, i)] - a - xhat * b) * scale;
    }
  }
}
