"""F.embedding (padding_idx, max_norm, scale_grad_by_freq) and F.one_hot."""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op, state
from ..autograd.grad_mode import no_grad
from ._core.dispatch import wrap, check_same_device
from .sparse_coo import make_sparse


class EmbeddingBackward0(Node):
    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq, sparse=False):
        ctx.p = (indices, weight.shape[0], padding_idx, scale_grad_by_freq, sparse)
        return wrap(weight._be.embedding(weight._data, indices._data), weight, indices.shape + weight.shape[1:])

    @staticmethod
    def backward(ctx, g):
        indices, num, padding_idx, scale, sparse = ctx.p
        if sparse:
            return _sparse_weight_grad(g, indices, num, padding_idx, scale), None
        return apply_op(EmbeddingDenseBackward0, g, indices, num, padding_idx, scale), None


def _sparse_weight_grad(g, indices, num, padding_idx, scale_grad_by_freq):
    """The weight gradient of embedding(sparse=True), as PyTorch makes it: one uncoalesced COO entry per looked-up
    index (its row of g), the padding_idx entries left out."""
    if scale_grad_by_freq:
        raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
    if state.enabled:
        raise NotImplementedError("double backward through embedding(sparse=True) is not supported in webtorch; "
                                  "use sparse=False to differentiate its gradient")
    flat = indices.reshape(-1).to(D.int64)
    rows = g.reshape(-1, g.shape[-1])
    if padding_idx is not None:
        keep = flat != padding_idx
        flat, rows = flat[keep], rows[keep]
    return make_sparse(flat.unsqueeze(0), rows, (num, g.shape[-1]), False)


class EmbeddingDenseBackward0(Node):
    """The weight gradient (rows summed per index) as a differentiable op, for double backward."""

    @staticmethod
    def forward(ctx, g, indices, num, padding_idx, scale_grad_by_freq):
        ctx.p = (indices, num, padding_idx, scale_grad_by_freq)
        return wrap(g._be.embedding_backward(g._data, indices._data, num, padding_idx, scale_grad_by_freq), g,
                    (num, g.shape[-1]))

    @staticmethod
    def backward(ctx, gg):
        indices, num, padding_idx, scale = ctx.p
        be, dt = gg._be, gg.dtype
        # d(row r of the result)/d(g at position i) = [indices_i == r] * row_scale_r
        row_scale = be.full((num, 1), 1.0, dt)
        if scale:
            counts = be.embedding_backward(be.full(tuple(indices.shape) + (1,), 1.0, dt), indices._data, num,
                                           None, False)
            row_scale = be.elementwise("div", (row_scale, be.elementwise("maximum", (counts, 1.0), dt)), dt)
        if padding_idx is not None:
            be.copy_(be.slice(row_scale, (slice(padding_idx, padding_idx + 1), slice(None))), 0.0)
        return apply_op(EmbeddingBackward0, gg * wrap(row_scale, gg, (num, 1)), indices, None, False), None


def _check_indices(indices, fn):
    if indices.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.type()} instead (while checking arguments for {fn})")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """F.embedding: rows of ``weight`` at ``input``; max_norm renormalizes the looked-up rows in place."""
    check_same_device(input, weight)
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(input, "embedding")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight, input, max_norm, norm_type)
    return apply_op(EmbeddingBackward0, weight, input, padding_idx, scale_grad_by_freq, sparse)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """torch.embedding_renorm_: rescale the rows of ``input`` named in ``indices`` to norm <= max_norm."""
    _check_indices(indices, "embedding_renorm_")
    input._be.embedding_renorm_(input._data, indices._data, float(max_norm), float(norm_type))
    input._version[0] += 1
    return input


def torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """torch.embedding (ATen's argument order; padding_idx -1 means none)."""
    return embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                     scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def one_hot(tensor, num_classes=-1):
    """F.one_hot: int64 tensor of shape tensor.shape + (num_classes,); num_classes=-1 infers max + 1."""
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    be, h = tensor._be, tensor._data
    n = tensor.numel()
    if n:
        lo = be.item(be.reduce("amin", h, (), False, D.int64))
        if lo < 0:
            raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if not n:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = be.item(be.reduce("amax", h, (), False, D.int64)) + 1
    elif n and be.item(be.reduce("amax", h, (), False, D.int64)) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    col = be.reshape_view(be.contiguous(h), tuple(tensor.shape) + (1,))
    hit = be.elementwise("eq", (col, be.arange(0, num_classes, 1, D.int64)), D.int64)
    return wrap(be.cast(hit, D.int64), tensor, tensor.shape + (num_classes,))


FUNCTIONS = {"embedding": torch_embedding, "embedding_renorm_": embedding_renorm_}
