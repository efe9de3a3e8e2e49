// pool_scatter_plane.wgsl -- scatter into per-plane flat positions (max-pool backward, max_unpool).
//
// Computes: for each element e = (plane, j) of src (contiguous, planes of J elements) and its index
// idx = I[e] in [0, L): OUT[plane * L + idx] += src[e] (ACCUMULATE) or = src[e]. OUT (contiguous planes
// of L elements) must hold zeros before the dispatch. Accumulation is a compare-and-swap loop on the f32
// bits (or a plain atomicAdd for i32), so colliding indices (overlapping windows) add up without races.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(total / 256).
// Specialization: IS_FLOAT (src is f32; else i32), ACCUMULATE.
// Parameters P (i32): [0] (total, J, L, gx * 256)

const IS_FLOAT: bool = true;
const ACCUMULATE: bool = true;

@group(0) @binding(0) var<storage, read> SRC: array<u32>;
@group(0) @binding(1) var<storage, read> I: array<i32>;
@group(0) @binding(2) var<storage, read_write> OUT: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> P: array<vec4<i32>, 1>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].w;
  if (e >= P[0].x) {
    return;
  }
  let dst = (e / P[0].y) * P[0].z + I[e];
  let bits = SRC[e];
  if (!ACCUMULATE) {
    atomicStore(&OUT[dst], bits);
  } else if (!IS_FLOAT) {
    atomicAdd(&OUT[dst], bits);
  } else {
    var old = atomicLoad(&OUT[dst]);
    loop {
      let r = atomicCompareExchangeWeak(&OUT[dst], old, bitcast<u32>(bitcast<f32>(old) + bitcast<f32>(bits)));
      if (r.exchanged) {
        break;
      }
      old = r.old_value;
    }
  }
}
