"""A model class importable under one name by PyTorch and by webtorch (for whole-model checkpoint
cross-tests): CKPT_NET_TORCH=1 builds it on torch, otherwise on webtorch."""
import os

if os.environ.get("CKPT_NET_TORCH") == "1":
    import torch
else:
    import webtorch as torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.LayerNorm(8))
        self.head = torch.nn.Linear(8, 2)
        self.register_buffer("scale", torch.tensor([2.0, 0.5]))
        self.note = {"epochs": 3, "name": "net"}

    def forward(self, x):
        return self.head(self.body(x)) * self.scale
