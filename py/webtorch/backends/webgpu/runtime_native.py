"""The runtime over wgpu-py (wgpu-native): the webgpu device in CPython (lavapipe on CPU-only machines)."""
import re

from .runtime import (PARAM_ALIGN, DeviceLostError, OutOfMemoryError, Runtime, ShaderCompileError,
                      WebGPUError)

# Limits we ask for: the adapter's own values (WebGPU's defaults are lower than most adapters offer).
_LIMITS = {
    "maxStorageBuffersPerShaderStage": "max-storage-buffers-per-shader-stage",
    "maxStorageBufferBindingSize": "max-storage-buffer-binding-size",
    "maxBufferSize": "max-buffer-size",
    "maxComputeWorkgroupsPerDimension": "max-compute-workgroups-per-dimension",
    "maxComputeInvocationsPerWorkgroup": "max-compute-invocations-per-workgroup",
    "maxComputeWorkgroupStorageSize": "max-compute-workgroup-storage-size",
    "maxComputeWorkgroupSizeX": "max-compute-workgroup-size-x",
    "maxUniformBufferBindingSize": "max-uniform-buffer-binding-size",
    "minStorageBufferOffsetAlignment": "min-storage-buffer-offset-alignment",
}
_BIND_CACHE_MAX = 8192
_FEATURE_NAMES = {"subgroup": "subgroups"}  # wgpu-native's name -> WebGPU's (the name the backend checks)


def request_adapter():
    """The default wgpu adapter, or None when wgpu or a Vulkan/Metal/D3D driver is missing."""
    try:
        import wgpu
    except ImportError:
        return None
    try:
        return wgpu.gpu.request_adapter_sync(power_preference="high-performance")
    except Exception:  # noqa: BLE001 -- any failure to find a driver means "not available"
        return None


