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
    """Base for grad-mode context managers; an instance or the class itself also decorates functions."""

    def _enter_value(self):
        raise NotImplementedError

    def __enter__(self):
        self._prev = (state.enabled, state.inference)
        self._apply()
        return None

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
    def __new__(cls, fn=None):
        self = object.__new__(cls)
        if callable(fn):  # used as a bare decorator: @no_grad
            return self(fn)
        return self

    def __init__(self, fn=None):
        pass

    def _apply(self):
        state.enabled = False


class enable_grad(no_grad):
    def _apply(self):
        state.enabled = True


class set_grad_enabled(_Mode):
    def __init__(self, mode):
        self.mode = bool(mode)
        self._prev_now = state.enabled
        state.enabled = self.mode  # like PyTorch, takes effect when called, not only on __enter__

    def __enter__(self):
        self._prev = (self._prev_now, state.inference)
        state.enabled = self.mode

    def clone(self):
        obj = object.__new__(set_grad_enabled)
        obj.mode = self.mode
        obj._prev_now = state.enabled
        return obj


class inference_mode(_Mode):
    def __new__(cls, mode=True):
        self = object.__new__(cls)
        if callable(mode):
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

    def clone(self):
        return inference_mode(self.mode)
