"""Start-up boilerplate: device probing, backend flags, legacy names, then a few steps of a tiny model."""
import argparse
import json

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

parser = argparse.ArgumentParser(description="probe")
parser.add_argument("--no-accel", action="store_true", help="disables accelerator")
parser.add_argument("--seed", type=int, default=1, metavar="S")
parser.add_argument("--init", default=None)
parser.add_argument("--save-init", default=None)
args = parser.parse_args()

use_accel = not args.no_accel and torch.accelerator.is_available()
torch.manual_seed(args.seed)
if torch.cuda.is_available():
    torch.cuda.manual_seed_all(args.seed)
cudnn.benchmark = True
cudnn.deterministic = False
torch.backends.cuda.matmul.allow_tf32 = True
device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
if torch.backends.mps.is_available():
    device = torch.device("mps")
kwargs = {"num_workers": 1, "pin_memory": True} if torch.cuda.is_available() else {}

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
if args.save_init:
    torch.save(model.state_dict(), args.save_init)
if args.init:
    model.load_state_dict(torch.load(args.init, map_location="cpu"))
if torch.cuda.device_count() > 1:
    model = nn.DataParallel(model)
model = model.to(device)
x = Variable(torch.FloatTensor([[0.1 * i - 0.3 * j for j in range(4)] for i in range(6)])).to(device)
y = torch.LongTensor([i % 2 for i in range(6)]).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
losses = []
for step in range(5):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
with torch.no_grad():
    pred = model(x).argmax(dim=1)
print(f"device={device} cuda={torch.cuda.is_available()} kwargs={kwargs} initial_seed={torch.initial_seed()}")
print("RESULTS", json.dumps({
    "close": {"losses": losses},
    "same": {"pred": pred.tolist(), "type": x.type().split(".")[-1], "is_cuda": x.is_cuda,
             "legacy": isinstance(x.cpu(), torch.FloatTensor) if device.type == "cpu" else True},
    "check": {"loss_falls": losses[-1] < losses[0]},
}))
