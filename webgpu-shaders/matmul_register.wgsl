// matmul_register.wgsl -- fp32 batched matrix product C[z] = A[z] @ B[z] without workgroup memory
// (webtorch backend "webgpu"), for adapters that run compute shaders on the CPU (SwiftShader in Chromium,
// lavapipe): there "shared" memory is ordinary memory and every workgroupBarrier switches coroutines, so
// matmul_tiled.wgsl's staging costs more than it saves; each invocation instead reads its operands straight
// from the storage buffers (the CPU's caches do the tiling) into a large register block.
//
// Computes: C (batch, M, N), contiguous, from A (..., M, K) and B (..., K, N) read through strides (the
// same parameters as matmul_tiled.wgsl). Launch: workgroup_size (WG_X, WG_Y); grid (ceil(N / 8 WG_X),
// ceil(M / 8 WG_Y), batch), or a part of it: P[6] holds the first (batch, row, column) of the dispatch (a product
// past maxComputeWorkgroupsPerDimension is several). Each invocation computes an 8 x 8 block of C: rows r0 + 4 q + i and columns
// c0 + 4 j + l (q, j < 2; i, l < 4), r0 = 8 global_id.y, c0 = 8 global_id.x, accumulated as 16 vec4
// (acc_qi_j: row 4 q + i, columns 4 j .. 4 j + 3). K advances 4 at a time: a 4 x 4 block of A (4 rows x 4 k)
// and of B (4 k x 4 columns) are loaded as mat4x4, so one row's update is a matrix-vector product.
// Written out, not looped: SwiftShader keeps arrays indexed in loops in memory (10x slower measured).
// Rows and columns past the edge are clamped for loading (in bounds, never stored); k past K loads zeros.
// Operand layouts (specialization constants A_MODE, B_MODE, chosen by the loader from strides; one
// pipeline per layout pair, the untaken branches fold away at compile time):
//   0: any strides, one scalar load per element;
//   1: contiguous along the vec4 direction (A along K, B along N): one vec4 load per row (A) or k (B);
//   2: contiguous across it (A along M, B along K, e.g. a transposed weight): vec4 loads along the other
//      dim, transposed in registers.
//   Modes 1 and 2 need every stride but the contiguous one, the offset, and the contiguous dim's size
//   to be multiples of 4.
// The epilogue function between the @epilogue markers stores one element of C; the scheduler may
// replace it with a fused elementwise chain (bias add, activation) that reads v and stores elsewhere.
// Parameters P: [0] = (M, N, K, batch); [1] = batch sizes; [2] = A batch strides; [3] = B batch strides;
//               [4] = (A row stride, A col stride, B row stride, B col stride); [5] = (A offset, B offset, -, -);
//               [6] = (first batch, first row, first column, -) of this dispatch.

const WG_X: u32 = 8u;
const WG_Y: u32 = 4u;
const A_MODE: u32 = 1u;
const B_MODE: u32 = 1u;

@group(0) @binding(0) var<storage, read> A: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> B: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 7>;

struct Geometry {
  M: u32, N: u32, K: u32,
  a_base: u32, a_rs: u32, a_cs: u32,
  b_base: u32, b_rs: u32, b_cs: u32,
}

