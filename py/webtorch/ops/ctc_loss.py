"""F.ctc_loss (Connectionist Temporal Classification): -log p(target | log_probs) summed over every alignment.

Forward runs the alpha recursion over time, vectorized over the batch and the extended label sequence
(blank, l1, blank, l2, ..., blank); backward runs the beta recursion and gives PyTorch's gradient for
log_probs, exp(lp) - exp(log(alpha * beta) + nll - lp) (zero past each input length), so values and
gradients match torch.nn.functional.ctc_loss. Both are written with Tensor ops in log space, on any device.
"""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.graph import Node, apply_op
from ..autograd.grad_mode import no_grad
from .creation import arange, full, tensor
from .loss import reduction_name
from .shape import cat

_CHECK = " (while checking arguments for ctc_loss_allocate_outputs)"


def _lse(*terms):
    """logsumexp of equal-shaped tensors, -inf where every term is -inf (no NaN)."""
    m = terms[0]
    for t in terms[1:]:
        m = m.maximum(t)
    m = m.where(m > float("-inf"), 0.0)
    s = (terms[0] - m).exp()
    for t in terms[1:]:
        s = s + (t - m).exp()
    return s.log() + m


def _shift(a, k):
    """a (N, L) moved k places right along L, -inf coming in."""
    pad = full((a.shape[0], k), float("-inf"), dtype=a.dtype, device=a.device)
    return cat([pad, a[:, :a.shape[1] - k]], 1)


def _unshift(a, k):
    """a (N, L) moved k places left along L, -inf coming in."""
    pad = full((a.shape[0], k), float("-inf"), dtype=a.dtype, device=a.device)
    return cat([a[:, k:], pad], 1)


class CtcLossBackward0(Node):
    @staticmethod
    def forward(ctx, lp, ext, skip, in_len, tgt_len, zero_infinity):
        T, N, _ = lp.shape
        L = ext.shape[1]
        lpe = lp.gather(2, ext.unsqueeze(0).expand(T, N, L))  # (T, N, L): log prob of each extended label
        neg = float("-inf")
        s_idx = arange(L, device=lp.device).unsqueeze(0)
        alpha = lpe[0].where(s_idx < 2, neg).where(s_idx < (2 * tgt_len + 1).unsqueeze(1), neg)
        alphas = [alpha]
        for t in range(1, T):
            step = _lse(alpha, _shift(alpha, 1), _shift(alpha, 2).where(skip, neg)) + lpe[t]
            alpha = step.where((in_len > t).unsqueeze(1), alpha)
            alphas.append(alpha)
        last = (2 * tgt_len).unsqueeze(1)
        end = alpha.gather(1, last)
        end2 = alpha.gather(1, (last - 1).clamp(min=0)).where(last > 0, neg)
        nll = -_lse(end, end2).squeeze(1)
        if zero_infinity:
            nll = nll.where(nll != float("inf"), 0.0)
        ctx.saved = (lp, lpe, ext, skip, in_len, tgt_len, alphas, nll, zero_infinity)
        return nll

    @staticmethod
    def backward(ctx, g):
        lp, lpe, ext, skip, in_len, tgt_len, alphas, nll, zero_infinity = ctx.saved
        T, N, C = lp.shape
        L = ext.shape[1]
        neg = float("-inf")
        s_idx = arange(L, device=lp.device).unsqueeze(0)
        last = (2 * tgt_len).unsqueeze(1)
        at_end = (s_idx == last) | ((s_idx == last - 1) & (last > 0))
        skip_up = _unshift(skip, 2)  # the move s -> s + 2 is allowed
        beta = full((N, L), neg, dtype=lp.dtype, device=lp.device)
        grads = [None] * T
        for t in range(T - 1, -1, -1):
            step = _lse(beta, _unshift(beta, 1), _unshift(beta, 2).where(skip_up, neg)) + lpe[t]
            first = lpe[t].where(at_end, neg)
            live = (in_len > t).unsqueeze(1)
            beta = first.where((in_len - 1 == t).unsqueeze(1), step.where(live, neg))
            ab = alphas[t] + beta
            mx = ab.amax(1, keepdim=True)
            mx = mx.where(mx > neg, 0.0)
            summed = lp.new_zeros((N, C)).scatter_add(1, ext, (ab - mx).exp())
            lcab = summed.log() + mx
            gt = lp[t].exp() - (lcab + nll.unsqueeze(1) - lp[t]).exp()
            grads[t] = gt.where(live, 0.0)
        grad = (grads[0].unsqueeze(0) if T == 1 else cat([x.unsqueeze(0) for x in grads], 0))
        ok = nll != float("inf") if zero_infinity else None
        w = g if ok is None else g.where(ok, 0.0)
        grad = grad * w.reshape(1, N, 1)
        if zero_infinity:
            grad = grad.where(grad == grad, 0.0)
        return (grad,) + (None,) * 4


