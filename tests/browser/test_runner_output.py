"""`webtorch run --browser` output: stdout/stderr travel in ordered batches (web/run.js); every line must
arrive, complete and in order, with stdout and stderr interleaved as the script flushed them -- what
``python script.py`` shows on a terminal: both streams line-buffered, so a partial stdout line waits for its
newline -- in the page and in a Web Worker. (Throughput: bench/bench_browser_output.py.)"""
import pytest

SCRIPT = """
import sys
n = int(sys.argv[1])
for i in range(n):
    if i % 7 == 3:
        print(f"e{i}", file=sys.stderr)
    elif i % 11 == 5:
        sys.stdout.write(f"partial {i} ")  # a line written in pieces, across the stream switch
        print(f"e{i}-mid", file=sys.stderr)
        print(f"end {i}")
    else:
        print(f"o{i} " + "y" * (i % 50))
sys.stderr.write("no newline at the end")
"""


def _expected(n):
    events = []
    for i in range(n):
        if i % 7 == 3:
            events.append(("stderr", f"e{i}\n"))
        elif i % 11 == 5:
            events += [("stderr", f"e{i}-mid\n"), ("stdout", f"partial {i} end {i}\n")]  # flushed at the newline
        else:
            events.append(("stdout", f"o{i} " + "y" * (i % 50) + "\n"))
    return events + [("stderr", "no newline at the end")]


def _merged(events):
    """Consecutive pieces of one stream joined: the order of the switches is what must be kept."""
    out = []
    for kind, text in events:
        if out and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + text)
        else:
            out.append((kind, text))
    return out


@pytest.mark.parametrize("worker", [False, True], ids=["page", "worker"])
def test_lines_arrive_complete_in_order_and_interleaved(webtorch_browser_session, tmp_path, worker):
    script = tmp_path / "printer.py"
    script.write_text(SCRIPT)
    n = 20_000
    seen = []
    res = webtorch_browser_session.run(script, [n], worker=worker, timeout=600,
                                       stdout=lambda t: seen.append(("stdout", t)),
                                       stderr=lambda t: seen.append(("stderr", t)))
    assert res.status == 0, res.stderr[-2000:]
    expected = _merged(_expected(n))
    got = _merged(seen)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g == e
    assert res.stdout == "".join(t for k, t in _expected(n) if k == "stdout")
    assert res.stderr == "".join(t for k, t in _expected(n) if k == "stderr")
