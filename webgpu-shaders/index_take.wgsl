// index_take.wgsl -- gather through a precomputed linear offset: gather, advanced indexing (aten::index).
//
// Computes: OUT[i] = X[x_offset + sum_d c_d * xs_d + LIN[lin_offset + sum_d c_d * ls_d]] for every i < n,
// where (c_0 .. c_{rank-1}) are the coordinates of i in the C-contiguous OUT of shape (size_0 ..). The
// caller folds every index tensor into LIN (index * the indexed dim's stride, negatives wrapped) and gives
// the indexed dims xs_d = 0, the other dims ls_d = 0. Up to 8 dims. Only addresses below x_window are taken (X
// past one binding is bound a window at a time, x_offset counting from the window: the others wrap past it).
// Launch: workgroup_size 256; grid (ceil(n / 256), 1, 1) (y > 1 past 65535 workgroups).
// Specialization: T = the element storage type (f32, i32 or u32).
// Parameters P: [0] = (n, rank, x_offset, lin_offset); [1], [2] = sizes; [3], [4] = xs; [5], [6] = ls;
//               [7] = (x_window, first i, OUT offset, -): n elements from the first i (an OUT past one binding is
//               written a window at a time).

alias T = f32;

@group(0) @binding(0) var<storage, read> X: array<T>;
@group(0) @binding(1) var<storage, read> LIN: array<i32>;
@group(0) @binding(2) var<storage, read_write> OUT: array<T>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 8>;

fn dim_word(row: u32, d: u32) -> u32 {
  return P[row + d / 4u][d % 4u];
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= P[0].x) {
    return;
  }
  var t = i + P[7].y;
  var xa = P[0].z;
  var la = P[0].w;
  for (var d = i32(P[0].y) - 1; d >= 0; d = d - 1) {
    let size = dim_word(1u, u32(d));
    let c = t % size;
    t = t / size;
    xa = xa + c * dim_word(3u, u32(d));
    la = la + c * dim_word(5u, u32(d));
  }
  let a = xa + u32(LIN[la]);
  if (a >= P[7].x) {
    return;
  }
  OUT[P[7].z + i] = X[a];
}
