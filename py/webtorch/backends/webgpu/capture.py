"""The captured step: the device side of webtorch.webgpu.Graph (the Recorder's ``begin_capture``, ``end_capture``,
``abort_capture`` and ``replay``, recorder.py, hold the state).

Between begin and end ops record as usual, but the Recorder's sink keeps each flush's Schedule (planned, or bound
from the plan cache) in a Capture instead of submitting it, with every Buffer it binds. The end turns them into one
runtime program (runtime.py: pipelines and bind groups over those buffers, parameters uploaded once), a
CapturedStep; ``replay`` submits it with one runtime call and no Python per op. The buffers stay allocated, at
the same ids, while the CapturedStep lives: tensors created inside the capture (static outputs, gradients) keep their memory, and
every replay writes the same places -- PyTorch's CUDA graph semantics.

What a replay could not repeat is refused while capturing, naming the operation and the fix: every host round-trip
(reading values, uploads of host data, host-drawn random seeds, host fallbacks, a synchronize) passes the
Recorder's one gate, ``host_exchange``, which calls ``refuse``. An optimizer step that would bake per-step host
values asks ``webtorch.webgpu.is_current_stream_capturing`` itself (optim/).
"""
from .runtime import Batch

_CAPTURE = "while a webtorch.webgpu graph is capturing"


class Capture:
    """The dispatches and buffers of the flushes of one capture, in order."""
    __slots__ = ("batch", "buffers")

    def __init__(self):
        self.batch = Batch()
        self.buffers = {}  # Buffer -> None: every buffer a kept dispatch binds, in first-bound order

    def add(self, schedule):
        self.batch.dispatches.extend(schedule.batch.dispatches)
        buffers = self.buffers
        for bound in schedule.keep:
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


def refuse(what, fix):
    """Raise the error of an operation a replay could not repeat, met while capturing."""
    raise RuntimeError(f"{what} is not allowed {_CAPTURE} (a replay would not repeat it): {fix}")
