#!/usr/bin/env bash
# The test command: set up (idempotent), then the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export WEBTORCH_REQUIRE_WEBGPU=1
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
