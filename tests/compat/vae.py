"""A variational autoencoder: reparameterised sampling in training, the KL term, Adam, evaluation on the
posterior mean, and decoding samples from the prior."""
import argparse
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, d=16, h=32, z=4):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.fc21 = nn.Linear(h, z)
        self.fc22 = nn.Linear(h, z)
        self.fc3 = nn.Linear(z, h)
        self.fc4 = nn.Linear(h, d)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar) if self.training else mu
        return self.decode(z), mu, logvar


def loss_function(recon, x, mu, logvar):
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--init", default=None)
    parser.add_argument("--save-init", default=None)
    args = parser.parse_args()
    torch.manual_seed(0)
    x = torch.tensor([[0.5 + 0.5 * math.sin(0.3 * i * (k + 1)) for k in range(16)] for i in range(32)])
    model = VAE()
    if args.save_init:
        torch.save(model.state_dict(), args.save_init)
    if args.init:
        model.load_state_dict(torch.load(args.init))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)

    def test_loss():
        model.eval()
        with torch.no_grad():
            recon, mu, logvar = model(x)
            return loss_function(recon, x, mu, logvar).item() / len(x)
    first = test_loss()
    for epoch in range(args.epochs):
        model.train()
        optimizer.zero_grad()
        recon, mu, logvar = model(x)
        loss = loss_function(recon, x, mu, logvar)
        loss.backward()
        optimizer.step()
    last = test_loss()
    with torch.no_grad():
        sample = model.decode(torch.randn(5, 4))
    print(f"test loss {first:.4f} -> {last:.4f}; samples {tuple(sample.shape)}")
    print("RESULTS", json.dumps({"close": {"first_test_loss": first},
                                 "same": {"sample_shape": list(sample.shape)},
                                 "check": {"learns": last < first, "in_range": bool(((sample >= 0) & (sample <= 1)).all())}}))


if __name__ == "__main__":
    main()
