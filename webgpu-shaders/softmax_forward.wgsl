// softmax_forward.wgsl -- softmax / log_softmax of every row along one dim (webtorch backend "webgpu").
//
// Computes: Y[row, j] = exp(x - m) / s (LOG: (x - m) - log(s)) with m the row max and s = sum exp(x - m),
// for X read through strides (a row = every index but the softmax dim; rows are unravelled over up to
// four kept dims with sizes P[1] and strides P[2] (X) / P[3] (Y)). Every element is read twice.
// Launch: workgroup_size WG; RT invocations share a row, so a workgroup does WG / RT rows;
// grid = ceil(rows / (WG / RT)) workgroups, as (x, y) when over 65535.
// Each invocation keeps an online (max, sum) pair over its strided share of the row, then the RT pairs of a
// row merge in a workgroup tree reduction (row_maxsum). RT = 1: each invocation reduces its row alone.
// Specialization: LOG; WG (64 or 256); RT (a power of two <= WG). subgroup_reduce.py's variant replaces
// slot / row_maxsum with subgroup operations (the tree here is the fallback for adapters without subgroups).
// Parameters P: [0] = (rows, L, X dim stride, Y dim stride); [1] = kept sizes; [2] = X kept strides;
//               [3] = Y kept strides; [4] = (X offset, Y offset, -, -).

const LOG: bool = false;
const WG: u32 = 64u;
const RT: u32 = 64u;

@group(0) @binding(0) var<storage, read> X: array<f32>;
@group(0) @binding(1) var<storage, read_write> Y: array<f32>;
@group(0) @binding(2) var<uniform> P: array<vec4<u32>, 5>;

var<workgroup> sh: array<vec2<f32>, WG>;

// -inf from a runtime argument: a constant expression evaluating to inf (even inside a function body) is a
// shader-creation error in Tint (Chromium); naga accepts it
fn f32_bits(b: u32) -> f32 { return bitcast<f32>(b); }
fn neg_inf() -> f32 { return f32_bits(0xff800000u); }

fn row_offset(z: u32, sizes: vec4<u32>, strides: vec4<u32>) -> u32 {
  var t = z;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

// (max, sum of exp(x - max)) of two partial pairs; an empty part (max -inf) adds nothing, so that
// exp(-inf - -inf) never turns a sum into NaN (a NaN input still does, through the sum)
fn merge(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {
  if (b.x == neg_inf()) { return a; }
  if (a.x == neg_inf()) { return b; }
  let m = max(a.x, b.x);
  return vec2<f32>(m, a.y * exp(a.x - m) + b.y * exp(b.x - m));
}

// This invocation's slot q in the workgroup: slot q works on local row q / RT, part q % RT of it.
fn slot(lid: u32) -> u32 { return lid; }

// The merge of the RT pairs of slot q's row (t = q % RT), given to each of them; every invocation calls it.
fn row_maxsum(q: u32, t: u32, v: vec2<f32>) -> vec2<f32> {
  if (RT == 1u) {  // one invocation per row: nothing to combine, no barrier
    return v;
  }
  sh[q] = v;
  workgroupBarrier();
  for (var h = RT / 2u; h > 0u; h = h >> 1u) {
    if (t < h) {
      sh[q] = merge(sh[q], sh[q + h]);
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
  let xs = P[0].z;
  let ys = P[0].w;
  let q = slot(lid);
  let row = (wid.x + wid.y * nwg.x) * (WG / RT) + q / RT;
  let t = q % RT;
  let live = row < rows;
  var xb = 0u;
  var acc = vec2<f32>(neg_inf(), 0.0);
  if (live) {
    xb = P[4].x + row_offset(row, P[1], P[2]);
    for (var j = t; j < L; j = j + RT) {
      acc = merge(acc, vec2<f32>(X[xb + j * xs], 1.0));
    }
  }
  let ms = row_maxsum(q, t, acc);
  let m = ms.x;
  let s = ms.y;
  if (live) {
    let yb = P[4].y + row_offset(row, P[1], P[3]);
    let ls = log(s);
    for (var j = t; j < L; j = j + RT) {
      let z = X[xb + j * xs] - m;
      if (s == 0.0) {
        // an all -inf row: NaN, as PyTorch gives (exp(-inf - -inf) is left to the adapter: SwiftShader's is inf)
        Y[yb + j * ys] = f32_bits(0x7fc00000u);
      } else if (LOG) {
        Y[yb + j * ys] = z - ls;
      } else {
        Y[yb + j * ys] = exp(z) / s;
      }
    }
  }
}
