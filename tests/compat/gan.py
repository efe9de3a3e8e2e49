"""A GAN on a 1-D distribution: generator and discriminator with their own optimizers, BCE losses with
detached fakes, label tensors made with torch.full, and the models checkpointed together."""
import argparse
import json

import torch
import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=60)
    parser.add_argument("--nz", type=int, default=4)
    parser.add_argument("--init", default=None)
    parser.add_argument("--save-init", default=None)
    args = parser.parse_args()
    torch.manual_seed(999)
    netG = nn.Sequential(nn.Linear(args.nz, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    netD = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())
    if args.save_init:
        torch.save({"G": netG.state_dict(), "D": netD.state_dict()}, args.save_init)
    if args.init:
        ckpt = torch.load(args.init)
        netG.load_state_dict(ckpt["G"])
        netD.load_state_dict(ckpt["D"])
    criterion = nn.BCELoss()
    optD = torch.optim.Adam(netD.parameters(), lr=0.01, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=0.01, betas=(0.5, 0.999))
    probe = torch.linspace(-1, 5, 7).unsqueeze(1)
    with torch.no_grad():
        d_before = netD(probe).flatten().tolist()
        g_fixed = netG(torch.ones(3, args.nz)).flatten().tolist()
    for i in range(args.iters):
        real = 3.0 + 0.5 * torch.randn(32, 1)
        netD.zero_grad()
        label = torch.full((32,), 1.0)
        errD_real = criterion(netD(real).view(-1), label)
        errD_real.backward()
        fake = netG(torch.randn(32, args.nz))
        label.fill_(0.0)
        errD_fake = criterion(netD(fake.detach()).view(-1), label)
        errD_fake.backward()
        optD.step()
        netG.zero_grad()
        label.fill_(1.0)
        errG = criterion(netD(fake).view(-1), label)
        errG.backward()
        optG.step()
    with torch.no_grad():
        mean = netG(torch.randn(256, args.nz)).mean().item()
    print(f"Loss_D {errD_real.item() + errD_fake.item():.4f} Loss_G {errG.item():.4f} fake mean {mean:.3f}")
    print("RESULTS", json.dumps({"close": {"d_before": d_before, "g_fixed": g_fixed},
                                 "check": {"moves_toward_data": abs(mean - 3.0) < abs(g_fixed[0] - 3.0),
                                           "finite": errG.item() == errG.item()}}))


if __name__ == "__main__":
    main()
