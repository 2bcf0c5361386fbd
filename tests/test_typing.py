"""mypy checks a small user script against the generated stubs
(python/loom + the __init__.pyi the generator makes from ops.yaml): the script
type-checks cleanly and runs, and typing mistakes in a script are caught."""
import shutil
import subprocess
import sys
import textwrap

import pytest

from codegen import emit, model
from conftest import ROOT

pytest.importorskip("mypy", reason="the stub check needs mypy (pip install '.[test]')")
SCRIPT = ROOT / "tests/typing/user_script.py"


@pytest.fixture(scope="module")
def stubs(tmp_path_factory):
    """A directory holding the package as mypy should see it: sources plus the generated stub."""
    d = tmp_path_factory.mktemp("stubs")
    shutil.copytree(ROOT / "python/loom", d / "loom", ignore=shutil.ignore_patterns("__pycache__"))
    (d / "loom/__init__.pyi").write_text(emit.render(model.load(ROOT / "ops", ROOT / "native"),
                                                     ROOT / "native")["__init__.pyi"])
    return d


def _mypy(stubs, script):
    # silent: the hand-written modules mypy follows into are not what is checked here
    return subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary",
                           "--cache-dir", str(stubs / ".mypy_cache"), str(script)],
                          capture_output=True, text=True, env={"MYPYPATH": str(stubs), "PATH": ""}, cwd=stubs)


def test_user_script_type_checks_against_the_stubs(stubs):
    r = _mypy(stubs, SCRIPT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_user_script_runs():
    r = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_typing_mistakes_are_caught(stubs):
    bad = stubs / "bad.py"
    bad.write_text(textwrap.dedent("""\
        import loom
        a = loom.randn(2, 3)
        loom.add(a, "x")
        a.sum(dim="rows")
        loom.not_an_op(a)
        s: str = loom.exp(a)
        a.backward(retain_graph="yes")
    """))
    r = _mypy(stubs, bad)
    assert r.returncode == 1
    for line, what in ((3, 'Argument 2 to "add" has incompatible type "str"'),
                       (4, 'Argument "dim" to "sum" of "Tensor" has incompatible type "str"'),
                       (5, 'has no attribute "not_an_op"'), (6, 'expression has type "Tensor", variable has type "str"'),
                       (7, 'Argument "retain_graph" to "backward" of "Tensor"')):
        assert any(ln.startswith(f"bad.py:{line}: error: ") and what in ln for ln in r.stdout.splitlines()), r.stdout
