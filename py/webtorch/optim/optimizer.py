"""torch.optim.Optimizer: param_groups, per-parameter state, state_dict in PyTorch's layout, hooks.

An optimizer class only validates its options and says what is its own: a parameter's fresh state
(``_init_state``), the state lists its update takes (``_state_keys``) and the call of that update
(``_update``); the step around it (closure, params with gradients, lazy state, hooks, no_grad) is this base
class's. The update math is a plain function per algorithm (``adam(params, grads, ...)``) with a per-tensor
path (Tensor ops) and a multi-tensor path (one fused backend primitive per parameter list, ops/fused_update.py).
"""
import functools
import struct
import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain

from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.graph import zero_grads
from ..autograd.hooks import add_hook, hook_dict
from ..autograd.grad_mode import enable_grad, no_grad
from ..ops.creation import tensor as _tensor
from ..webgpu import is_current_stream_capturing

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks = hook_dict()
_global_optimizer_post_hooks = hook_dict()
_HOOK_TABLES = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                "_optimizer_load_state_dict_post_hooks")


class _RequiredParameter:
    """Marks an option a param group must give (no default)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook):
    """Register ``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` run before every optimizer's step."""
    return add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Register ``hook(optimizer, args, kwargs)`` run after every optimizer's step."""
    return add_hook(_global_optimizer_post_hooks, hook)


def _typename(obj):
    if isinstance(obj, Tensor):
        return "torch.FloatTensor" if obj.dtype is D.float32 else obj.type()
    mod = type(obj).__module__
    return type(obj).__qualname__ if mod in ("builtins", None) else f"{mod}.{type(obj).__qualname__}"


def _get_value(x):
    """A Python number from a number or a one-element tensor (the step counters are 0-dim tensors; their
    host-side copy answers without a device read while it is current)."""
    if not isinstance(x, Tensor):
        return x
    value = _host_copy(x)
    return x.item() if value is None else value


def _to_scalar(x):
    """A one-element hyperparameter tensor squeezed to 0-dim; anything else unchanged."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _scalar_dtype(is_fused=None):
    """dtype of the step / mu_product state tensors, as PyTorch chooses it."""
    if is_fused:
        return D.float32
    return D.float64 if D.get_default_dtype() is D.float64 else D.float32


def _new_step(p, on_param_device=False, value=0.0, fused=None):
    """A fresh 0-dim step (or mu_product) tensor: a cpu scalar, or beside the param when capturable/fused."""
    if on_param_device:
        t = _tensor(float(value), dtype=_scalar_dtype(fused), device=p.device)
    else:
        t = _tensor(float(value), dtype=_scalar_dtype())
    _keep_host_copy(t, _rounded(t, float(value)))
    return t


# Host-side copies of the 0-dim state scalars (step counters, NAdam's mu_product). Where they live on the GPU
# (the default device set to webgpu, or capturable/fused beside webgpu parameters), reading each back every step
# would stall the training loop on the device once per parameter. The optimizer changes them only through
# ``_update_scalar``, which computes the new value on the host exactly as the device does (same dtype
# rounding); a copy is trusted only while the tensor's version counter (shared by its views, swapped by
# ``.data =``) is the one it was taken at, so any other in-place write falls back to one read.
_HOST_COPY = "_optim_host_value"


def _rounded(t, value):
    """``value`` rounded to t's dtype, as storing it in t rounds it."""
    if t.dtype is D.float32:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    return value


def _keep_host_copy(t, value):
    t.__dict__[_HOST_COPY] = (t._version, t._version[0], value)


def _host_copy(t):
    """t's value from its host-side copy, or None when there is none or t changed since."""
    kept = t.__dict__.get(_HOST_COPY)
    if kept is None or kept[0] is not t._version or kept[1] != t._version[0]:
        return None
    return kept[2]


def _update_scalar(t, op, operand):
    """``t.add_(operand)`` or ``t.mul_(operand)`` on a 0-dim state tensor; returns its new value as a Python
    float without reading the device when the host-side copy is current."""
    old = _host_copy(t)
    if op == "add":
        t.add_(operand)
    else:
        t.mul_(operand)
    if old is None:
        value = t.item()
    elif op == "add":
        value = _rounded(t, old + _rounded(t, operand))
    else:
        value = _rounded(t, old * _rounded(t, operand))
    _keep_host_copy(t, value)
    return value


def _bump_steps(state_steps):
    """Increment every step tensor in place; returns their new values as Python floats."""
    return [_update_scalar(s, "add", 1) for s in state_steps]


def _run_closure(closure):
    """The closure's loss, evaluated with grad enabled (step itself runs under no_grad); None without one."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _check_no_differentiable(differentiable):
    if differentiable:
        raise ValueError("differentiable=True is not supported in webtorch: optimizer steps always run under "
                         "no_grad; differentiate through an update written with Tensor ops instead")


_OPTION_NAMES = {"lr": "learning rate", "eps": "epsilon value"}


def _check_options(**options):
    """PyTorch's range checks of constructor options, in the order given, with its messages: every option
    >= 0, ``rho`` also <= 1, both ``betas`` in [0, 1); a Tensor ``lr`` must have one element."""
    for name, value in options.items():
        if name == "betas":
            for i in (0, 1):
                if not 0.0 <= value[i] < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {value[i]}")
            continue
        if name == "lr" and isinstance(value, Tensor) and value.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= value or (name == "rho" and value > 1.0):
            raise ValueError(f"Invalid {_OPTION_NAMES.get(name, name + ' value')}: {value}")


def _check_no_grad_scaling(grad_scale, found_inf):
    if grad_scale is not None or found_inf is not None:
        raise ValueError("grad_scale/found_inf (AMP gradient scaling) are not supported in webtorch")


def _check_singleton_lists(**lists):
    """The functional API takes the step counters (and NAdam's mu_products) as 0-dim tensors."""
    for name, values in lists.items():
        if not all(isinstance(t, Tensor) for t in values):
            raise RuntimeError(f"API has changed, `{name}` argument must contain a list of singleton tensors")


def _decayed_grad(param, grad, maximize, weight_decay, lr=0.0, decoupled=False):
    """The gradient a per-tensor update uses: negated when maximizing, plus ``weight_decay * param`` (L2);
    with ``decoupled`` (AdamW-style) the param is shrunk in place by ``lr * weight_decay`` instead."""
    if maximize:
        grad = -grad
    if weight_decay != 0:
        if decoupled:
            param.mul_(1 - lr * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    return grad


class Optimizer:
    """Base class for all optimizers.

    Args:
        params (iterable): Tensors to optimize, ``(name, tensor)`` pairs, or dicts defining param groups.
        defaults (dict): default values of the optimization options (used when a group does not give them).

    Example::

        >>> w = torch.zeros(3, requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> (w - 1).pow(2).sum().backward()
        >>> opt.step(); opt.zero_grad()
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_TABLES:
            setattr(self, name, hook_dict())
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __init_subclass__(cls, **kwargs):
        # Every subclass's step runs under no_grad and between the step hooks, as PyTorch patches it.
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _hooked_step(cls.__dict__["step"])

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_TABLES:
            if name not in self.__dict__:
                setattr(self, name, hook_dict())
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, default in self._setstate_defaults.items():
                group.setdefault(key, default)
        self._restore_step_tensors()

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # -- hooks ------------------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)``, run before ``step``."""
        return add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs)``, run after ``step``."""
        return add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer)``, run before ``state_dict`` builds the dict."""
        return add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict) -> state_dict or None``, run on the built dict."""
        return add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """``hook(optimizer, state_dict) -> state_dict or None``, run before loading."""
        return add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """``hook(optimizer)``, run after loading."""
        return add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state_dict -------------------------------------------------------------------------------------
    def state_dict(self):
        """The optimizer state as ``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``.

        Parameters are numbered in param_groups order; the per-parameter state tensors are returned by
        reference (as PyTorch does), the group options are copied.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        # Floating state follows the param's dtype and device; 'step' stays as saved (a cpu scalar) unless
        # the group is fused/capturable, where it lives beside the param as float32.
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=D.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        """Load a state dict made by ``state_dict()`` here or in PyTorch (its tensors converted to webtorch).

        Raises ValueError when the number of groups or of parameters per group differs.
        """
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id, param_groups, key)
            if isinstance(value, dict):
                return {k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                        for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(_cast(param, v, param_id=param_id, param_groups=param_groups) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def _restore_step_tensors(self):
        """State loaded from old checkpoints may hold Python numbers where tensors belong; make them tensors."""
        for group in self.param_groups:
            for p in group["params"]:
                p_state = self.state.get(p, {})
                for key in self._step_keys:
                    if key in p_state and not isinstance(p_state[key], Tensor):
                        p_state[key] = self._step_tensor(group, p, p_state[key])

    # -- gradients and groups ---------------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors: to None (default), or to zeros in place."""
        zero_grads(chain.from_iterable(group["params"] for group in self.param_groups), set_to_none)

    # -- the step every built-in first-order optimizer shares ---------------------------------------------
    # A subclass gives what is its own: _init_state (a parameter's fresh state), _state_keys (the state lists
    # its functional takes, in order) and _update (that functional called with the group's options); or it
    # overrides step altogether (LBFGS).
    _setstate_defaults = {}  # group options a pickle from an older version may lack
    _step_keys = ()  # 0-dim state tensors an old checkpoint may hold as Python numbers
    _capturable_update = False  # capturable=True keeps every per-step value on the device (Adam, AdamW)
    # PyTorch's refusal of a sparse gradient ({} is the class's name); None: the update takes sparse gradients
    _sparse_grad_error = "{} does not support sparse gradients"

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = _run_closure(closure)
        if is_current_stream_capturing():
            self._check_capture()
        for group in self.param_groups:
            params, grads, state_lists = self._init_group(group)
            self._update(group, params, grads, *state_lists)
        return loss

    def _init_group(self, group):
        """The params of ``group`` that have a gradient, their grads, and one list per ``_state_keys(group)``
        entry (empty for a None key). State is created by ``_init_state`` on first use; a missing entry is
        passed as None (SGD's momentum buffer is made by its first update)."""
        keys = self._state_keys(group)
        params, grads, state_lists = [], [], [[] for _ in keys]
        used = [(key, values) for key, values in zip(keys, state_lists) if key is not None]
        for p in group["params"]:
            if p.grad is None:
                continue
            self._check_grad_layout(p.grad)
            params.append(p)
            grads.append(p.grad)
            if not used:
                continue
            state = self.state[p]
            if len(state) == 0:
                state.update(self._init_state(group, p))
            for key, values in used:
                values.append(state.get(key))
        return params, grads, state_lists

    def _check_grad_layout(self, grad):
        """Refuse a gradient of a layout this optimizer's update does not take, with PyTorch's error."""
        if self._sparse_grad_error is not None and grad.is_sparse:
            raise RuntimeError(self._sparse_grad_error.format(type(self).__name__))

    def _state_keys(self, group):
        """Names of the per-parameter state lists ``_update`` takes after params and grads (None: unused)."""
        return ()

    def _init_state(self, group, p):
        """The state of parameter ``p`` before its first step."""
        return {}

    def _update(self, group, params, grads, *state_lists):
        """Update one group's params with gradients from the lists ``_init_group`` made."""
        raise NotImplementedError

    def _check_capture(self):
        """Raise unless this step can be captured by a webtorch.webgpu graph (every replay must do what the
        captured step did; host-side values such as step counts would be baked into it)."""
        name = type(self).__name__
        if "capturable" in self.defaults and not all(group["capturable"] for group in self.param_groups):
            raise RuntimeError(f"Attempting CUDA graph capture of step() for an instance of {name} but "
                               "param_groups' capturable is False. (webtorch.webgpu graphs: construct it with "
                               "capturable=True)")
        if not self._capturable_update:
            raise RuntimeError(f"{name}.step() cannot be captured by a webtorch.webgpu graph yet (its update uses "
                               "host-side values a replay would repeat): capture Adam, AdamW (capturable=True) or "
                               "SGD, or run this step outside the capture")

    def _steps_on_param_device(self, group):
        """Whether the group keeps its step counters beside the params (capturable or fused) or on the cpu."""
        return bool(group.get("capturable")) or bool(group.get("fused"))

    def _step_tensor(self, group, p, value=0.0):
        """A fresh 0-dim step counter (or mu_product) of ``p``'s state."""
        return _new_step(p, self._steps_on_param_device(group), value, group.get("fused"))

    def add_param_group(self, param_group):
        """Add a param group (a dict with ``'params'`` and optional options) to ``param_groups``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


def _hooked_step(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{type(self).__name__}.step must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        with no_grad():
            out = step(self, *args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out
    wrapper.hooked = True
    return wrapper


Optimizer.step = _hooked_step(Optimizer.step)
