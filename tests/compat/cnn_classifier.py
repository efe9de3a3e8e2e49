"""A small CNN (Conv2d, BatchNorm2d, MaxPool2d, Dropout2d, log_softmax + nll_loss) trained on fixed
batches, with train()/eval() switching and torch.inference_mode() for prediction."""
import argparse
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.bn1 = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.dropout1 = nn.Dropout2d(0.0)
        self.fc1 = nn.Linear(8 * 2 * 2, 2)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = self.dropout1(x)
        return F.log_softmax(self.fc1(torch.flatten(x, 1)), dim=1)


def images(n):
    """Horizontal vs vertical stripes, 8x8, with a phase that varies per image."""
    out, labels = [], []
    for i in range(n):
        label = i % 2
        img = [[0.5 + 0.5 * math.cos((c if label else r) * 1.6 + 0.4 * i) for c in range(8)] for r in range(8)]
        out.append([img])
        labels.append(label)
    return torch.tensor(out), torch.tensor(labels)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--init", default=None)
    parser.add_argument("--save-init", default=None)
    args = parser.parse_args()
    torch.manual_seed(1)
    x, y = images(16)
    model = Net()
    if args.save_init:
        torch.save(model.state_dict(), args.save_init)
    if args.init:
        model.load_state_dict(torch.load(args.init))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for epoch in range(args.epochs):
        model.train()
        for b in range(0, 16, 8):
            optimizer.zero_grad()
            loss = F.nll_loss(model(x[b:b + 8]), y[b:b + 8])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    model.eval()
    with torch.inference_mode():
        out = model(x)
        pred = out.argmax(dim=1, keepdim=True)
        correct = pred.eq(y.view_as(pred)).sum().item()
    print(f"losses {losses[0]:.4f} -> {losses[-1]:.4f}; {correct}/16 correct")
    print("RESULTS", json.dumps({"close": {"losses": losses, "running_var": model.bn1.running_var.tolist()},
                                 "same": {"batches_tracked": model.bn1.num_batches_tracked.item()},
                                 "check": {"learns": losses[-1] < losses[0]}}))


if __name__ == "__main__":
    main()
