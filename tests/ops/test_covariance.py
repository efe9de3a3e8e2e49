"""cov and corrcoef against PyTorch: values and gradients."""

from optest import check, check_error, rand, randint


def test_cov_corrcoef(device):
    x = rand(3, 8)
    check(lambda m, t: m.cov(t), x, device=device)
    check(lambda m, t: t.cov(correction=0), x, device=device)
    check(lambda m, t: m.cov(t), rand(8), device=device)
    check(lambda m, t, a: m.cov(t, fweights=m.tensor([1, 2, 3, 1, 1, 2, 1, 4], device=t.device), aweights=a), x,
          rand(8, low=0.1, high=1), device=device)
    check(lambda m, t: m.cov(t, fweights=m.tensor([1, 2, 3, 1, 1, 2, 1, 4], device=t.device), correction=0), x,
          device=device)
    check(lambda m, t: m.corrcoef(t), x, device=device)
    check(lambda m, t: t.corrcoef(), rand(6), device=device)
    check(lambda m, t: m.corrcoef(t), randint(0, 9, 2, 5), device=device)
    check_error(lambda m, t: m.cov(t), rand(2, 2, 2), device=device, match="two or fewer dimensions")
    check_error(lambda m, t, w: m.cov(t, fweights=w), x, rand(8), device=device, match="integral dtype")
    check_error(lambda m, t, w: m.cov(t, aweights=w), x, randint(0, 3, 8), device=device,
                match="floating point dtype")
