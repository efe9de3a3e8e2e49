"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (context managers and decorators)."""
import functools


class _State:
    enabled = True
    inference = False


state = _State()


def is_grad_enabled():
    return state.enabled


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    """Base of the grad-mode context managers; an instance also decorates a function (each call runs
    inside a fresh copy of the mode, so nested and recursive calls restore correctly)."""

    def __enter__(self):
        self._prev = (state.enabled, state.inference)
        self._apply()

    def __exit__(self, *exc):
        state.enabled, state.inference = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_Mode):
    """Disables gradient recording; ``@no_grad`` and ``@no_grad()`` both decorate."""

    def __new__(cls, orig_func=None):
        self = object.__new__(cls)
        if orig_func is not None and callable(orig_func):
            return self(orig_func)
        return self

    def __init__(self, orig_func=None):
        pass

    def _apply(self):
        state.enabled = False


class enable_grad(no_grad):
    def _apply(self):
        state.enabled = True


class set_grad_enabled(_Mode):
    """Takes effect when called (``set_grad_enabled(False)`` as a statement), as a context manager, or --
    as a decorator -- only inside the decorated function."""

    def __init__(self, mode):
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __call__(self, fn):
        state.enabled = self.prev
        return _Mode.__call__(self, fn)

    def __enter__(self):
        self._prev = (self.prev, state.inference)
        state.enabled = self.mode

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_Mode):
    """no_grad that also marks the tensors it creates as inference tensors (``is_inference()``)."""

    def __new__(cls, mode=True):
        self = object.__new__(cls)
        if callable(mode):  # bare decorator: @inference_mode
            self.mode = True
            return self(mode)
        self.mode = bool(mode)
        return self

    def __init__(self, mode=True):
        pass

    def _apply(self):
        if self.mode:
            state.enabled = False
            state.inference = True
        else:  # as PyTorch's InferenceMode(false): grad mode back on
            state.enabled = True
            state.inference = False

    def clone(self):
        return inference_mode(self.mode)
