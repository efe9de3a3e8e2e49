#!/usr/bin/env bash
# Browser runs: the pure-Python wheels in-browser pytest needs (Pyodide has no CDN access here, so they are
# downloaded once from PyPI into a git-ignored folder) and the webtorch wheel Pyodide installs.
# Idempotent: a wheel already present is not downloaded again.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=.cache/pyodide-wheels
mkdir -p "$dest"
# Same versions as the venv's pytest, so the host and the browser run the same test machinery.
wheels=(pytest==9.2.0 pluggy==1.7.0 iniconfig==2.3.1 packaging==26.3 pygments==2.21.0)
# a pure-Python package of Pyodide's lock at its version there, which the JupyterLite kernel does not load
# itself: tests/browser/test_lite_site.py serves it from a server standing in for Pyodide's package host
stand_in=(pytz==2026.1.post1)
for spec in "${wheels[@]}" "${stand_in[@]}"; do
  name=${spec%%==*}; ver=${spec##*==}
  if ! ls "$dest"/"${name}"-"${ver}"-*.whl "$dest"/"${name^}"-"${ver}"-*.whl >/dev/null 2>&1; then
    .venv/bin/pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
      --python-version 3.14 --implementation py --abi none --platform any -d "$dest" "$spec"
  fi
done
.venv/bin/python -c "from webtorch_devtools.wheel import build_wheel; print('setup: webtorch wheel', build_wheel())"
