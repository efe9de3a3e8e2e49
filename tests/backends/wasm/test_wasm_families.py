"""The wasm backend's kernel families of wasm-kernels/ (conv, pooling, padding, embedding, softmax/norms, optimizer
updates, scans/sorting, linalg) against the NumPy backend, primitive by primitive, where the op suites do not reach:
sizes past the SIMD tails and the GEMM's blocks, strided and transposed operands, float16/bfloat16 and integer
inputs, the optimizers bit for bit (float16 rounding after every operation), and the error paths."""
import numpy as np
import pytest

from webtorch import _dtype as D
from webtorch.backends.base import _LinAlgError
from webtorch.backends.contract import HYPER, SGDHyper
from webtorch.backends.numpy import get_backend as numpy_backend
from webtorch.backends.wasm import get_backend as wasm_backend

WB, NB = wasm_backend(), numpy_backend()
RNG = np.random.default_rng(7)
F32, F64 = np.float32, np.float64


def up(a):
    """(wasm handle, numpy handle) of the array a."""
    return WB.from_numpy(np.ascontiguousarray(a), True), NB.from_numpy(np.array(a), True)


def down(h):
    return np.array(WB.to_numpy(h))


def same(w, n, rtol=1e-5, atol=1e-6, exact=False):
    """wasm result w (handle, tuple or list of them) equals the numpy result n."""
    if isinstance(n, (tuple, list)):
        assert len(w) == len(n)
        for a, b in zip(w, n):
            same(a, b, rtol, atol, exact)
        return
    if n is None:
        assert w is None
        return
    got, ref = down(w), np.asarray(n)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, ref.shape, got.dtype, ref.dtype)
    if exact or ref.dtype.kind not in "f":
        np.testing.assert_array_equal(got, ref)
    else:
        np.testing.assert_allclose(got.astype(F64), ref.astype(F64), rtol=rtol, atol=atol, equal_nan=True)


def transposed(a):
    """(wasm, numpy) handles of a viewed through a transpose of its last two dims (a non-contiguous operand)."""
    w, n = up(np.swapaxes(a, -1, -2).copy())
    nd = a.ndim
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return WB.permute(w, perm), NB.permute(n, perm)


