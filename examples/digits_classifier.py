"""Digits classifier: an MLP and a small CNN on the 8x8 handwritten digits, trained with Adam.

Prints per-epoch loss, test accuracy and time per step; saves the trained weights, reloads them into a
fresh model and checks the reloaded model gives the same accuracy. Runs in CPython (device "cpu" or
"webgpu") and inside Pyodide (`webtorch run --browser examples/digits_classifier.py`).
"""
import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import webtorch as torch  # noqa: E402
from webtorch import nn  # noqa: E402
import webtorch.nn.functional as F  # noqa: E402
from digits_data import load_digits, train_test_split  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        x = x.view(-1, 1, 8, 8)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        pred = model(x).argmax(dim=1)
    model.train()
    return (pred == y).float().mean().item()


def train(model, data, epochs, batch_size, lr, device):
    x_train, y_train, x_test, y_test = data
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    g = torch.Generator(device=device).manual_seed(0)
    n = x_train.shape[0]
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=g, device=device)
        total, steps, t0 = 0.0, 0, time.perf_counter()
        for i in range(0, n, batch_size):
            idx = perm[i: i + batch_size]
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            steps += 1
        dt = (time.perf_counter() - t0) / steps
        acc = accuracy(model, x_test, y_test)
        print(f"  epoch {epoch + 1:2d}  loss {total / steps:.4f}  test acc {acc * 100:5.1f}%  "
              f"{dt * 1000:6.1f} ms/step")
    return accuracy(model, x_test, y_test)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None,
                   help="cpu or webgpu (default: torch.accelerator when there is one -- webgpu in the browser -- "
                        "else cpu)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--models", default="mlp,cnn")
    args = p.parse_args(argv)
    accelerator = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
    device = torch.device(args.device) if args.device else accelerator
    torch.manual_seed(0)
    x, y = load_digits()
    data = tuple(t.to(device) for t in train_test_split(x, y))
    print(f"digits: {data[0].shape[0]} train / {data[2].shape[0]} test images on {device}")
    results = {}
    for name in args.models.split(","):
        model = {"mlp": MLP, "cnn": CNN}[name]().to(device)
        print(f"{name.upper()} ({sum(p.numel() for p in model.parameters())} parameters)")
        acc = train(model, data, args.epochs, args.batch_size, 1e-2 if name == "mlp" else 5e-3, device)
        path = os.path.join(tempfile.gettempdir(), f"digits_{name}.safetensors")
        torch.save(model.state_dict(), path)
        fresh = {"mlp": MLP, "cnn": CNN}[name]().to(device)
        fresh.load_state_dict(torch.load(path, map_location=device))
        reloaded = accuracy(fresh, data[2], data[3])
        print(f"  saved {path}; reloaded model test acc {reloaded * 100:.1f}%")
        if abs(reloaded - acc) > 1e-6:
            raise SystemExit(f"reloaded model differs: {reloaded} vs {acc}")
        results[name] = acc
    return results


if __name__ == "__main__":
    main()
