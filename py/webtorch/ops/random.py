"""In-place random fills and sampling: uniform_, normal_, bernoulli(_), random_, exponential_, log_normal_,
cauchy_, geometric_, multinomial. Every draw comes from the backend's random primitives on a Generator
(``generator=`` or the device's default), so ``manual_seed`` makes each backend reproducible."""
import math

from .. import _dtype as D
from ..autograd.grad_mode import state
from .._tensor import Tensor
from .creation import check_std, rng_for
from ._core.dispatch import wrap
from .._dtype import scalar_type_name
from ._core.inplace import not_implemented_for, require_float, check_inplace_target, commit
from ._core.out_arg import ANY, Rule, same, takes_out


def _fill(self, h):
    """Write drawn handle h into self. A non-leaf keeps a graph that sends it no gradient (PyTorch's fills
    have zero derivative)."""
    check_inplace_target(self)
    drawn = wrap(h, self, self.shape)
    if state.enabled and self.requires_grad:
        drawn = self * 0 + drawn
    return commit(self, drawn)


def _uniform01(self, generator, dtype=None):
    """Uniform [0, 1) draws of self's shape, in float64 on cpu-capable backends else float32."""
    dt = dtype or (D.float64 if self.dtype is D.float64 else D.float32)
    return self._be.uniform(tuple(self.shape), 0.0, 1.0, dt, rng_for(generator, self._device)), dt


