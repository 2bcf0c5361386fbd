"""loom's code generator: ops.yaml + derivatives.yaml -> C, cffi, Python, stubs."""
