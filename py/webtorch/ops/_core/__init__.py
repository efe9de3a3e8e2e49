"""The ops infrastructure every op family builds on: argument checks and backend dispatch (dispatch.py), the
elementwise machinery (elementwise.py: result dtypes, fast paths, in-place and operator wrappers), the one
in-place write (inplace.py), ``out=`` (out_arg.py) and the named-tuple return types (return_types.py).
The op catalogue is the family modules one level up (ops/*.py)."""
