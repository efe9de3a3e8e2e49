"""THE primitive contract, declared once: every primitive a backend implements, as one table.

A backend owns the bytes. It hands out opaque *handles*: a handle is one strided view (shape, strides, storage
offset, dtype) of one storage. Public ops (webtorch.ops) are written against these primitives only; autograd, nn
and optim against public ops. Each row of ``PRIMITIVES`` is one primitive: its family, its signature (the
parameter names every implementation takes, in this order, with these defaults) and what it does. base.py builds
every backend class from this table (how to add a backend or a primitive: base.py's docstring).

Conventions
- shapes and strides are tuples of Python ints, strides in elements;
- ``dtype`` arguments are webtorch dtypes (webtorch._dtype);
- an ``args`` entry of ``elementwise`` is a handle or a Python scalar;
- every primitive returns a *new* handle with a fresh storage, C-contiguous from offset 0 (the op layer gives
  the Tensor that geometry without asking: a transposed input must not give a transposed result), unless it is
  a view primitive (documented as such) or takes ``out``, a handle it writes into;
- dims passed to primitives are already normalized (non-negative, validated by the op layer).

Elementwise op names (``elementwise``) and their arity: ELEMENTWISE_OPS in op_facts.py. The op layer computes
the result dtype (PyTorch promotion) and passes it; inputs may differ in dtype and broadcast against each other.

Families: a backend implements each family in one module of plain functions named as the primitives (base.py),
except ``handle`` (the handle metadata and the view primitive), which the backend class defines in its own body.
Which dtypes a backend serves itself and which it sends to a host fallback is the backend's own table, beside its
class (``host_fallbacks``, ``host_when``; webgpu/host_rules.py).
"""
import ast
from dataclasses import dataclass
from typing import NamedTuple


class Primitive(NamedTuple):
    name: str
    family: str
    params: tuple  # parameter names, in order
    defaults: dict  # parameter name -> default value (the trailing optional parameters)
    doc: str


def _primitive(family, signature, doc):
    """A Primitive from its signature written as a call: ``"cumulative(op, h, dim, dtype, reverse=False)"``."""
    fn = ast.parse(f"def {signature}: pass").body[0]
    names = tuple(a.arg for a in fn.args.args)
    defaults = {a.arg: ast.literal_eval(d) for a, d in zip(fn.args.args[len(names) - len(fn.args.defaults):],
                                                            fn.args.defaults)}
    return Primitive(fn.name, family, names, defaults, doc)


# ---- optimizer hyper-parameters: one record per fused update (the ``hp`` argument of its primitive) ---------
# Plain Python numbers and bools; webtorch.optim passes them by name to ops/fused_update.py, which builds the record.
@dataclass(frozen=True, slots=True)
class SGDHyper:
    lr: float
    momentum: float
    dampening: float
    weight_decay: float
    nesterov: bool
    maximize: bool


@dataclass(frozen=True, slots=True)
class AdamHyper:
    """Adam (decoupled=False) or AdamW (decoupled=True: param *= 1 - lr * weight_decay first)."""
    lr: float
    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    amsgrad: bool
    maximize: bool
    decoupled: bool


@dataclass(frozen=True, slots=True)
class RMSpropHyper:
    lr: float
    alpha: float
    eps: float
    weight_decay: float
    momentum: float
    centered: bool
    maximize: bool


@dataclass(frozen=True, slots=True)
class AdagradHyper:
    lr: float
    lr_decay: float
    weight_decay: float
    eps: float
    maximize: bool


@dataclass(frozen=True, slots=True)
class AdadeltaHyper:
    lr: float
    rho: float
    eps: float
    weight_decay: float
    maximize: bool


@dataclass(frozen=True, slots=True)
class AdamaxHyper:
    lr: float
    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    maximize: bool


@dataclass(frozen=True, slots=True)
class NAdamHyper:
    lr: float
    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    momentum_decay: float
    decoupled: bool
    maximize: bool


@dataclass(frozen=True, slots=True)
class RAdamHyper:
    lr: float
    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    decoupled: bool
    maximize: bool


#: fused update primitive -> the record of its ``hyper`` argument
HYPER = {"sgd_update": SGDHyper, "adam_update": AdamHyper, "rmsprop_update": RMSpropHyper,
         "adagrad_update": AdagradHyper, "adadelta_update": AdadeltaHyper, "adamax_update": AdamaxHyper,
         "nadam_update": NAdamHyper, "radam_update": RAdamHyper}


