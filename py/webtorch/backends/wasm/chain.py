"""Fused elementwise chains on the wasm backend: the ``elementwise`` primitive records, the others materialise.

An elementwise op on C-contiguous operands of one shape and of its compute dtype (float32, float64, int64;
Python numbers beside them) of at least ``MIN_BYTES`` does not run: its result is allocated and the op is
recorded into the backend's pending chain. Every other primitive (WasmBackend.bind), an op that does not qualify, and
a chain that is full or changes element count or dtype, first runs the chain: one ``ew_chain_<ct>`` kernel
(wasm-kernels/generate.py, from the op table of the per-op kernels) evaluates it block by block, writing only the
results still held outside the chain. Nothing reads the bytes of a pending result but a primitive, so the fused run
is not observable -- except in time: its results are bit-identical to the per-op kernels' (same C expressions and
SIMD forms on the same elements, each op rounding to its dtype). No recorded op can fail (integer divisions, which
raise on a zero divisor, run per op), so every error is raised by the call that caused it.

``WEBTORCH_WASM_FUSION=0`` (or ``Chain.set_enabled(False)``) runs every op per op (tests and benchmarks compare);
``WEBTORCH_WASM_FUSION=always`` records whatever the size (the op suites run so, every boundary exercised).
"""
import os
import struct
import sys
import weakref

from ... import _dtype as D
from ..op_facts import CHAIN_OPS, INT_DIVISIONS
from .context import pack_value
from .elementwise import elementwise as per_op
from .views import View

BLOCK = 512  # elements per op and pass (a multiple of 4: the SIMD forms cover the per-op kernels' elements)
REGISTERS = 16  # scratch blocks of the chain kernel: numbers and the results nothing outside the chain holds
MAX_NUMBERS = 8  # the rest of the registers stay free for intermediate results
MAX_OPS = 64
# a chain pays where its values no longer fit in the core's caches: fused, each op reads and writes a block in
# cache; per op, a whole tensor goes through memory (bench/bench_wasm_fusion.py: per-op time / fused time of 9- and
# 6-op float32 chains, 0.6-0.8 at 16K-64K elements -- recording and the run cost more Python than the kernels save
# in cache -- 1.0 at 128K, 1.0-1.4 at 256K, 1.4 at 1M)
MIN_BYTES = 1 << 20
SLOT_MEMORY, SLOT_REGISTER, SLOT_NUMBER = 0, 1, 2
CHAIN_TYPES = ("float32", "float64", "int64")  # (int32 chains are rare on "cpu": every kernel ships)

_NUMBERS = frozenset((float, int, bool))


def _refcounts(objs):
    return [sys.getrefcount(o) for o in objs]


# the count of an object only a list refers to (the interpreter's own references vary by version: measured)
_UNHELD = _refcounts([object()])[0]
_HEAD = 4  # the program's header words: numbers, slots, ops, padding (the numbers' bytes follow, 8-byte aligned)


