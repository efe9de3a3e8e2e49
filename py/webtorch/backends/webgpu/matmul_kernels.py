"""Matrix products of the webgpu device: matmul_naive / matmul_register / matmul_tiled launches, planned once
per operand geometry; K past one invocation's loop budget (limits.py) becomes a sum of K-slice products."""
import struct

from ... import _dtype as D
from ..._broadcast import broadcast_shapes
from ..strided_view import as_matrices, dropped
from . import binding_windows, views
from .elementwise_kernels import cast, contiguous
from .handles import DeviceOp, Src, View
from .kernel_launch import source
from .matmul_layout import operand_mode, vec4_operands
from .recorder import numel
from .runtime import OutOfMemoryError
from ..._geometry import expand_strides as broadcast_strides

def matmul(rec, a, b):
    if a.dtype is D.float16:  # (both float16: host_rules.not_float)
        return cast(rec, matmul(rec, cast(rec, a, D.float32), cast(rec, b, D.float32)), D.float16)
    a, b, drop = as_matrices(a, b)
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if len(batch) > 4:  # fold to 4 batch dims through contiguous copies
        a = contiguous(rec, views.expanded(a, batch + a.shape[-2:]))
        b = contiguous(rec, views.expanded(b, batch + b.shape[-2:]))
        nb = numel(batch)
        a = views.reshaped(a, (nb,) + a.shape[-2:])
        b = views.reshaped(b, (nb,) + b.shape[-2:])
        out = matmul(rec, a, b)
        return dropped(views.reshaped(out, batch + out.shape[-2:]), drop)
    m, k = a.shape[-2:]
    n = b.shape[-1]
    return dropped(_product(rec, a, b, batch, m, n, k), drop)


def _product(rec, a, b, batch, m, n, k):
    """The (batch + (m, n)) product of a and b; in blocks of M, N or K while an operand or the result passes one
    binding (binding_windows.py): blocks of rows or columns side by side, K blocks summed."""
    out_shape = batch + (m, n)
    n_out = numel(out_shape)
    fit_a, fit_b = binding_windows.fits([a]), binding_windows.fits([b])
    fit_out = n_out * 4 <= rec.limits.binding_size()
    if not n_out or fit_a and fit_b and fit_out and binding_windows.fits([a, b]):
        out = rec.new(out_shape, D.float32)
        if n_out:
            if rec.rt.cpu_adapter and _matmul_kernel(m, n, True) == "matmul_register":
                a, b = vec4_operands(rec, a, b, numel(batch), m, n, k)
            record_matmul(rec, a, b, out, batch, m, n, k)
        return out
    split = _split_dim(a, b, m, n, k, fit_a, fit_b, fit_out)
    if split == "m":
        dim, ranges = -2, binding_windows.halves(m)
        blocks = [_product(rec, _narrowed(a, -2, r), b, batch, r[1] - r[0], n, k) for r in ranges]
    elif split == "n":
        dim, ranges = -1, binding_windows.halves(n)
        blocks = [_product(rec, a, _narrowed(b, -1, r), batch, m, r[1] - r[0], k) for r in ranges]
    elif split is None and batch:  # the batch is the widest: its first dim of more than one in halves
        i = next(i for i, x in enumerate(batch) if x > 1)
        dim, ranges = i - len(out_shape), binding_windows.halves(batch[i])
        blocks = [_product(rec, _batch_narrowed(a, i, len(batch), r), _batch_narrowed(b, i, len(batch), r),
                           batch[:i] + (r[1] - r[0],) + batch[i + 1:], m, n, k) for r in ranges]
    elif split == "k":
        first, second = (_product(rec, _narrowed(a, -1, r), _narrowed(b, -2, r), batch, m, n, r[1] - r[0])
                         for r in binding_windows.halves(k))
        return rec.ew("add", [first, second], D.float32, D.float32, out_shape)
    else:
        raise OutOfMemoryError(f"a product of {out_shape} does not split into blocks within maxStorageBufferBindingSize "
                               f"({rec.limits.binding_size():,} bytes)")
    out = rec.new(out_shape, D.float32)
    for r, block in zip(ranges, blocks):
        rec.ew("copy", [block], D.float32, D.float32, block.shape, out=_narrowed(out, dim, r))
    return out


