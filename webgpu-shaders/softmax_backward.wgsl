// softmax_backward.wgsl -- input gradient of softmax / log_softmax from its output (webtorch backend "webgpu").
//
// Computes, per row along the softmax dim: softmax  GX = y * g - y * sum(y * g);
//                                          LOG      GX = g - exp(y) * sum(g),
// with G, Y read through strides and GX written through its own (rows unravelled over up to four kept
// dims: sizes P[1], strides P[2] (G), P[3] (Y), P[4] (GX)).
// Launch: workgroup_size WG; RT invocations share a row (WG / RT rows per workgroup);
// grid = ceil(rows / (WG / RT)) workgroups, as (x, y) when over 65535. The row sum is a workgroup tree
// reduction over the RT partial sums of a row (row_sum).
// Specialization: LOG; WG (64 or 256); RT (a power of two <= WG). subgroup_reduce.py's variant replaces
// slot / row_sum with subgroup operations (the tree here is the fallback for adapters without subgroups).
// Parameters P: [0] = (rows, L, -, -); [1] = kept sizes; [2] / [3] / [4] = G / Y / GX kept strides;
//               [5] = (G, Y, GX dim strides, -); [6] = (G, Y, GX offsets, -).

const LOG: bool = false;
const WG: u32 = 64u;
const RT: u32 = 64u;

@group(0) @binding(0) var<storage, read> G: array<f32>;
@group(0) @binding(1) var<storage, read> Y: array<f32>;
@group(0) @binding(2) var<storage, read_write> GX: array<f32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 7>;

var<workgroup> sh: array<f32, WG>;

fn row_offset(z: u32, sizes: vec4<u32>, strides: vec4<u32>) -> u32 {
  var t = z;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

// This invocation's slot q in the workgroup: slot q works on local row q / RT, part q % RT of it.
fn slot(lid: u32) -> u32 { return lid; }

// The sum of the RT values of slot q's row (t = q % RT), given to each of them; every invocation calls it.
fn row_sum(q: u32, t: u32, v: f32) -> f32 {
  if (RT == 1u) {  // one invocation per row: nothing to combine, no barrier
    return v;
  }
  sh[q] = v;
  workgroupBarrier();
  for (var h = RT / 2u; h > 0u; h = h >> 1u) {
    if (t < h) {
      sh[q] = sh[q] + sh[q + h];
    }
    workgroupBarrier();
  }
  return sh[q - t];
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let rows = P[0].x;
  let L = P[0].y;
  let ds = P[5];
  let q = slot(lid);
  let row = (wid.x + wid.y * nwg.x) * (WG / RT) + q / RT;
  let t = q % RT;
  let live = row < rows;
  var gb = 0u;
  var yb = 0u;
  var acc = 0.0;
  if (live) {
    gb = P[6].x + row_offset(row, P[1], P[2]);
    yb = P[6].y + row_offset(row, P[1], P[3]);
    for (var j = t; j < L; j = j + RT) {
      let g = G[gb + j * ds.x];
      if (LOG) {
        acc = acc + g;
      } else {
        acc = acc + g * Y[yb + j * ds.y];
      }
    }
  }
  let s = row_sum(q, t, acc);
  if (live) {
    let ob = P[6].z + row_offset(row, P[1], P[4]);
    for (var j = t; j < L; j = j + RT) {
      let g = G[gb + j * ds.x];
      let y = Y[yb + j * ds.y];
      if (LOG) {
        GX[ob + j * ds.z] = g - exp(y) * s;
      } else {
        let gy = g * y;
        GX[ob + j * ds.z] = gy - y * s;
      }
    }
  }
}
