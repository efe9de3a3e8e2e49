// sort_bitonic.wgsl -- stable sort of short rows in workgroup memory (sort, argsort, topk).
//
// Computes, for every row (all coordinates but the sorted dim) of length L <= N: the row's elements
// ordered ascending (DESCENDING: descending), ties kept in index order (the sort key is (value, index)),
// NaN greater than every number; writes the first K of them: OUT[row, j] = value, OUT_I[row, j] = its
// index along the dim, for j < K. Positions L..N-1 are padding that always sorts last.
// Launch: workgroup_size 256; grid (rows, 1, 1) (y > 1 past 65535), one workgroup per row; a bitonic
// network over N (a power of two, 2..MAX_N) in workgroup memory, N / 2 compare-exchanges per stage.
// Specialization: T = the element type (f32, i32, u32), FLOAT = T is f32; DESCENDING. For int64
// (T = vec2<u32>) the value functions between @values-begin and @values-end are replaced by 64-bit ones.
// Parameters P: [0] = (rows, L, rank of the row dims, K); [1] = (X offset, X stride along the dim,
//               OUT offset, OUT stride along the dim); [2], [3] = row dim sizes; [4], [5] = their X strides;
//               [6], [7] = their OUT strides (OUT_I shares OUT's geometry); [8] = (N, -, -, -).

alias T = f32;
const DESCENDING: bool = false;
const FLOAT: bool = true;
const MAX_N: u32 = 2048u;

@group(0) @binding(0) var<storage, read> X: array<T>;
@group(0) @binding(1) var<storage, read_write> OUT: array<T>;
@group(0) @binding(2) var<storage, read_write> OUT_I: array<i32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 9>;

var<workgroup> sv: array<T, MAX_N>;
var<workgroup> si: array<u32, MAX_N>;

fn dim_word(row: u32, d: u32) -> u32 {
  return P[row + d / 4u][d % 4u];
}

// @values-begin
// NaN test on the bits: compilers may fold v != v to false
fn is_nan(v: T) -> bool {
  return FLOAT && (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

fn less(a: T, b: T) -> bool {
  return a < b;
}
// @values-end

// whether element a = (va, ia) goes before b = (vb, ib)
fn before(va: T, ia: u32, vb: T, ib: u32) -> bool {
  let L = P[0].y;
  if (ia >= L || ib >= L) {
    return ia < ib;  // padding last
  }
  let na = is_nan(va);
  let nb = is_nan(vb);
  if (na || nb) {
    if (na && nb) {
      return ia < ib;
    }
    return select(nb, na, DESCENDING);
  }
  let lt = less(va, vb);
  let gt = less(vb, va);
  if (!lt && !gt) {
    return ia < ib;
  }
  return select(lt, gt, DESCENDING);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.x + wid.y * nwg.x;
  if (row >= P[0].x) {
    return;  // uniform: the whole workgroup leaves
  }
  let L = P[0].y;
  let N = P[8].x;
  var t = row;
  var xa = P[1].x;
  var oa = P[1].z;
  for (var d = i32(P[0].z) - 1; d >= 0; d = d - 1) {
    let size = dim_word(2u, u32(d));
    let c = t % size;
    t = t / size;
    xa = xa + c * dim_word(4u, u32(d));
    oa = oa + c * dim_word(6u, u32(d));
  }
  for (var e = lid; e < N; e = e + 256u) {
    si[e] = e;
    if (e < L) {
      sv[e] = X[xa + e * P[1].y];
    }
  }
  workgroupBarrier();
  for (var k = 2u; k <= N; k = k << 1u) {
    for (var j = k >> 1u; j > 0u; j = j >> 1u) {
      for (var e = lid; e < N; e = e + 256u) {
        let f = e ^ j;
        if (f > e) {
          let up = (e & k) == 0u;
          let swap = select(before(sv[e], si[e], sv[f], si[f]), before(sv[f], si[f], sv[e], si[e]), up);
          if (swap) {
            let v = sv[e];
            sv[e] = sv[f];
            sv[f] = v;
            let i = si[e];
            si[e] = si[f];
            si[f] = i;
          }
        }
      }
      workgroupBarrier();
    }
  }
  for (var e = lid; e < P[0].w; e = e + 256u) {
    OUT[oa + e * P[1].w] = sv[e];
    OUT_I[oa + e * P[1].w] = i32(si[e]);
  }
}
