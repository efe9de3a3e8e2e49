"""Runs the programs of tests/compat/ with real PyTorch and, unchanged, with ``import torch`` resolving to
webtorch (webtorch.compat.torch_alias), and compares what they report (see tests/compat/README.md)."""
import contextlib
import io
import json
import math
import os
import runpy
import sys
from pathlib import Path

# The reference run is PyTorch's CPU build's: a torch that sees a CUDA GPU would send the programs that pick "cuda"
# when torch.cuda.is_available() there (set before the first import of torch; tests/conftest.py does the same)
os.environ["CUDA_VISIBLE_DEVICES"] = ""

PROGRAMS = Path(__file__).resolve().parents[1] / "compat"
MODES = ("torch", "cpu", "webgpu")  # real PyTorch; webtorch on cpu; webtorch with default device "webgpu"


def program_names():
    """The programs of tests/compat/ (its test_*.py files are the suites that run them)."""
    return sorted(p.stem for p in PROGRAMS.glob("*.py") if not p.name.startswith("test_"))


def _run(path, argv):
    out = io.StringIO()
    saved = sys.argv
    sys.argv = [str(path), *argv]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv = saved
    text = out.getvalue()
    lines = [ln for ln in text.splitlines() if ln.startswith("RESULTS ")]
    if not lines:
        raise AssertionError(f"{path.name} printed no RESULTS line:\n{text[-2000:]}")
    return json.loads(lines[-1][len("RESULTS "):])


@contextlib.contextmanager
def _webtorch_as_torch(default_device, accelerator=None, cuda=None):
    import webtorch
    import webtorch.compat
    from webtorch import _cuda_alias
    prev_device = webtorch.get_default_device()
    prev_choice = webtorch.accelerator._choice["webgpu"]
    prev_cuda = _cuda_alias._choice["webgpu"]
    webtorch.set_default_device(default_device)
    webtorch.cuda.use_webgpu(cuda == "webgpu")  # "cuda" names webgpu only when asked (the cuda alias)
    # scripts probing for an accelerator find webgpu (by default when it is the default device)
    webtorch.accelerator.use_webgpu(default_device == "webgpu" if accelerator is None else accelerator == "webgpu")
    try:
        with webtorch.compat.torch_alias():
            yield
    finally:
        webtorch.set_default_device(prev_device)
        webtorch.accelerator._choice["webgpu"] = prev_choice
        _cuda_alias._choice["webgpu"] = prev_cuda


def run_program(name, mode, init_path, argv=(), accelerator=None, cuda=None):
    """The RESULTS dict of program ``name`` in ``mode``; mode "torch" writes the initial weights to
    ``init_path``, the webtorch modes (the default device) start from them. ``accelerator``: "webgpu" or None,
    what torch.accelerator reports (by default webgpu exactly when it is the default device); ``cuda``: "webgpu"
    (the cuda alias on) or None (torch.cuda.is_available() is False)."""
    path = PROGRAMS / f"{name}.py"
    if mode == "torch":
        return _run(path, [*argv, "--save-init", str(init_path)])
    with _webtorch_as_torch(mode, accelerator, cuda):
        return _run(path, [*argv, "--init", str(init_path)])


def _close(a, b, rtol, atol):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_close(x, y, rtol, atol) for x, y in zip(a, b))
    return math.isclose(a, b, rel_tol=rtol, abs_tol=atol)


def differences(ref, ours, rtol=2e-3, atol=2e-4):
    """What differs between PyTorch's report ``ref`` and webtorch's ``ours`` (empty: the same outcome)."""
    bad = []
    for key, want in ref.get("close", {}).items():
        got = ours.get("close", {}).get(key)
        if got is None or not _close(want, got, rtol, atol):
            bad.append(f"close[{key}]: torch {want} vs webtorch {got}")
    for key, want in ref.get("same", {}).items():
        if ours.get("same", {}).get(key) != want:
            bad.append(f"same[{key}]: torch {want!r} vs webtorch {ours.get('same', {}).get(key)!r}")
    for section in (ref, ours):
        for key, ok in section.get("check", {}).items():
            if ok is not True:
                bad.append(f"check[{key}] failed ({'torch' if section is ref else 'webtorch'})")
    return bad
