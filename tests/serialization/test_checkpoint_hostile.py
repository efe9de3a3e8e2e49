"""Hostile checkpoints (tests/support/make_bad_checkpoints.py's hostile()): each is loaded in a fresh subprocess
under a memory limit; it must either be refused with webtorch's clear error or load (valid files built to
amplify work), never leave the process changed (devices, containers, tensors still work), never run code
(no sentinel file), and stay within a bounded peak RSS."""
import json
import os
import subprocess
import sys

import pytest

from make_bad_checkpoints import hostile

SENTINEL = "/tmp/webtorch_pwned"
LIMIT_AS = 6 << 30  # address space: lavapipe reserves ~1.4 GB of it; RSS is what the test bounds
MAX_LOAD_RSS_MB = 64  # peak RSS during the load above the RSS before it

CHILD = r"""
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[3]), int(sys.argv[3])))
from collections import OrderedDict
import webtorch
from webtorch.serialization import CheckpointError, SafetensorsError
ml = None if sys.argv[2] == "None" else sys.argv[2]
webtorch.ones(1, device=ml if ml not in (None, "None") else "cpu").sum().item()  # the device is up before


def status_kb(field):
    return int(next(l for l in open("/proc/self/status") if l.startswith(field)).split()[1])


with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # restart the peak-RSS count here, so it measures the load
out = {"rss_before_mb": status_kb("VmRSS") / 1024}
try:
    obj = webtorch.load(sys.argv[1], map_location=ml)
    out["outcome"] = "loads"
    if isinstance(obj, list) and obj and obj[-1] is obj:
        out["self_reference_kept"] = True
except (CheckpointError, SafetensorsError) as e:
    out.update(outcome="refused", error=type(e).__name__, message=str(e)[:300])
except BaseException as e:
    out.update(outcome="crashed", error=type(e).__name__, message=str(e)[:300])
d = webtorch.device("cpu")
out["process_intact"] = (d.type == "cpu" and webtorch.ones(2).sum().item() == 2.0
                         and type(OrderedDict()) is OrderedDict and not hasattr(OrderedDict, "keys_")
                         and OrderedDict.keys is not None)
out["peak_rss_mb"] = status_kb("VmHWM") / 1024
print(json.dumps(out))
"""

CASES = hostile()


def _load_in_child(path, map_location):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-c", CHILD, str(path), str(map_location), str(LIMIT_AS)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_file(name, tmp_path):
    data, map_location, expected = CASES[name]
    if os.path.exists(SENTINEL):
        os.remove(SENTINEL)
    path = tmp_path / name
    path.write_bytes(data)
    out = _load_in_child(path, map_location)
    grew = out["peak_rss_mb"] - out["rss_before_mb"]
    print(f"{name}: {out['outcome']}, peak RSS {out['peak_rss_mb']:.1f} MB, +{grew:.1f} MB during the load")
    assert out["outcome"] == expected, out
    if expected == "refused":
        assert out["error"] == ("SafetensorsError" if name.endswith(".safetensors") else "CheckpointError"), out
        assert len(out["message"]) > 30, out
    assert out["process_intact"], out
    assert not os.path.exists(SENTINEL), "loading executed code from the file"
    assert grew < MAX_LOAD_RSS_MB, out
    if name == "self_referencing_list.pt":
        assert out.get("self_reference_kept"), out
