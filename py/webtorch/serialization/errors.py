"""The one error type of the zip checkpoint reader."""
import pickle


class CheckpointError(RuntimeError, pickle.UnpicklingError):
    """A checkpoint file is malformed, truncated or hostile, or holds globals that are not allowed (also a
    pickle.UnpicklingError, what torch.load raises, and a RuntimeError, what its zip reader raises)."""
