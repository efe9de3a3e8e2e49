"""The generated bad-input sweep's classes (tests/support/sweep.py) on which webtorch still disagrees with PyTorch
2.13, each with its reason: (device, catalogue entry, input class), the class disagreeing in at least one of its
calls.

tests/ops/test_bad_input_sweep.py asserts this list is exact: a new disagreeing class fails, and so does a listed
class that now agrees (remove it here). Devices: "cpu", "webgpu"; "cpu:numpy" / "cpu:wasm" for what only one backend
of "cpu" does (WEBTORCH_CPU_BACKEND picks it). ``python tests/support/sweep.py`` prints the current list.
"""

KNOWN = {
    'an out-of-range dim: both refuse, with another exception type': [
        ('cpu', 'F:adaptive_avg_pool1d', 'dim'),
        ('cpu', 'F:adaptive_max_pool1d', 'dim'),
        ('cpu', 'fn:adaptive_avg_pool1d', 'dim'),
        ('cpu', 'fn:group_norm', 'dim'),
        ('webgpu', 'F:adaptive_avg_pool1d', 'dim'),
        ('webgpu', 'F:adaptive_max_pool1d', 'dim'),
        ('webgpu', 'fn:adaptive_avg_pool1d', 'dim'),
        ('webgpu', 'fn:group_norm', 'dim'),
    ],
    'NaN/inf values: both return, NaN/inf propagate differently (a formula that turns inf into NaN or drops a NaN)': [
        ('cpu', 'F:gelu', 'nan/inf'),
        ('cpu', 'F:multi_margin_loss', 'nan/inf'),
        ('cpu', 'fn:lerp', 'nan/inf'),
        ('cpu', 'fn:mode', 'nan/inf'),
        ('cpu', 'fn:searchsorted', 'nan/inf'),
        ('cpu', 'method:lerp_', 'nan/inf'),
        ('cpu', 'method:polygamma_', 'nan/inf'),
        ('cpu', 'module:CrossMapLRN2d', 'nan/inf'),
        ('cpu', 'module:GELU', 'nan/inf'),
        ('webgpu', 'F:gelu', 'nan/inf'),
        ('webgpu', 'F:multi_margin_loss', 'nan/inf'),
        ('webgpu', 'fn:lerp', 'nan/inf'),
        ('webgpu', 'fn:mode', 'nan/inf'),
        ('webgpu', 'method:lerp_', 'nan/inf'),
        ('webgpu', 'method:polygamma_', 'nan/inf'),
        ('webgpu', 'module:CrossMapLRN2d', 'nan/inf'),
        ('webgpu', 'module:GELU', 'nan/inf'),
    ],
    'a zero-size input: PyTorch refuses the empty dim, webtorch returns an empty result': [
        ('cpu', 'module:ConvTranspose3d', 'zero-size'),
        ('webgpu', 'module:ConvTranspose3d', 'zero-size'),
    ],
    "an integer or bool input: PyTorch's CPU kernel computes it, webtorch refuses the dtype": [
        ('cpu', 'fn:randint_like', 'int'),
        ('cpu:wasm', 'module:Unfold', 'int'),
        ('webgpu', 'fn:empty_like', 'int'),
        ('webgpu', 'fn:float_power', 'int'),
        ('webgpu', 'fn:max', 'int'),
        ('webgpu', 'fn:min', 'int'),
        ('webgpu', 'fn:randint_like', 'int'),
    ],
    'a 0-dim input: both refuse, with another exception type (IndexError vs RuntimeError/ValueError)': [
        ('cpu', 'F:scaled_dot_product_attention', '0-dim'),
        ('webgpu', 'F:scaled_dot_product_attention', '0-dim'),
    ],
    'a zero-size input: PyTorch returns an empty (or NaN) result, webtorch refuses it': [
        ('cpu', 'F:group_norm', 'zero-size'),
        ('cpu', 'F:scaled_dot_product_attention', 'zero-size'),
        ('cpu', 'fn:cumulative_trapezoid', 'zero-size'),
        ('cpu', 'fn:group_norm', 'zero-size'),
        ('cpu', 'module:AdaptiveAvgPool1d', 'zero-size'),
        ('cpu', 'module:AdaptiveAvgPool2d', 'zero-size'),
        ('cpu', 'module:BatchNorm1d', 'zero-size'),
        ('cpu', 'module:BatchNorm3d', 'zero-size'),
        ('cpu', 'module:GroupNorm', 'zero-size'),
        ('cpu:numpy', 'fn:diag_embed', 'zero-size'),
        ('webgpu', 'F:group_norm', 'zero-size'),
        ('webgpu', 'F:scaled_dot_product_attention', 'zero-size'),
        ('webgpu', 'fn:cumulative_trapezoid', 'zero-size'),
        ('webgpu', 'fn:float_power', 'zero-size'),
        ('webgpu', 'fn:group_norm', 'zero-size'),
        ('webgpu', 'module:AdaptiveAvgPool1d', 'zero-size'),
        ('webgpu', 'module:AdaptiveAvgPool2d', 'zero-size'),
        ('webgpu', 'module:BatchNorm1d', 'zero-size'),
        ('webgpu', 'module:BatchNorm3d', 'zero-size'),
        ('webgpu', 'module:GroupNorm', 'zero-size'),
    ],
    'a dim PyTorch accepts (wraps, or an int argument that is not a dim), webtorch refuses': [
        ('cpu', 'F:hardtanh_', 'dim'),
        ('webgpu', 'F:hardtanh_', 'dim'),
        ('webgpu', 'fn:float_power', 'dim'),
    ],
    'a 0-dim input: PyTorch treats it as one element, webtorch refuses it': [
        ('webgpu', 'fn:float_power', '0-dim'),
    ],
    "the good call itself differs (a default or an argument order of the op differs from PyTorch's)": [
        ('webgpu', 'fn:float_power', 'good'),
    ],
    'NaN/inf values: PyTorch returns, webtorch raises': [
        ('webgpu', 'fn:float_power', 'nan/inf'),
    ],
    'an int argument the sweep takes for a dim means something else to the op: results differ': [
        ('cpu', 'fn:randint_like', 'dim'),
        ('webgpu', 'fn:randint_like', 'dim'),
    ],
}
