"""The planner: a pending queue -> fused, generated kernels -> one Schedule (a Batch, not yet submitted).

``Planner.plan`` is pure in the sense of the flush: it reads the queue, generates and compiles kernels and
allocates the buffers they bind, and returns what to run; it submits nothing and arms nothing (the Recorder's
sink does both). The plan cache (plan_cache.py) calls it on a queue it has not seen.

Fusion rule: an elementwise node A is inlined into the node B that reads its output when
  * A created its output storage (whole, contiguous) and no tensor references that storage any more,
    B is the only reader of it in the queue and nothing else writes it -- or A wrote a contiguous view at
    offset 0 in place, the next write of that buffer is elementwise over exactly the same elements, and B
    is the only reader in between, reading once (``x.mul_(2).add_(1)``: one kernel, A's write skipped),
  * nothing recorded between A and B writes a buffer that A (with what is inlined into A) reads,
  * B's kernel would not read the buffer it writes except element-for-element in place
    (``x.add_(1)`` fuses; ``x[1:] += x[:-1]`` keeps its temporary), and
  * the fused kernel stays within maxStorageBuffersPerShaderStage.
B is an elementwise node (the chain becomes one kernel) or a reduction (the producer becomes its load).
Nodes whose output no tensor and no later node can read are dropped -- except a checking kernel (one that binds
the error word, device_checks.py): its check must still report at the next read or synchronize.
"""
import bisect

from ..._geometry import contiguous_strides
from ..._lru import LRU
from ..op_facts import INT_DIVISIONS
from . import codegen, dtypes as T, epilogue
from .runtime import Batch, OutOfMemoryError

GENERATED_MAX = 4096  # generated kernels remembered (with their parameters): a model's distinct fused trees


def args_key(args):
    """Hashable form of an elementwise node's ``args``: constants by type and exact value (0.0 == -0.0 and
    1 == 1.0 == True as dict keys; NaN != NaN)."""
    return tuple((a[0], type(a[1]), a[1].hex() if type(a[1]) is float else a[1]) if type(a) is tuple else a
                 for a in args)


class Schedule:
    """What a flush runs: ``batch`` (runtime.Batch), ``keep`` (the Buffers each dispatch binds: they must outlive
    the submit), ``origin`` (per dispatch, the position of the template-kernel node it runs, else -1; None for a
    schedule bound from a plan), ``arms`` (a dispatch binds the error word) and ``error`` (an OutOfMemoryError met
    at op ``error``'s position: ``batch`` holds the ops before it, which run; the sink raises it after)."""
    __slots__ = ("batch", "keep", "origin", "arms", "error")

    def __init__(self, batch, keep, origin, arms, error=None):
        self.batch = batch
        self.keep = keep
        self.origin = origin
        self.arms = arms
        self.error = error


