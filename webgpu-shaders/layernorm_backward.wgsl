// layernorm_backward.wgsl -- input gradient of layer normalization (webtorch backend "webgpu").
//
// Computes, per contiguous row of C elements with saved MEAN / RSTD: xhat = (x - mean) * rstd,
// gh = g * W (g when P[0].z is 0), a = sum(gh) / C, b = sum(gh * xhat) / C,
// GX = (gh - a - xhat * b) * rstd. (The weight and bias gradients are column sums, recorded as fused
// elementwise + reduction kernels by the backend.) G and X rows start at P[1].x / P[1].y; W at P[1].z;
// MEAN, RSTD, GX are contiguous from P[2].x, P[2].y, P[2].z (the offsets of a block of rows in windows of tensors
// past one binding, softmax_norm_kernels._row_blocks). When W is absent another read-only buffer is bound in its
// place.
// Launch: workgroup_size WG; RT invocations share a row (WG / RT rows per workgroup);
// grid = ceil(rows / (WG / RT)) workgroups, as (x, y) when over 65535. Both sums are reduced together
// in one workgroup tree reduction (row_sum2).
// Specialization: WG (64 or 256); RT (a power of two <= WG). subgroup_reduce.py's variant replaces
// slot / row_sum2 with subgroup operations (the tree here is the fallback for adapters without subgroups).
// Parameters P: [0] = (rows, C, has W, -); [1] = (G offset, X offset, W offset, -);
// [2] = (MEAN offset, RSTD offset, GX offset, -).

const WG: u32 = 64u;
const RT: u32 = 64u;

@group(0) @binding(0) var<storage, read> G: array<f32>;
@group(0) @binding(1) var<storage, read> X: array<f32>;
@group(0) @binding(2) var<storage, read> MEAN: array<f32>;
@group(0) @binding(3) var<storage, read> RSTD: array<f32>;
@group(0) @binding(4) var<storage, read> W: array<f32>;
@group(0) @binding(5) var<storage, read_write> GX: array<f32>;
@group(0) @binding(6) var<uniform> P: array<vec4<u32>, 3>;

var<workgroup> sh: array<vec2<f32>, WG>;

// This invocation's slot q in the workgroup: slot q works on local row q / RT, part q % RT of it.
fn slot(lid: u32) -> u32 { return lid; }

// The sum of the RT values of slot q's row (t = q % RT), given to each of them; every invocation calls it.
fn row_sum2(q: u32, t: u32, v: vec2<f32>) -> vec2<f32> {
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
  let C = P[0].y;
  let has_w = P[0].z != 0u;
  let q = slot(lid);
  let row = (wid.x + wid.y * nwg.x) * (WG / RT) + q / RT;
  let t = q % RT;
  let live = row < rows;
  let gb = P[1].x + row * C;
  let xb = P[1].y + row * C;
  var mean = 0.0;
  var rstd = 0.0;
  var acc = vec2<f32>(0.0);
  if (live) {
    mean = MEAN[P[2].x + row];
    rstd = RSTD[P[2].y + row];
    for (var j = t; j < C; j = j + RT) {
      var gh = G[gb + j];
      if (has_w) {
        gh = gh * W[P[1].z + j];
      }
      acc = acc + vec2<f32>(gh, gh * (X[xb + j] - mean) * rstd);
    }
  }
  let ab = row_sum2(q, t, acc) / f32(C);
  if (live) {
    let ob = P[2].z + row * C;
    for (var j = t; j < C; j = j + RT) {
      var gh = G[gb + j];
      if (has_w) {
        gh = gh * W[P[1].z + j];
      }
      let xhat = (X[xb + j] - mean) * rstd;
      GX[ob + j] = (gh - ab.x - xhat * ab.y) * rstd;
    }
  }
}
