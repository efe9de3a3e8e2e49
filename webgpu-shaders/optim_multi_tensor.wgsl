// optim_multi_tensor.wgsl -- fused multi-tensor optimizer step: every parameter of a dispatch updated in place.
//
// Computes, for each slot k (one parameter tensor: param, grad and up to three state tensors, each a
// contiguous run of numel_k f32 at its own offset) and each element i < numel_k, the update rule RULE
// (0 SGD, 1 Adam/AdamW, 2 RMSprop, 3 Adagrad, 4 Adadelta, 5 Adamax, 6 NAdam, 7 RAdam) with PyTorch 2.13's
// order of f32 operations (as backends/numpy/optim.py: lerp two-sided, addcmul/addcdiv value first).
// The rules compute on vec4: with VEC, an invocation updates 4 consecutive elements (every offset of the
// dispatch is a multiple of 4; loads are whole vec4, stores keep the lanes past numel_k as they were: no two
// slots of a dispatch share a buffer, and buffers are sized in multiples of 16 bytes); without VEC, one
// element (lane x) per invocation. On SwiftShader VEC halves the cost of the step (fewer, wider accesses).
// Launch: workgroup_size 256; grid (G, 1, 1) with G = sum_k ceil(numel_k / E / 256), E = 4 with VEC else 1
// (y > 1 past 65535): slot k owns the workgroups [start_k, start_{k+1}).
// Specialization: RULE; NSLOT slots; HAS_A / HAS_B / HAS_C = the slot has state tensor a / b / c; VEC.
// Slots: the loader repeats the "slot bindings" block once per slot (suffix _s0 -> _sK, binding j ->
// K * bindings-per-slot + j) and the "slot body" block once per slot (slot == 0u -> slot == Ku); a line
// ending in "// when HAS_X" is kept only when HAS_X is true. As shipped it is the one-slot kernel.
// Parameters P: [0] = (NSLOT used, total workgroups, flags, -) with flags bit 0 maximize, bit 1
//               decoupled weight decay, bit 2 nesterov; [1], [2] = the rule's eight f32 scalars (below);
//               per slot k, rows 3 + 3k.. : (start_k, numel_k, param offset, grad offset),
//               (a offset, b offset, c offset, slot flag), four f32 per-slot scalars.

const RULE: u32 = 1u;
const NSLOT: u32 = 1u;
const HAS_A: bool = true;
const HAS_B: bool = true;
const HAS_C: bool = true;
const VEC: bool = true;

const WG: u32 = 256u;

// >>> slot bindings
@group(0) @binding(0) var<storage, read_write> param_s0: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> grad_s0: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> a_s0: array<vec4<f32>>;  // when HAS_A
@group(0) @binding(3) var<storage, read_write> b_s0: array<vec4<f32>>;  // when HAS_B
@group(0) @binding(4) var<storage, read_write> c_s0: array<vec4<f32>>;  // when HAS_C
// <<< slot bindings
@group(0) @binding(5) var<uniform> P: array<vec4<u32>, 3u + 3u * NSLOT>;

// Four elements' values: the parameter and its state a, b, c (what each holds depends on the rule).
struct Elem {
  p: vec4<f32>,
  a: vec4<f32>,
  b: vec4<f32>,
  c: vec4<f32>,
}

// The values of an invocation from the vec4 holding element j: all four with VEC, else element j in lane x.
fn take(v: vec4<f32>, j: u32) -> vec4<f32> {
  if (VEC) {
    return v;
  }
  return vec4<f32>(v[j & 3u]);
}

fn scalar(k: u32) -> f32 {
  return bitcast<f32>(P[1u + k / 4u][k % 4u]);
}

fn flag(bit: u32) -> bool {
  return (P[0].z & (1u << bit)) != 0u;
}

// The gradient the rule sees: negated when maximizing, plus wd * p for (coupled) weight decay.
fn decayed_grad(grad: vec4<f32>, p: vec4<f32>, wd: f32) -> vec4<f32> {
  if (wd != 0.0) {
    let t = p * wd;
    return select(t + grad, t - grad, flag(0u));
  }
  return select(grad, -grad, flag(0u));
}

fn is_nan(v: vec4<f32>) -> vec4<bool> {
  return (bitcast<vec4<u32>>(v) & vec4<u32>(0x7fffffffu)) > vec4<u32>(0x7f800000u);  // compilers may fold v != v
}

// a.lerp_(end, w) as PyTorch's CPU kernel: from the nearer end.
fn lerp2(a: vec4<f32>, end: vec4<f32>, w: f32) -> vec4<f32> {
  let t = end - a;
  if (abs(w) < 0.5) {
    return a + t * w;
  }
  return end - t * (1.0 - w);
}

