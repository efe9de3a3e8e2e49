"""nn.Module of Lua Torch: forward/backward(input, gradOutput), explicit gradient buffers, share/clone,
parameters/getParameters, type conversion, findModules.

A leaf module only writes its forward computation (``_compute``). ``updateOutput`` runs it on detached
leaves of the input and of every parameter while recording a graph; ``updateGradInput`` and
``accGradParameters`` pull the gradients out of that graph with ``autograd.grad`` (the gradOutput is the
seed), so each layer's backward is the autograd op's backward. As in Lua, backward(input, ...) assumes
forward(input) ran just before; given another input object, the forward is run again first.
"""
import copy

from ... import autograd
from ..._tensor import Tensor
from ...ops.creation import empty
from .flatten import flatten_parameters

_TYPES = {"torch.FloatTensor": "float32", "torch.DoubleTensor": "float64"}
_NAMES = {v: k for k, v in _TYPES.items()}


def typename(obj):
    """torch.typename: 'nn.Linear' for a module, 'torch.FloatTensor' for a float32 tensor."""
    if isinstance(obj, Tensor):
        return _NAMES.get(obj.dtype.name, f"torch.{obj.dtype.name}")
    return getattr(type(obj), "__typename__", None)


def _leaf(x, fresh=False):
    """A graph leaf standing for x (lists/tuples recursively); only float tensors take gradients."""
    if isinstance(x, (list, tuple)):
        return type(x)(_leaf(v, fresh) for v in x)
    if isinstance(x, Tensor) and x.is_floating_point():
        d = x.detach()
        return (d.clone() if fresh else d).requires_grad_()
    return x


def _detach(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_detach(v) for v in x)
    return x.detach() if isinstance(x, Tensor) else x


def _grad_leaves(x):
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in _grad_leaves(v)]
    return [x] if isinstance(x, Tensor) and x.requires_grad else []


