"""float8 tensors in checkpoints, both ways with PyTorch 2.13: its zip format (a torch.storage.UntypedStorage of
the bytes and _rebuild_tensor_v3 naming the dtype; views sharing one storage, Parameters) and safetensors (the
four formats its library names), on the cpu device (both its backends)."""
import io

import numpy as np
import pytest
import torch
from safetensors.torch import load as st_load, save as st_save

import webtorch
from webtorch.serialization import CheckpointError, safetensors as wst

NAMES = ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
VALUES = [0.5, -2.0, 300.0, 1e-3, 7.0, 448.0, 0.0, -0.0]


def _bits(t):
    lib = torch if isinstance(t, torch.Tensor) else webtorch
    return np.asarray(t.reshape(-1).view(lib.uint8).tolist(), dtype=np.uint8)


@pytest.mark.parametrize("name", NAMES)
def test_zip_checkpoints_both_ways_on_cpu(name):
    w = webtorch.tensor(VALUES).to(getattr(webtorch, name)).reshape(2, 4)
    t = torch.tensor(VALUES).to(getattr(torch, name)).reshape(2, 4)
    buf = io.BytesIO()
    webtorch.save({"w": w, "row": w[1], "n": 3}, buf)
    got = torch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    assert got["w"].dtype == t.dtype and np.array_equal(_bits(got["w"]), _bits(t)) and got["n"] == 3
    assert got["row"].untyped_storage().data_ptr() == got["w"].untyped_storage().data_ptr()  # one storage
    buf = io.BytesIO()
    torch.save({"w": t, "p": torch.nn.Parameter(t[0], requires_grad=False)}, buf)
    back = webtorch.load(io.BytesIO(buf.getvalue()), weights_only=True)
    assert back["w"].dtype is getattr(webtorch, name) and tuple(back["w"].shape) == (2, 4)
    assert np.array_equal(_bits(back["w"]), _bits(t)) and np.array_equal(_bits(back["p"]), _bits(t[0]))
    assert isinstance(back["p"], webtorch.nn.Parameter) and back["p"].dtype is back["w"].dtype


@pytest.mark.parametrize("name", NAMES[:4])
def test_safetensors_both_ways_on_cpu(name):
    t = torch.tensor(VALUES).to(getattr(torch, name))
    w = wst.load(st_save({"x": t}))["x"]
    assert w.dtype is getattr(webtorch, name) and np.array_equal(_bits(w), _bits(t))
    back = st_load(wst.save({"x": w}))["x"]
    assert back.dtype == t.dtype and np.array_equal(_bits(back), _bits(t))


def test_safetensors_refuses_e8m0_by_name_on_cpu():
    with pytest.raises(TypeError, match="float8_e8m0fnu"):
        wst.save({"x": webtorch.zeros(2, dtype=webtorch.float8_e8m0fnu)})


def test_a_float8_checkpoint_mapped_to_webgpu_is_refused_naming_the_dtype():
    buf = io.BytesIO()
    torch.save({"w": torch.zeros(2, dtype=torch.float8_e5m2)}, buf)
    if "webgpu" not in __import__("devices").DEVICES:
        pytest.fail("no webgpu adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    with pytest.raises(CheckpointError, match="webtorch.load: dtype torch.float8_e5m2 is not supported on device "
                       "'webgpu'"):
        webtorch.load(io.BytesIO(buf.getvalue()), map_location="webgpu", weights_only=True)
