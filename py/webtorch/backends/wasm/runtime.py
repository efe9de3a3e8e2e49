"""The runtime interface: what the wasm backend asks of a WebAssembly engine.

Two implementations share it: ``runtime_wasmtime.RuntimeWasmtime`` (CPython, PyPI's wasmtime) and
``runtime_browser.RuntimeBrowser`` (Pyodide: the page's own WebAssembly). Everything above it (the heap's size
classes, views, kernel families) is shared Python.

The contract: a runtime instantiates ONE module, ``kernels.wasm`` (built from wasm-kernels/ by
scripts/build_wasm_kernels.py), whose memory it provides (the module imports ``env.memory``). Addresses are byte
offsets in that linear memory; ``heap_base`` is the first byte kernels do not use for their own data and stack,
``size`` the memory's current byte length, ``grow(nbytes)`` makes it at least that long. ``write(addr, data)``
copies a bytes-like object in, ``read(addr, n)`` copies n bytes out (bytes), ``view(addr, n, owner)`` is a
writable buffer (buffer protocol) aliasing the range that keeps ``owner`` alive, where the engine's memory never
moves (CPython's wasmtime), else None. ``fn(name)`` returns a Python callable for the exported kernel ``name``: it takes the kernel's parameters as
Python ints (i32 addresses and sizes) and floats (f64), in order, and returns the kernel's int result (or None).
A kernel that traps raises ``KernelTrap``.

Threads: ``start_threads(heap)`` starts the engine's worker threads, if it has any (the page's, where it is
cross-origin isolated: web/wasm_host.js); ``threads()`` is how many threads can run a kernel now (1 + the workers
ready); ``parallel(name, parts)`` runs the export ``name`` once per argument list in ``parts`` (at most
``threads()`` of them), at once, and returns when all are done. Without workers (wasmtime here) the parts run one
after another.
"""

WASM_PAGE = 65536


class KernelTrap(RuntimeError):
    """A kernel trapped (an out-of-bounds access or an unreachable): a bug in webtorch, never a user error."""


class Runtime:
    heap_base = 0

    @property
    def size(self):
        raise NotImplementedError

    def grow(self, nbytes):
        raise NotImplementedError

    def write(self, addr, data):
        raise NotImplementedError

    def read(self, addr, n):
        raise NotImplementedError

    def view(self, addr, n, owner=None):
        raise NotImplementedError

    def fn(self, name):
        raise NotImplementedError

    def has(self, name):
        """Whether the module exports ``name``."""
        raise NotImplementedError

    def start_threads(self, heap):
        pass

    def threads(self):
        return 1

    def parallel(self, name, parts):
        f = self.fn(name)
        for args in parts:
            f(*args)


def kernels_path():
    """The module shipped in the package (package data), built at set-up."""
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels.wasm")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path} is missing: build it with `python scripts/build_wasm_kernels.py` "
                                "(scripts/setup.sh does, with Debian's clang-14 and lld-14)")
    return path
