// linalg_lu.wgsl -- batched LU factorization with partial pivoting, and the determinant, solve and inverse
// built on it (webtorch backend "webgpu": linalg_det, linalg_solve, linalg_inv).
//
// Computes, for each matrix b of the batch (one workgroup per matrix), P A[b] = L U in f32 on a copy of A[b]
// in W (row-major n x n at b * n * n), as LAPACK's getrf: for each column k the pivot row p >= k of the
// largest |W[p, k]| (the first on ties, as isamax; a workgroup reduction), rows k and p swapped over all n
// columns, the multipliers W[i, k] /= W[k, k] (i > k), then the trailing update W[i, j] -= W[i, k] W[k, j]
// (i, j > k). A zero pivot (the column is zero from row k down) leaves the column as it is and sets
// INFO[b] = k + 1 for the first such k (getrf's info); INFO[b] = 0 when every pivot is nonzero.
// W is a storage buffer (the workgroup only holds the pivot reduction), so every n fits the workgroup
// storage limit; the steps are separated by storage barriers (4 per column).
// MODE 0 (det): X[b] = U[0, 0] * ... * U[n-1, n-1], negated for an odd number of row swaps (a singular
// matrix gives 0 and no error, as PyTorch).
// MODE 1 (solve) / 2 (inverse): X[b] (n x K row-major at b * n * K) starts as B[b] (solve) or the identity
// (inverse, K = n); every row swap and elimination step is applied to X alongside W (forward substitution
// with L on the permuted right-hand sides, LAPACK getrs's order of operations), then back substitution with
// U column by column from the last (trsm's order): X = A[b]^-1 B[b]. A singular A[b] leaves inf/NaN in X[b]:
// the host reads INFO back to raise PyTorch's error (linalg_kernels.py).
// Launch: workgroup_size WG; grid = batch workgroups, as (x, y) when over 65535.
// Specialization: MODE; WG (a power of two).
// Parameters P: [0] = (batch, n, K, -) (K = 0 for det); [1] = (A offset, A row stride, A column stride, -);
//               [2] = (B offset, B row stride, B column stride, -); [3] = batch sizes (4 dims, outermost
//               first, padded in front with 1); [4] = A batch strides; [5] = B batch strides (0: broadcast).
// Bindings: B is bound to A's buffer when not solving (its reads sit in MODE branches that do not run).

const MODE: u32 = 1u;
const WG: u32 = 64u;

const DET: u32 = 0u;
const SOLVE: u32 = 1u;
const INVERSE: u32 = 2u;

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> W: array<f32>;
@group(0) @binding(3) var<storage, read_write> X: array<f32>;
@group(0) @binding(4) var<storage, read_write> INFO: array<i32>;
@group(0) @binding(5) var<uniform> P: array<vec4<u32>, 6>;

var<workgroup> sv: array<f32, WG>;
var<workgroup> si: array<u32, WG>;

