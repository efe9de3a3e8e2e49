// conv_igemm.wgsl -- fp32 convolution as an implicit GEMM (webtorch backend "webgpu").
//
// Computes, per channel group g and K-split s: C[r, c] = sum_k A[r, k] * B[k, c] (+ bias[r]), where
// neither operand exists in memory: A and B are gathered from the convolution's tensors through strides.
// The three convolution primitives are the same GEMM with different gathers (set up by conv_kernels.py):
//   conv                  r = out channel, c = (n, out position), k = (in channel, kernel offset);
//                         B = x at position o * stride - pad + kpos * dilation (0 outside the input)
//   conv_backward_input   r = in channel,  c = (n, in position),  k = (out channel, kernel offset);
//                         B = dy at (s + pad - kpos * dilation) / stride when that divides and is in range
//   conv_backward_weight  r = out channel, c = (in channel, kernel offset), k = (n, out position);
//                         B = x as in conv, A = dy
// A column c unravels as (outer, l0, l1, l2) over sizes (-, Lc0, Lc1, Lc2); a reduction index k as
// (outer, j0, j1, j2) over (-, J0, J1, J2); spatial dims are padded to 3 with size-1 dims. Along each
// spatial dim d, B is read at v = (l_d * cmul_d + cadd_d) + (j_d * kmul_d + kadd_d), divided by q_d
// (TRANSPOSED only: v must be a non-negative multiple of q_d), and is 0 unless 0 <= v / q_d < Lb_d.
// Launch: workgroup_size (TN4, WG_Y); grid (tiles % gx, tiles / gx, groups * splits) (z in several dispatches
// from P[13].z when it passes maxComputeWorkgroupsPerDimension) with
// tiles = ceil(M / TM) * ceil(NC / TN), TN = 4 TN4; each workgroup computes a TM x TN tile of C, each invocation an
// RM x 4 register block (RM = TM / WG_Y) at rows ty + WG_Y i and columns 4 tx .. 4 tx + 3. K advances TK
// at a time; the TK reduction indices of a step are unravelled once per workgroup into a shared table.
// Tiles are held as vec4 (As[row][k / 4], Bs[k][col / 4]) so the inner loop reads RM + 4 vec4 for 16 RM
// multiply-adds (as matmul_tiled.wgsl); the gathers stay scalar. An invocation always loads the same 4
// B columns: their unravelling is done once.
// Split s reduces k in [s * kchunk, (s + 1) * kchunk) and writes its partial C at s * split stride.
// Specialization: TM (rows per tile), TN4 (vec4 columns per tile), WG_Y (TN4 WG_Y >= TK, TM a multiple of
// WG_Y), TRANSPOSED, HAS_BIAS.
// The epilogue function between the @epilogue markers stores one element of the result (bias added);
// the scheduler may replace it with a fused elementwise chain (an activation) when splits is 1.
// Parameters P (i32): [0] (M, NC, K, kchunk)  [1] (splits, gx, row tiles, tiles)
//   [2] (Lc0, Lc1, Lc2, column outer stride in B)  [3] (cmul0..2, column outer stride in C)
//   [4] (cadd0..2, -)  [5] (J0, J1, J2, k outer stride in B)  [6] (kmul0..2, k outer stride in A)
//   [7] (kadd0..2, -)  [8] (A strides of j0..2, -)  [9] (B strides of v0..2, -)  [10] (Lb0..2, -)
//   [11] (q0..2, -)  [12] (A row stride, A group stride, A offset, -)  [13] (B group stride, B offset, first z, -)
//   [14] (C row stride, C group stride, C split stride, bias offset)

const TM: u32 = 64u;
const TRANSPOSED: bool = false;
const HAS_BIAS: bool = false;

const TN4: u32 = 16u;  // vec4 columns per tile (workgroup_size x)
const WG_Y: u32 = 8u;
const TK: u32 = 32u;
const TK4: u32 = TK / 4u;
const RM: u32 = TM / WG_Y;
const NT: u32 = TN4 * WG_Y;

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read> BIAS: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;
@group(0) @binding(4) var<uniform> P: array<vec4<i32>, 15>;

var<workgroup> As: array<vec4<f32>, TM * TK4>;  // [TM][TK / 4]
var<workgroup> Bs: array<vec4<f32>, TK * TN4>;  // [TK][TN / 4]
var<workgroup> KA: array<i32, TK>;  // per reduction index of the step: offset into A
var<workgroup> KB: array<vec4<i32>, TK>;  // (offset into B, spatial terms j_d * kmul_d + kadd_d)

// @epilogue-begin
fn epilogue(i: u32, v: f32) {
  C[i] = v;
}
// @epilogue-end

