"""The runtime interface: the only thing the webgpu backend asks of a WebGPU implementation.

Two implementations share it: ``runtime_native.RuntimeNative`` (CPython, wgpu-py) and
``runtime_browser.RuntimeBrowser`` (Pyodide, talks to web/bridge.js). Everything above it (pending queue,
planner, code generation, buffer pool) is shared Python, so a runtime stays small and does no math.

The contract, in one paragraph: a runtime owns one device. Buffers are named by small integers that
the runtime hands out (``alloc``) and takes back (``free``); they are plain byte ranges, usable as
storage buffers, copy sources and copy destinations. Kernels are WGSL modules with one entry point
``main``, compiled once (``compile``) into integer pipeline ids. Work is submitted only as a
``Batch``: an ordered list of dispatches, which ``run`` encodes into ONE command encoder and ONE
compute pass and submits ONCE (dispatches in one pass are ordered: each sees the writes of the ones
before it). ``write`` and ``read`` move bytes between the host and a buffer; ``read`` waits for every
batch submitted before it. Python crosses into the runtime once per batch, never per op.

Binding convention of every kernel: ``@group(0) @binding(i)`` for ``i < len(buffers)`` are the
dispatch's buffers in order (storage buffers), then, when the dispatch has parameters, binding
``len(buffers)`` is a uniform buffer holding its parameter bytes (the kernel declares it as
``var<uniform> P: array<vec4<u32>, N>``).
"""

import struct

# Uniform offsets inside the parameter arena are aligned to this (the largest
# minUniformBufferOffsetAlignment WebGPU allows), so one arena works on every adapter.
PARAM_ALIGN = 256


class WebGPUError(RuntimeError):
    """Base class of the webgpu device's errors."""


class BridgeInitRequired(WebGPUError):
    """In Pyodide, the device must be requested asynchronously first (``await webtorch.webgpu.init_async()``)."""


class ShaderCompileError(WebGPUError):
    """A WGSL kernel failed to compile; the message names the kernel and the line."""


class OutOfMemoryError(WebGPUError):
    """The device could not allocate a buffer (even after the pool released its cached buffers)."""


class DeviceLostError(WebGPUError):
    """The WebGPU device was lost (driver reset, tab backgrounded, ...); tensors on it are gone."""


class Batch:
    """An ordered list of dispatches, run with one command encoder, one compute pass, one submit.

    Each dispatch is (pipeline id, buffer ids, parameter bytes, (x, y, z) workgroup counts).
    ``pack()`` gives the compact form a runtime that crosses an FFI sends in one call:

    * ``words``: little-endian uint32 array:
      ``[n, then per dispatch: pipeline, nbuf, buf_0 .. buf_{nbuf-1}, param_offset, param_size, x, y, z]``
    * ``params``: one byte arena; a dispatch's parameters start at ``param_offset`` (a multiple of
      PARAM_ALIGN) and are ``param_size`` bytes (0: the dispatch has no parameter binding).
    """

    __slots__ = ("dispatches",)

    def __init__(self):
        self.dispatches = []

    def add(self, pipeline, buffers, params, groups):
        self.dispatches.append((pipeline, tuple(buffers), bytes(params), tuple(groups)))

    def __len__(self):
        return len(self.dispatches)

    def pack(self):
        """(words: bytes of uint32, params: bytes) -- see the class docstring for the layout."""
        words = [len(self.dispatches)]
        arena = bytearray()
        for pipeline, buffers, params, groups in self.dispatches:
            off = 0
            if params:
                pad = (-len(arena)) % PARAM_ALIGN
                arena.extend(b"\0" * pad)
                off = len(arena)
                arena.extend(params)
            words.append(pipeline)
            words.append(len(buffers))
            words.extend(buffers)
            words.extend((off, len(params)))
            words.extend(groups)
        return struct.pack(f"<{len(words)}I", *words), bytes(arena)


class Runtime:
    """Abstract WebGPU runtime (see the module docstring). All sizes and offsets are in bytes."""

    #: adapter limits the backend relies on, WebGPU names in camelCase:
    #: maxStorageBuffersPerShaderStage, maxStorageBufferBindingSize, maxBufferSize,
    #: maxComputeWorkgroupsPerDimension, maxComputeInvocationsPerWorkgroup,
    #: maxComputeWorkgroupStorageSize, minStorageBufferOffsetAlignment
    limits = {}
    #: adapter features that change code generation, e.g. {"shader-f16", "subgroups"}
    features = frozenset()
    #: one line naming the adapter, for error messages and benchmarks
    description = ""
    #: ids of buffers whose allocation failed on the device (reported late, by error scopes): never reused
    bad_buffers = frozenset()
    #: the adapter runs shaders on the CPU (SwiftShader, lavapipe): kernels without workgroup memory and
    #: barriers are faster there (matmul_register.wgsl)
    cpu_adapter = False

    def alloc(self, nbytes):
        """A new buffer of ``nbytes`` (a multiple of 16); returns its id. Raises OutOfMemoryError."""
        raise NotImplementedError

    def free(self, buf):
        """Destroy buffer ``buf`` (no batch that uses it may still be pending in Python), and its windows."""
        raise NotImplementedError

    def window(self, buf, offset, nbytes):
        """An id naming bytes [offset, offset + nbytes) of buffer ``buf``, bound at that offset wherever a
        dispatch names it (binding_windows.py: storages larger than maxStorageBufferBindingSize). ``offset`` is a
        multiple of 256, ``nbytes`` of 16; the same arguments give the same id until ``buf`` is freed."""
        raise NotImplementedError

    def write(self, buf, offset, data):
        """Copy the bytes-like ``data`` (length a multiple of 4) into ``buf`` at ``offset``; ordered after
        every batch already run and before every later one."""
        raise NotImplementedError

    def read(self, buf, offset, nbytes, check=None):
        """The ``nbytes`` bytes of ``buf`` at ``offset`` (both multiples of 4), after every batch run so far.
        Blocks until the device is done. With ``check`` (a buffer id): ``(bytes, the first 16 bytes of check)``,
        both copied by the same submit and mapped together (the error word of device_checks.py)."""
        raise NotImplementedError

    def wait(self):
        """Block until every batch run so far has finished on the device."""
        raise NotImplementedError

    def compile(self, kernel_id, wgsl):
        """Compile a WGSL module (entry point ``main``) and return a pipeline id. ``kernel_id`` names the
        kernel in errors (ShaderCompileError with the WGSL line). Callers cache: one call per source."""
        raise NotImplementedError

    def run(self, batch):
        """Encode every dispatch of ``batch`` (a Batch) into one compute pass and submit it once. A runtime
        that crosses an FFI may hold the batch until its next call (which then runs it first, in order) or
        ``submit``, so a read that follows a flush costs one crossing and one submit."""
        raise NotImplementedError

    def submit(self):
        """Submit a batch ``run`` holds back now (a flush no read follows: let the device start on it)."""

    def program(self, batch):
        """A replayable form of ``batch`` (a captured step, capture.py): whatever ``replay`` runs fastest. The
        buffers it names stay allocated while the program lives (the capture holds them)."""
        return batch

    def replay(self, program):
        """Run ``program`` (from ``program``) as ``run`` runs a batch: one compute pass, one submit."""
        self.run(program)
