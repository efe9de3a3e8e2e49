"""The GEMM's split across threads (backends/wasm/threads.py) natively: wasmtime has no worker threads, so its
runtime runs the parts one after another -- the row ranges, the operands' offsets and the per-range calls are the
page's (tests/browser/test_wasm_threads_browser.py runs them on real threads); the result must equal the
single-call one bit for bit."""
import pytest
import torch

from webtorch import _dtype as D
from webtorch.backends.wasm import get_backend, threads

BE = get_backend()
PARALLEL = BE.rt.parallel  # the runtime's own (tests wrap it to count split calls)


@pytest.mark.parametrize("rows,parts", [(1, 2), (7, 2), (8, 2), (9, 2), (100, 3), (1024, 2), (17, 8), (64, 16)])
def test_row_ranges_cover_the_rows_in_aligned_nonempty_ranges(rows, parts):
    ranges = threads.row_ranges(rows, parts)
    assert ranges[0][0] == 0 and ranges[-1][1] == rows and len(ranges) <= parts
    assert all(a < b and a % threads.ROW_ALIGN == 0 for a, b in ranges)
    assert all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:]))


def _upload(t):
    return BE.from_buffer(t.contiguous().numpy().tobytes(), tuple(t.shape), getattr(D, str(t.dtype)[6:]))


def _matmul_with(monkeypatch, parts, ha, hb):
    """BE.matmul(ha, hb)'s bytes with the runtime claiming ``parts`` threads, and the parts of each split call."""
    calls = []
    monkeypatch.setattr(BE.rt, "threads", lambda: parts)
    monkeypatch.setattr(BE.rt, "parallel", lambda name, ps: (calls.append(len(ps)), PARALLEL(name, ps))[1])
    return BE.to_bytes(BE.matmul(ha, hb)), calls


CASES = {  # name: (a, b), past MIN_WORK multiply-adds; transposed operands are strided views
    "square": lambda dt: (torch.randn(160, 160, dtype=dt), torch.randn(160, 160, dtype=dt)),
    "odd sizes": lambda dt: (torch.randn(333, 97, dtype=dt), torch.randn(97, 259, dtype=dt)),
    "a transposed": lambda dt: (torch.randn(97, 333, dtype=dt).t(), torch.randn(97, 259, dtype=dt)),
    "b transposed": lambda dt: (torch.randn(333, 97, dtype=dt), torch.randn(259, 97, dtype=dt).t()),
    "batched": lambda dt: (torch.randn(3, 75, 130, dtype=dt), torch.randn(3, 130, 90, dtype=dt)),
    "batch folded into rows": lambda dt: (torch.randn(3, 75, 130, dtype=dt), torch.randn(130, 90, dtype=dt)),
    "few rows": lambda dt: (torch.randn(13, 700, dtype=dt), torch.randn(700, 300, dtype=dt)),
}


def _handle(t):
    """A wasm handle of t's values with t's strides when t is a transposed view."""
    if t.dim() == 2 and not t.is_contiguous():
        return BE.permute(_upload(t.t()), (1, 0))
    return _upload(t)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_split_gemm_equals_one_call_bit_for_bit(monkeypatch, case, dtype):
    torch.manual_seed(0)
    a, b = CASES[case](dtype)
    assert a.numel() * b.shape[-1] >= threads.MIN_WORK
    ha, hb = _handle(a), _handle(b)
    one, no_calls = _matmul_with(monkeypatch, 1, ha, hb)
    split, calls = _matmul_with(monkeypatch, 3, ha, hb)
    assert no_calls == [] and calls and calls[0] >= 2
    assert split == one
    ours = torch.frombuffer(bytearray(one), dtype=dtype).reshape((a @ b).shape)
    torch.testing.assert_close(ours, a @ b, rtol=1e-4, atol=1e-4)
