"""F.embedding_bag and nn.EmbeddingBag against PyTorch: every mode with 2-D and 1-D + offsets input,
include_last_offset, per_sample_weights, padding_idx, empty bags, max_norm, scale_grad_by_freq; values and the
gradients of weight and per_sample_weights; the module (state_dict, from_pretrained, repr); PyTorch's errors."""
import warnings

import numpy as np
import pytest
import torch

import webtorch
from layercheck import check_layer
from optest import check, check_error, rand, randint, webgpu_dtype_error


def F(m):
    return m.nn.functional


IDX2 = np.array([[1, 3, 3, 0], [4, 1, 5, 3], [2, 2, 2, 2]], np.int64)
IDX1 = np.array([1, 3, 3, 0, 4, 1, 5, 3, 2, 2, 0], np.int64)
OFFS = np.array([0, 3, 3, 7, 8], np.int64)  # bags of 3, 0, 4, 1 and 3 elements
MODES = ["sum", "mean", "max"]


@pytest.mark.parametrize("mode", MODES)
def test_2d_input(device, mode):
    check(lambda m, i, w: F(m).embedding_bag(i, w, mode=mode), IDX2, rand(6, 5), device=device)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("last", [False, True])
def test_1d_input_with_offsets(device, mode, last):
    offs = np.append(OFFS, len(IDX1)) if last else OFFS
    check(lambda m, i, w, o: F(m).embedding_bag(i, w, o, mode=mode, include_last_offset=last), IDX1, rand(6, 5),
          offs, device=device)


@pytest.mark.parametrize("mode", MODES)
def test_include_last_offset_ignores_the_tail(device, mode):
    """Elements at or past the last offset belong to no bag. PyTorch 2.13's CPU kernel mishandles them (max
    folds them into the last bag, mean counts them, the backward reads uninitialized memory; see
    pytorch/pytorch#190062), so PyTorch computes the reference from the input cut at the last offset."""
    check(lambda m, i, w, o: F(m).embedding_bag(i if m is webtorch else i[:6], w, o, mode=mode,
                                                include_last_offset=True), IDX1, rand(6, 4), np.array([0, 2, 2, 6]),
          device=device)
    check(lambda m, i, w, o, p: F(m).embedding_bag(i if m is webtorch else i[:9], w, o, mode="sum",
                                                   include_last_offset=True,
                                                   per_sample_weights=p if m is webtorch else p[:9]),
          IDX1, rand(6, 5), np.array([0, 4, 9]), rand(11), device=device)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding_idx", [3, -1, 2])
def test_padding_idx_is_excluded(device, mode, padding_idx):
    # padding_idx=2 empties bag [2, 2, 2, 2] entirely: zeros; means divide by the non-padding count
    check(lambda m, i, w: F(m).embedding_bag(i, w, mode=mode, padding_idx=padding_idx), IDX2, rand(6, 5),
          device=device)
    check(lambda m, i, w, o: F(m).embedding_bag(i, w, o, mode=mode, padding_idx=padding_idx), IDX1, rand(6, 5),
          OFFS, device=device)


def test_per_sample_weights(device):
    check(lambda m, i, w, p: F(m).embedding_bag(i, w, mode="sum", per_sample_weights=p), IDX2, rand(6, 5),
          rand(3, 4), device=device)
    check(lambda m, i, w, o, p: F(m).embedding_bag(i, w, o, mode="sum", per_sample_weights=p, padding_idx=3),
          IDX1, rand(6, 5), OFFS, rand(11), device=device)
    check(lambda m, i, w, o, p: F(m).embedding_bag(i, w, o, mode="sum", per_sample_weights=p,
                                                   include_last_offset=True),
          IDX1, rand(6, 5), np.array([0, 4, 11]), rand(11), device=device)


def _bag_by_embedding(m, i, w, mode, padding_idx):
    """Fixed-size bags through F.embedding(scale_grad_by_freq=True): the reference for embedding_bag's
    frequency scaling, which PyTorch 2.13's CPU embedding_bag backward gets wrong when indices occur different
    numbers of times (it divides by the count of another index; pytorch/pytorch#190063)."""
    keep = (i != (-1 if padding_idx is None else padding_idx)).unsqueeze(-1).to(w.dtype)
    s = (F(m).embedding(i, w, scale_grad_by_freq=True) * keep).sum(1)
    return s if mode == "sum" else s / keep.sum(1).clamp(min=1)


