"""The JupyterLite site's host-side pieces that need no browser: the kernel's start-up wheels, the lock copy
that names them with their own hashes, the site config, and the `webtorch lite` command line."""
import hashlib
import json

import pytest

from webtorch_devtools import lite_wheels
from webtorch_devtools.cli import main as cli_main
from webtorch_devtools.lite_site import PLUGIN, PYODIDE_URL, site_config


@pytest.fixture(scope="module")
def lock():
    return json.loads(lite_wheels.pyodide_lock_path().read_text())


def test_kernel_closure_has_the_startup_packages_and_their_dependencies(lock):
    closure = lite_wheels.lock_closure(lock)
    assert {"micropip", "ipython", "jedi", "parso", "traitlets", "prompt-toolkit"} <= set(closure)
    for entry in closure.values():  # closed under "depends"
        assert all(lite_wheels.canonical(d) in closure for d in entry["depends"]), entry["name"]
    with pytest.raises(KeyError, match="not in Pyodide's lock"):
        lite_wheels.lock_closure(lock, ["no-such-package"])


def test_patched_lock_names_the_downloaded_files_with_their_sha256(lock):
    found = lite_wheels.wheels(lock=lock)  # scripts/setup.d/lite.sh downloaded them
    closure = lite_wheels.lock_closure(lock)
    lock_wheels = {n: found[f"{e['name']}=={e['version']}"] for n, e in closure.items()}
    webtorch_wheel = lock_wheels["micropip"]  # any wheel file stands in for webtorch's here
    patched = lite_wheels.patched_lock(lock, lock_wheels, extra=[("webtorch", webtorch_wheel, ["webtorch"])])
    by_name = {lite_wheels.canonical(k): v for k, v in patched["packages"].items()}
    for name, path in lock_wheels.items():
        assert by_name[name]["file_name"] == path.name
        assert by_name[name]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert by_name["webtorch"]["imports"] == ["webtorch"] and by_name["webtorch"]["depends"] == []
    assert lock["packages"]["micropip"]["sha256"] != by_name["micropip"]["sha256"]  # Pyodide's build differs
    assert patched["info"] == lock["info"]


def test_site_config_keeps_the_kernel_offline():
    settings = site_config()["jupyter-config-data"]["litePluginSettings"][PLUGIN]
    assert settings["pyodideUrl"] == PYODIDE_URL and PYODIDE_URL.startswith("./")
    assert settings["disablePyPIFallback"] is True
    assert settings["loadPyodideOptions"]["packages"] == ["webtorch", "tqdm"]  # tqdm: what notebook users import
    assert settings["loadPyodideOptions"]["webtorchPackagesURL"] is None  # no package URL unless asked for
    online = site_config("https://cdn.example/pyodide/")["jupyter-config-data"]["litePluginSettings"][PLUGIN]
    assert online["loadPyodideOptions"]["webtorchPackagesURL"] == "https://cdn.example/pyodide/"


def test_lite_serve_refuses_a_folder_that_is_not_a_site(tmp_path, capsys):
    assert cli_main(["lite", "serve", str(tmp_path)]) == 2
    assert "not a JupyterLite site" in capsys.readouterr().err
