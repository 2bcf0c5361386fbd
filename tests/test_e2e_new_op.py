"""The contributor's promise, end to end: in a copy of the source tree, add a
pointwise op with tools/new_op.py and its three filled-in placeholders (one
ops/ entry, one derivatives/ line, one kernel), build that copy with
pip, and check that the op works as a function, a method, in place and with
out=, with the right values and gradients, and that the generated tests run it.

One build of the whole package (about a minute on 2 cores): deselect locally
with `-m "not e2e"`; CI runs it."""
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import sandbox  # noqa: E402

pytest.importorskip("mesonpy", reason="the end-to-end build needs meson-python (pip install '.[test]')")
pytestmark = pytest.mark.e2e

OP = "e2e_cube"

CHECK = textwrap.dedent(f"""
    import json, numpy as np, loom
    x = loom.tensor([[-1.5, 0.0, 2.0], [0.5, 3.0, -2.0]])
    want = x.numpy() ** 3
    out = loom.empty(2, 3)
    y = x.clone()
    r = {{
        "function": loom.{OP}(x).numpy().ravel().tolist(),
        "method": x.{OP}().numpy().ravel().tolist(),
        "out_is_out": loom.{OP}(x, out=out) is out,
        "out": out.numpy().ravel().tolist(),
        "inplace_is_self": y.{OP}_() is y,
        "inplace": y.numpy().ravel().tolist(),
        "int": loom.{OP}(loom.tensor([2, -3])).numpy().ravel().tolist(),
        "want": want.ravel().tolist(),
    }}
    w = loom.tensor([0.5, -2.0, 3.0], dtype=loom.float64, requires_grad=True)
    loom.{OP}(w).sum().backward()
    r["grad"], r["grad_want"] = w.grad.numpy().ravel().tolist(), (3 * w.detach().numpy() ** 2).tolist()
    r["grad_fn"] = type(loom.{OP}(w).grad_fn).__name__
    r["gradcheck"] = loom.autograd.gradcheck(loom.{OP}, (w,))
    r["gradgradcheck"] = loom.autograd.gradgradcheck(loom.{OP}, (w,))
    r["doc"] = loom.{OP}.__doc__
    print(json.dumps(r))
""")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(copy of the tree with the new op, python of a venv where that copy is installed)."""
    work = tmp_path_factory.mktemp("e2e")
    root = sandbox.copy_tree(work / "src")
    r = subprocess.run([sys.executable, str(root / "tools/new_op.py"), OP, "--kind", "unary", "--root", str(root)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    kernel = root / f"native/kernels/pointwise/{OP}.h"
    assert "#error" in kernel.read_text()
    # the three placeholders new_op.py printed, filled in as a contributor would
    kernel.write_text(f"/* {OP}: x * x * x */\n#define LM_PW_{OP}(T, self) ((self) * (self) * (self))\n")
    _replace(root / "derivatives/pointwise.yaml", "FILL_IN(grad, self)", "3 * grad * self * self")
    _replace(root / "ops/pointwise.yaml", 'ref: "FILL_IN"', 'ref: "self ** 3"')
    _replace(root / "ops/pointwise.yaml", f"TODO one line on what {OP} computes.", "Elementwise cube, x * x * x.")
    python = sandbox.make_venv(work / "venv")
    # -O0 and no CUDA: the build is what is under test, not the speed of its loops (-O1 took 60% longer);
    # the new op's CUDA kernels are compiled on their own below (the whole CUDA build would take minutes)
    r = sandbox.pip_install(python, root, extra=["-Csetup-args=-Doptimization=0", "-Csetup-args=-Dcuda=disabled"],
                            env=sandbox.bin_env(python))
    assert r.returncode == 0, f"building the copy failed:\n{r.stdout[-3000:]}\n{r.stderr[-6000:]}"
    return root, python


def _replace(path, old, new):
    text = path.read_text()
    assert old in text, f"{path.name}: no {old!r} (did tools/new_op.py change its placeholders?)"
    path.write_text(text.replace(old, new))


def test_the_new_op_works_in_every_variant_with_gradients(built):
    root, python = built
    r = subprocess.run([str(python), "-c", CHECK], capture_output=True, text=True, cwd=root.parent,
                       env=sandbox.bin_env(python))
    assert r.returncode == 0, r.stderr[-4000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    for variant in ("function", "method", "out", "inplace"):
        assert got[variant] == pytest.approx(got["want"]), variant
    assert got["out_is_out"] and got["inplace_is_self"]
    assert got["int"] == [8, -27]
    assert got["grad"] == pytest.approx(got["grad_want"])
    assert got["grad_fn"].startswith("E2eCube") and got["gradcheck"] and got["gradgradcheck"]
    assert "Elementwise cube" in got["doc"]


def test_the_generated_tests_pick_the_new_op_up(built):
    root, python = built
    r = subprocess.run([str(python), "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider", "-k", OP,
                        "tests/test_ops_generated.py", "tests/test_ops_variants.py", "tests/test_autograd_generated.py",
                        "tests/test_errors_generated.py"],
                       capture_output=True, text=True, cwd=root, env=sandbox.bin_env(python))
    tail = r.stdout[-3000:] + r.stderr[-2000:]
    assert r.returncode == 0, tail
    passed = re.search(r"(\d+) passed", r.stdout)
    assert passed and int(passed.group(1)) >= 10, tail
    assert "failed" not in r.stdout.splitlines()[-1], tail


NVCC = shutil.which("nvcc") or next((p for p in ("/usr/local/cuda/bin/nvcc",) if os.access(p, os.X_OK)), None)


@pytest.mark.skipif(NVCC is None, reason="nvcc not found: the CUDA kernels cannot be compiled here")
def test_the_new_op_gets_cuda_kernels_that_compile(built, tmp_path):
    # the copy's generator emits the CUDA shard holding the new op (the same body, instantiated per
    # dtype), and nvcc compiles it as meson would, to PTX for one architecture with the device
    # optimiser off (what can fail is the front ends' checks; ptxas runs on every shard in the build)
    root, python = built
    r = subprocess.run([str(python), "-m", "codegen", "--ops", "ops", "--native", "native", "--out", str(tmp_path)],
                       capture_output=True, text=True, cwd=root, env=sandbox.bin_env(python))
    assert r.returncode == 0, r.stderr[-3000:]
    shards = [p for p in sorted(tmp_path.glob("cuda_shard*.cu")) if f"LM_PW_{OP}(" in p.read_text()]
    assert len(shards) == 1, [p.name for p in tmp_path.glob("cuda_shard*.cu")]
    r = subprocess.run([NVCC, "-std=c++17", "-O0", "-Xcicc", "-O0", "-Xcompiler", "-fPIC", "--expt-relaxed-constexpr",
                        "-gencode", "arch=compute_90,code=compute_90", f"-I{tmp_path}", "-Inative/core", "-Inative",
                        "-Inative/cuda", "-c", str(shards[0]), "-o", str(tmp_path / "shard.o")],
                       capture_output=True, text=True, cwd=root)
    assert r.returncode == 0, r.stderr[-4000:]
    assert (tmp_path / "shard.o").stat().st_size > 0
