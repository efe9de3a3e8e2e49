// matmul_tiled.wgsl -- fp32 batched matrix product C[z] = A[z] @ B[z] (webtorch backend "webgpu").
//
// Computes: C (batch, M, N), contiguous, from A (..., M, K) and B (..., K, N) read through strides, so
// transposed or sliced operands need no copy and broadcast batch dims have stride 0. The batch index z
// is unravelled over up to four batch dims (P[1]) with per-operand batch strides (P[2], P[3]).
// Launch: workgroup_size (16, 16); grid (ceil(N / 64), ceil(M / 64), batch).
// Each workgroup computes a 64x64 tile of C; each invocation a 4x4 register block at rows ty + 16 i and
// columns tx + 16 j (so shared-memory reads and global stores are consecutive across invocations).
// K advances 16 at a time through workgroup-shared tiles of A (stored k-major) and B.
// Specialization (set by the loader): A_VEC4 / B_VEC4 = operand contiguous along K / N with every
// stride, offset and K / N a multiple of 4: then each invocation loads one vec4 instead of 4 scalars.
// Parameters P: [0] = (M, N, K, batch); [1] = batch sizes; [2] = A batch strides; [3] = B batch strides;
//               [4] = (A row stride, A col stride, B row stride, B col stride); [5] = (A offset, B offset, -, -).

const A_VEC4: bool = false;
const B_VEC4: bool = false;

const TM: u32 = 64u;
const TN: u32 = 64u;
const TK: u32 = 16u;

@group(0) @binding(0) var<storage, read> A: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> B: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 6>;

var<workgroup> As: array<f32, 1024>;  // [TK][TM]
var<workgroup> Bs: array<f32, 1024>;  // [TK][TN]

fn batch_offset(z: u32, sizes: vec4<u32>, strides: vec4<u32>) -> u32 {
  var t = z;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = P[0].x;
  let N = P[0].y;
  let K = P[0].z;
  let a_base = P[5].x + batch_offset(wid.z, P[1], P[2]);
  let b_base = P[5].y + batch_offset(wid.z, P[1], P[3]);
  let a_rs = P[4].x;
  let a_cs = P[4].y;
  let b_rs = P[4].z;
  let b_cs = P[4].w;
  let row0 = wid.y * TM;
  let col0 = wid.x * TN;
  let tx = lid.x;
  let ty = lid.y;
  let tid = ty * 16u + tx;
  var acc: array<vec4<f32>, 4>;
  for (var k0 = 0u; k0 < K; k0 = k0 + TK) {
    if (A_VEC4) {
      let r = tid / 4u;
      let kq = (tid % 4u) * 4u;
      var v = vec4<f32>(0.0);
      if (row0 + r < M && k0 + kq < K) {
        v = A[(a_base + (row0 + r) * a_rs + k0 + kq) >> 2u];
      }
      As[kq * TM + r] = v.x;
      As[(kq + 1u) * TM + r] = v.y;
      As[(kq + 2u) * TM + r] = v.z;
      As[(kq + 3u) * TM + r] = v.w;
    } else {
      for (var q = 0u; q < 4u; q = q + 1u) {
        let e = tid + q * 256u;
        let kk = e / TM;
        let r = e % TM;
        var v = 0.0;
        if (row0 + r < M && k0 + kk < K) {
          let a = a_base + (row0 + r) * a_rs + (k0 + kk) * a_cs;
          v = A[a >> 2u][a & 3u];
        }
        As[kk * TM + r] = v;
      }
    }
    if (B_VEC4) {
      let kk = tid / 16u;
      let c = (tid % 16u) * 4u;
      var v = vec4<f32>(0.0);
      if (k0 + kk < K && col0 + c < N) {
        v = B[(b_base + (k0 + kk) * b_rs + col0 + c) >> 2u];
      }
      Bs[kk * TN + c] = v.x;
      Bs[kk * TN + c + 1u] = v.y;
      Bs[kk * TN + c + 2u] = v.z;
      Bs[kk * TN + c + 3u] = v.w;
    } else {
      for (var q = 0u; q < 4u; q = q + 1u) {
        let e = tid + q * 256u;
        let kk = e / TN;
        let c = e % TN;
        var v = 0.0;
        if (k0 + kk < K && col0 + c < N) {
          let b = b_base + (k0 + kk) * b_rs + (col0 + c) * b_cs;
          v = B[b >> 2u][b & 3u];
        }
        Bs[kk * TN + c] = v;
      }
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TK; kk = kk + 1u) {
      let bv = vec4<f32>(Bs[kk * TN + tx], Bs[kk * TN + tx + 16u], Bs[kk * TN + tx + 32u], Bs[kk * TN + tx + 48u]);
      acc[0] = acc[0] + As[kk * TM + ty] * bv;
      acc[1] = acc[1] + As[kk * TM + ty + 16u] * bv;
      acc[2] = acc[2] + As[kk * TM + ty + 32u] * bv;
      acc[3] = acc[3] + As[kk * TM + ty + 48u] * bv;
    }
    workgroupBarrier();
  }
  let c_base = wid.z * M * N;
  for (var i = 0u; i < 4u; i = i + 1u) {
    let r = row0 + ty + 16u * i;
    if (r < M) {
      for (var j = 0u; j < 4u; j = j + 1u) {
        let c = col0 + tx + 16u * j;
        if (c < N) {
          C[c_base + r * N + c] = acc[i][j];
        }
      }
    }
  }
}
