"""autograd.profiler.profile / record_function and loom.profiler (torch.profiler's spelling): one
event per op call with self and total times, nesting, record_shapes, PyTorch's table, and an
inactive profiler that logs nothing."""
import json

import pytest

import loom
from loom import nn
from loom.autograd.profiler import profile as autograd_profile
from loom.profiler import ProfilerActivity, profile, record_function


def _mlp_step():
    loom.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = loom.randn(3, 4)
    return model, x


def test_counts_and_nesting_of_an_mlp_step():
    model, x = _mlp_step()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with record_function("step"):
            loss = model(x).sum()
            loss.backward()
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["loom::linear"].count == 2 and avg["loom::relu"].count == 1 and avg["step"].count == 1
    assert avg["loom::linear_backward"].count == 2
    events = prof.events()
    step = next(e for e in events if e.name == "step")
    assert all(e.cpu_parent is step for e in events if e is not step)   # every op ran inside the range
    # total = self + children; the range's self time excludes the ops
    assert step.cpu_time_total == pytest.approx(step.self_cpu_time_total + sum(e.cpu_time_total
                                                                               for e in step.cpu_children))
    assert step.self_cpu_time_total < step.cpu_time_total
    assert prof.self_cpu_time_total == pytest.approx(step.cpu_time_total)
    for e in avg.values():
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total


def test_table_like_pytorchs():
    model, x = _mlp_step()
    with autograd_profile(record_shapes=True) as prof:
        model(x)
    text = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=2)
    lines = text.splitlines()
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total",
                                "CPU", "time", "avg", "#", "of", "Calls"]
    rows = lines[3:-1]
    assert lines[-1].startswith("Self CPU time total: ") and len(rows) == 3   # 2 rows and the closing rule
    selfs = [e.self_cpu_time_total for e in sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)]
    assert rows[0].split()[0] == sorted(prof.key_averages(), key=lambda e: -e.self_cpu_time_total)[0].key
    assert selfs == sorted(selfs, reverse=True)
    by_shape = prof.key_averages(group_by_input_shape=True)
    shapes = {str(e.input_shapes) for e in by_shape if e.key == "loom::linear"}
    assert shapes == {"[[3, 4], [8, 4], [8]]", "[[3, 8], [2, 8], [2]]"}
    assert "Input Shapes" in by_shape.table(sort_by="count")
    with pytest.raises(ValueError, match="sort_by"):
        prof.key_averages().table(sort_by="nope")


def test_inactive_profiler_logs_nothing_and_record_function_is_free():
    a = loom.ones(3)
    with record_function("outside"):   # no profile: nothing is logged, nothing fails
        a + a
    assert loom._C.lib.lm_profiler_count() == 0

    @record_function("deco")
    def f(t):
        return t * 2
    with autograd_profile() as prof:
        f(a)
    names = [e.name for e in prof.events()]
    assert names == ["deco", "loom::mul"]
    f(a)
    assert loom._C.lib.lm_profiler_count() == 0   # the log is emptied when the profile ends
    assert len(prof.events()) == 2


def test_in_place_out_and_errors_are_logged_and_nested_profiles_refused(tmp_path):
    a, b = loom.ones(2, 2), loom.ones(2, 2)
    with profile(record_shapes=True) as prof:
        a.add_(b)
        loom.add(a, b, out=b)
        with pytest.raises(RuntimeError):
            loom.add(a, loom.ones(3))
        with pytest.raises(RuntimeError, match="already enabled"):
            with autograd_profile():
                pass
    names = [e.name for e in prof.events()]
    assert names == ["loom::add_", "loom::add", "loom::full", "loom::add"]   # ones(3) is full's entry
    assert prof.events()[0].input_shapes == [[2, 2], [2, 2], []]
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())["traceEvents"]
    assert [t["name"] for t in trace] == names and all(t["ph"] == "X" and t["dur"] >= 0 for t in trace)
    with pytest.raises(RuntimeError, match="didn't finish"):
        autograd_profile().key_averages()
