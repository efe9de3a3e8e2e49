"""The tutorial notebooks (examples/notebooks/*.ipynb): their code, and the working folder they expect.

The convention (examples/notebooks/README.md): a notebook opens its files relative to the kernel's
working folder, which holds a copy of examples/notebooks/ with its links followed (data/ and
digits_data.py there are links to examples/data/ and examples/digits_data.py).
"""
import shutil
from pathlib import Path

import nbformat

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "examples" / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def read(path):
    """The notebook at path, validated against nbformat's schema (raises on an invalid notebook)."""
    nb = nbformat.read(str(path), as_version=nbformat.NO_CONVERT)
    nbformat.validate(nb)
    return nb


def code(path):
    """The notebook's code cells, in order, as one script."""
    return "\n\n".join(c.source for c in read(path).cells if c.cell_type == "code") + "\n"


def prepare_workdir(dst):
    """Fill dst as a host fills the kernel's working folder; returns dst as a Path."""
    dst = Path(dst)
    shutil.copytree(NOTEBOOK_DIR, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    return dst
