"""The examples run as scripts and do what they claim."""
import os
import runpy
import sys
from pathlib import Path

import pytest

EXAMPLES = str(Path(__file__).resolve().parents[2] / "examples")
sys.path.insert(0, EXAMPLES)


def _module(name):
    return runpy.run_path(os.path.join(EXAMPLES, name), run_name="example")


def test_core_regression_recovers_line():
    w, b = _module("core_regression.py")["main"]()
    assert abs(w - 3) < 0.05 and abs(b + 1) < 0.05


def test_r_modules_regression_fits():
    loss = _module("r_modules_regression.py")["main"](epochs=200)
    assert loss < 1.3  # the noise has variance 1


def test_lenet_tutorial_runs_and_learns(capsys):
    losses = _module("lenet_tutorial.py")["main"](steps=20)
    out = capsys.readouterr().out
    assert "Net(\n  (conv1): Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))" in out
    assert "<MseLossBackward0 object at" in out and "<AddmmBackward0 object at" in out
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_digits_classifier_reaches_95_percent(model, device):
    results = _module("digits_classifier.py")["main"](["--device", device, "--models", model, "--epochs", "10"])
    assert results[model] >= 0.95
