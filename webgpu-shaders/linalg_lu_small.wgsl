// linalg_lu_small.wgsl -- linalg_lu.wgsl for small matrices: one invocation factors a whole matrix.
//
// Computes exactly what linalg_lu.wgsl computes (same bindings, parameters, MODE and results, the same f32
// operations in the same order: LAPACK getf2 with first-row ties, then getrs's substitutions), but each
// invocation walks one matrix b alone, with no barriers and no workgroup memory: for a batch of small
// matrices a workgroup per matrix would leave most of its invocations idle and pay 4 barriers a column
// (linalg_kernels.py picks this kernel for n <= SMALL_N).
// Launch: workgroup_size 64; grid = ceil(batch / 64) workgroups, as (x, y) when over 65535.
// Specialization: MODE (0 det, 1 solve, 2 inverse).
// Parameters P: as linalg_lu.wgsl: [0] = (batch, n, K, -); [1] = (A offset, A row stride, A column stride, -);
//               [2] = (B offset, B row stride, B column stride, -); [3] = batch sizes; [4] = A batch strides;
//               [5] = B batch strides.

const MODE: u32 = 1u;

const DET: u32 = 0u;
const SOLVE: u32 = 1u;
const INVERSE: u32 = 2u;
const WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> W: array<f32>;
@group(0) @binding(3) var<storage, read_write> X: array<f32>;
@group(0) @binding(4) var<storage, read_write> INFO: array<i32>;
@group(0) @binding(5) var<uniform> P: array<vec4<u32>, 6>;

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
  let K = P[0].z;
  let w0 = b * n * n;
  let x0 = b * n * K;

  let a0 = P[1].x + batch_offset(b, P[4]);
  for (var i = 0u; i < n; i = i + 1u) {
    for (var j = 0u; j < n; j = j + 1u) {
      W[w0 + i * n + j] = A[a0 + i * P[1].y + j * P[1].z];
    }
  }
  if (MODE == SOLVE) {
    let b0 = P[2].x + batch_offset(b, P[5]);
    for (var i = 0u; i < n; i = i + 1u) {
      for (var c = 0u; c < K; c = c + 1u) {
        X[x0 + i * K + c] = B[b0 + i * P[2].y + c * P[2].z];
      }
    }
  } else if (MODE == INVERSE) {
    for (var i = 0u; i < n; i = i + 1u) {
      for (var c = 0u; c < K; c = c + 1u) {
        X[x0 + i * K + c] = select(0.0, 1.0, i == c);
      }
    }
  }

  var info = 0u;
  var swaps = 0u;
  for (var k = 0u; k < n; k = k + 1u) {
    var p = n;
    var best = -1.0;
    for (var i = k; i < n; i = i + 1u) {
      let v = abs(W[w0 + i * n + k]);
      if (v > best) {  // strict >: the first row on ties; a NaN never wins
        best = v;
        p = i;
      }
    }
    p = select(p, k, p == n);  // only NaN from row k down: row k, as linalg_lu.wgsl
    if (p != k) {
      swaps = swaps + 1u;
      for (var j = 0u; j < n; j = j + 1u) {
        let t = W[w0 + k * n + j];
        W[w0 + k * n + j] = W[w0 + p * n + j];
        W[w0 + p * n + j] = t;
      }
      for (var c = 0u; c < K; c = c + 1u) {
        let t = X[x0 + k * K + c];
        X[x0 + k * K + c] = X[x0 + p * K + c];
        X[x0 + p * K + c] = t;
      }
    }
    let piv = W[w0 + k * n + k];
    if (piv == 0.0) {
      if (info == 0u) {
        info = k + 1u;
      }
      continue;
    }
    for (var i = k + 1u; i < n; i = i + 1u) {
      let l = W[w0 + i * n + k] / piv;
      W[w0 + i * n + k] = l;
      for (var j = k + 1u; j < n; j = j + 1u) {
        W[w0 + i * n + j] = W[w0 + i * n + j] - l * W[w0 + k * n + j];
      }
      for (var c = 0u; c < K; c = c + 1u) {
        X[x0 + i * K + c] = X[x0 + i * K + c] - l * X[x0 + k * K + c];
      }
    }
  }

  if (MODE == DET) {
    var d = 1.0;
    for (var k = 0u; k < n; k = k + 1u) {
      d = d * W[w0 + k * n + k];
    }
    X[b] = select(d, -d, (swaps & 1u) == 1u);
  } else {
    for (var kk = 0u; kk < n; kk = kk + 1u) {
      let k = n - 1u - kk;
      let u = W[w0 + k * n + k];
      for (var c = 0u; c < K; c = c + 1u) {
        X[x0 + k * K + c] = X[x0 + k * K + c] / u;
      }
      for (var i = 0u; i < k; i = i + 1u) {
        let w = W[w0 + i * n + k];
        for (var c = 0u; c < K; c = c + 1u) {
          X[x0 + i * K + c] = X[x0 + i * K + c] - w * X[x0 + k * K + c];
        }
      }
    }
  }
  INFO[b] = i32(info);
}
