"""The wheel's webgpu warm-up manifest (webtorch_devtools/warmup.py): the kernels it names are exactly, byte
for byte, ones the backend compiles for an MLP training step, so bridge.js's warmed pipelines are used. The wheel
records them from what it ships (the WGSL files without their comment lines: webtorch_devtools/wgsl_comments.py),
here compared with the sources' kernels, comment lines dropped on both sides."""
import json
import zipfile

from webtorch.backends.webgpu import get_backend
from webtorch_devtools import warmup
from webtorch_devtools.wgsl_comments import without_comment_lines
from webtorch_devtools.wheel import build_wheel


def test_warmup_kernels_are_what_the_backend_compiles_for_an_mlp_step():
    be = get_backend()
    pairs = warmup.warmup_kernels(features=be.rt.features, limits=be.rt.limits, cpu_adapter=be.rt.cpu_adapter)
    names = {name for name, _ in pairs}
    gemm = "matmul_register" if be.rt.cpu_adapter else "matmul_tiled"
    assert {gemm, "softmax_forward", "softmax_backward", "optim_adam_update"} <= names
    warmup._mlp_step()  # the same step on this process's real device
    compiled = set(be.planner.pipelines)
    missing = [name for name, src in pairs if src not in compiled]
    assert not missing, f"warm-up kernels the backend does not compile (sources differ): {missing}"


def test_wheel_carries_a_manifest_per_adapter_class(tmp_path):
    with zipfile.ZipFile(build_wheel(cache_dir=tmp_path)) as z:
        manifest = json.loads(z.read(warmup.MANIFEST))
        assert f"{warmup.MANIFEST}," in z.read(next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))).decode()
    assert set(manifest) == {"kernels", "cpu", "gpu"}
    for name, (features, limits, cpu) in warmup.ADAPTER_CLASSES.items():
        pairs = [(k, without_comment_lines(src)) for k, src in (manifest["kernels"][i] for i in manifest[name])]
        assert pairs == [(k, without_comment_lines(src)) for k, src in warmup.warmup_kernels(features, limits, cpu)]
    # the classes differ where the backend writes CPU-adapter kernels (matmul), and share the rest once
    names = {c: {manifest["kernels"][i][0] for i in manifest[c]} for c in ("cpu", "gpu")}
    assert "matmul_register" in names["cpu"] - names["gpu"] and "matmul_tiled" in names["gpu"] - names["cpu"], names
    assert len(manifest["kernels"]) == len(set(manifest["cpu"]) | set(manifest["gpu"]))
