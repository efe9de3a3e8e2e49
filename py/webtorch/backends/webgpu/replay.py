"""Reuse of a repeating flush's schedule, and the target a capture (capture.py) records flushes into.

A training step that repeats with the same shapes flushes the same queue every time: the same op sequence over
the same geometry, its buffers in the same roles. ``flush_key`` describes a queue in one cheap pass (no fusion
analysis): per node its kind, index space, attributes and operands, with buffers numbered in order of first
appearance, plus whether a tensor still holds each buffer (what fusion and dead-node dropping decide on) and the
adapter features code generation follows. A flush whose key was seen before takes the Plan scheduled then --
each dispatch's pipeline, parameter bytes, workgroups and buffer slots -- and binds this flush's buffers in
those slots: no scheduling, no code generation, no pipeline or parameter work. Anything that differs (an op, a
shape, a constant, which operands share a buffer, a tensor kept or dropped) gives another key, so the queue is
scheduled afresh. One thing may differ: the parameter bytes of a template kernel (an optimizer's per-step bias
corrections, say) decide nothing in the schedule, so they stay out of the key and each flush binds its own.

``WEBTORCH_CAPTURE_CHECK=1`` (tests): every flush that hits is also scheduled afresh, and the two batches must
be equal dispatch for dispatch (pipeline, buffers, parameters, workgroups), else an AssertionError names the
first difference. ``WEBTORCH_FLUSH_REUSE=0`` turns the reuse off (benchmarks measure both).
"""
import os

from . import dtypes as T
from .runtime import Batch

PLANS_MAX = 64  # distinct queues remembered (a training loop has a few: its step, an eval, a last batch)
_CHECK_KEY = -1  # slot of the error word's buffer in a plan (bound by checking kernels, not a node operand)


def args_key(args):
    """Hashable form of an elementwise node's ``args``: constants by type and exact value (0.0 == -0.0 and
    1 == 1.0 == True as dict keys; NaN != NaN)."""
    return tuple((a[0], type(a[1]), a[1].hex() if type(a[1]) is float else a[1]) if type(a) is tuple else a
                 for a in args)


class Plan:
    """A scheduled queue in slot form: ``dispatches`` [(pipeline, slots, params, groups, node)] -- ``node`` the
    position of the template kernel whose own parameters come first in ``params``' place (``params`` then holds
    what the schedule appends: a fused epilogue's), else -1 -- and the stats it adds."""
    __slots__ = ("dispatches", "fused", "dropped")

    def __init__(self, dispatches, fused, dropped):
        self.dispatches = dispatches
        self.fused = fused
        self.dropped = dropped


def flush_key(nodes):
    """(hashable key of the queue ``nodes``, its Buffers in order of first appearance, {Buffer: slot})."""
    index = {}
    bufs = []
    parts = []
    add = parts.append

    def slot(b):
        i = index.get(b)
        if i is None:
            i = index[b] = len(bufs)
            bufs.append(b)
        return i

    for n in nodes:
        o = n.out
        a = n.attrs
        add((n.kind, n.shape, slot(o.buf), o.strides, o.offset, o.dtype))
        add(tuple([(slot(s.buf), s.strides, s.offset, s.dtype) for s in n.srcs]))
        if n.kind == "ew":
            add((a["op"], args_key(a["args"]), a["cdt"], a["dt"], a["cond"], a["fresh"]))
        elif n.kind == "kernel":
            add((a["source"], len(a["params"]), a["groups"], a.get("epilogue"),
                 tuple([slot(b) for b in a["buffers"]]), tuple([slot(b) for b in a.get("writes", ())])))
        else:
            add(tuple(a.items()))
    add(tuple([b.alive() for b in bufs]))
    add((T.features.f16, T.features.subgroups))
    return tuple(parts), bufs, index


