"""The main job's path, shortened: the digits classifier trains inside Pyodide on the browser's WebGPU."""
import re
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "digits_classifier.py"


def test_digits_classifier_trains_in_browser(webtorch_browser):
    r = webtorch_browser.run(EXAMPLE, "--device", "webgpu", "--epochs", "2", "--models", "mlp,cnn", timeout=900)
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    assert "images on webgpu" in r.stdout
    epochs = re.findall(r"epoch\s+\d+\s+loss ([\d.]+)\s+test acc\s+([\d.]+)%", r.stdout)
    losses, accs = [float(x) for x, _ in epochs], [float(a) for _, a in epochs]
    assert len(accs) == 4 and accs[1] > 85 and accs[3] > 75, r.stdout  # MLP, then CNN, 2 epochs each
    assert losses[1] < losses[0] and losses[3] < losses[2], r.stdout
    assert r.stdout.count("reloaded model test acc") == 2
