// sort_searchsorted.wgsl -- insertion indices of values into rows sorted along their last dim.
//
// Computes, for every i < n (values contiguous, m per row): OUT[i] = the number of elements of
// SEQ[row] (row = i / m, or 0 when one sequence serves all values) that are < VALUES[i] (RIGHT: <=),
// by binary search over the row's len elements (SEQ contiguous, rows len apart). Floats compare as PyTorch's
// search does (!(s >= v), RIGHT: !(s > v)): a NaN value goes past every element.
// Launch: workgroup_size 256; grid (ceil(n / 256), 1, 1) (y > 1 past 65535 workgroups).
// Specialization: T = the element type (f32, i32, u32); FLOAT (T is f32); RIGHT. For int64 (T = vec2<u32>) the value function
// between @values-begin and @values-end is replaced by a 64-bit one.
// Parameters P: [0] = (n, m or 0 (one shared row), len, -); [1] = (SEQ offset, VALUES offset, -, -).

alias T = f32;
const FLOAT: bool = true;
const RIGHT: bool = false;

@group(0) @binding(0) var<storage, read> SEQ: array<T>;
@group(0) @binding(1) var<storage, read> VALUES: array<T>;
@group(0) @binding(2) var<storage, read_write> OUT: array<i32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 2>;

// @values-begin
// NaN test on the bits: compilers may fold v != v to false
fn is_nan(v: T) -> bool {
  return FLOAT && (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;
}

// whether the search moves past element s for value v
fn past(s: T, v: T) -> bool {
  if (is_nan(s) || is_nan(v)) {
    return true;
  }
  return select(s < v, !(v < s), RIGHT);
}
// @values-end

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= P[0].x) {
    return;
  }
  let len = P[0].z;
  var base = P[1].x;
  if (P[0].y != 0u) {
    base = base + (i / P[0].y) * len;
  }
  let v = VALUES[P[1].y + i];
  var lo = 0u;
  var hi = len;
  loop {
    if (lo >= hi) {
      break;
    }
    let mid = (lo + hi) / 2u;
    let s = SEQ[base + mid];
    if (past(s, v)) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  OUT[i] = i32(lo);
}
