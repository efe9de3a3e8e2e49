"""torch.onnx: importable (scripts import it at the top); exporting is not supported by webtorch."""


def is_in_onnx_export():
    return False


def export(*args, **kwargs):
    raise RuntimeError("torch.onnx.export is not supported by webtorch; save the weights with torch.save("
                       "model.state_dict(), path) and export from PyTorch, which loads them")
