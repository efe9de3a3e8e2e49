"""Make the files the tutorials load that must come from real PyTorch (run with the venv's torch 2.13):

    .venv/bin/python examples/notebooks/make_assets.py

assets/digits_mlp_pytorch.pt: the state_dict of a small MLP (64 -> 32 -> 10) that PyTorch trained on the
8x8 digits of classes 0-4 only, saved with torch.save(model.state_dict()). Tutorial 6 loads it in the page
and fine-tunes it on all ten classes. The train/test split is the one examples/digits_data.py makes, so
the tutorial's test images were never seen in training.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from digits_data import load_digits, train_test_split  # noqa: E402

OUT = os.path.join(HERE, "assets", "digits_mlp_pytorch.pt")
PRETRAIN_CLASSES = 5


class DigitsMLP(torch.nn.Module):
    """The architecture tutorial 6 declares again in webtorch (same attribute names -> same keys)."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def main():
    torch.manual_seed(0)
    x_train, y_train, x_test, y_test = (torch.from_numpy(t.numpy()) for t in train_test_split(*load_digits()))
    keep = y_train < PRETRAIN_CLASSES
    x_train, y_train = x_train[keep], y_train[keep]
    model = DigitsMLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(5):
        perm = torch.randperm(len(x_train))
        for i in range(0, len(x_train), 32):
            idx = perm[i: i + 32]
            loss = torch.nn.functional.cross_entropy(model(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        pred = model(x_test).argmax(1)
    seen = y_test < PRETRAIN_CLASSES
    print(f"test accuracy: classes 0-{PRETRAIN_CLASSES - 1} {(pred[seen] == y_test[seen]).float().mean():.3f}, "
          f"all classes {(pred == y_test).float().mean():.3f}")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    torch.save(model.state_dict(), OUT)
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