class Replayer:
    """What ``Scheduler.run`` hands a queue to: plans reused by key, fresh schedules checked against them in
    check mode, and dispatches kept by the active capture instead of submitted."""

    def __init__(self, scheduler, plans):
        self.sched = scheduler
        self.plans = plans  # flush_key -> Plan; a dict the backend clears when the limits change (limits.py)
        self.enabled = os.environ.get("WEBTORCH_FLUSH_REUSE", "1") != "0"
        self.check = os.environ.get("WEBTORCH_CAPTURE_CHECK", "0") == "1"
        self.capture = None  # capture.Capture while webtorch.webgpu.graph records
        self.hits = 0
        self.misses = 0
        self.checked = 0

    def run(self, nodes):
        sched = self.sched
        if not self.enabled:
            batch, keep, _ = sched.plan(nodes)
            self._finish(batch, keep, nodes)
            return
        key, bufs, index = flush_key(nodes)
        plan = self.plans.get(key)
        if plan is None:
            self.misses += 1
            fused, dropped = sched.stats.nodes_fused, sched.stats.nodes_dropped
            batch, keep, origin = sched.plan(nodes)
            plan = _slot_form(batch, keep, origin, nodes, index, sched.checks.buf,
                              sched.stats.nodes_fused - fused, sched.stats.nodes_dropped - dropped)
            if plan is not None:
                if len(self.plans) >= PLANS_MAX:
                    self.plans.clear()
                self.plans[key] = plan
            self._finish(batch, keep, nodes)
            return
        self.hits += 1
        sched.stats.flush_reuses += 1
        fresh = None
        if self.check:
            fresh = sched.plan(nodes)
            sched.stats.nodes_fused -= plan.fused  # counted again below
            sched.stats.nodes_dropped -= plan.dropped
        batch, keep = self._bind(plan, bufs, nodes)
        if fresh is not None:
            _compare(fresh[0], batch, len(nodes))
            self.checked += 1
        self._finish(batch, keep, nodes)

    def _bind(self, plan, bufs, nodes):
        """The Batch of ``plan`` over this queue's Buffers ``bufs`` and its kernels' own parameters (allocating the
        buffers not yet on the device)."""
        sched = self.sched
        word = sched.checks.buf
        batch = Batch()
        out = batch.dispatches
        keep = []
        for pipeline, slots, params, groups, j in plan.dispatches:
            if j >= 0:
                params = nodes[j].attrs["params"] + params
            bound = [bufs[i] if i >= 0 else word for i in slots]
            keep.append(bound)
            out.append((pipeline, tuple([b.id if b.id is not None else b.ensure() for b in bound]), params, groups))
            if word in bound:
                sched.checks.armed = True
        sched.stats.nodes_fused += plan.fused
        sched.stats.nodes_dropped += plan.dropped
        return batch, keep

    def _finish(self, batch, keep, nodes):
        cap = self.capture
        if cap is None:
            self.sched._submit(batch)
        else:
            cap.add(batch, keep, nodes)
            self.sched.stats.flushes += 1


def _slot_form(batch, keep, origin, nodes, index, word, fused, dropped):
    """``batch`` as a Plan over buffer slots, or None when a dispatch binds a buffer the queue does not name."""
    dispatches = []
    for (pipeline, _, params, groups), bound, j in zip(batch.dispatches, keep, origin):
        if j >= 0:
            params = params[len(nodes[j].attrs["params"]):]
        slots = []
        for b in bound:
            i = index.get(b)
            if i is None:
                if b is not word:
                    return None
                i = _CHECK_KEY
            slots.append(i)
        dispatches.append((pipeline, tuple(slots), params, groups, j))
    return Plan(dispatches, fused, dropped)


def _compare(fresh, reused, n_nodes):
    """Raise AssertionError at the first dispatch where the reused plan's batch differs from a fresh schedule."""
    a, b = fresh.dispatches, reused.dispatches
    for k in range(max(len(a), len(b))):
        da = a[k] if k < len(a) else None
        db = b[k] if k < len(b) else None
        if da != db:
            raise AssertionError(f"WEBTORCH_CAPTURE_CHECK: a reused schedule of a {n_nodes}-node flush differs from "
                                 f"a fresh one at dispatch {k} of {len(a)}: fresh {_brief(da)}, reused {_brief(db)}")


def _brief(d):
    if d is None:
        return "(none)"
    pipeline, buffers, params, groups = d
    return f"(pipeline {pipeline}, buffers {buffers}, {len(params)} parameter bytes, workgroups {groups})"