// rule 0, SGD. scalars: wd, momentum, 1 - dampening, -lr. a = momentum buffer (HAS_A), slot flag 1 = first step.
fn sgd(e: ptr<function, Elem>, grad: vec4<f32>, first: bool) {
  var g = decayed_grad(grad, (*e).p, scalar(0u));
  if (HAS_A) {
    if (first) {
      (*e).a = g;
    } else {
      (*e).a = (*e).a * scalar(1u) + g * scalar(2u);
    }
    if (flag(2u)) {
      g = g + (*e).a * scalar(1u);
    } else {
      g = (*e).a;
    }
  }
  (*e).p = (*e).p + g * scalar(3u);
}

// rule 1, Adam/AdamW. scalars: wd, 1 - lr * wd, 1 - beta1, beta2, 1 - beta2, eps.
// a = exp_avg, b = exp_avg_sq, c = max_exp_avg_sq (AMSGrad). slot: -step_size, sqrt(bias_correction2).
fn adam(e: ptr<function, Elem>, grad: vec4<f32>, s: vec4<f32>) {
  var wd = scalar(0u);
  if (flag(1u)) {
    if (wd != 0.0) {
      (*e).p = (*e).p * scalar(1u);
    }
    wd = 0.0;
  }
  let g = decayed_grad(grad, (*e).p, wd);
  (*e).a = lerp2((*e).a, g, scalar(2u));
  (*e).b = (*e).b * scalar(3u) + g * scalar(4u) * g;
  var v = (*e).b;
  if (HAS_C) {
    (*e).c = max((*e).c, v);
    v = (*e).c;
  }
  let denom = sqrt(v) / s.y + scalar(5u);
  (*e).p = (*e).p + (*e).a * s.x / denom;
}

// rule 2, RMSprop. scalars: wd, alpha, 1 - alpha, eps, momentum, -lr.
// a = square_avg, b = grad_avg (centered: HAS_B), c = momentum buffer (HAS_C).
fn rmsprop(e: ptr<function, Elem>, grad: vec4<f32>) {
  let g = decayed_grad(grad, (*e).p, scalar(0u));
  (*e).a = (*e).a * scalar(1u) + g * scalar(2u) * g;
  var avg: vec4<f32>;
  if (HAS_B) {
    (*e).b = lerp2((*e).b, g, scalar(2u));
    avg = sqrt((*e).b * -1.0 * (*e).b + (*e).a);
  } else {
    avg = sqrt((*e).a);
  }
  avg = avg + scalar(3u);
  if (HAS_C) {
    (*e).c = (*e).c * scalar(4u) + g / avg;
    (*e).p = (*e).p + (*e).c * scalar(5u);
  } else {
    (*e).p = (*e).p + g * scalar(5u) / avg;
  }
}

// rule 3, Adagrad. scalars: wd, eps. a = state_sum. slot: -clr.
fn adagrad(e: ptr<function, Elem>, grad: vec4<f32>, s: vec4<f32>) {
  let g = decayed_grad(grad, (*e).p, scalar(0u));
  (*e).a = (*e).a + g * g;
  let root = sqrt((*e).a) + scalar(1u);
  (*e).p = (*e).p + g * s.x / root;
}

// rule 4, Adadelta. scalars: wd, rho, 1 - rho, eps, -lr. a = square_avg, b = acc_delta.
fn adadelta(e: ptr<function, Elem>, grad: vec4<f32>) {
  let g = decayed_grad(grad, (*e).p, scalar(0u));
  (*e).a = (*e).a * scalar(1u) + g * scalar(2u) * g;
  let root = sqrt((*e).a + scalar(3u));
  let delta = sqrt((*e).b + scalar(3u)) / root * g;
  (*e).b = (*e).b * scalar(1u) + delta * scalar(2u) * delta;
  (*e).p = (*e).p + delta * scalar(4u);
}

// rule 5, Adamax. scalars: wd, 1 - beta1, beta2, eps. a = exp_avg, b = exp_inf. slot: -lr / bias_correction1.
fn adamax(e: ptr<function, Elem>, grad: vec4<f32>, s: vec4<f32>) {
  let g = decayed_grad(grad, (*e).p, scalar(0u));
  (*e).a = lerp2((*e).a, g, scalar(1u));
  let u = (*e).b * scalar(2u);
  let t = abs(g) + scalar(3u);
  (*e).b = select(max(u, t), u + t, is_nan(u) | is_nan(t));  // NaN propagates, as np.maximum
  (*e).p = (*e).p + (*e).a * s.x / (*e).b;
}

