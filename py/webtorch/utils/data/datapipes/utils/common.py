"""Checks the built-in DataPipes run on the functions they are given."""
import functools
import inspect
import warnings


def validate_input_col(fn, input_col):
    """Whether ``fn`` takes the arguments that ``input_col`` (one column or a list of them) hands it."""
    try:
        sig = inspect.signature(fn)
    except ValueError:  # a builtin without a signature: nothing to check
        return
    size = len(input_col) if isinstance(input_col, (list, tuple)) else 1
    P = inspect.Parameter
    pos = [p for p in sig.parameters.values() if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    var_positional = any(p.kind is P.VAR_POSITIONAL for p in sig.parameters.values())
    kw_required = [p for p in sig.parameters.values() if p.kind is P.KEYWORD_ONLY and p.default is p.empty]
    target = fn.func if isinstance(fn, functools.partial) else fn
    name = getattr(target, "__name__", repr(target))
    if kw_required:
        raise ValueError(f"The function {name} takes {len(kw_required)} non-default keyword-only parameters, "
                         "which is not allowed.")
    if len(sig.parameters) < size:
        if not var_positional:
            raise ValueError(f"The function {name} takes {len(sig.parameters)} parameters, but {size} are required.")
    elif len(pos) > size:
        if any(p.default is p.empty for p in pos[size:]):
            raise ValueError(f"The function {name} takes {len(pos)} positional parameters, but {size} are required.")
    elif len(pos) < size and not var_positional:
        raise ValueError(f"The function {name} takes {len(pos)} positional parameters, but {size} are required.")


def _is_local_fn(fn):
    if hasattr(fn, "__code__"):
        return fn.__code__.co_flags & inspect.CO_NESTED
    qualname = getattr(fn, "__qualname__", None) or getattr(type(fn), "__qualname__", "")
    return "<locals>" in qualname


def check_unpickable_fn(fn):
    """``fn`` must be callable; a lambda or a local function gets PyTorch's warning that pickle (a DataPipe sent
    to another process) cannot carry it (webtorch, like PyTorch without dill, has no way to)."""
    if not callable(fn):
        raise TypeError(f"A callable function is expected, but {type(fn)} is provided.")
    if isinstance(fn, functools.partial):
        fn = fn.func
    if _is_local_fn(fn):
        warnings.warn("Local function is not supported by pickle, please use regular python function or "
                      "functools.partial instead.", stacklevel=3)
    elif getattr(fn, "__name__", None) == "<lambda>":
        warnings.warn("Lambda function is not supported by pickle, please use regular python function or "
                      "functools.partial instead.", stacklevel=3)


def no_length(datapipe):
    return TypeError(f"{type(datapipe).__name__} instance doesn't have valid length")
