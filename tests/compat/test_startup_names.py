"""The names scripts touch in their first twenty lines answer as a CPU-only PyTorch 2.13 answers them
(device probes, backends flags, AMP contexts, legacy constructors), and data never lands on a device webtorch
lacks without an error that names "webgpu"."""
import importlib
import warnings

import pytest
import torch

import webtorch


def _both(fn):
    """fn(torch) and fn(webtorch), or the exception type each raised."""
    out = []
    for lib in (torch, webtorch):
        try:
            out.append(fn(lib))
        except Exception as e:  # noqa: BLE001 -- the comparison is the point
            out.append(type(e))
    return out


PROBES = [
    lambda m: m.cuda.is_available(), lambda m: m.cuda.device_count(), lambda m: m.cuda.is_initialized(),
    lambda m: m.cuda.is_bf16_supported(), lambda m: m.cuda.manual_seed_all(1), lambda m: m.cuda.empty_cache(),
    lambda m: m.backends.mps.is_available(), lambda m: m.backends.mps.is_built(),
    lambda m: m.backends.cudnn.is_available(), lambda m: m.backends.cudnn.enabled,
    lambda m: m.backends.cudnn.benchmark, lambda m: m.backends.cudnn.deterministic,
    lambda m: m.backends.cudnn.allow_tf32, lambda m: m.backends.cudnn.version(),
    lambda m: m.backends.cuda.matmul.allow_tf32, lambda m: m.backends.cuda.is_built(),
    lambda m: m.distributed.is_initialized(), lambda m: m.onnx.is_in_onnx_export(),
    lambda m: str(m.device("cuda")), lambda m: repr(m.device("cuda:0")), lambda m: m.device("mps").type,
    lambda m: m.device("cuda", 1).index, lambda m: m.zeros(2).is_cuda, lambda m: m.zeros(2).is_mps,
    lambda m: m.zeros(2).is_xpu, lambda m: m.is_autocast_enabled(),
    lambda m: m.amp.GradScaler(enabled=False).get_scale(), lambda m: m.amp.GradScaler(enabled=False).is_enabled(),
    lambda m: m.amp.GradScaler(enabled=False).state_dict(),
    lambda m: m.FloatTensor(2, 3).shape, lambda m: m.LongTensor([1, 2]).tolist(), lambda m: m.FloatTensor().shape,
    lambda m: str(m.ByteTensor([1, 2]).dtype), lambda m: str(m.BoolTensor([1, 0]).dtype),
    lambda m: str(m.DoubleTensor(m.Size([2])).dtype), lambda m: m.IntTensor([3]).type(),
    lambda m: isinstance(m.zeros(2), m.FloatTensor), lambda m: isinstance(m.zeros(2).long(), m.FloatTensor),
    lambda m: m.zeros(2).type(m.LongTensor).type(), lambda m: m.zeros(2).type("torch.DoubleTensor").type(),
    lambda m: isinstance(m.ones(1), m.autograd.Variable),
    lambda m: m.autograd.Variable(m.ones(2), requires_grad=True).requires_grad,
    lambda m: m.autograd.Variable(m.ones(2)).is_leaf,
    lambda m: m.Generator().manual_seed(5).initial_seed(), lambda m: m.manual_seed(7).initial_seed(),
    lambda m: (m.manual_seed(11), m.initial_seed())[1],
    lambda m: list(m.nn.DataParallel(m.nn.Linear(2, 2)).state_dict()),
    lambda m: m.nn.DataParallel(m.nn.Linear(2, 2), device_ids=[0]).device_ids,
    lambda m: m.nn.parallel.DistributedDataParallel(m.nn.Linear(2, 2)),
    lambda m: m.distributed.get_rank(),
    lambda m: m.LongTensor([1], device="cuda"), lambda m: m.FloatTensor(m.ones(2).long()),
]


@pytest.mark.parametrize("i", range(len(PROBES)))
def test_probe_answers_as_cpu_only_pytorch(i):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref, ours = _both(PROBES[i])
    assert ours == ref


def test_modules_import_as_at_the_top_of_scripts():
    for name in ("backends.cudnn", "backends.cuda", "backends.mps", "backends.mkldnn", "backends.openmp",
                 "backends.mkl", "cuda.amp", "amp", "distributed", "onnx", "nn.parallel", "accelerator"):
        importlib.import_module(f"webtorch.{name}")
    webtorch.backends.cudnn.benchmark = True
    webtorch.backends.cudnn.deterministic = True
    webtorch.backends.cuda.matmul.allow_tf32 = True
    try:
        assert webtorch.backends.cudnn.benchmark and webtorch.backends.cuda.matmul.allow_tf32
    finally:
        webtorch.backends.cudnn.benchmark = webtorch.backends.cudnn.deterministic = False
        webtorch.backends.cuda.matmul.allow_tf32 = False


