"""dtypes.yaml is the one place a dtype is declared: its promotion lattice is
PyTorch's, and a dtype added to it (in a throwaway copy of the tree) reaches
every generated place and compiles, with nothing else edited."""
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import loom
from codegen import dtypes, model
from conftest import ROOT

torch = pytest.importorskip("torch", reason="PyTorch is not installed: its promotion table is the reference")

UINT16 = """
- name: uint16
  torch: UInt16
  c: uint16_t
  cuda: uint16_t
  category: integral
  bits: 16
  signed: false
  numpy: uint16
  dlpack: [1, 16]
  aliases: [ushort]
  sets: [numeric, integral, integral_and_bool]
"""


def _promoted(mod, a, b):
    """The name of promote_types(a, b) in torch or loom, or the message of its refusal."""
    try:
        return str(mod.promote_types(getattr(mod, a), getattr(mod, b))).removeprefix("torch.").removeprefix("loom.")
    except RuntimeError as e:
        return str(e)


def test_promotion_lattice_is_pytorchs():
    names = [d.name for d in dtypes.TABLE.dtypes]
    for a in names:
        for b in names:
            assert _promoted(loom, a, b) == _promoted(torch, a, b), (a, b)


def test_a_malformed_row_names_its_line(tmp_path):
    p = tmp_path / "dtypes.yaml"
    p.write_text(dtypes.PATH.read_text() + "\n- name: int16\n  torch: Short\n  c: int16_t\n  cuda: int16_t\n  category: intgral\n"
                 "  bits: 16\n  numpy: int16\n  dlpack: [0, 16]\n")
    with pytest.raises(Exception, match=r"dtypes.yaml:\d+: category is one of bool, integral, floating, complex"):
        dtypes.load(p)


@pytest.fixture(scope="module")
def with_uint16(tmp_path_factory):
    """A copy of the generator's inputs with uint16 as a full integral dtype (a throwaway row, in every
    integral set, in place of the barebones one) added last to dtypes.yaml, generated."""
    root = tmp_path_factory.mktemp("dtype")
    for name in ("codegen", "ops", "derivatives", "native", "python"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    table = re.sub(r"\n- name: uint16\n(  .*\n)+", "\n", (ROOT / "dtypes.yaml").read_text())
    (root / "dtypes.yaml").write_text(table + UINT16)
    out = root / "gen"
    r = subprocess.run([sys.executable, "-m", "codegen", "--out", str(out)], cwd=root, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return root, out


def test_a_new_dtype_reaches_every_generated_place(with_uint16):
    root, out = with_uint16
    h = (out / "dtype.h").read_text()
    code = len(dtypes.TABLE.dtypes) - 1   # the new row's: the last, in place of the barebones uint16
    assert f"LM_UINT16 = {code}," in h and f"LM_NUM_DTYPES = {code + 1}" in h and '"uint16"' in h
    assert "LM_DISPATCH_CASE(LM_UINT16, uint16_t, T, __VA_ARGS__)" in h
    assert "X(LM_UINT16, uint16_t, uint16)" in h.split("#define LM_FOR_EACH_INTEGRAL(X)")[1].splitlines()[0]
    rows = h.split("lm_promote_table[LM_NUM_DTYPES][LM_NUM_DTYPES] = {")[1].split("};")[0].strip().splitlines()
    assert len(rows) == code + 1
    assert f"LM_UINT16 = {code}," in (out / "cdef.h").read_text()   # cffi sees the same enum
    table = (out / "_dtype_table.py").read_text()
    assert f"('uint16', {code}, 'integral', 2, 'uint16', (1, 16), ('ushort',), False, 'UInt16')" in table
    assert "ushort: dtype" in (out / "__init__.pyi").read_text()
    shards = "".join(p.read_text() for p in out.glob("ops_shard*.c"))
    assert "add_Tensor_loop_uint16" in shards   # `dtypes: all` ops serve it
    assert "exp_loop_uint16" not in shards      # floating-only ops do not


def test_a_new_dtype_compiles(with_uint16):
    """Every hand-written C file and the generated dispatch compile against the grown table."""
    root, out = with_uint16
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on PATH")
    srcs = sorted((root / "native/core").glob("*.c")) + sorted((root / "native/cpu").glob("*.c"))
    srcs += sorted((root / "native/cuda").glob("host_*.c")) + sorted(out.glob("ops_shard*.c"))
    inc = ["-I", str(out), "-I", str(root / "native/core"), "-I", str(root / "native"), "-I", str(root / "native/cpu"),
           "-I", str(root / "native/cuda"), "-I", sysconfig.get_paths()["include"]]
    r = subprocess.run([cc, "-std=gnu11", "-fsyntax-only", "-fopenmp", "-Werror=implicit-function-declaration",
                        *inc, *map(str, srcs)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]


def test_the_model_reads_sets_from_the_table():
    # `all` is every dtype but the complex and the barebones unsigned ones (AT_DISPATCH_ALL_TYPES);
    # *_and_complex add the complex ones, and ops serving the barebones ones list their set
    plain = tuple(d.name for d in dtypes.TABLE.dtypes if d.category != "complex" and not d.barebones)
    assert model.DTYPE_SETS["all"] == plain
    assert model.DTYPE_SETS["all_and_complex"] == tuple(d.name for d in dtypes.TABLE.dtypes if not d.barebones)
    assert model.DTYPE_SETS["barebones_unsigned"] == ("uint16", "uint32", "uint64")
    assert model.DTYPE_SETS["floating_and_complex"] == model.DTYPE_SETS["floating"] + ("complex64", "complex128")
    assert set(model.DTYPE_SETS["floating"]) == {d.name for d in dtypes.TABLE.dtypes if d.category == "floating"}
