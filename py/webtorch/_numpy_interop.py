"""NumPy for the interop paths (``Tensor.numpy()``, ``np.asarray(t)``, device "cpu" served by the NumPy backend):
imported where installed, loaded on first need in the page (browser/numpy_on_demand.py), else an error that names
the cause and the way out. Nothing else in webtorch needs NumPy: in the page "cpu" is the WebAssembly backend."""
import importlib
import sys


def require_numpy(what):
    """The numpy module, for ``what`` (named in the error: "Tensor.numpy()", ...)."""
    try:
        return importlib.import_module("numpy")
    except ModuleNotFoundError as e:
        if e.name != "numpy":
            raise
        if sys.platform != "emscripten":
            raise ModuleNotFoundError(f"{what} needs NumPy, which is not installed: pip install numpy",
                                      name="numpy") from e
        from .browser.numpy_on_demand import load_numpy
        why = load_numpy()
        if why is None:
            return importlib.import_module("numpy")
        raise ModuleNotFoundError(
            f"{what} needs NumPy, and this Pyodide has none ({why}). Load it before the script "
            "(loadWebtorch({..., packages: ['numpy']}) or await pyodide.loadPackage('numpy'), from a site that "
            "carries Pyodide's numpy wheel, or online); without NumPy, t.tolist() and t.item() read the values",
            name="numpy") from e