@pytest.mark.parametrize("move", [
    lambda m: m.zeros(2, device="cuda"), lambda m: m.zeros(2).to("cuda"), lambda m: m.zeros(2).cuda(),
    lambda m: m.zeros(2).to(m.device("cuda:0")), lambda m: m.zeros(2).to("mps"), lambda m: m.ones(2, device="mps"),
    lambda m: m.nn.Linear(2, 2).to("cuda"), lambda m: m.cuda.current_device(), lambda m: m.cuda.synchronize(),
    lambda m: m.Generator(device="cuda"), lambda m: m.cuda.FloatTensor([1.0]),
    lambda m: m.zeros(2).type("torch.cuda.FloatTensor"),
])
def test_data_on_a_missing_device_raises_naming_webgpu(move):
    ref, _ = _both(move)
    assert isinstance(ref, type) and issubclass(ref, Exception)  # PyTorch without CUDA/MPS raises too
    with pytest.raises((RuntimeError, TypeError, ValueError), match="webgpu"):
        move(webtorch)


def test_unknown_device_type_is_refused():
    with pytest.raises(RuntimeError, match="Expected one of cpu, webgpu"):
        webtorch.device("gpu")


def test_disabled_amp_is_a_no_op_and_enabled_warns_or_raises():
    p = webtorch.nn.Parameter(webtorch.ones(2))
    opt = webtorch.optim.SGD([p], lr=1.0)
    scaler = webtorch.cuda.amp.GradScaler(enabled=False)
    assert isinstance(scaler, webtorch.amp.GradScaler)
    with webtorch.autocast("cuda", enabled=False), webtorch.amp.autocast("cpu", enabled=False):
        loss = (p * 3).sum()
    assert scaler.scale(loss) is loss
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    assert p.tolist() == [-2.0, -2.0]
    with pytest.warns(UserWarning, match="CUDA is not available"):
        on_cuda = webtorch.amp.GradScaler("cuda")
    assert not on_cuda.is_enabled()
    with pytest.warns(UserWarning, match="Disabling autocast"):
        with webtorch.autocast("cuda"):
            assert not webtorch.is_autocast_enabled("cuda")
    for make in (lambda: webtorch.autocast("cpu"), lambda: webtorch.amp.autocast("webgpu"),
                 lambda: webtorch.amp.GradScaler("cpu")):
        with pytest.raises(RuntimeError, match="enabled=False"):
            make()

    @webtorch.autocast("cpu", enabled=False)
    def decorated(x):
        return x + 1
    assert decorated(1) == 2


def test_distributed_and_onnx_refuse_clearly():
    with pytest.raises(RuntimeError, match="single process"):
        webtorch.distributed.init_process_group("gloo")
    with pytest.raises(RuntimeError, match="not supported"):
        webtorch.onnx.export(webtorch.nn.Linear(2, 2), webtorch.ones(1, 2), "m.onnx")


def test_data_parallel_runs_its_module():
    lin = webtorch.nn.Linear(3, 2)
    dp = webtorch.nn.DataParallel(lin)
    x = webtorch.randn(4, 3)
    assert dp(x).tolist() == lin(x).tolist()
    assert dp.module is lin and webtorch.nn.parallel.data_parallel(lin, x).tolist() == lin(x).tolist()


def test_variable_shares_storage_and_data_detaches():
    x = webtorch.ones(2)
    v = webtorch.autograd.Variable(x, requires_grad=True)
    assert v is not x and v.requires_grad and not x.requires_grad and v.is_leaf
    v.data.add_(1)
    assert x.tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="has to be a tensor"):
        webtorch.autograd.Variable([1.0])


def test_default_generator_is_seeded_from_the_os_until_manual_seed():
    from webtorch.ops import creation
    fresh = [creation.Generator("cpu"), creation.Generator("cpu")]
    assert all(g.initial_seed() == 67280421310721 for g in fresh)  # torch.Generator()'s fixed seed
    saved = creation._default_generators.pop("cpu")
    try:
        first = webtorch.initial_seed()
        creation._default_generators.pop("cpu")
        assert webtorch.initial_seed() != first
    finally:
        creation._default_generators["cpu"] = saved


