"""Randomized differential test of the webgpu device against the cpu device.

Each case records one random pending queue -- elementwise ops with broadcasting, views (transpose, permute,
slicing, expand, unsqueeze), matmul, reductions, softmax / layer_norm and in-place ops, also through
views -- runs it on both devices with the same inputs and reads nothing back until the end, so the whole
graph is one flush: fusion, dropping of dead nodes, buffer reuse and the generated-kernel cache all get
exercised together (cases share one process, so a kernel cached by one case is looked up by the next).
Intermediate tensors are dropped at random so that their producers can be fused away. Some cases also
run backward through the graph and compare the gradients.

A failure prints the seed and the program that failed, one line per op.
"""
import numpy as np
import pytest

import webtorch

F = webtorch.nn.functional
STEPS = 14  # ops per graph
CASES = 60  # graphs per test run (in batches, so a failure names a small range of seeds)
BATCH = 10


class Program:
    """Random ops applied to pairs (cpu tensor, webgpu tensor); ``trace`` says what was done."""

    def __init__(self, seed, grad, twin=False):
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.grad = grad
        self.twin = twin  # the same program with other views of the same shapes (see _twin_perm)
        self.n_common = int(self.rng.integers(2, 5))  # most dims share one size: transposes keep shapes,
        # so trees of equal structure but different views meet in the generated-kernel cache
        self.pool = []  # [(name, cpu tensor, webgpu tensor)]
        self.leaves = []
        self.reshaped = set()  # cpu storages that a reshape read or made (see op_view)
        self.trace = []
        self.n = 0

    # ---- helpers ---------------------------------------------------------------------------------
    def leaf(self, shape):
        a = self.rng.uniform(-2, 2, size=shape).astype(np.float32)
        name = f"x{self.n}"
        self.n += 1
        c = webtorch.tensor(a, requires_grad=self.grad)
        g = webtorch.tensor(a, device="webgpu", requires_grad=self.grad)
        self.leaves.append((name, c, g))
        self.trace.append(f"{name} = leaf{tuple(shape)}")
        return name, c, g

    def push(self, text, fn, *args, keep=True):
        """Apply fn(*tensors) on each device (args: (name, cpu, webgpu) entries); the result joins the pool
        unless ``keep`` is False (a temporary that dies as soon as its consumers are recorded)."""
        name = f"t{self.n}"
        self.n += 1
        self.trace.append(f"{name} = " + text.format(*[a[0] for a in args]))
        out = (name, fn(*[a[1] for a in args]), fn(*[a[2] for a in args]))
        if keep:
            self.pool.append(out)
        return out

    def inplace(self, text, fn, dst, *args):
        self.trace.append(text.format(dst[0], *[a[0] for a in args]))
        fn(dst[1], *[a[1] for a in args])
        fn(dst[2], *[a[2] for a in args])

    def pick(self):
        return self.pool[self.rng.integers(len(self.pool))]

    def operand(self):
        """A pool tensor, or (half the time) a temporary computed from one and seen through a view, which the
        planner inlines into the op reading it."""
        t = self.pick()
        if self.rng.random() < 0.5:
            return t
        c = self.const()
        t = self.push(f"({{}} * {c}).tanh()", lambda x: (x * c).tanh(), t, keep=False)
        return self.op_view(t, keep=False)

    def const(self):
        """A scalar from a small set: constants are part of a kernel's cache key, and equal keys must meet."""
        return (0.5, -1.5, 2.0)[self.rng.integers(3)]

    def dim(self, t):
        return int(self.rng.integers(t[1].dim()))

    def size(self):
        return self.n_common if self.rng.random() < 0.8 else int(self.rng.integers(1, 5))

    def partner(self, t):
        """An operand broadcastable against t: a pool tensor of the same shape, or a new leaf of t's shape
        with some dims set to 1 (or only its trailing dims)."""
        shape = tuple(t[1].shape)
        same = [p for p in self.pool if tuple(p[1].shape) == shape and p is not t]
        if same and self.rng.random() < 0.5:
            return same[self.rng.integers(len(same))]
        if self.rng.random() < 0.3 and shape:
            shape = shape[self.rng.integers(len(shape)):]
        shape = tuple(1 if self.rng.random() < 0.3 else s for s in shape)
        return self.leaf(shape)

    # ---- ops -------------------------------------------------------------------------------------
    def op_unary(self):
        name = ["tanh", "sigmoid", "sin", "abs", "relu", "neg"][self.rng.integers(6)]
        self.push(f"{{}}.{name}()", lambda x: getattr(x, name)(), self.operand())

    def op_scalar(self):
        c = self.const()
        kind = self.rng.integers(3)
        if kind == 0:
            self.push(f"{{}} * {c}", lambda x: x * c, self.operand())
        elif kind == 1:
            self.push(f"{c} - {{}}", lambda x: c - x, self.operand())
        else:
            self.push(f"{{}}.clamp({-abs(c)}, {abs(c)})", lambda x: x.clamp(-abs(c), abs(c)), self.operand())

    def op_binary(self):
        a = self.operand()
        b = self.partner(a)
        kind = self.rng.integers(5)
        if self.rng.random() < 0.5:
            a, b = b, a
        if kind == 0:
            self.push("{} + {}", lambda x, y: x + y, a, b)
        elif kind == 1:
            self.push("{} - {}", lambda x, y: x - y, a, b)
        elif kind == 2:
            self.push("{} * {}", lambda x, y: x * y, a, b)
        elif kind == 3:
            self.push("maximum({}, {})", webtorch.maximum, a, b)
        else:
            self.push("where({0} > 0, {0}, {1})", lambda x, y: webtorch.where(x > 0, x, y), a, b)

    def op_view(self, t=None, keep=True):
        t = self.pick() if t is None else t
        nd = t[1].dim()
        kind = self.rng.integers(5)
        if kind in (0, 1) and nd >= 2:
            if kind == 0:
                perm = list(range(nd))
                d0, d1 = (int(d) for d in self.rng.choice(nd, 2, replace=False))
                perm[d0], perm[d1] = d1, d0
            else:
                perm = [int(d) for d in self.rng.permutation(nd)]
            if self.twin:
                perm = _twin_perm(t[1].shape, perm)
            perm = tuple(perm)
            return self.push(f"{{}}.permute{perm}", lambda x: x.permute(*perm), t, keep=keep)
        if kind == 2 and nd >= 1:
            d = self.dim(t)
            n = t[1].shape[d]
            start = int(self.rng.integers(n))
            stop = int(self.rng.integers(start + 1, n + 1))
            step = int(self.rng.integers(1, 3))
            if self.twin:
                start, stop = _twin_slice(n, start, stop, step)
            key = (slice(None),) * d + (slice(start, stop, step),)
            return self.push(f"{{}}[{':, ' * d}{start}:{stop}:{step}]", lambda x: x[key], t, keep=keep)
        if kind == 3 and nd < 4:
            d = int(self.rng.integers(nd + 1))
            k = self.size()
            shape = list(t[1].shape)
            shape.insert(d, k)
            return self.push(f"{{}}.unsqueeze({d}).expand{tuple(shape)}", lambda x: x.unsqueeze(d).expand(*shape), t,
                             keep=keep)
        if nd >= 1 and 1 in t[1].shape:
            shape = tuple(self.size() if s == 1 else s for s in t[1].shape)
            return self.push(f"{{}}.expand{shape}", lambda x: x.expand(*shape), t, keep=keep)
        if keep:
            # a view or a copy depending on the layout the op that made t chose, which may differ between the
            # devices (as between PyTorch builds): writes into either storage are not compared afterwards
            out = self.push("{}.reshape(-1)", lambda x: x.reshape(-1), t)
            self.reshaped.update((_storage(t[1]), _storage(out[1])))
            return out
        return t

    def op_matmul(self):
        a = self.operand()
        if a[1].dim() < 2:
            a = self.push("{}.unsqueeze(0)", lambda x: x.unsqueeze(0), a, keep=False)
        if a[1].dim() > 3:
            m, k = a[1].shape[-2:]
            a = self.push(f"{{}}.reshape(-1, {m}, {k})", lambda x: x.reshape(-1, m, k), a, keep=False)
        k = a[1].shape[-1]
        cands = [p for p in self.pool if p is not a and p[1].dim() == 2 and p[1].shape[0] == k]
        if a[1].dim() == 3:
            cands += [p for p in self.pool if p is not a and tuple(p[1].shape[:2]) == (a[1].shape[0], k)
                      and p[1].dim() == 3]
        b = cands[self.rng.integers(len(cands))] if cands and self.rng.random() < 0.5 else self.leaf((k, self.size()))
        self.push("{} @ {}", lambda x, y: x @ y, a, b)

    def op_reduce(self):
        t = self.operand()
        if t[1].dim() == 0:
            return self.op_unary()
        d = self.dim(t)
        keep = bool(self.rng.random() < 0.5)
        name = ["sum", "mean", "amax"][self.rng.integers(3)]
        self.push(f"{{}}.{name}({d}, keepdim={keep})", lambda x: getattr(x, name)(d, keepdim=keep), t)

    def op_softmax_norm(self):
        t = self.operand()
        if t[1].dim() == 0:
            return self.op_unary()
        kind = self.rng.integers(3)
        d = self.dim(t)
        if kind == 0:
            self.push(f"softmax({{}}, {d})", lambda x: F.softmax(x, d), t)
        elif kind == 1:
            self.push(f"log_softmax({{}}, {d})", lambda x: F.log_softmax(x, d), t)
        else:
            n = tuple(t[1].shape[-1:])
            # rows of equal values (an expanded dim) would normalize rounding noise: add a varied row first
            w, b, r = self.leaf(n), self.leaf(n), self.leaf(n)
            self.push(f"layer_norm({{}} + {{}}, {n}, {{}}, {{}})", lambda x, r, w, b: F.layer_norm(x + r, n, w, b),
                      t, r, w, b)

    def op_inplace(self):
        """In-place op on a tensor, or on a view of it (the write lands in the tensor's storage)."""
        t = self.pick()
        if (any(s == 0 and n > 1 for s, n in zip(t[1].stride(), t[1].shape)) or t in self.leaves
                or _storage(t[1]) in self.reshaped):
            t = self.push("{}.clone()", lambda x: x.clone(), t)
        nd = t[1].dim()
        view, vtext = (lambda x: x), ""
        r = self.rng.random()
        if nd >= 2 and r < 0.3:
            view, vtext = (lambda x: x.transpose(0, 1)), ".transpose(0, 1)"
        elif nd >= 1 and r < 0.6 and t[1].shape[0] > 1:
            view, vtext = (lambda x: x[1:]), "[1:]"
        kind = self.rng.integers(4)
        c = self.const()
        if kind == 0:
            self.inplace(f"{{}}{vtext}.mul_({c})", lambda x: view(x).mul_(c), t)
        elif kind == 1:
            src = self.leaf(tuple(view(t[1]).shape[1:]))
            self.inplace(f"{{}}{vtext}.add_({{}})", lambda x, y: view(x).add_(y), t, src)
        elif kind == 2:
            self.inplace(f"{{}}{vtext}.clamp_(-1, 1)", lambda x: view(x).clamp_(-1, 1), t)
        elif nd >= 1 and t[1].shape[0] > 1:
            # the operand is computed from the elements being overwritten (read before the write, in PyTorch
            # as here): a kernel fusing the two must not read what it has already written
            self.inplace(f"{{0}}[1:].add_({{0}}[:-1] * {c})", lambda x: x[1:].add_(x[:-1] * c), t)
        else:
            self.inplace("{}.sub_(0.5)", lambda x: x.sub_(0.5), t)

    def drop(self):
        """Forget a pool tensor so its storage can die and its producer be fused away."""
        if len(self.pool) > 2:
            i = int(self.rng.integers(len(self.pool)))
            self.trace.append(f"del {self.pool[i][0]}")
            del self.pool[i]

    def build(self):
        for _ in range(2):
            self.pool.append(self.leaf(tuple(self.size() for _ in range(self.rng.integers(1, 4)))))
        ops = [self.op_unary, self.op_scalar, self.op_binary, self.op_binary, self.op_view, self.op_view,
               self.op_matmul, self.op_reduce, self.op_softmax_norm]
        if not self.grad:  # in-place ops on tensors saved for backward would (rightly) raise on both devices
            ops += [self.op_inplace, self.op_inplace]
        for _ in range(STEPS):
            ops[self.rng.integers(len(ops))]()
            if self.rng.random() < 0.4:
                self.drop()