class Planner:
    """Plans queues for one device: ``word`` is the error word's Buffer (device_checks.py), bound by checking
    kernels; ``stats`` counts fused and dropped nodes, compiled kernels and code-generation misses."""

    def __init__(self, runtime, stats, word, limits, features):
        self.rt = runtime
        self.stats = stats
        self.word = word
        self.pipelines = {}  # WGSL source -> pipeline id (a device's kernels: held for its life)
        # signature of a fused tree -> (source, binding slots, params, groups)
        self.limits = limits
        self.features = features  # dtypes.Features: the adapter's, or as a test forced them
        self.generated = limits.register_cache(LRU(GENERATED_MAX))
        # one binding kept free for the error word of a checking kernel
        self.max_buffers = runtime.limits.get("maxStorageBuffersPerShaderStage", 8) - 1

    def _generated(self, n, inl, generate):
        """``generate(n, inl, limits)`` -- (source, buffers, params, groups) -- served from a cache keyed by the fused
        tree's signature, so a training loop repeating the same steps generates no code after its first step."""
        bufs = []
        key = _signature(n, inl, bufs, {})
        hit = self.generated.get(key)
        if hit is None:
            src, kbufs, params, groups = generate(n, inl, self.limits)
            slot = {id(b): i for i, b in enumerate(bufs)}  # -1: the error word, bound by every checking kernel
            hit = self.generated.put(key, (src, tuple(slot.get(id(b), -1) for b in kbufs), params, groups))
            self.stats.codegen_misses += 1
        src, slots, params, groups = hit
        return src, [bufs[i] if i >= 0 else self.word for i in slots], params, groups

    def reduce_kernel(self, n, inl, limits):
        """codegen.reduce_kernel in this device's variant (subgroup operations when its features have them)."""
        return codegen.reduce_kernel(n, inl, limits, self.features.subgroups)

    def pipeline(self, name, source):
        p = self.pipelines.get(source)
        if p is None:
            p = self.pipelines[source] = self.rt.compile(name, source)
            self.stats.kernels_compiled += 1
        return p

    def plan(self, nodes):
        """The Schedule of the queue ``nodes``: fused, generated, every bound buffer allocated, not submitted."""
        writers = {}  # id(buf) -> sorted positions of nodes writing it
        readers = {}  # id(buf) -> positions of nodes reading it
        for j, n in enumerate(nodes):
            writers.setdefault(id(n.out.buf), []).append(j)
            for w in n.attrs.get("writes", ()):  # a "kernel" node writing buffers besides its out
                writers.setdefault(id(w), []).append(j)
            for s in n.srcs:
                readers.setdefault(id(s.buf), []).append(j)
        inl = {}  # (id(consumer), src index) -> inlined producer node
        inlined = set()  # positions of nodes inlined into a consumer
        reads = {}  # position -> set of id(buf) the node reads (with its inlined producers)
        bufsets = {}  # position -> set of id(buf) bound by the node's kernel (with inlined producers)
        types = {}  # position -> {id(buf): its WGSL storage type} in the node's kernel (with inlined producers)
        for j, n in enumerate(nodes):
            bs = set(id(s.buf) for s in n.srcs) | {id(n.out.buf)}
            ts = types[j] = _storage_types(n)
            children = {}
            if n.kind in ("ew", "reduce", "argreduce"):
                for k, s in enumerate(n.srcs):
                    i = self._producer(nodes, j, s, writers, readers)
                    if i is None or not epilogue.no_writes_between(writers, reads[i], i, j):
                        continue
                    if any(ts.get(b, t) != t for b, t in types[i].items()):
                        continue  # a kernel binds a buffer under one type: not one read through a view(dtype) too
                    merged = (bs - {id(s.buf)}) | bufsets[i]
                    if len(merged) > self.max_buffers:
                        continue
                    if n.kind == "ew" and id(n.out.buf) in reads[i] and not _safe_self_read(
                            n, k, nodes[i], inl, n.out):
                        continue
                    inl[(id(n), k)] = nodes[i]
                    ts.update(types[i])
                    inlined.add(i)
                    children[k] = i
                    bs = merged
            rd = set()
            for k, s in enumerate(n.srcs):
                rd |= reads[children[k]] if k in children else {id(s.buf)}
            reads[j] = rd
            bufsets[j] = bs
        chains, absorbed = epilogue.plan(nodes, inl, inlined, writers, readers, reads, self.max_buffers)
        batch = Batch()
        keep = []  # Buffers must outlive the submit of the batch that uses them
        origin = []
        arms = False
        word = self.word
        for j, n in enumerate(nodes):
            if j in inlined or j in absorbed:
                self.stats.nodes_fused += 1
                continue
            if self._dead(n, j, readers) and not _checks(n, inl, word):
                self.stats.nodes_dropped += 1
                continue
            if n.kind == "ew":
                name = f"fused_{n.attrs['op']}"
                src, bufs, params, groups = self._generated(n, inl, codegen.elementwise_kernel)
            elif n.kind in ("reduce", "argreduce"):
                name = f"reduce_{n.attrs['op']}"
                src, bufs, params, groups = self._generated(n, inl, self.reduce_kernel)
            else:  # "kernel": a template kernel with ready parameters
                name, src, params, groups = n.attrs["name"], n.attrs["source"], n.attrs["params"], n.attrs["groups"]
                bufs = n.attrs["buffers"]
                if j in chains:
                    src, bufs, params = self._with_epilogue(n, chains[j], nodes, inl)
            if groups[0] == 0 or groups[1] == 0 or groups[2] == 0:
                continue
            if word in bufs:
                arms = True
            try:
                ids = [b.ensure() for b in bufs]
            except OutOfMemoryError as e:  # what was recorded before this op runs; this op and the rest do not
                err = OutOfMemoryError(f"{e} -- needed by {name}, op {j + 1} of the {len(nodes)} this flush ran; "
                                       "it and the ops recorded after it did not run")
                return Schedule(batch, keep, origin, arms, err)
            keep.append(bufs)
            origin.append(j if n.kind == "kernel" else -1)
            batch.add(self.pipeline(name, src), ids, params, groups)
        return Schedule(batch, keep, origin, arms)

    def _with_epilogue(self, n, chain, nodes, inl):
        """(source, buffers, params) of template kernel n with the elementwise ``chain`` fused into its store
        (epilogue.py), the generated source cached per structure like fused elementwise kernels."""
        bufs = []
        index = {}
        for b in n.attrs["buffers"]:
            _signature_buf(b, bufs, index)
        key = ("epilogue", n.attrs["source"], tuple(_signature(nodes[k], inl, bufs, index) for k, _ in chain),
               tuple(tuple((i, _signature_buf(q.srcs[i].buf, bufs, index)) for q, i in leaves)
                     for _, leaves in chain))
        hit = self.generated.get(key)
        if hit is None:
            src, extra, params = epilogue.splice(n.attrs["source"], len(n.attrs["buffers"]), chain, nodes, inl)
            slot = {id(b): i for i, b in enumerate(bufs)}
            hit = self.generated.put(key, (src, tuple(slot[id(b)] for b in extra), params))
            self.stats.codegen_misses += 1
        src, slots, params = hit
        first = nodes[chain[0][0]].out.buf
        tb = [first if b is n.out.buf else b for b in n.attrs["buffers"]]
        return src, tb + [bufs[i] for i in slots], n.attrs["params"] + params

    @staticmethod
    def _producer(nodes, j, s, writers, readers):
        """Position of the elementwise node whose output src ``s`` of node ``j`` may inline, or None (never one
        that wrote the buffer under another dtype: s reads its bytes through a view(dtype), not its values)."""
        buf = s.buf
        w = writers.get(id(buf))
        if not w or w[0] >= j:
            return None
        if len(w) == 1 and not buf.alive() and len(readers[id(buf)]) == 1:
            p = nodes[w[0]]
            return w[0] if p.kind == "ew" and p.attrs.get("fresh") and p.out.dtype is s.dtype else None
        i = _inplace_producer(nodes, j, s, w, readers[id(buf)])
        return None if i is None or nodes[i].out.dtype is not s.dtype else i

    @staticmethod
    def _dead(n, j, readers):
        """True when nothing can ever read what node n writes (no tensor, no later node)."""
        for buf in (n.out.buf, *n.attrs.get("writes", ())):
            if buf.alive():
                return False
            r = readers.get(id(buf))
            if r and r[-1] > j:
                return False
        return True