class RuntimeNative(Runtime):
    def __init__(self, adapter=None):
        import wgpu
        self._wgpu = wgpu
        adapter = adapter or request_adapter()
        if adapter is None:
            raise WebGPUError("no WebGPU adapter: install wgpu (pip install wgpu) and a Vulkan driver "
                              "(Debian: apt-get install mesa-vulkan-drivers)")
        alim = adapter.limits
        required = {v: alim[v] for v in _LIMITS.values() if v in alim}
        feats = [f for f in ("shader-f16", "subgroup") if f in adapter.features]
        self.device = adapter.request_device_sync(required_features=feats, required_limits=required)
        self.limits = {k: int(self.device.limits[v]) for k, v in _LIMITS.items() if v in self.device.limits}
        self.features = frozenset(_FEATURE_NAMES.get(f, f) for f in feats)
        info = adapter.info
        self.description = f"{info.get('device', '?')} ({info.get('backend_type', '?')}, wgpu-native)"
        self.cpu_adapter = info.get("adapter_type") == "CPU"
        self._usage = (wgpu.BufferUsage.STORAGE | wgpu.BufferUsage.COPY_SRC | wgpu.BufferUsage.COPY_DST)
        self._buffers = {}
        self._ranges = {}  # window id -> (offset, size): the part of its buffer a binding shows
        self._windows = {}  # buffer id -> {(offset, size): window id}
        self._next_id = 1
        self._pipelines = []
        self._arena = None
        self._arena_size = 0
        self._bind_cache = {}
        self._probe = None

    # ---- memory ---------------------------------------------------------------------------------
    def alloc(self, nbytes):
        try:
            b = self.device.create_buffer(size=nbytes, usage=self._usage)
        except Exception as e:  # noqa: BLE001 -- wgpu raises its own error types for OOM/validation
            raise OutOfMemoryError(f"webgpu out of memory: could not allocate {nbytes} bytes ({e})") from None
        bid = self._next_id
        self._next_id += 1
        self._buffers[bid] = b
        return bid

    def free(self, buf):
        b = self._buffers.pop(buf)
        for wid in self._windows.pop(buf, {}).values():
            del self._buffers[wid], self._ranges[wid]
        self._bind_cache.clear()
        b.destroy()

    def window(self, buf, offset, nbytes):
        ws = self._windows.setdefault(buf, {})
        wid = ws.get((offset, nbytes))
        if wid is None:
            wid = ws[(offset, nbytes)] = self._next_id
            self._next_id += 1
            self._buffers[wid] = self._buffers[buf]
            self._ranges[wid] = (offset, nbytes)
        return wid

    def _entry(self, binding, buf):
        """Bind-group entry of buffer or window id ``buf``."""
        b = self._buffers[buf]
        offset, size = self._ranges.get(buf, (0, b.size))
        return {"binding": binding, "resource": {"buffer": b, "offset": offset, "size": size}}

    def write(self, buf, offset, data):
        self.device.queue.write_buffer(self._buffers[buf], offset, data)

    def read(self, buf, offset, nbytes, check=None):
        try:
            if check is None:
                return bytes(self.device.queue.read_buffer(self._buffers[buf], offset, nbytes))
            return self._read_with(buf, offset, nbytes, check)
        except Exception as e:  # noqa: BLE001
            if "lost" in str(e).lower():
                raise DeviceLostError(f"the WebGPU device was lost: {e}") from None
            raise

    def _read_with(self, buf, offset, nbytes, check):
        """(bytes, the 16 bytes of buffer ``check``): both copied by one submit into one staging buffer."""
        wgpu = self._wgpu
        staging = self.device.create_buffer(size=nbytes + 16, usage=wgpu.BufferUsage.MAP_READ |
                                            wgpu.BufferUsage.COPY_DST)
        enc = self.device.create_command_encoder()
        enc.copy_buffer_to_buffer(self._buffers[buf], offset, staging, 0, nbytes)
        enc.copy_buffer_to_buffer(self._buffers[check], 0, staging, nbytes, 16)
        self.device.queue.submit([enc.finish()])
        staging.map_sync(wgpu.MapMode.READ)
        raw = bytes(staging.read_mapped())
        staging.unmap()
        staging.destroy()
        return raw[:nbytes], raw[nbytes:]

    def wait(self):
        # a read completes only after all submitted work; 4 bytes of a tiny buffer is the cheapest one
        # (queue.on_submitted_work_done_sync is broken in wgpu-py 0.32)
        if self._probe is None:
            self._probe = self.alloc(16)
        self.read(self._probe, 0, 4)

    # ---- kernels ----------------------------------------------------------------------------------
    def compile(self, kernel_id, wgsl):
        # naga has subgroup operations but rejects the standard directive that enables them (Tint requires it)
        wgsl = wgsl.replace("enable subgroups;", "")
        try:
            module = self.device.create_shader_module(label=kernel_id, code=wgsl)
            pipe = self.device.create_compute_pipeline(
                label=kernel_id, layout="auto", compute={"module": module, "entry_point": "main"})
        except Exception as e:  # noqa: BLE001
            raise ShaderCompileError(_compile_message(kernel_id, wgsl, str(e))) from None
        self._pipelines.append(pipe)
        return len(self._pipelines) - 1

    def run(self, batch):
        if not batch.dispatches:
            return
        dev = self.device
        _, arena = batch.pack() if any(d[2] for d in batch.dispatches) else (None, b"")
        if arena:
            self._ensure_arena(len(arena))
            dev.queue.write_buffer(self._arena, 0, arena + b"\0" * ((-len(arena)) % 4))
        # wgpu-native reports a validation or memory error of these calls as an exception of the call (wgpu-py
        # has no error scopes): raised here, for this flush, naming its kernels; nothing of it stays invalid
        try:
            enc = dev.create_command_encoder()
            cpass = enc.begin_compute_pass()
            off = 0
            for pipeline, buffers, params, groups in batch.dispatches:
                if params:
                    off += (-off) % PARAM_ALIGN
                cpass.set_pipeline(self._pipelines[pipeline])
                cpass.set_bind_group(0, self._bind_group(pipeline, buffers, off if params else -1, len(params)))
                cpass.dispatch_workgroups(*groups)
                off += len(params)
            cpass.end()
            dev.queue.submit([enc.finish()])
        except Exception as e:  # noqa: BLE001
            names = sorted({self._pipelines[d[0]].label for d in batch.dispatches})
            cls = OutOfMemoryError if "memory" in str(e).lower() else WebGPUError
            raise cls(f"WebGPU error in a flush of {len(batch)} dispatches ({', '.join(names)}): {e}") from None

    def program(self, batch):
        """[(pipeline, bind group, workgroups)] over a parameter buffer of the program's own (the shared arena is
        rewritten by every run): a replay only encodes and submits."""
        dev = self.device
        _, arena = batch.pack()
        own = dev.create_buffer(size=max(256, len(arena) + (-len(arena)) % 16),
                                usage=self._wgpu.BufferUsage.UNIFORM | self._wgpu.BufferUsage.COPY_DST)
        if arena:
            dev.queue.write_buffer(own, 0, arena + b"\0" * ((-len(arena)) % 4))
        steps = []
        off = 0
        for pipeline, buffers, params, groups in batch.dispatches:
            if params:
                off += (-off) % PARAM_ALIGN
            entries = [self._entry(i, b) for i, b in enumerate(buffers)]
            if params:
                entries.append({"binding": len(buffers), "resource": {"buffer": own, "offset": off,
                                                                       "size": (len(params) + 15) // 16 * 16}})
            pipe = self._pipelines[pipeline]
            steps.append((pipe, dev.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=entries), groups))
            off += len(params)
        return steps, own

    def replay(self, program):
        steps, _ = program
        dev = self.device
        try:
            enc = dev.create_command_encoder()
            cpass = enc.begin_compute_pass()
            for pipe, bind_group, groups in steps:
                cpass.set_pipeline(pipe)
                cpass.set_bind_group(0, bind_group)
                cpass.dispatch_workgroups(*groups)
            cpass.end()
            dev.queue.submit([enc.finish()])
        except Exception as e:  # noqa: BLE001
            raise WebGPUError(f"WebGPU error replaying a captured step of {len(steps)} dispatches: {e}") from None

    # ---- internals ----------------------------------------------------------------------------------
    def _ensure_arena(self, nbytes):
        if nbytes > self._arena_size:
            size = max(65536, 1 << (nbytes - 1).bit_length())
            if self._arena is not None:
                self._arena.destroy()
            self._arena = self.device.create_buffer(
                size=size, usage=self._wgpu.BufferUsage.UNIFORM | self._wgpu.BufferUsage.COPY_DST)
            self._arena_size = size
            self._bind_cache.clear()

    def _bind_group(self, pipeline, buffers, param_off, param_size):
        key = (pipeline, buffers, param_off, param_size)
        bg = self._bind_cache.get(key)
        if bg is not None:
            return bg
        entries = [self._entry(i, b) for i, b in enumerate(buffers)]
        if param_off >= 0:
            entries.append({"binding": len(buffers),
                            "resource": {"buffer": self._arena, "offset": param_off,
                                         "size": (param_size + 15) // 16 * 16}})
        pipe = self._pipelines[pipeline]
        bg = self.device.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=entries)
        if len(self._bind_cache) >= _BIND_CACHE_MAX:
            self._bind_cache.clear()
        self._bind_cache[key] = bg
        return bg


def _compile_message(kernel_id, wgsl, err):
    """The compiler's message, plus the offending WGSL line when the message names one."""
    msg = f"WGSL kernel '{kernel_id}' failed to compile: {err.strip()}"
    m = re.search(r":(\d+):(\d+)", err) or re.search(r"line (\d+)", err)
    if m:
        line_no = int(m.group(1))
        lines = wgsl.splitlines()
        if 0 < line_no <= len(lines):
            msg += f"\n  at line {line_no}: {lines[line_no - 1].strip()}"
    return msg