fn batch_offset(b: u32, strides: vec4<u32>) -> u32 {
  let sizes = P[3];
  var t = b;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

// The pivot row of column k: the first row p >= k of the largest |W[p, k]| (k itself when the column holds
// only NaN from row k down, as isamax). Every invocation calls it and gets the same row.
fn pivot_row(w0: u32, n: u32, k: u32, lid: u32) -> u32 {
  var best = -1.0;
  var bi = n;
  for (var i = k + lid; i < n; i = i + WG) {
    let v = abs(W[w0 + i * n + k]);
    if (v > best) {  // rows increase: strict > keeps the first of equal values
      best = v;
      bi = i;
    }
  }
  sv[lid] = best;
  si[lid] = bi;
  workgroupBarrier();
  for (var h = WG / 2u; h > 0u; h = h >> 1u) {
    if (lid < h) {
      let v = sv[lid + h];
      let i = si[lid + h];
      if (v > sv[lid] || (v == sv[lid] && i < si[lid])) {
        sv[lid] = v;
        si[lid] = i;
      }
    }
    workgroupBarrier();
  }
  let p = si[0];
  workgroupBarrier();  // the next column's reduction overwrites si[0]
  return select(p, k, p == n);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let b = wid.x + wid.y * nwg.x;
  if (b >= P[0].x) {
    return;
  }
  let n = P[0].y;
  let K = P[0].z;
  let nn = n * n;
  let w0 = b * nn;
  let x0 = b * n * K;

  let a0 = P[1].x + batch_offset(b, P[4]);
  for (var t = lid; t < nn; t = t + WG) {
    W[w0 + t] = A[a0 + (t / n) * P[1].y + (t % n) * P[1].z];
  }
  if (MODE == SOLVE) {
    let b0 = P[2].x + batch_offset(b, P[5]);
    for (var t = lid; t < n * K; t = t + WG) {
      X[x0 + t] = B[b0 + (t / K) * P[2].y + (t % K) * P[2].z];
    }
  } else if (MODE == INVERSE) {
    for (var t = lid; t < nn; t = t + WG) {
      X[x0 + t] = select(0.0, 1.0, t / n == t % n);
    }
  }
  storageBarrier();

  var info = 0u;
  var swaps = 0u;
  for (var k = 0u; k < n; k = k + 1u) {
    let p = pivot_row(w0, n, k, lid);
    if (p != k) {
      swaps = swaps + 1u;
      for (var j = lid; j < n; j = j + WG) {
        let t = W[w0 + k * n + j];
        W[w0 + k * n + j] = W[w0 + p * n + j];
        W[w0 + p * n + j] = t;
      }
      for (var c = lid; c < K; c = c + WG) {
        let t = X[x0 + k * K + c];
        X[x0 + k * K + c] = X[x0 + p * K + c];
        X[x0 + p * K + c] = t;
      }
    }
    storageBarrier();
    let piv = W[w0 + k * n + k];
    if (piv == 0.0) {
      if (info == 0u) {
        info = k + 1u;
      }
    } else {
      for (var i = k + 1u + lid; i < n; i = i + WG) {
        W[w0 + i * n + k] = W[w0 + i * n + k] / piv;
      }
    }
    storageBarrier();
    if (piv != 0.0) {
      let m = n - k - 1u;  // trailing columns of W; then the K columns of X
      let cols = m + K;
      for (var t = lid; t < m * cols; t = t + WG) {
        let i = k + 1u + t / cols;
        let c = t % cols;
        let l = W[w0 + i * n + k];
        if (c < m) {
          W[w0 + i * n + k + 1u + c] = W[w0 + i * n + k + 1u + c] - l * W[w0 + k * n + k + 1u + c];
        } else {
          let cx = c - m;
          X[x0 + i * K + cx] = X[x0 + i * K + cx] - l * X[x0 + k * K + cx];
        }
      }
    }
    storageBarrier();
  }

  if (MODE == DET) {
    if (lid == 0u) {
      var d = 1.0;
      for (var k = 0u; k < n; k = k + 1u) {
        d = d * W[w0 + k * n + k];
      }
      X[b] = select(d, -d, (swaps & 1u) == 1u);
    }
  } else {
    for (var kk = 0u; kk < n; kk = kk + 1u) {
      let k = n - 1u - kk;
      let u = W[w0 + k * n + k];
      for (var c = lid; c < K; c = c + WG) {
        X[x0 + k * K + c] = X[x0 + k * K + c] / u;
      }
      storageBarrier();
      for (var t = lid; t < k * K; t = t + WG) {
        let i = t / K;
        let c = t % K;
        X[x0 + i * K + c] = X[x0 + i * K + c] - W[w0 + i * n + k] * X[x0 + k * K + c];
      }
      storageBarrier();
    }
  }
  if (lid == 0u) {
    INFO[b] = i32(info);
  }
}