def _split_dim(a, b, m, n, k, fit_a, fit_b, fit_out):
    """Which of M, N, K to halve ("m", "n", "k"), or None: the dim along which the operand past one binding
    extends furthest (an out past it: its rows, else its columns), a 1-long one never; None when a batch dim is
    the widest (the caller halves the batch)."""
    want = []
    if not fit_out:
        want = ["m", "n"]
    elif not fit_a:
        d = binding_windows.largest_dim([a]) - len(a.shape)
        want = ["m", "k"] if d == -2 else ["k", "m"] if d == -1 else []
    elif not fit_b:
        d = binding_windows.largest_dim([b]) - len(b.shape)
        want = ["k", "n"] if d == -2 else ["n", "k"] if d == -1 else []
    else:  # each fits alone, not together (one storage): shorter K
        want = ["k", "m", "n"]
    size = {"m": m, "n": n, "k": k}
    return next((x for x in want if size[x] > 1), None)


def _batch_narrowed(v, i, n_batch, r):
    """Operand v restricted to range r of batch dim i (of ``n_batch``), unless it broadcasts along it."""
    d = i - n_batch + len(v.shape) - 2
    return v if d < 0 or v.shape[d] == 1 else binding_windows.narrowed(v, d, *r)


def _narrowed(v, dim, r):
    return binding_windows.narrowed(v, len(v.shape) + dim, *r)


def record_matmul(rec, a, b, out, batch, m, n, k, kernel=None):
    cpu = rec.rt.cpu_adapter
    kernel = kernel or _matmul_kernel(m, n, cpu)
    k_max = _matmul_k_max(kernel, rec.limits)
    if k > k_max:  # a K past one invocation's loop budget (limits.py): products of K slices, summed
        for k0 in range(0, k, k_max):
            kc = min(k_max, k - k0)
            av = View(a.st, a.shape[:-1] + (kc,), a.strides, a.offset + k0 * a.strides[-1])
            bv = View(b.st, b.shape[:-2] + (kc, n), b.strides, b.offset + k0 * b.strides[-2])
            part = out if k0 == 0 else rec.new(out.shape, D.float32)
            record_matmul(rec, av, bv, part, batch, m, n, kc, kernel)
            if k0:
                rec.ew("add", [out, part], D.float32, D.float32, out.shape, out=out)
        return
    bound = [a.st.buf, b.st.buf]
    if binding_windows.is_big(a.st.buf) or binding_windows.is_big(b.st.buf):  # windows: offsets count from them
        (a, b), bound = binding_windows.bind([a, b])
    key = (a.shape, a.strides, a.offset, b.shape, b.strides, b.offset, batch, kernel, cpu)
    plan = rec.matmul_plans.get(key)
    if plan is None:  # a training step repeats the same products: build each launch plan once
        plan = rec.matmul_plans.put(key, _matmul_plan(a, b, batch, m, n, k, kernel, rec.limits))
    src, launches = plan
    for params, groups in launches:
        node = DeviceOp("kernel", out.shape, Src(out.st.buf, out.strides, 0, D.float32),
                    [Src(a.st.buf, (), a.offset, a.dtype), Src(b.st.buf, (), b.offset, b.dtype)],
                    {"name": kernel, "source": src, "params": params, "groups": groups,
                     "buffers": bound + [out.st.buf], "epilogue": len(launches) == 1})
        rec.record_node(node)


def _matmul_kernel(m, n, cpu):
    """matmul_naive for a thin product, else matmul_register on a CPU adapter, matmul_tiled on a GPU."""
    return "matmul_naive" if m < 4 or n < 4 else "matmul_register" if cpu else "matmul_tiled"