@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("padding_idx", [None, 3])
def test_scale_grad_by_freq(device, mode, padding_idx):
    check(lambda m, i, w: F(m).embedding_bag(i, w, mode=mode, scale_grad_by_freq=True, padding_idx=padding_idx)
          if m is webtorch else _bag_by_embedding(m, i, w, mode, padding_idx), IDX2, rand(6, 5), device=device)
    # every index equally frequent: PyTorch's own embedding_bag is right there
    check(lambda m, i, w: F(m).embedding_bag(i, w, mode=mode, scale_grad_by_freq=True),
          np.array([[0, 4, 1], [1, 4, 0]]), rand(6, 5), device=device)


def test_int32_indices_and_offsets(device):
    for idx, offs in ((IDX1.astype(np.int32), OFFS), (IDX1, OFFS.astype(np.int32)),
                      (IDX1.astype(np.int32), OFFS.astype(np.int32))):
        check(lambda m, i, w, o: F(m).embedding_bag(i, w, o), idx, rand(6, 3), offs, device=device)
    check(lambda m, i, w: F(m).embedding_bag(i, w, mode="max"), IDX2.astype(np.int32), rand(6, 3), device=device)


@pytest.mark.parametrize("mode", MODES)
def test_empty_input_and_no_bags(device, mode):
    empty = np.zeros((0,), np.int64)
    check(lambda m, i, w, o: F(m).embedding_bag(i, w, o, mode=mode), empty, rand(6, 3), np.array([0, 0]),
          device=device)
    # no bags at all: PyTorch's CPU kernel crashes the process here (max: forward, mean: backward), so the
    # result (0, 3) and the gradient (zeros) are checked on webtorch's side where PyTorch cannot be run
    for kw, offs in (({}, empty), ({"include_last_offset": True}, np.array([0]))):
        if mode != "max":
            check(lambda m, i, w, o: F(m).embedding_bag(i, w, o, mode=mode, **kw), IDX1, rand(6, 3), offs,
                  device=device, grad=False)
        w = webtorch.tensor(rand(6, 3), device=device, requires_grad=True)
        y = F(webtorch).embedding_bag(webtorch.tensor(IDX1, device=device), w, webtorch.tensor(offs, device=device),
                                      mode=mode, **kw)
        assert tuple(y.shape) == (0, 3) and y.dtype is webtorch.float32 and y.requires_grad
        y.sum().backward()
        assert not w.grad.cpu().numpy().any()
    check(lambda m, i, w: F(m).embedding_bag(i, w, mode=mode), np.zeros((0, 3), np.int64), rand(6, 3),
          device=device)


def test_max_ties_send_the_gradient_to_one_element(device):
    # the same row twice in a bag and an all-zero row (ties with the empty-bag fill value 0)
    w = rand(5, 3)
    w[4] = 0.0
    check(lambda m, i, w, o: F(m).embedding_bag(i, w, o, mode="max"), np.array([1, 1, 4, 4, 2, 4]), w,
          np.array([0, 2, 4]), device=device)


def test_float64_and_float16(device):
    with webgpu_dtype_error(device):
        check(lambda m, i, w, o, p: F(m).embedding_bag(i, w, o, mode="sum", per_sample_weights=p), IDX1,
              rand(6, 3, dtype=np.float64), OFFS, rand(11, dtype=np.float64), device=device, atol=1e-12, rtol=1e-12)
    if device == "cpu":
        check(lambda m, i, w: F(m).embedding_bag(i, w.half(), mode="mean"), IDX2, rand(6, 3), device=device,
              atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("mode", MODES)
def test_max_norm_renormalizes_weight_in_place(device, mode):
    w0 = rand(6, 4) * 3
    res = []
    for m in (torch, webtorch):
        w = torch.tensor(w0) if m is torch else webtorch.tensor(w0, device=device)
        w.requires_grad_(True)
        i = torch.tensor(IDX1) if m is torch else webtorch.tensor(IDX1, device=device)
        o = torch.tensor(OFFS) if m is torch else webtorch.tensor(OFFS, device=device)
        y = F(m).embedding_bag(i, w, o, max_norm=1.5, norm_type=3.0, mode=mode)
        (y * y).sum().backward()
        res.append([t.detach().cpu().numpy() for t in (w, y, w.grad)])
    for ours, ref in zip(res[1], res[0]):
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6)


