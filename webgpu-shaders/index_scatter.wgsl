// index_scatter.wgsl -- scatter through a precomputed linear offset: scatter_ (assign, sum, prod, amax,
// amin), index_put_ (assign, accumulate), and the counts behind scatter_reduce's mean.
//
// Computes, for every i < n with coordinates (c_0 .. c_{rank-1}) in the index space (sizes):
//   a = out_offset + sum_d c_d * os_d + LIN[lin_offset + sum_d c_d * ls_d]
//   v = SRC[src_offset + sum_d c_d * ss_d] (or the scalar P[0].z's bits when SCALAR)
//   OUT[a] = v (MODE 0; one duplicate wins) or OUT[a] = OUT[a] (+, *, max, min) v (MODE 1..4) atomically:
//   a compare-and-swap loop on the element's bits (integer sum uses atomicAdd). NaN propagates in max/min.
// The last duplicate wins, as PyTorch's CPU, in two launches instead of MODE 0's one: MODE 5 claims, OUT being a
// zeroed claim table of the out window's length: CLAIM[a] = max(CLAIM[a], i + 1) over i (the first i counted; one
// launch per run of the index space, all into one table); MODE 6 resolves, one invocation per claim-table entry
// t < n (LIN bound to the claim table), once per run [first i, first i + P[1].y) of the index space (its SRC bound):
// OUT[t] = v of i = CLAIM[t] - 1 where CLAIM[t] != 0 and i is in the run.
// Launch: workgroup_size 256; grid (ceil(n / 256), 1, 1) (y > 1 past 65535 workgroups).
// Specialization: MODE; KIND = how the 32 bits are read: 0 f32, 1 i32, 2 u32; SCALAR = v is a constant.
// Only addresses a below out_window are written (OUT past one binding is bound a window at a time, out_offset
// counting from the window: the others wrap past it).
// Parameters P: [0] = (n, rank, scalar bits, out_window); [1] = (out_offset, lin_offset, src_offset, first i):
//               n elements of the index space from the first i (one past a binding is scattered a run at a time);
//               [2], [3] = sizes; [4], [5] = os; [6], [7] = ls; [8], [9] = ss.

const MODE: u32 = 1u;
const KIND: u32 = 0u;
const SCALAR: bool = false;

@group(0) @binding(0) var<storage, read_write> OUT: array<atomic<u32>>;
@group(0) @binding(1) var<storage, read> LIN: array<i32>;
@group(0) @binding(2) var<storage, read> SRC: array<u32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 10>;

fn dim_word(row: u32, d: u32) -> u32 {
  return P[row + d / 4u][d % 4u];
}

fn is_nan(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u;  // bits: compilers may fold v != v to false
}

fn combine(old: u32, v: u32) -> u32 {
  if (KIND == 0u) {
    let a = bitcast<f32>(old);
    let b = bitcast<f32>(v);
    var r: f32;
    switch MODE {
      case 1u: { r = a + b; }
      case 2u: { r = a * b; }
      case 3u: { r = select(max(a, b), a + b, is_nan(a) || is_nan(b)); }
      default: { r = select(min(a, b), a + b, is_nan(a) || is_nan(b)); }
    }
    return bitcast<u32>(r);
  }
  if (KIND == 1u) {
    let a = bitcast<i32>(old);
    let b = bitcast<i32>(v);
    switch MODE {
      case 1u: { return bitcast<u32>(a + b); }
      case 2u: { return bitcast<u32>(a * b); }
      case 3u: { return bitcast<u32>(max(a, b)); }
      default: { return bitcast<u32>(min(a, b)); }
    }
  }
  switch MODE {
    case 1u: { return old + v; }
    case 2u: { return old * v; }
    case 3u: { return max(old, v); }
    default: { return min(old, v); }
  }
}

// (out address without its data offset, LIN address, SRC address) of index-space element t
fn addresses(t0: u32) -> vec3<u32> {
  var t = t0;
  var at = vec3<u32>(P[1].x, P[1].y, P[1].z);
  for (var d = i32(P[0].y) - 1; d >= 0; d = d - 1) {
    let size = dim_word(2u, u32(d));
    let c = t % size;
    t = t / size;
    at = at + c * vec3<u32>(dim_word(4u, u32(d)), dim_word(6u, u32(d)), dim_word(8u, u32(d)));
  }
  return at;
}

fn value_at(sa: u32) -> u32 {
  if (SCALAR) {
    return P[0].z;
  }
  return SRC[sa];
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= P[0].x) {
    return;
  }
  if (MODE == 6u) {
    let claim = LIN[i];
    let winner = u32(claim) - 1u;
    if (claim != 0 && winner - P[1].w < P[1].y) {
      atomicStore(&OUT[i], value_at(addresses(winner).z));
    }
    return;
  }
  let at = addresses(i + P[1].w);
  let a = at.x + u32(LIN[at.y]);
  if (a >= P[0].w) {
    return;
  }
  if (MODE == 5u) {
    atomicMax(&OUT[a], i + P[1].w + 1u);
    return;
  }
  let v = value_at(at.z);
  if (MODE == 0u) {
    atomicStore(&OUT[a], v);
    return;
  }
  if (MODE == 1u && KIND != 0u) {
    atomicAdd(&OUT[a], v);
    return;
  }
  var old = atomicLoad(&OUT[a]);
  loop {
    let r = atomicCompareExchangeWeak(&OUT[a], old, combine(old, v));
    if (r.exchanged) {
      break;
    }
    old = r.old_value;
  }
}
