"""webtorch.legacy.nn (Lua Torch's nn): the seed examples of Lua's docs, getParameters, and gradients equal
to PyTorch's for the layers and criteria. Lua modules have no device argument: these tests run on cpu."""
import numpy as np
import pytest
import torch

import webtorch
from webtorch.legacy import nn
from optest import rand

W = webtorch.tensor


def _np(t):
    return t.detach().cpu().numpy()


def close(a, b, tol=1e-5):
    np.testing.assert_allclose(_np(a) if not isinstance(a, np.ndarray) else a,
                               b.detach().numpy() if isinstance(b, torch.Tensor) else b, rtol=1e-4, atol=tol)


# ---- the seed examples of Lua's module.md ------------------------------------------------------------------

def test_share_bias():
    mlp1 = nn.Sequential().add(nn.Linear(100, 10))
    mlp2 = nn.Sequential().add(nn.Linear(100, 10))
    mlp2.share(mlp1, "bias")
    mlp1.get(1).bias.fill_(1)
    np.testing.assert_array_equal(_np(mlp2.get(1).bias), np.ones(10, np.float32))
    assert not np.array_equal(_np(mlp1.get(1).weight), _np(mlp2.get(1).weight))
    mlp1.get(1).weight.fill_(2)
    assert not np.any(_np(mlp2.get(1).weight) == 2)


def test_clone_shares_named_fields_only():
    mlp1 = nn.Sequential().add(nn.Linear(100, 10))
    mlp2 = mlp1.clone("weight", "bias")
    mlp1.get(1).weight.fill_(1)
    mlp1.get(1).bias.fill_(3)
    np.testing.assert_array_equal(_np(mlp2.get(1).weight), np.ones((10, 100), np.float32))
    np.testing.assert_array_equal(_np(mlp2.get(1).bias), np.full(10, 3, np.float32))
    assert mlp2.get(1) is not mlp1.get(1) and mlp2.get(1).gradWeight is not mlp1.get(1).gradWeight
    plain = mlp1.clone()
    mlp1.get(1).weight.fill_(5)
    np.testing.assert_array_equal(_np(plain.get(1).weight), np.ones((10, 100), np.float32))


def test_find_modules_spatial_convolution():
    model = nn.ParallelTable()
    conv_branch = nn.Sequential()
    conv_branch.add(nn.SpatialConvolution(3, 16, 5, 5))
    conv_branch.add(nn.Tanh())
    model.add(conv_branch)
    fc_branch = nn.Sequential()
    fc_branch.add(nn.Linear(100, 100))
    fc_branch.add(nn.Tanh())
    model.add(fc_branch)
    conv_nodes, containers = model.findModules("nn.SpatialConvolution")
    assert len(conv_nodes) == 1 and conv_nodes[0] is conv_branch.get(1) and containers[0] is conv_branch
    assert nn.typename(conv_nodes[0]) == "nn.SpatialConvolution"
    tanh_nodes, tanh_containers = model.findModules("nn.Tanh")
    assert tanh_nodes == [conv_branch.get(2), fc_branch.get(2)]
    assert tanh_containers == [conv_branch, fc_branch]
    assert model.findModules("nn.ParallelTable") == ([model], [model])


def test_replace_every_threshold_with_tanh():
    model = nn.ParallelTable()
    conv_table = nn.Sequential()
    conv_table.add(nn.SpatialConvolution(1, 2, 3, 3))
    conv_table.add(nn.Threshold())
    model.add(conv_table)
    model.add(nn.SpatialConvolution(1, 2, 3, 3))
    threshold_nodes, container_nodes = model.findModules("nn.Threshold")
    assert len(threshold_nodes) == 1
    for node, container in zip(threshold_nodes, container_nodes):
        for j, m in enumerate(container.modules):
            if m is node:
                container.modules[j] = nn.Tanh()
    assert model.findModules("nn.Threshold") == ([], [])
    assert nn.typename(conv_table.get(2)) == "nn.Tanh"
    x = W(rand(1, 5, 5))
    out = model.forward([x, x])
    conv = conv_table.get(1)
    ref = torch.tanh(torch.nn.functional.conv2d(torch.tensor(_np(x)), torch.tensor(_np(conv.weight)),
                                                torch.tensor(_np(conv.bias))))
    close(out[0], ref)


# ---- getParameters -------------------------------------------------------------------------------------

def _mlp():
    return nn.Sequential().add(nn.Linear(4, 6)).add(nn.Tanh()).add(nn.Linear(6, 3))


