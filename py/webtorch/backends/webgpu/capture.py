"""Capture of a recorded step into a replayable program: the device side of webtorch.webgpu.Graph.

Between ``begin`` and ``end`` ops record as usual, but each flush's dispatches (replay.py: scheduled or reused)
are kept instead of submitted, with every Buffer they bind. ``end`` turns them into one runtime program
(runtime.py: pipelines and bind groups over those buffers, parameters uploaded once); ``replay`` submits it
with one runtime call and no Python per op. The buffers stay allocated, at the same ids, while the
CapturedStep lives: tensors created inside the capture (static outputs, gradients) keep their memory, and
every replay writes the same places -- PyTorch's CUDA graph semantics.

What a replay could not repeat is refused while capturing (``refuse``), naming the operation and the fix:
reading values to the host, uploads of host data, random draws, host fallbacks, a synchronize. An optimizer
step that would bake per-step host values checks ``is_capturing`` itself (optim/, through webtorch.webgpu).
"""
from .runtime import Batch

_CAPTURE = "while a webtorch.webgpu graph is capturing"


class Capture:
    """The dispatches and buffers of the flushes of one capture, in order."""
    __slots__ = ("batch", "buffers")

    def __init__(self):
        self.batch = Batch()
        self.buffers = {}  # Buffer -> None: every buffer a kept dispatch binds, in first-bound order

    def add(self, batch, keep, nodes):
        self.batch.dispatches.extend(batch.dispatches)
        buffers = self.buffers
        for bound in keep:
            for b in bound:
                buffers[b] = None


class CapturedStep:
    """A captured step: the runtime's program, the buffers it binds (held: their ids stay the program's)."""
    __slots__ = ("program", "buffers", "dispatches", "arms_checks")

    def __init__(self, program, buffers, dispatches, arms_checks):
        self.program = program
        self.buffers = buffers
        self.dispatches = dispatches
        self.arms_checks = arms_checks


def is_capturing(be):
    return be.scheduler.replay.capture is not None


def refuse(what, fix):
    """Raise the error of an operation a replay could not repeat, met while capturing."""
    raise RuntimeError(f"{what} is not allowed {_CAPTURE} (a replay would not repeat it): {fix}")


def begin(be):
    """Start capturing: earlier work is submitted and finished first (as torch.cuda.graph synchronizes)."""
    rep = be.scheduler.replay
    if rep.capture is not None:
        raise RuntimeError("a webtorch.webgpu graph is already capturing: captures do not nest; end the first one")
    be.flush()
    be.checks.check()
    rep.capture = Capture()


def end(be):
    """Stop capturing; the CapturedStep of what was recorded since ``begin`` (nothing of it has run yet)."""
    rep = be.scheduler.replay
    be.flush()
    cap, rep.capture = rep.capture, None
    word = be.checks.buf
    buffers = tuple(cap.buffers)
    return CapturedStep(be.rt.program(cap.batch), buffers, len(cap.batch), word in cap.buffers)


def abort(be):
    """Drop a capture the user's code failed inside: its recorded work never runs."""
    rep = be.scheduler.replay
    rep.capture = None
    be.graph.nodes = []


def replay(be, step):
    """Submit ``step`` once, after the work recorded before it (a copy into a static input, say)."""
    if is_capturing(be):
        refuse("replaying a captured graph", "replay it after the capture ends")
    be.flush()
    be.rt.replay(step.program)
    stats = be.stats
    stats.dispatches += step.dispatches
    stats.submits += 1
    if step.arms_checks:
        be.checks.armed = True
