// layernorm_forward.wgsl -- layer normalization of contiguous rows (webtorch backend "webgpu").
//
// Computes, per row of C elements (the flattened normalized dims): mean = sum(x) / C,
// rstd = 1 / sqrt(sum((x - mean)^2) / C + eps) (two passes, as PyTorch's CPU kernel: no cancellation),
// Y = (x - mean) * rstd * W + B (W / B applied when P[0].z / P[0].w are 1), MEAN[row] = mean, RSTD[row] = rstd.
// X rows start at P[1].x; Y, MEAN, RSTD are contiguous from P[2].x, P[2].y, P[2].z (the offsets of a block of rows
// in windows of tensors past one binding, softmax_norm_kernels._row_blocks). When W or B is absent another read-only
// buffer is bound in its place (flags, not specialization, so the binding layout never changes).
// Launch: workgroup_size WG; RT invocations share a row (WG / RT rows per workgroup);
// grid = ceil(rows / (WG / RT)) workgroups, as (x, y) when over 65535. Both sums are workgroup tree
// reductions over the RT partial sums of a row (row_sum).
// Specialization: WG (64 or 256); RT (a power of two <= WG). subgroup_reduce.py's variant replaces
// slot / row_sum with subgroup operations (the tree here is the fallback for adapters without subgroups).
// Parameters P: [0] = (rows, C, has W, has B); [1] = (X offset, W offset, B offset, bits of eps as f32);
// [2] = (Y offset, MEAN offset, RSTD offset, -).

const WG: u32 = 64u;
const RT: u32 = 64u;

@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read> W: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> Y: array<f32>;
@group(0) @binding(4) var<storage, read_write> MEAN: array<f32>;
@group(0) @binding(5) var<storage, read_write> RSTD: array<f32>;
@group(0) @binding(6) var<uniform> P: array<vec4<u32>, 3>;

var<workgroup> sh: array<f32, WG>;

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
  let s = sh[q - t];
  workgroupBarrier();  // sh is reused by the next sum
  return s;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let rows = P[0].x;
  let C = P[0].y;
  let q = slot(lid);
  let row = (wid.x + wid.y * nwg.x) * (WG / RT) + q / RT;
  let t = q % RT;
  let live = row < rows;
  let xb = P[1].x + row * C;
  var acc = 0.0;
  if (live) {
    for (var j = t; j < C; j = j + RT) {
      acc = acc + X[xb + j];
    }
  }
  let mean = row_sum(q, t, acc) / f32(C);
  acc = 0.0;
  if (live) {
    for (var j = t; j < C; j = j + RT) {
      let d = X[xb + j] - mean;
      acc = acc + d * d;
    }
  }
  let rstd = 1.0 / sqrt(row_sum(q, t, acc) / f32(C) + bitcast<f32>(P[1].w));
  if (live) {
    let yb = P[2].x + row * C;
    for (var j = t; j < C; j = j + RT) {
      var y = (X[xb + j] - mean) * rstd;
      if (P[0].z != 0u) {
        y = y * W[P[1].y + j];
      }
      if (P[0].w != 0u) {
        y = y + B[P[1].z + j];
      }
      Y[yb + j] = y;
    }
    if (t == 0u) {
      MEAN[P[2].y + row] = mean;
      RSTD[P[2].z + row] = rstd;
    }
  }
}
