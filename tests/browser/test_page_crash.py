"""A renderer that crashes under `webtorch run --browser`: booted again when nothing of the script had run yet (a
machine under memory pressure can lose a page while Pyodide boots), reported with its moment when the script ran
(its side effects may have happened: never run twice). The crash is Chromium's own: a navigation to chrome://crash."""


def _crash(page):
    try:
        page.goto("chrome://crash", timeout=60_000)
    except Exception:  # noqa: BLE001 -- the navigation fails with the renderer
        pass


def test_crash_while_booting_boots_again(webtorch_browser_session, tmp_path, monkeypatch):
    session = webtorch_browser_session
    script = tmp_path / "hello.py"
    script.write_text("print('hello from', __name__)\n")
    pages = []

    def start(page, cfg):
        pages.append(page)
        if len(pages) == 1:
            _crash(page)  # before webtorchStart: Pyodide has not booted, the script has not started
        else:
            type(session)._start(page, cfg)

    monkeypatch.setattr(session, "_start", start)
    res = session.run(script, timeout=300)
    assert res.status == 0 and res.stdout == "hello from __main__\n", (res.stdout, res.stderr)
    assert "crashed" not in res.stderr and res.timings["boot_attempts"] == 2 and len(pages) == 2


def test_crash_while_the_script_runs_is_reported_not_rerun(webtorch_browser_session, tmp_path, monkeypatch):
    session = webtorch_browser_session
    script = tmp_path / "side_effect.py"
    script.write_text(
        "import time\n"
        "from webtorch.browser.runner import report\n"
        "print('side effect', flush=True)\n"
        "report('crash-me', '')\n"
        "time.sleep(30)\n"
        "print('never')\n")
    pages = []

    def start(page, cfg):
        pages.append(page)
        type(session)._start(page, cfg)

    monkeypatch.setattr(session, "_start", start)
    res = session.run(script, timeout=300,
                      on_report=lambda kind, text: kind == "crash-me" and _crash(pages[-1]))
    assert res.status == 1 and "never" not in res.stdout, (res.stdout, res.stderr)
    assert res.stdout.count("side effect") == 1 and len(pages) == 1 and res.timings["boot_attempts"] == 1
    assert "webtorch: the browser page crashed while the script ran" in res.stderr, res.stderr
