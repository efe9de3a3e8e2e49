"""PyTorch's legacy storage class names (how a checkpoint's persistent ids name a storage's dtype)."""

STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
    "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
}
# dtypes without a legacy storage class (float8): PyTorch writes their bytes as a torch.storage.UntypedStorage
# (its persistent id counts bytes) and names the dtype in _rebuild_tensor_v3
UNTYPED = "UntypedStorage"