// rules 6 and 7 share Adam's moments. scalars: wd, 1 - lr * wd, 1 - beta1, beta2, 1 - beta2, eps.
fn adam_moments(e: ptr<function, Elem>, grad: vec4<f32>) -> vec4<f32> {
  var wd = scalar(0u);
  if (flag(1u)) {
    if (wd != 0.0) {
      (*e).p = (*e).p * scalar(1u);
    }
    wd = 0.0;
  }
  let g = decayed_grad(grad, (*e).p, wd);
  (*e).a = lerp2((*e).a, g, scalar(2u));
  (*e).b = (*e).b * scalar(3u) + g * scalar(4u) * g;
  return g;
}

// rule 6, NAdam. a = exp_avg, b = exp_avg_sq. slot: bias_correction2, -lr (1 - mu) / (1 - mu_product),
// -lr mu_next / (1 - mu_product mu_next).
fn nadam(e: ptr<function, Elem>, grad: vec4<f32>, s: vec4<f32>) {
  let g = adam_moments(e, grad);
  let denom = sqrt((*e).b / s.x) + scalar(5u);
  (*e).p = (*e).p + g * s.y / denom;
  (*e).p = (*e).p + (*e).a * s.z / denom;
}

// rule 7, RAdam. a = exp_avg, b = exp_avg_sq. slot: bias_correction1, lr, sqrt(bias_correction2),
// the rectification factor (0: not tractable, plain momentum step).
fn radam(e: ptr<function, Elem>, grad: vec4<f32>, s: vec4<f32>) {
  adam_moments(e, grad);
  var update = (*e).a / s.x * s.y;
  if (s.w != 0.0) {
    update = update * (s.z / (sqrt((*e).b) + scalar(5u))) * s.w;
  }
  (*e).p = (*e).p - update;
}

fn apply(e: ptr<function, Elem>, grad: vec4<f32>, row: u32) {
  let s = bitcast<vec4<f32>>(P[row + 2u]);
  switch RULE {
    case 0u: { sgd(e, grad, P[row + 1u].w != 0u); }
    case 1u: { adam(e, grad, s); }
    case 2u: { rmsprop(e, grad); }
    case 3u: { adagrad(e, grad, s); }
    case 4u: { adadelta(e, grad); }
    case 5u: { adamax(e, grad, s); }
    case 6u: { nadam(e, grad, s); }
    default: { radam(e, grad, s); }
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let group = wid.x + wid.y * nwg.x;
  if (group >= P[0].y) {
    return;
  }
  var slot = 0u;
  for (var k = 1u; k < P[0].x; k = k + 1u) {
    if (group >= P[3u + 3u * k].x) {
      slot = k;
    }
  }
  let row = 3u + 3u * slot;
  let i = ((group - P[row].x) * WG + lid) * select(1u, 4u, VEC);  // the slot's first element here
  let n = P[row].y;
  if (i >= n) {
    return;
  }
  let lanes = vec4<u32>(i) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n);  // VEC: elements inside the slot
  let ip = P[row].z + i;
  let ig = P[row].w + i;
  let ia = P[row + 1u].x + i;
  let ib = P[row + 1u].y + i;
  let ic = P[row + 1u].z + i;
  var e = Elem(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
  // >>> slot body
  if (slot == 0u) {
    e.p = take(param_s0[ip >> 2u], ip);
    e.a = take(a_s0[ia >> 2u], ia);  // when HAS_A
    e.b = take(b_s0[ib >> 2u], ib);  // when HAS_B
    e.c = take(c_s0[ic >> 2u], ic);  // when HAS_C
    apply(&e, take(grad_s0[ig >> 2u], ig), row);
    if (VEC) {
      param_s0[ip >> 2u] = select(param_s0[ip >> 2u], e.p, lanes);
      a_s0[ia >> 2u] = select(a_s0[ia >> 2u], e.a, lanes);  // when HAS_A
      b_s0[ib >> 2u] = select(b_s0[ib >> 2u], e.b, lanes);  // when HAS_B
      c_s0[ic >> 2u] = select(c_s0[ic >> 2u], e.c, lanes);  // when HAS_C
    } else {
      param_s0[ip >> 2u][ip & 3u] = e.p.x;
      a_s0[ia >> 2u][ia & 3u] = e.a.x;  // when HAS_A
      b_s0[ib >> 2u][ib & 3u] = e.b.x;  // when HAS_B
      c_s0[ic >> 2u][ic & 3u] = e.c.x;  // when HAS_C
    }
  }
  // <<< slot body
}
