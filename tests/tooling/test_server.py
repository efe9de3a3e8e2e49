"""webtorch_devtools.server.Server as a static site (what `webtorch lite serve` and the JupyterLite tests use):
the root folder answers every path no other route claims, a folder serves its index.html, HEAD has no body,
COOP/COEP only where asked, nothing outside the folders is served; with a wheel, the browser-run routes."""
import urllib.error
import urllib.request

import pytest

from webtorch_devtools.server import Server


def _get(url, method="GET"):
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method)) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), b""


@pytest.fixture()
def site(tmp_path):
    (tmp_path / "site" / "lab").mkdir(parents=True)
    (tmp_path / "site" / "lab" / "index.html").write_text("<p>lab</p>")
    (tmp_path / "site" / "a.ipynb").write_text("{}")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x.js").write_text("1")
    (tmp_path / "secret.txt").write_text("no")
    return tmp_path


def test_static_site_cross_origin_isolated(site):
    with Server(roots={"": site / "site", "other": site / "other"}, cross_origin_isolated=True) as server:
        status, headers, body = _get(server.url + "/lab/")
        assert (status, body) == (200, b"<p>lab</p>") and headers["Content-Type"] == "text/html"
        assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"
        assert _get(server.url + "/a.ipynb")[1]["Content-Type"] == "application/json"
        assert _get(server.url + "/other/x.js")[2] == b"1"
        status, headers, body = _get(server.url + "/lab/index.html", "HEAD")
        assert (status, body, headers["Content-Length"]) == (200, b"", "10")
        for bad in ("/../secret.txt", "/lab/../../secret.txt", "/missing.html", "/wheel/webtorch.whl"):
            assert _get(server.url + bad)[0] == 404, bad


def test_without_isolation_and_with_the_browser_run_routes(site):
    (site / "webtorch-0.1.0-py3-none-any.whl").write_bytes(b"PK")
    with Server(site / "webtorch-0.1.0-py3-none-any.whl") as server:
        status, headers, body = _get(server.url + "/wheel/webtorch-0.1.0-py3-none-any.whl")
        assert (status, body) == (200, b"PK") and "Cross-Origin-Embedder-Policy" not in headers
        assert _get(server.url + "/web/loader.js")[0] == 200 and _get(server.url + "/pyodide/pyodide.mjs")[0] == 200
        assert _get(server.url + "/secret.txt")[0] == 404  # no root folder: nothing else is served
