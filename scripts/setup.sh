#!/usr/bin/env bash
# Installs everything the tests and the main job need, on a fresh Debian machine (root) or a dev box.
# Idempotent: re-running skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
[ -e /usr/share/vulkan/icd.d/lvp_icd.x86_64.json ] || ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 \
  || need_apt+=(mesa-vulkan-drivers)
command -v zstd >/dev/null 2>&1 || need_apt+=(zstd)  # bench/bench_wheel_size.py recompresses the wheel's archive
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need_apt[@]}"
  else
    echo "setup: please install with apt: ${need_apt[*]}" >&2
    exit 1
  fi
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -r scripts/requirements-dev.txt
# the runtime (webtorch), then the host tooling (webtorch_devtools: the `webtorch` command, the pytest plugin);
# reinstalling the runtime also drops the entry points older checkouts registered on it
.venv/bin/pip install -q --disable-pip-version-check --no-deps -e .
.venv/bin/pip install -q --disable-pip-version-check --no-deps -e py/webtorch_devtools

if [ -f package.json ]; then
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
fi
for extra in scripts/setup.d/*.sh; do
  [ -e "$extra" ] && bash "$extra"
done
echo "setup: done"
