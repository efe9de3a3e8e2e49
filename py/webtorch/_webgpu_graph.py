"""webtorch.webgpu.Graph and webtorch.webgpu.graph: capture a step once, replay it -- torch.cuda.CUDAGraph's API.

Example (as with CUDA graphs: warm up first, so optimizer state exists; static tensors in and out)::

    opt = torch.optim.Adam(model.parameters(), capturable=True)
    for _ in range(3):                                   # warm-up steps, run eagerly
        step(static_x, static_y)
    g = torch.webgpu.Graph()
    with torch.webgpu.graph(g):
        static_loss = step(static_x, static_y)           # recorded, not run
    for x, y in loader:
        static_x.copy_(x); static_y.copy_(y)
        g.replay()                                       # the whole step: one submit, no Python per op
        print(static_loss.item())

Inside a capture nothing runs; reading values, uploading host data, random draws, host fallbacks and a
non-capturable optimizer step raise (a replay could not repeat them). Tensors created inside the capture keep
their memory while the Graph lives; every replay overwrites them.
"""
import gc

from .backends.webgpu import get_backend


class Graph:
    """A captured step of the webgpu device (``torch.cuda.CUDAGraph``'s methods). ``keep_graph`` is accepted for
    torch's signature: a capture is always ready to replay after ``capture_end``."""

    def __init__(self, keep_graph=False):
        self._step = None
        self._capturing = False

    def capture_begin(self, pool=None, capture_error_mode="global"):
        """Start recording this graph (prefer ``with webtorch.webgpu.graph(g):``)."""
        if self._step is not None or self._capturing:
            raise RuntimeError("this webtorch.webgpu.Graph already holds a capture: call reset() before capturing "
                               "again, or use a new Graph")
        if capture_error_mode not in ("global", "thread_local", "relaxed"):
            raise ValueError(f"capture_error_mode must be 'global', 'thread_local' or 'relaxed', got "
                             f"{capture_error_mode!r}")
        get_backend().recorder.begin_capture()
        self._capturing = True

    def capture_end(self):
        """Stop recording; the graph is ready to ``replay``."""
        if not self._capturing:
            raise RuntimeError("capture_end() without capture_begin() on this webtorch.webgpu.Graph")
        self._capturing = False
        self._step = get_backend().recorder.end_capture()

    def _abort(self):
        self._capturing = False
        get_backend().recorder.abort_capture()

    def replay(self):
        """Run the captured step once more (after the work recorded before this call)."""
        if self._step is None:
            raise RuntimeError("replay() of a webtorch.webgpu.Graph that holds no capture: capture a step first "
                               "(with webtorch.webgpu.graph(g): ...)")
        get_backend().recorder.replay(self._step)

    def reset(self):
        """Drop the capture and release the memory it holds."""
        if self._capturing:
            raise RuntimeError("reset() of a webtorch.webgpu.Graph while it is capturing: end the capture first")
        self._step = None

    def pool(self):
        """A handle to this graph's memory, accepted by ``graph(..., pool=)`` (captures here share one pool)."""
        return id(self)

    def dispatches(self):
        """Number of kernel dispatches one replay submits (0 before a capture)."""
        return 0 if self._step is None else self._step.dispatches


CUDAGraph = Graph  # the name torch.cuda code uses


class graph:
    """Context manager that captures the block into ``cuda_graph`` (a :class:`Graph`), as ``torch.cuda.graph``:
    pending work is run and waited for first; if the block raises, the capture is dropped (its work never runs).
    ``pool``, ``stream`` and ``capture_error_mode`` are accepted for torch's signature (one queue, one pool)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        if not isinstance(cuda_graph, Graph):
            raise TypeError(f"webtorch.webgpu.graph() takes a webtorch.webgpu.Graph, got {type(cuda_graph).__name__}")
        self.cuda_graph = cuda_graph
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        gc.collect()  # tensors freed by the warm-up return their buffers before the capture starts
        self.cuda_graph.capture_begin(capture_error_mode=self.capture_error_mode)

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.cuda_graph._abort()
            return False
        self.cuda_graph.capture_end()
        return False


def is_current_stream_capturing():
    """True while a webtorch.webgpu graph is capturing (``torch.cuda.is_current_stream_capturing``)."""
    from .backends import webgpu
    be = webgpu._state["backend"]
    return be is not None and be.recorder.capture is not None
