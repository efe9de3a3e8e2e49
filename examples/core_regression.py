"""Fit y = 3x - 1 + noise with a hand-written linear model: tensors, autograd and a manual SGD step."""
import webtorch as torch


def main(steps=200, lr=0.1):
    torch.manual_seed(0)
    x = torch.rand(256, 1) * 2 - 1
    y = 3 * x - 1 + 0.05 * torch.randn(256, 1)
    w = torch.zeros(1, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for step in range(steps):
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad = None
        b.grad = None
        if step % 50 == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {loss.item():.5f}")
    print(f"w = {w.item():.3f}, b = {b.item():.3f}")
    return w.item(), b.item()


if __name__ == "__main__":
    main()