def _storage(t):
    return t._be.storage_ptr(t._data)


def _twin_perm(shape, perm):
    """Another permutation giving the same shape as ``perm`` (two equal-sized dims swapped), or perm itself.
    A program and its twin record trees of equal structure that read their operands through different
    strides and offsets, so a generated-kernel cache that keys on too little serves one the other's kernel."""
    for i in range(len(perm)):
        for j in range(i + 1, len(perm)):
            if shape[perm[i]] == shape[perm[j]]:
                perm = list(perm)
                perm[i], perm[j] = perm[j], perm[i]
                return perm
    return perm


def _twin_slice(n, start, stop, step):
    """(start, stop) of the mirror image of slice(start, stop, step) in a dim of n: same length, other offset."""
    last = start + (stop - start - 1) // step * step
    return n - 1 - last, n - 1 - last + (last - start) + 1


def _close(ref, got, what, prog, tol=2e-4):
    what = f"seed {prog.seed}{' (twin)' if prog.twin else ''}: {what}"
    ref, got = ref.detach().numpy(), got.detach().cpu().numpy()
    assert ref.shape == got.shape, f"{what}: shape {got.shape} != {ref.shape}\n" + "\n".join(prog.trace)
    scale = 1.0 + (float(np.abs(ref).max()) if ref.size else 0.0)
    err = float(np.abs(ref - got).max()) if ref.size else 0.0
    assert err <= tol * scale, f"{what}: max abs diff {err}\n" + "\n".join(prog.trace)