def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    from_ = kw.pop("from", from_)
    require_float(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    return _fill(self, self._be.uniform(tuple(self.shape), float(from_), float(to), self.dtype,
                                        rng_for(generator, self._device)))


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    require_float(self, "normal_kernel_cpu")
    check_std(std)
    return _fill(self, self._be.normal(tuple(self.shape), float(mean), float(std), self.dtype,
                                       rng_for(generator, self._device)))


def _transform(self, generator, fn):
    """Draw u ~ U[0, 1), map it with fn(be, u, dt) -> handle, cast to self's dtype."""
    be = self._be
    u, dt = _uniform01(self, generator)
    return be.cast(fn(be, u, dt), self.dtype) if dt is not self.dtype else fn(be, u, dt)


def exponential_(self, lambd=1.0, *, generator=None):
    require_float(self, "exponential_cpu")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")

    def fn(be, u, dt):  # -log(1 - u) / lambda; 1 - u is in (0, 1], so the draw is finite
        return be.elementwise("div", (be.elementwise("neg", (be.elementwise("log1p", (
            be.elementwise("neg", (u,), dt),), dt),), dt), float(lambd)), dt)
    return _fill(self, _transform(self, generator, fn))


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    require_float(self, "cauchy_cpu")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")

    def fn(be, u, dt):  # median + sigma * tan(pi * (u - 1/2))
        t = be.elementwise("tan", (be.elementwise("mul", (be.elementwise("sub", (u, 0.5), dt), math.pi), dt),), dt)
        return be.elementwise("add", (be.elementwise("mul", (t, float(sigma)), dt), float(median)), dt)
    return _fill(self, _transform(self, generator, fn))


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    require_float(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    be = self._be
    n = be.normal(tuple(self.shape), float(mean), float(std), self.dtype, rng_for(generator, self._device))
    return _fill(self, be.elementwise("exp", (n,), self.dtype))


def geometric_(self, p, *, generator=None):
    if self.dtype is D.bool_:
        raise not_implemented_for("geometric_cpu", self.dtype)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")

    def fn(be, u, dt):  # trials until the first success: ceil(log(1 - u) / log(1 - p)), at least 1
        k = be.elementwise("ceil", (be.elementwise("div", (be.elementwise("log1p", (
            be.elementwise("neg", (u,), dt),), dt), math.log1p(-p)), dt),), dt)
        return be.elementwise("maximum", (k, 1.0), dt)
    return _fill(self, _transform(self, generator, fn))


_RANDOM_TOP = {"float16": 1 << 11, "bfloat16": 1 << 8, "float32": 1 << 24, "float64": 1 << 53, "bool": 2,
               "uint8": 1 << 8, "int8": 1 << 7, "int16": 1 << 15, "int32": 1 << 31, "int64": (1 << 63) - 1,
               "uint32": 1 << 32}


def random_(self, from_=0, to=None, *, generator=None, **kw):
    from_ = kw.pop("from", from_)
    if to is None and from_ != 0 and "from" not in kw:
        from_, to = 0, from_  # random_(to)
    if to is None:
        top = _RANDOM_TOP[self.dtype.name]
        to = top + 1 if self.dtype.is_floating_point else top  # floats: [0, 2^mantissa] inclusive
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    h = self._be.randint(tuple(self.shape), int(from_), int(to), D.int64, rng_for(generator, self._device))
    return _fill(self, self._be.cast(h, self.dtype))


def _check_p(p, name):
    if isinstance(p, Tensor):
        return
    if not 0 <= p <= 1:
        raise RuntimeError(f"{name} expects p to be in [0, 1], but got p={p}")


def bernoulli_(self, p=0.5, *, generator=None):
    _check_p(p, "bernoulli_")
    ph = p._data if isinstance(p, Tensor) else float(p)
    return _fill(self, self._be.bernoulli(ph, tuple(self.shape), self.dtype, rng_for(generator, self._device)))


def bernoulli(input, p=None, *, generator=None, out=None):
    if p is not None:
        if out is not None:
            raise TypeError("bernoulli(): out= takes no p (PyTorch has no such overload); use bernoulli_(p)")
        _check_p(p, "bernoulli_")
        return bernoulli_(input.detach().clone(), p, generator=generator)
    return _bernoulli_p_in(input, generator=generator, out=out)


# out= is filled by sampling in its own dtype, whatever it is
@takes_out("bernoulli", ANY, warn=False)
def _bernoulli_p_in(input, *, generator=None):
    if not input.dtype.is_floating_point:
        raise not_implemented_for("bernoulli_tensor_cpu_p_", input.dtype)
    lo_hi = input.detach()
    if not bool(((lo_hi >= 0).logical_and(lo_hi <= 1)).all().item()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    h = input._be.bernoulli(input._data, tuple(input.shape), input.dtype, rng_for(generator, input._device))
    return wrap(h, input, input.shape)


@takes_out(None, Rule(same, "multinomial expects Long tensor out, got: {o}"), warn=False)
def multinomial(input, num_samples, replacement=False, *, generator=None):
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{scalar_type_name(input.dtype)}")
    n = input.shape[-1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    w = input.detach()
    if not bool(w.isfinite().logical_and(w >= 0).all().item()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    total = w.sum(-1, keepdim=True)
    if bool((total <= 0).any().item()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    be, dt = w._be, (D.float64 if w.dtype is D.float64 else D.float32)
    rows = 1 if w.dim() == 1 else w.shape[0]
    rng = rng_for(generator, w._device)
    w2 = be.cast(w.reshape(rows, n)._data, dt)
    if replacement:
        # inverse CDF: u * total located in the running sums of the weights
        cdf = be.cumulative("sum", w2, 1, dt)
        u = be.uniform((rows, num_samples), 0.0, 1.0, dt, rng)
        target = be.elementwise("mul", (u, be.reduce("sum", w2, (1,), True, dt)), dt)
        idx = be.searchsorted(cdf, target, True, False)
        idx = be.elementwise("minimum", (idx, n - 1), D.int64)
    else:
        # exponential race (Efraimidis-Spirakis): the k largest log(u) / w are a draw without replacement
        u = be.uniform((rows, n), 0.0, 1.0, dt, rng)
        keys = be.elementwise("div", (be.elementwise("log", (be.elementwise("sub", (1.0, u), dt),), dt), w2), dt)
        idx = be.topk(keys, num_samples, 1, True, True)[1]
    r = wrap(idx, w, (rows, num_samples))
    return r.reshape(num_samples) if input.dim() == 1 else r


FUNCTIONS = {"bernoulli": bernoulli, "multinomial": multinomial}
METHODS = {"uniform_": uniform_, "normal_": normal_, "bernoulli": bernoulli, "bernoulli_": bernoulli_,
           "random_": random_, "exponential_": exponential_, "log_normal_": log_normal_, "cauchy_": cauchy_,
           "geometric_": geometric_, "multinomial": multinomial}
