// index_nonzero.wgsl -- second pass of nonzero: coordinates of the non-zero elements, in C order.
//
// Computes: for every i < n with CUM[i] != CUM[i - 1] (CUM = the inclusive prefix sum of x != 0 over
// the C-order elements of x, CUM[-1] = 0): OUT[(CUM[i] - 1) * rank + d] = c_d, the coordinates of i in
// x's shape (sizes). The first pass (the scan) gives the count CUM[n - 1], which sizes OUT.
// Launch: workgroup_size 256; grid (ceil(n / 256), 1, 1) (y > 1 past 65535 workgroups).
// Parameters P: [0] = (n, rank, -, -); [1], [2] = sizes (up to 8 dims).

@group(0) @binding(0) var<storage, read> CUM: array<i32>;
@group(0) @binding(1) var<storage, read_write> OUT: array<i32>;
@group(0) @binding(2) var<uniform> P: array<vec4<u32>, 3>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= P[0].x) {
    return;
  }
  var prev = 0;
  if (i > 0u) {
    prev = CUM[i - 1u];
  }
  if (CUM[i] == prev) {
    return;
  }
  let rank = P[0].y;
  let row = u32(CUM[i] - 1) * rank;
  var t = i;
  for (var d = i32(rank) - 1; d >= 0; d = d - 1) {
    let size = P[1u + u32(d) / 4u][u32(d) % 4u];
    OUT[row + u32(d)] = i32(t % size);
    t = t / size;
  }
}
