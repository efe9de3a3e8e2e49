"""What runs inside Pyodide for a browser run (imports ``js``/``pyodide`` inside functions only): ``runner``.
The host side (server, Chromium, sessions, the wheel, the pytest plugin) is the separate package
``webtorch_devtools``, which this runtime never imports.
"""
