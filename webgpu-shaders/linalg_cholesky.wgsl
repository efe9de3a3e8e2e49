// linalg_cholesky.wgsl -- batched Cholesky factorization (webtorch backend "webgpu": linalg_cholesky).
//
// Computes, for each matrix b of the batch (one workgroup per matrix), the lower-triangular L with L L^T = A[b]
// in f32, reading only A[b]'s lower triangle (the host swaps A's row and column strides to read the upper one),
// right-looking as LAPACK's unblocked potf2 does per column k: d = L[k, k] (A[k, k] less the earlier columns'
// updates), L[k, k] = sqrt(d), L[i, k] /= L[k, k] (i > k), then the trailing update L[i, j] -= L[i, k] L[j, k]
// (i >= j > k). L is factored in place in the output (row-major n x n at b * n * n, element (i, j) at
// i * P[2].x + j * P[2].y: (n, 1) writes L, (1, n) writes U = L^T for upper=True); its strict upper triangle
// is zero. The first d that is not positive (or NaN) stops the factorization: INFO[b] = k + 1 (the order of
// the leading minor that is not positive-definite, potrf's info) and columns k.. of L are zero; INFO[b] = 0
// when A[b] is positive-definite. The host reads INFO only where PyTorch raises (ops/linalg_decomp.py).
// The matrix lives in storage (the workgroup holds nothing), so every n fits; the steps of a column are
// separated by storage barriers (3 per column). The factorization is not cut short on failure: a value read
// from storage is not uniform, and every invocation must reach every barrier.
// Launch: workgroup_size WG; grid = batch workgroups, as (x, y) when over 65535.
// Specialization: WG.
// Parameters P: [0] = (batch, n, -, -); [1] = (A offset, A row stride, A column stride, -); [2] = (L row
//               stride, L column stride, -, -); [3] = batch sizes (4 dims, outermost first, padded in front
//               with 1); [4] = A batch strides.

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
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let b = wid.x + wid.y * nwg.x;
  if (b >= P[0].x) {
    return;
  }
  let n = P[0].y;
  let rs = P[2].x;
  let cs = P[2].y;
  let nn = n * n;
  let l0 = b * nn;

  let a0 = P[1].x + batch_offset(b, P[4]);
  for (var t = lid; t < nn; t = t + WG) {
    let i = t / n;
    let j = t % n;
    var v = 0.0;
    if (j <= i) {
      v = A[a0 + i * P[1].y + j * P[1].z];
    }
    L[l0 + i * rs + j * cs] = v;
  }
  storageBarrier();

  var info = 0u;
  for (var k = 0u; k < n; k = k + 1u) {
    let d = L[l0 + k * (rs + cs)];
    storageBarrier();  // every invocation holds d before the diagonal is overwritten
    if (info == 0u && !(d > 0.0)) {  // NaN fails too, as potrf
      info = k + 1u;
    }
    let ok = info == 0u;
    if (ok) {
      let s = sqrt(d);
      for (var i = k + lid; i < n; i = i + WG) {
        var v = s;
        if (i != k) {
          v = L[l0 + i * rs + k * cs] / s;
        }
        L[l0 + i * rs + k * cs] = v;
      }
    }
    storageBarrier();
    if (ok) {
      let m = n - k - 1u;
      for (var t = lid; t < m * m; t = t + WG) {
        let i = k + 1u + t / m;
        let j = k + 1u + t % m;
        if (j <= i) {
          L[l0 + i * rs + j * cs] = L[l0 + i * rs + j * cs] - L[l0 + i * rs + k * cs] * L[l0 + j * rs + k * cs];
        }
      }
    }
    storageBarrier();
  }
  if (info != 0u) {
    let k = info - 1u;
    for (var t = lid; t < nn; t = t + WG) {
      let i = t / n;
      let j = t % n;
      if (j >= k && j <= i) {
        L[l0 + i * rs + j * cs] = 0.0;
      }
    }
  }
  if (lid == 0u) {
    INFO[b] = i32(info);
  }
}
