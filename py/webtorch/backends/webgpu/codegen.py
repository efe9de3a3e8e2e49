"""WGSL generation for fused elementwise and reduction kernels.

A fused kernel is a tree of recorded nodes: the root (an elementwise node or a reduction) and the
elementwise producers inlined into it. Each inlined elementwise node becomes one WGSL function
``fn nK(i: u32) -> T`` giving its value at flat index ``i`` of its own (contiguous) output, so a consumer
that reads it through any view (permuted, broadcast, sliced) just calls it at the view's address.

Geometry (sizes, strides, offsets) and scalar constants go into the uniform parameter block ``P``;
only the structure (ops, dtypes, ranks, which strides are 0 or 1) is in the source, so one pipeline
serves every shape with the same structure. Dims that every operand walks contiguously are merged
first (coalescing), so the usual contiguous case is a plain ``off + i``.
"""
import math
import struct

from ... import _dtype as D
from ..._geometry import coalesce  # noqa: F401 (the kernel families import it from here)
from ..op_facts import BOOL_RESULT, INT_DIVISIONS  # an integer division by zero: reported (device_checks.py)
from . import device_checks, dtypes as T, subgroup_reduce, wgsl_int64 as I64
from .runtime import OutOfMemoryError
from .wgsl_ops import expr as op_expr, helper_sources

WG = 256  # invocations per workgroup of generated kernels
CPU_WG = 32  # of reductions on a CPU adapter (one output per invocation): enough workgroups for every core


def reports(node, inl):
    """True when the fused tree of ``node`` reports into the error word (an integer division)."""
    stack = [node]
    while stack:
        q = stack.pop()
        if q.kind == "ew" and (q.attrs["op"] == "index_check" or q.attrs["op"] in INT_DIVISIONS and
                               T.compute_type(q.attrs["cdt"]) in ("i32", "u32", T.I64)):
            return True
        stack.extend(c for c in (inl.get((id(q), k)) for k in range(len(q.srcs))) if c is not None)
    return False


