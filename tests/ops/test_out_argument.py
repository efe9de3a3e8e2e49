"""``out=`` against torch, table-driven: every op that takes out= writes its result into out and returns out
itself (a tuple of the given tensors for values/indices ops), resized as PyTorch resizes it (with its
deprecation warning where PyTorch warns), refuses out dtypes as PyTorch does (type and message), and refuses
autograd through out= (out or an input requiring grad) with PyTorch's message."""
import warnings

import numpy as np
import pytest
import torch

import webtorch
from optest import assert_close

RNG = np.random.default_rng(7)
X = RNG.uniform(-2, 2, size=(3, 4)).astype(np.float32)
Y = RNG.uniform(-2, 2, size=(3, 4)).astype(np.float32)
SQ = (RNG.uniform(-1, 1, size=(3, 3)) + 3 * np.eye(3)).astype(np.float32)
V3 = RNG.uniform(-1, 1, size=(2, 3)).astype(np.float32)
P = RNG.uniform(0.1, 1, size=(2, 5)).astype(np.float32)
SEQ = np.array([-1.0, 0.0, 0.5, 1.5], dtype=np.float32)
IDX = np.array([[0, 3], [1, 1], [2, 0]], dtype=np.int64)
NAN = np.array([[1.0, np.nan, 3.0, 0.5], [2.0, 1.0, np.nan, np.nan]], dtype=np.float32)

class Env:
    """One library on one device: tensors from the arrays above, out tensors made by ``o`` (kept in order)."""

    def __init__(self, m, device):
        self.m, self.d, self.outs = m, device, []

    def t(self, a, requires_grad=False):
        x = self.m.tensor(a) if self.m is torch else self.m.tensor(a, device=self.d)
        return x.requires_grad_(True) if requires_grad else x

    def o(self, dtype="float32", *shape, requires_grad=False):
        """An out tensor; of zero elements unless a shape is given."""
        out = self.m.empty(shape or (0,), dtype=getattr(self.m, dtype), device="cpu" if self.m is torch else self.d)
        if requires_grad:
            out.requires_grad_(True)
        self.outs.append(out)
        return out


def _pair(device):
    return Env(torch, "cpu"), Env(webtorch, device)


