"""Device "cpu" on WebAssembly: WasmBackend, the primitives of backends/base.py over kernels.wasm.

The class body lists each primitive: the handle metadata here, every other one a one-line delegation to the plain
function of the same name in its family module, called with the backend's KernelContext (context.py: runtime,
heap, constants arena) and base.py's parameters. Eager: each primitive runs its kernels before it returns.
"""
from ..base import Backend
from . import (convolution, copies, creation, elementwise, embedding, indexing, linalg, matmul, nn, optim, padding,
               pooling, reduction, rng, scan_sort, transfer, unique)
from .context import KernelContext
from .views import View


class WasmBackend(Backend):
    device_type = "cpu"
    host_fallbacks = frozenset()

    def __init__(self, runtime):
        self._ctx = KernelContext(runtime)
        self.rt, self.heap = runtime, self._ctx.heap

    # ---- handle metadata -----------------------------------------------------------------------------------
    def shape(self, h):
        return h.shape

    def geometry(self, h):
        return h.shape, h.strides, h.offset

    def dtype(self, h):
        return h.st.dtype

    def data_ptr(self, h):
        return h.addr

    def storage_ptr(self, h):
        return h.st.addr

    def storage_nbytes(self, h):
        return h.st.numel * h.st.dtype.itemsize

    # ---- creation ------------------------------------------------------------------------------------------
    def empty(self, shape, dtype):
        return creation.empty(self._ctx, shape, dtype)

    def full(self, shape, value, dtype):
        return creation.full(self._ctx, shape, value, dtype)

    def arange(self, start, end, step, dtype):
        return creation.arange(self._ctx, start, end, step, dtype)

    def linspace(self, start, end, steps, dtype):
        return creation.linspace(self._ctx, start, end, steps, dtype)

    def eye(self, n, m, dtype):
        return creation.eye(self._ctx, n, m, dtype)

    # ---- host transfer -------------------------------------------------------------------------------------
    def from_flat(self, values, shape, dtype):
        return transfer.from_flat(self._ctx, values, shape, dtype)

    def from_buffer(self, buf, shape, dtype):
        return transfer.from_buffer(self._ctx, buf, shape, dtype)

    def from_numpy(self, array, copy):
        return transfer.from_numpy(self._ctx, array, copy)

    def to_numpy(self, h):
        return transfer.to_numpy(self._ctx, h)

    def to_bytes(self, h):
        return transfer.to_bytes(self._ctx, h)

    def tolist(self, h):
        return transfer.tolist(self._ctx, h)

    def item(self, h):
        return transfer.item(self._ctx, h)

    def known_range(self, h):
        return transfer.known_range(self._ctx, h)

    def to_other(self, h, target):
        return transfer.to_other(self._ctx, h, target)

    # ---- views ---------------------------------------------------------------------------------------------
    def as_strided(self, h, shape, stride, offset):
        return View(h.st, tuple(shape), tuple(stride), int(offset))

    # ---- copies, casts and elementwise ---------------------------------------------------------------------
    def copy_(self, dst, src):
        return copies.copy_(self._ctx, dst, src)

    def contiguous(self, h):
        return copies.contiguous(self._ctx, h)

    def cast(self, h, dtype):
        return copies.cast(self._ctx, h, dtype)

    def elementwise(self, op, args, dtype, out=None):
        return elementwise.elementwise(self._ctx, op, args, dtype, out)

    # ---- reductions ----------------------------------------------------------------------------------------
    def reduce(self, op, h, dims, keepdim, dtype):
        return reduction.reduce(self._ctx, op, h, dims, keepdim, dtype)

    def arg_reduce(self, op, h, dim, keepdim):
        return reduction.arg_reduce(self._ctx, op, h, dim, keepdim)

    # ---- matrix products -----------------------------------------------------------------------------------
    def matmul(self, a, b):
        return matmul.matmul(self._ctx, a, b)

    # ---- random: Philox4x32-10 streams, webgpu's (backends/philox.py) ---------------------------------------
    def rng_new(self, seed):
        return rng.rng_new(self._ctx, seed)

    def rng_get_state(self, rng_):
        return rng.rng_get_state(self._ctx, rng_)

    def rng_set_state(self, rng_, state):
        return rng.rng_set_state(self._ctx, rng_, state)

    def uniform(self, shape, low, high, dtype, rng_):
        return rng.uniform(self._ctx, shape, low, high, dtype, rng_)

    def normal(self, shape, mean, std, dtype, rng_):
        return rng.normal(self._ctx, shape, mean, std, dtype, rng_)

    def randint(self, shape, low, high, dtype, rng_):
        return rng.randint(self._ctx, shape, low, high, dtype, rng_)

    def randperm(self, n, dtype, rng_):
        return rng.randperm(self._ctx, n, dtype, rng_)

    def bernoulli(self, p, shape, dtype, rng_):
        return rng.bernoulli(self._ctx, p, shape, dtype, rng_)

    # ---- indexing, gather/scatter, nonzero, flip -----------------------------------------------------------
    def index(self, h, indices):
        return indexing.index(self._ctx, h, indices)

    def index_put_(self, h, indices, values, accumulate):
        return indexing.index_put_(self._ctx, h, indices, values, accumulate)

    def gather(self, h, dim, index):
        return indexing.gather(self._ctx, h, dim, index)

    def scatter_(self, h, dim, index, src, reduce, include_self):
        return indexing.scatter_(self._ctx, h, dim, index, src, reduce, include_self)

    def nonzero(self, h):
        return indexing.nonzero(self._ctx, h)

    def flip(self, h, dims):
        return indexing.flip(self._ctx, h, dims)

    def unique(self, h, sorted, return_inverse, return_counts, dim):
        return unique.unique(self._ctx, h, sorted, return_inverse, return_counts, dim)

    check_classes = Backend.check_classes  # base.py's check reads the values back: cheap in the linear memory

    # ---- convolution, pooling, padding, embedding ----------------------------------------------------------
    def conv(self, x, w, bias, stride, padding, dilation, groups):
        return convolution.conv(self._ctx, x, w, bias, stride, padding, dilation, groups)

    def conv_backward_input(self, g, w, input_shape, stride, padding, dilation, groups):
        return convolution.conv_backward_input(self._ctx, g, w, input_shape, stride, padding, dilation, groups)

    def conv_backward_weight(self, g, x, weight_shape, stride, padding, dilation, groups):
        return convolution.conv_backward_weight(self._ctx, g, x, weight_shape, stride, padding, dilation, groups)

    def im2col(self, x, kernel, stride, padding, dilation):
        return convolution.im2col(self._ctx, x, kernel, stride, padding, dilation)

    def col2im(self, cols, size, kernel, stride, padding, dilation):
        return convolution.col2im(self._ctx, cols, size, kernel, stride, padding, dilation)

    def max_pool(self, x, kernel, stride, padding, dilation, ceil_mode):
        return pooling.max_pool(self._ctx, x, kernel, stride, padding, dilation, ceil_mode)

    def adaptive_max_pool(self, x, output_size):
        return pooling.adaptive_max_pool(self._ctx, x, output_size)

    def avg_pool(self, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
        return pooling.avg_pool(self._ctx, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)

    def avg_pool_backward(self, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad,
                          divisor_override):
        return pooling.avg_pool_backward(self._ctx, g, input_shape, kernel, stride, padding, ceil_mode,
                                         count_include_pad, divisor_override)

    def scatter_plane(self, src, indices, plane_shape, accumulate):
        return pooling.scatter_plane(self._ctx, src, indices, plane_shape, accumulate)

    def gather_plane(self, src, indices):
        return pooling.gather_plane(self._ctx, src, indices)

    def pad(self, x, pads, mode, value):
        return padding.pad(self._ctx, x, pads, mode, value)

    def pad_backward(self, g, pads, mode):
        return padding.pad_backward(self._ctx, g, pads, mode)

    def embedding(self, weight, indices):
        return embedding.embedding(self._ctx, weight, indices)

    def embedding_backward(self, g, indices, num_weights, padding_idx, scale_grad_by_freq):
        return embedding.embedding_backward(self._ctx, g, indices, num_weights, padding_idx, scale_grad_by_freq)

    def embedding_renorm_(self, weight, indices, max_norm, norm_type):
        return embedding.embedding_renorm_(self._ctx, weight, indices, max_norm, norm_type)

    # ---- optim: fused multi-tensor optimizer updates -------------------------------------------------------
    def sgd_update(self, params, grads, momentum_bufs, lr, momentum, dampening, weight_decay, nesterov, maximize):
        return optim.sgd_update(self._ctx, params, grads, momentum_bufs, lr, momentum, dampening, weight_decay,
                                nesterov, maximize)

    def adam_update(self, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2, eps,
                    weight_decay, amsgrad, maximize, decoupled):
        return optim.adam_update(self._ctx, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1,
                                 beta2, eps, weight_decay, amsgrad, maximize, decoupled)

    def rmsprop_update(self, params, grads, square_avgs, grad_avgs, momentum_bufs, lr, alpha, eps, weight_decay,
                       momentum, centered, maximize):
        return optim.rmsprop_update(self._ctx, params, grads, square_avgs, grad_avgs, momentum_bufs, lr, alpha, eps,
                                    weight_decay, momentum, centered, maximize)

    def adagrad_update(self, params, grads, state_sums, steps, lr, lr_decay, weight_decay, eps, maximize):
        return optim.adagrad_update(self._ctx, params, grads, state_sums, steps, lr, lr_decay, weight_decay, eps,
                                    maximize)

    def adadelta_update(self, params, grads, square_avgs, acc_deltas, lr, rho, eps, weight_decay, maximize):
        return optim.adadelta_update(self._ctx, params, grads, square_avgs, acc_deltas, lr, rho, eps, weight_decay,
                                     maximize)

    def adamax_update(self, params, grads, exp_avgs, exp_infs, steps, lr, beta1, beta2, eps, weight_decay,
                      maximize):
        return optim.adamax_update(self._ctx, params, grads, exp_avgs, exp_infs, steps, lr, beta1, beta2, eps,
                                   weight_decay, maximize)

    def nadam_update(self, params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, lr, beta1, beta2, eps,
                     weight_decay, momentum_decay, decoupled, maximize):
        return optim.nadam_update(self._ctx, params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, lr, beta1,
                                  beta2, eps, weight_decay, momentum_decay, decoupled, maximize)

    def radam_update(self, params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2, eps, weight_decay,
                     decoupled, maximize):
        return optim.radam_update(self._ctx, params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2, eps,
                                  weight_decay, decoupled, maximize)

    # ---- nn: fused softmax, layer norm and batch norm ------------------------------------------------------
    def softmax(self, h, dim, log, dtype):
        return nn.softmax(self._ctx, h, dim, log, dtype)

    def softmax_backward(self, g, y, dim, log, dtype):
        return nn.softmax_backward(self._ctx, g, y, dim, log, dtype)

    def layer_norm(self, x, weight, bias, n, eps):
        return nn.layer_norm(self._ctx, x, weight, bias, n, eps)

    def layer_norm_backward(self, g, x, mean, rstd, weight, n, need):
        return nn.layer_norm_backward(self._ctx, g, x, mean, rstd, weight, n, need)

    def batch_norm(self, x, weight, bias, running_mean, running_var, momentum, eps):
        return nn.batch_norm(self._ctx, x, weight, bias, running_mean, running_var, momentum, eps)

    def batch_norm_backward(self, g, x, mean, rstd, weight, need):
        return nn.batch_norm_backward(self._ctx, g, x, mean, rstd, weight, need)

    # ---- scans, sorting, searching -------------------------------------------------------------------------
    def cumulative(self, op, h, dim, dtype, reverse=False):
        return scan_sort.cumulative(self._ctx, op, h, dim, dtype, reverse)

    def sort(self, h, dim, descending, stable):
        return scan_sort.sort(self._ctx, h, dim, descending, stable)

    def topk(self, h, k, dim, largest, sorted):
        return scan_sort.topk(self._ctx, h, k, dim, largest, sorted)

    def searchsorted(self, seq, values, right, out_int32):
        return scan_sort.searchsorted(self._ctx, seq, values, right, out_int32)

    # ---- dense linear algebra ------------------------------------------------------------------------------
    def linalg_inv(self, a):
        return linalg.linalg_inv(self._ctx, a)

    def linalg_det(self, a):
        return linalg.linalg_det(self._ctx, a)

    def linalg_solve(self, a, b):
        return linalg.linalg_solve(self._ctx, a, b)

    def linalg_cholesky(self, a, upper):
        return linalg.linalg_cholesky(self._ctx, a, upper)

    def linalg_solve_triangular(self, a, b, upper, left, unitriangular):
        return linalg.linalg_solve_triangular(self._ctx, a, b, upper, left, unitriangular)

    def linalg_slogdet(self, a):
        return linalg.linalg_slogdet(self._ctx, a)

    def linalg_qr(self, a, mode):
        return linalg.linalg_qr(self._ctx, a, mode)

    def linalg_eigh(self, a, upper, compute_v):
        return linalg.linalg_eigh(self._ctx, a, upper, compute_v)

    def linalg_svd(self, a, full_matrices, compute_uv):
        return linalg.linalg_svd(self._ctx, a, full_matrices, compute_uv)

    def linalg_lstsq(self, a, b, rcond):
        return linalg.linalg_lstsq(self._ctx, a, b, rcond)