def _matmul_k_max(kernel, limits):
    """The longest K one launch of ``kernel`` may run within an invocation's loop budget (limits.py): the
    naive kernel loops once per k, matmul_register once per 4 k, matmul_tiled about 14 times per 16-k tile
    (its tile loads loop too; measured on lavapipe)."""
    trips = limits.loop_trips()
    return max(4, trips // 4 * 4) if kernel != "matmul_register" else 4 * trips


def _matmul_plan(a, b, batch, m, n, k, kernel, limits):
    """(WGSL source, [(params, workgroups), ...]) of one product's launch: one dispatch, or several when the
    grid passes maxComputeWorkgroupsPerDimension (each names its first batch, row and column in P[6])."""
    nb = numel(batch)
    pad = (1,) * (4 - len(batch))
    sizes = pad + batch
    a_bs = (0,) * (4 - len(batch)) + broadcast_strides(a.shape[:-2], a.strides[:-2], batch)
    b_bs = (0,) * (4 - len(batch)) + broadcast_strides(b.shape[:-2], b.strides[:-2], batch)
    ars, acs = a.strides[-2:]
    brs, bcs = b.strides[-2:]
    modes = (0, 0)
    if kernel != "matmul_naive":
        modes = (operand_mode(acs, ars, k, m, a_bs, a.offset), operand_mode(bcs, brs, n, k, b_bs, b.offset))
    if kernel == "matmul_tiled":
        wg_x, wg_y, rm = _TILE
        src = tiled_source()
        cols, rows = 4 * wg_x, wg_y * rm
    elif kernel == "matmul_register":
        src = _register_source(*modes)
        cols, rows = 8 * _REGISTER_WG[0], 8 * _REGISTER_WG[1]
    else:
        src = source("matmul_naive")
        cols, rows = 16, 16
    words = (m, n, k, nb) + sizes + a_bs + b_bs + (ars, acs, brs, bcs) + (a.offset, b.offset) + modes
    w = limits.workgroups()
    launches = []
    gx, gy = -(-n // cols), -(-m // rows)
    for z0 in range(0, nb, w):
        for y0 in range(0, gy, w):
            for x0 in range(0, gx, w):
                groups = (min(w, gx - x0), min(w, gy - y0), min(w, nb - z0))
                launches.append((struct.pack("<28I", *words, z0, y0 * rows, x0 * cols, 0), groups))
    return src, launches


# (WG_X, WG_Y, RM) of matmul_tiled.wgsl: a 64 x 64 tile of 8 x 4 register blocks (128 invocations), for
# every product: each matmul_tiled pipeline takes 1-3 s to build on SwiftShader, so a
# narrower tile for a small batch or a classifier head (fewer idle lanes in a product that is cheap
# anyway) costs far more at cold start than it saves per step. TK 16, not 32: SwiftShader unrolls the K loop
# (TK / 4 steps of RM vec4 FMAs), and TK 32 doubles its build time (MLP first step 7.3 s -> 3.9 s at 16,
# 2.4 s at 8) for about 13% more GFLOP/s on lavapipe (8 costs another 16%).
_TILE = (16, 8, 8)


def tiled_source():
    wg_x, wg_y, rm = _TILE
    return source("matmul_tiled", WG_X=f"{wg_x}u", WG_Y=f"{wg_y}u", RM=f"{rm}u", TK="16u")


# (WG_X, WG_Y) of matmul_register.wgsl (8 x 8 results per invocation): 16 invocations, 4 SIMD rows of
# SwiftShader, and many workgroups to spread over the CPU's cores. SwiftShader 128x784x256: 8.6-9.1 ms at
# 4 x 4 or 8 x 4 against 31-35 ms for matmul_tiled; each pipeline builds in ~0.17 s against 0.8-3 s.
_REGISTER_WG = (4, 4)


def _register_source(a_mode, b_mode):
    return source("matmul_register", WG_X=f"{_REGISTER_WG[0]}u", WG_Y=f"{_REGISTER_WG[1]}u", A_MODE=f"{a_mode}u",
                  B_MODE=f"{b_mode}u")
