// randperm_global.wgsl -- one bitonic compare-exchange stage of randperm at a distance j too long for one
// workgroup (see randperm_local.wgsl for the sort: (KEYS, VALS) pairs by key, ties by index, padding last).
//
// Computes, for every t < P / 2: the pair e = 2 j floor(t / j) + t mod j and its partner f = e + j are put
// in order, ascending where (e & k) == 0, descending elsewhere.
// Launch: workgroup_size 256; grid (ceil(P / 512), 1, 1) (y > 1 past 65535).
// Parameters P: [0] = (n, P / 2, k, j).

@group(0) @binding(0) var<storage, read_write> KEYS: array<i32>;
@group(0) @binding(1) var<storage, read_write> VALS: array<i32>;
@group(0) @binding(2) var<uniform> P: array<vec4<u32>, 1>;

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
  let k = P[0].z;
  let j = P[0].w;
  let e = (t / j) * 2u * j + t % j;
  let f = e + j;
  let ke = KEYS[e];
  let kf = KEYS[f];
  let ve = u32(VALS[e]);
  let vf = u32(VALS[f]);
  let up = (e & k) == 0u;
  if (select(before(ke, ve, kf, vf), before(kf, vf, ke, ve), up)) {
    KEYS[e] = kf;
    KEYS[f] = ke;
    VALS[e] = i32(vf);
    VALS[f] = i32(ve);
  }
}
