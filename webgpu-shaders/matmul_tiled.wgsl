// matmul_tiled.wgsl -- fp32 batched matrix product C[z] = A[z] @ B[z] (webtorch backend "webgpu").
//
// Computes: C (batch, M, N), contiguous, from A (..., M, K) and B (..., K, N) read through strides, so
// transposed or sliced operands need no copy and broadcast batch dims have stride 0. The batch index z
// is unravelled over up to four batch dims (P[1]) with per-operand batch strides (P[2], P[3]).
// Launch: workgroup_size (WG_X, WG_Y); grid (ceil(N / TN), ceil(M / TM), batch) with TN = 4 WG_X and
// TM = RM WG_Y. Each workgroup computes a TM x TN tile of C; each invocation an RM x 4 register block:
// rows ty + WG_Y i (i < RM), columns 4 tx .. 4 tx + 3 (one vec4 accumulator per row).
// K advances TK at a time through workgroup tiles held as vec4: As[row][k / 4] (4 consecutive k of one
// row) and Bs[k][col / 4] (4 consecutive columns of one k), so the inner loop reads RM + 4 vec4 for
// 16 RM multiply-adds; consecutive invocations read consecutive Bs vec4s (no bank conflicts) and the
// same As vec4 (a broadcast).
// Operand load modes (runtime, uniform: P[5].z for A, P[5].w for B, chosen by the loader from strides):
//   0: any strides, one scalar load per element;
//   1: contiguous along the vec4 direction of the shared tile (A along K, B along N): one vec4 load;
//   2: contiguous across it (A along M, B along K, e.g. a transposed weight): an invocation loads a
//      4 x 4 block as four vec4 and transposes it in registers.
//   Modes 1 and 2 need every stride but the contiguous one, the offset, and the contiguous dim's size
//   to be multiples of 4. They are uniform branches, not constants, so one pipeline serves every operand
//   layout: each pipeline costs 1-3 s to build on SwiftShader, the branch costs little per tile.
// WG_X, WG_Y, RM, TK: tile shape (TK a multiple of 4); the loader uses one shape for every product.
// The epilogue function between the @epilogue markers stores one element of C; the scheduler may
// replace it with a fused elementwise chain (bias add, activation) that reads v and stores elsewhere.
// Parameters P: [0] = (M, N, K, batch); [1] = batch sizes; [2] = A batch strides; [3] = B batch strides;
//               [4] = (A row stride, A col stride, B row stride, B col stride); [5] = (A offset, B offset, A mode, B mode);
//               [6] = (first batch, first row, first column, -) of this dispatch (a product past
//               maxComputeWorkgroupsPerDimension is several dispatches).

const WG_X: u32 = 16u;
const WG_Y: u32 = 16u;
const RM: u32 = 4u;
const TK: u32 = 16u;

const TM: u32 = WG_Y * RM;
const TN4: u32 = WG_X;  // vec4 columns per tile
const TK4: u32 = TK / 4u;
const NT: u32 = WG_X * WG_Y;

@group(0) @binding(0) var<storage, read> A: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> B: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> P: array<vec4<u32>, 7>;

var<workgroup> As: array<vec4<f32>, TM * TK4>;  // [TM][TK / 4]
var<workgroup> Bs: array<vec4<f32>, TK * TN4>;  // [TK][TN / 4]

fn batch_offset(z: u32, sizes: vec4<u32>, strides: vec4<u32>) -> u32 {
  var t = z;
  let z3 = t % sizes.w; t = t / sizes.w;
  let z2 = t % sizes.z; t = t / sizes.z;
  let z1 = t % sizes.y; t = t / sizes.y;
  return t * strides.x + z1 * strides.y + z2 * strides.z + z3 * strides.w;
}

fn scalar_a(a: u32) -> f32 {
  return A[a >> 2u][a & 3u];
}

fn scalar_b(b: u32) -> f32 {
  return B[b >> 2u][b & 3u];
}

