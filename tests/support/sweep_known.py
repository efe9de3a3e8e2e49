"""The generated bad-input sweep's classes (tests/support/sweep.py) on which webtorch still disagrees with PyTorch
2.13, each with its reason: (device, catalogue entry, input class), the class disagreeing in at least one of its
calls.

tests/ops/test_bad_input_sweep.py asserts this list is exact: a new disagreeing class fails, and so does a listed
class that now agrees (remove it here). Devices: "cpu", "webgpu"; "cpu:numpy" / "cpu:wasm" for what only one backend
of "cpu" does (WEBTORCH_CPU_BACKEND picks it). ``python tests/support/sweep.py`` prints the current list.
"""

KNOWN = {
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
    "an integer or bool input: PyTorch's CPU kernel computes it, webtorch refuses the dtype": [
        ('cpu', 'fn:randint_like', 'int'),
        ('cpu:wasm', 'module:Unfold', 'int'),
        ('webgpu', 'fn:empty_like', 'int'),
        ('webgpu', 'fn:max', 'int'),
        ('webgpu', 'fn:min', 'int'),
        ('webgpu', 'fn:randint_like', 'int'),
    ],
    'a dim PyTorch accepts (wraps, or an int argument that is not a dim), webtorch refuses': [
        ('cpu', 'F:hardtanh_', 'dim'),
        ('webgpu', 'F:hardtanh_', 'dim'),
    ],
    'an int argument the sweep takes for a dim means something else to the op: results differ': [
        ('cpu', 'fn:randint_like', 'dim'),
        ('webgpu', 'fn:randint_like', 'dim'),
    ],
    "float_power computes in float64, which the webgpu device refuses by design (README, Deviations from PyTorch: "
    "a TypeError naming .float() and device cpu), whatever the input class": [
        ('webgpu', 'fn:float_power', '0-dim'),
        ('webgpu', 'fn:float_power', 'dim'),
        ('webgpu', 'fn:float_power', 'good'),
        ('webgpu', 'fn:float_power', 'int'),
        ('webgpu', 'fn:float_power', 'nan/inf'),
        ('webgpu', 'fn:float_power', 'zero-size'),
    ],
}