def grid(n_groups, limits):
    """Workgroup counts (x, y, 1) for n_groups 1-D workgroups within maxComputeWorkgroupsPerDimension (the
    kernel's workgroup number is ``wid.x + wid.y * nwg.x``); ``limits``: the device's (limits.py)."""
    w = limits.workgroups()
    if n_groups <= w:
        return (max(n_groups, 1), 1, 1)
    y = -(-n_groups // w)
    if y > w:
        raise OutOfMemoryError(f"a launch of {n_groups} workgroups exceeds {w} x {w}, the adapter's "
                               f"maxComputeWorkgroupsPerDimension squared: split the tensor")
    return (w, y, 1)


class KernelSource:
    """Collects bindings, parameters, helper functions and node functions of one generated kernel."""

    def __init__(self):
        self.words = []
        self.bind = {}  # id(Buffer) -> [binding index, Buffer, storage type, written]
        self.helpers = set()
        self.fns = []
        self.nfn = 0
        self.nvar = 0
        self.f16 = False  # the source uses the f16 type (needs ``enable f16;``)
        self.subgroups = False  # the source uses subgroup operations (needs ``enable subgroups;``)
        self.err = False  # the source reports into the error word (device_checks.py), bound after the buffers

    # ---- parameters and bindings --------------------------------------------------------------------
    def param(self, value):
        k = len(self.words)
        self.words.append(int(value) & 0xFFFFFFFF)
        return f"P[{k // 4}][{k % 4}]"

    def const(self, value, dt):
        """A scalar constant of the compute type of dt (passed as a parameter, not baked into the source)."""
        ct = T.compute_type(dt)
        if ct == "f32":
            return f"bitcast<f32>({self.param(struct.unpack('<I', struct.pack('<f', float(value)))[0])})"
        if ct == "bool":
            return f"({self.param(1 if value else 0)} != 0u)"
        if dt in T.SMALL_INTS:  # a scalar converts to the small type first, as PyTorch's (x == 256 is x == 0 for uint8)
            v = T.wrap_int(math.trunc(value) if math.isfinite(value) else 0, dt)
            return f"bitcast<i32>({self.param(v)})"
        if ct == T.I64:  # as PyTorch's scalar operands: [-2^63, 2^64) wraps to int64, beyond raises
            v = int(value)
            if not T.I64_MIN <= v < 1 << 64:
                raise OverflowError("int too big to convert" if v > 0 else "can't convert negative int to unsigned")
            lo, hi = I64.words(v)
            return f"vec2<u32>({self.param(lo)}, {self.param(hi)})"
        if ct == "i32":
            v = int(value)
            T.check_int_range([v], D.int32)
            return f"bitcast<i32>({self.param(v)})"
        return self.param(int(value))

    def buffer(self, buf, dt, write=False):
        b = self.bind.get(id(buf))
        if b is None:
            b = self.bind[id(buf)] = [len(self.bind), buf, T.storage_type(dt), write]
        elif write:
            b[3] = True
        return f"b{b[0]}"

    def load(self, buf, dt, addr):
        """Value of element ``addr`` of buf, in the compute type of dt."""
        v = f"{self.buffer(buf, dt)}[{addr}]"
        st, ct = T.storage_type(dt), T.compute_type(dt)
        if ct == "bool":
            return f"({v} != 0u)"
        return v if st == ct else f"{ct}({v})"

    def fresh(self, prefix):
        self.nvar += 1
        return f"{prefix}{self.nvar}"

    # ---- index arithmetic -----------------------------------------------------------------------------
    def addresses(self, shape, operands, ivar, lines):
        """Append to ``lines`` the unravelling of flat index ``ivar`` over ``shape``; return one address
        expression per operand (strides, offset)."""
        cs, csts = coalesce(shape, [s for s, _ in operands])
        rank = len(cs)
        idx = [None] * rank
        if rank == 1:
            idx[0] = ivar
        elif rank > 1:
            t = self.fresh("t")
            lines.append(f"var {t} = {ivar};")
            for d in range(rank - 1, 0, -1):
                size = self.param(cs[d])
                lines.append(f"let {t}_{d} = {t} % {size}; {t} = {t} / {size};")
                idx[d] = f"{t}_{d}"
            idx[0] = t
        out = []
        for (_, off), sts in zip(operands, csts):
            terms = [self.param(off)] if off else []
            for d, s in enumerate(sts):
                if s == 1:
                    terms.append(idx[d])
                elif s != 0:
                    terms.append(f"{idx[d]} * {self.param(s)}")
            out.append(" + ".join(terms) if terms else "0u")
        return out

    # ---- node functions ---------------------------------------------------------------------------------
    def operand(self, node, k, addr, inl):
        """(expression, dtype) of operand k of node at address addr (an inlined producer or a buffer)."""
        child = inl.get((id(node), k))
        s = node.srcs[k]
        if child is not None:
            return f"{self.ew_fn(child, inl)}({addr})", child.attrs["dt"]
        return self.load(s.buf, s.dtype, addr), s.dtype

    def ew_fn(self, node, inl):
        """Emit the function computing elementwise ``node`` at a flat index of its output; returns its name."""
        name = f"n{self.nfn}"
        self.nfn += 1
        a = node.attrs
        op, cdt, dt = a["op"], a["cdt"], a["dt"]
        ct = T.compute_type(cdt)
        lines = []
        addrs = self.addresses(node.shape, [(s.strides, s.offset) for s in node.srcs], "i", lines)
        for k in range(len(node.srcs)):
            e, sdt = self.operand(node, k, addrs[k], inl)
            want = "bool" if (op == "where" and k == a["cond"]) else ct
            if want == "i32" and cdt in T.SMALL_INTS and T.compute_type(sdt) == "f32":
                lines.append(f"let f{k} = {e};")
                lines.append(f"let v{k} = {T.float_to_small_int(f'f{k}')};")
            elif op == "index_check" and k == 0 and T.compute_type(sdt) == T.I64:  # never the low word alone
                self.helpers.add("wt_i64_sat_i32")
                lines.append(f"let v{k} = wt_i64_sat_i32({e});")
            else:
                lines.append(f"let v{k} = {convert(e, T.compute_type(sdt), want, self.helpers.add)};")
        args = []
        for x in a["args"]:
            if type(x) is int:
                args.append(f"v{x}")
            elif x is None:
                args.append(None)
            elif x == "iota":  # the flat index (of the whole node when a piece of it starts at "iota0")
                i = f"(i + {self.param(a['iota0'])})" if a.get("iota0") else "i"
                args.append(f"vec2<u32>({i}, 0u)" if ct == T.I64 else f"{ct}({i})")
            else:
                args.append(self.const(x[1], D.bool_ if (op == "where" and not args) else cdt))
        if op in INT_DIVISIONS and ct in ("i32", "u32", T.I64):  # PyTorch raises ZeroDivisionError: report it
            self.err = True
            word = "i64" if ct == T.I64 else ct
            args[1] = f"wt_nonzero_{word}({args[1]}, {device_checks.code(op, device_checks.DIV_ZERO)}u)"
        if op == "index_check":  # (index, lowest, highest, code[, exempt value]): reported and clamped outside
            self.err = True
            if len(args) > 4:  # nll_loss's ignore_index passes unchecked
                e = f"wt_in_range_or({args[0]}, {args[1]}, {args[2]}, {args[4]}, u32({args[3]}))"
            else:
                e = f"wt_in_range({args[0]}, {args[1]}, {args[2]}, u32({args[3]}))"
        else:
            e = op_expr(op, args, ct, self.helpers.add)
            if e is None:
                raise TypeError(f"'{op}' is not supported for {cdt} on device 'webgpu'")
        rct = "bool" if op in BOOL_RESULT else ct
        if cdt in T.SMALL_INTS and rct == "i32":  # wrapped where produced: fused consumers see PyTorch's value
            e = T.wrap_expr(e, cdt)
        if dt in T.SMALL_INTS and dt is not cdt:
            if rct == "f32":
                lines.append(f"let r = {e};")
                e = T.float_to_small_int("r")
            e = T.wrap_expr(convert(e, rct, "i32", self.helpers.add), dt)
        else:
            e = convert(e, rct, T.compute_type(dt), self.helpers.add)
        if dt is D.float16:  # round to half here: a consumer may read this value without a store
            e = f"f32(f16({e}))"
            self.f16 = True
        self.fns.append(f"fn {name}(i: u32) -> {T.compute_type(dt)} {{\n  " + "\n  ".join(lines)
                        + f"\n  return {e};\n}}")
        return name

    # ---- assembling -------------------------------------------------------------------------------------
    def source(self, body, extra_decls=""):
        decls = []
        f16 = self.f16
        for idx, buf, st, write in sorted(self.bind.values(), key=lambda b: b[0]):
            f16 = f16 or st == "f16"
            mode = "read_write" if write else "read"
            decls.append(f"@group(0) @binding({idx}) var<storage, {mode}> b{idx}: array<{st}>;")
        if self.err:
            decls.append(device_checks.declaration(len(self.bind)))
            extra_decls += device_checks.HELPERS
        if self.words:
            n = (len(self.words) + 3) // 4
            decls.append(f"@group(0) @binding({len(self.bind) + self.err}) var<uniform> P: array<vec4<u32>, {n}>;")
        head = ("enable f16;\n" if f16 else "") + (subgroup_reduce.ENABLE + "\n" if self.subgroups else "")
        return (head + "\n".join(decls) + "\n" + extra_decls + helper_sources(self.helpers) + "\n"
                + "\n".join(self.fns) + "\n" + body)

    def buffers(self):
        bufs = [b[1] for b in sorted(self.bind.values(), key=lambda b: b[0])]
        return bufs + [device_checks.word_buffer()] if self.err else bufs

    def params(self):
        w = self.words + [0] * ((-len(self.words)) % 4)
        return struct.pack(f"<{len(w)}I", *w)


def convert(e, src_ct, dst_ct, need):
    """Expression e of compute type src_ct as dst_ct (``need``: asks for a helper of the int64 conversions)."""
    if src_ct == dst_ct:
        return e
    if dst_ct == T.I64:
        return I64.from_ct(e, src_ct, need)
    if src_ct == T.I64:
        return I64.to_ct(e, dst_ct, need)
    if src_ct == "f32" and dst_ct == "i32":  # NaN, +-inf and out of range give INT_MIN, as PyTorch's CPU cast
        return f"select(-2147483647 - 1, i32({e}), abs({e}) < 2147483648.0)"
    return f"{dst_ct}({e})"


def store(buf_name, addr, e, dt):
    ct = T.compute_type(dt)
    if ct == "bool":
        e = f"select(0u, 1u, {e})"
    elif dt is D.float16:
        e = f"f16({e})"
    return f"{buf_name}[{addr}] = {e};"


_MAIN_1D = (f"@compute @workgroup_size({WG})\n"
            "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n"
            f"  let i = gid.x + gid.y * nwg.x * {WG}u;\n"
            "  if (i >= {n}) {{ return; }}\n{body}\n}}\n")


def elementwise_kernel(root, inl, limits):
    """(source, buffers, params, groups) of the fused elementwise kernel rooted at ``root``."""
    k = KernelSource()
    n = 1
    for s in root.shape:
        n *= s
    f = k.ew_fn(root, inl)
    lines = []
    out = root.out
    (addr,) = k.addresses(root.shape, [(out.strides, out.offset)], "i", lines)
    lines.append(store(k.buffer(out.buf, out.dtype, write=True), addr, f"{f}(i)", out.dtype))
    body = _MAIN_1D.format(n=k.param(n), body="  " + "\n  ".join(lines))
    return k.source(body), k.buffers(), k.params(), grid((n + WG - 1) // WG, limits)


# ---- reductions -------------------------------------------------------------------------------------

def _init(op, ct, need):
    if ct == T.I64:
        lo, hi = {"sum": (0, 0), "prod": (1, 0), "amax": I64.MIN_WORDS, "argmax": I64.MIN_WORDS}.get(op, I64.MAX_WORDS)
        return f"vec2<u32>({lo}u, {hi}u)"
    if op in ("sum", "mean"):
        return f"{ct}(0)"
    if op == "prod":
        return f"{ct}(1)"
    if op == "all":
        return "1u"
    if op == "any":
        return "0u"
    lo = op in ("amax", "argmax")
    if ct == "f32":
        need("wt_f32_bits")
        return "wt_f32_bits(0xff800000u)" if lo else "wt_f32_bits(0x7f800000u)"
    if ct == "i32":
        return "i32(-2147483647 - 1)" if lo else "2147483647"
    return "0u" if lo else "0xffffffffu"


def _combine(op, ct, a, b, need):
    if ct == T.I64:
        return I64.expr({"sum": "add", "prod": "mul", "amax": "maximum", "amin": "minimum"}[op], [a, b], need)
    if op in ("sum", "mean"):
        return f"{a} + {b}"
    if op == "prod":
        return f"{a} * {b}"
    if op == "all":
        return f"min({a}, {b})"
    if op == "any":
        return f"max({a}, {b})"
    better = ">" if op == "amax" else "<"
    if ct == "f32":
        need("wt_isnan")
        return f"select({a}, {b}, ({b} {better} {a}) || wt_isnan({b}))"
    return f"{'max' if op == 'amax' else 'min'}({a}, {b})"


def _arg_better(op, ct, v, vi, acc, acci, need):
    """WGSL condition: candidate (v, vi) replaces (acc, acci) (first occurrence wins, NaN is extreme)."""
    if ct == T.I64:
        better = I64.expr("gt" if op == "argmax" else "lt", [v, acc], need)
        return f"({acci} == 0xffffffffu) || {better} || ({I64.expr('eq', [v, acc], need)} && ({vi} < {acci}))"
    cmp = ">" if op == "argmax" else "<"
    c = f"({acci} == 0xffffffffu) || ({v} {cmp} {acc}) || (({v} == {acc}) && ({vi} < {acci}))"
    if ct == "f32":
        need("wt_isnan")
        c += (f" || (wt_isnan({v}) && !wt_isnan({acc})) || (wt_isnan({v}) && wt_isnan({acc}) && "
              f"({vi} < {acci}))")
    return c


def reduce_kernel(node, inl, limits, subgroups):
    """(source, buffers, params, groups) of a reduction (or arg-reduction) with its producer inlined; ``subgroups``:
    the tree's last steps as subgroup operations (subgroup_reduce.py)."""
    k = KernelSource()
    a = node.attrs
    op, dims = a["op"], a["dims"]
    src = node.srcs[0]
    shape = node.shape
    kept = [d for d in range(len(shape)) if d not in dims]
    n_out = 1
    for d in kept:
        n_out *= shape[d]
    r_len = 1
    for d in dims:
        r_len *= shape[d]
    if a["dt"] is D.bool_ and op in ("amax", "amin", "prod"):
        op = "all" if op in ("amin", "prod") else "any"  # the same reductions over bool
    is_arg = op in ("argmax", "argmin")
    in_dt = src.dtype if (inl.get((id(node), 0)) is None) else inl[(id(node), 0)].attrs["dt"]
    if is_arg:
        ct = T.compute_type(in_dt)
    elif op in ("all", "any"):
        ct = "u32"
    else:
        ct = T.compute_type(a["dt"])
    out_dt = a["dt"]
    lines_o, lines_r = [], []
    (base,) = k.addresses(tuple(shape[d] for d in kept), [(tuple(src.strides[d] for d in kept), src.offset)],
                          "o", lines_o)
    (raddr,) = k.addresses(tuple(shape[d] for d in dims), [(tuple(src.strides[d] for d in dims), 0)], "r",
                           lines_r)
    e, sdt = k.operand(node, 0, f"base + {raddr}", inl)
    need = k.helpers.add
    if op in ("all", "any"):
        val = f"select(0u, 1u, {convert(e, T.compute_type(sdt), 'bool', need)})"
    else:
        val = convert(e, T.compute_type(sdt), ct, need)
    chunks = a.get("chunks", 1)  # > 1: this pass writes n_out x chunks partial results
    n_p, r_p = k.param(n_out * chunks), k.param(r_len)
    load = "  ".join(lines_r) + f"\n      let v = {val};"
    if is_arg:
        step = (f"if ({_arg_better(op, ct, 'v', 'r', 'acc', 'acci', need)}) {{ acc = v; acci = r; }}")
        final_e, final_store = None, "vec2<u32>(acci, 0u)" if out_dt is D.int64 else "i32(acci)"
    else:
        step = f"acc = {_combine(op, ct, 'acc', 'v', need)};"
        final_e = f"acc / {ct}({k.param(a.get('denom', r_len))})" if op == "mean" else "acc"
    ob = k.buffer(node.out.buf, out_dt, write=True)
    if is_arg:
        result = f"{ob}[o] = {final_store};"
    else:
        if op in ("all", "any"):
            rv = convert("(acc != 0u)", "bool", T.compute_type(out_dt), need)  # all/any of uint8 give uint8
        elif out_dt in T.SMALL_INTS and op in ("sum", "prod"):  # sum(dtype=torch.uint8) wraps
            rv = T.wrap_expr(final_e, out_dt)
        else:
            rv = final_e
        result = store(ob, "o", rv, out_dt)
    init_i = "  var acci = 0xffffffffu;\n" if is_arg else ""
    # one invocation per output (or chunk of one) when outputs are many, rows short, or the adapter a CPU
    # (``per_thread``: barriers switch coroutines there); else one workgroup per output (or chunk)
    per_thread = a.get("per_thread") or (chunks == 1 and (n_out >= 2048 or r_len <= 64))
    rows = (f"  let o = og / {chunks}u;\n  let r0 = (og % {chunks}u) * {k.param(a['chunk_len'])};\n"
            f"  let r1 = min(r0 + {k.param(a['chunk_len'])}, {r_p});\n" if chunks > 1 else
            f"  let o = og;\n  let r0 = 0u;\n  let r1 = {r_p};\n")
    if per_thread:
        wg = CPU_WG if a.get("per_thread") else WG
        body = (f"@compute @workgroup_size({wg})\n"
                "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {\n"
                f"  let og = gid.x + gid.y * nwg.x * {wg}u;\n"
                f"  if (og >= {n_p}) {{ return; }}\n" + rows + "  " + "\n  ".join(lines_o) +
                f"\n  let base = {base};\n"
                f"  var acc = {_init(op, ct, need)};\n{init_i}"
                f"  for (var r = r0; r < r1; r++) {{\n      {load}\n      {step}\n  }}\n"
                f"  {result.replace('[o]', '[og]')}\n}}\n")
        groups = grid((n_out * chunks + wg - 1) // wg, limits)
        extra = ""
    else:
        if is_arg:
            tree = (f"let v = sh[lid + s]; let r = shi[lid + s]; let acc = sh[lid]; let acci = shi[lid];\n"
                    f"      if ({_arg_better(op, ct, 'v', 'r', 'acc', 'acci', need)}) {{ sh[lid] = v; shi[lid] = r; }}")
            fin = "  let acc = sh[0]; let acci = shi[0];\n"
            save = "sh[lid] = acc; shi[lid] = acci;"
            extra = f"var<workgroup> sh: array<{ct}, {WG}>;\nvar<workgroup> shi: array<u32, {WG}>;\n"
        else:
            tree = f"sh[lid] = {_combine(op, ct, 'sh[lid]', 'sh[lid + s]', need)};"
            fin = "  let acc = sh[0];\n"
            save = "sh[lid] = acc;"
            extra = f"var<workgroup> sh: array<{ct}, {WG}>;\n"
        head = (f"@compute @workgroup_size({WG})\n"
                "fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, "
                "@builtin(local_invocation_index) lid: u32) {\n"
                "  let og = wid.x + wid.y * nwg.x;\n"
                f"  if (og >= {n_p}) {{ return; }}\n" + rows + "  " + "\n  ".join(lines_o) + f"\n  let base = {base};\n"
                f"  var acc = {_init(op, ct, need)};\n{init_i}"
                f"  for (var r = r0 + lid; r < r1; r += {WG}u) {{\n      {load}\n      {step}\n  }}\n")
        # arg-reductions keep the tree (index tie-breaks), and int64 (subgroup operations add 32-bit words)
        if subgroups and not is_arg and ct != T.I64:
            k.subgroups = True
            extra, tail = subgroup_reduce.reduce_tail(op, ct, WG, lambda x, y: _combine(op, ct, x, y, need),
                                                      result.replace("[o]", "[og]"), need)
            body = head + tail + "}\n"
        else:
            body = (head + f"  {save}\n  workgroupBarrier();\n"
                    f"  for (var s = {WG // 2}u; s > 0u; s = s >> 1u) {{\n"
                    f"    if (lid < s) {{\n      {tree}\n    }}\n    workgroupBarrier();\n  }}\n"
                    f"  if (lid == 0u) {{\n{fin}    {result.replace('[o]', '[og]')}\n  }}\n}}\n")
        groups = grid(n_out * chunks, limits)
    return k.source(body, extra), k.buffers(), k.params(), groups
