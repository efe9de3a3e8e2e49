"""Fused epilogues: elementwise nodes that consume a GEMM's result run inside the GEMM's store.

A template kernel recorded with ``attrs["epilogue"]`` (matmul_tiled, conv_igemm) computes its contiguous
output by calling ``fn epilogue(i: u32, v: f32)`` once per element (flat index i), a function written
between ``// @epilogue-begin`` and ``// @epilogue-end`` in its WGSL. When the output is an intermediate no
tensor holds (``a @ b`` in ``addmm``) read by one elementwise kernel through an identity view (``+ bias``),
that kernel's function tree is generated into the epilogue instead, with the GEMM value as a leaf, and it
stores the elementwise result: one dispatch instead of two, and the intermediate is never allocated. The
chain goes on while the stored result is read next by another elementwise kernel through an identity view
(``relu`` of ``linear``'s output, which autograd keeps, so both are stored): that one joins too.

Moving a chain node from its queue position to the GEMM's is safe when nothing recorded in between writes
what it reads, and it reads earlier chain results only at its own element (the leaf), never through memory
other invocations of the same dispatch write.
"""
import bisect
import re

from ... import _dtype as D
from . import codegen
from ..._geometry import contiguous_strides, numel as _numel

MAX_CHAIN = 4
_REGION = re.compile(r"// @epilogue-begin\n.*?// @epilogue-end\n", re.S)
_UNIFORM = re.compile(r"@binding\((\d+)\) var<uniform> P: array<vec4<(u32|i32)>, (\d+)>;")




def no_writes_between(writers, bufs, i, j):
    """Whether no node strictly between positions i and j writes one of ``bufs`` (``writers``: buffer id ->
    sorted positions of the nodes writing it)."""
    for b in bufs:
        w = writers.get(b)
        if w:
            k = bisect.bisect_right(w, i)
            if k < len(w) and w[k] < j:
                return False
    return True


def _identity(src, shape, numel):
    """src reads a contiguous numel-element result element-for-element over index space ``shape``."""
    return src.offset == 0 and src.strides == contiguous_strides(shape) and _numel(shape) == numel


def _root(nodes, k, parent, numel, src):
    """The dispatched elementwise kernel that computes node k (k itself, or the tree k is inlined into
    through identity views) and the (node, src index) leaves reading the buffer ``src`` (a node's out) writes;
    None when not fusable (a leaf reading it under another dtype: its bytes, not its values)."""
    q = nodes[k]
    buf = src.buf
    leaves = [(q, i) for i, s in enumerate(q.srcs) if s.buf is buf]
    if q.kind != "ew" or not all(_identity(q.srcs[i], q.shape, numel) and q.srcs[i].dtype is src.dtype
                                 for _, i in leaves):
        return None
    while id(q) in parent:
        p, i, pos = parent[id(q)]
        if p.kind != "ew" or not _identity(p.srcs[i], p.shape, numel):
            return None
        q, k = p, pos
    return k, leaves


def plan(nodes, inl, inlined, writers, readers, reads, max_buffers):
    """{position of a GEMM kernel node: [(root position, leaves, store?) ...]} for every GEMM whose result
    feeds a fusable elementwise chain, and the set of chain root positions (dispatched inside the GEMM)."""
    parent = {}
    pos = {id(n): j for j, n in enumerate(nodes)}
    for (pid, k), child in inl.items():
        parent[id(child)] = (nodes[pos[pid]], k, pos[pid])
    chains, absorbed = {}, set()
    for j, n in enumerate(nodes):
        if n.kind != "kernel" or not n.attrs.get("epilogue") or j in inlined:
            continue
        buf, numel = n.out.buf, _numel(n.shape)
        if buf.alive() or writers.get(id(buf)) != [j]:
            continue
        chain, chain_bufs, at, written = [], {id(buf)}, j, n.out
        epi = set()  # ids of the buffers the epilogue binds (the first result takes the template's C slot)
        while len(chain) < MAX_CHAIN:
            r = [p for p in readers.get(id(buf), ()) if p > at]
            if not r or (not chain and set(r) != {r[0]}):
                break
            found = _root(nodes, r[0], parent, numel, written)
            if found is None:
                break
            k, leaves = found
            root = nodes[k]
            if k in inlined or k in absorbed or not root.attrs.get("fresh") or root.out.dtype is not D.float32 \
                    or not _identity(root.out, root.shape, numel) or codegen.reports(root, inl):
                break
            w = writers.get(id(buf), ())
            if any(at < p < k for p in w):  # the previous result changes before this node reads it
                break
            others = reads[k] - chain_bufs
            if not no_writes_between(writers, others, j, k) or _reads_chain_elsewhere(root, inl, chain_bufs, leaves):
                break
            out = root.out.buf
            grown = epi | others | {id(out)}
            if len(n.attrs["buffers"]) + len(grown) - 1 > max_buffers:
                break
            alive = out.alive() or any(p > k for p in readers.get(id(out), ()))
            if not alive:  # a dead result: the planner drops the node; nothing to fuse
                break
            chain.append((k, leaves))
            absorbed.add(k)
            epi = grown
            chain_bufs.add(id(out))
            buf, at, written = out, k, root.out
        if chain:
            chains[j] = chain
    return chains, absorbed