def _run(seed, grad, twin=False):
    webtorch.webgpu.synchronize()  # only the graph under test is pending below: forward (and backward) is one flush
    prog = Program(seed, grad, twin)
    prog.build()
    outs = list(prog.pool)
    if grad:
        loss_c = sum((o[1] * (i + 1)).sum() for i, o in enumerate(outs))
        loss_g = sum((o[2] * (i + 1)).sum() for i, o in enumerate(outs))
        loss_c.backward()
        loss_g.backward()
    for name, c, g in outs:  # the first read flushes the whole graph
        _close(c, g, name, prog)
    if grad:
        for name, c, g in prog.leaves:
            assert (c.grad is None) == (g.grad is None), name
            if c.grad is not None:
                # looser: backward of a normalization over 2-4 elements cancels large terms
                _close(c.grad, g.grad, f"{name}.grad", prog, tol=1e-3)


@pytest.mark.parametrize("first", range(0, CASES, BATCH))
def test_random_lazy_graphs_match_cpu(first):
    for seed in range(first, first + BATCH):
        _run(seed, grad=False)
        _run(seed, grad=False, twin=True)


@pytest.mark.parametrize("first", range(0, CASES // 2, BATCH))
def test_random_lazy_graphs_backward_match_cpu(first):
    for seed in range(1000 + first, 1000 + first + BATCH):
        _run(seed, grad=True)
        _run(seed, grad=True, twin=True)
