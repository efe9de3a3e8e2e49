"""`--packages-url [URL]` of `webtorch notebook --build` (and run --browser, lite build): off by default; without a
value, Pyodide's own package host for the Pyodide version the site ships."""
import json

import pytest

from webtorch_devtools.cli import main as cli_main
from webtorch_devtools.server import pyodide_dir


def _config(tmp_path, *flags):
    site = tmp_path / "site"
    assert cli_main(["notebook", "--build", str(site), *flags]) == 0
    return json.loads((site / "notebook-config.json").read_text())


def test_a_site_is_offline_unless_asked(tmp_path):
    config = _config(tmp_path)
    assert config["packagesURL"] is None
    assert [u.split("/")[-1] for u in config["wheelURLs"]] == ["tqdm-4.67.3-py3-none-any.whl"]
    assert (tmp_path / "site" / "wheels" / "tqdm-4.67.3-py3-none-any.whl").is_file()


def test_the_flag_alone_names_pyodides_host_for_its_version(tmp_path):
    version = json.loads((pyodide_dir() / "package.json").read_text())["version"]
    assert _config(tmp_path, "--packages-url")["packagesURL"] == f"https://cdn.jsdelivr.net/pyodide/v{version}/full/"
    assert _config(tmp_path, "--packages-url", "https://mirror.example/pyodide/")["packagesURL"] == \
        "https://mirror.example/pyodide/"


def test_run_needs_browser_for_the_flag(capsys):
    with pytest.raises(SystemExit) as e:
        cli_main(["run", "--packages-url", "https://mirror.example/", "x.py"])
    assert e.value.code == 2 and "--packages-url and --cuda need --browser" in capsys.readouterr().err
