// linalg_trsm.wgsl -- batched triangular solve A X = B (webtorch backend "webgpu": linalg_solve_triangular).
//
// One invocation per (matrix b, right-hand-side column c): forward substitution for a lower-triangular A
// (rows 0 .. n-1), back substitution for an upper one (rows n-1 .. 0), X[i, c] = (B[i, c] - sum_j A[i, j]
// X[j, c]) / A[i, i] over the already solved rows j, in f32; only A's triangle is read (unitriangular: the
// diagonal is not read, taken as ones). A zero on the diagonal gives inf/NaN, as LAPACK's trsm, not an error.
// No barriers: each invocation reads back only the column it wrote. X A = B (left=False) is the transposed
// problem A^T X^T = B^T: the host swaps A's, B's and X's row and column strides and flips the triangle.
// X is the output (n x K per matrix at b * n * K, element (i, c) at i * P[3].x + c * P[3].y).
// Launch: workgroup_size 64; grid = ceil(batch * K / 64) workgroups, as (x, y) when over 65535.
// Parameters P: [0] = (batch, n, K, flags: bit 0 upper, bit 1 unitriangular); [1] = (A offset, A row stride,
//               A column stride, -); [2] = (B offset, B row stride, B column stride, -); [3] = (X row stride,
//               X column stride, -, -); [4] = batch sizes (4 dims, outermost first, padded in front with 1);
//               [5] = A batch strides; [6] = B batch strides (0: broadcast).

const WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> X: array<f32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 7>;

fn batch_offset(b: u32, strides: vec4<u32>) -> u32 {
  let sizes = P[4];
  var t = b;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let g = gid.x + gid.y * nwg.x * WG;
  let n = P[0].y;
  let K = P[0].z;
  if (g >= P[0].x * K) {
    return;
  }
  let b = g / K;
  let c = g % K;
  let upper = (P[0].w & 1u) != 0u;
  let unit = (P[0].w & 2u) != 0u;
  let ars = P[1].y;
  let acs = P[1].z;
  let a0 = P[1].x + batch_offset(b, P[5]);
  let b0 = P[2].x + batch_offset(b, P[6]) + c * P[2].z;
  let xrs = P[3].x;
  let x0 = b * n * K + c * P[3].y;

  for (var s = 0u; s < n; s = s + 1u) {
    let i = select(s, n - 1u - s, upper);
    var acc = B[b0 + i * P[2].y];
    let lo = select(0u, i + 1u, upper);
    let hi = select(i, n, upper);
    for (var j = lo; j < hi; j = j + 1u) {
      acc = acc - A[a0 + i * ars + j * acs] * X[x0 + j * xrs];
    }
    if (!unit) {
      acc = acc / A[a0 + i * (ars + acs)];
    }
    X[x0 + i * xrs] = acc;
  }
}
