"""Whole-object checkpoints (torch.save(model) and friends) and the weights-only policy: webtorch.save
writes any picklable object in PyTorch's format (torch.load reads it as torch objects), webtorch.load
reads torch's (torch.* globals become webtorch's objects), weights_only=True refuses other globals with
PyTorch's message, and the add_safe_globals family allow-lists them."""
import io
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

import webtorch
from webtorch import nn
from webtorch.serialization import CheckpointError, add_safe_globals, clear_safe_globals, get_safe_globals, \
    safe_globals

import ckpt_net  # the webtorch build of the shared model class (tests/support/ckpt_net.py)

X = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0]]


def _saved(obj, saver=webtorch.save):
    buf = io.BytesIO()
    saver(obj, buf)
    return buf.getvalue()


def _torch_error(data):
    with pytest.raises(Exception) as info:
        torch.load(io.BytesIO(data))
    return re.sub(r"\x1b\[[0-9;]*m", "", str(info.value))


def test_parameter_loads_in_torch_as_a_parameter():
    p = nn.Parameter(webtorch.arange(3.0))
    q = nn.Parameter(webtorch.ones(2), requires_grad=False)
    ref = torch.load(io.BytesIO(_saved({"p": p, "q": q})))
    assert type(ref["p"]) is torch.nn.Parameter and ref["p"].requires_grad
    assert type(ref["q"]) is torch.nn.Parameter and not ref["q"].requires_grad
    ours = webtorch.load(io.BytesIO(_saved({"p": p})))
    assert type(ours["p"]) is nn.Parameter and ours["p"].requires_grad and ours["p"].tolist() == [0.0, 1.0, 2.0]


def test_views_share_one_storage_record_as_torch_saves_them():
    import zipfile
    base = webtorch.arange(12.0).reshape(3, 4)
    data = _saved({"base": base, "col": base[:, 1], "t": base.t(), "row": base[2]})
    assert sum(n.startswith("archive/data/") for n in zipfile.ZipFile(io.BytesIO(data)).namelist()) == 1
    for loaded in (torch.load(io.BytesIO(data)), webtorch.load(io.BytesIO(data), map_location="cpu")):
        assert loaded["col"].tolist() == [1.0, 5.0, 9.0] and loaded["row"].tolist() == [8.0, 9.0, 10.0, 11.0]
        loaded["base"][0, 1] = 100.0
        assert loaded["col"][0].item() == 100.0 and loaded["t"][1, 0].item() == 100.0


def test_whole_module_both_ways_with_torch():
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.BatchNorm1d(3))
    x = webtorch.tensor(X)
    model.eval()
    theirs = torch.load(io.BytesIO(_saved(model)), weights_only=False)
    assert type(theirs) is torch.nn.Sequential and type(theirs[0]) is torch.nn.Linear
    assert type(theirs[0].weight) is torch.nn.Parameter and theirs[0].weight.requires_grad
    np.testing.assert_allclose(theirs(torch.tensor(X)).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)
    back = webtorch.load(io.BytesIO(_saved(theirs, torch.save)), weights_only=False)
    assert type(back) is nn.Sequential and type(back[2]) is nn.BatchNorm1d and not back.training
    np.testing.assert_allclose(back(x).detach().numpy(), model(x).detach().numpy(), rtol=1e-6)


def test_model_and_optimizer_keep_shared_parameters():
    model = nn.Linear(4, 2)
    opt = webtorch.optim.Adam(model.parameters(), lr=0.01)
    model(webtorch.tensor(X)).sum().backward()
    opt.step()
    data = _saved({"model": model, "opt": opt, "arrays": {"a": np.arange(3), "f": np.ones((2, 2))}})
    for loaded, module in ((torch.load(io.BytesIO(data), weights_only=False), torch),
                           (webtorch.load(io.BytesIO(data), weights_only=False), webtorch)):
        assert type(loaded["opt"]) is module.optim.Adam
        assert loaded["opt"].param_groups[0]["params"][0] is loaded["model"].weight
        state = loaded["opt"].state[loaded["model"].weight]
        np.testing.assert_allclose(np.asarray(state["exp_avg"].tolist()),
                                   np.asarray(opt.state[model.weight]["exp_avg"].tolist()))
        assert loaded["arrays"]["a"].tolist() == [0, 1, 2] and loaded["arrays"]["f"].shape == (2, 2)