def test_get_parameters_views_one_storage():
    mlp = _mlp()
    before = [_np(p).copy() for p in mlp.parameters()[0]]
    flat, gflat = mlp.getParameters()
    assert tuple(flat.shape) == (4 * 6 + 6 + 6 * 3 + 3,) and tuple(gflat.shape) == tuple(flat.shape)
    np.testing.assert_array_equal(_np(flat), np.concatenate([b.ravel() for b in before]))
    params, grads = mlp.parameters()
    assert all(p._version is flat._version for p in params)
    assert all(g._version is gflat._version for g in grads)
    flat.fill_(0.5)
    np.testing.assert_array_equal(_np(mlp.get(3).bias), np.full(3, 0.5, np.float32))
    # a second call keeps the layout
    flat2, _ = mlp.getParameters()
    np.testing.assert_array_equal(_np(flat2), _np(flat))


def test_get_parameters_sgd_step_on_flat_tensor():
    mlp = _mlp()
    crit = nn.MSECriterion()
    flat, gflat = mlp.getParameters()
    x, y = W(rand(5, 4)), W(rand(5, 3))
    # the same step in PyTorch, from the same weights
    tl = [torch.nn.Linear(4, 6), torch.nn.Linear(6, 3)]
    with torch.no_grad():
        for t, m in zip(tl, (mlp.get(1), mlp.get(3))):
            t.weight.copy_(torch.tensor(_np(m.weight)))
            t.bias.copy_(torch.tensor(_np(m.bias)))
    tx, ty = torch.tensor(_np(x)), torch.tensor(_np(y))
    for step in range(3):
        gflat.zero_()
        out = mlp.forward(x)
        loss = crit.forward(out, y)
        mlp.backward(x, crit.backward(out, y))
        flat.add_(gflat, alpha=-0.1)
        tloss = torch.nn.functional.mse_loss(tl[1](torch.tanh(tl[0](tx))), ty)
        for t in tl:
            t.zero_grad()
        tloss.backward()
        with torch.no_grad():
            for t in tl:
                for p in t.parameters():
                    p.add_(p.grad, alpha=-0.1)
        assert abs(loss - tloss.item()) < 1e-5
    close(mlp.get(1).weight, tl[0].weight)
    close(mlp.get(3).bias, tl[1].bias)


def test_get_parameters_keeps_shared_parameters_shared():
    a = nn.Linear(3, 2)
    b = a.clone("weight", "bias", "gradWeight", "gradBias")
    net = nn.Concat(1).add(a).add(b)
    flat, gflat = net.getParameters()
    assert flat.numel() == 3 * 2 + 2
    assert a.weight._version is b.weight._version and a.weight.storage_offset() == b.weight.storage_offset()
    flat.zero_()
    assert not np.any(_np(b.weight))
    # sharing parameters but not their gradients is rejected, as in Lua
    c = nn.Linear(3, 2)
    d = c.clone("weight", "bias")
    with pytest.raises(RuntimeError, match="check that you are sharing parameters and gradParameters"):
        nn.Concat(1).add(c).add(d).getParameters()


# ---- gradients against torch.nn ---------------------------------------------------------------------

def _copy_into(torch_layer, ours):
    with torch.no_grad():
        torch_layer.weight.copy_(torch.tensor(_np(ours.weight)))
        torch_layer.bias.copy_(torch.tensor(_np(ours.bias)))


@pytest.mark.parametrize("shape", [(5,), (3, 5)])
def test_linear_gradients_match_torch(shape):
    lin = nn.Linear(5, 4)
    ref = torch.nn.Linear(5, 4)
    _copy_into(ref, lin)
    x, g = rand(*shape), rand(*(shape[:-1] + (4,)))
    xin = W(x)
    out = lin.forward(xin)
    gi = lin.backward(xin, W(g), 0.5)
    tx = torch.tensor(x, requires_grad=True)
    tout = ref(tx)
    tout.backward(torch.tensor(g))
    close(out, tout)
    close(gi, tx.grad)
    close(lin.gradWeight, 0.5 * ref.weight.grad)
    close(lin.gradBias, 0.5 * ref.bias.grad)
    # accGradParameters accumulates, scaled
    lin.accGradParameters(xin, W(g), 2)
    close(lin.gradWeight, 2.5 * ref.weight.grad)
    lin.zeroGradParameters()
    assert not np.any(_np(lin.gradWeight)) and not np.any(_np(lin.gradBias))