def _rebuild(x, grads):
    """The structure of x with each grad-taking leaf replaced by its gradient (in order)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_rebuild(v, grads) for v in x)
    return next(grads) if isinstance(x, Tensor) and x.requires_grad else None


def _convert(value, dtype, memo):
    """Tensors (inside lists too) converted to dtype; an object shared before stays shared after."""
    if isinstance(value, Tensor):
        if id(value) not in memo:
            memo[id(value)] = value if value.dtype is dtype else value.detach().to(dtype)
        return memo[id(value)]
    if isinstance(value, list):
        return [_convert(v, dtype, memo) for v in value]
    if isinstance(value, tuple):
        return tuple(_convert(v, dtype, memo) for v in value)
    return value


def convert_fields(obj, type, tensorCache=None):
    """Convert every tensor field of obj to the Lua tensor type; returns the memo of converted tensors."""
    if type not in _TYPES:
        raise ValueError(f"{typename(obj)}:type(): unsupported type {type!r}; webtorch supports "
                         f"{', '.join(sorted(_TYPES))} (use :float() or :double())")
    from ... import _dtype
    dtype = getattr(_dtype, _TYPES[type])
    memo = {} if tensorCache is None else tensorCache
    obj._graph = None
    for key, value in list(obj.__dict__.items()):
        obj.__dict__[key] = _convert(value, dtype, memo)
    return memo


class _Graph:
    __slots__ = ("input", "leaves", "params", "out")

    def __init__(self, input, leaves, params, out):
        self.input, self.leaves, self.params, self.out = input, leaves, params, out


class Module:
    """Abstract Lua module. Subclasses with learnable tensors list them in ``_param_fields`` as
    (parameter field, gradient field) pairs and implement ``_compute(input, *params)``."""
    __typename__ = "nn.Module"
    _param_fields = (("weight", "gradWeight"), ("bias", "gradBias"))
    _inplace_output = False  # the output is written back into the input tensor (ReLU(true), ...)

    def __init__(self):
        self.gradInput = empty(0)
        self.output = empty(0)
        self.train = True
        self._graph = None
        self._shared = False

    # ---- the forward computation of a leaf module ----------------------------------------------------
    def _compute(self, input, *params):
        raise NotImplementedError(f"{typename(self)} does not implement updateOutput")

    def _present(self):
        return [(p, g) for p, g in self._param_fields if getattr(self, p, None) is not None]

    def forward(self, input):
        return self.updateOutput(input)

    def updateOutput(self, input):
        with autograd.enable_grad():
            leaves = _leaf(input, fresh=self._inplace_output)
            params = [getattr(self, p).detach().requires_grad_() for p, _ in self._present()]
            out = self._compute(leaves, *params)
        self._graph = _Graph(input, leaves, params, out)
        if self._inplace_output:
            with autograd.no_grad():
                input.copy_(out)
            self.output = input
        else:
            self.output = _detach(out)
        return self.output

    def _gradients(self, input, gradOutput, want_input, want_params):
        """(gradient w.r.t. input or None, gradients w.r.t. parameters) from the recorded graph."""
        g = self._graph
        if g is None or g.input is not input:
            self.updateOutput(input)
            g = self._graph
        in_leaves = _grad_leaves(g.leaves) if want_input else []
        params = g.params if want_params else []
        targets = in_leaves + params
        if not targets:
            return None, []
        if not isinstance(gradOutput, Tensor) or tuple(gradOutput.shape) != tuple(g.out.shape):
            got = tuple(gradOutput.shape) if isinstance(gradOutput, Tensor) else type(gradOutput).__name__
            raise ValueError(f"{typename(self)}: gradOutput of size {got} does not match the output of size "
                             f"{tuple(g.out.shape)}; pass the gradient of the loss w.r.t. this module's output")
        if g.out.requires_grad:
            grads = autograd.grad(g.out, targets, gradOutput, retain_graph=True, allow_unused=True,
                                  materialize_grads=True)
        else:  # the output does not depend on anything differentiable
            from ...ops.creation import zeros_like
            grads = tuple(zeros_like(t) for t in targets)
        n = len(in_leaves)
        grad_input = _rebuild(g.leaves, iter(grads[:n])) if want_input else None
        return grad_input, list(grads[n:])

    # ---- Lua's backward API ---------------------------------------------------------------------------
    def backward(self, input, gradOutput, scale=1):
        grad_input, grads = self._gradients(input, gradOutput, True, True)
        self._accumulate(grads, scale)
        self.gradInput = grad_input
        return self.gradInput

    def updateGradInput(self, input, gradOutput):
        self.gradInput, _ = self._gradients(input, gradOutput, True, False)
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        if self._present():
            _, grads = self._gradients(input, gradOutput, False, True)
            self._accumulate(grads, scale)

    def _accumulate(self, grads, scale):
        with autograd.no_grad():
            for (_, gname), g in zip(self._present(), grads):
                getattr(self, gname).add_(g, alpha=scale)

    def accUpdateGradParameters(self, input, gradOutput, lr):
        """weight -= lr * dL/dweight without touching gradWeight (shared modules go through their
        gradient buffers, as Lua's sharedAccUpdateGradParameters)."""
        if self._shared:
            if self._present():
                self.zeroGradParameters()
                self.accGradParameters(input, gradOutput, 1)
                self.updateParameters(lr)
            return
        fields = self._present()
        saved = [getattr(self, g) for _, g in fields]
        for p, g in fields:
            setattr(self, g, getattr(self, p))
        try:
            self.accGradParameters(input, gradOutput, -lr)
        finally:
            for (_, g), t in zip(fields, saved):
                setattr(self, g, t)

    def zeroGradParameters(self):
        _, grads = self.parameters()
        with autograd.no_grad():
            for g in grads:
                g.zero_()

    def updateParameters(self, learningRate):
        params, grads = self.parameters()
        with autograd.no_grad():
            for p, g in zip(params, grads):
                p.add_(g, alpha=-learningRate)

    # ---- parameters -----------------------------------------------------------------------------------
    def parameters(self):
        """(weights, gradWeights): lists (empty for a module without parameters; Lua returns nil)."""
        fields = self._present()
        return [getattr(self, p) for p, _ in fields], [getattr(self, g) for _, g in fields]

    def _slots(self):
        """(module, parameter field, gradient field) of every learnable tensor, in parameters() order."""
        return [(self, p, g) for p, g in self._present()]

    def getParameters(self):
        """(flat parameters, flat gradients): every parameter and gradient becomes a view of one flat
        tensor, so updating the flat tensor updates the modules. Tensors that shared storage before
        (share, clone with names) still share it after."""
        slots = self._slots()
        flat_p, pmap = flatten_parameters([getattr(m, p) for m, p, _ in slots])
        flat_g, gmap = flatten_parameters([getattr(m, g) for m, _, g in slots])
        if flat_p.numel() != flat_g.numel():
            raise RuntimeError("getParameters: the parameters and their gradients do not have the same number "
                               f"of elements ({flat_p.numel()} vs {flat_g.numel()}): check that you are sharing "
                               "parameters and gradParameters")
        for m, p, g in slots:
            old_p, old_g = getattr(m, p), getattr(m, g)
            setattr(m, p, pmap[id(old_p)])
            setattr(m, g, gmap[id(old_g)])
        for m, p, g in slots:
            if getattr(m, p).storage_offset() != getattr(m, g).storage_offset():
                raise RuntimeError(f"getParameters: misaligned parameter {p} of {typename(m)}")
        return flat_p, flat_g

    # ---- modes, sharing, copying, types -------------------------------------------------------------
    def training(self):
        self.train = True
        return self

    def evaluate(self):
        self.train = False
        return self

    def share(self, mlp, *names):
        """Make the named fields (e.g. 'weight', 'bias', 'gradWeight') the very tensors of mlp."""
        for name in names:
            if getattr(self, name, None) is not None:
                setattr(self, name, getattr(mlp, name))
                self._shared = mlp._shared = True
        self._graph = None
        return self

    def clone(self, *names):
        """A deep copy; with names, those fields stay shared with the original."""
        twin = copy.deepcopy(self)
        if names:
            twin.share(self, *names)
        return twin

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_graph"] = None  # a recorded graph is transient, never copied or saved
        return state

    def type(self, type=None, tensorCache=None):
        """type() -> current tensor type name; type('torch.DoubleTensor') converts every tensor field."""
        if type is None:
            return typename(self.output) if isinstance(self.output, Tensor) else "torch.FloatTensor"
        memo = convert_fields(self, type, tensorCache)
        for m in getattr(self, "modules", None) or []:
            m.type(type, memo)
        return self

    def float(self):
        return self.type("torch.FloatTensor")

    def double(self):
        return self.type("torch.DoubleTensor")

    def clearState(self):
        """Drop the buffers of the last forward/backward (output, gradInput, the recorded graph)."""
        self.output = empty(0, dtype=self.output.dtype) if isinstance(self.output, Tensor) else empty(0)
        self.gradInput = empty(0, dtype=self.output.dtype)
        self._graph = None
        return self

    def reset(self, stdv=None):
        pass

    # ---- walking --------------------------------------------------------------------------------------
    def findModules(self, typename_, container=None):
        """(modules whose typename is typename_, the container holding each one), depth first."""
        container = container or self
        nodes, containers = [], []
        if typename(self) == typename_:
            nodes.append(self)
            containers.append(container)
        for child in getattr(self, "modules", None) or []:
            n, c = child.findModules(typename_, self)
            nodes += n
            containers += c
        return nodes, containers

    def listModules(self):
        mods = [self]
        for child in getattr(self, "modules", None) or []:
            mods += child.listModules()
        return mods

    def apply(self, callback):
        callback(self)
        for child in getattr(self, "modules", None) or []:
            child.apply(callback)

    def replace(self, callback):
        out = callback(self)
        mods = getattr(self, "modules", None)
        if mods:
            for i, child in enumerate(mods):
                mods[i] = child.replace(callback)
        return out

    def __call__(self, input, gradOutput=None):
        """Lua's module(input[, gradOutput]): forward, and backward when gradOutput is given."""
        self.forward(input)
        if gradOutput is not None:
            self.backward(input, gradOutput)
            return self.output, self.gradInput
        return self.output

    def __repr__(self):
        return typename(self)