@pytest.mark.parametrize("dt", [F32, F64])
def test_conv_past_gemm_blocks_groups_strides(dt):
    # K = 40 * 9 = 360 > the GEMM's 256-deep block, P = 23 * 25 = 575 > its 512-wide block
    for (n, cin, cout, g, size, k, s, p, d) in [(2, 40, 6, 1, (23, 25), (3, 3), (1, 1), (1, 1), (1, 1)),
                                                 (3, 6, 9, 3, (17, 12), (3, 2), (2, 3), (1, 0), (2, 1)),
                                                 (2, 4, 5, 1, (300,), (7,), (3,), (3,), (2,)),
                                                 (1, 2, 4, 2, (6, 7, 5), (3, 2, 2), (1, 2, 1), (1, 0, 1), (1, 1, 2))]:
        x = RNG.standard_normal((n, cin) + size).astype(dt)
        w = RNG.standard_normal((cout, cin // g) + k).astype(dt)
        b = RNG.standard_normal(cout).astype(dt)
        (xw, xn), (ww, wn), (bw, bn) = up(x), up(w), up(b)
        tol = dict(rtol=1e-4, atol=1e-4) if dt == F32 else dict(rtol=1e-10, atol=1e-10)
        yn = NB.conv(xn, wn, bn, s, p, d, g)
        same(WB.conv(xw, ww, bw, s, p, d, g), yn, **tol)
        gw, gn = up(RNG.standard_normal(yn.shape).astype(dt))
        same(WB.conv_backward_input(gw, ww, x.shape, s, p, d, g), NB.conv_backward_input(gn, wn, x.shape, s, p, d, g),
             **tol)
        same(WB.conv_backward_weight(gw, xw, w.shape, s, p, d, g),
             NB.conv_backward_weight(gn, xn, w.shape, s, p, d, g), **tol)
        if len(size) == 2:
            cw = WB.im2col(xw, k, s, p, d)
            same(cw, NB.im2col(xn, k, s, p, d), exact=True)
            same(WB.col2im(cw, size, k, s, p, d), NB.col2im(NB.im2col(xn, k, s, p, d), size, k, s, p, d), **tol)


def test_conv_strided_input_and_float16():
    x = RNG.standard_normal((2, 3, 9, 11)).astype(F32)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(F32)
    (xw, xn), (ww, wn) = transposed(x), up(w)
    same(WB.conv(xw, ww, None, (1, 1), (1, 1), (1, 1), 1), NB.conv(xn, wn, None, (1, 1), (1, 1), (1, 1), 1),
         rtol=1e-4, atol=1e-4)
    (hw, hn), (vw, vn) = up(x.astype(np.float16)), up(w.astype(np.float16))
    same(WB.conv(hw, vw, None, (1, 1), (0, 0), (1, 1), 1), NB.conv(hn, vn, None, (1, 1), (0, 0), (1, 1), 1),
         rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("dt", [F32, F64, np.int64, np.int16, np.uint8, np.float16])
def test_pooling_dtypes(dt):
    x = (RNG.standard_normal((2, 3, 13, 10)) * 50).astype(dt)
    if dt in (F32, F64):
        x[0, 0, 3, 4] = np.nan
    xw, xn = up(x)
    for k, s, p, d, ceil in [((3, 3), (2, 2), (1, 1), (1, 1), True), ((2, 3), (1, 2), (0, 1), (2, 1), False)]:
        same(WB.max_pool(xw, k, s, p, d, ceil), NB.max_pool(xn, k, s, p, d, ceil), exact=True)
        for cip, div in ((True, None), (False, None), (False, 3)):
            same(WB.avg_pool(xw, k, s, p, ceil, cip, div), NB.avg_pool(xn, k, s, p, ceil, cip, div),
                 rtol=1e-3 if dt == np.float16 else 1e-5)
    same(WB.adaptive_max_pool(xw, (4, 3)), NB.adaptive_max_pool(xn, (4, 3)), exact=True)


def test_pooling_backward_and_planes():
    x = RNG.standard_normal((2, 3, 8, 9)).astype(F32)
    (xw, xn) = up(x)
    vals_w, idx_w = WB.max_pool(xw, (3, 3), (2, 2), (1, 1), (1, 1), False)
    vals_n, idx_n = NB.max_pool(xn, (3, 3), (2, 2), (1, 1), (1, 1), False)
    for acc in (False, True):
        same(WB.scatter_plane(vals_w, idx_w, (8, 9), acc), NB.scatter_plane(vals_n, idx_n, (8, 9), acc))
    same(WB.gather_plane(xw, idx_w), NB.gather_plane(xn, idx_n), exact=True)
    gw, gn = up(RNG.standard_normal((2, 3, 4, 5)).astype(F32))
    same(WB.avg_pool_backward(gw, x.shape, (3, 3), (2, 2), (1, 1), True, False, None),
         NB.avg_pool_backward(gn, x.shape, (3, 3), (2, 2), (1, 1), True, False, None))
    bad_w, _ = up(np.full((2, 3, 4, 5), 72, np.int64))
    with pytest.raises(RuntimeError, match=r"Found an invalid max index: 72 \(output volumes are of size 8x9"):
        WB.scatter_plane(vals_w, bad_w, (8, 9), True)


@pytest.mark.parametrize("dt", [F32, F64, np.float16])
def test_resample_taps(dt):
    # taps padded with -1, zero weights next to inf (NaN, not skipped), a divisor; finite input on the NumPy
    # backend's matmul path, non-finite on its taps path; every dim of a strided (transposed) input
    index = np.array([[0, 1, -1], [1, 1, 2], [2, -1, -1], [3, 0, 4]], np.int32)
    weight = np.array([[0.5, 0.5, 0], [1, 0, 0.25], [2, 0, 0], [0, 1, -1]], dt)
    divisor = np.array([2, 3, 1, 4], dt)
    x = RNG.standard_normal((3, 5, 5, 5)).astype(dt)
    bad = x.copy()
    bad[0, 1, 0, :], bad[1, :, 2, 3], bad[2, 4, :, 1] = np.inf, np.nan, -np.inf
    for a in (x, bad, x.transpose(0, 3, 1, 2)):
        aw, an = up(a)
        for dim in (1, 2, 3):
            for w, d in ((weight, None), (None, divisor), (weight, divisor)):
                got = WB.resample_taps(aw, dim, up(index)[0], None if w is None else up(w)[0],
                                       None if d is None else up(d)[0])
                same(got, NB.resample_taps(an, dim, index, w, d), rtol=1e-3 if dt == np.float16 else 1e-5)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_nd_any_dtype_and_backward(mode):
    pads = ((0, 0), (1, 2), (3, 1), (2, 2))
    for dt in (F32, np.int8, np.float16, np.bool_):
        x = (RNG.standard_normal((2, 3, 5, 4)) * 9).astype(dt)
        xw, xn = up(x)
        same(WB.pad(xw, pads, mode, 1.5), NB.pad(xn, pads, mode, 1.5), exact=True)
    g = RNG.standard_normal((2, 6, 9, 8))
    for dt in (F32, F64):
        gw, gn = up(g.astype(dt))
        same(WB.pad_backward(gw, pads, mode), NB.pad_backward(gn, pads, mode))


def test_embedding_family():
    w = RNG.standard_normal((50, 33)).astype(F32)
    idx = RNG.integers(0, 50, (7, 9))
    (ww, wn), (iw, i_n) = up(w), up(idx)
    same(WB.embedding(ww, iw), NB.embedding(wn, i_n), exact=True)
    gw, gn = up(RNG.standard_normal((7, 9, 33)).astype(F32))
    for pad_idx, scale in ((None, False), (4, True)):
        same(WB.embedding_backward(gw, iw, 50, pad_idx, scale), NB.embedding_backward(gn, i_n, 50, pad_idx, scale))
    for norm_type in (2.0, 1.0, 3.0):
        (ww, wn) = up(w)
        WB.embedding_renorm_(ww, iw, 1.2, norm_type)
        same(ww, NB.embedding_renorm_(wn, i_n, 1.2, norm_type))
    bad, _ = up(np.array([3, 50]))
    with pytest.raises(IndexError, match="index out of range in self"):
        WB.embedding(ww, bad)


@pytest.mark.parametrize("dt", [F32, F64])
def test_softmax_norms_odd_sizes(dt):
    tol = dict(rtol=1e-5, atol=1e-6) if dt == F32 else dict(rtol=1e-12, atol=1e-12)
    for shape, dim in (((5, 1031), 1), ((3, 129, 7), 1), ((2, 4, 9), 0)):
        x = (RNG.standard_normal(shape) * 4).astype(dt)
        x[0, 0] = -np.inf
        (xw, xn), (gw, gn) = up(x), up(RNG.standard_normal(shape).astype(dt))
        wdt = D.ALIASES[np.dtype(dt).name]
        for log in (False, True):
            yw, yn = WB.softmax(xw, dim, log, wdt), NB.softmax(xn, dim, log, wdt)
            same(yw, yn, **tol)
            same(WB.softmax_backward(gw, yw, dim, log, wdt), NB.softmax_backward(gn, yn, dim, log, wdt), **tol)
    x = RNG.standard_normal((6, 5, 207)).astype(dt)
    (xw, xn), (ww, wn), (bw, bn) = (up(a) for a in (x, RNG.standard_normal(207).astype(dt),
                                                    RNG.standard_normal(207).astype(dt)))
    yw, yn = WB.layer_norm(xw, ww, bw, 1, 1e-5), NB.layer_norm(xn, wn, bn, 1, 1e-5)
    same(yw, yn, **tol)
    gw, gn = up(RNG.standard_normal(x.shape).astype(dt))
    same(WB.layer_norm_backward(gw, xw, yw[1], yw[2], ww, 1, (True, True, True)),
         NB.layer_norm_backward(gn, xn, yn[1], yn[2], wn, 1, (True, True, True)), rtol=1e-4, atol=1e-5)
    xb = RNG.standard_normal((5, 7, 3, 11)).astype(dt)
    (xw, xn), (ww, wn), (bw, bn) = up(xb), up(RNG.standard_normal(7).astype(dt)), up(RNG.standard_normal(7).astype(dt))
    (rmw, rmn), (rvw, rvn) = up(np.zeros(7, dt)), up(np.ones(7, dt))
    yw, yn = WB.batch_norm(xw, ww, bw, rmw, rvw, 0.1, 1e-5), NB.batch_norm(xn, wn, bn, rmn, rvn, 0.1, 1e-5)
    same(yw, yn, **tol)
    same([rmw, rvw], [rmn, rvn], **tol)
    gw, gn = up(RNG.standard_normal(xb.shape).astype(dt))
    same(WB.batch_norm_backward(gw, xw, yw[1], yw[2], ww, (True, True, True)),
         NB.batch_norm_backward(gn, xn, yn[1], yn[2], wn, (True, True, True)), rtol=1e-4, atol=1e-5)


def test_norms_float16_and_strided():
    x = RNG.standard_normal((4, 37)).astype(np.float16)
    xw, xn = up(x)
    same(WB.softmax(xw, 1, False, D.float16), NB.softmax(xn, 1, False, D.float16), rtol=1e-3, atol=1e-3)
    xw, xn = transposed(RNG.standard_normal((37, 6)).astype(F32))
    same(WB.softmax(xw, 1, True, D.float32), NB.softmax(xn, 1, True, D.float32))
    same(WB.layer_norm(xw, None, None, 1, 1e-5), NB.layer_norm(xn, None, None, 1, 1e-5), rtol=1e-4, atol=1e-5)


def _state(shapes, dt, positive=False):
    arrs = [RNG.standard_normal(s).astype(dt) for s in shapes]
    return [np.abs(a) if positive else a for a in arrs]


@pytest.mark.parametrize("dt", [F32, F64, np.float16])
def test_optimizers_bit_equal(dt):
    shapes = [(1031,), (7, 9), (3,)]

    def run(name, n_states, positive, *args, transposed_param=False):
        params, grads = _state(shapes, dt), _state(shapes, dt)
        states = [_state(shapes, dt, positive) for _ in range(n_states)]
        if transposed_param:  # a non-contiguous parameter goes through a working copy and back
            params[1] = params[1].T.copy().T
        w = [[up(a)[0] for a in lst] for lst in [params, grads] + states]
        if transposed_param:
            w[0][1] = WB.permute(WB.from_numpy(np.ascontiguousarray(params[1].T), True), (1, 0))
        n = [[np.array(a) for a in lst] for lst in [params, grads] + states]
        hyper = HYPER[name]
        nf = len(hyper.__slots__)
        pre, hp = args[:-nf], hyper(*args[-nf:])  # the hyper-parameters as the contract's record
        getattr(WB, name)(*w, *pre, hp)
        getattr(NB, name)(*n, *pre, hp)
        for lw, ln in zip(w[:1] + w[2:], n[:1] + n[2:]):
            same(lw, ln, exact=True)

    steps = [3.0, 3.0, 3.0]
    run("adam_update", 3, True, steps, 1e-3, 0.9, 0.999, 1e-8, 0.01, True, False, True, transposed_param=True)
    run("adam_update", 3, True, steps, 1e-3, 0.3, 0.999, 1e-8, 0.1, False, True, False)
    run("rmsprop_update", 3, True, 1e-2, 0.99, 1e-8, 0.1, 0.9, True, False)
    run("adagrad_update", 1, True, steps, 1e-2, 0.1, 0.1, 1e-10, True)
    run("adadelta_update", 2, True, 1.0, 0.9, 1e-6, 0.1, False)
    run("adamax_update", 2, True, steps, 2e-3, 0.9, 0.999, 1e-8, 0.1, True)
    run("nadam_update", 2, True, steps, [0.5, 0.5, 0.5], 2e-3, 0.9, 0.999, 1e-8, 0.1, 4e-3, True, False)
    for step in (2.0, 10.0):
        run("radam_update", 2, True, [step] * 3, 1e-3, 0.9, 0.999, 1e-8, 0.1, False, True)
    params, grads = _state(shapes, dt), _state(shapes, dt)
    pw, pn = [up(a)[0] for a in params], [np.array(a) for a in params]
    gw, gn = [up(a)[0] for a in grads], [np.array(a) for a in grads]
    bw = WB.sgd_update(pw, gw, [None] * 3, SGDHyper(0.1, 0.9, 0.1, 0.01, True, False))
    bn = NB.sgd_update(pn, gn, [None] * 3, SGDHyper(0.1, 0.9, 0.1, 0.01, True, False))
    bw = WB.sgd_update(pw, gw, bw, SGDHyper(0.1, 0.9, 0.1, 0.01, True, True))
    bn = NB.sgd_update(pn, gn, bn, SGDHyper(0.1, 0.9, 0.1, 0.01, True, True))
    same(pw + bw, pn + bn, exact=True)


@pytest.mark.parametrize("dt", [F32, F64, np.int64, np.int32, np.uint8, np.float16])
def test_scans_and_sorting(dt):
    x = (RNG.standard_normal((6, 3000)) * 20).astype(dt)
    if np.dtype(dt).kind == "f":
        x[1, 5] = x[2, 7] = np.nan
    x[:, 100:120] = x[:, 50:70]  # ties
    xw, xn = up(x)
    wdt = D.ALIASES[np.dtype(dt).name]
    for dim in (1, 0):
        for desc in (False, True):
            same(WB.sort(xw, dim, desc, True), NB.sort(xn, dim, desc, True), exact=True)
        for op in ("max", "min"):
            for rev in (False, True):
                same(WB.cumulative(op, xw, dim, wdt, rev), NB.cumulative(op, xn, dim, wdt, rev), exact=True)
    acc = wdt if np.dtype(dt).kind == "f" else D.int64
    for op in ("sum", "prod") + (("logsumexp",) if np.dtype(dt).kind == "f" else ()):
        xs = np.ascontiguousarray(x[:, :40])
        sw, sn = up(xs)
        same(WB.cumulative(op, sw, 1, acc, True), NB.cumulative(op, sn, 1, acc, True), rtol=2e-3 if dt == np.float16
             else 1e-5)
    vw, iw = WB.topk(xw, 25, 1, True, True)
    vn, i_n = NB.sort(xn, 1, True, True)  # the contract: ties in index order (NumPy's partition path is not)
    same([vw, iw], [vn[:, :25], i_n[:, :25]], exact=True)
    seq = np.sort(x[:, :200], axis=1)
    (sw, sn), (qw, qn) = up(seq), up(x[:, 200:230])
    for right in (False, True):
        same(WB.searchsorted(sw, qw, right, False), NB.searchsorted(sn, qn, right, False), exact=True)
        same(WB.searchsorted(up(seq[0])[0], qw, right, True), NB.searchsorted(seq[0], qn, right, True), exact=True)


@pytest.mark.parametrize("dt", [F32, F64])
def test_linalg_larger_batches(dt):
    tol = dict(rtol=2e-3, atol=2e-4) if dt == F32 else dict(rtol=1e-8, atol=1e-9)
    a = RNG.standard_normal((3, 24, 24)).astype(dt) + 6 * np.eye(24, dtype=dt)
    b = RNG.standard_normal((24, 5)).astype(dt)
    (aw, an), (bw, bn) = up(a), up(b)
    same(WB.linalg_inv(aw), NB.linalg_inv(an), **tol)
    same(WB.linalg_det(aw), NB.linalg_det(an), rtol=1e-3 if dt == F32 else 1e-9)
    same(WB.linalg_slogdet(aw), NB.linalg_slogdet(an), **tol)
    same(WB.linalg_solve(aw, bw), NB.linalg_solve(an, bn), **tol)
    spd = a @ np.swapaxes(a, -1, -2)
    sw, sn = up(spd)
    same(WB.linalg_cholesky(sw, False), NB.linalg_cholesky(sn, False), **tol)
    same(WB.linalg_solve_triangular(aw, bw, True, True, False), NB.linalg_solve_triangular(an, bn, True, True, False),
         **tol)
    tall = RNG.standard_normal((2, 30, 11)).astype(dt)
    tw, tn = up(tall)
    for mode in ("reduced", "complete"):
        same(WB.linalg_qr(tw, mode), NB.linalg_qr(tn, mode), **tol)
    w, v = WB.linalg_eigh(sw, False, True)
    same(w, NB.linalg_eigh(sn, False, False)[0], rtol=1e-4 if dt == F32 else 1e-9)
    vv = down(v)
    np.testing.assert_allclose((vv * down(w)[..., None, :]) @ np.swapaxes(vv, -1, -2), spd, rtol=1e-4, atol=1e-2)
    u, s, vh = WB.linalg_svd(tw, True, True)
    same(s, NB.linalg_svd(tn, False, False)[1], **tol)
    k = 11
    np.testing.assert_allclose((down(u)[..., :k] * down(s)[..., None, :]) @ down(vh), tall, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.swapaxes(down(u), -1, -2) @ down(u), np.broadcast_to(np.eye(30), (2, 30, 30)),
                               atol=1e-5)
    yw, yn = up(RNG.standard_normal((2, 30, 3)).astype(dt))
    same(WB.linalg_lstsq(tw, yw, 1e-7), NB.linalg_lstsq(tn, yn, 1e-7), **tol)
    sing, _ = up(np.ones((3, 3), dt))
    with pytest.raises(_LinAlgError, match="the input matrix is singular"):
        WB.linalg_inv(sing)