def _reads_chain_elsewhere(root, inl, chain_bufs, leaves):
    """The tree of ``root`` reads an earlier chain result other than through ``leaves``."""
    allowed = {(id(q), i) for q, i in leaves}
    stack = [root]
    while stack:
        q = stack.pop()
        for i, s in enumerate(q.srcs):
            child = inl.get((id(q), i))
            if child is not None:
                stack.append(child)
            elif id(s.buf) in chain_bufs and (id(q), i) not in allowed:
                return True
    return False


class _Source(codegen.KernelSource):
    """Code generation of one epilogue: parameters continue the template's uniform block, buffers bind
    after the template's, the first stored result goes to the template's C, leaves read private vars."""

    def __init__(self, p_rows, p_int, c_buf):
        super().__init__()
        self.p_rows, self.p_int, self.c_buf = p_rows, p_int, c_buf
        self.leaf = {}

    def param(self, value):
        k = len(self.words)
        self.words.append(int(value) & 0xFFFFFFFF)
        e = f"P[{self.p_rows + k // 4}][{k % 4}]"
        return f"bitcast<u32>({e})" if self.p_int else e

    def buffer(self, buf, dt, write=False):
        if buf is self.c_buf:
            return "C"
        return "ep" + super().buffer(buf, dt, write)[1:]

    def operand(self, node, k, addr, inl):
        v = self.leaf.get((id(node), k))
        if v is not None:
            return v, D.float32
        return super().operand(node, k, addr, inl)


def splice(template, n_template_bufs, chain, nodes, inl):
    """(source, extra buffers, extra parameter bytes) of ``template`` with ``chain`` as its epilogue."""
    m = _UNIFORM.search(template)
    if m is None or int(m.group(1)) != n_template_bufs:
        raise ValueError("epilogue template without its uniform P declared after its buffers")
    first = nodes[chain[0][0]].out.buf
    k = _Source(int(m.group(3)), m.group(2) == "i32", first)
    lines = []
    for t, (pos, leaves) in enumerate(chain):
        root = nodes[pos]
        var = f"ev{t}"
        for q, i in leaves:
            k.leaf[(id(q), i)] = var
        lines.append(f"{var} = v;" if t == 0 else f"{var} = y{t - 1};")
        f = k.ew_fn(root, inl)
        lines.append(f"let y{t} = {f}(i);")
        lines.append(codegen.store(k.buffer(root.out.buf, root.out.dtype, write=True), "i", f"y{t}",
                                   root.out.dtype))
    decls = []
    extra = k.buffers()
    for idx, buf, st, write in sorted(k.bind.values(), key=lambda b: b[0]):
        mode = "read_write" if write else "read"
        decls.append(f"@group(0) @binding({n_template_bufs + idx}) var<storage, {mode}> ep{idx}: array<{st}>;")
    decls += [f"var<private> ev{t}: f32;" for t in range(len(chain))]
    body = ("\n".join(decls) + "\n" + codegen.helper_sources(k.helpers) + "\n" + "\n".join(k.fns) +
            "\nfn epilogue(i: u32, v: f32) {\n  " + "\n  ".join(lines) + "\n}\n")
    head = "enable f16;\n" if k.f16 else ""
    rows = int(m.group(3)) + (len(k.words) + 3) // 4
    src = _UNIFORM.sub(f"@binding({n_template_bufs + len(extra)}) var<uniform> P: array<vec4<{m.group(2)}>, "
                       f"{rows}>;", template, count=1)
    src = head + _REGION.sub(lambda _: "// @epilogue-begin\n" + body + "// @epilogue-end\n", src, count=1)
    return src, extra, k.params()
