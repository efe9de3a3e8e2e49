// pool_gather_plane.wgsl -- read per-plane flat positions (the adjoint of pool_scatter_plane).
//
// Computes: OUT[e] = SRC[src offset + plane * L + I[e]] for each element e = (plane, j) of the contiguous
// output (planes of J elements); 32-bit elements of any type (moved as bits).
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256).
// Parameters P (i32): [0] (total, J, L, gx * 256)  [1] (src offset, -, -, -)

@group(0) @binding(0) var<storage, read> SRC: array<u32>;
@group(0) @binding(1) var<storage, read> I: array<i32>;
@group(0) @binding(2) var<storage, read_write> OUT: array<u32>;
@group(0) @binding(3) var<uniform> P: array<vec4<i32>, 2>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].w;
  if (e >= P[0].x) {
    return;
  }
  OUT[e] = SRC[P[1].x + (e / P[0].y) * P[0].z + I[e]];
}
