"""torch.backends.cuda: CUDA math settings scripts set at start-up; without CUDA they change nothing."""


class _MatmulSettings:
    allow_tf32 = False
    allow_fp16_reduced_precision_reduction = True
    allow_bf16_reduced_precision_reduction = True


matmul = _MatmulSettings()


def is_built():
    return False


def _sdp_flag():
    """The setter and getter of one scaled-dot-product-attention backend flag (kept, never consulted)."""
    state = {"on": True}

    def enable(enabled):
        state["on"] = bool(enabled)
    return enable, lambda: state["on"]


enable_flash_sdp, flash_sdp_enabled = _sdp_flag()
enable_mem_efficient_sdp, mem_efficient_sdp_enabled = _sdp_flag()
enable_math_sdp, math_sdp_enabled = _sdp_flag()
enable_cudnn_sdp, cudnn_sdp_enabled = _sdp_flag()
