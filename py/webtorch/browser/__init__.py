"""webtorch in the browser: running Python scripts and tests inside Pyodide in headless Chromium.

Host side (CPython; never imports ``js``): ``wheel`` builds the webtorch wheel Pyodide installs,
``server`` serves Pyodide, web/ and the wheel on 127.0.0.1, ``chromium`` finds and launches the
browser, ``session`` drives one page (or Web Worker) through a run, ``pytest_plugin`` gives tests the
same runs. Pyodide side (imports ``js``/``pyodide`` inside functions only): ``runner``.
"""
