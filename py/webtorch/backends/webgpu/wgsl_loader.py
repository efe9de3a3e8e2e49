"""The hand-written WGSL kernels of webgpu-shaders/ (shipped as ``webtorch/shaders``) and their specialization.

Each .wgsl file is a complete, parseable kernel. Its specialization points are module-scope
declarations ``const NAME: type = value;`` or ``alias NAME = type;``; ``specialize`` rewrites their
values, so the file compiles as-is (the test compiles every file) and each variant is ordinary WGSL.
"""
import re
from importlib import resources

from ... import _bytecode_archive

_VALUES = re.compile(r"// @values-begin\n.*?// @values-end\n", re.S)

_texts = None


def _shipped():
    """{kernel name: source text} of every shipped kernel file, read once: from the wheel's archive (the browser's
    wheel packs them there, webtorch/_bytecode_archive.py), else the package's shaders/ folder."""
    global _texts
    if _texts is None:
        if _bytecode_archive.finder is not None:
            files = {n: b.decode() for n, b in _bytecode_archive.finder.files("shaders").items()}
        else:
            files = {p.name: p.read_text() for p in resources.files("webtorch").joinpath("shaders").iterdir()}
        _texts = {n[:-len(".wgsl")]: t for n, t in files.items() if n.endswith(".wgsl")}
    return _texts


def template(name):
    """Source text of webgpu-shaders/<name>.wgsl."""
    t = _shipped().get(name)
    if t is None:
        raise KeyError(f"no kernel file {name}.wgsl among webtorch's shaders (webgpu-shaders/)")
    return t


def names():
    """Names of every shipped kernel file."""
    return sorted(_shipped())


def specialize(name, **values):
    """The kernel's source with each named const/alias set to ``values[name]`` (bools as true/false)."""
    src = template(name)
    for key, v in values.items():
        text = ("true" if v else "false") if isinstance(v, bool) else str(v)
        pat = re.compile(rf"^(const {key}\s*:\s*[\w<>]+\s*=|alias {key}\s*=)\s*[^;]+;", re.M)
        src, n = pat.subn(lambda m: f"{m.group(1)} {text};", src)
        if n != 1:
            raise KeyError(f"kernel {name}.wgsl has no specialization point '{key}'")
    return src


def with_values(src, functions):
    """Kernel source ``src`` with its value functions (the lines between ``// @values-begin`` and
    ``// @values-end``) replaced by ``functions``: the int64 variant of a kernel written for 32-bit values."""
    out, n = _VALUES.subn(lambda _: "// @values-begin\n" + functions + "\n// @values-end\n", src, count=1)
    if n != 1:
        raise KeyError("kernel source has no '// @values-begin' ... '// @values-end' region")
    return out