# (id, fn(e) -> the op's return value, what is compared: "values" or "shape" (random / uninitialized results))
CASES = [
    # creation: out supplies dtype and device
    ("zeros int64", lambda e: e.m.zeros(2, 3, out=e.o("int64")), "values"),
    ("ones resized silently", lambda e: e.m.ones((2, 3), out=e.o("float32", 5)), "values"),
    ("full", lambda e: e.m.full((2, 2), 7, out=e.o("float32")), "values"),
    ("full bool", lambda e: e.m.full((2, 2), 1, out=e.o("bool")), "values"),
    ("empty", lambda e: e.m.empty(2, 3, out=e.o("int32")), "shape"),
    ("arange float out", lambda e: e.m.arange(5, out=e.o("float32")), "values"),
    ("arange step", lambda e: e.m.arange(1, 2.5, 0.5, out=e.o("float32")), "values"),
    ("linspace int out", lambda e: e.m.linspace(0, 10, 6, out=e.o("int64")), "values"),
    ("logspace", lambda e: e.m.logspace(0, 2, 3, out=e.o("float32")), "values"),
    ("eye int", lambda e: e.m.eye(3, out=e.o("int64")), "values"),
    ("eye n m bool", lambda e: e.m.eye(2, 3, out=e.o("bool")), "values"),
    ("rand", lambda e: e.m.rand(2, 3, out=e.o("float32")), "shape"),
    ("randn", lambda e: e.m.randn(4, out=e.o("float32")), "shape"),
    ("randint float out", lambda e: e.m.randint(0, 5, (2, 3), out=e.o("float32")), "shape"),
    ("randperm", lambda e: e.m.randperm(6, out=e.o("int64")).sort().values, "values"),
    ("normal sized", lambda e: e.m.normal(0.0, 1.0, (2, 3), out=e.o("float32")), "shape"),
    ("normal tensors", lambda e: e.m.normal(e.t(X), 1.0, out=e.o("float32", 3, 4)), "shape"),
    # reductions
    ("sum", lambda e: e.m.sum(e.t(X), 1, out=e.o()), "values"),
    ("sum int out computes in int", lambda e: e.m.sum(e.t(X * 3), 1, out=e.o("int64")), "values"),
    ("sum keepdim", lambda e: e.m.sum(e.t(X), 0, keepdim=True, out=e.o()), "values"),
    ("mean", lambda e: e.m.mean(e.t(X), (0, 1), out=e.o()), "values"),
    ("prod", lambda e: e.m.prod(e.t(X), 1, out=e.o()), "values"),
    ("nansum", lambda e: e.m.nansum(e.t(NAN), 1, out=e.o()), "values"),
    ("var", lambda e: e.m.var(e.t(X), 1, out=e.o()), "values"),
    ("std", lambda e: e.m.std(e.t(X), 0, out=e.o()), "values"),
    ("logsumexp", lambda e: e.m.logsumexp(e.t(X), 1, out=e.o()), "values"),
    ("all", lambda e: e.m.all(e.t(X) > -1, 1, out=e.o("bool")), "values"),
    ("any full", lambda e: e.m.any(e.t(X) > 1, out=e.o("bool")), "values"),
    ("amax", lambda e: e.m.amax(e.t(X), 1, out=e.o()), "values"),
    ("amin", lambda e: e.m.amin(e.t(X), (0, 1), out=e.o()), "values"),
    ("max dim", lambda e: e.m.max(e.t(X), 1, out=(e.o(), e.o("int64"))), "values"),
    ("min dim list out", lambda e: e.m.min(e.t(X), 0, True, out=[e.o(), e.o("int64")]), "values"),
    ("max full", lambda e: e.m.max(e.t(X), out=e.o()), "values"),
    ("max binary", lambda e: e.m.max(e.t(X), e.t(Y), out=e.o()), "values"),
    # sorting and searching
    ("sort", lambda e: e.m.sort(e.t(X), 1, out=(e.o(), e.o("int64"))), "values"),
    ("sort descending", lambda e: e.m.sort(e.t(X), 0, descending=True, out=(e.o(), e.o("int64"))), "values"),
    ("topk", lambda e: e.m.topk(e.t(X), 2, 1, out=(e.o(), e.o("int64"))), "values"),
    ("kthvalue", lambda e: e.m.kthvalue(e.t(X), 2, 1, out=(e.o(), e.o("int64"))), "values"),
    ("median", lambda e: e.m.median(e.t(X), 1, out=(e.o(), e.o("int64"))), "values"),
    ("nanmedian", lambda e: e.m.nanmedian(e.t(NAN), 1, out=(e.o(), e.o("int64"))), "values"),
    ("searchsorted", lambda e: e.m.searchsorted(e.t(SEQ), e.t(X), out=e.o("int64")), "values"),
    ("searchsorted int32", lambda e: e.m.searchsorted(e.t(SEQ), e.t(X), out_int32=True, right=True,
                                                      out=e.o("int32")), "values"),
    ("bucketize", lambda e: e.m.bucketize(e.t(X), e.t(SEQ), out=e.o("int64")), "values"),
    # joining
    ("cat", lambda e: e.m.cat([e.t(X), e.t(Y)], 1, out=e.o()), "values"),
    ("cat mixed dtypes", lambda e: e.m.cat([e.t(X), e.t(IDX)], 1, out=e.o()), "values"),
    ("cat int into float", lambda e: e.m.cat([e.t(IDX), e.t(IDX)], out=e.o()), "values"),
    ("stack", lambda e: e.m.stack([e.t(X), e.t(Y)], 2, out=e.o()), "values"),
    ("hstack", lambda e: e.m.hstack([e.t(X), e.t(Y)], out=e.o()), "values"),
    ("vstack", lambda e: e.m.vstack([e.t(X), e.t(Y)], out=e.o()), "values"),
    ("dstack", lambda e: e.m.dstack([e.t(X), e.t(Y)], out=e.o()), "values"),
    ("column_stack", lambda e: e.m.column_stack([e.t(X[0]), e.t(Y[1])], out=e.o()), "values"),
    # indexing
    ("gather", lambda e: e.m.gather(e.t(X), 1, e.t(IDX), out=e.o()), "values"),
    ("take_along_dim", lambda e: e.m.take_along_dim(e.t(X), e.t(IDX), 1, out=e.o()), "values"),
    ("take_along_dim flat", lambda e: e.m.take_along_dim(e.t(X), e.t(IDX), out=e.o()), "values"),
    ("nonzero", lambda e: e.m.nonzero(e.t(X) > 0, out=e.o("int64")), "values"),
    # linear algebra
    ("tril", lambda e: e.m.tril(e.t(X), -1, out=e.o()), "values"),
    ("triu", lambda e: e.m.triu(e.t(X), 1, out=e.o()), "values"),
    ("diag of matrix", lambda e: e.m.diag(e.t(X), 1, out=e.o()), "values"),
    ("diag of vector", lambda e: e.m.diag(e.t(X[0]), out=e.o()), "values"),
    ("baddbmm", lambda e: e.m.baddbmm(e.t(SQ[None]), e.t(X[None, :, :3]), e.t(SQ[None]), beta=0.5,
                                      out=e.o()), "values"),
    ("addmv", lambda e: e.m.addmv(e.t(X[:, 0]), e.t(X), e.t(Y[0]), alpha=2, out=e.o()), "values"),
    ("addbmm", lambda e: e.m.addbmm(e.t(SQ), e.t(SQ[None]), e.t(SQ[None]), out=e.o()), "values"),
    ("linalg.cross", lambda e: e.m.linalg.cross(e.t(V3), e.t(V3[::-1].copy()), out=e.o()), "values"),
    ("cross", lambda e: e.m.cross(e.t(V3), e.t(V3[::-1].copy()), dim=1, out=e.o()), "values"),
    ("kron", lambda e: e.m.kron(e.t(V3), e.t(SQ), out=e.o()), "values"),
    ("linalg.vecdot", lambda e: e.m.linalg.vecdot(e.t(X), e.t(Y), out=e.o()), "values"),
    ("linalg.vector_norm", lambda e: e.m.linalg.vector_norm(e.t(X), 3, dim=1, out=e.o()), "values"),
    ("linalg.matrix_norm", lambda e: e.m.linalg.matrix_norm(e.t(X), out=e.o()), "values"),
    ("linalg.norm", lambda e: e.m.linalg.norm(e.t(X), 1, out=e.o()), "values"),
    ("norm", lambda e: e.m.norm(e.t(X), dim=1, out=e.o()), "values"),
    ("normalize", lambda e: e.m.nn.functional.normalize(e.t(X), out=e.o()), "values"),
    ("linalg.inv", lambda e: e.m.linalg.inv(e.t(SQ), out=e.o()), "values"),
    ("inverse", lambda e: e.m.inverse(e.t(SQ), out=e.o()), "values"),
    ("linalg.inv_ex", lambda e: e.m.linalg.inv_ex(e.t(SQ), out=(e.o(), e.o("int32"))), "values"),
    ("linalg.det", lambda e: e.m.linalg.det(e.t(SQ), out=e.o()), "values"),
    ("linalg.solve", lambda e: e.m.linalg.solve(e.t(SQ), e.t(X[:, :3]), out=e.o()), "values"),
    # random sampling into out
    ("bernoulli", lambda e: e.m.bernoulli(e.t(np.abs(X) / 2), out=e.o()), "shape"),
    ("bernoulli int out", lambda e: e.m.bernoulli(e.t(np.abs(X) / 2), out=e.o("int64")), "shape"),
    ("multinomial", lambda e: e.m.multinomial(e.t(P), 3, out=e.o("int64")), "shape"),
    # elementwise / product ops (out= honoured before; now with the same checks)
    ("add", lambda e: e.m.add(e.t(X), e.t(Y), alpha=2, out=e.o()), "values"),
    ("add int result into float", lambda e: e.m.add(e.t(IDX), 1, out=e.o()), "values"),
    ("floor of int", lambda e: e.m.floor(e.t(IDX), out=e.o("int64")), "values"),
    ("eq into float", lambda e: e.m.eq(e.t(X), e.t(X), out=e.o()), "values"),
    ("cumsum int out computes in int", lambda e: e.m.cumsum(e.t(X * 3), 1, out=e.o("int64")), "values"),
    ("cumprod", lambda e: e.m.cumprod(e.t(X), 0, out=e.o()), "values"),
    ("mm", lambda e: e.m.mm(e.t(X), e.t(Y.T.copy()), out=e.o()), "values"),
]


