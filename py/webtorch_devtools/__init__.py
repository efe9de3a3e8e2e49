"""Host-side tooling for webtorch (CPython only; never imported by the runtime package ``webtorch``).

``wheel`` builds the runtime wheel Pyodide installs (through pyproject's build backend, cached by content),
``build_hook`` is that backend's step that adds the webgpu warm-up manifest (``warmup``) to the wheel,
``server`` serves Pyodide, web/ and the wheel on 127.0.0.1 (or a static site, cross-origin isolated where asked),
``chromium`` finds and launches the browser, ``session`` drives one page (or Web Worker) through a run,
``pytest_plugin`` gives tests the same runs, and ``cli`` is the ``webtorch`` command (``webtorch run [--browser]
SCRIPT``; also ``python -m webtorch_devtools``). ``lite_site`` builds the offline JupyterLite site
(``lite_wheels``: the kernel's start-up wheels, ``lite_assets``: its kernel interrupt), ``lite_driver`` drives its
JupyterLab from Playwright, ``lite_cli`` is ``webtorch lite build|serve``.
What runs inside Pyodide stays in the runtime: ``webtorch.browser.runner``.
"""
