"""`webtorch run [--browser]`: live output, exit status, tracebacks, timeouts, worker mode, missing Chromium."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webtorch_devtools.chromium import ChromiumNotFoundError, find_chromium

from deep_error import DEEP_ERROR, source_frames, webtorch_frames

ROOT = Path(__file__).resolve().parents[2]
WEBTORCH = [sys.executable, "-m", "webtorch_devtools"]


def _script(tmp_path, text, name="script.py"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _run(args, timeout=300, env=None):
    return subprocess.run(WEBTORCH + args, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                          env={**os.environ, **(env or {})})


def test_streams_output_live_and_exits_with_status(tmp_path):
    script = _script(tmp_path, (
        "import sys, time\n"
        "print('first', sys.argv[1:], __name__)\n"
        "print('to stderr', file=sys.stderr)\n"
        "t = time.time()\n"
        "while time.time() - t < 4: pass\n"
        "print('second')\n"
        "sys.exit(3)\n"))
    proc = subprocess.Popen(WEBTORCH + ["run", "--browser", str(script), "a", "--b"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    arrivals = {}
    for line in proc.stdout:
        arrivals[line.strip()] = time.monotonic()
    rc = proc.wait(timeout=300)
    err = proc.stderr.read()
    assert rc == 3, err
    assert "first ['a', '--b'] __main__" in arrivals and "second" in arrivals, arrivals
    assert arrivals["second"] - arrivals["first ['a', '--b'] __main__"] > 2.5  # printed before the loop ended
    assert "to stderr" in err


def test_script_that_raises_shows_traceback(tmp_path):
    script = _script(tmp_path, "def f(x):\n    return x / 0\n\nf(1)\n", name="boom.py")
    r = _run(["run", "--browser", str(script)])
    assert r.returncode == 1
    assert "Traceback (most recent call last)" in r.stderr
    assert 'boom.py", line 4' in r.stderr and 'boom.py", line 2, in f' in r.stderr
    assert r.stderr.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "runpy" not in r.stderr and "runner.py" not in r.stderr


def test_traceback_through_webtorch_names_its_lines(tmp_path):
    """The wheel's bytecode has no line tables until webtorch/_line_tables.py restores them: the runner restores
    them before it prints the traceback, whose webtorch frames name the lines CPython names from the sources."""
    r = _run(["run", "--browser", str(_script(tmp_path, DEEP_ERROR, name="deep.py"))])
    assert r.returncode == 1 and "RuntimeError" in r.stderr, r.stderr
    assert webtorch_frames(r.stderr) == source_frames(), r.stderr


def test_tqdm_bars_are_text_lines(tmp_path):
    """PyPI's tqdm ships with run --browser as with the notebook sites: its bars are lines on its stream (stderr,
    or file=), the last state of each bar last; nothing tqdm writes for terminals (carriage returns, warnings)."""
    script = _script(tmp_path, (
        "import sys, time\n"
        "from tqdm import tqdm, trange\n"
        "from tqdm.auto import tqdm as auto_tqdm\n"
        "for i in trange(3, desc='epochs'):\n"
        "    for _ in auto_tqdm(range(4), desc=f'epoch {i}', leave=False):\n"
        "        time.sleep(0.2)\n"
        "with tqdm(total=5, desc='to stdout', file=sys.stdout) as bar:\n"
        "    bar.update(5)\n"
        "    bar.set_postfix(loss=0.25)\n"
        "print('done', type(bar).__mro__[1].__module__)\n"), name="bars.py")
    r = _run(["run", "--browser", str(script)])
    assert r.returncode == 0, r.stderr
    assert "\r" not in r.stderr + r.stdout and "Warning" not in r.stderr, (r.stdout, r.stderr)
    err = r.stderr.splitlines()
    assert err[0].startswith("epochs:   0%|") and err[-1].startswith("epochs: 100%|") and "3/3" in err[-1], err
    assert any(line.startswith("epoch 1:") for line in err), err  # the inner bars, live (leave=False: not kept)
    assert all(a != b for a, b in zip(err, err[1:])), err  # a bar closing in the state just written adds no line
    out = r.stdout.splitlines()
    assert out[0].startswith("to stdout:   0%|") and out[-2].startswith("to stdout: 100%|"), out
    assert "5/5" in out[-2] and "loss=0.25" in out[-2] and out[-1] == "done tqdm.asyncio", out


def test_infinite_loop_times_out(tmp_path):
    script = _script(tmp_path, "print('looping', flush=True)\nwhile True:\n    pass\n")
    t0 = time.monotonic()
    r = _run(["run", "--browser", "--timeout", "45", str(script)])
    assert r.returncode == 124
    assert "looping" in r.stdout  # the timeout hit the loop, not the boot
    assert "did not finish within 45 s (--timeout)" in r.stderr
    assert time.monotonic() - t0 < 120


def test_worker_mode_runs_in_a_web_worker(tmp_path):
    script = _script(tmp_path, (
        "import js\n"
        "import webtorch as torch\n"
        "print('window:', js.eval('typeof window'), 'worker:', js.eval('typeof WorkerGlobalScope'))\n"
        "x = torch.arange(6, dtype=torch.float32, device='cuda').reshape(2, 3)\n"
        "print(torch.get_default_device(), torch.cuda.is_available(), x.device.type, (x * 2).sum(dim=1).tolist())\n"))
    # --cuda webgpu: "cuda" names webgpu even on this CPU-fallback adapter (auto would leave it off here)
    r = _run(["run", "--browser", "--worker", "--cuda", "webgpu", str(script)])
    assert r.returncode == 0, r.stderr
    assert "window: undefined worker: function" in r.stdout
    assert "cpu True webgpu [6.0, 24.0]" in r.stdout


def test_missing_chromium_is_a_clear_error(tmp_path):
    script = _script(tmp_path, "print('never')\n")
    r = _run(["run", "--browser", str(script)], env={"WEBTORCH_CHROMIUM": str(tmp_path / "no-chromium")})
    assert r.returncode == 2
    assert "WEBTORCH_CHROMIUM=" in r.stderr and "apt-get install chromium" in r.stderr
    assert "never" not in r.stdout


def test_find_chromium_when_none_exists(tmp_path):
    with pytest.raises(ChromiumNotFoundError, match="no Chromium found.*playwright install chromium"):
        find_chromium(environ={"PATH": str(tmp_path)}, system_paths=(str(tmp_path / "chromium"),),
                      playwright=lambda: None)
    exe = tmp_path / "chrome"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert find_chromium(environ={"WEBTORCH_CHROMIUM": str(exe)}) == str(exe)
    assert find_chromium(environ={"PATH": str(tmp_path)}, system_paths=(), path_names=("chrome",),
                         playwright=lambda: None) == str(exe)


def test_run_without_browser_uses_cpython(tmp_path):
    script = _script(tmp_path, "import sys\nprint(sys.platform != 'emscripten', sys.argv[1:], __name__)\n")
    r = subprocess.run([str(ROOT / ".venv" / "bin" / "webtorch"), "run", str(script), "x"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "True ['x'] __main__\n"


def test_browser_only_flags_need_browser(tmp_path):
    r = _run(["run", "--worker", str(_script(tmp_path, "pass\n"))])
    assert r.returncode == 2 and "need --browser" in r.stderr
    r = _run(["run", "--cuda", "webgpu", str(_script(tmp_path, "pass\n"))])
    assert r.returncode == 2 and "need --browser" in r.stderr and "WEBTORCH_CUDA=webgpu" in r.stderr