def _lengths(x, name, n):
    if isinstance(x, Tensor):
        x = x.tolist()
    elif isinstance(x, int):
        raise TypeError(f"ctc_loss(): argument '{name}' must be tuple of ints or a Tensor, not int")
    x = [int(v) for v in x]
    if len(x) != n:
        raise RuntimeError(f"Expected tensor to have size {n} at dimension 0, but got size {len(x)} for argument "
                           f"#{3 if name == 'input_lengths' else 4} '{name}'{_CHECK}")
    return x


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """F.ctc_loss: log_probs (T, N, C) or (T, C); targets padded (N, S) or concatenated 1-D."""
    red = reduction_name(reduction)
    batched = log_probs.dim() == 3
    if not batched:
        if log_probs.dim() != 2:
            raise RuntimeError(f"ctc_loss(): log_probs must be 2-D (T, C) or 3-D (T, N, C), got {log_probs.dim()}-D")
        log_probs, targets = log_probs.unsqueeze(1), targets.unsqueeze(0)
    if not log_probs.dtype.is_floating_point:
        raise RuntimeError(f"ctc_loss(): log_probs must be a floating point tensor, got {log_probs.dtype}")
    T, N, C = log_probs.shape
    in_len = _lengths(input_lengths, "input_lengths", N)
    tgt_len = _lengths(target_lengths, "target_lengths", N)
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    for v in in_len:
        if v > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value {v}{_CHECK}")
        if v < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value {v}{_CHECK}")
    for v in tgt_len:
        if v < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value {v}{_CHECK}")
    if targets._device != log_probs._device:
        targets = targets.to(log_probs.device)
    targets = targets.to(D.int64) if targets.dtype is not D.int64 else targets
    s_max = max(tgt_len) if tgt_len else 0
    if targets.dim() == 2 and batched or not batched:
        if targets.shape[1] < s_max:
            raise RuntimeError(f"Expected tensor to have size at least {s_max} at dimension 1, but got size "
                               f"{targets.shape[1]} for argument #2 'targets'{_CHECK}")
        starts = [n * targets.shape[1] for n in range(N)]
    else:
        if sum(tgt_len) > targets.numel():
            raise RuntimeError(f"Expected tensor to have size at least {sum(tgt_len)} at dimension 0, but got size "
                               f"{targets.numel()} for argument #2 'targets'{_CHECK}")
        starts = [sum(tgt_len[:n]) for n in range(N)]
    L = 2 * s_max + 1
    # each extended position's place in targets' flat storage, or -1 for a blank
    where_label = [[starts[n] + (s - 1) // 2 if s % 2 and (s - 1) // 2 < tgt_len[n] else -1 for s in range(L)]
                   for n in range(N)]
    dev = log_probs.device
    with no_grad():
        pick = tensor(where_label, dtype=D.int64, device=dev)
        flat = targets.reshape(-1)
        ext = flat[pick.clamp(min=0)].where(pick >= 0, blank) if flat.numel() else full((N, L), blank, device=dev)
        prev2 = cat([full((N, 2), blank, dtype=D.int64, device=dev), ext[:, :L - 2]], 1)
        skip = (ext != blank) & (ext != prev2)
    nll = apply_op(CtcLossBackward0, log_probs, ext, skip, tensor(in_len, device=dev), tensor(tgt_len, device=dev),
                   bool(zero_infinity))
    if red == "none":
        return nll if batched else nll.squeeze(0)
    if red == "sum":
        return nll.sum()
    return (nll / tensor(tgt_len, dtype=nll.dtype, device=dev).clamp(min=1)).mean()


FUNCTIONAL = {"ctc_loss": ctc_loss}
FUNCTIONS = {"ctc_loss": ctc_loss}
