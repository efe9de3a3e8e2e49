"""The page runtime's reading of a WebAssembly binary (runtime_browser.module_facts): JS's reflection gives neither
a memory import's limits nor parameter types, so the page reads the memory's minimum and which exports take i64
(a BigInt in JS) from the binary; checked against wasmtime's reading."""
import wasmtime

from webtorch.backends.wasm.runtime import kernels_path
from webtorch.backends.wasm.runtime_browser import module_facts


def _wasmtime_facts(data):
    module = wasmtime.Module(wasmtime.Engine(), data)
    memory = [i.type.limits.min for i in module.imports if isinstance(i.type, wasmtime.MemoryType)]
    i64 = {}
    for e in module.exports:
        if isinstance(e.type, wasmtime.FuncType):
            at = [i for i, p in enumerate(e.type.params) if str(p) == "i64"]
            if at:
                i64[e.name] = at
    return (memory[0] if memory else 1), i64


def test_kernels_module():
    data = open(kernels_path(), "rb").read()
    assert module_facts(data) == _wasmtime_facts(data)


def test_imports_of_every_kind_and_i64_parameters():
    wat = """(module
      (import "env" "f" (func (param i32)))
      (import "env" "t" (table 2 10 funcref))
      (import "env" "g" (global (mut i32)))
      (import "env" "memory" (memory 300 65536))
      (func (export "k") (param i32 i64 f64 i64) (result i64) (local.get 1))
      (func (export "plain") (param i32) (result i32) (local.get 0)))"""
    data = wasmtime.wat2wasm(wat)
    assert module_facts(data) == _wasmtime_facts(data) == (300, {"k": [1, 3]})


def test_module_without_memory_import():
    assert module_facts(wasmtime.wat2wasm('(module (func (export "k")))')) == (1, {})
