"""The plan cache: a repeating queue reuses the schedule the planner made for it the first time.

A training step that repeats with the same shapes flushes the same queue every time: the same op sequence over
the same geometry, its buffers in the same roles. ``queue_key`` describes a queue in one cheap pass (no fusion
analysis): per node its kind, index space, attributes and operands, with buffers numbered in order of first
appearance, plus whether a tensor still holds each buffer (what fusion and dead-node dropping decide on) and the
adapter features code generation follows. A flush whose key was seen before takes the Plan made then --
each dispatch's pipeline, parameter bytes, workgroups and buffer slots -- and binds this flush's buffers in
those slots: no scheduling, no code generation, no pipeline or parameter work. Anything that differs (an op, a
shape, a constant, which operands share a buffer, a tensor kept or dropped) gives another key, so the queue is
scheduled afresh. One thing may differ: the parameter bytes of a template kernel (an optimizer's per-step bias
corrections, say) decide nothing in the schedule, so they stay out of the key and each flush binds its own.

``WEBTORCH_CAPTURE_CHECK=1`` (tests): every flush that hits is also planned afresh, and the two batches must
be equal dispatch for dispatch (pipeline, buffers, parameters, workgroups), else an AssertionError names the
first difference. ``WEBTORCH_FLUSH_REUSE=0`` turns the reuse off (benchmarks measure both).
"""
import os

from ..._lru import LRU
from .planner import Schedule, args_key
from .runtime import Batch

PLANS_MAX = 64  # distinct queues remembered (a training loop has a few: its step, an eval, a last batch)
_CHECK_KEY = -1  # slot of the error word's buffer in a plan (bound by checking kernels, not a node operand)


class Plan:
    """A scheduled queue in slot form: ``dispatches`` [(pipeline, slots, params, groups, node)] -- ``node`` the
    position of the template kernel whose own parameters come first in ``params``' place (``params`` then holds
    what the schedule appends: a fused epilogue's), else -1 -- and the stats it adds."""
    __slots__ = ("dispatches", "fused", "dropped")

    def __init__(self, dispatches, fused, dropped):
        self.dispatches = dispatches
        self.fused = fused
        self.dropped = dropped


def queue_key(nodes, features):
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
    add(features.key())
    return tuple(parts), bufs, index


class PlanCache:
    """Queue key -> Plan; ``schedule(nodes)`` is what a flush runs: a remembered plan bound to this queue's
    buffers, else the planner's fresh Schedule (remembered for next time). In check mode a hit is planned afresh
    too and the two must be equal."""

    def __init__(self, planner):
        self.planner = planner
        self.plans = planner.limits.register_cache(LRU(PLANS_MAX))  # cleared when the limits change (limits.py)
        self.enabled = os.environ.get("WEBTORCH_FLUSH_REUSE", "1") != "0"
        self.check = os.environ.get("WEBTORCH_CAPTURE_CHECK", "0") == "1"
        self.hits = 0
        self.misses = 0
        self.checked = 0

    def schedule(self, nodes):
        planner = self.planner
        if not self.enabled:
            return planner.plan(nodes)
        key, bufs, index = queue_key(nodes, planner.features)
        plan = self.plans.get(key)
        stats = planner.stats
        if plan is None:
            self.misses += 1
            fused, dropped = stats.nodes_fused, stats.nodes_dropped
            fresh = planner.plan(nodes)
            if fresh.error is None:
                plan = _slot_form(fresh, nodes, index, planner.word, stats.nodes_fused - fused,
                                  stats.nodes_dropped - dropped)
                if plan is not None:
                    self.plans.put(key, plan)
            return fresh
        self.hits += 1
        stats.flush_reuses += 1
        fresh = None
        if self.check:
            fresh = planner.plan(nodes)
            stats.nodes_fused -= plan.fused  # counted again below
            stats.nodes_dropped -= plan.dropped
        bound = self.bind(plan, bufs, nodes)
        if fresh is not None:
            _compare(fresh.batch, bound.batch, len(nodes))
            self.checked += 1
        return bound

    def bind(self, plan, bufs, nodes):
        """The Schedule of ``plan`` over this queue's Buffers ``bufs`` and its kernels' own parameters (allocating
        the buffers not yet on the device)."""
        word = self.planner.word
        batch = Batch()
        out = batch.dispatches
        keep = []
        arms = False
        for pipeline, slots, params, groups, j in plan.dispatches:
            if j >= 0:
                params = nodes[j].attrs["params"] + params
            bound = [bufs[i] if i >= 0 else word for i in slots]
            keep.append(bound)
            out.append((pipeline, tuple([b.id if b.id is not None else b.ensure() for b in bound]), params, groups))
            if word in bound:
                arms = True
        stats = self.planner.stats
        stats.nodes_fused += plan.fused
        stats.nodes_dropped += plan.dropped
        return Schedule(batch, keep, None, arms)


def _slot_form(fresh, nodes, index, word, fused, dropped):
    """Schedule ``fresh`` as a Plan over buffer slots, or None when a dispatch binds a buffer the queue does not
    name."""
    dispatches = []
    for (pipeline, _, params, groups), bound, j in zip(fresh.batch.dispatches, fresh.keep, fresh.origin):
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
            raise AssertionError(f"WEBTORCH_CAPTURE_CHECK: a reused plan of a {n_nodes}-node flush differs from "
                                 f"a fresh one at dispatch {k} of {len(a)}: fresh {_brief(da)}, reused {_brief(db)}")


def _brief(d):
    if d is None:
        return "(none)"
    pipeline, buffers, params, groups = d
    return f"(pipeline {pipeline}, buffers {buffers}, {len(params)} parameter bytes, workgroups {groups})"