def _compare(t_res, w_res, what):
    t_flat = list(t_res) if isinstance(t_res, tuple) else [t_res]
    w_flat = list(w_res) if isinstance(w_res, tuple) else [w_res]
    assert len(w_flat) == len(t_flat)
    for i, (w, t) in enumerate(zip(w_flat, t_flat)):
        if what == "shape":
            assert tuple(w.shape) == tuple(t.shape) and str(w.dtype) == str(t.dtype), (w, t)
        else:
            assert_close(w, t, 1e-5, 1e-4, f"result {i}")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_result_is_written_into_out(case, device):
    _, fn, what = case
    t_env, w_env = _pair(device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_res = fn(t_env)
        w_res = fn(w_env)
    _compare(t_res, w_res, what)
    if "randperm" in case[0]:
        return  # sorted copy compared; out itself checked below
    # the op returns out itself (each given tensor, in order, for tuple results)
    returned = list(w_res) if isinstance(w_res, tuple) else [w_res]
    assert len(returned) == len(w_env.outs)
    for r, o in zip(returned, w_env.outs):
        assert r is o
    assert isinstance(w_res, tuple) == isinstance(t_res, tuple)
    if isinstance(t_res, tuple) and hasattr(t_res, "values") and hasattr(t_res, "indices"):
        assert w_res.values is w_env.outs[0] and w_res.indices is w_env.outs[1]


def test_randperm_writes_a_permutation_into_out(device):
    w = Env(webtorch, device)
    out = w.o("int64", 2)
    assert webtorch.randperm(6, out=out) is out
    assert sorted(out.tolist()) == list(range(6))


def test_version_counter_bumped(device):
    w = Env(webtorch, device)
    out = w.o("float32", 2, 4)
    v = out._version[0]
    webtorch.sort(w.t(X), 0, out=(w.o("float32", 0), w.o("int64")))
    webtorch.cat([w.t(X[:1]), w.t(Y[:1])], out=out)
    assert out._version[0] == v + 1


# (id, fn(e)) raising in both libraries: same exception type and message; "type only" where torch's text is
# its argument parser's listing of overloads
ERRORS = [
    # dtype rules
    ("add float into int", lambda e: e.m.add(e.t(X), 1, out=e.o("int64"))),
    ("mul float into bool", lambda e: e.m.mul(e.t(X), e.t(Y), out=e.o("bool"))),
    ("mm float into int", lambda e: e.m.mm(e.t(X), e.t(Y.T.copy()), out=e.o("int64"))),
    ("matmul float into int", lambda e: e.m.matmul(e.t(X), e.t(Y.T.copy()), out=e.o("int64"))),
    ("dot float into int", lambda e: e.m.dot(e.t(X[0]), e.t(Y[0]), out=e.o("int64"))),
    ("where float into int", lambda e: e.m.where(e.t(X) > 0, e.t(X), e.t(Y), out=e.o("int64"))),
    ("clamp by numbers into int", lambda e: e.m.clamp(e.t(X), 0, 1, out=e.o("int64"))),
    ("clamp by tensors into int", lambda e: e.m.clamp(e.t(X), e.t(Y), out=e.o("int64"))),
    ("logcumsumexp into int", lambda e: e.m.logcumsumexp(e.t(X), 0, out=e.o("int64"))),
    ("cumsum dtype differs from out", lambda e: e.m.cumsum(e.t(X), 0, dtype=e.m.int32, out=e.o("int64"))),
    ("zeros dtype differs from out", lambda e: e.m.zeros(3, dtype=e.m.float32, out=e.o("int64"))),
    ("arange dtype differs from out", lambda e: e.m.arange(3, dtype=e.m.float32, out=e.o("int32"))),
    ("rand int out", lambda e: e.m.rand(3, out=e.o("int64"))),
    ("randn bool out", lambda e: e.m.randn(3, out=e.o("bool"))),
    ("normal sized int out", lambda e: e.m.normal(0.0, 1.0, (3,), out=e.o("int64"))),
    ("normal tensors int out", lambda e: e.m.normal(e.t(X), 1.0, out=e.o("int64", 3, 4))),
    ("normal tensor mean, out not broadcastable", lambda e: e.m.normal(e.t(X), 1.0, out=e.o("float32", 2))),
    ("arange bool out", lambda e: e.m.arange(3, out=e.o("bool"))),
    ("linspace bool out", lambda e: e.m.linspace(0, 1, 3, out=e.o("bool"))),
    ("randperm bool out", lambda e: e.m.randperm(3, out=e.o("bool"))),
    ("randint bool out", lambda e: e.m.randint(0, 3, (2,), out=e.o("bool"))),
    ("sum dtype differs from out", lambda e: e.m.sum(e.t(X), 1, dtype=e.m.int32, out=e.o("int64"))),
    ("mean int out", lambda e: e.m.mean(e.t(X), 1, out=e.o("int64"))),
    ("var int out", lambda e: e.m.var(e.t(X), 1, out=e.o("int64"))),
    ("logsumexp int out", lambda e: e.m.logsumexp(e.t(X), 1, out=e.o("int64"))),
    ("all float out", lambda e: e.m.all(e.t(X) > 0, 1, out=e.o("float32"))),
    ("any int out", lambda e: e.m.any(e.t(X) > 0, out=e.o("int64"))),
    ("amax int out", lambda e: e.m.amax(e.t(X), 1, out=e.o("int64"))),
    ("amin float out of int", lambda e: e.m.amin(e.t(IDX), 1, out=e.o("float32"))),
    ("max dim int values", lambda e: e.m.max(e.t(X), 1, out=(e.o("int64"), e.o("int64")))),
    ("max dim int32 indices", lambda e: e.m.max(e.t(X), 1, out=(e.o(), e.o("int32")))),
    ("max full int out", lambda e: e.m.max(e.t(X), out=e.o("int64"))),
    ("max binary int out", lambda e: e.m.max(e.t(X), e.t(Y), out=e.o("int64"))),
    ("sort int values", lambda e: e.m.sort(e.t(X), out=(e.o("int64"), e.o("int64")))),
    ("sort float indices", lambda e: e.m.sort(e.t(X), out=(e.o(), e.o()))),
    ("topk bool values", lambda e: e.m.topk(e.t(X), 2, out=(e.o("bool"), e.o("int64")))),
    ("kthvalue int values", lambda e: e.m.kthvalue(e.t(X), 1, out=(e.o("int64"), e.o("int64")))),
    ("kthvalue float indices", lambda e: e.m.kthvalue(e.t(X), 1, out=(e.o(), e.o()))),
    ("median int values", lambda e: e.m.median(e.t(X), 1, out=(e.o("int64"), e.o("int64")))),
    ("median float indices", lambda e: e.m.median(e.t(X), 1, out=(e.o(), e.o()))),
    ("nanmedian float indices", lambda e: e.m.nanmedian(e.t(X), 1, out=(e.o(), e.o()))),
    ("searchsorted float out", lambda e: e.m.searchsorted(e.t(SEQ), e.t(X), out=e.o())),
    ("searchsorted int32 flag, int64 out", lambda e: e.m.searchsorted(e.t(SEQ), e.t(X), out_int32=True,
                                                                      out=e.o("int64"))),
    ("bucketize int32 out", lambda e: e.m.bucketize(e.t(X), e.t(SEQ), out=e.o("int32"))),
    ("cat float into int", lambda e: e.m.cat([e.t(X), e.t(Y)], out=e.o("int64"))),
    ("stack float into bool", lambda e: e.m.stack([e.t(X), e.t(Y)], out=e.o("bool"))),
    ("hstack float into int", lambda e: e.m.hstack([e.t(X), e.t(Y)], out=e.o("int64"))),
    ("gather int out", lambda e: e.m.gather(e.t(X), 1, e.t(IDX), out=e.o("int64"))),
    ("take_along_dim int out", lambda e: e.m.take_along_dim(e.t(X), e.t(IDX), 1, out=e.o("int64"))),
    ("tril int out", lambda e: e.m.tril(e.t(X), out=e.o("int64"))),
    ("triu float out of int", lambda e: e.m.triu(e.t(IDX), out=e.o())),
    ("diag int out", lambda e: e.m.diag(e.t(X), out=e.o("int64"))),
    ("baddbmm int out", lambda e: e.m.baddbmm(e.t(SQ[None]), e.t(SQ[None]), e.t(SQ[None]), out=e.o("int64"))),
    ("addmv int out", lambda e: e.m.addmv(e.t(X[:, 0]), e.t(X), e.t(Y[0]), out=e.o("int64"))),
    ("addbmm int out", lambda e: e.m.addbmm(e.t(SQ), e.t(SQ[None]), e.t(SQ[None]), out=e.o("int64"))),
    ("cross int out", lambda e: e.m.linalg.cross(e.t(V3), e.t(V3), out=e.o("int64"))),
    ("kron float into int", lambda e: e.m.kron(e.t(V3), e.t(SQ), out=e.o("int64"))),
    ("vecdot int out", lambda e: e.m.linalg.vecdot(e.t(X), e.t(Y), out=e.o("int64"))),
    ("vector_norm int out", lambda e: e.m.linalg.vector_norm(e.t(X), out=e.o("int64"))),
    ("matrix_norm int out", lambda e: e.m.linalg.matrix_norm(e.t(X), out=e.o("int64"))),
    ("linalg.norm int out", lambda e: e.m.linalg.norm(e.t(X), out=e.o("int64"))),
    ("norm int out", lambda e: e.m.norm(e.t(X), dim=1, out=e.o("int64"))),
    ("nonzero float out", lambda e: e.m.nonzero(e.t(X), out=e.o())),
    ("nonzero as_tuple with out", lambda e: e.m.nonzero(e.t(X), as_tuple=True, out=e.o("int64"))),
    ("multinomial float out", lambda e: e.m.multinomial(e.t(P), 2, out=e.o())),
    # autograd refusal: out requiring grad
    ("add out requires grad", lambda e: e.m.add(e.t(X), 1, out=e.o(requires_grad=True))),
    ("exp out requires grad", lambda e: e.m.exp(e.t(X), out=e.o(requires_grad=True))),
    ("zeros out requires grad", lambda e: e.m.zeros(3, out=e.o(requires_grad=True))),
    ("arange out requires grad", lambda e: e.m.arange(3.0, out=e.o(requires_grad=True))),
    ("eye out requires grad", lambda e: e.m.eye(2, out=e.o(requires_grad=True))),
    ("empty out requires grad", lambda e: e.m.empty(3, out=e.o("float32", 3, requires_grad=True))),
    ("randn out requires grad", lambda e: e.m.randn(3, out=e.o("float32", 3, requires_grad=True))),
    ("rand out requires grad", lambda e: e.m.rand(3, out=e.o(requires_grad=True))),
    ("sum out requires grad", lambda e: e.m.sum(e.t(X), 1, out=e.o(requires_grad=True))),
    ("sort out requires grad", lambda e: e.m.sort(e.t(X), out=(e.o(requires_grad=True), e.o("int64")))),
    ("cat out requires grad", lambda e: e.m.cat([e.t(X)], out=e.o(requires_grad=True))),
    ("diag out requires grad", lambda e: e.m.diag(e.t(X), out=e.o(requires_grad=True))),
    ("bernoulli out requires grad", lambda e: e.m.bernoulli(e.t(np.abs(X) / 2), out=e.o(requires_grad=True))),
    ("matrix_norm out requires grad", lambda e: e.m.linalg.matrix_norm(e.t(X), out=e.o(requires_grad=True))),
    ("linalg.norm out requires grad", lambda e: e.m.linalg.norm(e.t(X), out=e.o(requires_grad=True))),
    # autograd refusal: an input requiring grad (the message names the op PyTorch writes out= through)
    ("mul input requires grad", lambda e: e.m.mul(e.t(X, True), 2, out=e.o())),
    ("matmul input requires grad", lambda e: e.m.matmul(e.t(X, True), e.t(Y.T.copy()), out=e.o())),
    ("outer input requires grad", lambda e: e.m.outer(e.t(X[0], True), e.t(Y[0]), out=e.o())),
    ("clamp input requires grad", lambda e: e.m.clamp(e.t(X, True), 0, 1, out=e.o())),
    ("var input requires grad", lambda e: e.m.var(e.t(X, True), 1, out=e.o())),
    ("logsumexp input requires grad", lambda e: e.m.logsumexp(e.t(X, True), 1, out=e.o())),
    ("amax input requires grad", lambda e: e.m.amax(e.t(X, True), 1, out=e.o())),
    ("max dim input requires grad", lambda e: e.m.max(e.t(X, True), 1, out=(e.o(), e.o("int64")))),
    ("max binary input requires grad", lambda e: e.m.max(e.t(X, True), e.t(Y), out=e.o())),
    ("topk input requires grad", lambda e: e.m.topk(e.t(X, True), 2, out=(e.o(), e.o("int64")))),
    ("kthvalue input requires grad", lambda e: e.m.kthvalue(e.t(X, True), 2, out=(e.o(), e.o("int64")))),
    ("median input requires grad", lambda e: e.m.median(e.t(X, True), 1, out=(e.o(), e.o("int64")))),
    ("stack input requires grad", lambda e: e.m.stack([e.t(X, True), e.t(Y)], out=e.o())),
    ("vstack input requires grad", lambda e: e.m.vstack([e.t(X, True), e.t(Y)], out=e.o())),
    ("column_stack input requires grad", lambda e: e.m.column_stack([e.t(X, True), e.t(Y)], out=e.o())),
    ("gather input requires grad", lambda e: e.m.gather(e.t(X, True), 1, e.t(IDX), out=e.o())),
    ("take_along_dim input requires grad", lambda e: e.m.take_along_dim(e.t(X, True), e.t(IDX), 1, out=e.o())),
    ("tril input requires grad", lambda e: e.m.tril(e.t(X, True), out=e.o())),
    ("baddbmm input requires grad", lambda e: e.m.baddbmm(e.t(SQ[None], True), e.t(SQ[None]), e.t(SQ[None]),
                                                          out=e.o())),
    ("addmv input requires grad", lambda e: e.m.addmv(e.t(X[:, 0]), e.t(X, True), e.t(Y[0]), out=e.o())),
    ("addbmm input requires grad", lambda e: e.m.addbmm(e.t(SQ), e.t(SQ[None], True), e.t(SQ[None]), out=e.o())),
    ("cross input requires grad", lambda e: e.m.cross(e.t(V3, True), e.t(V3), dim=1, out=e.o())),
    ("kron input requires grad", lambda e: e.m.kron(e.t(V3, True), e.t(SQ), out=e.o())),
    ("vecdot input requires grad", lambda e: e.m.linalg.vecdot(e.t(X, True), e.t(Y), out=e.o())),
    ("vector_norm input requires grad", lambda e: e.m.linalg.vector_norm(e.t(X, True), out=e.o())),
    ("norm input requires grad", lambda e: e.m.norm(e.t(X, True), 1, dim=1, out=e.o())),
    ("normalize input requires grad", lambda e: e.m.nn.functional.normalize(e.t(X, True), out=e.o())),
    ("normal tensors input requires grad", lambda e: e.m.normal(e.t(X, True), 1.0, out=e.o("float32", 3, 4))),
    ("bernoulli input requires grad", lambda e: e.m.bernoulli(e.t(np.abs(X) / 2, True), out=e.o())),
    ("cumsum input requires grad", lambda e: e.m.cumsum(e.t(X, True), 0, out=e.o())),
    ("inv input requires grad", lambda e: e.m.linalg.inv(e.t(SQ, True), out=e.o())),
    ("det input requires grad", lambda e: e.m.linalg.det(e.t(SQ, True), out=e.o())),
    ("solve input requires grad", lambda e: e.m.linalg.solve(e.t(SQ, True), e.t(SQ), out=e.o())),
    ("inv_ex input requires grad", lambda e: e.m.linalg.inv_ex(e.t(SQ, True), out=(e.o(), e.o("int32")))),
    ("inv int out", lambda e: e.m.linalg.inv(e.t(SQ), out=e.o("int64"))),
    ("det int out", lambda e: e.m.linalg.det(e.t(SQ), out=e.o("int64"))),
    ("solve int out", lambda e: e.m.linalg.solve(e.t(SQ), e.t(SQ), out=e.o("int64"))),
    ("inv_ex int64 info", lambda e: e.m.linalg.inv_ex(e.t(SQ), out=(e.o(), e.o("int64")))),
    # out that cannot be written
    ("out partially overlaps the input", lambda e: (lambda a: e.m.gather(a[1:], 0, e.t(IDX[:2, 0]), out=a[:2]))(
        e.t(X[:, 0].copy()))),
    ("expanded out", lambda e: e.m.sort(e.t(X), out=(e.m.zeros(1, 4, device=e.d if e.m is webtorch else "cpu")
                                                     .expand(3, 4), e.o("int64")))),
]
TYPE_ONLY = [
    ("max dim with one tensor out", lambda e: e.m.max(e.t(X), 1, out=e.o())),
    ("max dim with three outs", lambda e: e.m.max(e.t(X), 1, out=(e.o(), e.o("int64"), e.o("int64")))),
    ("sort with one tensor out", lambda e: e.m.sort(e.t(X), out=e.o())),
    ("where(condition) out", lambda e: e.m.where(e.t(X) > 0, out=e.o("int64"))),
    ("bernoulli p out", lambda e: e.m.bernoulli(e.t(X), 0.5, out=e.o())),
]
# float64 outs: the webgpu device has no float64 (as PyTorch's MPS), so these run on cpu
FLOAT64_ERRORS = [
    ("inverse float64 out", lambda e: e.m.inverse(e.t(SQ), out=e.o("float64"))),
    ("vecdot float64 out", lambda e: e.m.linalg.vecdot(e.t(X), e.t(Y), out=e.o("float64"))),
    ("amax float64 out", lambda e: e.m.amax(e.t(X), 1, out=e.o("float64"))),
    ("gather float64 out", lambda e: e.m.gather(e.t(X), 1, e.t(IDX), out=e.o("float64"))),
    ("mm float64 out", lambda e: e.m.mm(e.t(X), e.t(Y.T.copy()), out=e.o("float64"))),
    ("clamp by numbers float64 out", lambda e: e.m.clamp(e.t(X), 0, 1, out=e.o("float64"))),
]


def _raised(fn, env):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            fn(env)
    return info.value


def _same_error(fn, device, message=True):
    t_env, w_env = _pair(device)
    t_exc, w_exc = _raised(fn, t_env), _raised(fn, w_env)
    assert type(w_exc).__name__ == type(t_exc).__name__, (w_exc, t_exc)
    if message:
        assert str(w_exc) == str(t_exc)


@pytest.mark.parametrize("case", ERRORS, ids=[c[0] for c in ERRORS])
def test_error_as_torch(case, device):
    _same_error(case[1], device)


@pytest.mark.parametrize("case", TYPE_ONLY, ids=[c[0] for c in TYPE_ONLY])
def test_refused_overload_is_a_type_error(case, device):
    _same_error(case[1], device, message=False)


@pytest.mark.parametrize("case", FLOAT64_ERRORS, ids=[c[0] for c in FLOAT64_ERRORS])
def test_float64_out_error_as_torch(case):
    _same_error(case[1], "cpu")


# (id, fn(e) with an out of the wrong, non-empty shape): does PyTorch warn that it resized out?
RESIZES = [
    ("add", lambda e: e.m.add(e.t(X), 1, out=e.o("float32", 2))),
    ("sum", lambda e: e.m.sum(e.t(X), 1, out=e.o("float32", 2))),
    ("sort", lambda e: e.m.sort(e.t(X), out=(e.o("float32", 2), e.o("int64", 2)))),
    ("cat", lambda e: e.m.cat([e.t(X)], out=e.o("float32", 2))),
    ("gather", lambda e: e.m.gather(e.t(X), 1, e.t(IDX), out=e.o("float32", 2))),
    ("nonzero", lambda e: e.m.nonzero(e.t(X), out=e.o("int64", 2))),
    ("vector_norm", lambda e: e.m.linalg.vector_norm(e.t(X), dim=1, out=e.o("float32", 2))),
    ("arange", lambda e: e.m.arange(4, out=e.o("int64", 2))),
    ("zeros", lambda e: e.m.zeros(4, out=e.o("float32", 2))),
    ("linspace", lambda e: e.m.linspace(0, 1, 4, out=e.o("float32", 2))),
    ("eye", lambda e: e.m.eye(2, out=e.o("float32", 2))),
    ("randint", lambda e: e.m.randint(0, 3, (4,), out=e.o("int64", 2))),
    ("bernoulli", lambda e: e.m.bernoulli(e.t(np.abs(X) / 2), out=e.o("float32", 2))),
    ("multinomial", lambda e: e.m.multinomial(e.t(P), 2, out=e.o("int64", 2))),
    ("empty out of zero elements", lambda e: e.m.sum(e.t(X), 1, out=e.o("float32", 0))),
]


def _resize_warned(fn, env):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(env)
    return [str(w.message) for w in caught if "resized" in str(w.message)]


@pytest.mark.parametrize("case", RESIZES, ids=[c[0] for c in RESIZES])
def test_resize_warning_as_torch(case, device):
    t_env, w_env = _pair(device)
    t_warned, w_warned = _resize_warned(case[1], t_env), _resize_warned(case[1], w_env)
    assert [m.split(" (Triggered")[0] for m in t_warned] == w_warned
    assert tuple(w_env.outs[0].shape) == tuple(t_env.outs[0].shape)


def test_no_grad_allows_out_requiring_grad(device):
    for m, dev in ((torch, "cpu"), (webtorch, device)):
        out = m.zeros(3, device=dev, requires_grad=True)
        with m.no_grad():
            assert m.sum(m.ones(3, 2, device=dev), 1, out=out) is out
        assert out.detach().cpu().tolist() == [2.0, 2.0, 2.0] and out.requires_grad
        with m.no_grad():  # a factory leaves out a plain tensor
            assert m.arange(3.0, out=out) is out
        assert out.tolist() == [0.0, 1.0, 2.0] and not out.requires_grad


def test_composite_norm_out_is_differentiated_through_its_copy(device):
    """matrix_norm/linalg.norm write out= with copy_ (PyTorch's composite): out gets CopyBackwards."""
    grads = []
    for m, dev in ((torch, "cpu"), (webtorch, device)):
        x = m.tensor(X, device=dev).requires_grad_(True) if m is webtorch else m.tensor(X, requires_grad=True)
        out = m.empty(0, device=dev)
        assert m.linalg.matrix_norm(x, out=out) is out
        assert type(out.grad_fn).__name__ == "CopyBackwards"
        out.backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)


def test_out_on_another_device_is_refused(device):
    """A result is never moved across devices into out (PyTorch's structured-kernel and factory messages)."""
    x = webtorch.tensor(X, device=device)
    if device == "cpu":  # the same call with a same-device out is the control
        out = webtorch.empty(0)
        assert webtorch.sum(x, 1, out=out) is out and webtorch.zeros(2, device="cpu", out=out) is out
        return
    cpu_out = webtorch.empty(0)
    with pytest.raises(RuntimeError, match=f"Expected out tensor to have device {x.device}, but got cpu instead"):
        webtorch.sum(x, 1, out=cpu_out)
    with pytest.raises(RuntimeError, match=r"device cpu does not match device of out parameter \(webgpu"):
        webtorch.zeros(2, device="cpu", out=webtorch.empty(0, device=device))
    assert cpu_out.shape == (0,)
