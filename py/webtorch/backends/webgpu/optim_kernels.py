"""WGSL kernels of the fused multi-tensor optimizer updates (adam_update, sgd_update, rmsprop_update, ...)."""
