"""tools/new_op.py and python -m codegen --explain."""
import shutil
import subprocess
import sys

from conftest import ROOT


def _run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd)


def _copy(tmp_path):
    for name in ("ops", "derivatives"):
        shutil.copytree(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "native", tmp_path / "native")
    shutil.copytree(ROOT / "python/loom/_composites", tmp_path / "python/loom/_composites")
    return tmp_path


def _check(root):
    return _run("-m", "codegen", "--check", "--ops", str(root / "ops"), "--native", str(root / "native"))


def test_new_op_placeholders_fail_the_build_until_filled(tmp_path):
    root = _copy(tmp_path)
    r = _run(str(ROOT / "tools/new_op.py"), "cube", "--kind", "unary", "--root", str(root))
    assert r.returncode == 0, r.stderr
    assert "derivatives/pointwise.yaml" in r.stdout and "native/kernels/pointwise/cube.h" in r.stdout
    r = _check(root)
    assert r.returncode == 1 and "derivatives/pointwise.yaml:" in r.stderr and "FILL_IN" in r.stderr
    kernel = root / "native/kernels/pointwise/cube.h"
    assert "#error" in kernel.read_text()   # the C build stops there too
    kernel.write_text("#define LM_PW_cube(T, self) ((self) * (self) * (self))\n")
    (root / "derivatives/pointwise.yaml").write_text((root / "derivatives/pointwise.yaml").read_text().replace(
        "FILL_IN(grad, self)", "3 * grad * self * self"))
    (root / "ops/pointwise.yaml").write_text((root / "ops/pointwise.yaml").read_text().replace(
        'ref: "FILL_IN"', 'ref: "self ** 3"'))
    r = _check(root)
    assert r.returncode == 0, r.stderr


def test_new_op_kinds_and_refusals(tmp_path):
    root = _copy(tmp_path)
    for name, kind in (("pairwise_thing", "binary"), ("total_thing", "reduction"), ("combo_thing", "composite")):
        assert _run(str(ROOT / "tools/new_op.py"), name, "--kind", kind, "--root", str(root)).returncode == 0
    r = _check(root)
    assert r.returncode == 1 and "FILL_IN" in r.stderr
    r = _run(str(ROOT / "tools/new_op.py"), "exp", "--kind", "unary", "--root", str(root))
    assert r.returncode != 0 and "already in ops/pointwise.yaml" in r.stderr
    r = _run(str(ROOT / "tools/new_op.py"), "BadName", "--kind", "unary", "--root", str(root))
    assert r.returncode != 0 and "lower_snake_case" in r.stderr


def test_explain_shows_the_generated_pieces():
    r = _run("-m", "codegen", "--explain", "mul")
    assert r.returncode == 0, r.stderr
    for piece in ("mul.Tensor(Tensor self, Tensor other)", "__rmul__", "lm_op_mul_Tensor_inplace", "LM_PW_mul",
                  "MulBackwardTensor", "d/dself: grad * conj(other)", "forward mode:", "test_autograd_generated"):
        assert piece in r.stdout, piece
    r = _run("-m", "codegen", "--explain", "mm")
    assert "lm_cpu_mm" in r.stdout and "native/cpu/matmul.c" in r.stdout
    r = _run("-m", "codegen", "--explain", "mull")
    assert r.returncode == 1 and "did you mean 'mul'" in r.stderr
