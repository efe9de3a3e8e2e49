"""The page runtime's reading of a module's memory import (runtime_browser.memory_minimum): JS reflection does not
give memory limits, so the page sizes its WebAssembly.Memory from the binary; checked against wasmtime's reading."""
import wasmtime

from webtorch.backends.wasm.runtime import kernels_path
from webtorch.backends.wasm.runtime_browser import memory_minimum


def _wasmtime_minimum(data):
    module = wasmtime.Module(wasmtime.Engine(), data)
    return next(i.type.limits.min for i in module.imports if isinstance(i.type, wasmtime.MemoryType))


def test_kernels_module_minimum():
    data = open(kernels_path(), "rb").read()
    assert memory_minimum(data) == _wasmtime_minimum(data)


def test_memory_import_after_other_imports():
    wat = """(module
      (import "env" "f" (func (param i32)))
      (import "env" "t" (table 2 10 funcref))
      (import "env" "g" (global (mut i32)))
      (import "env" "memory" (memory 300 65536))
      (func (export "k") (result i32) (i32.const 7)))"""
    data = wasmtime.wat2wasm(wat)
    assert memory_minimum(data) == _wasmtime_minimum(data) == 300


def test_module_without_memory_import():
    assert memory_minimum(wasmtime.wat2wasm('(module (func (export "k")))')) == 1
