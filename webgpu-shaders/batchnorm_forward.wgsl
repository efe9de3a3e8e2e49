// batchnorm_forward.wgsl -- training-mode batch normalization, one channel per workgroup (webtorch backend "webgpu").
//
// Computes, for channel c of X viewed as (N, C, S) through strides (S = the spatial dims flattened; 1 for an
// (N, C) input) over its M = N * S elements: mean = sum(x) / M, var = sum((x - mean)^2) / M (two passes, no
// cancellation), rstd = 1 / sqrt(var + eps); Y = (x - mean) * rstd * W[c] + B[c] (Y contiguous (N, C, S));
// MEAN[c] = mean, RSTD[c] = rstd; and the running statistics in place: RM[c] = (1 - momentum) RM[c] +
// momentum mean, RV[c] = (1 - momentum) RV[c] + momentum var M / (M - 1). W, B, RM, RV are applied / written
// when their flag is set (a flag, not a specialization: absent ones are bound to other buffers, so the
// binding layout never changes); W, B, RM, RV are (C,) views with an offset and a stride.
// Launch: workgroup_size WG; grid = ceil(C) workgroups, as (x, y) when over 65535. Each sum is a workgroup
// reduction over the WG invocations of the channel (RT = WG: the shared row helpers of the row kernels).
// Specialization: WG = RT (a power of two); subgroup_reduce.py's variant replaces slot / row_sum with
// subgroup operations (the tree here is the fallback for adapters without subgroups).
// Parameters P: [0] = (C, N, S, flags: 1 W, 2 B, 4 RM, 8 RV); [1] = X (offset, N stride, C stride, S stride);
//               [2] = (W offset, W stride, B offset, B stride); [3] = (RM offset, RM stride, RV offset, RV stride);
//               [4] = bits of f32 (eps, momentum, -, -).

const WG: u32 = 256u;
const RT: u32 = 256u;

@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> W: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> Y: array<f32>;
@group(0) @binding(4) var<storage, read_write> MEAN: array<f32>;
@group(0) @binding(5) var<storage, read_write> RSTD: array<f32>;
@group(0) @binding(6) var<storage, read_write> RM: array<f32>;
@group(0) @binding(7) var<storage, read_write> RV: array<f32>;
@group(0) @binding(8) var<uniform> P: array<vec4<u32>, 5>;

var<workgroup> sh: array<f32, WG>;

// This invocation's slot q in the workgroup: slot q works on local row q / RT, part q % RT of it.
fn slot(lid: u32) -> u32 { return lid; }

// The sum of the RT values of slot q's row (t = q % RT), given to each of them; every invocation calls it.
fn row_sum(q: u32, t: u32, v: f32) -> f32 {
  sh[q] = v;
  workgroupBarrier();
  for (var h = RT / 2u; h > 0u; h = h >> 1u) {
    if (t < h) {
      sh[q] = sh[q] + sh[q + h];
    }
    workgroupBarrier();
  }
  let s = sh[q - t];
  workgroupBarrier();  // sh is reused by the next sum
  return s;
}

// address of element i (= n S + s) of channel c
fn x_at(c: u32, i: u32) -> u32 {
  let S = P[0].z;
  return P[1].x + (i / S) * P[1].y + c * P[1].z + (i % S) * P[1].w;
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
  var acc = 0.0;
  for (var i = t; i < M; i = i + RT) {
    acc = acc + X[x_at(c, i)];
  }
  let mean = row_sum(q, t, acc) / f32(M);
  acc = 0.0;
  for (var i = t; i < M; i = i + RT) {
    let d = X[x_at(c, i)] - mean;
    acc = acc + d * d;
  }
  let var_b = row_sum(q, t, acc) / f32(M);
  let rstd = 1.0 / sqrt(var_b + bitcast<f32>(P[4].x));
  var w = 1.0;
  var b = 0.0;
  if ((flags & 1u) != 0u) {
    w = W[P[2].x + c * P[2].y];
  }
  if ((flags & 2u) != 0u) {
    b = B[P[2].z + c * P[2].w];
  }
  let scale = rstd * w;
  for (var i = t; i < M; i = i + RT) {
    Y[(i / S) * C * S + c * S + i % S] = (X[x_at(c, i)] - mean) * scale + b;
  }
  if (t == 0u) {
    MEAN[c] = mean;
    RSTD[c] = rstd;
    let mom = bitcast<f32>(P[4].y);
    if ((flags & 4u) != 0u) {
      let k = P[3].x + c * P[3].y;
      RM[k] = (1.0 - mom) * RM[k] + mom * mean;
    }
    if ((flags & 8u) != 0u) {
      let k = P[3].z + c * P[3].w;
      RV[k] = (1.0 - mom) * RV[k] + mom * var_b * f32(M) / f32(max(M - 1u, 1u));
    }
  }
}