fn batch_offset(z: u32, sizes: vec4<u32>, strides: vec4<u32>) -> u32 {
  var t = z;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

fn scalar_a(g: Geometry, r: u32, k: u32) -> f32 {
  let a = g.a_base + min(r, g.M - 1u) * g.a_rs + min(k, g.K - 1u) * g.a_cs;
  return select(0.0, A[a >> 2u][a & 3u], k < g.K);
}

fn scalar_b(g: Geometry, k: u32, c: u32) -> f32 {
  let b = g.b_base + min(k, g.K - 1u) * g.b_rs + min(c, g.N - 1u) * g.b_cs;
  return select(0.0, B[b >> 2u][b & 3u], k < g.K);
}

// Rows r .. r + 3 of A at k .. k + 3: column i is row r + i.
fn a_block(g: Geometry, r: u32, k: u32) -> mat4x4<f32> {
  if (A_MODE == 1u) {  // contiguous along K (K % 4 == 0)
    let base = g.a_base + k;
    return mat4x4<f32>(A[(base + min(r, g.M - 1u) * g.a_rs) >> 2u],
                       A[(base + min(r + 1u, g.M - 1u) * g.a_rs) >> 2u],
                       A[(base + min(r + 2u, g.M - 1u) * g.a_rs) >> 2u],
                       A[(base + min(r + 3u, g.M - 1u) * g.a_rs) >> 2u]);
  }
  if (A_MODE == 2u) {  // contiguous along M (M % 4 == 0): 4 rows of one k per load, transposed
    let base = g.a_base + min(r, g.M - 4u);
    let z = vec4<f32>(0.0);
    return transpose(mat4x4<f32>(select(z, A[(base + min(k, g.K - 1u) * g.a_cs) >> 2u], k < g.K),
                                 select(z, A[(base + min(k + 1u, g.K - 1u) * g.a_cs) >> 2u], k + 1u < g.K),
                                 select(z, A[(base + min(k + 2u, g.K - 1u) * g.a_cs) >> 2u], k + 2u < g.K),
                                 select(z, A[(base + min(k + 3u, g.K - 1u) * g.a_cs) >> 2u], k + 3u < g.K)));
  }
  var m: mat4x4<f32>;
  for (var i = 0u; i < 4u; i = i + 1u) {
    m[i] = vec4<f32>(scalar_a(g, r + i, k), scalar_a(g, r + i, k + 1u), scalar_a(g, r + i, k + 2u),
                     scalar_a(g, r + i, k + 3u));
  }
  return m;
}

// B at k .. k + 3, columns c .. c + 3: column t is row k + t.
fn b_block(g: Geometry, k: u32, c: u32) -> mat4x4<f32> {
  if (B_MODE == 1u) {  // contiguous along N (N % 4 == 0)
    let base = g.b_base + min(c, g.N - 4u);
    let z = vec4<f32>(0.0);
    return mat4x4<f32>(select(z, B[(base + min(k, g.K - 1u) * g.b_rs) >> 2u], k < g.K),
                       select(z, B[(base + min(k + 1u, g.K - 1u) * g.b_rs) >> 2u], k + 1u < g.K),
                       select(z, B[(base + min(k + 2u, g.K - 1u) * g.b_rs) >> 2u], k + 2u < g.K),
                       select(z, B[(base + min(k + 3u, g.K - 1u) * g.b_rs) >> 2u], k + 3u < g.K));
  }
  if (B_MODE == 2u) {  // contiguous along K (K % 4 == 0): 4 k of one column per load, transposed
    let base = g.b_base + k;
    return transpose(mat4x4<f32>(B[(base + min(c, g.N - 1u) * g.b_cs) >> 2u],
                                 B[(base + min(c + 1u, g.N - 1u) * g.b_cs) >> 2u],
                                 B[(base + min(c + 2u, g.N - 1u) * g.b_cs) >> 2u],
                                 B[(base + min(c + 3u, g.N - 1u) * g.b_cs) >> 2u]));
  }
  var m: mat4x4<f32>;
  for (var t = 0u; t < 4u; t = t + 1u) {
    m[t] = vec4<f32>(scalar_b(g, k + t, c), scalar_b(g, k + t, c + 1u), scalar_b(g, k + t, c + 2u),
                     scalar_b(g, k + t, c + 3u));
  }
  return m;
}

// @epilogue-begin
fn epilogue(i: u32, v: f32) {
  C[i] = v;
}
// @epilogue-end

// Stores row r, columns c .. c + 3 of C (those inside N).
fn store4(g: Geometry, base: u32, r: u32, c: u32, v: vec4<f32>) {
  if (r < g.M) {
    let i = base + r * g.N + c;
    if (c < g.N) { epilogue(i, v.x); }
    if (c + 1u < g.N) { epilogue(i + 1u, v.y); }
    if (c + 2u < g.N) { epilogue(i + 2u, v.z); }
    if (c + 3u < g.N) { epilogue(i + 3u, v.w); }
  }
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
  let z = wid.z + P[6].x;
  let g = Geometry(P[0].x, P[0].y, P[0].z,
                   P[5].x + batch_offset(z, P[1], P[2]), P[4].x, P[4].y,
                   P[5].y + batch_offset(z, P[1], P[3]), P[4].z, P[4].w);
  let r0 = gid.y * 8u + P[6].y;
  let c0 = gid.x * 8u + P[6].z;
  if (r0 >= g.M || c0 >= g.N) {
    return;
  }
  var acc00 = vec4<f32>(0.0); var acc01 = vec4<f32>(0.0); var acc10 = vec4<f32>(0.0); var acc11 = vec4<f32>(0.0);
  var acc20 = vec4<f32>(0.0); var acc21 = vec4<f32>(0.0); var acc30 = vec4<f32>(0.0); var acc31 = vec4<f32>(0.0);
  var acc40 = vec4<f32>(0.0); var acc41 = vec4<f32>(0.0); var acc50 = vec4<f32>(0.0); var acc51 = vec4<f32>(0.0);
  var acc60 = vec4<f32>(0.0); var acc61 = vec4<f32>(0.0); var acc70 = vec4<f32>(0.0); var acc71 = vec4<f32>(0.0);
  for (var k = 0u; k < g.K; k = k + 4u) {
    let a0 = a_block(g, r0, k);
    let a1 = a_block(g, r0 + 4u, k);
    let b0 = b_block(g, k, c0);
    let b1 = b_block(g, k, c0 + 4u);
    acc00 += b0 * a0[0]; acc01 += b1 * a0[0];
    acc10 += b0 * a0[1]; acc11 += b1 * a0[1];
    acc20 += b0 * a0[2]; acc21 += b1 * a0[2];
    acc30 += b0 * a0[3]; acc31 += b1 * a0[3];
    acc40 += b0 * a1[0]; acc41 += b1 * a1[0];
    acc50 += b0 * a1[1]; acc51 += b1 * a1[1];
    acc60 += b0 * a1[2]; acc61 += b1 * a1[2];
    acc70 += b0 * a1[3]; acc71 += b1 * a1[3];
  }
  let base = z * g.M * g.N;
  store4(g, base, r0, c0, acc00); store4(g, base, r0, c0 + 4u, acc01);
  store4(g, base, r0 + 1u, c0, acc10); store4(g, base, r0 + 1u, c0 + 4u, acc11);
  store4(g, base, r0 + 2u, c0, acc20); store4(g, base, r0 + 2u, c0 + 4u, acc21);
  store4(g, base, r0 + 3u, c0, acc30); store4(g, base, r0 + 3u, c0 + 4u, acc31);
  store4(g, base, r0 + 4u, c0, acc40); store4(g, base, r0 + 4u, c0 + 4u, acc41);
  store4(g, base, r0 + 5u, c0, acc50); store4(g, base, r0 + 5u, c0 + 4u, acc51);
  store4(g, base, r0 + 6u, c0, acc60); store4(g, base, r0 + 6u, c0 + 4u, acc61);
  store4(g, base, r0 + 7u, c0, acc70); store4(g, base, r0 + 7u, c0 + 4u, acc71);
}
