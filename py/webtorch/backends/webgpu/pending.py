"""The pending queue: the ops a webgpu device recorded and has not yet flushed.

An op on webgpu tensors records a DeviceOp (handles.py) in program order and returns at once; nothing runs until
a value is needed (a read, ``webtorch.webgpu.synchronize()``) or the queue reaches MAX_PENDING ops. Then the
Recorder flushes it (recorder.py: pending queue -> plan cache -> planner -> submit or capture). Because the queue
keeps program order, in-place writes through views need no special casing: every read sees exactly the writes
recorded before it.
"""
from .handles import Buffer
from .runtime import OutOfMemoryError

MAX_PENDING = 2048


def check_bindings(name, buffers, limits):
    """Refuse a template kernel that binds a whole storage larger than one binding (WebGPU would reject the flush):
    the kernel families that meet such storages bind windows of them (binding_windows.py); this names one that
    does not yet."""
    limit = limits.binding_size()
    for b in buffers:
        if b.nbytes > limit and type(b) is Buffer:
            raise OutOfMemoryError(
                f"kernel {name} cannot bind a tensor of {b.nbytes:,} bytes: past this adapter's "
                f"maxStorageBufferBindingSize ({limit:,} bytes) and this kernel does not split its launch; use smaller "
                "tensors for this op (a smaller batch or dimension), or torch.float16 where the adapter supports it")


def check_groups(name, groups, limits):
    """Refuse a dispatch past maxComputeWorkgroupsPerDimension (WebGPU would reject it and leave its output
    unwritten): every launch is split below it, so this names a kernel that forgot to."""
    w = limits.workgroups()
    if max(groups) > w:
        raise OutOfMemoryError(f"kernel {name}: a dispatch of {tuple(groups)} workgroups exceeds this adapter's "
                               f"maxComputeWorkgroupsPerDimension ({w}); split the tensor into smaller ones")


class PendingQueue:
    """The pending ops of one device, in program order. ``on_full()`` is called when MAX_PENDING are waiting
    (the Recorder flushes them and starts the device)."""

    def __init__(self, on_full, limits):
        self.nodes = []
        self.on_full = on_full
        self.limits = limits  # the device's (limits.py): every kernel launch is checked against them

    def record(self, node):
        if node.kind == "kernel":
            check_groups(node.attrs["name"], node.attrs["groups"], self.limits)
            check_bindings(node.attrs["name"], node.attrs["buffers"], self.limits)
        node.out.buf.bounds = None
        writes = node.attrs.get("writes")
        if writes:
            for buf in writes:
                buf.bounds = None
        nodes = self.nodes
        nodes.append(node)
        if len(nodes) >= MAX_PENDING:
            self.on_full()

    def take(self):
        """The pending ops, in order; the queue is empty after."""
        nodes, self.nodes = self.nodes, []
        return nodes
