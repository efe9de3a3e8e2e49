// embedding_count.wgsl -- occurrences of each row index (scale_grad_by_freq, embedding_renorm_'s row set).
//
// Computes: COUNTS[I[i]] += 1 for every i < n (COUNTS holds zeros before the dispatch), with atomicAdd.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(n / 256).
// Parameters P (i32): [0] (n, gx * 256, I offset, -)

@group(0) @binding(0) var<storage, read> I: array<i32>;
@group(0) @binding(1) var<storage, read_write> COUNTS: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> P: array<vec4<i32>, 1>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = i32(gid.x) + i32(gid.y) * P[0].y;
  if (i >= P[0].x) {
    return;
  }
  atomicAdd(&COUNTS[I[P[0].z + i]], 1u);
}
