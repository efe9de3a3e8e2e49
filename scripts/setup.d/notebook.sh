#!/usr/bin/env bash
# The notebook app's libraries (CodeMirror, markdown-it, KaTeX, uPlot, DOMPurify from node_modules) bundled by
# esbuild into the git-ignored web/notebook/build/. `webtorch notebook` rebuilds it when stale, so this is only a head start.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -c "from webtorch_devtools.notebook_app import build_bundle; print('setup: notebook app bundle', build_bundle())"
