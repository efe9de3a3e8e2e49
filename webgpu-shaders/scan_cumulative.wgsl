// scan_cumulative.wgsl -- inclusive scans along one dim: cumsum, cumprod, logcumsumexp, cummax, cummin.
//
// Computes, for every row (all coordinates but the scanned dim) and position j < L of the scanned dim,
// OUT[row, j] = X[row, 0] op X[row, 1] op ... op X[row, j] (REVERSE: from L - 1 down to j). OP 0 sum,
// 1 prod, 2 logsumexp (stable), 3 max, 4 min; max/min also write OUT_I = the index of the element that set
// the running extremum (the later one in scan order on ties; NaN wins and propagates).
// Launch: workgroup_size 256. SEQUENTIAL: one invocation per row, grid (ceil(rows / 256), 1, 1);
// else one workgroup per row, grid (rows, 1, 1) (y > 1 past 65535), scanning 256 elements at a time in
// workgroup memory (Hillis-Steele) with a carry between chunks.
// Specialization: T = the compute/storage type (f32, i32, u32), FLOAT = T is f32; OP; SEQUENTIAL. For int64
// (T = vec2<u32>) the value functions between @values-begin and @values-end are replaced by 64-bit ones.
// Parameters P: [0] = (rows, L, rank of the row dims, REVERSE); [1] = (X offset, X stride along the dim,
//               OUT offset, OUT stride along the dim); [2], [3] = row dim sizes; [4], [5] = their X strides;
//               [6], [7] = their OUT strides (OUT_I shares OUT's geometry).

alias T = f32;
const OP: u32 = 3u;
const SEQUENTIAL: bool = false;
const FLOAT: bool = true;

@group(0) @binding(0) var<storage, read> X: array<T>;
@group(0) @binding(1) var<storage, read_write> OUT: array<T>;
@group(0) @binding(2) var<storage, read_write> OUT_I: array<i32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 8>;

var<workgroup> sv: array<T, 256>;
var<workgroup> si: array<u32, 256>;

fn dim_word(row: u32, d: u32) -> u32 {
  return P[row + d / 4u][d % 4u];
}

// @values-begin
// NaN test on the bits: compilers may fold v != v to false
fn is_nan(v: T) -> bool {
  return FLOAT && (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

// right (later in scan order) wins ties; a NaN wins over a number, a later NaN over an earlier one
fn right_wins(l: T, r: T) -> bool {
  if (is_nan(r)) {
    return true;
  }
  if (is_nan(l)) {
    return false;
  }
  return select((r <= l), (r >= l), OP == 3u);
}

fn lse(a: T, b: T) -> T {
  let x = f32(a);
  let y = f32(b);
  if (is_nan(a) || is_nan(b)) {
    return T(x + y);
  }
  let m = max(x, y);
  // +-inf tested on the bits: a constant inf is a shader-creation error in Tint (Chromium)
  if ((bitcast<u32>(m) & 0x7fffffffu) == 0x7f800000u) {
    return T(m);  // +inf wins; both -inf stays -inf (log(0) is the adapter's choice: SwiftShader's is -88.03)
  }
  return T(m + log(exp(x - m) + exp(y - m)));
}

fn combine(l: T, r: T) -> T {
  switch OP {
    case 0u: { return l + r; }
    case 1u: { return l * r; }
    case 2u: { return lse(l, r); }
    default: { return select(l, r, right_wins(l, r)); }
  }
}
// @values-end

fn row_bases(row: u32) -> vec2<u32> {
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
  return vec2<u32>(xa, oa);
}

// position of the s-th element in scan order
fn pos(s: u32) -> u32 {
  return select(s, P[0].y - 1u - s, P[0].w != 0u);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let rows = P[0].x;
  let L = P[0].y;
  let xs = P[1].y;
  let os = P[1].w;
  let with_index = OP >= 3u;
  if (SEQUENTIAL) {
    // no early return: a non-uniform return here would make the barriers below non-uniform for Tint
    let row = min((wid.x + wid.y * nwg.x) * 256u + lid, rows - 1u);
    let live = (wid.x + wid.y * nwg.x) * 256u + lid < rows;
    let b = row_bases(row);
    var acc = X[b.x + pos(0u) * xs];
    var acci = pos(0u);
    for (var s = 0u; s < L; s = s + 1u) {
      let p = pos(s);
      let v = X[b.x + p * xs];
      if (s > 0u) {
        if (with_index) {
          if (right_wins(acc, v)) {
            acc = v;
            acci = p;
          }
        } else {
          acc = combine(acc, v);
        }
      }
      if (live) {
        OUT[b.y + p * os] = acc;
        if (with_index) {
          OUT_I[b.y + p * os] = i32(acci);
        }
      }
    }
    return;
  }
  let row = wid.x + wid.y * nwg.x;
  if (row >= rows) {
    return;  // uniform: the whole workgroup leaves
  }
  let b = row_bases(row);
  var carry: T;
  var carryi = 0u;
  for (var s0 = 0u; s0 < L; s0 = s0 + 256u) {
    let s = s0 + lid;
    let p = pos(min(s, L - 1u));
    sv[lid] = X[b.x + p * xs];
    si[lid] = p;
    workgroupBarrier();
    for (var off = 1u; off < 256u; off = off << 1u) {
      var lv = sv[lid];
      var li = si[lid];
      let take = lid >= off;
      if (take) {
        lv = sv[lid - off];
        li = si[lid - off];
      }
      workgroupBarrier();
      if (take) {
        if (with_index) {
          if (!right_wins(lv, sv[lid])) {
            sv[lid] = lv;
            si[lid] = li;
          }
        } else {
          sv[lid] = combine(lv, sv[lid]);
        }
      }
      workgroupBarrier();
    }
    var v = sv[lid];
    var vi = si[lid];
    if (s0 > 0u) {
      if (with_index) {
        if (!right_wins(carry, v)) {
          v = carry;
          vi = carryi;
        }
      } else {
        v = combine(carry, v);
      }
    }
    if (s < L) {
      OUT[b.y + p * os] = v;
      if (with_index) {
        OUT_I[b.y + p * os] = i32(vi);
      }
    }
    // the chunk's last element (lane 255: lanes past L repeat element L - 1, which changes no result)
    let last = sv[255];
    let lasti = si[255];
    workgroupBarrier();
    if (s0 == 0u) {
      carry = last;
      carryi = lasti;
    } else if (with_index) {
      if (right_wins(carry, last)) {
        carry = last;
        carryi = lasti;
      }
    } else {
      carry = combine(carry, last);
    }
  }
}
