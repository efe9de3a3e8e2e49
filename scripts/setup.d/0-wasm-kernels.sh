#!/usr/bin/env bash
# The WebAssembly kernels (device "cpu" in the page; backends/wasm): Debian's clang-14 + lld-14 compile
# wasm-kernels/*.c for wasm32 (libm from wasi-libc, builtins from libclang-rt-14-dev-wasm32) into
# py/webtorch/backends/wasm/kernels.wasm. Named "0-..." so it runs before browser.sh packs that file into the wheel.
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
[ -x /usr/lib/llvm-14/bin/clang ] || need+=(clang-14)
[ -x /usr/lib/llvm-14/bin/wasm-ld ] || need+=(lld-14)
[ -e /usr/lib/wasm32-wasi/libm.a ] || need+=(wasi-libc)
[ -e /usr/lib/llvm-14/lib/clang/14.0.6/lib/wasi/libclang_rt.builtins-wasm32.a ] || need+=(libclang-rt-14-dev-wasm32)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
  else
    echo "setup: please install with apt: ${need[*]}" >&2
    exit 1
  fi
fi
.venv/bin/python scripts/build_wasm_kernels.py