def _torch_child(code, path):
    env = dict(os.environ, CKPT_NET_TORCH="1", PYTHONPATH=os.path.dirname(ckpt_net.__file__) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_user_model_class_crosses_between_torch_and_webtorch(tmp_path):
    ours = ckpt_net.Net()
    webtorch.save(ours, tmp_path / "ours.pt")
    got = _torch_child(
        "import sys, json, torch, ckpt_net\n"
        f"m = torch.load(sys.argv[1], weights_only=False)\n"
        "assert type(m) is ckpt_net.Net and type(m.head) is torch.nn.Linear, type(m)\n"
        f"out = m(torch.tensor({X})).tolist()\n"
        "torch.save(m, sys.argv[1] + '.back')\n"
        "print(json.dumps({'out': out, 'note': m.note}))", tmp_path / "ours.pt")
    np.testing.assert_allclose(got["out"], ours(webtorch.tensor(X)).tolist(), rtol=1e-5)
    assert got["note"] == {"epochs": 3, "name": "net"}
    back = webtorch.load(str(tmp_path / "ours.pt") + ".back", weights_only=False)
    assert type(back) is ckpt_net.Net and type(back.body[1]) is nn.Tanh
    np.testing.assert_allclose(back(webtorch.tensor(X)).tolist(), got["out"], rtol=1e-5)


def test_weights_only_refuses_other_globals_with_torchs_message():
    data = _saved(torch.nn.Linear(2, 2), torch.save)
    with pytest.raises(CheckpointError) as info:
        webtorch.load(io.BytesIO(data))
    assert isinstance(info.value, __import__("pickle").UnpicklingError)
    assert str(info.value) == _torch_error(data)
    ours = _saved(nn.Linear(2, 2))
    with pytest.raises(CheckpointError, match=r"GLOBAL torch\.nn\.Linear was not an allowed global"):
        webtorch.load(io.BytesIO(ours))
    assert "GLOBAL torch.nn.Linear was not an allowed global" in _torch_error(ours)


def test_safe_globals_allow_listed_classes_load_weights_only():
    data = _saved(torch.nn.Linear(2, 3), torch.save)
    assert get_safe_globals() == []
    with safe_globals([nn.Linear]):
        assert get_safe_globals() == [nn.Linear]
        lin = webtorch.load(io.BytesIO(data))
    assert type(lin) is nn.Linear and lin.weight.shape == (3, 2) and lin(webtorch.ones(1, 2)).shape == (1, 3)
    assert get_safe_globals() == []
    add_safe_globals([nn.Linear])
    try:
        assert type(webtorch.load(io.BytesIO(_saved(nn.Linear(2, 3))))) is nn.Linear
    finally:
        clear_safe_globals()
    with pytest.raises(CheckpointError, match="Unsupported global"):
        webtorch.load(io.BytesIO(data))
    with pytest.raises(TypeError, match="list of classes"):
        add_safe_globals(nn.Linear)


def test_torch_reads_nesting_and_self_reference_like_we_do():
    nested = [webtorch.ones(1)]
    for _ in range(200):
        nested = [nested]
    loop = [webtorch.arange(2.0)]
    loop.append(loop)
    data = _saved({"nested": nested, "loop": loop})
    for loaded in (torch.load(io.BytesIO(data)), webtorch.load(io.BytesIO(data), map_location="cpu")):
        assert loaded["loop"][1] is loaded["loop"] and loaded["loop"][0].tolist() == [0.0, 1.0]
        inner, depth = loaded["nested"], 0
        while isinstance(inner, list):
            inner, depth = inner[0], depth + 1
        assert depth == 201 and inner.tolist() == [1.0]


def test_map_location_forms_move_each_storage_once():
    base = webtorch.arange(6.0)
    data = _saved([base, base[1:3], base[::2]])
    seen = []

    def hook(storage, location):
        seen.append((tuple(storage.shape), location))

    out = webtorch.load(io.BytesIO(data), map_location=hook)
    assert seen == [((6,), "cpu")] and out[2].tolist() == [0.0, 2.0, 4.0]
    out = webtorch.load(io.BytesIO(data), map_location={"cpu": "cpu"})
    out[0][1] = -1.0
    assert out[1][0].item() == -1.0


def test_unseekable_stream_loads():
    class Stream:  # a pipe or a response body: read() only
        def __init__(self, data):
            self._b = io.BytesIO(data)

        def read(self, n=-1):
            return self._b.read(n)

    assert webtorch.load(Stream(_saved({"a": webtorch.arange(3.0)})))["a"].tolist() == [0.0, 1.0, 2.0]
