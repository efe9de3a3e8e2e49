// index_nonzero.wgsl -- second pass of nonzero: coordinates of the non-zero elements, in C order.
//
// Computes: for every i < n with CUM[i] != CUM[i - 1] (CUM = the inclusive prefix sum of x != 0 over
// the C-order elements of x, CUM[-1] = 0): OUT[(CUM[i] - 1) * rank + d] = c_d, the coordinates of i in
// x's shape (sizes). The first pass (the scan) gives the count CUM[n - 1], which sizes OUT.
// A launch covers the elements [i0, i0 + n) and the OUT elements [o0, o0 + o_count): past one binding
// (binding_windows.py) CUM is a window holding element i at CUM[i + shift] and OUT a window of the output, and
// the launches tile both (a write outside this launch's OUT part is left to the launch that holds it).
// Launch: workgroup_size 256; grid (ceil(n / 256), 1, 1) (y > 1 past 65535 workgroups).
// Parameters P: [0] = (n, rank, i0, CUM shift as i32 bits); [1] = (o0, o_count, -, -); [2], [3] = sizes
//               (up to 8 dims).

@group(0) @binding(0) var<storage, read> CUM: array<i32>;
@group(0) @binding(1) var<storage, read_write> OUT: array<i32>;
@group(0) @binding(2) var<uniform> P: array<vec4<u32>, 4>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let j = gid.x + gid.y * nwg.x * 256u;
  if (j >= P[0].x) {
    return;
  }
  let i = P[0].z + j;
  let c = u32(i32(i) + bitcast<i32>(P[0].w));  // CUM[c] is element i
  var prev = 0;
  if (i > 0u) {
    prev = CUM[c - 1u];
  }
  if (CUM[c] == prev) {
    return;
  }
  let rank = P[0].y;
  let row = u32(CUM[c] - 1) * rank;
  var t = i;
  for (var d = i32(rank) - 1; d >= 0; d = d - 1) {
    let size = P[2u + u32(d) / 4u][u32(d) % 4u];
    let k = row + u32(d);
    if (k >= P[1].x && k - P[1].x < P[1].y) {
      OUT[k - P[1].x] = i32(t % size);
    }
    t = t / size;
  }
}
