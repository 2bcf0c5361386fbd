"""nn.DataParallel on one device: the module itself, wrapped so that scripts written for several
GPUs run (state_dict keys gain the "module." prefix, as PyTorch's wrapper gives them). Across
processes, use DistributedDataParallel."""
from ..module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = list(device_ids) if device_ids is not None else []
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
