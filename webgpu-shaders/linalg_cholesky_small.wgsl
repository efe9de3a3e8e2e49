// linalg_cholesky_small.wgsl -- linalg_cholesky.wgsl for small matrices: one invocation factors a whole matrix.
//
// Computes exactly what linalg_cholesky.wgsl computes (same bindings, parameters and results, the same f32
// operations in the same order), but each invocation walks one matrix b alone, with no barriers and no
// workgroup memory: for a batch of small matrices a workgroup per matrix would leave most of its invocations
// idle and pay 3 barriers a column (linalg_kernels.py picks this kernel for n <= SMALL_N).
// Launch: workgroup_size 64; grid = ceil(batch / 64) workgroups, as (x, y) when over 65535.
// Parameters P: as linalg_cholesky.wgsl: [0] = (batch, n, -, -); [1] = (A offset, A row stride, A column
//               stride, -); [2] = (L row stride, L column stride, -, -); [3] = batch sizes; [4] = A batch strides.

const WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read_write> L: array<f32>;
@group(0) @binding(2) var<storage, read_write> INFO: array<i32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 5>;

fn batch_offset(b: u32, strides: vec4<u32>) -> u32 {
  let sizes = P[3];
  var t = b;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = gid.x + gid.y * nwg.x * WG;
  if (b >= P[0].x) {
    return;
  }
  let n = P[0].y;
  let rs = P[2].x;
  let cs = P[2].y;
  let l0 = b * n * n;

  let a0 = P[1].x + batch_offset(b, P[4]);
  for (var i = 0u; i < n; i = i + 1u) {
    for (var j = 0u; j < n; j = j + 1u) {
      var v = 0.0;
      if (j <= i) {
        v = A[a0 + i * P[1].y + j * P[1].z];
      }
      L[l0 + i * rs + j * cs] = v;
    }
  }

  var info = 0u;
  for (var k = 0u; k < n; k = k + 1u) {
    let d = L[l0 + k * (rs + cs)];
    if (!(d > 0.0)) {  // NaN fails too, as potrf
      info = k + 1u;
      break;
    }
    let s = sqrt(d);
    L[l0 + k * (rs + cs)] = s;
    for (var i = k + 1u; i < n; i = i + 1u) {
      L[l0 + i * rs + k * cs] = L[l0 + i * rs + k * cs] / s;
    }
    for (var j = k + 1u; j < n; j = j + 1u) {
      let ljk = L[l0 + j * rs + k * cs];
      for (var i = j; i < n; i = i + 1u) {
        L[l0 + i * rs + j * cs] = L[l0 + i * rs + j * cs] - L[l0 + i * rs + k * cs] * ljk;
      }
    }
  }
  if (info != 0u) {
    for (var j = info - 1u; j < n; j = j + 1u) {
      for (var i = j; i < n; i = i + 1u) {
        L[l0 + i * rs + j * cs] = 0.0;
      }
    }
  }
  INFO[b] = i32(info);
}
