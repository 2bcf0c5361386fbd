import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # the op model (codegen) drives the generated tests


# xdist hands tests out in collection order, and these files hold the long tests (float sweeps over
# the whole float32 range, builds, fresh interpreters): run first, they do not finish alone at the
# end of the run while the other workers idle.
_LONG = ("test_vmath", "test_e2e_", "test_kernels_nvcc", "test_leaks", "test_dtype_table", "test_cpu_capability",
         "test_cuda_host_logic", "test_examples_", "test_distributed", "test_data_workers", "test_parallel_backoff")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: not item.path.name.startswith(_LONG))


def pytest_runtest_logreport(report):
    """With LOOM_FAILURE_LOG set, each failure is appended there as it happens: a run cut off by
    its time limit (the lent GPU machine's) still says what failed."""
    path = os.environ.get("LOOM_FAILURE_LOG")
    if path and report.failed and not os.environ.get("PYTEST_XDIST_WORKER"):
        with open(path, "a") as f:
            f.write(f"FAILED {report.nodeid} ({report.when})\n{report.longreprtext[-4000:]}\n\n")
