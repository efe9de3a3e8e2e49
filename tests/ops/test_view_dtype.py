"""Tensor.view(dtype) against PyTorch 2.13: the same bytes read as another dtype (never a value conversion), for
every pair of dtypes, bit for bit (NaN payloads, -0.0, subnormals); the shape, strides and offset of a view to a
smaller or a bigger element, and PyTorch's refusals (RuntimeError, same message) of a 0-dim tensor, a last dim
that is not contiguous or whose size, offset or other strides the size ratio does not divide; memory shared both
ways and one version counter; no autograd (the result never requires grad, has no grad_fn and no base). The cpu
device runs on both its backends (NumPy, and WebAssembly under WEBTORCH_CPU_BACKEND=wasm); webgpu, whose
buffers hold float32, int32, uint32, int64 and float16 as their host bytes, views those as each other, and refuses
the dtypes it widens to 32 bits (bool, uint8, int8, int16) with a TypeError naming the device, both dtypes and 'cpu'.
Tests of the cpu device alone say so in their names (scripts/test.sh's WebAssembly pass selects "cpu")."""
import os
import struct

import numpy as np
import pytest
import torch
from optest import check_same_error

import webtorch
from devices import DEVICES

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint32", "float16", "bfloat16", "float32", "float64",
         "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"]
# the NumPy backend holds no bfloat16 (NumPy has none; it refuses it, as any op, naming the device and the fix)
NUMPY = os.environ.get("WEBTORCH_CPU_BACKEND", "numpy") == "numpy"
CPU_NAMES = [n for n in NAMES if not (NUMPY and n == "bfloat16")]
HOST_BYTES = ["float32", "int32", "uint32", "int64", "float16"]  # webgpu's buffers hold them as the host does
BITS = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}  # an integer dtype of each element size: the bytes exactly
# bytes with float32 and float64 NaNs with payloads, -0.0 of each float format, a subnormal, infinities; bool
# viewing them holds bytes other than 0 and 1 as PyTorch's does
SPECIAL = (struct.pack("<ffd", float("-0.0"), float("inf"), float("nan")) + bytes.fromhex("7fc12345ffa00001")
           + bytes.fromhex("0080008001000000") + struct.pack("<e", float("-0.0")) * 4
           + bytes.fromhex("7e7f01fe80ff0000"))
RAW = SPECIAL + np.random.default_rng(5).integers(0, 256, 192 - len(SPECIAL), dtype=np.uint8).tobytes()


def _pair(name, nbytes=96, rows=4, device="cpu"):
    """(webtorch, torch) tensors of dtype ``name`` holding RAW's first nbytes, ``rows`` rows (made from the bytes
    by frombuffer, no view(dtype) involved; bool: its bytes made 0 or 1 as a bool tensor holds)."""
    raw = RAW[:nbytes] if name != "bool" else bytes(b & 1 for b in RAW[:nbytes])
    dt = getattr(torch, name)
    t = torch.frombuffer(bytearray(raw), dtype=dt).reshape(rows, -1)
    return webtorch.frombuffer(bytearray(raw), dtype=getattr(webtorch, name)).reshape(rows, -1).to(device), t


def _bits(x, lib):
    """x's bytes as integers of its element size (a list): what must be equal, bit for bit."""
    return x.cpu().contiguous().view(getattr(lib, BITS[x.element_size()])).tolist()


def _geometry(x):
    return tuple(x.shape), tuple(x.stride()), x.storage_offset()


def _same_view(w, t):
    assert str(w.dtype) == str(t.dtype)
    assert _geometry(w) == _geometry(t), (w.dtype, _geometry(w), _geometry(t))
    assert w.untyped_storage().nbytes() == t.untyped_storage().nbytes()
    assert _bits(w, webtorch) == _bits(t, torch), w.dtype


