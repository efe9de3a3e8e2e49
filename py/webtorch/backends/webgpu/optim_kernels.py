"""WGSL kernels of the fused multi-tensor optimizer updates (adam_update, sgd_update, rmsprop_update, ...).

Functions of the device's Recorder (recorder.py) taking the contract's parameters (backends/contract.py); the
update's hyper-parameters come as one record ``hp``.
One ``optimizer.step()`` records ceil(P / slots) dispatches of
webgpu-shaders/optim_multi_tensor.wgsl for P parameter tensors: each dispatch updates up to ``slots``
tensors in place (param, grad and the rule's state bound per slot), slots = maxStorageBuffersPerShaderStage
// buffers-per-tensor (at most MAX_SLOTS; 1 on a CPU adapter). Everything stays lazy: the dispatches join the
step's flush.
Per-parameter scalars (bias corrections, which depend on each tensor's step) travel in the uniform table,
so one pipeline serves every step. Adam with capturable=True keeps the steps on the device instead: one
webgpu-shaders/optim_step_count.wgsl dispatch counts up to ``slots`` step tensors, and the update kernel
binds each slot's step tensor and computes its bias corrections (HAS_STEP): a replay repeats both.
"""
import itertools
import re
import struct

from . import binding_windows, codegen, wgsl_loader
from .elementwise_kernels import contiguous, copy_
from .handles import View

MAX_SLOTS = 16
WG = 256
_RULES = {"sgd_update": 0, "adam_update": 1, "rmsprop_update": 2, "adagrad_update": 3, "adadelta_update": 4,
          "adamax_update": 5, "nadam_update": 6, "radam_update": 7}
_MAXIMIZE, _DECOUPLED, _NESTEROV = 1, 2, 4
_SOURCES = {}


def expand_slots(src, nslot, flags):
    """The one-slot kernel ``src`` turned into an ``nslot``-slot one: drop "// when X" lines whose flag is
    False, repeat the "slot bindings" and "slot body" blocks per slot, then number the bindings in order."""
    def kept(line):
        m = re.search(r"// when (\w+)\s*$", line)
        return m is None or flags[m.group(1)]
    text = "\n".join(line for line in src.split("\n") if kept(line))
    for block in ("slot bindings", "slot body"):
        m = re.search(rf"// >>> {block}\n(.*?\n)([ \t]*// <<< {block})", text, re.S)
        body = m.group(1)
        copies = (re.sub(r"_s0\b", f"_s{k}", body).replace("slot == 0u", f"slot == {k}u") for k in range(nslot))
        text = text[:m.start(1)] + "".join(copies) + text[m.end(1):]
    counter = itertools.count()
    return re.sub(r"@binding\(\d+\)", lambda _: f"@binding({next(counter)})", text)


def optim_source(rule, nslot, has, vec=True):
    """``has``: whether the slots bind state a, b, c and (Adam capturable) their step tensor."""
    key = (rule, nslot, has, vec)
    s = _SOURCES.get(key)
    if s is None:
        flags = dict(zip(("HAS_A", "HAS_B", "HAS_C", "HAS_STEP"), has + (False,) * (4 - len(has))))
        s = wgsl_loader.specialize("optim_multi_tensor", RULE=f"{rule}u", NSLOT=f"{nslot}u", VEC=vec, **flags)
        s = _SOURCES[key] = expand_slots(s, nslot, flags)
    return s


def _f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", float(x)))[0]


