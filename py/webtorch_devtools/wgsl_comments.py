"""The WGSL kernels as the runtime wheel ships them: without their comment lines. webgpu-shaders/ keeps each file
commented (what it computes, its launch shape, why); the browser only compiles them, and the comment lines are
~40% of their bytes. The lines the runtime rewrites by stay: the markers ``// @...`` (wgsl_loader.with_values,
epilogue.py), ``// >>> block`` / ``// <<< block`` (optim_kernels.py), and comments after code on a line (``// when
FLAG``, optim_kernels.py). build_hook runs this on the build folder before the warm-up manifest is recorded, so
the manifest's kernels are the shipped ones.

    python -m webtorch_devtools.wgsl_comments BUILD_LIB
"""
from pathlib import Path

MARKERS = ("// @", "// >>>", "// <<<")


def without_comment_lines(text):
    """``text`` without its comment-only lines (markers kept)."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.lstrip().startswith("//") or line.lstrip().startswith(MARKERS))


def strip_folder(folder):
    """Rewrite every .wgsl file under ``folder``; returns (bytes before, bytes after)."""
    before = after = 0
    for p in sorted(Path(folder).rglob("*.wgsl")):
        text = p.read_text()
        short = without_comment_lines(text)
        p.write_text(short)
        before, after = before + len(text.encode()), after + len(short.encode())
    return before, after


if __name__ == "__main__":
    import sys
    print(strip_folder(Path(sys.argv[1]) / "webtorch"))