class Chain:
    """The pending ops of one element count and dtype, as values: inputs (Views held until the run), numbers
    (packed bytes) and results (their Storage held until the run)."""

    def __init__(self, ctx):
        self.ctx = ctx
        # (op, dtype) -> opcode, for the ops with a kernel of that dtype (the chain kernel has the same cases); integer
        # divisions run per op (a zero divisor raises)
        self.opcodes = {(op, getattr(D, ct)): i for i, op in enumerate(CHAIN_OPS) for ct in CHAIN_TYPES
                        if ctx.has(f"ew_{op}_{ct}") and (ct.startswith("float") or op not in INT_DIVISIONS)}
        mode = os.environ.get("WEBTORCH_WASM_FUSION", "1")
        self.enabled = mode != "0"
        self.min_bytes = 1 if mode == "always" else MIN_BYTES
        self.exported = {}  # id -> weak reference of the Storages NumPy arrays alias (export)
        self._reset()

    def _reset(self):
        self.ops = []  # (opcode, result, a, b): value indices
        self.n, self.dtype = 0, None
        self.slots = []  # the program's slot words, 3 per value (chain_kernel in wasm-kernels/generate.py)
        self.numbers = b""  # their bytes, 8 per number
        self.held = []  # the input Views, kept alive until the run
        self.stores = []  # the results' Storages (their blocks reserved until the run) ...
        self.outputs = []  # ... and their value indices
        self.inputs, self.constants, self.results = {}, {}, {}  # address / bytes / id(Storage) -> value index

    def set_enabled(self, on):
        self.flush()
        self.enabled = bool(on)

    def record(self, op, args, dtype):
        """The pending result of op (a fresh View), or None when the call does not qualify."""
        for a in args:  # (the size first: most calls are small, and leave here)
            if type(a) is View:
                shape = a.shape
                break
        else:
            return None
        n, strides = self.ctx.layout(shape)
        if n * dtype.itemsize < self.min_bytes:
            return None
        code = self.opcodes.get((op, dtype))
        if code is None:
            return None
        results, exported = self.results, self.exported
        for a in args:
            if type(a) is View:
                if a.st.dtype is not dtype or a.shape != shape or a.strides != strides:
                    return None
                key = id(a.st)
                if (key in results and a.offset) or id(a.st.root) in exported:
                    return None
            elif type(a) not in _NUMBERS:
                return None
        if self.ops and (n != self.n or dtype is not self.dtype or len(self.ops) == MAX_OPS
                         or len(self.constants) + len(args) > MAX_NUMBERS):
            self.flush()
            results = self.results
        self.n, self.dtype = n, dtype
        slots = self.slots
        operands = []
        for a in args:
            if type(a) is View:
                i = results.get(id(a.st))
                if i is None:
                    i = self.inputs.get(a.addr)
                    if i is None:
                        i = self.inputs[a.addr] = len(slots) // 3
                        slots += (SLOT_MEMORY, a.addr, 0)
                        self.held.append(a)
            else:
                key = pack_value(a, dtype)
                i = self.constants.get(key)
                if i is None:
                    i = self.constants[key] = len(slots) // 3
                    k = len(self.constants) - 1
                    slots += (SLOT_NUMBER, REGISTERS - 1 - k, _HEAD + 2 * k)
                    self.numbers += key.ljust(8, b"\0")
            operands.append(i)
        res = self.ctx.new(shape, dtype)
        r = results[id(res.st)] = len(slots) // 3
        slots += (SLOT_MEMORY, res.addr, 0)
        self.stores.append(res.st)
        self.outputs.append(r)
        self.ops.append((code, r, operands[0], operands[-1]))
        return res

    def export(self, st):
        """Mark Storage st as aliased by a NumPy array: written behind the backend's back, never a chain's input
        (under any dtype: its root, the bytes every view(dtype) of it shares, is marked)."""
        st = st.root
        key = id(st)
        self.exported[key] = weakref.ref(st, lambda _: self.exported.pop(key, None))

    def flush(self):
        """Run the pending ops (one kernel call), writing the results something outside the chain holds."""
        if not self.ops:
            return
        ops, slots, stores, outputs = self.ops, self.slots, self.stores, self.outputs
        numbers, n_numbers, n, dtype = self.numbers, len(self.constants), self.n, self.dtype
        self._reset()
        # a result reaches memory when something outside the chain holds its Storage (a View: its Tensor, a view of
        # it); the others live in registers, and run only when a result that reaches memory depends on them
        outside = {r for r, count in zip(outputs, _refcounts(stores)) if count > _UNHELD}
        needed = set(outside)
        kept = []
        for op in reversed(ops):
            if op[1] in needed:
                needed.update(op[2:])
                kept.append(op)
        if not kept:
            return
        kept.reverse()
        free = list(range(REGISTERS - n_numbers))  # (the numbers' registers are the last ones)
        last = {}
        for k, op in enumerate(kept):
            last[op[2]] = last[op[3]] = k
        for k, (_, r, a, b) in enumerate(kept):
            if r not in outside and free:  # (else its own Storage, held until the run, serves)
                slots[3 * r:3 * r + 2] = SLOT_REGISTER, free.pop()
            for v in (a, b) if a != b else (a,):  # a register is free after its last read (not for this op's
                if last[v] == k and slots[3 * v] == SLOT_REGISTER:  # result: in place would not vectorize)
                    free.append(slots[3 * v + 1])
        words = [n_numbers, len(slots) // 3, len(kept), 0]
        words += slots
        for op in kept:
            words += op
        program = struct.pack("<4i", *words[:4]) + numbers + struct.pack(f"<{len(words) - 4}i", *words[4:])
        ctx = self.ctx
        ctx.rt.fn(f"ew_chain_{dtype.name}")(ctx.place(program), n)  # (``stores`` dies after it: the blocks of
        # results that never reached memory are free again)


def elementwise(ctx, op, args, dtype, out=None):
    """The primitive as WasmBackend binds it: recorded into the pending chain when the call qualifies, else run per op
    (elementwise.py) once the chain has run."""
    chain = ctx.chain
    if out is None and chain.enabled:
        for a in args:  # a storage under the threshold holds no operand record takes: most calls leave here
            if type(a) is View:
                if a.st.numel * a.st.dtype.itemsize >= chain.min_bytes:
                    res = chain.record(op, args, dtype)
                    if res is not None:
                        return res
                break
    if chain.ops:
        chain.flush()
    return per_op(ctx, op, args, dtype, out)