def _optim_step(rec, name, params, grads, states, scalars, slot_scalars=None, flags=0, slot_flags=None,
                step_views=None):
    """Record the update ``name`` of every parameter. ``states``: three per-parameter lists or None (the
    kernel's a, b, c); ``scalars``: the rule's shared f32 scalars; ``slot_scalars``: four floats per
    parameter; ``slot_flags``: an int per parameter (SGD: 1 = the momentum buffer starts as the grad);
    ``step_views``: per parameter its 0-dim float32 step tensor, read by the kernel (Adam capturable)."""
    has = tuple(s is not None for s in states) + (step_views is not None,)
    per = 2 + sum(has)
    # a CPU adapter runs every slot's body in every invocation (SwiftShader: 2 slots, 2x the time): one there
    nslot = 1 if rec.rt.cpu_adapter else max(1, min(MAX_SLOTS, rec.planner.max_buffers // per))
    head = struct.pack("<8I", *(_f32_bits(x) for x in (tuple(scalars) + (0.0,) * 8)[:8]))
    back = []  # (view, contiguous working copy) for written views that are not contiguous

    def bindable(v, written):
        if v.is_contiguous():
            return v
        c = contiguous(rec, v)
        if written:
            back.append((v, c))
        return c

    slots = []
    for i, p in enumerate(params):
        if not p.numel:
            continue
        views = [bindable(p, True), bindable(grads[i], False)] + \
            [bindable(s[i], True) for s in states if s is not None]
        srow = tuple(slot_scalars[i]) if slot_scalars else (0.0,) * 4
        for part in _chunks(views, rec.limits):  # a parameter past one binding updates in chunks (binding_windows.py)
            if step_views is not None:  # read only, after the states; its offset in the slot flag's place
                slots.append((part + [step_views[i]], srow, step_views[i].offset))
            else:
                slots.append((part, srow, slot_flags[i] if slot_flags else 0))
    batch = []
    for entry in slots:
        bufs = {id(v.st.buf) for v in entry[0]}
        if not batch or len(batch) == nslot or any(
                id(v.st.buf) in bufs for e in batch for v in e[0]):
            if batch:
                _optim_dispatch(rec, name, batch, has, head, flags)
            batch = []
        batch.append(entry)
    if batch:
        _optim_dispatch(rec, name, batch, has, head, flags)
    for v, c in back:
        copy_(rec, v, c)


def _chunks(views, limits):
    """[views]: the (contiguous, equally shaped) views of one parameter's update, or their flat chunks when one
    of them is past one binding: runs of a multiple of 64 elements (vec4 loads stay aligned) that fit a window."""
    if not any(binding_windows.is_big(v.st.buf) for v in views):
        return [views]
    n = views[0].numel
    per = (limits.binding_size() - binding_windows.ALIGN) // 4 // 64 * 64
    flat = [View(v.st, (n,), (1,), v.offset) for v in views]
    return [[binding_windows.narrowed(v, 0, c, min(c + per, n)) for v in flat] for c in range(0, n, per)]


def _optim_dispatch(rec, name, batch, has, head, flags):
    # 4 elements per invocation when every tensor starts at a multiple of 4 floats (vec4 accesses)
    nstate = sum(has[:3])
    vec = all(v.offset % 4 == 0 for views, _, _ in batch for v in views[:2 + nstate])
    per_group = WG * (4 if vec else 1)
    start = 0
    rows = []
    buffers, reads, writes = [], [], []
    for real, srow, sflag in batch:
        views, bound = binding_windows.bind(real)
        n = views[0].numel
        offs = [v.offset for v in views[2:2 + nstate]]
        state_offs = []
        it = iter(offs)
        for h in has[:3]:
            state_offs.append(next(it) if h else 0)
        rows.append(struct.pack("<8I", start, n, views[0].offset, views[1].offset, *state_offs, sflag))
        rows.append(struct.pack("<4I", *(_f32_bits(x) for x in srow)))
        start += -(-n // per_group)
        for k, (v, b) in enumerate(zip(views, bound)):
            buffers.append(b)
            reads.append(v.st.buf)
            if k != 1 and k < 2 + nstate:  # the grad and the step are only read
                writes.append(v.st.buf)
    params = struct.pack("<4I", len(batch), start, flags, 0) + head + b"".join(rows)
    rec.record_kernel(f"optim_{name}", optim_source(_RULES[name], len(batch), has, vec), params,
                      codegen.grid(start, rec.limits), buffers, reads, writes)


def count_steps(rec, steps):
    """Add 1 to each float32 step tensor ``steps`` (Views) on the device: ceil(n / slots) dispatches of
    webgpu-shaders/optim_step_count.wgsl, no two steps of a dispatch in one buffer."""
    nslot = max(1, min(MAX_SLOTS, rec.planner.max_buffers))
    batches = []
    for v in steps:
        if not batches or len(batches[-1]) == nslot or any(u.st.buf is v.st.buf for u in batches[-1]):
            batches.append([])
        batches[-1].append(v)
    for batch in batches:
        key = ("count", len(batch))
        src = _SOURCES.get(key)
        if src is None:
            src = _SOURCES[key] = expand_slots(
                wgsl_loader.specialize("optim_step_count", NSLOT=f"{len(batch)}u"), len(batch), {})
        bufs = [v.st.buf for v in batch]
        rec.record_kernel("optim_step_count", src, b"".join(struct.pack("<4I", v.offset, 0, 0, 0) for v in batch),
                          codegen.grid(1, rec.limits), bufs, bufs, bufs)


def _flags(hp):
    """The kernel's rule flags of a hyper-parameter record (the fields a rule does not have count as False)."""
    return (_MAXIMIZE * hp.maximize) | (_DECOUPLED * getattr(hp, "decoupled", False)) | \
        (_NESTEROV * getattr(hp, "nesterov", False))


# ---- the primitives ---------------------------------------------------------------------------------
def sgd_update(rec, params, grads, momentum_bufs, hp):
    bufs, first = None, None
    if hp.momentum != 0:
        bufs = list(momentum_bufs)
        first = [0] * len(params)
        for i, b in enumerate(bufs):
            if b is None:
                bufs[i] = rec.new(params[i].shape, params[i].dtype)
                first[i] = 1
    flags = _flags(hp)
    _optim_step(rec, "sgd_update", params, grads, [bufs, None, None],
                (hp.weight_decay, hp.momentum, 1 - hp.dampening, -hp.lr), flags=flags, slot_flags=first)
    return bufs


def adam_update(rec, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, hp):
    on_device = bool(steps) and not isinstance(steps[0], (int, float))
    if on_device:
        count_steps(rec, steps)
    per = None if on_device else [(-hp.lr / (1 - hp.beta1 ** s), (1 - hp.beta2 ** s) ** 0.5, 0.0, 0.0)
                                  for s in steps]
    _optim_step(rec, "adam_update", params, grads, [exp_avgs, exp_avg_sqs, max_exp_avg_sqs if hp.amsgrad else None],
                (hp.weight_decay, 1 - hp.lr * hp.weight_decay, 1 - hp.beta1, hp.beta2, 1 - hp.beta2, hp.eps, hp.lr,
                 hp.beta1), per, _flags(hp),
                step_views=steps if on_device else None)


def rmsprop_update(rec, params, grads, square_avgs, grad_avgs, momentum_bufs, hp):
    _optim_step(rec, "rmsprop_update", params, grads,
                [square_avgs, grad_avgs if hp.centered else None, momentum_bufs if hp.momentum > 0 else None],
                (hp.weight_decay, hp.alpha, 1 - hp.alpha, hp.eps, hp.momentum, -hp.lr), flags=_flags(hp))


def adagrad_update(rec, params, grads, state_sums, steps, hp):
    per = [(-hp.lr / (1 + (s - 1) * hp.lr_decay), 0.0, 0.0, 0.0) for s in steps]
    _optim_step(rec, "adagrad_update", params, grads, [state_sums, None, None], (hp.weight_decay, hp.eps), per,
                _flags(hp))


def adadelta_update(rec, params, grads, square_avgs, acc_deltas, hp):
    _optim_step(rec, "adadelta_update", params, grads, [square_avgs, acc_deltas, None],
                (hp.weight_decay, hp.rho, 1 - hp.rho, hp.eps, -hp.lr), flags=_flags(hp))


def adamax_update(rec, params, grads, exp_avgs, exp_infs, steps, hp):
    per = [(-hp.lr / (1 - hp.beta1 ** s), 0.0, 0.0, 0.0) for s in steps]
    _optim_step(rec, "adamax_update", params, grads, [exp_avgs, exp_infs, None],
                (hp.weight_decay, 1 - hp.beta1, hp.beta2, hp.eps), per, _flags(hp))


def nadam_update(rec, params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, hp):
    per = []
    for s, prod in zip(steps, mu_products):
        mu = hp.beta1 * (1.0 - 0.5 * 0.96 ** (s * hp.momentum_decay))
        mu_next = hp.beta1 * (1.0 - 0.5 * 0.96 ** ((s + 1) * hp.momentum_decay))
        per.append((1 - hp.beta2 ** s, -hp.lr * (1.0 - mu) / (1.0 - prod), -hp.lr * mu_next / (1.0 - prod * mu_next),
                    0.0))
    _optim_step(rec, "nadam_update", params, grads, [exp_avgs, exp_avg_sqs, None],
                (hp.weight_decay, 1 - hp.lr * hp.weight_decay, 1 - hp.beta1, hp.beta2, 1 - hp.beta2, hp.eps), per,
                _flags(hp))


def radam_update(rec, params, grads, exp_avgs, exp_avg_sqs, steps, hp):
    rho_inf = 2 / (1 - hp.beta2) - 1
    per = []
    for s in steps:
        bc2 = 1 - hp.beta2 ** s
        rho_t = rho_inf - 2 * s * hp.beta2 ** s / bc2
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5 \
            if rho_t > 5.0 else 0.0
        per.append((1 - hp.beta1 ** s, hp.lr, bc2 ** 0.5, rect))
    _optim_step(rec, "radam_update", params, grads, [exp_avgs, exp_avg_sqs, None],
                (hp.weight_decay, 1 - hp.lr * hp.weight_decay, 1 - hp.beta1, hp.beta2, 1 - hp.beta2, hp.eps), per,
                _flags(hp))