@pytest.mark.parametrize("src", CPU_NAMES)
def test_every_dtype_pair_reads_the_same_bytes_on_cpu(src):
    w, t = _pair(src)
    for dst in CPU_NAMES:
        wv, tv = w.view(getattr(webtorch, dst)), t.view(getattr(torch, dst))
        _same_view(wv, tv)
        if dst == "bool" or dst.startswith(("int", "uint")):
            assert wv.tolist() == tv.tolist(), (src, dst)
        elif dst in ("float16", "float32", "float64"):  # NaN payloads: _bits; the values, -0.0 included
            np.testing.assert_array_equal(np.array(wv.tolist()), tv.numpy())


def test_bfloat16_is_viewed_by_the_wasm_backend_refused_by_numpys_on_cpu():
    x = webtorch.tensor([1.0, -2.5])
    if NUMPY:
        with pytest.raises(TypeError, match="not supported on device 'cpu' \\(NumPy has no bfloat16\\)"):
            x.view(webtorch.bfloat16)
    else:
        assert x.view(webtorch.bfloat16).tolist() == torch.tensor([1.0, -2.5]).view(torch.bfloat16).tolist()


def test_float32_values_are_their_bit_patterns_on_cpu():
    w = webtorch.tensor([1.0, -2.5, -0.0, float("nan")])
    assert w.view(webtorch.int32).tolist() == [1065353216, -1071644672, -2147483648, 2143289344]
    assert w.view(webtorch.int32).dtype is webtorch.int32
    assert webtorch.tensor([1065353216], dtype=webtorch.int32).view(webtorch.float32).item() == 1.0