def test_accelerator_reports_webgpu_only_when_chosen(monkeypatch):
    acc = webtorch.accelerator
    monkeypatch.setitem(acc._choice, "webgpu", None)
    monkeypatch.delenv("WEBTORCH_ACCELERATOR", raising=False)
    assert (acc.is_available(), acc.current_accelerator(), acc.device_count()) == \
        (torch.accelerator.is_available(), torch.accelerator.current_accelerator(), torch.accelerator.device_count())
    with pytest.raises(RuntimeError, match="none is available"):
        acc.current_device_index()
    monkeypatch.setitem(acc._choice, "webgpu", None)
    monkeypatch.setenv("WEBTORCH_ACCELERATOR", "webgpu")
    has = webtorch.webgpu.is_available()
    assert acc.is_available() == has and acc.current_accelerator() == webtorch.device("webgpu")
    device = acc.current_accelerator() if acc.is_available() else "cpu"
    assert webtorch.ones(2, device=device).device.type == ("webgpu" if has else "cpu")
    assert acc.device_count() == int(has)
    if has:
        assert acc.current_device_index() == 0
        acc.synchronize()
        assert acc.memory_allocated() >= 0
    acc.use_webgpu(False)
    assert not acc.is_available() and acc.current_accelerator() is None
    monkeypatch.setitem(acc._choice, "webgpu", None)
    monkeypatch.setenv("WEBTORCH_ACCELERATOR", "cuda")
    with pytest.raises(RuntimeError, match="WEBTORCH_ACCELERATOR"):
        acc.is_available()


def test_settings_read_back_as_pytorch_and_are_restored():
    def settings(m):
        threads, precision = m.get_num_threads(), m.get_float32_matmul_precision()
        try:
            m.set_float32_matmul_precision("high")
            m.use_deterministic_algorithms(True, warn_only=True)
            m.set_num_threads(3)
            with m.backends.cudnn.flags(enabled=False, deterministic=True):
                inside = (m.backends.cudnn.enabled, m.backends.cudnn.deterministic)
            return (m.get_float32_matmul_precision(), m.are_deterministic_algorithms_enabled(),
                    m.is_deterministic_algorithms_warn_only_enabled(), m.get_num_threads(), inside,
                    m.backends.cudnn.enabled, m.version.cuda, m.mps.is_available(), m.xpu.device_count(),
                    m.cuda.max_memory_allocated(), m.cuda.get_rng_state_all(), m.utils.data.get_worker_info(),
                    m.random.manual_seed(4).initial_seed())
        finally:
            m.use_deterministic_algorithms(False)
            m.set_num_threads(threads)
            m.set_float32_matmul_precision(precision)
    ref, ours = _both(settings)
    assert ours == ref
    with pytest.raises(RuntimeError, match="positive integer"):
        webtorch.set_num_threads(0)


def test_compile_runs_the_model_eagerly():
    lin = webtorch.nn.Linear(2, 2)
    assert webtorch.compile(lin) is lin and webtorch.compile(mode="max-autotune")(lin) is lin
    with pytest.raises(RuntimeError, match="callable"):
        webtorch.compile(3)


@pytest.mark.parametrize("n,replicas,rank,drop_last", [(5, 2, 1, False), (5, 3, 2, True), (5, 4, 3, False),
                                                        (7, 1, 0, False)])
def test_distributed_sampler_shares_as_pytorch(n, replicas, rank, drop_last):
    from torch.utils.data.distributed import DistributedSampler as Ref
    kw = dict(num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
    ours = webtorch.utils.data.distributed.DistributedSampler(list(range(n)), **kw)
    ref = Ref(list(range(n)), **kw)
    assert (list(ours), len(ours)) == (list(ref), len(ref))
    shuffled = webtorch.utils.data.distributed.DistributedSampler(list(range(n)), num_replicas=1, rank=0, seed=3)
    shuffled.set_epoch(2)
    first = list(shuffled)
    assert first == list(shuffled) and sorted(first) == list(range(n))
    with pytest.raises(RuntimeError, match="single process"):
        webtorch.utils.data.distributed.DistributedSampler(list(range(n)))
    with pytest.raises(ValueError, match="Invalid rank"):
        webtorch.utils.data.distributed.DistributedSampler(list(range(n)), num_replicas=2, rank=2)


def test_variable_at_pytorchs_module_path():
    """Pre-0.4 scripts import it from torch.autograd.variable."""
    from webtorch.autograd.variable import Variable
    assert Variable is webtorch.autograd.Variable and isinstance(webtorch.ones(1), Variable)
