"""Runs inside Pyodide under in-browser pytest (not collected on the host: no test_ prefix): every check() case
recorded in oracle_cases.json (tests/browser/oracle.py), replayed on the browser's WebGPU device."""
import json
import os

import pytest

from oracle import replay  # tests/browser/oracle.py, copied beside this file

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle_cases.json")) as f:
    CASES = json.load(f)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_recorded_case(case):
    replay(case, "webgpu")