def test_spatial_convolution_gradients_match_torch():
    conv = nn.SpatialConvolution(3, 4, 3, 2, 2, 1, 1, 0)  # kW=3, kH=2, dW=2, dH=1, padW=1, padH=0
    assert tuple(conv.weight.shape) == (4, 3, 2, 3)
    ref = torch.nn.Conv2d(3, 4, (2, 3), stride=(1, 2), padding=(0, 1))
    _copy_into(ref, conv)
    for shape in [(2, 3, 6, 7), (3, 6, 7)]:
        conv.zeroGradParameters()
        ref.zero_grad()
        x = W(rand(*shape))
        out = conv.forward(x)
        tx = torch.tensor(_np(x), requires_grad=True)
        tout = ref(tx)
        close(out, tout)
        g = rand(*tout.shape)
        gi = conv.backward(x, W(g))
        tout.backward(torch.tensor(g))
        close(gi, tx.grad)
        close(conv.gradWeight, ref.weight.grad)
        close(conv.gradBias, ref.bias.grad)


def test_spatial_convolution_default_init_bound():
    webtorch.manual_seed(0)
    conv = nn.SpatialConvolution(4, 8, 3, 3)
    bound = 1 / np.sqrt(3 * 3 * 4)
    w = _np(conv.weight)
    assert w.max() <= bound and w.min() >= -bound and w.max() > 0.9 * bound
    assert conv.padH == conv.padW == 0 and (conv.dW, conv.dH) == (1, 1)


