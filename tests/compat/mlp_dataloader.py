"""A classifier trained from a shuffled DataLoader, with the AMP idiom (disabled off CUDA), a DataParallel
wrapper, and per-epoch evaluation under torch.no_grad()."""
import argparse
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 32)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(32, 3)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def make_data(n):
    xs, ys = [], []
    for i in range(n):
        label = i % 3
        xs.append([math.sin(0.37 * i + k) + 1.5 * (k % 3 == label) for k in range(6)])
        ys.append(label)
    return torch.tensor(xs), torch.tensor(ys)


def evaluate(model, loader, device):
    model.eval()
    total, correct, loss = 0, 0, 0.0
    with torch.no_grad():
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            out = model(data)
            loss += F.cross_entropy(out, target, reduction="sum").item()
            correct += out.argmax(dim=1).eq(target.view_as(out.argmax(dim=1))).sum().item()
            total += len(data)
    return loss / total, correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--init", default=None)
    parser.add_argument("--save-init", default=None)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
    x, y = make_data(120)
    dataset = TensorDataset(x, y)
    train_set, test_set = random_split(dataset, [90, 30], generator=torch.Generator().manual_seed(0))
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=0)
    test_loader = DataLoader(test_set, batch_size=64)
    full_loader = DataLoader(dataset, batch_size=50)  # the split's order is per library: compare on all data
    model = Net()
    if args.save_init:
        torch.save(model.state_dict(), args.save_init)
    if args.init:
        model.load_state_dict(torch.load(args.init, weights_only=True))
    model = nn.DataParallel(model).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.02)
    scaler = torch.amp.GradScaler(device.type, enabled=args.amp)
    first = evaluate(model, full_loader, device)
    for epoch in range(1, args.epochs + 1):
        model.train()
        for batch_idx, (data, target) in enumerate(train_loader):
            data, target = data.to(device), target.to(device)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device.type, dtype=torch.float16, enabled=args.amp):
                loss = F.cross_entropy(model(data), target)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        test_loss, acc = evaluate(model, test_loader, device)
        print(f"epoch {epoch} train loss {loss.item():.4f} test loss {test_loss:.4f} acc {acc:.3f}")
    keys = list(model.state_dict().keys())
    print("RESULTS", json.dumps({"close": {"first_test_loss": first[0]}, "same": {"first_acc": first[1], "keys": keys},
                                 "check": {"learns": evaluate(model, full_loader, device)[0] < first[0], "accurate": acc >= 0.8}}))


if __name__ == "__main__":
    main()
