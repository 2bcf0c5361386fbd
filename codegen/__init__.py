"""loom's code generator: ops/ + derivatives/ + dtypes.yaml -> C, cffi, Python, stubs."""