// @epilogue-begin
fn epilogue(i: u32, v: f32) {
  C[i] = v;
}
// @epilogue-end

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let M = P[0].x;
  let N = P[0].y;
  let K = P[0].z;
  let z = wid.z + P[6].x;
  let a_base = P[5].x + batch_offset(z, P[1], P[2]);
  let b_base = P[5].y + batch_offset(z, P[1], P[3]);
  let a_rs = P[4].x;
  let a_cs = P[4].y;
  let b_rs = P[4].z;
  let b_cs = P[4].w;
  let a_mode = P[5].z;
  let b_mode = P[5].w;
  let row0 = wid.y * TM + P[6].y;
  let col0 = wid.x * TN4 * 4u + P[6].z;
  let tx = lid.x;
  let ty = lid.y;
  let tid = ty * WG_X + tx;
  var acc: array<vec4<f32>, RM>;
  for (var k0 = 0u; k0 < K; k0 = k0 + TK) {
    if (a_mode == 2u) {
      // 4 rows x 4 k per invocation: vec4 loads along M, transposed into 4 As slots
      for (var e = tid; e < TM * TK4 / 4u; e = e + NT) {
        let r = (e % (TM / 4u)) * 4u;
        let kq = e / (TM / 4u);
        var v: array<vec4<f32>, 4>;
        for (var t = 0u; t < 4u; t = t + 1u) {
          // assigned on every path: naga does not re-zero a loop-local var without initializer per iteration
          v[t] = vec4<f32>(0.0);
          if (row0 + r < M && k0 + kq * 4u + t < K) {
            v[t] = A[(a_base + row0 + r + (k0 + kq * 4u + t) * a_cs) >> 2u];
          }
        }
        As[r * TK4 + kq] = vec4<f32>(v[0].x, v[1].x, v[2].x, v[3].x);
        As[(r + 1u) * TK4 + kq] = vec4<f32>(v[0].y, v[1].y, v[2].y, v[3].y);
        As[(r + 2u) * TK4 + kq] = vec4<f32>(v[0].z, v[1].z, v[2].z, v[3].z);
        As[(r + 3u) * TK4 + kq] = vec4<f32>(v[0].w, v[1].w, v[2].w, v[3].w);
      }
    } else {
      for (var e = tid; e < TM * TK4; e = e + NT) {
        let r = e / TK4;
        let kq = e % TK4;
        let k = k0 + kq * 4u;
        var v = vec4<f32>(0.0);
        if (row0 + r < M) {
          let a = a_base + (row0 + r) * a_rs + k * a_cs;
          if (a_mode == 1u) {
            if (k < K) {
              v = A[a >> 2u];
            }
          } else {
            for (var t = 0u; t < 4u; t = t + 1u) {
              if (k + t < K) {
                v[t] = scalar_a(a + t * a_cs);
              }
            }
          }
        }
        As[e] = v;
      }
    }
    if (b_mode == 2u) {
      // 4 k x 4 columns per invocation: vec4 loads along K, transposed into 4 Bs slots
      for (var e = tid; e < TK * TN4 / 4u; e = e + NT) {
        let kq = e % TK4;
        let cq = e / TK4;
        let k = k0 + kq * 4u;
        var v: array<vec4<f32>, 4>;
        for (var t = 0u; t < 4u; t = t + 1u) {
          v[t] = vec4<f32>(0.0);
          if (k < K && col0 + cq * 4u + t < N) {
            v[t] = B[(b_base + k + (col0 + cq * 4u + t) * b_cs) >> 2u];
          }
        }
        Bs[kq * 4u * TN4 + cq] = vec4<f32>(v[0].x, v[1].x, v[2].x, v[3].x);
        Bs[(kq * 4u + 1u) * TN4 + cq] = vec4<f32>(v[0].y, v[1].y, v[2].y, v[3].y);
        Bs[(kq * 4u + 2u) * TN4 + cq] = vec4<f32>(v[0].z, v[1].z, v[2].z, v[3].z);
        Bs[(kq * 4u + 3u) * TN4 + cq] = vec4<f32>(v[0].w, v[1].w, v[2].w, v[3].w);
      }
    } else {
      for (var e = tid; e < TK * TN4; e = e + NT) {
        let kk = e / TN4;
        let c = col0 + (e % TN4) * 4u;
        var v = vec4<f32>(0.0);
        if (k0 + kk < K) {
          let b = b_base + (k0 + kk) * b_rs + c * b_cs;
          if (b_mode == 1u) {
            if (c < N) {
              v = B[b >> 2u];
            }
          } else {
            for (var t = 0u; t < 4u; t = t + 1u) {
              if (c + t < N) {
                v[t] = scalar_b(b + t * b_cs);
              }
            }
          }
        }
        Bs[e] = v;
      }
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
  let c_base = z * M * N;
  let c = col0 + tx * 4u;
  for (var i = 0u; i < RM; i = i + 1u) {
    let r = row0 + ty + WG_Y * i;
    if (r < M) {
      for (var j = 0u; j < 4u; j = j + 1u) {
        if (c + j < N) {
          epilogue(c_base + r * N + c + j, acc[i][j]);
        }
      }
    }
  }
}
