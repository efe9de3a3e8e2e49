// randperm_local.wgsl -- the in-workgroup stages of randperm's bitonic sort of (random key, index) pairs.
//
// randperm(n) sorts P = next power of two >= n pairs (KEYS[i], VALS[i]) by key, ties by index, pairs whose
// index is >= n (padding) last; VALS[0..n) is then a uniform random permutation. This kernel runs, for every
// block of BLOCK = min(P, 2048) consecutive pairs in workgroup memory, the bitonic stages k = k_first ..
// k_last (doubling) with distances j = min(k, BLOCK) / 2 .. 1; the direction of a pair comes from its global
// position (ascending where (e & k) == 0), so blocks compose with randperm_global.wgsl's longer distances.
// INIT: VALS is not read; each pair starts as (KEYS[e], e) (first dispatch: k_first = 2).
// KEYS and VALS may be windows of longer arrays (a chunk of P pairs past one binding): element 0 of the window is
// pair P[1].x of the whole, which the directions and INIT's indices count from.
// Launch: workgroup_size 256; grid (pairs bound / BLOCK, 1, 1) (y > 1 past 65535), one workgroup per block.
// Specialization: INIT. Parameters P: [0] = (n, block, k_first, k_last); [1] = (first pair bound, 0, 0, 0).

const INIT: bool = false;
const MAX_BLOCK: u32 = 2048u;

@group(0) @binding(0) var<storage, read_write> KEYS: array<i32>;
@group(0) @binding(1) var<storage, read_write> VALS: array<i32>;
@group(0) @binding(2) var<uniform> P: array<vec4<u32>, 2>;

var<workgroup> sk: array<i32, MAX_BLOCK>;
var<workgroup> sv: array<u32, MAX_BLOCK>;

// whether pair (ka, ia) goes before pair (kb, ib): by key, then index; padding (index >= n) last
fn before(ka: i32, ia: u32, kb: i32, ib: u32) -> bool {
  let n = P[0].x;
  if (ia >= n || ib >= n || ka == kb) {
    return ia < ib;
  }
  return ka < kb;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let block = P[0].y;
  let base = (wid.x + wid.y * nwg.x) * block;
  for (var e = lid; e < block; e = e + 256u) {
    sk[e] = KEYS[base + e];
    if (INIT) {
      sv[e] = P[1].x + base + e;
    } else {
      sv[e] = u32(VALS[base + e]);
    }
  }
  workgroupBarrier();
  for (var k = P[0].z; k <= P[0].w; k = k << 1u) {
    for (var j = min(k, block) >> 1u; j > 0u; j = j >> 1u) {
      for (var e = lid; e < block; e = e + 256u) {
        let f = e ^ j;
        if (f > e) {
          let up = ((P[1].x + base + e) & k) == 0u;
          let f_first = before(sk[f], sv[f], sk[e], sv[e]);
          let e_first = before(sk[e], sv[e], sk[f], sv[f]);
          if (select(e_first, f_first, up)) {
            let key = sk[e];
            sk[e] = sk[f];
            sk[f] = key;
            let v = sv[e];
            sv[e] = sv[f];
            sv[f] = v;
          }
        }
      }
      workgroupBarrier();
    }
  }
  for (var e = lid; e < block; e = e + 256u) {
    KEYS[base + e] = sk[e];
    VALS[base + e] = i32(sv[e]);
  }
}
