"""loom.compile: PyTorch training scripts call torch.compile(model); loom has no compiler and
runs every op eagerly, so compile hands the callable back unchanged (once saying so)."""
import warnings

_warned = False


def compile(model=None, *args, **kwargs):
    """Return model (a function or Module) unchanged: loom runs eagerly, there is nothing to
    compile. Accepts and ignores torch.compile's arguments (fullgraph, dynamic, backend, mode,
    options, disable) so that scripts written for PyTorch run; warns once per process. Used as
    a decorator with arguments (``@loom.compile(mode="max-autotune")``) it returns the decorator."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn("loom.compile: loom runs eagerly; the model is returned unchanged", stacklevel=2)
    if model is None:
        return lambda fn: fn
    return model
