"""The op profiler (PyTorch's autograd.profiler.profile and record_function; loom.profiler is
torch.profiler's spelling). Every generated op's C entry tests one flag (native/core/profile.c's
state, in each loom._C_opsN) and, while a profile is on, logs an event with its start, end,
enclosing event and, with record_shapes, its inputs' shapes; record_function adds named ranges to
the same log. The log is read here when the profile ends and summed into a per-op table."""
import functools
import json
import os
import time
import warnings

from .._C import ffi, lib

_active = [None]   # the profile running, if any
_names = []        # record_function names' C strings, alive while the log may point at them


def _format_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class FunctionEvent:
    """One op call or record_function range: times in microseconds."""

    def __init__(self, id, name, start_ns, end_ns, input_shapes, parent):
        self.id, self.name, self.key = id, name, name
        self.time_range = (start_ns / 1e3, end_ns / 1e3)
        self.input_shapes = input_shapes
        self.cpu_parent = parent
        self.cpu_children = []
        self.count = 1

    @property
    def cpu_time_total(self):
        return self.time_range[1] - self.time_range[0]

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def is_user_annotation(self):
        return not self.name.startswith("loom::")

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time_total={_format_time(self.cpu_time_total)} "
                f"self_cpu_time_total={_format_time(self.self_cpu_time_total)} input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one name (and input shapes, when grouped by them), summed."""

    def __init__(self, key, input_shapes=None):
        self.key, self.input_shapes = key, input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, ev):
        self.count += ev.count
        self.cpu_time_total += ev.cpu_time_total
        self.self_cpu_time_total += ev.self_cpu_time_total
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def self_cpu_time(self):
        return self.self_cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time_total)} count={self.count} input_shapes={self.input_shapes}>")


_SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "count", "self_cpu_time")


class EventList(list):
    """Events (or their averages) with PyTorch's table()."""

    def __init__(self, events=(), record_shapes=False):
        super().__init__(events)
        self._record_shapes = record_shapes

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False):
        groups = {}
        for e in self:
            shapes = str(e.input_shapes) if group_by_input_shape else None
            key = (e.key, shapes)
            if key not in groups:
                groups[key] = FunctionEventAvg(e.key, e.input_shapes if group_by_input_shape else None)
            groups[key].add(e)
        return EventList(groups.values(), self._record_shapes and group_by_input_shape)

    def total_average(self):
        total = FunctionEventAvg("Total")
        for e in self:
            total.add(e)
        return total

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        rows = list(self)
        if top_level_events_only:
            rows = [e for e in rows if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise ValueError(f"sort_by: expected one of {', '.join(_SORT_KEYS)}, got {sort_by!r}")
            rows.sort(key=lambda e: getattr(e, sort_by), reverse=True)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        total = self.self_cpu_time_total or 1.0
        shapes = self._record_shapes and any(e.input_shapes is not None for e in self)
        name_w = min(max([len(e.key) for e in rows] + [4]) + 4, max_name_column_width)
        heads = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        widths = [name_w] + [12] * 6
        if shapes:
            shape_w = min(max([len(str(e.input_shapes)) for e in rows] + [12]) + 4, max_shapes_column_width)
            heads.append("Input Shapes")
            widths.append(shape_w)

        def line(cells):
            return "".join(str(c)[:w].rjust(w) + "  " for c, w in zip(cells, widths))
        rule = "".join("-" * w + "  " for w in widths)
        out = [] if header is None else ["=" * len(rule), header]
        out += [rule, line(heads), rule]
        for e in rows:
            cells = [e.key if len(e.key) <= name_w else e.key[:name_w - 3] + "...",
                     f"{100 * e.self_cpu_time_total / total:.2f}%", _format_time(e.self_cpu_time_total),
                     f"{100 * e.cpu_time_total / total:.2f}%", _format_time(e.cpu_time_total),
                     _format_time(e.cpu_time_total / e.count if e.count else 0.0), e.count]
            if shapes:
                cells.append(str(e.input_shapes))
            out.append(line(cells))
        out += [rule, f"Self CPU time total: {_format_time(self.self_cpu_time_total)}", ""]
        return "\n".join(out)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        trace = [dict(name=e.name, ph="X", ts=e.time_range[0], dur=e.cpu_time_total, pid=os.getpid(), tid=0,
                      cat="cpu_op" if not e.is_user_annotation else "user_annotation",
                      args={"Input Dims": e.input_shapes} if e.input_shapes is not None else {})
                 for e in self]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace}, f)


def _shapes(text, record_shapes):
    """An op's input shapes ("[[3, 4], []]": [] for an argument that is no Tensor); a
    record_function range has none ([]), as in PyTorch; None without record_shapes."""
    if not record_shapes:
        return None
    return json.loads(text) if text else []


def _read_log(end_ns, record_shapes):
    n = lib.lm_profiler_count()
    times = ffi.new("int64_t[3]")
    shapes = ffi.new("const char **")
    events = []
    for i in range(n):
        name = lib.lm_profiler_event(i, times, shapes)
        t1 = times[1] if times[1] >= 0 else end_ns
        events.append(FunctionEvent(i, ffi.string(name).decode(), times[0], t1,
                                    _shapes(ffi.string(shapes[0]).decode(), record_shapes),
                                    times[2] if times[2] >= 0 else None))
    for e in events:
        if e.cpu_parent is not None:
            parent = events[e.cpu_parent]
            e.cpu_parent = parent
            parent.cpu_children.append(e)
    return events


class profile:
    """Records every op call (and record_function range) while active:
    `with profile(record_shapes=True) as prof: ...`, then
    `prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10)`."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True):
        self.enabled, self.record_shapes = enabled, record_shapes
        if use_cuda or use_device not in (None, "cpu"):
            warnings.warn("loom's profiler records host (CPU) time only: CUDA ops are timed as they are launched",
                          stacklevel=2)
        self.function_events = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        if _active[0] is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        self.entered = True
        _active[0] = self
        lib.lm_profiler_start(1 if self.record_shapes else 0)
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        lib.lm_profiler_stop()
        _active[0] = None
        end = time.monotonic_ns()   # CLOCK_MONOTONIC, the log's clock
        self.function_events = EventList(_read_log(end, self.record_shapes), self.record_shapes)
        lib.lm_profiler_clear()
        _names.clear()
        return False

    def _check_finished(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def events(self):
        self._check_finished()
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        self._check_finished()
        return self.function_events.key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        self._check_finished()
        return self.function_events.key_averages().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self):
        self._check_finished()
        return self.function_events.total_average()

    def export_chrome_trace(self, path):
        self._check_finished()
        self.function_events.export_chrome_trace(path)

    @property
    def self_cpu_time_total(self):
        self._check_finished()
        return self.function_events.self_cpu_time_total

    def __str__(self):
        return self.table() if self.function_events is not None else "<unfinished profiler>"


class record_function:
    """A named range in the profile (context manager or decorator); free when no profile is on."""

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self._event = -1

    def __enter__(self):
        if _active[0] is not None:
            buf = ffi.new("char[]", self.name.encode())
            _names.append(buf)
            self._event = lib.lm_profiler_begin(buf)
        return self

    def __exit__(self, *exc):
        if self._event >= 0:
            lib.lm_profiler_end(self._event)
            self._event = -1
        return False

    def __call__(self, fn):
        name = self.name

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(name):
                return fn(*args, **kwargs)
        return wrapper
