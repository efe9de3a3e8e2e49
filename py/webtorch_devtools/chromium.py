"""Find Chromium and launch it headless with WebGPU (the flags below; see the comment on FLAGS)."""
import os
import shutil

# --enable-unsafe-webgpu gives navigator.gpu in headless Chromium (SwiftShader when there is no GPU);
# the rest keep a root, offline, headless run from phoning home or sandboxing itself out of existence.
FLAGS = ("--no-sandbox", "--enable-unsafe-webgpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-quic")
SYSTEM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome")

INSTALL_HINT = ("install one: `apt-get install chromium` (Debian/Ubuntu), or `python -m playwright install chromium`, "
                "or point WEBTORCH_CHROMIUM at a Chromium/Chrome executable")


class ChromiumNotFoundError(RuntimeError):
    pass


def _executable(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def playwright_chromium():
    """Path of Playwright's own downloaded Chromium, or None."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    try:
        with sync_playwright() as p:
            path = p.chromium.executable_path
    except Exception:  # noqa: BLE001 -- no driver / no browser downloaded: "not found"
        return None
    return path if _executable(path) else None


def find_chromium(environ=None, system_paths=SYSTEM_PATHS, path_names=PATH_NAMES, playwright=playwright_chromium):
    """The Chromium to drive: $WEBTORCH_CHROMIUM, then the system's, then Playwright's own."""
    environ = os.environ if environ is None else environ
    chosen = environ.get("WEBTORCH_CHROMIUM")
    if chosen:
        if not _executable(chosen):
            raise ChromiumNotFoundError(f"WEBTORCH_CHROMIUM={chosen} is not an executable file; {INSTALL_HINT}")
        return chosen
    for p in system_paths:
        if _executable(p):
            return p
    for name in path_names:
        p = shutil.which(name, path=environ.get("PATH"))
        if p:
            return p
    p = playwright()
    if p:
        return p
    raise ChromiumNotFoundError(f"no Chromium found (looked at $WEBTORCH_CHROMIUM, {', '.join(system_paths)}, "
                                f"{'/'.join(path_names)} on PATH, Playwright's browsers); {INSTALL_HINT}")


def launch(playwright, executable=None, headless=True):
    """A Playwright Browser: Chromium with WebGPU enabled."""
    return playwright.chromium.launch(executable_path=executable or find_chromium(), headless=headless,
                                      args=list(FLAGS))