def _checks(n, inl, word):
    """True when node n's kernel (with the producers inlined into it) reports into the error word: kept even when
    its result is dead, so what it finds is still raised at the next read or synchronize."""
    if n.kind == "kernel":
        return word in n.attrs["buffers"]
    a = n.attrs
    if n.kind == "ew" and (a["op"] == "index_check" or a["op"] in INT_DIVISIONS and not a["cdt"].is_floating_point):
        return True
    for k in range(len(n.srcs)):
        child = inl.get((id(n), k))
        if child is not None and _checks(child, inl, word):
            return True
    return False


def _signature_buf(b, bufs, index):
    """Number of buffer b in order of first appearance (appended to ``bufs`` when new)."""
    i = index.get(id(b))
    if i is None:
        i = index[id(b)] = len(bufs)
        bufs.append(b)
    return i


def _signature(n, inl, bufs, index):
    """Hashable description of everything code generation reads from node n and the producers inlined into
    it: attributes, geometry, dtypes, and which operands share a buffer (buffers are numbered in order of
    first appearance and collected into ``bufs``)."""
    def buf_no(b):
        return _signature_buf(b, bufs, index)

    parts = [n.kind, n.shape, buf_no(n.out.buf), n.out.strides, n.out.offset, n.out.dtype]
    for k, v in n.attrs.items():
        if k == "args":
            parts.append(args_key(v))
        elif k != "fresh":
            parts.append((k, tuple(v) if type(v) is list else v))
    for k, s in enumerate(n.srcs):
        child = inl.get((id(n), k))
        if child is not None:
            # how n views the producer's output (permuted, broadcast, sliced) decides the addresses at which
            # the producer's function is called, so it belongs to the key as much as the producer does
            parts.append((s.strides, s.offset, _signature(child, inl, bufs, index)))
        else:
            parts.append((buf_no(s.buf), s.strides, s.offset, s.dtype))
    return tuple(parts)


def _storage_types(n):
    """{id(buf): WGSL storage type} of the buffers node n reads and writes."""
    ts = {id(s.buf): T.storage_type(s.dtype) for s in n.srcs}
    ts.setdefault(id(n.out.buf), T.storage_type(n.out.dtype))
    return ts


def _inplace_producer(nodes, j, s, w, r):
    """Position of the elementwise node that wrote (in place) what src ``s`` of node j reads, when j may
    compute it inline and the write itself can be skipped, or None: ``x.mul_(2).add_(1)`` becomes one kernel.
    ``w``/``r``: positions writing/reading the buffer. The next write of the buffer after the producer's is an
    elementwise node overwriting exactly the same elements (a contiguous view at offset 0, as the producer's,
    whose function is indexed by its flat output index), and j alone reads the buffer, once, in between."""
    i = w[bisect.bisect_left(w, j) - 1]  # the last write before j
    p = nodes[i]
    after = bisect.bisect_right(w, i)
    if p.kind != "ew" or after == len(w):
        return None
    m = w[after]  # the write that makes the producer's own one unobservable
    q = nodes[m]
    if q.kind != "ew" or q.shape != p.shape:
        return None
    cs = contiguous_strides(p.shape)
    for g in (p.out, q.out):
        if g.offset or g.strides != cs:
            return None
    if r[bisect.bisect_right(r, i):bisect.bisect_right(r, m)] != [j]:
        return None
    return i


def _safe_self_read(node, k, child, inl, out):
    """True when inlining ``child`` as operand k of ``node`` reads node's output buffer only at the very
    element each invocation writes (identity views all the way down)."""
    s = node.srcs[k]
    if s.offset != 0 or s.strides != contiguous_strides(node.shape) or child.shape != node.shape:
        return False
    for kk, cs in enumerate(child.srcs):
        grand = inl.get((id(child), kk))
        if grand is not None:
            if not _safe_self_read(child, kk, grand, inl, out):
                return False
        elif cs.buf is out.buf and (cs.dtype is not out.dtype or cs.strides != out.strides or cs.offset != out.offset):
            return False
    return True
