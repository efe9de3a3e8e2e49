"""The GEMM's split across threads (backends/wasm/threads.py) natively: wasmtime has no worker threads, so its
runtime runs the parts one after another -- the row ranges, the operands' offsets and the per-range calls are the
page's (tests/browser/test_wasm_threads_browser.py runs them on real threads); the result must equal the
single-call one bit for bit."""
import pytest
import torch

from webtorch import _dtype as D, _settings
from webtorch.backends.wasm import get_backend, threads

BE = get_backend()
PARALLEL = BE.rt.parallel  # the runtime's own (tests wrap it to count split calls)


@pytest.fixture(autouse=True)
def _no_measured_rates(monkeypatch):
    """Each test starts with no kernel's rates measured: a kernel's first job past MIN_WORK splits."""
    monkeypatch.setattr(threads, "choices", {})


def test_a_choice_takes_the_faster_way_and_tries_the_other_every_explore_jobs():
    c = threads.Choice()
    assert c.threads(2) == 2  # all threads first, then one thread
    c.record(True, 1.0)
    assert c.threads(2) == 1
    c.record(False, 2.0)
    picks = [c.threads(2) for _ in range(2 * threads.EXPLORE)]
    assert picks.count(2) == 2  # one thread faster (a loaded machine): the split only every EXPLORE-th job
    c.record(True, 10.0)  # the load went: split jobs ran faster
    picks = [c.threads(2) for _ in range(threads.EXPLORE)]
    assert picks.count(1) == 1


@pytest.mark.parametrize("rows,parts", [(1, 2), (7, 2), (8, 2), (9, 2), (100, 3), (1024, 2), (17, 8), (64, 16)])
def test_ranges_cover_the_rows_in_aligned_nonempty_ranges(rows, parts):
    ranges = threads.ranges(rows, parts, threads.ROW_ALIGN)
    assert ranges[0][0] == 0 and ranges[-1][1] == rows and len(ranges) <= parts
    assert all(a < b and a % threads.ROW_ALIGN == 0 for a, b in ranges)
    assert all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:]))


def _upload(t):
    return BE.from_buffer(t.contiguous().numpy().tobytes(), tuple(t.shape), getattr(D, str(t.dtype)[6:]))


def _matmul_with(monkeypatch, parts, ha, hb):
    return _with_threads(monkeypatch, parts, lambda: BE.matmul(ha, hb))


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


def test_tall_gemm_goes_in_calls_per_thread_calls(monkeypatch):
    """1600 rows on 3 threads: CALLS_PER_THREAD calls each, of MIN_ROWS+ rows (taken as they come); one call's bits."""
    ha, hb = _handle(torch.randn(1600, 32)), _handle(torch.randn(32, 64))
    one, _ = _matmul_with(monkeypatch, 1, ha, hb)
    split, calls = _matmul_with(monkeypatch, 3, ha, hb)
    assert calls == [3 * threads.CALLS_PER_THREAD] and split == one


def test_set_num_threads_caps_the_split(monkeypatch):
    import webtorch
    ha, hb = _handle(torch.randn(200, 200)), _handle(torch.randn(200, 200))
    cap = _settings._state["num_threads"]
    try:
        webtorch.set_num_threads(1)
        _, calls = _matmul_with(monkeypatch, 3, ha, hb)
        assert calls == []
        webtorch.set_num_threads(2)
        _, calls = _matmul_with(monkeypatch, 3, ha, hb)
        assert calls == [2]  # 200 rows: one call of at least MIN_ROWS per thread
    finally:
        _settings._state["num_threads"] = threads.cap["threads"] = cap


def test_a_kernel_measured_faster_on_one_thread_runs_on_one_unless_set_num_threads_asks(monkeypatch):
    import webtorch
    ha, hb = _handle(torch.randn(200, 200)), _handle(torch.randn(200, 200))
    one, _ = _matmul_with(monkeypatch, 1, ha, hb)
    threads.choices["gemm_batched_f32"] = choice = threads.Choice()
    choice.rate = {True: 1.0, False: 1e15}
    same, calls = _matmul_with(monkeypatch, 3, ha, hb)
    assert calls == [] and same == one
    cap = _settings._state["num_threads"]
    try:
        webtorch.set_num_threads(3)
        split, calls = _matmul_with(monkeypatch, 3, ha, hb)
        assert calls == [3] and split == one
    finally:
        _settings._state["num_threads"] = threads.cap["threads"] = cap


def _with_threads(monkeypatch, parts, run):
    """run()'s bytes with the runtime claiming ``parts`` threads, and the parts of each split call."""
    calls = []
    monkeypatch.setattr(BE.rt, "threads", lambda: parts)
    monkeypatch.setattr(BE.rt, "parallel", lambda name, ps: (calls.append(len(ps)), PARALLEL(name, ps))[1])
    return BE.to_bytes(run()), calls


@pytest.mark.parametrize("groups,stride,padding", [(1, (1, 1), (0, 0)), (2, (2, 1), (1, 2))])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_conv_split_by_samples_equals_one_call_bit_for_bit(monkeypatch, groups, stride, padding, dtype):
    """conv and conv_backward_input split their 7 samples in 3 (each thread with its own im2col scratch)."""
    torch.manual_seed(0)
    x, w = torch.randn(7, 8, 40, 40, dtype=dtype), torch.randn(8, 8 // groups, 5, 5, dtype=dtype)
    bias = torch.randn(8, dtype=dtype)
    hx, hw, hb = _upload(x), _upload(w), _upload(bias)
    args = (stride, padding, (1, 1), groups)
    y = torch.nn.functional.conv2d(x, w, bias, *args)
    hg = _upload(torch.randn_like(y))
    for run in (lambda: BE.conv(hx, hw, hb, *args), lambda: BE.conv_backward_input(hg, hw, tuple(x.shape), *args)):
        one, no_calls = _with_threads(monkeypatch, 1, run)
        split, calls = _with_threads(monkeypatch, 3, run)
        assert no_calls == [] and calls == [3] and split == one
    ours = torch.frombuffer(bytearray(BE.to_bytes(BE.conv(hx, hw, hb, *args))), dtype=dtype).reshape(y.shape)
    torch.testing.assert_close(ours, y, rtol=1e-4, atol=1e-4)
