"""The regression network of the R torch "Modules" chapter, with nn.Sequential/nn.Linear and Adam.

R original (torch for R): a two-layer net fit to y = 0.2 x1 - 1.3 x2 - 0.5 x3 + noise; here with webtorch's
R-style factory (`nn.module`) for the network and the PyTorch-style optimizer loop.
"""
import webtorch as torch
from webtorch import nn



def initialize(self, d_in, d_hidden, d_out):
    self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out))


def forward(self, x):
    return self.net(x)


net_factory = nn.module("regression_net", initialize=initialize, forward=forward)


def main(epochs=200):
    torch.manual_seed(777)
    n, d_in, d_hidden, d_out = 100, 3, 32, 1
    x = torch.randn(n, d_in)
    y = x[:, 0:1] * 0.2 - x[:, 1:2] * 1.3 - x[:, 2:3] * 0.5 + torch.randn(n, 1)
    model = net_factory(d_in, d_hidden, d_out)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for t in range(1, epochs + 1):
        loss = nn.functional.mse_loss(model(x), y)
        if t % 40 == 0:
            print(f"Epoch: {t}   Loss: {loss.item():.4f}")
        opt.zero_grad()
        loss.backward()
        opt.step()
    nn.summary(model)
    return loss.item()


if __name__ == "__main__":
    main()
