"""Linear regression on a fixed curve, full batch, with train/eval phases and a saved/reloaded model."""
import argparse
import json
import math

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--lr", type=float, default=0.3)
parser.add_argument("--init", default=None)
parser.add_argument("--save-init", default=None)
args = parser.parse_args()
device = "cuda" if torch.cuda.is_available() else "cpu"
device = torch.get_default_device() if device == "cpu" else device

xs = [i / 16.0 for i in range(-16, 16)]
x = torch.tensor([[v, v * v] for v in xs])
y = torch.tensor([[3.0 * v - 0.5 * v * v + 0.1 * math.sin(7 * v) + 2.0] for v in xs])
model = nn.Linear(2, 1)
if args.save_init:
    torch.save(model.state_dict(), args.save_init)
if args.init:
    model.load_state_dict(torch.load(args.init))
model.to(device)
criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=15, gamma=0.5)
history = []
for epoch in range(args.epochs):
    model.train()
    optimizer.zero_grad()
    loss = criterion(model(x.to(device)), y.to(device))
    loss.backward()
    optimizer.step()
    scheduler.step()
    model.eval()
    with torch.no_grad():
        history.append(criterion(model(x), y).item())
w = model.weight.detach().flatten().tolist()
print(f"final loss {history[-1]:.5f} weight {w} lr {scheduler.get_last_lr()[0]}")
print("RESULTS", json.dumps({"close": {"history": history, "weight": w, "bias": model.bias.item()},
                             "same": {"lr": scheduler.get_last_lr()}, "check": {"fits": history[-1] < history[0] / 3}}))
