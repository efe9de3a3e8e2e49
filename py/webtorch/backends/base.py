"""THE primitive interface every backend implements.

A backend owns the bytes. It hands out opaque *handles*: a handle is one strided view (shape, strides,
storage offset, dtype) of one storage. Public ops (webtorch.ops) are written against these primitives
only; autograd, nn and optim are written against public ops. Adding a primitive means: document it
here, implement it in every backend, and cover it through the shared op tests.

Conventions
- shapes and strides are tuples of Python ints, strides in elements;
- ``dtype`` arguments are webtorch dtypes (webtorch._dtype);
- an ``args`` entry of ``elementwise`` is a handle or a Python scalar;
- every primitive returns a *new* handle with a fresh contiguous storage, unless it is a view primitive
  (documented as such) or takes ``out``, a handle it writes into;
- dims passed to primitives are already normalized (non-negative, validated by the op layer).

Elementwise op names (``elementwise``) and their arity: ELEMENTWISE_OPS in op_facts.py. The op layer computes
the result dtype (PyTorch promotion) and passes it; inputs may differ in dtype and broadcast against each other.
"""
from .. import _dtype as D
from .. import _geometry as G
from .op_facts import VALUE_CHECKS



class IndexOutOfRange(IndexError):
    """Raised by the indexing primitives; carries what the op layer needs to word PyTorch's message."""

    def __init__(self, index, dim, size):
        super().__init__(f"index {index} is out of bounds for dimension {dim} with size {size}")
        self.index, self.dim, self.size = index, dim, size


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix was singular (raised by the optional linalg_* primitives)."""


class HandleViews:
    """Views of a bare handle, for code below Tensor (kernels, ops working on handles): _geometry decides each
    from the handle's own geometry and the backend's ``as_strided`` makes it. Derived, not primitives: every
    backend inherits them and none defines its own (Tensor-level view ops use the Tensor's geometry)."""

    def reshape_view(self, h, shape):
        """A view with the new shape if the strides allow it, else None."""
        old_shape, strides, offset = self.geometry(h)
        st = G.view_strides(old_shape, strides, shape)
        return None if st is None else self.as_strided(h, tuple(shape), st, offset)

    def permute(self, h, dims):
        return self.as_strided(h, *G.permute(*self.geometry(h), dims))

    def expand(self, h, shape):
        """Broadcast view (stride 0 on expanded dims and on new leading dims)."""
        return self.as_strided(h, *G.expand(*self.geometry(h), tuple(shape)))

    def slice(self, h, key):
        """Basic indexing view: key is a tuple of ints, slices (step > 0) and None, already complete."""
        return self.as_strided(h, *G.slice_key(*self.geometry(h), key))

    def diagonal(self, h, offset, dim1, dim2):
        return self.as_strided(h, *G.diagonal(*self.geometry(h), offset, dim1, dim2))


class Backend(HandleViews):
    """Abstract base: each method documents a primitive. Backends subclass and implement all of them."""

    device_type = None

    # ---- handle metadata ------------------------------------------------------------------------
    def shape(self, h):
        """tuple of ints."""
        raise NotImplementedError

    def geometry(self, h):
        """(shape, strides, storage offset) of the handle, in elements."""
        raise NotImplementedError

    def dtype(self, h):
        """webtorch dtype of the handle."""
        raise NotImplementedError

    def data_ptr(self, h):
        """An integer identifying the first element (equal for handles viewing the same place)."""
        raise NotImplementedError

    def storage_ptr(self, h):
        """An integer identifying the storage (equal for all views of one storage)."""
        raise NotImplementedError

    def storage_nbytes(self, h):
        raise NotImplementedError

    # ---- creation and host transfer ---------------------------------------------------------------
    def empty(self, shape, dtype):
        raise NotImplementedError

    def full(self, shape, value, dtype):
        raise NotImplementedError

    def arange(self, start, end, step, dtype):
        raise NotImplementedError

    def linspace(self, start, end, steps, dtype):
        raise NotImplementedError

    def eye(self, n, m, dtype):
        raise NotImplementedError

    def from_flat(self, values, shape, dtype):
        """New handle from a flat Python list of numbers in C order."""
        raise NotImplementedError

    def from_buffer(self, buf, shape, dtype):
        """New handle copying a bytes-like object holding little-endian elements in C order."""
        raise NotImplementedError

    def from_numpy(self, array, copy):
        """Handle sharing (copy=False, cpu only) or copying a NumPy array."""
        raise NotImplementedError

    def to_numpy(self, h):
        """NumPy array of the view (shares memory on cpu)."""
        raise NotImplementedError

    def to_bytes(self, h):
        """The elements as little-endian bytes in C order."""
        raise NotImplementedError

    def tolist(self, h):
        raise NotImplementedError

    def item(self, h):
        raise NotImplementedError

    def known_range(self, h):
        """(min, max) bounds of the integer handle h's values when the backend knows them without computing or
        reading anything (recorded at upload, by creation ops, carried through casts and gathers), else None.
        Index/target range checks use it to skip a device read; a backend whose reads are cheap returns None."""
        raise NotImplementedError

    # ---- views (return handles aliasing the same storage) -----------------------------------------
    def as_strided(self, h, shape, stride, offset):
        """View of h's storage with the given geometry (offset absolute, in elements). The only view primitive:
        webtorch._geometry decides every view's geometry, for all devices."""
        raise NotImplementedError

    # ---- copies and casts -------------------------------------------------------------------------
    def copy_(self, dst, src):
        """Write src (a handle of any dtype or a Python scalar, broadcast to dst) into dst in place."""
        raise NotImplementedError

    def contiguous(self, h):
        """A fresh C-contiguous copy."""
        raise NotImplementedError

    def cast(self, h, dtype):
        """A fresh copy converted to dtype (float->int truncates toward zero, as PyTorch)."""
        raise NotImplementedError

    def to_other(self, h, target):
        """Copy to another backend ``target``; returns target's handle."""
        raise NotImplementedError

    # ---- compute ------------------------------------------------------------------------------------
    def elementwise(self, op, args, dtype, out=None):
        """Broadcasting elementwise op (op_facts.ELEMENTWISE_OPS); computes in ``dtype`` (bool ops: inputs' dtype,
        result bool). With ``out`` writes into that handle (same shape as the broadcast result)."""
        raise NotImplementedError

    def reduce(self, op, h, dims, keepdim, dtype):
        """op_facts.REDUCE_OPS over ``dims`` (a tuple; empty = all dims) accumulating in/returning ``dtype``."""
        raise NotImplementedError

    def arg_reduce(self, op, h, dim, keepdim):
        """'argmax' / 'argmin' along dim (None: flattened), int64 result, first occurrence on ties."""
        raise NotImplementedError

    def matmul(self, a, b):
        """Batched matrix product of (..., n, k) and (..., k, m) with broadcast batch dims."""
        raise NotImplementedError

    # ---- random: a stream object per generator (torch.Generator), owned by the backend ---------------------
    # Streams differ by backend (a cpu and a webgpu generator seeded alike give different numbers, as in PyTorch).
    def rng_new(self, seed):
        """A new random stream seeded with the int ``seed``; passed as ``rng`` to the sampling primitives."""
        raise NotImplementedError

    def rng_get_state(self, rng):
        """The stream's state as bytes (Generator.get_state)."""
        raise NotImplementedError

    def rng_set_state(self, rng, state):
        """Restore the stream to ``state``, bytes that rng_get_state returned."""
        raise NotImplementedError

    def uniform(self, shape, low, high, dtype, rng):
        """Floats of ``dtype`` drawn uniformly from [low, high)."""
        raise NotImplementedError

    def normal(self, shape, mean, std, dtype, rng):
        """Floats of ``dtype`` drawn from the normal distribution N(mean, std**2)."""
        raise NotImplementedError

    def randint(self, shape, low, high, dtype, rng):
        """Integers drawn uniformly from [low, high), returned as ``dtype``."""
        raise NotImplementedError

    def randperm(self, n, dtype, rng):
        """A random permutation of 0 .. n-1 as a 1-D handle of ``dtype``."""
        raise NotImplementedError

    def bernoulli(self, p, shape, dtype, rng):
        """1 where a uniform draw is below p, else 0, as ``dtype``; p is a float or a float handle broadcast to
        ``shape``."""
        raise NotImplementedError

    # ---- indexing, gather/scatter, nonzero, flip (ops/indexing, scatter_gather, index_along_dim, masked, shape) ---
    # Index handles are integer handles (int64 or int32). Out-of-range indices raise IndexOutOfRange
    # (below) before anything is written; the op layer may reword it as PyTorch does for that op.
    # Primitives ending in ``_`` write into their first handle in place and return it; a destination
    # that is an expanded (stride-0) view raises RuntimeError as copy_ does.
    def index(self, h, indices):
        """Advanced indexing (aten::index): ``indices`` has one entry per leading dim of h, an index handle
        or None (the whole dim). The index handles broadcast together; the broadcast dims replace the
        indexed dims in place when those are adjacent, else they come first (NumPy's rule). Negative
        indices count from the end. IndexOutOfRange.dim is the position among the non-None entries."""
        raise NotImplementedError

    def index_put_(self, h, indices, values, accumulate):
        """In place h[indices] = values (indices as in ``index``; values a handle of h's dtype or a
        Python scalar, broadcast to the indexed shape). accumulate: duplicates add up; else one wins."""
        raise NotImplementedError

    def gather(self, h, dim, index):
        """out[i_0..i_n] = h[i_0.., index[i_0..i_n], ..i_n] (index replaces coordinate ``dim``); the result
        has index's shape, index.shape[d] <= h.shape[d] for d != dim. No negative indices."""
        raise NotImplementedError

    def scatter_(self, h, dim, index, src, reduce, include_self):
        """In place along dim: for every position i of index, h[i with coordinate dim = index[i]] is
        combined with src[i] (src: a handle of h's dtype at least index's size in every dim, or a Python
        scalar). reduce: None (assign; one duplicate wins), 'sum', 'prod', 'mean', 'amax', 'amin'.
        include_self=False: the old values at scattered positions take no part (mean divides by the number
        of sources). Integer mean rounds toward negative infinity. No negative indices."""
        raise NotImplementedError

    def nonzero(self, h):
        """int64 handle (n, ndim) of the coordinates of the non-zero elements in C order (data-dependent
        shape: a lazy backend must materialize)."""
        raise NotImplementedError

    def flip(self, h, dims):
        """A fresh copy with the elements reversed along each of ``dims`` (a tuple)."""
        raise NotImplementedError

    # ---- convolution, pooling, padding, embedding ----------------------------------------------------
    # Spatial primitives take (N, C, *spatial) handles with 1, 2 or 3 spatial dims; ``kernel``, ``stride``,
    # ``padding`` (symmetric: that many zeros before and after) and ``dilation`` are tuples with one int per
    # spatial dim, already validated. Output length per dim: (S + 2p - d(k-1) - 1) // s + 1 (pooling with
    # ceil_mode rounds up, dropping a last window that would start in the right padding).
    # Transposed convolution is conv_backward_input (its backward: conv and conv_backward_weight); a GPU
    # backend implements the three as implicit GEMM.
    def conv(self, x, w, bias, stride, padding, dilation, groups):
        """Cross-correlation of x (N, Cin, *S) with w (Cout, Cin/groups, *K) plus bias (Cout,) or None:
        (N, Cout, *O). Channel group g of the input meets output channels [g*Cout/G, (g+1)*Cout/G)."""
        raise NotImplementedError

    def conv_backward_input(self, g, w, input_shape, stride, padding, dilation, groups):
        """Gradient of conv w.r.t. its input: g (N, Cout, *O) -> (N, Cin, *S) with S = input_shape[2:]
        (positions no window reaches get 0). Equals conv_transpose of g."""
        raise NotImplementedError

    def conv_backward_weight(self, g, x, weight_shape, stride, padding, dilation, groups):
        """Gradient of conv w.r.t. its weight: g (N, Cout, *O), x (N, Cin, *S) -> weight_shape."""
        raise NotImplementedError

    def im2col(self, x, kernel, stride, padding, dilation):
        """F.unfold: (N, C, *S) -> (N, C*prod(K), L) with rows ordered (c, k1, k2, ...) and L output positions."""
        raise NotImplementedError

    def col2im(self, cols, size, kernel, stride, padding, dilation):
        """F.fold, the adjoint of im2col: (N, C*prod(K), L) -> (N, C, *size), overlapping entries summed."""
        raise NotImplementedError

    def max_pool(self, x, kernel, stride, padding, dilation, ceil_mode):
        """Max over windows (padding counts as -inf): ``(values, indices)``, indices int64 into each input
        plane flattened (h * W + w), first maximum in window order; NaN wins."""
        raise NotImplementedError

    def adaptive_max_pool(self, x, output_size):
        """Max over PyTorch's adaptive windows [floor(i*S/O), ceil((i+1)*S/O)) per dim: (values, indices)
        as max_pool."""
        raise NotImplementedError

    def avg_pool(self, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
        """Window means; divisor: divisor_override if set, else the window clipped to input+padding
        (count_include_pad) or to the input. Integer inputs divide truncating toward zero (as C)."""
        raise NotImplementedError

    def avg_pool_backward(self, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad,
                          divisor_override):
        """Gradient of avg_pool: each output gradient / its divisor, added over its window's input positions."""
        raise NotImplementedError

    def scatter_plane(self, src, indices, plane_shape, accumulate):
        """Zeros (N, C, *plane_shape) with src[n, c, ...] written (accumulate=False: max_unpool) or added
        (True: max-pool backward) at flat per-plane position indices[n, c, ...]. An index outside the plane
        raises RuntimeError("Found an invalid max index: ...")."""
        raise NotImplementedError

    def gather_plane(self, src, indices):
        """out[n, c, ...] = src[n, c].flatten()[indices[n, c, ...]]: shape of indices, dtype of src."""
        raise NotImplementedError

    def pad(self, x, pads, mode, value):
        """x padded by pads = ((before, after), ...) (one pair per dim, all >= 0). mode: 'constant' (value),
        'reflect' (mirror without the edge, pad < size), 'replicate' (edge), 'circular' (wrap, pad <= size)."""
        raise NotImplementedError

    def pad_backward(self, g, pads, mode):
        """Adjoint of pad: g of the padded shape -> the unpadded shape, each padded cell's gradient added to
        the input cell it copies."""
        raise NotImplementedError

    def embedding(self, weight, indices):
        """Rows of weight (V, D) at int64 indices (any shape): indices.shape + (D,). An index outside
        [0, V) raises IndexError("index out of range in self")."""
        raise NotImplementedError

    def embedding_backward(self, g, indices, num_weights, padding_idx, scale_grad_by_freq):
        """(num_weights, D) gradient: row r sums g at the positions where indices == r (divided by r's count
        when scale_grad_by_freq); row padding_idx (an int or None) stays 0."""
        raise NotImplementedError

    def embedding_renorm_(self, weight, indices, max_norm, norm_type):
        """In place: each row of weight named in indices whose norm_type-norm exceeds max_norm is scaled by
        max_norm / (norm + 1e-7). Returns weight."""
        raise NotImplementedError

    # ---- optim: fused multi-tensor optimizer updates ------------------------------------------------
    # One call updates a whole parameter list in place (a GPU backend: one multi-tensor kernel).
    # Conventions shared by every *_update primitive:
    # - ``params``, ``grads`` and each state list are equally long lists of handles; entry i of every list
    #   has params[i]'s shape and dtype; all are written in place except ``grads``, which are never written;
    # - ``steps`` is a list of Python floats: each parameter's step count *after* this step's increment
    #   (the optimizer keeps and increments the step tensors itself);
    # - every other argument is a Python number or bool; arithmetic runs in the parameters' dtype;
    # - the update rules are PyTorch 2.13's (torch/optim/<name>.py), same order of operations:
    #   ``maximize`` negates the gradient first; a non-decoupled ``weight_decay`` adds wd * param to it.
    # A backend lacking a primitive leaves it unimplemented; webtorch.optim then runs its per-tensor path.
    def sgd_update(self, params, grads, momentum_bufs, lr, momentum, dampening, weight_decay, nesterov,
                   maximize):
        """SGD. ``momentum_bufs`` (ignored when momentum == 0) holds a handle or None per parameter; None
        means first step: the buffer starts as a copy of the (decayed) gradient. Returns the list of momentum
        buffer handles (new handles where None was given), or None when momentum == 0."""
        raise NotImplementedError

    def adam_update(self, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2, eps,
                    weight_decay, amsgrad, maximize, decoupled):
        """Adam (decoupled=False) or AdamW (decoupled=True: param *= 1 - lr * weight_decay first).
        ``max_exp_avg_sqs`` is used only when amsgrad. ``steps``: each parameter's step count after this
        step's increment, as Python numbers; or (capturable=True) handles of 0-dim float32 step tensors on
        the parameters' device, which the primitive increments there and turns into the bias corrections
        there (PyTorch's capturable float32 order): no host value, so a captured step replays right."""
        raise NotImplementedError

    def rmsprop_update(self, params, grads, square_avgs, grad_avgs, momentum_bufs, lr, alpha, eps, weight_decay,
                       momentum, centered, maximize):
        """RMSprop. ``grad_avgs`` is used only when centered, ``momentum_bufs`` only when momentum > 0."""
        raise NotImplementedError

    def adagrad_update(self, params, grads, state_sums, steps, lr, lr_decay, weight_decay, eps, maximize):
        """Adagrad with learning rate lr / (1 + (step - 1) * lr_decay)."""
        raise NotImplementedError

    def adadelta_update(self, params, grads, square_avgs, acc_deltas, lr, rho, eps, weight_decay, maximize):
        """Adadelta."""
        raise NotImplementedError

    def adamax_update(self, params, grads, exp_avgs, exp_infs, steps, lr, beta1, beta2, eps, weight_decay,
                      maximize):
        """Adamax (infinity norm)."""
        raise NotImplementedError

    def nadam_update(self, params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, lr, beta1, beta2, eps,
                     weight_decay, momentum_decay, decoupled, maximize):
        """NAdam. ``mu_products`` are Python floats: each parameter's running product of mu *including* this
        step's mu (the optimizer keeps the product tensors)."""
        raise NotImplementedError

    def radam_update(self, params, grads, exp_avgs, exp_avg_sqs, steps, lr, beta1, beta2, eps, weight_decay,
                     decoupled, maximize):
        """RAdam (rectified when the variance estimate is tractable, rho_t > 5)."""
        raise NotImplementedError

    # ---- nn: fused softmax, layer norm and batch norm (GPU backends: workgroup reductions) -------------
    def softmax(self, h, dim, log, dtype):
        """Numerically stable softmax (``log=False``) or log_softmax (``log=True``) of h along ``dim``,
        computed in and returned as ``dtype`` (max subtracted first; an all -inf row gives nan, as PyTorch)."""
        raise NotImplementedError

    def softmax_backward(self, g, y, dim, log, dtype):
        """Input gradient of softmax/log_softmax from its *output* y and output gradient g, along ``dim``:
        ``y * (g - sum(g * y))`` for softmax, ``g - exp(y) * sum(g)`` for log_softmax."""
        raise NotImplementedError

    def layer_norm(self, x, weight, bias, n, eps):
        """Normalize x over its last ``n`` dims: ``(x - mean) * rstd * weight + bias`` (weight/bias: handles
        shaped ``x.shape[-n:]`` or None). Returns ``(y, mean, rstd)``; mean and rstd have shape
        ``x.shape[:-n] + (1,) * n`` and x's dtype; statistics accumulate in at least float32."""
        raise NotImplementedError

    def layer_norm_backward(self, g, x, mean, rstd, weight, n, need):
        """``(grad_x, grad_weight, grad_bias)`` of layer_norm given the saved mean/rstd; ``need`` is a triple of
        bools, an entry that is False (or whose weight is None) comes back as None."""
        raise NotImplementedError

    def batch_norm(self, x, weight, bias, running_mean, running_var, momentum, eps):
        """Training-mode batch normalization of x (N, C, *) over every dim but 1, in one pass over the batch:
        ``(x - mean) * rstd * weight + bias`` with the batch's per-channel mean and biased variance,
        ``rstd = 1 / sqrt(var + eps)``; weight/bias: (C,) handles or None. running_mean / running_var ((C,)
        handles or None) are updated in place: ``r = (1 - momentum) * r + momentum * stat`` with the unbiased
        variance (var * M / (M - 1), M = elements per channel). Returns ``(y, mean, rstd)``, mean and rstd
        shaped (C,) in x's dtype; statistics accumulate in at least float32. A backend without it makes
        F.batch_norm compose elementwise ops and reductions."""
        raise NotImplementedError

    def batch_norm_backward(self, g, x, mean, rstd, weight, need):
        """``(grad_x, grad_weight, grad_bias)`` of training-mode batch_norm given its saved per-channel
        ``mean``/``rstd``: ``grad_x = weight * rstd * (g - mean(g) - xhat * mean(g * xhat))`` (means per channel),
        ``grad_weight = sum(g * xhat)``, ``grad_bias = sum(g)``. ``need`` as layer_norm_backward's."""
        raise NotImplementedError

    # ---- scans, sorting, searching, dense linear algebra (ops/scan.py, ops/sorting.py, ops/linalg_extra.py) --
    def cumulative(self, op, h, dim, dtype, reverse=False):
        """Inclusive scan along dim computed in ``dtype``: op 'sum', 'prod', 'logsumexp' (stable) -> a handle;
        'max', 'min' -> (values, int64 indices of the element that set each running extremum: the latest on
        ties, NaN propagates and wins). reverse=True scans from the end toward the start (indices still count
        from the start)."""
        raise NotImplementedError

    def sort(self, h, dim, descending, stable):
        """(values, int64 indices) sorted along dim; always stable (equal elements keep their order, also
        when descending); NaN sorts as larger than every number. A 0-dim handle gives (copy, 0)."""
        raise NotImplementedError

    def topk(self, h, k, dim, largest, sorted):
        """(values, int64 indices) of the k largest (smallest) along dim, in sorted order (ties: the earlier
        index first)."""
        raise NotImplementedError

    def searchsorted(self, seq, values, right, out_int32):
        """Insertion indices of values into seq, sorted along its last dim: seq 1-D (any values shape) or
        (..., n) with values (..., m) of the same leading dims. right: after equal elements."""
        raise NotImplementedError

    def check_classes(self, h, n, ignore, op):
        """The integer handle h of class indices, checked to lie in [0, n) (or equal ``ignore``, None for none):
        raises IndexError("Target {value} is out of bounds."), PyTorch's (``op``: "nll_loss" or
        "multi_margin_loss", whose caller words it its own way). Returns the handle to use from here on.
        This default reads the offending value back; a lazy backend may check on the device instead (reported at
        its next read, the returned handle never indexing out of bounds meanwhile)."""
        if 0 in self.shape(h):
            return h
        dt = self.dtype(h)
        bad = self.elementwise("logical_or", [self.elementwise("lt", [h, 0], dt),
                                              self.elementwise("ge", [h, n], dt)], D.bool_)
        if ignore is not None:
            bad = self.elementwise("logical_and", [bad, self.elementwise("ne", [h, ignore], dt)], D.bool_)
        if self.item(self.reduce("any", bad, (), False, D.bool_)):
            value = self.elementwise("where", [bad, h, 0], dt)
            hi, lo = (self.item(self.reduce(r, value, (), False, dt)) for r in ("amax", "amin"))
            raise IndexError(f"Target {hi if hi >= n else lo} is out of bounds.")
        return h

    def require_all(self, h, op):
        """Raise ``op``'s RuntimeError (op_facts.VALUE_CHECKS) unless every element of the bool handle h is True.
        This default reads one bool back; a lazy backend checks on the device instead (the error raised at its
        next read or synchronize: a training step keeps its one readback)."""
        if 0 not in self.shape(h) and not self.item(self.reduce("all", h, (), False, D.bool_)):
            raise RuntimeError(VALUE_CHECKS[op])

    def unique(self, h, sorted, return_inverse, return_counts, dim):
        """(sorted unique values, int64 inverse indices, int64 counts). dim None: over all elements (inverse
        has h's shape); an int: unique slices along dim (inverse has h.shape[dim] entries). Data-dependent
        shape: a lazy backend must materialize."""
        raise NotImplementedError

    def linalg_inv(self, a):
        """Inverse of (..., n, n); RuntimeError naming singularity when not invertible. Optional (cpu)."""
        raise NotImplementedError

    def linalg_det(self, a):
        """Determinant of (..., n, n) -> (...). Optional (cpu)."""
        raise NotImplementedError

    def linalg_solve(self, a, b):
        """X with A X = B for A (..., n, n), B (..., n, k) (batch dims broadcast). Optional (cpu)."""
        raise NotImplementedError

    # ---- linalg decompositions (ops/linalg_decomp.py); results keep a's float dtype ----
    def linalg_cholesky(self, a, upper):
        """(L, info) for A (..., n, n): L lower-triangular with L L^T = A read from A's lower triangle (upper:
        the upper-triangular factor U^T U = A read from A's upper triangle); info int32 (...): 0, or the order of
        the first leading minor that is not positive-definite (that matrix's L is then unspecified past it).
        Optional (cpu)."""
        raise NotImplementedError

    def linalg_solve_triangular(self, a, b, upper, left, unitriangular):
        """X with A X = B (left) or X A = B, reading only A's upper/lower triangle (unitriangular: its diagonal
        taken as ones); A (..., n, n), B (..., n, k) / (..., k, n), batch dims broadcast, result in A's dtype.
        A zero on the diagonal gives inf/nan, not an error. Optional (cpu)."""
        raise NotImplementedError

    def linalg_slogdet(self, a):
        """(sign, log|det|) of A (..., n, n), both (...) in A's dtype (sign 0 and -inf when singular).
        Optional (cpu)."""
        raise NotImplementedError

    def linalg_qr(self, a, mode):
        """(Q, R) Householder QR of A (..., m, n) (LAPACK's signs); mode 'reduced' (Q (..., m, k), R (..., k, n),
        k = min(m, n)), 'complete' (Q (..., m, m)) or 'r' (Q an empty 1-D handle). Optional (cpu)."""
        raise NotImplementedError

    def linalg_eigh(self, a, upper, compute_v):
        """(ascending eigenvalues (..., n), eigenvectors as columns (..., n, n) or None unless compute_v) of
        the symmetric matrix read from A's lower (upper) triangle. Optional (cpu)."""
        raise NotImplementedError

    def linalg_svd(self, a, full_matrices, compute_uv):
        """(U, S descending, Vh) of A (..., m, n); U, Vh None unless compute_uv; full_matrices: U (..., m, m),
        Vh (..., n, n), else (..., m, k), (..., k, n). Optional (cpu)."""
        raise NotImplementedError

    def linalg_lstsq(self, a, b, rcond):
        """(minimum-norm least-squares X (..., n, k), int64 rank (a's batch dims)) for A (..., m, n), B (..., m, k)
        (batch dims broadcast): singular values <= rcond * the largest are treated as zero. Optional (cpu)."""
        raise NotImplementedError
