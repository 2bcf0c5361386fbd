"""loom.nn.modules: the import paths PyTorch code spells out (torch.nn.modules.linear.Linear,
from torch.nn.modules.loss import _Loss, ...), each naming the loom.nn file that holds those
classes; every layer is also here, as in torch.nn.modules."""
import importlib
import sys

from .. import *  # noqa: F401,F403
from ..module import Module  # noqa: F401

# torch.nn.modules.<name> -> loom.nn.<file>
_FILES = {"activation": "activation", "batchnorm": "normalization", "container": "containers", "conv": "conv",
          "distance": "distance", "dropout": "dropout", "flatten": "flatten", "instancenorm": "normalization",
          "linear": "linear", "loss": "loss", "module": "module", "normalization": "normalization",
          "padding": "padding", "pixelshuffle": "pixelshuffle", "pooling": "pooling", "rnn": "rnn",
          "sparse": "sparse", "transformer": "transformer", "upsampling": "upsampling"}

for _name, _file in _FILES.items():
    _mod = importlib.import_module(f"loom.nn.{_file}")
    sys.modules[f"{__name__}.{_name}"] = _mod
    globals()[_name] = _mod
