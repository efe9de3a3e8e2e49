"""Checkpoints: webtorch.save/load round trips, interop with torch.save/torch.load and the safetensors
library both ways, and the corpus of hostile/corrupt files (each refused with a clear error)."""
import io
import os
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st, HealthCheck
from safetensors.torch import load_file as st_load_file, save_file as st_save_file

import webtorch
from webtorch.serialization import CheckpointError, SafetensorsError, safetensors as wst

BAD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "bad_checkpoints")
DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _sample(dtype):
    a = np.arange(-6, 6).reshape(3, 4)
    return a.astype(dtype) if dtype != "bool" else a % 3 == 0


def _ours_equal_torch(ours, ref):
    assert tuple(ours.shape) == tuple(ref.shape)
    assert str(ours.dtype) == str(ref.dtype)
    np.testing.assert_array_equal(np.asarray(ours.tolist()), np.asarray(ref.tolist()))


@pytest.mark.parametrize("dtype", DTYPES)
def test_zip_round_trip_and_torch_reads_ours(tmp_path, dtype):
    t = webtorch.tensor(_sample(dtype))
    obj = {"t": t, "view": t.t() if dtype != "bool" else t, "scalar": webtorch.tensor(3.5), "empty": webtorch.zeros(0, 2),
           "meta": [1, 2.5, "x", (True, None)], "big": 2 ** 70}
    p = tmp_path / "ck.pt"
    webtorch.save(obj, p)
    ours = webtorch.load(p)
    ref = torch.load(p, weights_only=True)
    for k in ("t", "view", "scalar", "empty"):
        _ours_equal_torch(ours[k], ref[k])
        assert ours[k].tolist() == obj[k].tolist()
    assert ours["meta"] == ref["meta"] == [1, 2.5, "x", (True, None)]
    assert ours["big"] == ref["big"] == 2 ** 70


def test_we_read_torch_save_with_shared_views(tmp_path):
    base = torch.arange(12.0).reshape(3, 4)
    sd = OrderedDict(w=base, col=base[:, 1], tied=base, i=torch.tensor([1, 2], dtype=torch.int32),
                     h=torch.ones(2, dtype=torch.float16))
    p = tmp_path / "torch.pt"
    torch.save({"sd": sd, "step": 7, "lr": 0.1, "raw": b"\x00\x01"}, p)
    ours = webtorch.load(p)
    for k, v in sd.items():
        _ours_equal_torch(ours["sd"][k], v)
    assert isinstance(ours["sd"], OrderedDict) and list(ours["sd"]) == list(sd)
    assert ours["step"] == 7 and ours["lr"] == 0.1 and ours["raw"] == b"\x00\x01"
    ours["sd"]["w"][0, 1] = 100.0  # views loaded from one storage keep sharing it, as torch.load's do
    assert ours["sd"]["col"][0].item() == 100.0


def test_file_objects_and_map_location():
    buf = io.BytesIO()
    webtorch.save({"a": webtorch.ones(2)}, buf)
    buf.seek(0)
    assert torch.load(io.BytesIO(buf.getvalue()), weights_only=True)["a"].tolist() == [1.0, 1.0]
    buf.seek(0)
    out = webtorch.load(buf, map_location="cpu")
    assert out["a"].device.type == "cpu"


def test_safetensors_interop_both_ways(tmp_path):
    tensors = {name: webtorch.tensor(_sample(name)) for name in DTYPES}
    p = tmp_path / "ours.safetensors"
    webtorch.save(tensors, p)
    theirs = st_load_file(str(p))
    for k, v in tensors.items():
        _ours_equal_torch(v, theirs[k])
    q = tmp_path / "theirs.safetensors"
    st_save_file({k: torch.tensor(_sample(k)) for k in DTYPES}, str(q), metadata={"format": "pt"})
    back = webtorch.load(q)
    for k in DTYPES:
        _ours_equal_torch(back[k], torch.tensor(_sample(k)))
    assert wst.metadata(open(q, "rb").read()) == {"format": "pt"}


def test_safetensors_rejects_nested_objects(tmp_path):
    with pytest.raises(TypeError, match="flat dict of str -> Tensor"):
        webtorch.save({"a": {"b": webtorch.ones(1)}}, tmp_path / "x.safetensors")


@pytest.mark.parametrize("name", sorted(os.listdir(BAD)))
def test_bad_file_is_refused_clearly(name, tmp_path):
    marker = "/tmp/webtorch_pwned"
    if os.path.exists(marker):
        os.remove(marker)
    path = os.path.join(BAD, name)
    expected = SafetensorsError if name.endswith(".safetensors") else CheckpointError
    with pytest.raises(expected) as info:
        webtorch.load(path)
    assert len(str(info.value)) > 20
    assert not os.path.exists(marker), "loading executed code from the file"


def test_evil_pickle_is_an_unpickling_error_like_torch():
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global"):
        webtorch.load(os.path.join(BAD, "zip_evil_global.pt"))


def _valid_files():
    zbuf = io.BytesIO()
    webtorch.save({"w": webtorch.arange(6.0).reshape(2, 3), "n": [1, "a"]}, zbuf)
    return zbuf.getvalue(), wst.save({"w": webtorch.arange(6.0), "i": webtorch.tensor([1, 2])})


_ZIP, _ST = _valid_files()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_fuzz_readers_fail_only_with_clear_errors(data):
    """Random corruptions of valid files: the readers either load or raise their documented errors."""
    for good, loader, errors in ((_ZIP, lambda b: webtorch.load(io.BytesIO(b)), (CheckpointError,)),
                                 (_ST, wst.load, (SafetensorsError,))):
        b = bytearray(good)
        for _ in range(data.draw(st.integers(1, 8))):
            kind = data.draw(st.sampled_from(["flip", "cut", "insert"]))
            pos = data.draw(st.integers(0, max(0, len(b) - 1)))
            if kind == "flip" and b:
                b[pos] = data.draw(st.integers(0, 255))
            elif kind == "cut":
                del b[pos: pos + data.draw(st.integers(1, 64))]
            else:
                b[pos:pos] = data.draw(st.binary(min_size=1, max_size=16))
        try:
            loader(bytes(b))
        except errors:
            pass
