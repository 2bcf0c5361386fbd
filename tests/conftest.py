import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))   # the op model (codegen) drives the generated tests


def pytest_runtest_logreport(report):
    """With LOOM_FAILURE_LOG set, each failure is appended there as it happens: a run cut off by
    its time limit (the lent GPU machine's) still says what failed."""
    path = os.environ.get("LOOM_FAILURE_LOG")
    if path and report.failed and not os.environ.get("PYTEST_XDIST_WORKER"):
        with open(path, "a") as f:
            f.write(f"FAILED {report.nodeid} ({report.when})\n{report.longreprtext[-4000:]}\n\n")
