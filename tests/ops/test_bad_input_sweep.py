"""The generated bad-input sweep (tests/support/sweep.py): every public op and module webtorch shares with PyTorch
2.13, times each class of bad input, on PyTorch and on webtorch (every device): same outcome, same exception type,
same shape, dtype and values. Disagreements left are listed by (device, catalogue entry, input class), with a reason
each, in tests/support/sweep_known.py; the list must stay exact (no new disagreeing class, no listed class that now
agrees everywhere).
"""
import os

import pytest
import torch

import webtorch
from bad_calls import compare, outcome
from sweep import cases, expected, shard
from sweep_known import KNOWN

SHARDS = 8
CASES = cases()
_KNOWN = {(dev, entry, cls) for items in KNOWN.values() for dev, entry, cls in items}
_CPU_BACKEND = "cpu:" + os.environ.get("WEBTORCH_CPU_BACKEND", "numpy")
_TORCH = {}


def _torch_outcome(code):
    if code not in _TORCH:
        _TORCH[code] = outcome(torch, code, "cpu")
    return _TORCH[code]


def _known(device, entry, cls):
    return (device, entry, cls) in _KNOWN or (device == "cpu" and (_CPU_BACKEND, entry, cls) in _KNOWN)


def test_sweep_covers_the_catalogue():
    assert len(CASES) >= 500 and sum(map(len, CASES.values())) >= 10000
    kinds = {entry.split(":")[0] for entry in CASES}
    assert kinds == {"fn", "method", "F", "module"}, kinds


def test_known_list_names_real_classes():
    labelled = {(entry, cls) for entry, cs in CASES.items() for cls, _ in cs}
    assert {(entry, cls) for _, entry, cls in _KNOWN} <= labelled
    assert all(reason.strip() for reason in KNOWN)


@pytest.mark.parametrize("part", range(SHARDS))
def test_sweep_agrees_with_torch(part, device):
    disagree, listed = {}, set()
    for entry, labelled in CASES.items():
        if shard(entry, SHARDS) != part:
            continue
        for cls, code in labelled:
            if _known(device, entry, cls):
                listed.add((entry, cls))
            verdict, detail = compare(expected(_torch_outcome(code), entry, cls, code, device),
                                      outcome(webtorch, code, device))
            if verdict != "ok":
                disagree.setdefault((entry, cls), f"{verdict}: {code!r}  ({detail})")
    new = [f"{entry} [{cls}] {d}" for (entry, cls), d in disagree.items() if (entry, cls) not in listed]
    fixed = sorted(listed - set(disagree))
    assert not new, f"{len(new)} new disagreeing class(es) on {device}:\n" + "\n".join(new)
    assert not fixed, (f"{len(fixed)} listed class(es) now agree with torch on {device}: remove them from "
                       "tests/support/sweep_known.py:\n" + "\n".join(map(str, fixed)))