def test_argument_order_swap_warns(device):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(lambda m, w, i: F(m).embedding_bag(w, i), rand(6, 3), IDX2, device=device)
    assert any("Argument order of nn.functional.embedding_bag was changed" in str(c.message) for c in caught)


def test_device_offsets_with_known_bounds_need_no_read(device):
    """Offsets and indices uploaded from the host: their bounds are known, so the webgpu forward and backward
    record their work without waiting on the device."""
    w = webtorch.tensor(rand(6, 3), device=device, requires_grad=True)
    i = webtorch.tensor(IDX1).to(device)
    o = webtorch.tensor(OFFS).to(device)

    def step(mode):
        y = F(webtorch).embedding_bag(i, w, o, mode=mode, padding_idx=2)
        (y * y).sum().backward()
        return y.detach()
    for mode in MODES:
        run = lambda: step(mode)  # noqa: E731
        if device == "webgpu":
            from webgpu_counts import counted
            y, cost = counted(run, keys=("readbacks", "host_fallbacks"))
            assert cost == {"readbacks": 0, "host_fallbacks": 0}, cost
        else:
            y = run()
        ref = F(torch).embedding_bag(torch.tensor(IDX1), torch.tensor(w.detach().cpu().numpy()), torch.tensor(OFFS),
                                     mode=mode, padding_idx=2)
        np.testing.assert_allclose(y.cpu().numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


def EB(m):
    return m.nn.EmbeddingBag


@pytest.mark.parametrize("kwargs", [{}, {"mode": "sum"}, {"mode": "max"}, {"padding_idx": 2},
                                    {"mode": "sum", "include_last_offset": True}, {"mode": "max", "padding_idx": 0}])
def test_module_matches_torch(device, kwargs):
    offs = np.append(OFFS, len(IDX1)) if kwargs.get("include_last_offset") else OFFS
    idx, offs_t = IDX1, offs

    def call(layer, *_):
        i = (torch.tensor(idx), torch.tensor(offs_t)) if isinstance(layer, torch.nn.Module) else \
            (webtorch.tensor(idx, device=device), webtorch.tensor(offs_t, device=device))
        return layer(*i)
    check_layer(lambda m: EB(m)(6, 4, **kwargs), device=device, call=call)
    check_layer(lambda m: EB(m)(6, 4, mode="sum", padding_idx=kwargs.get("padding_idx")),
                device=device, call=lambda layer: layer(*(
                    (torch.tensor(IDX2), None, torch.tensor(rand(3, 4) * 0 + 0.5))
                    if isinstance(layer, torch.nn.Module) else
                    (webtorch.tensor(IDX2, device=device), None,
                     webtorch.tensor(np.full((3, 4), 0.5, np.float32), device=device)))))


def test_module_construction_and_repr():
    for kwargs in ({}, {"padding_idx": -1, "max_norm": 2.0}, {"mode": "sum", "norm_type": 3.0,
                                                                 "scale_grad_by_freq": True}):
        ours, theirs = EB(webtorch)(6, 3, **kwargs), EB(torch)(6, 3, **kwargs)
        assert repr(ours) == repr(theirs)
        assert ours.padding_idx == theirs.padding_idx
        assert list(ours.state_dict()) == list(theirs.state_dict())
    bag = EB(webtorch)(6, 3, padding_idx=4)
    assert not bag.weight[4].detach().cpu().numpy().any()
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        EB(webtorch)(6, 3, padding_idx=6)
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        EB(webtorch)(6, 3, padding_idx=-7)
    with pytest.raises(AssertionError, match="Shape of weight does not match"):
        EB(webtorch)(6, 3, _weight=webtorch.zeros(5, 3))


def test_from_pretrained(device):
    w = rand(5, 3)
    for freeze in (True, False):
        ours = EB(webtorch).from_pretrained(webtorch.tensor(w, device=device), freeze=freeze, mode="max",
                                            include_last_offset=True)
        theirs = EB(torch).from_pretrained(torch.tensor(w), freeze=freeze, mode="max", include_last_offset=True)
        assert ours.weight.requires_grad == theirs.weight.requires_grad == (not freeze)
        assert (ours.mode, ours.include_last_offset) == ("max", True)
        i, o = np.array([1, 0, 4, 2]), np.array([0, 1, 4])
        np.testing.assert_allclose(ours(webtorch.tensor(i, device=device), webtorch.tensor(o, device=device))
                                   .detach().cpu().numpy(),
                                   theirs(torch.tensor(i), torch.tensor(o)).detach().numpy(), rtol=1e-6)
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        EB(webtorch).from_pretrained(webtorch.zeros(5))


def test_text_classification_tutorial_step(device):
    """The PyTorch text-classification tutorial's model: EmbeddingBag(vocab, dim) + offsets from the lengths
    of the texts, then Linear; a few SGD steps agree with PyTorch's."""
    texts = [randint(0, 50, n) for n in (7, 3, 12, 5)]
    labels = np.array([0, 3, 1, 2])

    def run(m, dev):
        class TextClassificationModel(m.nn.Module):
            def __init__(self, vocab_size, embed_dim, num_class):
                super().__init__()
                self.embedding = m.nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
                self.fc = m.nn.Linear(embed_dim, num_class)
                initrange = 0.5
                self.embedding.weight.data.uniform_(-initrange, initrange)
                self.fc.weight.data.uniform_(-initrange, initrange)
                self.fc.bias.data.zero_()

            def forward(self, text, offsets):
                return self.fc(self.embedding(text, offsets))

        model = TextClassificationModel(50, 8, 4)
        with m.no_grad():
            for p, v in zip(model.parameters(), init):
                p.copy_(m.tensor(v))
        model.to(dev)
        opt = m.optim.SGD(model.parameters(), lr=5.0)
        lengths = [len(t) for t in texts]
        offsets = m.tensor([0] + lengths[:-1]).cumsum(dim=0).to(dev)
        text = m.cat([m.tensor(t) for t in texts]).to(dev)
        label = m.tensor(labels).to(dev)
        losses = []
        for _ in range(3):
            opt.zero_grad()
            loss = m.nn.CrossEntropyLoss()(model(text, offsets), label)
            loss.backward()
            m.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            opt.step()
            losses.append(loss.item())
        return losses, [p.detach().cpu().numpy() for p in model.parameters()]

    init = [rand(50, 8), rand(4, 8), np.zeros(4, np.float32)]
    ref_losses, ref_params = run(torch, "cpu")
    losses, params = run(webtorch, device)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5, atol=1e-6)
    for p, r in zip(params, ref_params):
        np.testing.assert_allclose(p, r, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("fn,args,match", [
    (lambda m, i, w, o: F(m).embedding_bag(i, w, o), (IDX1, rand(6, 3), np.array([1, 3])),
     "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, "
     "got 1"),
    (lambda m, i, w, o: F(m).embedding_bag(i, w, o), (IDX1, rand(6, 3), np.array([0, 12])),
     "offsets[-1] can not be greater than input's length 11 but got offsets[-1] of 12"),
    (lambda m, i, w, o: F(m).embedding_bag(i, w, o, include_last_offset=True),
     (IDX1, rand(6, 3), np.zeros((0,), np.int64)), "include_last_offset: number of offset should be at least 1"),
    (lambda m, i, w, o: F(m).embedding_bag(i, w, o), (np.array([1, 2, 9]), rand(6, 3), np.array([0])),
     "Index 2 of input takes value 9 which is not in the valid range [0, 6)"),
    (lambda m, i, w, o: F(m).embedding_bag(i, w, o), (np.array([1, -1, 2]), rand(6, 3), np.array([0])),
     "Index 1 of input takes value -1 which is not in the valid range [0, 6)"),
    (lambda m, i, w: F(m).embedding_bag(i, w), (IDX1, rand(6, 3)), "offsets has to be a 1D Tensor but got None"),
    (lambda m, i, w, o: F(m).embedding_bag(i, w, o), (IDX1, rand(6, 3), OFFS.reshape(1, -1)),
     "offsets has to be a 1D Tensor"),
    (lambda m, i, w, o: F(m).embedding_bag(i, w, o), (IDX2, rand(6, 3), OFFS),
     "if input is 2D, then offsets has to be None"),
    (lambda m, i, w: F(m).embedding_bag(i, w), (IDX2.reshape(3, 2, 2), rand(6, 3)),
     "input has to be 1D or 2D Tensor, but got Tensor of dimension 3"),
    (lambda m, i, w: F(m).embedding_bag(i, w), (IDX2, rand(6)),
     "weight has to be a 2D Tensor, but got Tensor of dimension 1"),
    (lambda m, i, w: F(m).embedding_bag(i, w, mode="median"), (IDX2, rand(6, 3)),
     "mode has to be one of sum, mean or max"),
    (lambda m, i, w: F(m).embedding_bag(i, w, mode="max", scale_grad_by_freq=True), (IDX2, rand(6, 3)),
     "max mode does not support scaling the gradient by the frequency"),
    (lambda m, i, w: F(m).embedding_bag(i, w, mode="max", sparse=True), (IDX2, rand(6, 3)),
     "max mode does not support sparse weights"),
    (lambda m, i, w, p: F(m).embedding_bag(i, w, per_sample_weights=p), (IDX2, rand(6, 3), rand(3, 4)),
     "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
     "(got mode='mean')"),
    (lambda m, i, w, p: F(m).embedding_bag(i, w, per_sample_weights=p, mode="max"), (IDX2, rand(6, 3), rand(3, 4)),
     "(got mode='max')"),
    (lambda m, i, w, p: F(m).embedding_bag(i, w, per_sample_weights=p, mode="sum"), (IDX2, rand(6, 3), rand(12)),
     "embedding_bag: If per_sample_weights (torch.Size([12])) is not None, then it must have the same shape as the "
     "input (torch.Size([3, 4]))"),
    (lambda m, i, w, p: F(m).embedding_bag(i, w, per_sample_weights=p, mode="sum"),
     (IDX2, rand(6, 3), randint(0, 3, 3, 4)),
     "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
     "'per_sample_weights'"),
    (lambda m, i, w: F(m).embedding_bag(i, w), (IDX2.astype(np.float32), rand(6, 3)),
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int"),
    (lambda m, i, w: F(m).embedding_bag(i, w), (IDX2, randint(0, 3, 6, 3)),
     "Expected tensor for argument #1 'weight' to have one of the following scalar types"),
    (lambda m, i, w: F(m).embedding_bag(i, w, padding_idx=6), (IDX2, rand(6, 3)),
     "padding_idx must be within the number of embeddings, -6 through 5, but got 6"),
    (lambda m, i, w: F(m).embedding_bag(i, w, padding_idx=-7), (IDX2, rand(6, 3)),
     "padding_idx must be within the number of embeddings, -6 through 5, but got -7"),
    (lambda m, i, w: F(m).embedding_bag(i, w), (np.zeros((3, 0), np.int64), rand(6, 3)), "step must be nonzero"),
])
def test_errors(device, fn, args, match):
    check_error(fn, *args, device=device, match=match)


def test_offsets_computed_on_device_are_checked(device):
    """Offsets whose values the backend does not know (computed on the device) are still checked."""
    w = webtorch.tensor(rand(6, 3), device=device)
    i = webtorch.tensor(IDX1, device=device)
    bad = webtorch.tensor([1, 3], device=device) * 1 + 0
    with pytest.raises(RuntimeError, match=r"offsets\[0\] has to be 0"):
        F(webtorch).embedding_bag(i, w, bad)
    with pytest.raises(RuntimeError, match=r"Index 0 of input takes value 7"):
        F(webtorch).embedding_bag(i * 0 + 7, w, webtorch.tensor([0], device=device))