PRIMITIVES = {p.name: p for p in (_primitive(*row) for row in (

    # ---- handle ------------------------------------------------------------------------------------------------------
    # the handle's metadata and the one view primitive: defined in each backend class's own body (no device work)
    ("handle", "geometry(h)",
     "(shape, strides, storage offset) of the handle, in elements. The op layer knows every fresh result's geometry "
     "(C-contiguous of the shape it computes, offset 0); it asks this only of handles it did not shape itself: "
     "views made on handles, memory shared from NumPy, results of data-dependent size (nonzero, unique)."),
    ("handle", "dtype(h)",
     'webtorch dtype of the handle.'),
    ("handle", "data_ptr(h)",
     'An integer identifying the first element (equal for handles viewing the same place).'),
    ("handle", "storage_ptr(h)",
     'An integer identifying the storage (equal for all views of one storage).'),
    ("handle", "storage_nbytes(h)", "The size of the storage in bytes."),
    ("handle", "as_strided(h, shape, stride, offset)",
     "View of h's storage with the given geometry (offset absolute, in elements). The only view primitive: "
     "webtorch._geometry decides every view's geometry, for all devices."),
    ("handle", "view_dtype(h, dtype, shape, stride, offset)",
     "View of h's storage bytes as ``dtype`` at the given geometry (in ``dtype``'s elements, decided by "
     "webtorch._geometry.view_dtype): Tensor.view(dtype). A backend whose storage of h's dtype or of ``dtype`` "
     "is not their host bytes raises TypeError naming its device, both dtypes and the fix."),

    # ---- creation ----------------------------------------------------------------------------------------------------
    # fresh handles of a given shape and dtype
    ("creation", "empty(shape, dtype)", "Uninitialized elements."),
    ("creation", "full(shape, value, dtype)", "Every element ``value``."),
    ("creation", "arange(start, end, step, dtype)", "start, start + step, ... short of end (1-D)."),
    ("creation", "linspace(start, end, steps, dtype)", "``steps`` evenly spaced values from start to end (1-D)."),
    ("creation", "eye(n, m, dtype)", "(n, m) with ones on the diagonal."),

    # ---- transfer ----------------------------------------------------------------------------------------------------
    # values between the host and the backend, and to another backend
    ("transfer", "from_flat(values, shape, dtype)",
     'New handle from a flat Python list of numbers in C order.'),
    ("transfer", "from_buffer(buf, shape, dtype)",
     'New handle copying a bytes-like object holding little-endian elements in C order.'),
    ("transfer", "from_numpy(array, copy)",
     'Handle sharing (copy=False, cpu only) or copying a NumPy array.'),
    ("transfer", "to_numpy(h)",
     'NumPy array of the view (shares memory on cpu).'),
    ("transfer", "to_bytes(h)",
     'The elements as little-endian bytes in C order.'),
    ("transfer", "tolist(h)", "The elements as nested Python lists of numbers."),
    ("transfer", "item(h)", "The one element as a Python number."),
    ("transfer", "known_range(h)",
     "(min, max) bounds of the integer handle h's values when the backend knows them without computing or "
     'reading anything (recorded at upload, by creation ops, carried through casts and gathers), else None. '
     'Index/target range checks use it to skip a device read; a backend whose reads are cheap returns None.'),
    ("transfer", "to_other(h, target)",
     "Copy to another backend ``target``; returns target's handle."),

    # ---- elementwise -------------------------------------------------------------------------------------------------
    # copies, casts and the broadcasting elementwise op
    ("elementwise", "copy_(dst, src)",
     'Write src (a handle of any dtype or a Python scalar, broadcast to dst) into dst in place.'),
    ("elementwise", "contiguous(h)",
     'A fresh C-contiguous copy.'),
    ("elementwise", "cast(h, dtype)",
     'A fresh copy converted to dtype (float->int truncates toward zero, as PyTorch).'),
    ("elementwise", "elementwise(op, args, dtype, out=None)",
     "Broadcasting elementwise op (op_facts.ELEMENTWISE_OPS); computes in ``dtype`` (bool ops: inputs' dtype, "
     'result bool). With ``out`` writes into that handle (same shape as the broadcast result).'),

    # ---- reduce ------------------------------------------------------------------------------------------------------
    ("reduce", "reduce(op, h, dims, keepdim, dtype)",
     'op_facts.REDUCE_OPS over ``dims`` (a tuple; empty = all dims) accumulating in/returning ``dtype``.'),
    ("reduce", "arg_reduce(op, h, dim, keepdim)",
     "'argmax' / 'argmin' along dim (None: flattened), int64 result, first occurrence on ties."),

    # ---- matmul ------------------------------------------------------------------------------------------------------
    ("matmul", "matmul(a, b)",
     'Batched matrix product of (..., n, k) and (..., k, m) with broadcast batch dims.'),

    # ---- random ------------------------------------------------------------------------------------------------------
    # a stream object per generator (torch.Generator), owned by the backend; streams differ by backend (a cpu
    # and a webgpu generator seeded alike give different numbers, as in PyTorch)
    ("random", "rng_new(seed)",
     'A new random stream seeded with the int ``seed``; passed as ``rng`` to the sampling primitives.'),
    ("random", "rng_get_state(rng)",
     "The stream's state as bytes (Generator.get_state)."),
    ("random", "rng_set_state(rng, state)",
     'Restore the stream to ``state``, bytes that rng_get_state returned.'),
    ("random", "uniform(shape, low, high, dtype, rng)",
     'Floats of ``dtype`` drawn uniformly from [low, high).'),
    ("random", "normal(shape, mean, std, dtype, rng)",
     'Floats of ``dtype`` drawn from the normal distribution N(mean, std**2).'),
    ("random", "randint(shape, low, high, dtype, rng)",
     'Integers drawn uniformly from [low, high), returned as ``dtype``.'),
    ("random", "bernoulli(p, shape, dtype, rng)",
     '1 where a uniform draw is below p, else 0, as ``dtype``; p is a float or a float handle broadcast to '
     '``shape``.'),

    # ---- randperm ----------------------------------------------------------------------------------------------------
    ("randperm", "randperm(n, dtype, rng)",
     'A random permutation of 0 .. n-1 as a 1-D handle of ``dtype``.'),

    # ---- indexing ----------------------------------------------------------------------------------------------------
    # ops/indexing, scatter_gather, index_along_dim, masked, shape. Index handles are integer handles (int64 or
    # int32). Out-of-range indices raise base.IndexOutOfRange before anything is written; the op layer may reword it
    # as PyTorch does for that op. Primitives ending in ``_`` write into their first handle in place and return it;
    # a destination that is an expanded (stride-0) view raises RuntimeError as copy_ does.
    ("indexing", "index(h, indices)",
     'Advanced indexing (aten::index): ``indices`` has one entry per leading dim of h, an index handle '
     'or None (the whole dim). The index handles broadcast together; the broadcast dims replace the '
     "indexed dims in place when those are adjacent, else they come first (NumPy's rule). Negative "
     'indices count from the end. IndexOutOfRange.dim is the position among the non-None entries.'),
    ("indexing", "index_put_(h, indices, values, accumulate)",
     "In place h[indices] = values (indices as in ``index``; values a handle of h's dtype or a "
     'Python scalar, broadcast to the indexed shape). accumulate: duplicates add up; else one wins.'),
    ("indexing", "gather(h, dim, index)",
     'out[i_0..i_n] = h[i_0.., index[i_0..i_n], ..i_n] (index replaces coordinate ``dim``); the result '
     "has index's shape, index.shape[d] <= h.shape[d] for d != dim. No negative indices."),
    ("indexing", "scatter_(h, dim, index, src, reduce, include_self)",
     'In place along dim: for every position i of index, h[i with coordinate dim = index[i]] is '
     "combined with src[i] (src: a handle of h's dtype at least index's size in every dim, or a Python "
     "scalar). reduce: None (assign; one duplicate wins), 'sum', 'prod', 'mean', 'amax', 'amin'. "
     'include_self=False: the old values at scattered positions take no part (mean divides by the number '
     'of sources). Integer mean rounds toward negative infinity. No negative indices.'),
    ("indexing", "nonzero(h)",
     'int64 handle (n, ndim) of the coordinates of the non-zero elements in C order (data-dependent '
     'shape: a lazy backend must materialize).'),
    ("indexing", "flip(h, dims)",
     'A fresh copy with the elements reversed along each of ``dims`` (a tuple).'),
    ("indexing", "check_classes(h, n, ignore, op)",
     'The integer handle h of class indices, checked to lie in [0, n) (or equal ``ignore``, None for none): '
     'raises IndexError("Target {value} is out of bounds."), PyTorch\'s (``op``: "nll_loss" or '
     '"multi_margin_loss", whose caller words it its own way). Returns the handle to use from here on. '
     'This default reads the offending value back; a lazy backend may check on the device instead (reported at '
     'its next read, the returned handle never indexing out of bounds meanwhile).'),

    # ---- checks -------------------------------------------------------------------------------------------------------
    ("checks", "require_all(h, op)",
     'Raise ``op``\'s RuntimeError (op_facts.VALUE_CHECKS) unless every element of the bool handle h is True. An '
     'eager backend checks at once; a lazy backend checks on the device (the error raised at its next read or '
     'synchronize, even when nothing reads the checked result: a training step keeps its one readback).'),

    # ---- conv --------------------------------------------------------------------------------------------------------
    # Spatial primitives (conv, unfold, pool) take (N, C, *spatial) handles with 1, 2 or 3 spatial dims; ``kernel``,
    # ``stride``, ``padding`` (symmetric: that many zeros before and after) and ``dilation`` are tuples with one int
    # per spatial dim, already validated. Output length per dim: (S + 2p - d(k-1) - 1) // s + 1 (pooling with
    # ceil_mode rounds up, dropping a last window that would start in the right padding). Transposed convolution
    # is conv_backward_input (its backward: conv and conv_backward_weight).
    ("conv", "conv(x, w, bias, stride, padding, dilation, groups)",
     'Cross-correlation of x (N, Cin, *S) with w (Cout, Cin/groups, *K) plus bias (Cout,) or None: '
     '(N, Cout, *O). Channel group g of the input meets output channels [g*Cout/G, (g+1)*Cout/G).'),
    ("conv", "conv_backward_input(g, w, input_shape, stride, padding, dilation, groups)",
     'Gradient of conv w.r.t. its input: g (N, Cout, *O) -> (N, Cin, *S) with S = input_shape[2:] '
     '(positions no window reaches get 0). Equals conv_transpose of g.'),
    ("conv", "conv_backward_weight(g, x, weight_shape, stride, padding, dilation, groups)",
     'Gradient of conv w.r.t. its weight: g (N, Cout, *O), x (N, Cin, *S) -> weight_shape.'),

    # ---- unfold ------------------------------------------------------------------------------------------------------
    ("unfold", "im2col(x, kernel, stride, padding, dilation)",
     'F.unfold: (N, C, *S) -> (N, C*prod(K), L) with rows ordered (c, k1, k2, ...) and L output positions.'),
    ("unfold", "col2im(cols, size, kernel, stride, padding, dilation)",
     'F.fold, the adjoint of im2col: (N, C*prod(K), L) -> (N, C, *size), overlapping entries summed.'),

    # ---- pool --------------------------------------------------------------------------------------------------------
    ("pool", "max_pool(x, kernel, stride, padding, dilation, ceil_mode)",
     'Max over windows (padding counts as -inf): ``(values, indices)``, indices int64 into each input '
     'plane flattened (h * W + w), first maximum in window order; NaN wins.'),
    ("pool", "adaptive_max_pool(x, output_size)",
     "Max over PyTorch's adaptive windows [floor(i*S/O), ceil((i+1)*S/O)) per dim: (values, indices) "
     'as max_pool.'),
    ("pool", "avg_pool(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override)",
     'Window means; divisor: divisor_override if set, else the window clipped to input+padding '
     '(count_include_pad) or to the input. Integer inputs divide truncating toward zero (as C).'),
    ("pool", "avg_pool_backward(g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad, "
              "divisor_override)",
     "Gradient of avg_pool: each output gradient / its divisor, added over its window's input positions."),
    ("pool", "scatter_plane(src, indices, plane_shape, accumulate)",
     'Zeros (N, C, *plane_shape) with src[n, c, ...] written (accumulate=False: max_unpool) or added '
     '(True: max-pool backward) at flat per-plane position indices[n, c, ...]. An index outside the plane '
     'raises RuntimeError("Found an invalid max index: ...").'),
    ("pool", "gather_plane(src, indices)",
     'out[n, c, ...] = src[n, c].flatten()[indices[n, c, ...]]: shape of indices, dtype of src.'),
    ("pool", "resample_taps(x, dim, index, weight, divisor)",
     'Separable resampling of a float handle along dim (interpolate, adaptive average pooling): out[.., o, ..] '
     '= (w[o, 0] * x[.., index[o, 0], ..] + w[o, 1] * x[.., index[o, 1], ..] + ...) / divisor[o], the taps added '
     'in order k = 0, 1, .. and each multiplied even when its weight is 0 (so inf * 0 gives NaN, as PyTorch\'s '
     'kernels). index: int32 (O, K) with entries in [0, x.shape[dim]), or -1: no tap (not read, adds nothing); '
     'weight: (O, K) of x\'s dtype, or None (every weight 1: the input itself, no product); divisor: (O,) of '
     'x\'s dtype, or None (no division). The result has O in place of x.shape[dim].'),

    # ---- pad ---------------------------------------------------------------------------------------------------------
    ("pad", "pad(x, pads, mode, value)",
     "x padded by pads = ((before, after), ...) (one pair per dim, all >= 0). mode: 'constant' (value), "
     "'reflect' (mirror without the edge, pad < size), 'replicate' (edge), 'circular' (wrap, pad <= size)."),
    ("pad", "pad_backward(g, pads, mode)",
     "Adjoint of pad: g of the padded shape -> the unpadded shape, each padded cell's gradient added to "
     'the input cell it copies.'),

    # ---- embedding ---------------------------------------------------------------------------------------------------
    ("embedding", "embedding(weight, indices)",
     'Rows of weight (V, D) at int64 indices (any shape): indices.shape + (D,). An index outside '
     '[0, V) raises IndexError("index out of range in self").'),
    ("embedding", "embedding_backward(g, indices, num_weights, padding_idx, scale_grad_by_freq)",
     "(num_weights, D) gradient: row r sums g at the positions where indices == r (divided by r's count "
     'when scale_grad_by_freq); row padding_idx (an int or None) stays 0.'),
    ("embedding", "embedding_renorm_(weight, indices, max_norm, norm_type)",
     'In place: each row of weight named in indices whose norm_type-norm exceeds max_norm is scaled by '
     'max_norm / (norm + 1e-7). Returns weight.'),

    # ---- optim -------------------------------------------------------------------------------------------------------
    # Fused multi-tensor optimizer updates: one call updates a whole parameter list in place (a GPU backend: one
    # multi-tensor kernel). Shared conventions:
    # - ``params``, ``grads`` and each state list are equally long lists of handles; entry i of every list has
    #   params[i]'s shape and dtype; all are written in place except ``grads``, which are never written;
    # - ``steps`` is a list of Python floats: each parameter's step count *after* this step's increment (the
    #   optimizer keeps and increments the step tensors itself);
    # - ``hp`` is the update's hyper-parameter record above (HYPER[name]); arithmetic runs in the parameters' dtype;
    # - the update rules are PyTorch 2.13's (torch/optim/<name>.py), same order of operations: ``maximize``
    #   negates the gradient first; a non-decoupled ``weight_decay`` adds wd * param to it.
    ("optim", "sgd_update(params, grads, momentum_bufs, hp)",
     'SGD. ``momentum_bufs`` (ignored when momentum == 0) holds a handle or None per parameter; None '
     'means first step: the buffer starts as a copy of the (decayed) gradient. Returns the list of momentum '
     'buffer handles (new handles where None was given), or None when momentum == 0.'),
    ("optim", "adam_update(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, hp)",
     'Adam (decoupled=False) or AdamW (decoupled=True: param *= 1 - lr * weight_decay first). '
     "``max_exp_avg_sqs`` is used only when amsgrad. ``steps``: each parameter's step count after this "
     "step's increment, as Python numbers; or (capturable=True) handles of 0-dim float32 step tensors on "
     "the parameters' device, which the primitive increments there and turns into the bias corrections "
     "there (PyTorch's capturable float32 order): no host value, so a captured step replays right."),
    ("optim", "rmsprop_update(params, grads, square_avgs, grad_avgs, momentum_bufs, hp)",
     'RMSprop. ``grad_avgs`` is used only when centered, ``momentum_bufs`` only when momentum > 0.'),
    ("optim", "adagrad_update(params, grads, state_sums, steps, hp)",
     'Adagrad with learning rate lr / (1 + (step - 1) * lr_decay).'),
    ("optim", "adadelta_update(params, grads, square_avgs, acc_deltas, hp)",
     'Adadelta.'),
    ("optim", "adamax_update(params, grads, exp_avgs, exp_infs, steps, hp)",
     'Adamax (infinity norm).'),
    ("optim", "nadam_update(params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, hp)",
     "NAdam. ``mu_products`` are Python floats: each parameter's running product of mu *including* this "
     "step's mu (the optimizer keeps the product tensors)."),
    ("optim", "radam_update(params, grads, exp_avgs, exp_avg_sqs, steps, hp)",
     'RAdam (rectified when the variance estimate is tractable, rho_t > 5).'),

    # ---- norm --------------------------------------------------------------------------------------------------------
    # fused softmax, layer norm and batch norm (GPU backends: workgroup reductions)
    ("norm", "softmax(h, dim, log, dtype)",
     'Numerically stable softmax (``log=False``) or log_softmax (``log=True``) of h along ``dim``, '
     'computed in and returned as ``dtype`` (max subtracted first; an all -inf row gives nan, as PyTorch).'),
    ("norm", "softmax_backward(g, y, dim, log, dtype)",
     'Input gradient of softmax/log_softmax from its *output* y and output gradient g, along ``dim``: '
     '``y * (g - sum(g * y))`` for softmax, ``g - exp(y) * sum(g)`` for log_softmax.'),
    ("norm", "layer_norm(x, weight, bias, n, eps)",
     'Normalize x over its last ``n`` dims: ``(x - mean) * rstd * weight + bias`` (weight/bias: handles '
     'shaped ``x.shape[-n:]`` or None). Returns ``(y, mean, rstd)``; mean and rstd have shape '
     "``x.shape[:-n] + (1,) * n`` and x's dtype; statistics accumulate in at least float32."),
    ("norm", "layer_norm_backward(g, x, mean, rstd, weight, n, need)",
     '``(grad_x, grad_weight, grad_bias)`` of layer_norm given the saved mean/rstd; ``need`` is a triple of '
     'bools, an entry that is False (or whose weight is None) comes back as None.'),
    ("norm", "batch_norm(x, weight, bias, running_mean, running_var, momentum, eps)",
     'Training-mode batch normalization of x (N, C, *) over every dim but 1, in one pass over the batch: '
     "``(x - mean) * rstd * weight + bias`` with the batch's per-channel mean and biased variance, "
     '``rstd = 1 / sqrt(var + eps)``; weight/bias: (C,) handles or None. running_mean / running_var ((C,) '
     'handles or None) are updated in place: ``r = (1 - momentum) * r + momentum * stat`` with the unbiased '
     'variance (var * M / (M - 1), M = elements per channel). Returns ``(y, mean, rstd)``, mean and rstd '
     "shaped (C,) in x's dtype; statistics accumulate in at least float32."),
    ("norm", "batch_norm_backward(g, x, mean, rstd, weight, need)",
     '``(grad_x, grad_weight, grad_bias)`` of training-mode batch_norm given its saved per-channel '
     '``mean``/``rstd``: ``grad_x = weight * rstd * (g - mean(g) - xhat * mean(g * xhat))`` (means per channel), '
     "``grad_weight = sum(g * xhat)``, ``grad_bias = sum(g)``. ``need`` as layer_norm_backward's."),

    # ---- scan_sort ---------------------------------------------------------------------------------------------------
    # scans, sorting, searching, unique (ops/scan.py, ops/sorting.py)
    ("scan_sort", "cumulative(op, h, dim, dtype, reverse=False)",
     "Inclusive scan along dim computed in ``dtype``: op 'sum', 'prod', 'logsumexp' (stable) -> a handle; "
     "'max', 'min' -> (values, int64 indices of the element that set each running extremum: the latest on "
     'ties, NaN propagates and wins). reverse=True scans from the end toward the start (indices still count '
     'from the start).'),
    ("scan_sort", "sort(h, dim, descending, stable)",
     '(values, int64 indices) sorted along dim; always stable (equal elements keep their order, also '
     'when descending); NaN sorts as larger than every number. A 0-dim handle gives (copy, 0).'),
    ("scan_sort", "topk(h, k, dim, largest, sorted)",
     '(values, int64 indices) of the k largest (smallest) along dim, in sorted order (ties: the earlier '
     'index first).'),
    ("scan_sort", "searchsorted(seq, values, right, out_int32)",
     'Insertion indices of values into seq, sorted along its last dim: seq 1-D (any values shape) or '
     '(..., n) with values (..., m) of the same leading dims. right: after equal elements.'),
    ("scan_sort", "unique(h, sorted, return_inverse, return_counts, dim)",
     '(sorted unique values, int64 inverse indices, int64 counts). dim None: over all elements (inverse '
     "has h's shape); an int: unique slices along dim (inverse has h.shape[dim] entries). Data-dependent "
     'shape: a lazy backend must materialize.'),

    # ---- linalg ------------------------------------------------------------------------------------------------------
    # dense linear algebra (ops/linalg_extra.py, ops/linalg_decomp.py); results keep a's float dtype
    ("linalg", "linalg_inv(a)",
     'Inverse of (..., n, n); RuntimeError naming singularity when not invertible.'),
    ("linalg", "linalg_det(a)",
     'Determinant of (..., n, n) -> (...).'),
    ("linalg", "linalg_solve(a, b)",
     'X with A X = B for A (..., n, n), B (..., n, k) (batch dims broadcast).'),
    ("linalg", "linalg_cholesky(a, upper)",
     "(L, info) for A (..., n, n): L lower-triangular with L L^T = A read from A's lower triangle (upper: "
     "the upper-triangular factor U^T U = A read from A's upper triangle); info int32 (...): 0, or the order of "
     "the first leading minor that is not positive-definite (that matrix's L is then unspecified past it)."),
    ("linalg", "linalg_solve_triangular(a, b, upper, left, unitriangular)",
     "X with A X = B (left) or X A = B, reading only A's upper/lower triangle (unitriangular: its diagonal "
     "taken as ones); A (..., n, n), B (..., n, k) / (..., k, n), batch dims broadcast, result in A's dtype. "
     'A zero on the diagonal gives inf/nan, not an error.'),
    ("linalg", "linalg_slogdet(a)",
     "(sign, log|det|) of A (..., n, n), both (...) in A's dtype (sign 0 and -inf when singular)."),
    ("linalg", "linalg_qr(a, mode)",
     "(Q, R) Householder QR of A (..., m, n) (LAPACK's signs); mode 'reduced' (Q (..., m, k), R (..., k, n), "
     "k = min(m, n)), 'complete' (Q (..., m, m)) or 'r' (Q an empty 1-D handle)."),
    ("linalg", "linalg_eigh(a, upper, compute_v)",
     '(ascending eigenvalues (..., n), eigenvectors as columns (..., n, n) or None unless compute_v) of '
     "the symmetric matrix read from A's lower (upper) triangle."),
    ("linalg", "linalg_svd(a, full_matrices, compute_uv)",
     '(U, S descending, Vh) of A (..., m, n); U, Vh None unless compute_uv; full_matrices: U (..., m, m), '
     'Vh (..., n, n), else (..., m, k), (..., k, n).'),
    ("linalg", "linalg_lstsq(a, b, rcond)",
     "(minimum-norm least-squares X (..., n, k), int64 rank (a's batch dims)) for A (..., m, n), B (..., m, k) "
     '(batch dims broadcast): singular values <= rcond * the largest are treated as zero.'),
))}

FAMILIES = frozenset(p.family for p in PRIMITIVES.values())

# The families whose primitives compute on their operands' values: a backend that stores float8 refuses a float8
# operand there with _dtype.float8_compute_error (PyTorch's CPU computes nothing on float8); the elementwise family
# refuses a float8 compute dtype itself, off its per-op hot path.
FLOAT8_REFUSED = frozenset({"reduce", "checks", "matmul", "scan_sort", "conv", "unfold", "pool", "embedding",
                            "optim", "norm", "linalg"})
