"""The wheels a JupyterLite Pyodide kernel loads at start-up, for an offline site (and the pure-Python
libraries notebook users import, which the notebook app ships too: ``user_wheels``).

The npm pyodide package holds no package wheels, and the kernel's start-up loads micropip from Pyodide's
lock, then piplite-installs ipykernel, comm, pyodide-kernel, jedi and ipython (the last two and their
dependencies from the lock, comm from the piplite index). Their pure-Python wheels are on PyPI at the
lock's versions; ``download`` fetches them once (scripts/setup.d/lite.sh) into a git-ignored cache, and
``patched_lock`` gives a copy of pyodide-lock.json that names those files with their own sha256 (Pyodide's
builds of the same versions hash differently, and a mismatch fails the fetch).

    python -m webtorch_devtools.lite_wheels     # download what is missing (idempotent)
"""
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

# what the kernel worker (jupyterlite-pyodide-kernel 0.8.6) loads from Pyodide's lock at start-up, dependencies
# come along; webtorch itself needs nothing from the lock
KERNEL_LOCK_PACKAGES = ("micropip", "ipython", "jedi")
# pure-Python packages notebook users import, at the versions of Pyodide's lock: both notebook sites ship them
# (the JupyterLite kernel loads them at boot, the app installs them at kernel start)
USER_LOCK_PACKAGES = ("tqdm",)
# start-up needs not in Pyodide's lock: served from the site's piplite index
PIPLITE_PACKAGES = ("comm==0.2.3",)


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def repo_root():
    return Path(__file__).resolve().parents[2]


def pyodide_lock_path():
    return repo_root() / "node_modules" / "pyodide" / "pyodide-lock.json"


def cache_dir():
    return repo_root() / ".cache" / "lite-wheels"


def lock_closure(lock, names=KERNEL_LOCK_PACKAGES + USER_LOCK_PACKAGES):
    """The lock's entries for ``names`` and everything they depend on, by canonical name."""
    by_name = {canonical(k): v for k, v in lock["packages"].items()}
    out, todo = {}, [canonical(n) for n in names]
    while todo:
        n = todo.pop()
        if n in out:
            continue
        if n not in by_name:
            raise KeyError(f"{n} is not in Pyodide's lock file")
        out[n] = by_name[n]
        todo.extend(canonical(d) for d in by_name[n]["depends"])
    return out


def required_specs(lock):
    """``name==version`` of every wheel the site carries (lock closure + piplite extras), sorted."""
    return sorted([f"{e['name']}=={e['version']}" for e in lock_closure(lock).values()] + list(PIPLITE_PACKAGES))


def find_wheel(folder, spec):
    """The downloaded wheel for ``name==version`` in ``folder``, or None."""
    name, version = spec.split("==")
    for p in Path(folder).glob("*.whl"):
        dist, ver = p.name.split("-")[:2]
        if canonical(dist) == canonical(name) and ver == version:
            return p
    return None


def download(dest=None, lock_path=None):
    """Download every missing wheel of ``required_specs`` from PyPI into ``dest``; returns their paths."""
    dest = Path(dest or cache_dir())
    dest.mkdir(parents=True, exist_ok=True)
    lock = json.loads(Path(lock_path or pyodide_lock_path()).read_text())
    specs = required_specs(lock)
    missing = [s for s in specs if find_wheel(dest, s) is None]
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                        "--only-binary=:all:", "--python-version", "3.14", "--implementation", "py", "--abi", "none",
                        "--platform", "any", "-d", str(dest), *missing], check=True)
    return [find_wheel(dest, s) for s in specs]


def wheels(folder=None, lock=None):
    """{spec: path} of the downloaded wheels; raises naming the set-up step when one is missing."""
    folder = Path(folder or cache_dir())
    lock = lock or json.loads(pyodide_lock_path().read_text())
    found = {s: find_wheel(folder, s) for s in required_specs(lock)}
    missing = [s for s, p in found.items() if p is None]
    if missing:
        raise FileNotFoundError(f"the JupyterLite kernel's wheels {missing} are missing from {folder}: run "
                                "scripts/setup.sh (scripts/setup.d/lite.sh downloads them from PyPI)")
    return found


def user_wheels(folder=None):
    """Paths of the downloaded wheels of USER_LOCK_PACKAGES and their dependencies."""
    lock = json.loads(pyodide_lock_path().read_text())
    found = wheels(folder, lock)
    return [found[f"{e['name']}=={e['version']}"] for e in lock_closure(lock, USER_LOCK_PACKAGES).values()]


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def patched_lock(lock, lock_wheels, extra=()):
    """A copy of ``lock`` whose entries for ``lock_wheels`` ({canonical name: path}) name those files and their
    sha256; ``extra``: (name, wheel path, import names) added as new pure-Python packages."""
    lock = json.loads(json.dumps(lock))
    by_name = {canonical(k): k for k in lock["packages"]}
    for name, path in lock_wheels.items():
        entry = lock["packages"][by_name[name]]
        entry.update(file_name=Path(path).name, sha256=sha256(path))
    for name, path, imports in extra:
        version = Path(path).name.split("-")[1]
        lock["packages"][name] = {"name": name, "version": version, "file_name": Path(path).name,
                                  "install_dir": "site", "sha256": sha256(path), "package_type": "package",
                                  "imports": list(imports), "depends": [], "unvendored_tests": False, "tool": {}}
    return lock


if __name__ == "__main__":
    for p in download():
        print(p.name)
