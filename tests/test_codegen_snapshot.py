"""The generator's output for a fixed fixture (tests/fixtures/codegen) against
its committed snapshot: a change to the generated code is a reviewed diff of
snapshot.txt, made with `python tools/codegen_snapshot.py --update`."""
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import codegen_snapshot as snap  # noqa: E402
from codegen import model  # noqa: E402


def test_generated_output_matches_the_snapshot():
    diff = snap.differences(snap.SNAPSHOT.read_text(), snap.snapshot(snap.generate()))
    shown = diff[:30] + ([f"  ... and {len(diff) - 30} more"] if len(diff) > 30 else [])
    assert not diff, ("the generator's output for tests/fixtures/codegen changed:\n" + "\n".join(shown)
                      + f"\nIf that is deliberate, run `{snap.UPDATE}` and commit tests/fixtures/codegen/snapshot.txt "
                      "with the change (its diff is the review of the generated code).")


def test_the_fixture_covers_every_kind_of_op():
    m = model.load(snap.FIXTURE / "ops.yaml", snap.FIXTURE / "native")
    assert {op.kind for op in m.ops} == {"pointwise", "reduction", "kernel", "composite"}
    assert {op.promote for op in m.ops if op.kind == "pointwise"} == {"default", "float", "bool_out", "scalars", "values"}
    assert any(op.returns_tuple for op in m.ops) and any(op.mutating for op in m.ops)
    assert any(op.operators for op in m.ops) and any(len(g) > 1 for g in m.by_name().values())
    assert {"inplace", "out", "method"} <= {v for op in m.ops for v in op.variants}


def test_a_template_change_shows_in_the_snapshot(monkeypatch):
    before = snap.snapshot(snap.generate())
    real = snap.emit.pygen.docstring
    monkeypatch.setattr(snap.emit.pygen, "docstring", lambda op, inplace=False: real(op, inplace).replace("Schema", "Sig"))
    diff = snap.differences(before, snap.snapshot(snap.generate()))
    assert [d.split()[1] for d in diff] == ["_ops.py"], diff


def test_the_tool_says_how_to_update(tmp_path, monkeypatch, capsys):
    stale = tmp_path / "snapshot.txt"
    stale.write_text(snap.SNAPSHOT.read_text().replace("_ops.py  ", "_ops.py  0"))
    monkeypatch.setattr(snap, "SNAPSHOT", stale)
    assert snap.main([]) == 1
    assert "changed: _ops.py" in capsys.readouterr().err
    assert snap.main(["--update"]) == 0 and snap.main([]) == 0
    assert stale.read_text() == snap.SNAPSHOT.read_text()
