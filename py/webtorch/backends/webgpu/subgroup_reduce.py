"""Subgroup variants of the workgroup reductions (adapters with WebGPU's ``subgroups`` feature).

The row kernels of webgpu-shaders (softmax_*, layernorm_*, batchnorm_*) reduce through helper functions --
``slot`` (which part of which row an invocation works on) and ``row_sum`` / ``row_sum2`` / ``row_maxsum`` (the
reduction over the RT invocations of a row) -- written there as a shared-memory tree, so each file compiles
anywhere. ``specialize`` swaps in the versions below, which reduce inside a subgroup first (butterfly shuffles
for rows shorter than a subgroup, ``subgroupAdd`` / ``subgroupMax`` when a row spans whole subgroups) and meet
across subgroups through shared memory once. ``reduce_tail`` is the same step for the generated reductions of
codegen.py (one output per workgroup).

Slots are numbered by subgroup and by rank inside it (``subgroupExclusiveAdd``), so every row's invocations are
an aligned block of one subgroup or whole subgroups, whatever the order of lanes inside a subgroup. Assumed
(WebGPU leaves it open; every implementation does it for a 1-D workgroup, lavapipe and SwiftShader included):
each subgroup is an aligned block of ``local_invocation_index`` values, all of one size (a power of two in
[4, 128]). Numbering subgroups with a workgroup atomic instead would need no assumption, but SwiftShader returns
the same value to every subgroup's atomicAdd. Control flow around subgroup operations and barriers depends on
constants only, as Tint's uniformity analysis demands; naga rejects the standard ``enable subgroups;``
directive (runtime_native drops it).
"""
import re
from contextlib import contextmanager


ENABLE = "enable subgroups;"
SG_MIN, SG_MAX = 4, 128  # WebGPU's bounds on a subgroup's size

_DECLS = f"""
const SG_MIN: u32 = {SG_MIN}u;
const SG_MAX: u32 = {SG_MAX}u;
var<private> sg_n: u32;  // invocations in a subgroup
var<workgroup> sg_part: array<vec2<f32>, WG>;  // one partial per (row, subgroup)
"""

# Slot q = subgroup number * subgroup size + rank in the subgroup.
_SLOT = """fn slot(lid: u32) -> u32 {
  sg_n = subgroupAdd(1u);
  return (lid / sg_n) * sg_n + subgroupExclusiveAdd(1u);
}
"""

# The w = min(RT, subgroup size) slots of a row inside one subgroup combine first; rows of more than one
# subgroup then meet in sg_part (unneeded when RT <= SG_MIN: a row never leaves its subgroup).
_SUM2 = """fn sg_sum2(q: u32, t: u32, v: vec2<f32>) -> vec2<f32> {
  var s = v;
  if (RT >= SG_MAX) {
    s = subgroupAdd(v);
  } else {
    for (var h = 1u; h < RT; h = h << 1u) {
      let o = subgroupShuffleXor(s, h);
      s = select(s, s + o, h < sg_n);
    }
  }
  if (RT <= SG_MIN) {
    return s;
  }
  let w = min(RT, sg_n);
  if (t % w == 0u) {
    sg_part[q / w] = s;
  }
  workgroupBarrier();
  var r = vec2<f32>(0.0);
  let first = (q - t) / w;
  for (var i = 0u; i < RT / w; i = i + 1u) {
    r = r + sg_part[first + i];
  }
  workgroupBarrier();  // sg_part is reused by the next reduction
  return r;
}
"""

# (max, sum of exp(x - max)) pairs: a whole subgroup takes its max, rescales its sums to it and adds them
_MAXSUM = """fn row_maxsum(q: u32, t: u32, v: vec2<f32>) -> vec2<f32> {
  var s = v;
  if (RT >= SG_MAX) {
    let m = subgroupMax(v.x);
    s = vec2<f32>(m, subgroupAdd(select(v.y * exp(v.x - m), 0.0, v.x == neg_inf())));
  } else {
    for (var h = 1u; h < RT; h = h << 1u) {
      let o = subgroupShuffleXor(s, h);
      s = select(s, merge(s, o), h < sg_n);
    }
  }
  if (RT <= SG_MIN) {
    return s;
  }
  let w = min(RT, sg_n);
  if (t % w == 0u) {
    sg_part[q / w] = s;
  }
  workgroupBarrier();
  var r = vec2<f32>(neg_inf(), 0.0);
  let first = (q - t) / w;
  for (var i = 0u; i < RT / w; i = i + 1u) {
    r = merge(r, sg_part[first + i]);
  }
  workgroupBarrier();
  return r;
}
"""