@compute @workgroup_size(TN4, WG_Y)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let tile = i32(wid.x + wid.y * u32(P[1].y));
  if (tile >= P[1].w) {
    return;
  }
  let M = P[0].x;
  let NC = P[0].y;
  let K = P[0].z;
  let splits = P[1].x;
  let z = i32(wid.z) + P[13].z;  // several dispatches (z offsets) when groups * splits pass the limit
  let g = z / splits;
  let s = z % splits;
  let row0 = (tile % P[1].z) * i32(TM);
  let col0 = (tile / P[1].z) * i32(TN4 * 4u);
  let tx = lid.x;
  let ty = lid.y;
  let tid = ty * TN4 + tx;

  // the 4 B columns this invocation loads are the same at every step: unravel them once
  let bq = col0 + i32(tid % TN4) * 4;
  var cb: array<i32, 4>;
  var csp: array<vec3<i32>, 4>;
  var cok: array<bool, 4>;
  let Lc = P[2].xyz;
  for (var t = 0; t < 4; t = t + 1) {
    let bc = bq + t;
    cok[t] = bc < NC;
    var u = min(bc, NC - 1);
    let l2 = u % Lc.z; u = u / Lc.z;
    let l1 = u % Lc.y; u = u / Lc.y;
    let l0 = u % Lc.x; u = u / Lc.x;
    cb[t] = P[13].y + g * P[13].x + u * P[2].w;
    csp[t] = vec3<i32>(l0, l1, l2) * P[3].xyz + P[4].xyz;
  }
  let a_base = P[12].z + g * P[12].y + row0 * P[12].x;
  let Lb = P[10].xyz;
  let q = P[11].xyz;
  let bstr = P[9].xyz;

  var acc: array<vec4<f32>, RM>;
  let k_begin = s * P[0].w;
  let k_end = min(K, k_begin + P[0].w);
  for (var k0 = k_begin; k0 < k_end; k0 = k0 + i32(TK)) {
    if (tid < TK) {
      let k = k0 + i32(tid);
      var t = k;
      let j2 = t % P[5].z; t = t / P[5].z;
      let j1 = t % P[5].y; t = t / P[5].y;
      let j0 = t % P[5].x; t = t / P[5].x;
      let j = vec3<i32>(j0, j1, j2);
      KA[tid] = t * P[6].w + dot(j, P[8].xyz);
      KB[tid] = vec4<i32>(t * P[5].w, j * P[6].xyz + P[7].xyz);
    }
    workgroupBarrier();
    for (var e = tid; e < TM * TK4; e = e + NT) {
      let r = i32(e / TK4);
      let kq = (e % TK4) * 4u;
      var v = vec4<f32>(0.0);
      if (row0 + r < M) {
        let a = a_base + r * P[12].x;
        for (var t = 0u; t < 4u; t = t + 1u) {
          if (k0 + i32(kq + t) < k_end) {
            v[t] = A[a + KA[kq + t]];
          }
        }
      }
      As[e] = v;
    }
    for (var e = tid; e < TK * TN4; e = e + NT) {
      let kk = e / TN4;
      var v = vec4<f32>(0.0);
      if (k0 + i32(kk) < k_end) {
        let kb = KB[kk];
        for (var t = 0; t < 4; t = t + 1) {
          var p = csp[t] + kb.yzw;
          var ok = cok[t] && all(p >= vec3<i32>(0));
          if (TRANSPOSED) {
            ok = ok && all(p % q == vec3<i32>(0));
            p = p / q;
          }
          if (ok && all(p < Lb)) {
            v[t] = B[cb[t] + kb.x + dot(p, bstr)];
          }
        }
      }
      Bs[e] = v;
    }
    workgroupBarrier();
    for (var kq = 0u; kq < TK4; kq = kq + 1u) {
      let b0 = Bs[(kq * 4u) * TN4 + tx];
      let b1 = Bs[(kq * 4u + 1u) * TN4 + tx];
      let b2 = Bs[(kq * 4u + 2u) * TN4 + tx];
      let b3 = Bs[(kq * 4u + 3u) * TN4 + tx];
      for (var i = 0u; i < RM; i = i + 1u) {
        let a = As[(ty + WG_Y * i) * TK4 + kq];
        acc[i] = fma(vec4<f32>(a.x), b0, fma(vec4<f32>(a.y), b1, fma(vec4<f32>(a.z), b2, fma(vec4<f32>(a.w), b3, acc[i]))));
      }
    }
    workgroupBarrier();
  }

  let c_base = g * P[14].y + s * P[14].z;
  let Lcp = P[2].x * P[2].y * P[2].z;
  for (var i = 0u; i < RM; i = i + 1u) {
    let r = row0 + i32(ty + WG_Y * i);
    if (r < M) {
      // read even without a bias (a dummy binding) so the binding is used in every variant
      let b = select(0.0, BIAS[P[14].w + g * M + r], HAS_BIAS);
      for (var jj = 0; jj < 4; jj = jj + 1) {
        let c = bq + jj;
        if (c < NC) {
          epilogue(u32(c_base + r * P[14].x + (c / Lcp) * P[3].w + c % Lcp), acc[i][jj] + b);
        }
      }
    }
  }
}
