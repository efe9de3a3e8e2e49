"""The hand-written WGSL kernels of webgpu-shaders/ (shipped as ``webtorch/shaders``) and their specialization.

Each .wgsl file is a complete, parseable kernel. Its specialization points are module-scope
declarations ``const NAME: type = value;`` or ``alias NAME = type;``; ``specialize`` rewrites their
values, so the file compiles as-is (the test compiles every file) and each variant is ordinary WGSL.
"""
import re
from importlib import resources

_texts = {}


def template(name):
    """Source text of webgpu-shaders/<name>.wgsl."""
    t = _texts.get(name)
    if t is None:
        t = _texts[name] = resources.files("webtorch").joinpath("shaders", name + ".wgsl").read_text()
    return t


def names():
    """Names of every shipped kernel file."""
    return sorted(p.name[:-5] for p in resources.files("webtorch").joinpath("shaders").iterdir()
                  if p.name.endswith(".wgsl"))


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
