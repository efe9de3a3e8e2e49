"""torch.autograd.gradcheck / gradgradcheck: analytical Jacobians (backward) against central differences.

Works on any device through public tensor ops only: an input is perturbed by rebuilding it from its
element list, so no in-place write or indexing primitive is needed.
"""
import warnings

from .tensor_base import TensorBase
from .api import grad as autograd_grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when the two Jacobians differ (a RuntimeError, as PyTorch's)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_tensor(x):
    return isinstance(x, TensorBase)


def _flat_list(t):
    vals = t.detach().tolist()
    for _ in range(t.dim() - 1):
        vals = [v for row in vals for v in row]
    return [vals] if t.dim() == 0 else vals


def _from_flat(vals, like):
    return like.new_tensor(vals).reshape(tuple(like.shape))


def _outputs(func, inputs):
    return tuple(o for o in _as_tuple(func(*inputs)) if _is_tensor(o))


def _numerical_jacobian(func, inputs, diff_idx, eps):
    """jac[i][k]: rows over elements of input diff_idx[i], columns over elements of output k."""
    jac = []
    n_out = len(_outputs(func, inputs))
    for i in diff_idx:
        x = inputs[i]
        base = _flat_list(x)
        rows = [[] for _ in range(n_out)]
        for j in range(len(base)):
            vals = []
            for sign in (1, -1):
                pert = list(base)
                pert[j] = base[j] + sign * eps
                args = list(inputs)
                args[i] = _from_flat(pert, x).requires_grad_(True)  # func may differentiate (gradgradcheck)
                vals.append([_flat_list(o) for o in _outputs(func, args)])
            for k in range(n_out):
                rows[k].append([(a - b) / (2 * eps) for a, b in zip(vals[0][k], vals[1][k])])
        jac.append(rows)
    return jac


def _analytical_jacobian(func, inputs, diff_idx):
    outs = _outputs(func, inputs)
    diff_inputs = [inputs[i] for i in diff_idx]
    jac = [[[] for _ in outs] for _ in diff_idx]
    for k, out in enumerate(outs):
        n = out.numel()
        cols = [[] for _ in diff_idx]
        for m in range(n):
            onehot = [0.0] * n
            onehot[m] = 1.0
            if not out.requires_grad:
                grads = [None] * len(diff_inputs)
            else:
                grads = autograd_grad(out, diff_inputs, grad_outputs=_from_flat(onehot, out), retain_graph=True,
                                      allow_unused=True)
            for i, (g, x) in enumerate(zip(grads, diff_inputs)):
                if g is not None and tuple(g.shape) != tuple(x.shape):
                    raise GradcheckError(f"Gradient has incorrect size for input {diff_idx[i]}: got "
                                         f"{tuple(g.shape)}, expected {tuple(x.shape)}")
                cols[i].append(_flat_list(g if g is not None else x.new_zeros(x.shape)))
        for i in range(len(diff_idx)):  # transpose: rows over input elements
            jac[i][k] = [list(r) for r in zip(*cols[i])] if cols[i] else [[] for _ in range(diff_inputs[i].numel())]
    return jac


def _fmt(rows):
    return "\n".join("[" + ", ".join(f"{v:.4f}" for v in r) + "]" for r in rows)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, nondet_tol=0.0,
              check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True,
              fast_mode=False, masked=None):
    """True when backward's Jacobian of func at inputs matches finite differences (|a-n| <= atol + rtol*|n|)."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")
    for i in diff_idx:
        if inputs[i].dtype.name != "float64":
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point. This check "
                          "will likely fail if all the inputs are not of double precision floating point. ")
    numerical = _numerical_jacobian(func, inputs, diff_idx, eps)
    analytical = _analytical_jacobian(func, inputs, diff_idx)
    for i, (num_i, ana_i) in enumerate(zip(numerical, analytical)):
        for k, (num, ana) in enumerate(zip(num_i, ana_i)):
            ok = all(abs(a - n) <= atol + rtol * abs(n) for rn, ra in zip(num, ana) for n, a in zip(rn, ra))
            if not ok:
                if not raise_exception:
                    return False
                raise GradcheckError(f"Jacobian mismatch for output {k} with respect to input {diff_idx[i]},\n"
                                     f"numerical:{_fmt(num)}\nanalytical:{_fmt(ana)}\n")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """gradcheck of the map (inputs, grad_outputs) -> vector-Jacobian products: checks second derivatives."""
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(o.new_empty(o.shape).normal_().requires_grad_()
                             for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_idx = [i for i, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]

    def first_derivatives(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = _outputs(func, ins)
        pairs = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
        grads = autograd_grad([o for o, _ in pairs], [ins[i] for i in diff_idx], grad_outputs=[g for _, g in pairs],
                              create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
