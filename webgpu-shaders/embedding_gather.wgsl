// embedding_gather.wgsl -- F.embedding forward: rows of a weight table at integer indices (webtorch "webgpu").
//
// Computes: OUT[i, d] = W[w offset + I[i] * row stride + d * column stride] for i < n indices, d < D, into a
// contiguous (n, D) output; elements are moved as 32-bit words (indices were range-checked before).
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(n * D / 256).
// Parameters P (i32): [0] (total, D, gx * 256, -)  [1] (W row stride, W column stride, W offset, I offset)

@group(0) @binding(0) var<storage, read> W: array<u32>;
@group(0) @binding(1) var<storage, read> I: array<i32>;
@group(0) @binding(2) var<storage, read_write> OUT: array<u32>;
@group(0) @binding(3) var<uniform> P: array<vec4<i32>, 2>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].z;
  if (e >= P[0].x) {
    return;
  }
  let D = P[0].y;
  OUT[e] = W[P[1].z + I[P[1].w + e / D] * P[1].x + (e % D) * P[1].y];
}
