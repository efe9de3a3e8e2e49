"""The kernel variants (kernel name, specialization) a webgpu kernel family can ask for: compiled on naga by
tests/backends/webgpu/ and on Tint by tests/browser/ (the *_tint suites)."""

# the convolution/pooling/padding/embedding family (tests/backends/webgpu/test_conv.py)
FAMILY_SHADERS = ("conv_igemm", "conv_unfold", "pool_max", "pool_avg", "pool_scatter_plane", "pool_gather_plane",
                  "pad_nd", "pad_backward", "embedding_gather", "embedding_count", "embedding_backward",
                  "embedding_renorm", "resample_taps")


def family_variants():
    """(kernel name, specialization) of every variant the family's Python side can ask for."""
    variants = [(name, {}) for name in FAMILY_SHADERS]
    variants += [("conv_igemm", dict(TM=f"{tm}u", TRANSPOSED=t, HAS_BIAS=b)) for tm in (16, 32, 64)
                 for t in (False, True) for b in (False, True)]
    variants += [("pool_max", dict(T=t, IS_FLOAT=t == "f32", ADAPTIVE=a)) for t in ("f32", "i32")
                 for a in (False, True)]
    variants += [("pool_avg", dict(T=t, BACKWARD=b)) for t in ("f32", "i32") for b in (False, True)]
    variants += [("pool_scatter_plane", dict(IS_FLOAT=f, ACCUMULATE=a)) for f in (False, True) for a in (False, True)]
    variants += [(n, dict(MODE=f"{m}u")) for n in ("pad_nd", "pad_backward") for m in range(4)]
    variants += [("conv_unfold", dict(FOLD=True)), ("embedding_backward", dict(SCALE_BY_FREQ=True))]
    variants += [("resample_taps", dict(HAS_WEIGHT=w, HAS_DIVISOR=d)) for w in (False, True) for d in (False, True)]
    return variants


# the row reductions (tests/backends/webgpu/test_subgroup_reduce.py)
ROW_KERNELS = ("softmax_forward", "softmax_backward", "layernorm_forward", "layernorm_backward",
               "batchnorm_forward", "batchnorm_backward")


def row_kernel_variants():
    """(name, specialization) of every row-kernel variant the backend may build."""
    out = []
    for name in ROW_KERNELS:
        if name.startswith("batchnorm"):
            out.append((name, {}))
            continue
        for wg_size, rt in ((64, 1), (64, 4), (64, 8), (64, 64), (128, 128), (256, 256)):
            spec = {"WG": f"{wg_size}u", "RT": f"{rt}u"}
            for log in ((False, True) if name.startswith("softmax") else (None,)):
                out.append((name, dict(spec, LOG=log) if log is not None else spec))
    return out
