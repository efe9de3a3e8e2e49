"""Lua's containers: Container (add/get/size, recursion), Sequential, Concat, ParallelTable.

Containers do not record graphs of their own: they route input/gradOutput through their children's
updateOutput/updateGradInput/accGradParameters exactly as Lua's containers do. Indices are 1-based.
"""
from ...ops.shape import cat
from .module import Module, typename


class Container(Module):
    __typename__ = "nn.Container"
    _param_fields = ()

    def __init__(self, *modules):
        super().__init__()
        self.modules = []
        for m in modules:
            self.add(m)

    def add(self, module, index=None):
        if not isinstance(module, Module):
            raise TypeError(f"{typename(self)}:add() expects a legacy nn module, got {type(module).__name__}")
        if index is None:
            self.modules.append(module)
        else:
            self.modules.insert(self._index(index, len(self.modules) + 1), module)
        return self

    def _index(self, index, n=None):
        n = len(self.modules) if n is None else n
        i = index + n + 1 if index < 0 else index  # Lua's negative index counts from the end
        if not 1 <= i <= n:
            raise IndexError(f"{typename(self)}: index {index} out of range; modules are numbered 1..{n}")
        return i - 1

    def get(self, index):
        return self.modules[self._index(index)]

    def size(self):
        return len(self.modules)

    def applyToModules(self, fn):
        for m in self.modules:
            fn(m)

    def zeroGradParameters(self):
        self.applyToModules(lambda m: m.zeroGradParameters())

    def updateParameters(self, learningRate):
        self.applyToModules(lambda m: m.updateParameters(learningRate))

    def training(self):
        self.applyToModules(lambda m: m.training())
        return super().training()

    def evaluate(self):
        self.applyToModules(lambda m: m.evaluate())
        return super().evaluate()

    def share(self, mlp, *names):
        for mine, theirs in zip(self.modules, mlp.modules):
            mine.share(theirs, *names)
        return self

    def reset(self, stdv=None):
        self.applyToModules(lambda m: m.reset(stdv))

    def clearState(self):
        self.applyToModules(lambda m: m.clearState())
        return super().clearState()

    def parameters(self):
        w, gw = [], []
        for m in self.modules:
            mw, mgw = m.parameters()
            w += mw
            gw += mgw
        return w, gw

    def _slots(self):
        return [s for m in self.modules for s in m._slots()]

    def __repr__(self):
        lines = [f"{typename(self)} {{"]
        for i, m in enumerate(self.modules, 1):
            lines.append(f"  ({i}): " + repr(m).replace("\n", "\n  "))
        return "\n".join(lines + ["}"])


class Sequential(Container):
    """Modules plugged one after the other: each one's output is the next one's input."""
    __typename__ = "nn.Sequential"

    def insert(self, module, index=None):
        return self.add(module, index)

    def remove(self, index=None):
        i = self._index(len(self.modules) if index is None else index)
        return self.modules.pop(i)

    def updateOutput(self, input):
        current = input
        for m in self.modules:
            current = m.updateOutput(current)
        self.output = current
        return current

    def _inputs(self, input):
        return [input] + [m.output for m in self.modules[:-1]]

    def updateGradInput(self, input, gradOutput):
        g = gradOutput
        for m, x in zip(reversed(self.modules), reversed(self._inputs(input))):
            g = m.updateGradInput(x, g)
        self.gradInput = g
        return g

    def accGradParameters(self, input, gradOutput, scale=1):
        g = gradOutput
        pairs = list(zip(self.modules, self._inputs(input)))
        for i in range(len(pairs) - 1, -1, -1):
            m, x = pairs[i]
            m.accGradParameters(x, g, scale)
            g = m.gradInput

    def backward(self, input, gradOutput, scale=1):
        g = gradOutput
        for m, x in zip(reversed(self.modules), reversed(self._inputs(input))):
            g = m.backward(x, g, scale)
        self.gradInput = g
        return g

    def accUpdateGradParameters(self, input, gradOutput, lr):
        g = gradOutput
        for m, x in zip(reversed(self.modules), reversed(self._inputs(input))):
            m.accUpdateGradParameters(x, g, lr)
            g = m.gradInput

    def __repr__(self):
        chain = " -> ".join(["input"] + [f"({i})" for i in range(1, len(self.modules) + 1)] + ["output"])
        lines = [f"nn.Sequential {{", f"  [{chain}]"]
        for i, m in enumerate(self.modules, 1):
            lines.append(f"  ({i}): " + repr(m).replace("\n", "\n  "))
        return "\n".join(lines + ["}"])


class Concat(Container):
    """Every module gets the same input; their outputs are concatenated along ``dimension`` (1-based)."""
    __typename__ = "nn.Concat"

    def __init__(self, dimension):
        super().__init__()
        self.dimension = dimension

    def _dim(self, t):
        d = self.dimension
        if not 1 <= d <= t.dim():
            raise IndexError(f"nn.Concat: dimension {d} out of range for outputs of {t.dim()} dimensions "
                             f"(Lua dimensions are 1-based)")
        return d - 1

    def updateOutput(self, input):
        outs = [m.updateOutput(input) for m in self.modules]
        self.output = cat(outs, self._dim(outs[0]))
        return self.output

    def _pieces(self, gradOutput):
        d, offset = self._dim(gradOutput), 0
        for m in self.modules:
            n = m.output.shape[d]
            yield m, gradOutput.narrow(d, offset, n)
            offset += n

    def updateGradInput(self, input, gradOutput):
        total = None
        for m, g in self._pieces(gradOutput):
            gi = m.updateGradInput(input, g)
            total = gi.clone() if total is None else total.add_(gi)
        self.gradInput = total
        return total

    def accGradParameters(self, input, gradOutput, scale=1):
        for m, g in self._pieces(gradOutput):
            m.accGradParameters(input, g, scale)

    def backward(self, input, gradOutput, scale=1):
        total = None
        for m, g in self._pieces(gradOutput):
            gi = m.backward(input, g, scale)
            total = gi.clone() if total is None else total.add_(gi)
        self.gradInput = total
        return total

    def accUpdateGradParameters(self, input, gradOutput, lr):
        for m, g in self._pieces(gradOutput):
            m.accUpdateGradParameters(input, g, lr)


class ParallelTable(Container):
    """The i-th module is applied to the i-th element of the input table (a list); the output is a list."""
    __typename__ = "nn.ParallelTable"

    def _check(self, input):
        if not isinstance(input, (list, tuple)) or len(input) < len(self.modules):
            got = f"a table of {len(input)}" if isinstance(input, (list, tuple)) else type(input).__name__
            raise ValueError(f"nn.ParallelTable expects a table (list) of at least {len(self.modules)} inputs, "
                             f"got {got}")

    def updateOutput(self, input):
        self._check(input)
        self.output = [m.updateOutput(x) for m, x in zip(self.modules, input)]
        return self.output

    def updateGradInput(self, input, gradOutput):
        self.gradInput = [m.updateGradInput(x, g) for m, x, g in zip(self.modules, input, gradOutput)]
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        for m, x, g in zip(self.modules, input, gradOutput):
            m.accGradParameters(x, g, scale)

    def backward(self, input, gradOutput, scale=1):
        self.gradInput = [m.backward(x, g, scale) for m, x, g in zip(self.modules, input, gradOutput)]
        return self.gradInput

    def accUpdateGradParameters(self, input, gradOutput, lr):
        for m, x, g in zip(self.modules, input, gradOutput):
            m.accUpdateGradParameters(x, g, lr)
