"""An error raised six webtorch frames deep, and the (file, line) of each of those frames as CPython running
webtorch from its sources names them: the tests of the wheel's line tables (webtorch/_line_tables.py) in the notebook
app, `webtorch run --browser` and JupyterLite compare the tracebacks they show with it."""
import re
import traceback

DEEP_ERROR = ("import webtorch\nfrom webtorch import nn\n"
              "nn.Sequential(nn.Unflatten(1, (4, 5)))(webtorch.zeros(2, 3))\n")
# a webtorch frame in Python's traceback (File ".../webtorch/ops/views.py", line 26) or IPython's (...views.py:26)
_FRAME = re.compile(r'/webtorch/((?:\w+/)*\w+\.py)(?:", line |:)(\w+)')


def webtorch_frames(text):
    """[(file inside the package, line as written)] of the webtorch frames in a formatted traceback."""
    return _FRAME.findall(re.sub(r"\x1b\[[0-9;]*m", "", text))  # IPython colours its tracebacks


def source_frames():
    """``webtorch_frames`` of DEEP_ERROR's traceback here, webtorch from its sources."""
    try:
        exec(DEEP_ERROR, {})  # noqa: S102 -- the case above
    except RuntimeError as e:
        frames = webtorch_frames("".join(traceback.format_exception(e)))
    if len(frames) < 6:
        raise AssertionError(f"DEEP_ERROR is no longer six webtorch frames deep: {frames}")
    return frames