_REPLACE = {
    "slot": _SLOT,
    "row_sum": "fn row_sum(q: u32, t: u32, v: f32) -> f32 { return sg_sum2(q, t, vec2<f32>(v, 0.0)).x; }\n",
    "row_sum2": "fn row_sum2(q: u32, t: u32, v: vec2<f32>) -> vec2<f32> { return sg_sum2(q, t, v); }\n",
    "row_maxsum": _MAXSUM,
}


def _fn_pattern(name):
    """A module-scope function definition: one line, or up to the first line that is a lone '}'."""
    return re.compile(rf"^fn {name}\((?:[^\n]*\}}[ \t]*\n|.*?^\}}\n)", re.M | re.S)


def specialize(src):
    """Kernel source ``src`` (a row kernel: it defines ``slot``) with its reduction helpers replaced by the
    subgroup versions, their declarations added and the ``enable subgroups;`` directive first."""
    out = src
    for name, text in _REPLACE.items():
        out, n = _fn_pattern(name).subn(lambda m, text=text: text, out)
        if name == "slot" and n != 1:
            raise KeyError("not a row kernel: it defines no 'fn slot(lid: u32) -> u32'")
    return f"{ENABLE}\n{out}\n{_DECLS}\n{_SUM2}"


@contextmanager
def forced(be, on):
    """Run with the subgroup variants on or off, whatever the adapter default (tests cover both paths)."""
    if on and "subgroups" not in be.rt.features:
        raise RuntimeError(f"the WebGPU adapter ({be.rt.description}) has no 'subgroups' feature")
    features = be.recorder.features
    old = features.subgroups
    features.subgroups = bool(on)
    be.planner.generated.clear()  # generated reductions are cached by structure, not by variant
    try:
        yield
    finally:
        features.subgroups = old
        be.planner.generated.clear()


# ---- generated reductions (codegen.reduce_kernel: one output per workgroup of WG invocations) ----------------

def _subgroup_op(op, ct, need):
    """WGSL of ``acc`` reduced over its subgroup for reduction ``op`` in compute type ``ct``."""
    if op in ("sum", "mean"):
        return "subgroupAdd(acc)"
    if op == "prod":
        return "subgroupMul(acc)"
    if op in ("all", "any"):  # 0/1 in u32
        return "subgroupMin(acc)" if op == "all" else "subgroupMax(acc)"
    fn = "subgroupMax" if op == "amax" else "subgroupMin"
    if ct != "f32":
        return f"{fn}(acc)"
    need("wt_isnan")
    need("wt_f32_bits")  # NaN wins, as PyTorch's max/min (subgroupMax leaves NaN undefined)
    return f"select({fn}(acc), wt_f32_bits(0x7fc00000u), subgroupAny(wt_isnan(acc)))"


def reduce_tail(op, ct, wg, combine, result, need):
    """(declarations, body) replacing the shared-memory tree of a generated reduction: ``acc`` is reduced in
    its subgroup, one partial per subgroup goes to ``sh``, invocation 0 combines them and runs ``result``."""
    decls = f"var<workgroup> sh: array<{ct}, {wg}>;\n"
    body = (f"  let sg_n = subgroupAdd(1u);\n"
            f"  let lane = subgroupExclusiveAdd(1u);\n"
            f"  acc = {_subgroup_op(op, ct, need)};\n"
            f"  if (lane == 0u) {{\n    sh[lid / sg_n] = acc;\n  }}\n"
            f"  workgroupBarrier();\n"
            f"  if (lid == 0u) {{\n    acc = sh[0];\n"
            f"    for (var i = 1u; i < {wg}u / sg_n; i = i + 1u) {{\n      acc = {combine('acc', 'sh[i]')};\n    }}\n"
            f"    {result}\n  }}\n")
    return decls, body
