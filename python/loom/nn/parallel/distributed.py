"""DistributedDataParallel: one model replica per process; parameters and buffers start equal
(broadcast from rank 0) and stay equal because every backward averages the gradients."""
import contextlib

from ...distributed import _group
from ...distributed._collectives import broadcast
from ..module import Module
from ._reducer import Reducer


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False, gradient_as_bucket_view=False,
                 static_graph=False):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: expected a loom.nn.Module (got {type(module).__name__})")
        group = _group.resolve(process_group)   # raises if init_process_group was not called
        self.module = module
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.process_group = group
        src = group.ranks[0]
        for t in list(module.parameters()) + list(module.buffers()):
            broadcast(t.detach(), src=src, group=group)
        params = [p for p in module.parameters() if p.requires_grad]
        self.reducer = Reducer(params, group, int(bucket_cap_mb * 1024 * 1024), find_unused_parameters)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers:
            for b in self.module.buffers():
                broadcast(b.detach(), src=self.process_group.ranks[0], group=self.process_group)
        out = self.module(*inputs, **kwargs)
        self.reducer.prepare(out)
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first backward after it averages the total."""
        old = self.reducer.sync
        self.reducer.sync = False
        try:
            yield
        finally:
            self.reducer.sync = old
