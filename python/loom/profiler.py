"""loom.profiler: torch.profiler's spelling of the op profiler (loom.autograd.profiler):
profile(activities=[ProfilerActivity.CPU], record_shapes=...) and record_function."""
import enum

from .autograd.profiler import EventList, FunctionEvent, FunctionEventAvg, record_function
from .autograd.profiler import profile as _autograd_profile

__all__ = ["profile", "record_function", "ProfilerActivity", "EventList", "FunctionEvent", "FunctionEventAvg"]


class ProfilerActivity(enum.Enum):
    CPU = "CPU"
    CUDA = "CUDA"


class profile(_autograd_profile):
    """torch.profiler.profile: activities (CPU; CUDA is timed on the host), record_shapes; step()
    is accepted and does nothing (no schedule)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False):
        acts = set(activities) if activities is not None else {ProfilerActivity.CPU}
        super().__init__(record_shapes=record_shapes, use_cuda=ProfilerActivity.CUDA in acts)
        self.on_trace_ready = on_trace_ready

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)
        return False

    def step(self):
        pass
