"""Hundreds of bad calls (tests/support/bad_calls.py), by family, on PyTorch 2.13 and on webtorch (every device): same
outcome (raise vs return), same exception type (webtorch may raise a subclass of the builtin class above
torch's), equal results when both return. Disagreements left are listed, with a reason each, in
tests/support/bad_calls_known.py; the list must stay exact (no new disagreement, no listed case that now agrees).
"""
import os

import pytest
import torch

import webtorch
from bad_calls import FAMILIES, cases, compare, outcome
from bad_calls_known import KNOWN

CASES = cases()
_KNOWN = {(dev, code): reason for reason, items in KNOWN.items() for dev, code in items}
# the entries of this run's cpu backend ("cpu:numpy" or "cpu:wasm"), keyed as "cpu"
_CPU_BACKEND = "cpu:" + os.environ.get("WEBTORCH_CPU_BACKEND", "numpy")
_KNOWN_HERE = {("cpu", code) for dev, code in _KNOWN if dev == _CPU_BACKEND}
_TORCH = {}  # code -> torch's outcome, computed once for every device


def _torch_outcome(code):
    if code not in _TORCH:
        _TORCH[code] = outcome(torch, code, "cpu")
    return _TORCH[code]


def test_every_family_has_many_cases():
    assert sum(len(c) for c in CASES.values()) >= 500
    assert all(len(CASES[f]) >= 20 for f in FAMILIES), {f: len(c) for f, c in CASES.items()}


def test_known_list_names_real_cases():
    codes = {c for cs in CASES.values() for c in cs}
    assert {code for _, code in _KNOWN} <= codes
    assert all(reason.strip() for reason in KNOWN)


@pytest.mark.parametrize("family", FAMILIES)
def test_bad_calls_agree_with_torch(family, device):
    new, fixed = [], []
    for code in CASES[family]:
        verdict, detail = compare(_torch_outcome(code), outcome(webtorch, code, device))
        known = (device, code) in _KNOWN or (device, code) in _KNOWN_HERE
        if verdict != "ok" and not known:
            new.append(f"{verdict}: {code}  ({detail})")
        elif verdict == "ok" and known:
            fixed.append(code)
    assert not new, f"{len(new)} new disagreement(s) with torch on {device}:\n" + "\n".join(new)
    assert not fixed, (f"{len(fixed)} case(s) now agree with torch on {device}: remove them from "
                       "tests/support/bad_calls_known.py:\n" + "\n".join(fixed))
