// matmul_naive.wgsl -- fp32 batched matrix product, one invocation per output element (baseline).
//
// Computes: C (batch, M, N), contiguous, C[z, r, c] = sum_k A[z, r, k] * B[z, k, c], operands read
// through strides (same parameter block P as matmul_tiled.wgsl). Used for matrix-vector shapes, where a
// 64x64 tile would idle.
// Launch: workgroup_size (16, 16); grid (ceil(N / 16), ceil(M / 16), batch), or a part of it: P[6] holds the
// first (batch, row, column) of the dispatch (a product past maxComputeWorkgroupsPerDimension is several).
// The epilogue function stores one element of C (the scheduler may fuse an elementwise chain there, as in
// matmul_tiled.wgsl).
// Parameters P: [0] = (M, N, K, batch); [1] = batch sizes; [2] = A batch strides; [3] = B batch strides;
//               [4] = (A row stride, A col stride, B row stride, B col stride); [5] = (A offset, B offset, -, -);
//               [6] = (first batch, first row, first column, -) of this dispatch.

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 7>;

// @epilogue-begin
fn epilogue(i: u32, v: f32) {
  C[i] = v;
}
// @epilogue-end

fn batch_offset(z: u32, sizes: vec4<u32>, strides: vec4<u32>) -> u32 {
  var t = z;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

@compute @workgroup_size(16, 16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let M = P[0].x;
  let N = P[0].y;
  let K = P[0].z;
  let c = gid.x + P[6].z;
  let r = gid.y + P[6].y;
  let z = gid.z + P[6].x;
  if (r >= M || c >= N) {
    return;
  }
  var a = P[5].x + batch_offset(z, P[1], P[2]) + r * P[4].x;
  var b = P[5].y + batch_offset(z, P[1], P[3]) + c * P[4].w;
  var acc = 0.0;
  for (var k = 0u; k < K; k = k + 1u) {
    acc = acc + A[a] * B[b];
    a = a + P[4].y;
    b = b + P[4].z;
  }
  epilogue(z * M * N + r * N + c, acc);
}