VIEWS = {  # name -> (make the source from a (6, 8) float32 tensor, target dtype)
    "shrink": (lambda x: x, "int16"),
    "shrink_to_bytes": (lambda x: x, "uint8"),
    "shrink_rows_strided": (lambda x: x[::2], "float16"),
    "shrink_offset_columns": (lambda x: x[1:, 3:5], "int8"),
    "shrink_transposed_size1_last": (lambda x: x[:, :1], "float16"),
    "shrink_expanded_rows": (lambda x: x[:1].expand(5, 8), "int16"),
    "grow": (lambda x: x, "float64"),
    "grow_offset_rows": (lambda x: x[2:], "int64"),
    "grow_columns": (lambda x: x[:, 2:6], "int64"),
    "grow_from_halves": (lambda x: x.view(torch.float16 if isinstance(x, torch.Tensor) else webtorch.float16), "int64"),
    "grow_3d": (lambda x: x.reshape(2, 3, 8), "float64"),
    "grow_empty": (lambda x: x[:0], "int64"),
    "same_size_transposed": (lambda x: x.t(), "int32"),
    "same_size_0dim": (lambda x: x[1, 2], "uint32"),
    "same_dtype": (lambda x: x.t(), "float32"),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", VIEWS)
def test_view_geometry_and_bytes(case, device):
    make, dst = VIEWS[case]
    w, t = _pair("float32", 192, 6, device)
    if device == "webgpu" and dst == "float64":  # no float64 there at all
        with pytest.raises(TypeError, match="WebGPU doesn't support float64"):
            make(w).view(getattr(webtorch, dst))
        return
    if device == "webgpu" and dst not in HOST_BYTES:
        with pytest.raises(TypeError, match=f"view\\(torch.{dst}\\) of a torch.float32 tensor .*'webgpu'.*'cpu'"):
            make(w).view(getattr(webtorch, dst))
        return
    _same_view(make(w).view(getattr(webtorch, dst)), make(t).view(getattr(torch, dst)))


REFUSED = {  # name -> (make the source from a (6, 8) float32 tensor, target dtype): PyTorch's RuntimeErrors
    "0dim_shrink": (lambda x: x[0, 0], "int16"),
    "0dim_grow": (lambda x: x[0, 0], "float64"),
    "transposed_shrink": (lambda x: x.t(), "int16"),
    "transposed_grow": (lambda x: x.t(), "int64"),
    "strided_last_dim": (lambda x: x[:, ::2], "uint8"),
    "expanded_last_dim": (lambda x: x[:, :1].expand(6, 4), "int16"),
    "odd_last_size": (lambda x: x[:, :3], "float64"),
    "odd_offset": (lambda x: x[:, 1:3], "int64"),
    "odd_row_stride": (lambda x: x.reshape(16, 3)[:, :2], "int64"),
    "empty_odd_stride": (lambda x: x[:0, :0].reshape(2, 0), "int64"),
    "transposed_size1_last_grow": (lambda x: x[:2].t()[:, :1], "int64"),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", REFUSED)
def test_refusals_as_pytorch(case, device):
    make, dst = REFUSED[case]

    def view(lib):
        x = lib.arange(48, dtype=lib.float32).reshape(6, 8)
        return make(x if lib is torch else x.to(device)).view(getattr(lib, dst))
    check_same_error(view)


def test_float16_from_float64_shares_memory_both_ways_on_cpu():
    w = webtorch.tensor([[1.5, 2.0], [-3.0, 0.25]], dtype=webtorch.float64)
    h = w.view(webtorch.float16)
    assert tuple(h.shape) == (2, 8) and h._version is w._version
    h[1, 7] = float("-inf")  # the top half-word of -3.0: its sign and exponent bits
    w[0, 0] = 0.0
    t = torch.tensor([[1.5, 2.0], [-3.0, 0.25]], dtype=torch.float64)
    th = t.view(torch.float16)
    th[1, 7] = float("-inf")
    t[0, 0] = 0.0
    assert w.tolist() == t.tolist() and h.tolist() == th.tolist()
    assert w._version[0] == 2


@pytest.mark.parametrize("device", DEVICES)
def test_same_size_view_shares_memory_both_ways(device):
    x = webtorch.tensor([1.0, -2.5, 3.0, 0.5], device=device)
    i = x.view(webtorch.int32)
    assert i.tolist() == [1065353216, -1071644672, 1077936128, 1056964608]
    i[0] = 1077936128  # 3.0's bits
    x[1] = 1.0
    assert x.tolist() == [3.0, 1.0, 3.0, 0.5] and i[1].item() == 1065353216
    assert x.view(webtorch.uint32).view(webtorch.float32).tolist() == x.tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dst", ["float32", "int32", "float16"])
def test_not_differentiable_as_pytorch(device, dst):
    got = {}
    for lib in (torch, webtorch):
        a = lib.ones(4, requires_grad=True, device=device if lib is webtorch else None)
        c = a * 2
        v = c.view(getattr(lib, dst))
        got[lib] = (v.requires_grad, v.grad_fn is None, v._base is None, v is c)
        v.add_(0)  # no view of c in autograd's sense: allowed, c's version moves
        assert (c._version if lib is torch else c._version[0]) == 1
        c.sum().backward()
        assert a.grad.tolist() == [2.0] * 4
        assert a.view(getattr(lib, dst)).requires_grad is False
    assert got[webtorch] == got[torch] == (False, True, True, False)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("src", HOST_BYTES)
def test_host_byte_dtypes_view_each_other_sharing_memory(device, src):
    for dst in HOST_BYTES:
        w, t = _pair(src, 48, 2, device)
        wv, tv = w.view(getattr(webtorch, dst)), t.view(getattr(torch, dst))
        _same_view(wv, tv)
        wv[1, -1], tv[1, -1] = 7, 7  # a write through the view reaches the source, and the other way
        w[0, 0], t[0, 0] = 3, 3
        _same_view(w, t)
        _same_view(wv, tv)
        assert wv._version is w._version and w._version[0] == 2


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("src, dst", [("uint8", "int8"), ("bool", "uint8"), ("int16", "float16"),
                                      ("float32", "int16"), ("int8", "int32"), ("int64", "bool")])
def test_widened_dtypes_are_viewed_on_cpu_and_refused_on_webgpu(device, src, dst):
    w, t = _pair(src, 32, 2, device)
    if device == "cpu":
        _same_view(w.view(getattr(webtorch, dst)), t.view(getattr(torch, dst)))
        return
    with pytest.raises(TypeError, match=f"view\\(torch.{dst}\\) of a torch.{src} tensor .*device 'webgpu'.*'cpu'"):
        w.view(getattr(webtorch, dst))
    v = w.view(getattr(webtorch, src))  # its own dtype: a new tensor viewing the same memory, without autograd
    v[0, 0] = 1
    assert _bits(v, webtorch) == _bits(w, webtorch) and w[0, 0].item() == 1 and v._version is w._version


MIXED = {  # one kernel (unfused, or fused by webgpu's planner) reading a buffer under two dtypes
    "masked_fill": lambda lib, x: x.view(lib.int32).masked_fill(x > 4, 7),
    "where": lambda lib, x: lib.where(x > 4, x.view(lib.int32), 0),
    "promoting_mul": lambda lib, x: x.view(lib.int32) * x,
    "gemm_then_add": lambda lib, x: (x @ x.t()) + x[:, :2].reshape(2, 2).view(lib.int32),
    "int64_bits_plus_halves": lambda lib, x: x.view(lib.int64).float() + x[:, :2],
    "inplace_through_view": lambda lib, x: x.clone().view(lib.int32).add_(x.view(lib.int32).flip(1)),
    "index_put_self": lambda lib, x: x.clone().view(lib.int64).index_put_(
        (lib.tensor([0, 1], device=x.device),), x.clone().view(lib.int64)[:, :1].flip(0).reshape(2, 1)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", MIXED)
def test_one_buffer_read_under_two_dtypes(case, device):
    x = webtorch.arange(1.0, 9.0, device=device).reshape(2, 4)
    assert MIXED[case](webtorch, x).tolist() == MIXED[case](torch, torch.arange(1.0, 9.0).reshape(2, 4)).tolist()


def test_fused_kernels_read_a_view_as_its_bytes_on_webgpu_as_on_cpu():
    """webgpu's planner inlines an elementwise producer into its reader and a GEMM's result into the elementwise
    chain after it: never through a view(dtype) (the reader wants the bytes, not the value)."""
    got = {}
    for device in DEVICES:
        y = webtorch.arange(6.0, device=device)
        a = webtorch.ones(4, 4, device=device)
        got[device] = (((y * 2).view(webtorch.int32) + 1).tolist(),
                       (y.view(webtorch.int32).flip(0).view(webtorch.float32) * 1).tolist(),
                       ((a @ a).view(webtorch.int32) * 1).tolist(),
                       ((y + 1).view(webtorch.int64) + 0).tolist())
    t = torch.arange(6.0)
    assert got["cpu"] == (((t * 2).view(torch.int32) + 1).tolist(), t.flip(0).tolist(),
                          ((torch.ones(4, 4) @ torch.ones(4, 4)).view(torch.int32)).tolist(),
                          (t + 1).view(torch.int64).tolist())
    assert got.get("webgpu", got["cpu"]) == got["cpu"]


def test_save_refuses_one_storage_under_two_dtypes_as_pytorch_on_cpu():
    import io

    def save(lib):
        x = lib.tensor([1.0, 2.0])
        lib.save([x, x.view(lib.int32)], io.BytesIO())
    check_same_error(save)
    buf = io.BytesIO()  # one dtype per storage is saved, shared as before
    x = webtorch.tensor([1.0, 2.0]).view(webtorch.int32)
    webtorch.save([x, x[1:]], buf)
    buf.seek(0)
    a, b = torch.load(buf)
    assert a.tolist() == [1065353216, 1073741824] and b.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()


@pytest.mark.parametrize("device", DEVICES)
def test_a_storage_the_bigger_element_does_not_divide(device):
    """A float16 storage of 3 elements: its first two viewed as one float32; the storage keeps its 6 bytes."""
    w = webtorch.tensor([1.0, -2.0, 3.0], dtype=webtorch.float16, device=device)
    t = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float16)
    _same_view(w[:2].view(webtorch.float32), t[:2].view(torch.float32))
