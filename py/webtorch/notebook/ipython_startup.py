"""webtorch's hooks on the JupyterLite kernel's IPython shell. The kernel creates its shell after Pyodide boots
(where the site's webtorch-kernel.mjs calls ``install_startup``) and then runs the default profile's startup
files: the one written here installs, once the shell exists, tracebacks without the machinery's frames
(tracebacks.py) and webtorch's docstrings for ``obj?``/``help()`` (ipython_help.py)."""
import os
from pathlib import Path

_STARTUP = "50-webtorch.py"


def install_ipython(shell):
    """Install webtorch's hooks on the IPython ``shell``."""
    from . import ipython_help, tracebacks
    tracebacks.install_ipython(shell)
    ipython_help.install_ipython(shell)


def install_startup(home=None):
    """Write the IPython startup file (the default profile's, under ``home``: default ~) that calls
    ``install_ipython`` on the kernel's shell."""
    startup = Path(home or os.path.expanduser("~")) / ".ipython" / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    (startup / _STARTUP).write_text(f"from {__name__} import install_ipython\ninstall_ipython(get_ipython())\n"
                                    "del install_ipython\n")
