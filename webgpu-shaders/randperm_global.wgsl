// randperm_global.wgsl -- one bitonic compare-exchange stage of randperm at a distance j too long for one
// workgroup (see randperm_local.wgsl for the sort: (KEYS, VALS) pairs by key, ties by index, padding last).
//
// Within one binding (P[1].y == 0): for every t < P[0].y (half the pairs bound), the pair e = 2 j floor(t / j) +
// t mod j and its partner f = e + j are put in order. Across two (P[1].y == 1; pairs past one binding are sorted in
// chunks, randperm_kernels.py, and j is a chunk or more): pair t of KEYS/VALS (a window of one chunk) and pair t of
// KEYS_HI/VALS_HI (a window of the chunk j further), for every t < P[0].y (a chunk's length); within one binding,
// KEYS_HI/VALS_HI are a small unused buffer (bound so the layout never changes).
// The order is ascending where (e & k) == 0, descending elsewhere, e counted in the whole: element 0 of KEYS is
// pair P[1].x of the whole.
// Launch: workgroup_size 256; grid (ceil(P[0].y / 256), 1, 1) (y > 1 past 65535).
// Parameters P: [0] = (n, pairs compared, k, j); [1] = (first pair bound, across two chunks, 0, 0).

@group(0) @binding(0) var<storage, read_write> KEYS: array<i32>;
@group(0) @binding(1) var<storage, read_write> VALS: array<i32>;
@group(0) @binding(2) var<storage, read_write> KEYS_HI: array<i32>;
@group(0) @binding(3) var<storage, read_write> VALS_HI: array<i32>;
@group(0) @binding(4) var<uniform> P: array<vec4<u32>, 2>;

fn before(ka: i32, ia: u32, kb: i32, ib: u32) -> bool {
  let n = P[0].x;
  if (ia >= n || ib >= n || ka == kb) {
    return ia < ib;
  }
  return ka < kb;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let t = gid.x + gid.y * nwg.x * 256u;
  if (t >= P[0].y) {
    return;
  }
  let j = P[0].w;
  let across = P[1].y != 0u;
  let e = select((t / j) * 2u * j + t % j, t, across);
  let f = select(e + j, t, across);
  let ke = KEYS[e];
  let ve = u32(VALS[e]);
  var kf: i32;
  var vf: u32;
  if (across) {
    kf = KEYS_HI[f];
    vf = u32(VALS_HI[f]);
  } else {
    kf = KEYS[f];
    vf = u32(VALS[f]);
  }
  let up = ((P[1].x + e) & P[0].z) == 0u;
  if (select(before(ke, ve, kf, vf), before(kf, vf, ke, ve), up)) {
    KEYS[e] = kf;
    VALS[e] = i32(vf);
    if (across) {
      KEYS_HI[f] = ke;
      VALS_HI[f] = i32(ve);
    } else {
      KEYS[f] = ke;
      VALS[f] = i32(ve);
    }
  }
}
