"""torch._jit_internal's helpers that plain Python programs still import: boolean_dispatch, which picks one of two
functions by a boolean argument (how torch.nn.functional builds its ``return_indices`` pooling entries)."""
import weakref

# every function boolean_dispatch made -> how it dispatches (TorchScript reads this table in PyTorch)
boolean_dispatched = weakref.WeakKeyDictionary()


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function calling ``if_true`` or ``if_false`` with its arguments, by the value of argument ``arg_name``
    (keyword) or of positional argument ``arg_index`` (``default`` when neither is given). Its docstring is the
    one of the two that has one (both having one raises RuntimeError)."""
    def fn(*args, **kwargs):
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is not None and if_false.__doc__ is not None:
        raise RuntimeError("only one function can have a docstring")
    doc = if_true.__doc__ if if_true.__doc__ is not None else if_false.__doc__
    if_true.__doc__ = if_false.__doc__ = fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    boolean_dispatched[fn] = {"if_true": if_true, "if_false": if_false, "index": arg_index, "default": default,
                              "arg_name": arg_name}
    return fn
