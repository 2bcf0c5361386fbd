"""Run the Python Array API standard's test suite (data-apis/array-api-tests, checked out at
SUITE_DIR with its array-api spec submodule) against loom.array_api and against NumPy with the
same settings, and print both pass counts.

    python tools/array_api_suite.py SUITE_DIR [--max-examples 20] [--only loom|numpy] [-- pytest args]
"""
import argparse
import os
import re
import subprocess
import sys


def run(suite, module, max_examples, extra):
    env = dict(os.environ, ARRAY_API_TESTS_MODULE=module, ARRAY_API_TESTS_VERSION="2024.12")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--disable-deadline",
           f"--max-examples={max_examples}", "--hypothesis-seed=0", *extra]
    if not any(a.startswith("array_api_tests") for a in extra):
        cmd.append("array_api_tests")
    p = subprocess.run(cmd, cwd=suite, env=env, capture_output=True, text=True)
    tail = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr[-2000:]
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|error|errors|xfailed)", tail)}
    return counts, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suite")
    ap.add_argument("--max-examples", type=int, default=20)
    ap.add_argument("--only", choices=("loom", "numpy"))
    ap.add_argument("--log", help="write each run's pytest output to LOG.loom / LOG.numpy")
    ap.add_argument("pytest_args", nargs="*")
    a = ap.parse_args()
    for name, module in (("loom", "loom.array_api"), ("numpy", "numpy")):
        if a.only and a.only != name:
            continue
        counts, out = run(a.suite, module, a.max_examples, a.pytest_args)
        if a.log:
            with open(f"{a.log}.{name}", "w") as f:
                f.write(out)
        total = sum(counts.values())
        print(f"{name:6s} ({module}): {counts.get('passed', 0)} passed of {total} "
              f"({', '.join(f'{v} {k}' for k, v in counts.items())})", flush=True)


if __name__ == "__main__":
    main()
