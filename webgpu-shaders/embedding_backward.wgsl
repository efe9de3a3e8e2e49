// embedding_backward.wgsl -- F.embedding weight gradient by a race-free scatter-add (webtorch "webgpu").
//
// Computes: OUT[r, d] += G[i, d] (divided by COUNTS[r] when SCALE_BY_FREQ) for every index i with
// r = I[i] != padding_idx in the row range [row lo, row hi), d < D. OUT (num_weights, D), contiguous from
// OUT offset (a weight past one binding is bound a window of rows at a time), holds zeros before the dispatch; the
// add is a compare-and-swap loop on the f32 bits, so repeated indices accumulate without races. G is a
// contiguous (n, D) gradient.
// Launch: workgroup_size 256; grid (min(G, 65535), ceil(G / 65535)) for G = ceil(n * D / 256).
// Specialization: SCALE_BY_FREQ.
// Parameters P (i32): [0] (total, D, gx * 256, padding_idx or -1)  [1] (I offset, row lo, row hi, OUT offset)
//                     [2] (G offset, -, -, -)

const SCALE_BY_FREQ: bool = false;

@group(0) @binding(0) var<storage, read> G: array<f32>;
@group(0) @binding(1) var<storage, read> I: array<i32>;
@group(0) @binding(2) var<storage, read> COUNTS: array<u32>;
@group(0) @binding(3) var<storage, read_write> OUT: array<atomic<u32>>;
@group(0) @binding(4) var<uniform> P: array<vec4<i32>, 3>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let e = i32(gid.x) + i32(gid.y) * P[0].z;
  if (e >= P[0].x) {
    return;
  }
  let D = P[0].y;
  let r = I[P[1].x + e / D];
  if (r == P[0].w || r < P[1].y || r >= P[1].z) {
    return;
  }
  // read even without scaling (COUNTS is then a dummy binding) so the binding is used in every variant
  let scale = select(1.0, 1.0 / f32(COUNTS[r]), SCALE_BY_FREQ);
  let v = G[P[2].x + e] * scale;
  let dst = P[1].w + r * D + e % D;
  var old = atomicLoad(&OUT[dst]);
  loop {
    let x = atomicCompareExchangeWeak(&OUT[dst], old, bitcast<u32>(bitcast<f32>(old) + v));
    if (x.exchanged) {
      break;
    }
    old = x.old_value;
  }
}
