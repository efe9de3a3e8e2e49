// scan_cumulative.wgsl -- inclusive scans along one dim: cumsum, cumprod, logcumsumexp, cummax, cummin.
//
// Computes, for every row (all coordinates but the scanned dim) and position j < L of the scanned dim,
// OUT[row, j] = X[row, 0] op X[row, 1] op ... op X[row, j] (REVERSE: from L - 1 down to j). OP 0 sum,
// 1 prod, 2 logsumexp (stable), 3 max, 4 min; max/min also write OUT_I = the index of the element that set
// the running extremum (the later one in scan order on ties; NaN wins and propagates).
// A float32 sum (COMPENSATED) carries each partial sum as a float-float pair (hi + lo, about 44 bits): the output
// is the float32 rounding of a sum as exact as PyTorch's CPU double accumulator (1e6 x 0.1 gives 100000, not
// 100003.7). A row scanned in segments stores each lo in OUT_I's bits (STORE_LO), and a segment with CARRY starts
// from the pair where the previous segment ended (row position -1 in scan order).
// Launch: workgroup_size 256. SEQUENTIAL: one invocation per row, grid (ceil(rows / 256), 1, 1);
// else one workgroup per row, grid (rows, 1, 1) (y > 1 past 65535), scanning 256 elements at a time in
// workgroup memory (Hillis-Steele) with a carry between chunks.
// Specialization: T = the compute/storage type (f32, i32, u32), FLOAT = T is f32; OP; SEQUENTIAL; CARRY and
// STORE_LO (only with a float32 sum). For int64
// (T = vec2<u32>) the value functions between @values-begin and @values-end are replaced by 64-bit ones.
// Parameters P: [0] = (rows, L, rank of the row dims, REVERSE); [1] = (X offset, X stride along the dim,
//               OUT offset, OUT stride along the dim); [2], [3] = row dim sizes; [4], [5] = their X strides;
//               [6], [7] = their OUT strides (OUT_I shares OUT's geometry).

alias T = f32;
const OP: u32 = 3u;
const SEQUENTIAL: bool = false;
const FLOAT: bool = true;
const CARRY: bool = false;
const STORE_LO: bool = false;
const COMPENSATED: bool = FLOAT && OP == 0u;

@group(0) @binding(0) var<storage, read> X: array<T>;
@group(0) @binding(1) var<storage, read_write> OUT: array<T>;
@group(0) @binding(2) var<storage, read_write> OUT_I: array<i32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 8>;

var<workgroup> sv: array<T, 256>;
var<workgroup> si: array<u32, 256>;
var<workgroup> sl: array<f32, 256>;

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

fn to_f32(v: T) -> f32 {
  return f32(v);
}

fn from_f32(v: f32) -> T {
  return T(v);
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

// x + y of float-float pairs (hi, lo), renormalized so that hi is the float32 rounding of the pair's value.
// (a - (s - bb)) + (b - bb) is the exact rounding error of s = a + b. Shader compilers may treat float math as
// associative (Mesa's NIR folds a - (a - b) to b, which would zero every error term): multiplying by ``one``, a
// 1.0 the compiler cannot see (from the uniform row count, always < 2^31), keeps each rounding step as written.
fn ff_add(x: vec2<f32>, y: vec2<f32>, one: f32) -> vec2<f32> {
  let s = (x.x + y.x) * one;
  let bb = (s - x.x) * one;
  let e = (x.x - (s - bb)) + (y.x - bb) + x.y + y.y;
  let h = (s + e) * one;
  return vec2<f32>(h, e - (h - s));
}

fn opaque_one() -> f32 {
  return f32(1u - (P[0].x >> 31u));
}

fn pair(v: T, lo: f32) -> vec2<f32> {
  return vec2<f32>(to_f32(v), lo);
}

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
    var acc_lo = 0.0;
    for (var s = 0u; s < L; s = s + 1u) {
      let p = pos(s);
      let v = X[b.x + p * xs];
      if (s > 0u) {
        if (COMPENSATED) {
          let r = ff_add(pair(acc, acc_lo), pair(v, 0.0), opaque_one());
          acc = from_f32(r.x);
          acc_lo = r.y;
        } else if (with_index) {
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
  var carry_lo = 0.0;
  var has_carry = CARRY;
  if (CARRY) {
    let cin = select(b.y - os, b.y + L * os, P[0].w != 0u);
    carry = OUT[cin];
    carry_lo = bitcast<f32>(OUT_I[cin]);
  }
  for (var s0 = 0u; s0 < L; s0 = s0 + 256u) {
    let s = s0 + lid;
    let p = pos(min(s, L - 1u));
    sv[lid] = X[b.x + p * xs];
    si[lid] = p;
    sl[lid] = 0.0;
    workgroupBarrier();
    for (var off = 1u; off < 256u; off = off << 1u) {
      var lv = sv[lid];
      var li = si[lid];
      var ll = sl[lid];
      let take = lid >= off;
      if (take) {
        lv = sv[lid - off];
        li = si[lid - off];
        ll = sl[lid - off];
      }
      workgroupBarrier();
      if (take) {
        if (COMPENSATED) {
          let r = ff_add(pair(lv, ll), pair(sv[lid], sl[lid]), opaque_one());
          sv[lid] = from_f32(r.x);
          sl[lid] = r.y;
        } else if (with_index) {
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
    var vl = sl[lid];
    if (has_carry) {
      if (COMPENSATED) {
        let r = ff_add(pair(carry, carry_lo), pair(v, vl), opaque_one());
        v = from_f32(r.x);
        vl = r.y;
      } else if (with_index) {
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
      if (STORE_LO) {
        OUT_I[b.y + p * os] = bitcast<i32>(vl);
      }
    }
    // the chunk's last element (lane 255: lanes past L repeat element L - 1, only in the last chunk, whose
    // carry is not used)
    let last = sv[255];
    let lasti = si[255];
    let last_lo = sl[255];
    workgroupBarrier();
    if (!has_carry) {
      carry = last;
      carryi = lasti;
      carry_lo = last_lo;
      has_carry = true;
    } else if (COMPENSATED) {
      let r = ff_add(pair(carry, carry_lo), pair(last, last_lo), opaque_one());
      carry = from_f32(r.x);
      carry_lo = r.y;
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
