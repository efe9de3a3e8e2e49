"""Modules ``import webtorch`` must leave unimported (they load on first use through webtorch._lazy): checked in
CPython (tests/tooling/test_lazy_names.py) and in Pyodide (tests/tooling/test_wheel_in_pyodide.py)."""
NOT_AT_IMPORT = ["webtorch.optim.lr_scheduler", "webtorch.optim.adam", "webtorch.distributions.kl",
                 "webtorch.distributions.normal", "webtorch.legacy.nn", "webtorch.nn.utils.parametrize",
                 "webtorch.serialization.load_objects", "pickle",
                 *(f"webtorch.ops.{m}" for m in ("attention", "combinatorics", "membership", "grid_sample",
                                                 "embedding_bag", "fractional_pooling", "grouped_mm", "counting",
                                                 "quantile", "differences", "covariance", "matrix_functions")),
                 "webtorch.autograd.functional", "webtorch.nn.multi_head_attention", "webtorch.accelerator",
                 "webtorch._settings",
                 *(f"webtorch.backends.webgpu.{m}_kernels" for m in ("scan_sort", "linalg", "pad", "embedding",
                                                                     "randperm")),
                 *(f"webtorch.backends.wasm.{m}" for m in ("linalg", "sorting", "padding", "embedding"))]