def test_sequential_backward_matches_torch_autograd():
    net = nn.Sequential()
    net.add(nn.SpatialConvolution(1, 2, 3, 3, 1, 1, 1, 1)).add(nn.ReLU()).add(nn.SpatialMaxPooling(2, 2))
    net.add(nn.View(2 * 3 * 3)).add(nn.Linear(18, 5)).add(nn.LogSoftMax())
    crit = nn.ClassNLLCriterion()
    x = W(rand(4, 1, 6, 6))
    target = W(np.array([1, 5, 2, 5]))
    out = net.forward(x)
    loss = crit.forward(out, target)
    gi = net.backward(x, crit.backward(out, target))
    conv, lin = net.get(1), net.get(5)
    tconv, tlin = torch.nn.Conv2d(1, 2, 3, padding=1), torch.nn.Linear(18, 5)
    _copy_into(tconv, conv)
    _copy_into(tlin, lin)
    tx = torch.tensor(_np(x), requires_grad=True)
    h = torch.nn.functional.max_pool2d(torch.relu(tconv(tx)), 2).reshape(4, 18)
    tloss = torch.nn.functional.nll_loss(torch.log_softmax(tlin(h), 1), torch.tensor([0, 4, 1, 4]))
    tloss.backward()
    assert abs(loss - tloss.item()) < 1e-5
    close(gi, tx.grad)
    close(conv.gradWeight, tconv.weight.grad)
    close(lin.gradWeight, tlin.weight.grad)
    close(lin.gradBias, tlin.bias.grad)
    w_before = _np(lin.weight).copy()
    net.updateParameters(0.1)
    np.testing.assert_allclose(_np(lin.weight), w_before - 0.1 * tlin.weight.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_acc_update_grad_parameters():
    lin = nn.Linear(3, 2)
    ref = torch.nn.Linear(3, 2)
    _copy_into(ref, lin)
    x, g = W(rand(4, 3)), W(rand(4, 2))
    lin.forward(x)
    lin.updateGradInput(x, g)
    w0 = _np(lin.weight).copy()
    lin.accUpdateGradParameters(x, g, 0.5)
    ref(torch.tensor(_np(x))).backward(torch.tensor(_np(g)))
    np.testing.assert_allclose(_np(lin.weight), w0 - 0.5 * ref.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
    assert not np.any(_np(lin.gradWeight))


@pytest.mark.parametrize("size_average", [True, False])
def test_criteria_match_torch(size_average):
    x, y = rand(4, 5), rand(4, 5)
    mse = nn.MSECriterion(size_average)
    tx = torch.tensor(x, requires_grad=True)
    tl = torch.nn.functional.mse_loss(tx, torch.tensor(y), reduction="mean" if size_average else "sum")
    tl.backward()
    xin, yin = W(x), W(y)
    assert abs(mse.forward(xin, yin) - tl.item()) < 1e-5
    close(mse.backward(xin, yin), tx.grad)

    labels = np.array([1, 5, 3, 3])  # Lua labels, 1-based
    weights = rand(5, low=0.5, high=2.0)
    for crit, fn in [(nn.ClassNLLCriterion(W(weights), size_average), torch.nn.functional.nll_loss),
                     (nn.CrossEntropyCriterion(W(weights), size_average), torch.nn.functional.cross_entropy)]:
        xin, tgt = W(x), W(labels)
        tx = torch.tensor(x, requires_grad=True)
        tl = fn(tx, torch.tensor(labels - 1), torch.tensor(weights), reduction="mean" if size_average else "sum")
        tl.backward()
        assert abs(crit.forward(xin, tgt) - tl.item()) < 1e-5, nn.typename(crit)
        close(crit.backward(xin, tgt), tx.grad)


def test_class_nll_single_sample_and_bad_label():
    crit = nn.ClassNLLCriterion()
    x = W(rand(5))
    assert abs(crit.forward(x, 3) + float(_np(x)[2])) < 1e-6
    np.testing.assert_array_equal(_np(crit.backward(x, 3)), np.array([0, 0, -1, 0, 0], np.float32))
    with pytest.raises(IndexError, match="1-based"):
        crit.forward(W(rand(2, 5)), W(np.array([0, 2])))
    out, grad = nn.CrossEntropyCriterion()(W(rand(2, 5)), W(np.array([5, 1])))
    assert isinstance(out, float) and tuple(grad.shape) == (2, 5)


# ---- containers ----------------------------------------------------------------------------------------

def test_concat_and_parallel_table_gradients():
    a, b = nn.Linear(3, 2), nn.Linear(3, 4)
    cat = nn.Concat(2).add(a).add(b)
    x, g = W(rand(5, 3)), W(rand(5, 6))
    out = cat.forward(x)
    gi = cat.backward(x, g)
    ta, tb = torch.nn.Linear(3, 2), torch.nn.Linear(3, 4)
    _copy_into(ta, a)
    _copy_into(tb, b)
    tx = torch.tensor(_np(x), requires_grad=True)
    tout = torch.cat([ta(tx), tb(tx)], 1)
    tout.backward(torch.tensor(_np(g)))
    close(out, tout)
    close(gi, tx.grad)
    close(b.gradWeight, tb.weight.grad)

    pt = nn.ParallelTable().add(nn.Tanh()).add(nn.Sigmoid())
    u, v = W(rand(3)), W(rand(2, 2))
    outs = pt.forward([u, v])
    grads = pt.backward([u, v], [W(np.ones(3, np.float32)), W(np.ones((2, 2), np.float32))])
    close(outs[0], np.tanh(_np(u)))
    close(grads[1], torch.sigmoid(torch.tensor(_np(v))) * (1 - torch.sigmoid(torch.tensor(_np(v)))))
    with pytest.raises(ValueError, match="table"):
        pt.forward(u)


def test_container_api_is_one_based():
    seq = nn.Sequential().add(nn.Linear(2, 3)).add(nn.Tanh())
    assert seq.size() == 2 and nn.typename(seq.get(1)) == "nn.Linear" and seq.get(-1) is seq.modules[1]
    with pytest.raises(IndexError, match="1..2"):
        seq.get(0)
    seq.insert(nn.Sigmoid(), 2)
    assert [nn.typename(m) for m in seq.modules] == ["nn.Linear", "nn.Sigmoid", "nn.Tanh"]
    assert nn.typename(seq.remove()) == "nn.Tanh" and seq.size() == 2
    w, gw = seq.parameters()
    assert len(w) == len(gw) == 2
    assert "[input -> (1) -> (2) -> output]" in repr(seq)


def test_training_evaluate_and_dropout():
    seq = nn.Sequential().add(nn.Dropout(0.5))
    x = W(np.ones((200, 50), np.float32))
    webtorch.manual_seed(0)
    y = _np(seq.forward(x))
    assert set(np.unique(y)) == {0.0, 2.0} and abs((y == 0).mean() - 0.5) < 0.03
    gi = _np(seq.backward(x, W(np.ones((200, 50), np.float32))))
    np.testing.assert_array_equal(gi, y)  # the same mask scales the gradient
    seq.evaluate()
    assert seq.train is False and seq.get(1).train is False
    np.testing.assert_array_equal(_np(seq.forward(x)), _np(x))
    v1 = nn.Dropout(0.25, True).evaluate()
    np.testing.assert_allclose(_np(v1.forward(x)), 0.75 * _np(x))
    seq.training()
    assert seq.get(1).train is True


# ---- simple and transfer layers ------------------------------------------------------------------------

def test_reshape_and_view():
    x = W(rand(2, 6))
    assert tuple(nn.Reshape(3, 4).forward(x).shape) == (3, 4)
    assert tuple(nn.Reshape(2, 3).forward(x).shape) == (2, 2, 3)  # the batch dimension is kept
    assert tuple(nn.Reshape(12, True).forward(W(rand(1, 12))).shape) == (1, 12)
    assert tuple(nn.Reshape(12).forward(W(rand(1, 12))).shape) == (1, 12)
    assert tuple(nn.View(-1).forward(x).shape) == (12,)
    assert tuple(nn.View(3, 2).forward(x).shape) == (2, 3, 2)
    v = nn.View(6).setNumInputDims(1)
    assert tuple(v.forward(W(rand(4, 6))).shape) == (4, 6)
    assert tuple(nn.View(-1, 3).setNumInputDims(2).forward(W(rand(5, 2, 6))).shape) == (5, 4, 3)
    with pytest.raises(ValueError, match="do not match"):
        nn.View(5).forward(x)
    r = nn.Reshape(3, 4)
    r.forward(x)
    gi = r.backward(x, W(rand(3, 4)))
    assert tuple(gi.shape) == (2, 6)


def test_transfer_functions_match_torch():
    x = rand(3, 4, 5, 2)
    tx = torch.tensor(x)
    for m, ref in [(nn.Tanh(), torch.tanh(tx)), (nn.Sigmoid(), torch.sigmoid(tx)), (nn.ReLU(), torch.relu(tx)),
                   (nn.Threshold(0.3, -2), torch.nn.functional.threshold(tx, 0.3, -2)),
                   (nn.SoftMax(), torch.softmax(tx, 1)), (nn.LogSoftMax(), torch.log_softmax(tx, 1))]:
        close(m.forward(W(x)), ref)
    close(nn.SoftMax().forward(W(x[0])), torch.softmax(tx[0], 0))  # a feature map: softmax over planes
    close(nn.LogSoftMax().forward(W(x[0, 0])), torch.log_softmax(tx[0, 0], 1))
    # gradients through autograd
    sm = nn.SoftMax()
    xin, g = W(x[0, :, :, 0]), rand(4, 5)
    sm.forward(xin)
    t = torch.tensor(x[0, :, :, 0], requires_grad=True)
    torch.softmax(t, 1).backward(torch.tensor(g))
    close(sm.backward(xin, W(g)), t.grad)


def test_inplace_relu_writes_into_input():
    x = W(rand(3, 4))
    before = _np(x).copy()
    relu = nn.ReLU(True)
    out = relu.forward(x)
    assert out is x
    np.testing.assert_array_equal(_np(x), np.maximum(before, 0))
    gi = relu.backward(x, W(np.ones((3, 4), np.float32)))
    np.testing.assert_array_equal(_np(gi), (before > 0).astype(np.float32))
    with pytest.raises(ValueError, match="in-place"):
        nn.Threshold(0, 1, True)


def test_type_conversion_keeps_sharing():
    a = nn.Linear(3, 2)
    b = a.clone("weight", "bias", "gradWeight", "gradBias")
    net = nn.Sequential().add(a).add(b)
    assert net.type() == "torch.FloatTensor"
    net.double()
    assert a.weight.dtype is webtorch.float64 and a.gradBias.dtype is webtorch.float64
    assert a.weight is b.weight
    assert net.type() == "torch.DoubleTensor"
    out = a.forward(W(rand(2, 3)).double())
    assert out.dtype is webtorch.float64
    with pytest.raises(ValueError, match="torch.CudaTensor"):
        net.type("torch.CudaTensor")
    crit = nn.MSECriterion().double()
    assert crit.type() == "torch.DoubleTensor"


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="expects 4 \\(inputSize\\)|4 \\(inputSize\\)"):
        nn.Linear(4, 2).forward(W(rand(3, 5)))
    with pytest.raises(ValueError, match="nInputPlane"):
        nn.SpatialConvolution(3, 2, 3, 3).forward(W(rand(2, 7, 7)))
    lin = nn.Linear(4, 2)
    x = W(rand(3, 4))
    lin.forward(x)
    with pytest.raises(ValueError, match="gradOutput of size"):
        lin.backward(x, W(rand(3, 3)))
    with pytest.raises(TypeError, match="legacy nn module"):
        nn.Sequential().add(webtorch.nn.Linear(2, 2))


def test_call_runs_forward_and_backward():
    lin = nn.Linear(3, 2)
    x = W(rand(3))
    out, gi = lin(x, W(np.ones(2, np.float32)))
    assert tuple(out.shape) == (2,) and tuple(gi.shape) == (3,)
    np.testing.assert_allclose(_np(gi), _np(lin.weight).sum(0), rtol=1e-6)
