"""Device "webgpu": WebGPUBackend, every primitive of backends/base.py over the pending queue.

The class body lists each primitive: a one-line delegation to the family module that implements it (plain
functions of the device's Recorder, recorder.py: pending queue, plan cache, planner, buffer pool, stats), or, for the
names in ``host_fallbacks``, a call of the counted host fallback (fallback.py: the NumPy backend computes,
named in ``webtorch.webgpu.stats()``). Every primitive records nodes and returns a View at once; reads
(item/tolist/to_numpy/to_bytes) flush the queue.
"""
from ... import _dtype as D
from ..base import Backend
from . import (conv_kernels, creation, device_checks, dtypes as T, elementwise_kernels, embedding_kernels,
               index_kernels, kernel_launch, linalg_kernels, matmul_kernels, optim_kernels, pad_kernels, pool_kernels,
               random_kernels, randperm_kernels, reduce_kernels, scan_sort_kernels, softmax_norm_kernels, transfer,
               unfold_kernels, value_checks, wgsl_int64, wgsl_ops)
from .fallback import host_fallback
from .handles import View
from .recorder import Recorder


class WebGPUBackend(Backend):
    device_type = "webgpu"
    #: the primitives of backends/base.py with no WGSL kernel yet: each runs on the NumPy backend, counted
    host_fallbacks = frozenset({"unique", "linalg_slogdet", "linalg_qr", "linalg_eigh", "linalg_svd",
                                "linalg_lstsq"})

    def __init__(self, runtime):
        self._rec = rec = Recorder(runtime)
        # the device's services (webtorch.webgpu, tests): the recorder's own objects
        self.rt, self.pool, self.stats, self.checks = rec.rt, rec.pool, rec.stats, rec.checks
        self.recorder, self.planner = rec, rec.planner

    # ---- device-level services (webtorch.webgpu) -----------------------------------------------------------
    def flush(self):
        """Record and submit every pending op (one batched submit); does not wait (webgpu.synchronize does)."""
        self._rec.flush()

    async def prefetch_async(self, h):
        """h (or a contiguous copy) with its bytes awaited from the device, so reading it next never blocks
        (Tensor.item_async/tolist_async/numpy_async; runtimes that can always block just flush)."""
        return await transfer.prefetch_async(self._rec, h)

    def check_dtype(self, dt):
        T.check(dt)

    # ---- handle metadata -----------------------------------------------------------------------------------
    def shape(self, h):
        return h.shape

    def geometry(self, h):
        return h.shape, h.strides, h.offset

    def dtype(self, h):
        return h.st.dtype

    def data_ptr(self, h):
        return (h.st.key << 40) + h.offset * h.st.dtype.itemsize

    def storage_ptr(self, h):
        return h.st.key << 40

    def storage_nbytes(self, h):
        return h.st.numel * h.st.dtype.itemsize

    # ---- creation ------------------------------------------------------------------------------------------
    def empty(self, shape, dtype):
        return creation.empty(self._rec, shape, dtype)

    def full(self, shape, value, dtype):
        return creation.full(self._rec, shape, value, dtype)

    def arange(self, start, end, step, dtype):
        return creation.arange(self._rec, start, end, step, dtype)

    def linspace(self, start, end, steps, dtype):
        return creation.linspace(self._rec, start, end, steps, dtype)

    def eye(self, n, m, dtype):
        return creation.eye(self._rec, n, m, dtype)

    # ---- host transfer -------------------------------------------------------------------------------------
    def from_flat(self, values, shape, dtype):
        return transfer.from_flat(self._rec, values, shape, dtype)

    def from_buffer(self, buf, shape, dtype):
        return transfer.from_buffer(self._rec, buf, shape, dtype)

    def from_numpy(self, array, copy):
        return transfer.from_numpy(self._rec, array, copy)

    def to_numpy(self, h):
        return transfer.to_numpy(self._rec, h)

    def to_bytes(self, h):
        return transfer.to_bytes(self._rec, h)

    def tolist(self, h):
        return transfer.tolist(self._rec, h)

    def item(self, h):
        return transfer.item(self._rec, h)

    def known_range(self, h):
        return transfer.known_range(self._rec, h)

    def to_other(self, h, target):
        return transfer.to_other(self._rec, h, target)

    # ---- views (the geometry of handles; no device work) ---------------------------------------------------
    def as_strided(self, h, shape, stride, offset):
        return View(h.st, tuple(shape), tuple(stride), int(offset))

    # ---- copies, casts and elementwise ---------------------------------------------------------------------
    def copy_(self, dst, src):
        return elementwise_kernels.copy_(self._rec, dst, src)

    def contiguous(self, h):
        return elementwise_kernels.contiguous(self._rec, h)

    def cast(self, h, dtype):
        return elementwise_kernels.cast(self._rec, h, dtype)

    def elementwise(self, op, args, dtype, out=None):
        return elementwise_kernels.elementwise(self._rec, op, args, dtype, out)

    # ---- reductions ----------------------------------------------------------------------------------------
    def reduce(self, op, h, dims, keepdim, dtype):
        return reduce_kernels.reduce(self._rec, op, h, dims, keepdim, dtype)

    def arg_reduce(self, op, h, dim, keepdim):
        return reduce_kernels.arg_reduce(self._rec, op, h, dim, keepdim)

    # ---- matrix products -----------------------------------------------------------------------------------
    def matmul(self, a, b):
        return matmul_kernels.matmul(self._rec, a, b)

    # ---- indexing, gather/scatter, nonzero, flip -----------------------------------------------------------
    def index(self, h, indices):
        return index_kernels.index(self._rec, h, indices)

    def index_put_(self, h, indices, values, accumulate):
        return index_kernels.index_put_(self._rec, h, indices, values, accumulate)

    def gather(self, h, dim, index):
        return index_kernels.gather(self._rec, h, dim, index)

    def scatter_(self, h, dim, index, src, reduce, include_self):
        return index_kernels.scatter_(self._rec, h, dim, index, src, reduce, include_self)

    def nonzero(self, h):
        return index_kernels.nonzero(self._rec, h)

    def flip(self, h, dims):
        return index_kernels.flip(self._rec, h, dims)

    def check_classes(self, h, n, ignore, op):
        return index_kernels.check_classes(self._rec, h, n, ignore, op)

    def require_all(self, h, op):
        value_checks.require_all(self._rec, h, op)

    # ---- convolution ---------------------------------------------------------------------------------------
    def conv(self, x, w, bias, stride, padding, dilation, groups):
        return conv_kernels.conv(self._rec, x, w, bias, stride, padding, dilation, groups)

    def conv_backward_input(self, g, w, input_shape, stride, padding, dilation, groups):
        return conv_kernels.conv_backward_input(self._rec, g, w, input_shape, stride, padding, dilation, groups)

    def conv_backward_weight(self, g, x, weight_shape, stride, padding, dilation, groups):
        return conv_kernels.conv_backward_weight(self._rec, g, x, weight_shape, stride, padding, dilation, groups)

    # ---- unfold / fold -------------------------------------------------------------------------------------
    def im2col(self, x, kernel, stride, padding, dilation):
        return unfold_kernels.im2col(self._rec, x, kernel, stride, padding, dilation)

    def col2im(self, cols, size, kernel, stride, padding, dilation):
        return unfold_kernels.col2im(self._rec, cols, size, kernel, stride, padding, dilation)

    # ---- pooling -------------------------------------------------------------------------------------------
    def max_pool(self, x, kernel, stride, padding, dilation, ceil_mode):
        return pool_kernels.max_pool(self._rec, x, kernel, stride, padding, dilation, ceil_mode)

    def adaptive_max_pool(self, x, output_size):
        return pool_kernels.adaptive_max_pool(self._rec, x, output_size)

    def avg_pool(self, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
        return pool_kernels.avg_pool(self._rec, x, kernel, stride, padding, ceil_mode, count_include_pad,
                                     divisor_override)

    def avg_pool_backward(self, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad,
                          divisor_override):
        return pool_kernels.avg_pool_backward(self._rec, g, input_shape, kernel, stride, padding, ceil_mode,
                                              count_include_pad, divisor_override)

    def scatter_plane(self, src, indices, plane_shape, accumulate):
        return pool_kernels.scatter_plane(self._rec, src, indices, plane_shape, accumulate)

    def gather_plane(self, src, indices):
        return pool_kernels.gather_plane(self._rec, src, indices)

    # ---- padding -------------------------------------------------------------------------------------------
    def pad(self, x, pads, mode, value):
        return pad_kernels.pad(self._rec, x, pads, mode, value)

    def pad_backward(self, g, pads, mode):
        return pad_kernels.pad_backward(self._rec, g, pads, mode)

    # ---- embedding -----------------------------------------------------------------------------------------
    def embedding(self, weight, indices):
        return embedding_kernels.embedding(self._rec, weight, indices)

    def embedding_backward(self, g, indices, num_weights, padding_idx, scale_grad_by_freq):
        return embedding_kernels.embedding_backward(self._rec, g, indices, num_weights, padding_idx, scale_grad_by_freq)

    def embedding_renorm_(self, weight, indices, max_norm, norm_type):
        return embedding_kernels.embedding_renorm_(self._rec, weight, indices, max_norm, norm_type)

    # ---- optim: fused multi-tensor updates -----------------------------------------------------------------
    def sgd_update(self, params, grads, momentum_bufs, lr, momentum, dampening, weight_decay, nesterov, maximize):
        return optim_kernels.sgd_update(self._rec, params, grads, momentum_bufs, lr, momentum, dampening, weight_decay,
                                        nesterov, maximize)

    def adam_update(self, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2, eps,
                    weight_decay, amsgrad, maximize, decoupled):
        return optim_kernels.adam_update(self._rec, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr,
                                         beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled)

    def rmsprop_update(self, params, grads, square_avgs, grad_avgs, momentum_bufs, lr, alpha, eps, weight_decay,
                       momentum, centered, maximize):
        return optim_kernels.rmsprop_update(self._rec, params, grads, square_avgs, grad_avgs, momentum_bufs, lr, alpha,
                                            eps, weight_decay, momentum, centered, maximize)

    def adagrad_update(self, params, grads, state_sums, steps, lr, lr_decay, weight_decay, eps, maximize):
        return optim_kernels.adagrad_update(self._rec, params, grads, state_sums, steps, lr, lr_decay, weight_decay,
                                            eps, maximize)

    def adadelta_update(self, params, grads, square_avgs, acc_deltas, lr, rho, eps, weight_decay, maximize):
        return optim_kernels.adadelta_update(self._rec, params, grads, square_avgs, acc_deltas, lr, rho, eps,
                                             weight_decay, maximize)

    def adamax_update(self, params, grads, exp_avgs, exp_infs, steps, lr, beta1, beta2, eps, weight_decay, maximize):
        return optim_kernels.adamax_update(self._rec, params, grads, exp_avgs, exp_infs, steps, lr, beta1, beta2, eps,
                                           weight_decay, maximize)

    def nadam_update(self, params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, lr, beta1, beta2, eps,
                     weight_decay, momentum_decay, decoupled, maximize):
        return optim_kernels.nadam_update(self._rec, params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, lr,
                                          beta1, beta2, eps, weight_decay, momentum_decay, decoupled, maximize)

    def radam_update(self, params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2, eps, weight_decay, decoupled,
                     maximize):
        return optim_kernels.radam_update(self._rec, params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2,
                                          eps, weight_decay, decoupled, maximize)

    # ---- softmax, layer norm, batch norm -------------------------------------------------------------------
    def softmax(self, h, dim, log, dtype):
        return softmax_norm_kernels.softmax(self._rec, h, dim, log, dtype)

    def softmax_backward(self, g, y, dim, log, dtype):
        return softmax_norm_kernels.softmax_backward(self._rec, g, y, dim, log, dtype)

    def layer_norm(self, x, weight, bias, n, eps):
        return softmax_norm_kernels.layer_norm(self._rec, x, weight, bias, n, eps)

    def layer_norm_backward(self, g, x, mean, rstd, weight, n, need):
        return softmax_norm_kernels.layer_norm_backward(self._rec, g, x, mean, rstd, weight, n, need)

    def batch_norm(self, x, weight, bias, running_mean, running_var, momentum, eps):
        return softmax_norm_kernels.batch_norm(self._rec, x, weight, bias, running_mean, running_var, momentum, eps)

    def batch_norm_backward(self, g, x, mean, rstd, weight, need):
        return softmax_norm_kernels.batch_norm_backward(self._rec, g, x, mean, rstd, weight, need)

    # ---- scans, sorting, searching -------------------------------------------------------------------------
    def cumulative(self, op, h, dim, dtype, reverse=False):
        return scan_sort_kernels.cumulative(self._rec, op, h, dim, dtype, reverse)

    def sort(self, h, dim, descending, stable):
        return scan_sort_kernels.sort(self._rec, h, dim, descending, stable)

    def topk(self, h, k, dim, largest, sorted):
        return scan_sort_kernels.topk(self._rec, h, k, dim, largest, sorted)

    def searchsorted(self, seq, values, right, out_int32):
        return scan_sort_kernels.searchsorted(self._rec, seq, values, right, out_int32)

    # ---- dense linear algebra ------------------------------------------------------------------------------
    def linalg_inv(self, a):
        return linalg_kernels.linalg_inv(self._rec, a)

    def linalg_det(self, a):
        return linalg_kernels.linalg_det(self._rec, a)

    def linalg_solve(self, a, b):
        return linalg_kernels.linalg_solve(self._rec, a, b)

    def linalg_cholesky(self, a, upper):
        return linalg_kernels.linalg_cholesky(self._rec, a, upper)

    def linalg_solve_triangular(self, a, b, upper, left, unitriangular):
        return linalg_kernels.linalg_solve_triangular(self._rec, a, b, upper, left, unitriangular)

    # ---- random --------------------------------------------------------------------------------------------
    def rng_new(self, seed):
        return random_kernels.rng_new(self._rec, seed)

    def rng_get_state(self, rng):
        return random_kernels.rng_get_state(self._rec, rng)

    def rng_set_state(self, rng, state):
        return random_kernels.rng_set_state(self._rec, rng, state)

    def uniform(self, shape, low, high, dtype, rng):
        return random_kernels.uniform(self._rec, shape, low, high, dtype, rng)

    def normal(self, shape, mean, std, dtype, rng):
        return random_kernels.normal(self._rec, shape, mean, std, dtype, rng)

    def randint(self, shape, low, high, dtype, rng):
        return random_kernels.randint(self._rec, shape, low, high, dtype, rng)

    def bernoulli(self, p, shape, dtype, rng):
        return random_kernels.bernoulli(self._rec, p, shape, dtype, rng)

    # ---- random permutation --------------------------------------------------------------------------------
    def randperm(self, n, dtype, rng):
        return randperm_kernels.randperm(self._rec, n, dtype, rng)

    # ---- host fallbacks: the primitives of host_fallbacks, run on the NumPy backend (fallback.py) ----------
    def unique(self, h, sorted, return_inverse, return_counts, dim):
        return host_fallback(self._rec, "unique", h, sorted, return_inverse, return_counts, dim)

    def linalg_slogdet(self, a):
        return host_fallback(self._rec, "linalg_slogdet", a)

    def linalg_qr(self, a, mode):
        return host_fallback(self._rec, "linalg_qr", a, mode)

    def linalg_eigh(self, a, upper, compute_v):
        return host_fallback(self._rec, "linalg_eigh", a, upper, compute_v)

    def linalg_svd(self, a, full_matrices, compute_uv):
        return host_fallback(self._rec, "linalg_svd", a, full_matrices, compute_uv)

    def linalg_lstsq(self, a, b, rcond):
        return host_fallback(self._rec, "linalg_lstsq", a, b, rcond)


def int64_kernel_sources():
    """{name: WGSL} of the kernels int64 adds to the shipped templates' own forms: their 64-bit variants, and
    every int64 helper (beside the error-word helpers) in one module -- what the Tint and naga compile tests build."""
    i64 = wgsl_int64.TYPE
    out = {f"scan_cumulative[int64,op{op},{seq}]": scan_sort_kernels.kernel_source(
        "scan_cumulative", T=i64, FLOAT=False, OP=f"{op}u", SEQUENTIAL=seq) for op in (0, 3) for seq in (False, True)}
    out["sort_bitonic[int64]"] = scan_sort_kernels.kernel_source("sort_bitonic", T=i64, FLOAT=False, DESCENDING=True)
    out["sort_searchsorted[int64]"] = scan_sort_kernels.kernel_source("sort_searchsorted", T=i64, RIGHT=True)
    out["index_take[int64]"] = kernel_launch.source("index_take", T=i64)
    out["random_philox[raw words]"] = random_kernels.philox_source(3, D.uint32)
    out["int64 helpers"] = (device_checks.declaration(0) + "\n" + device_checks.HELPERS
                            + wgsl_ops.helper_sources(wgsl_int64.HELPERS)
                            + "\n@compute @workgroup_size(1)\nfn main() { wt_report(0u, 0, 0u); }\n")
    return out
