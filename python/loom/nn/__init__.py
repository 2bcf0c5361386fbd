"""loom.nn: modules, layers, losses, initialisers and the functional interface."""
from . import functional, init, utils
from .parameter import Parameter
from .module import Module
from .containers import Sequential, ModuleList, ModuleDict
from .parameter_containers import ParameterList, ParameterDict
from .linear import Identity, Linear
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .pooling import (MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d,
                      AdaptiveMaxPool1d, AdaptiveMaxPool2d)
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm, InstanceNorm1d, InstanceNorm2d
from .padding import *   # noqa: F403  (ZeroPad2d, ReflectionPad1d, ...: padding.__all__)
from . import padding as _padding
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .upsampling import Upsample, UpsamplingNearest2d, UpsamplingBilinear2d
from .activation import (ReLU, GELU, SiLU, Tanh, Sigmoid, LeakyReLU, ELU, Softplus, Softmax, LogSoftmax, ReLU6,
                         Hardsigmoid, Hardswish, Mish, LogSigmoid, Softsign, Tanhshrink, GLU, PReLU)
from .dropout import Dropout, Dropout2d
from .distance import CosineSimilarity, PairwiseDistance
from .sparse import Embedding
from .flatten import Flatten, Unflatten
from .attention import MultiheadAttention
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell
from .transformer import (Transformer, TransformerEncoder, TransformerEncoderLayer, TransformerDecoder,
                          TransformerDecoderLayer)
from .loss import (L1Loss, MSELoss, NLLLoss, CrossEntropyLoss, BCELoss, BCEWithLogitsLoss, SmoothL1Loss, HuberLoss,
                   KLDivLoss)

__all__ = ["functional", "init", "utils", "Parameter", "Module", "Sequential", "ModuleList", "ModuleDict", "Identity",
           "Linear", "Conv2d", "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d",
           "LayerNorm", "ReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "Softplus", "Softmax",
           "LogSoftmax", "Dropout", "Embedding", "Flatten", "L1Loss", "MSELoss", "NLLLoss", "CrossEntropyLoss",
           "BCELoss", "BCEWithLogitsLoss", "Conv1d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "AvgPool1d",
           "AdaptiveAvgPool1d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "GroupNorm", "InstanceNorm1d",
           "InstanceNorm2d", "PixelShuffle", "PixelUnshuffle", "Upsample", "UpsamplingNearest2d",
           "UpsamplingBilinear2d", "ParameterList", "ParameterDict", "ReLU6", "Hardsigmoid", "Hardswish", "Mish",
           "LogSigmoid", "Softsign", "Tanhshrink", "GLU", "PReLU", "Dropout2d", "CosineSimilarity",
           "PairwiseDistance", "Unflatten", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "MultiheadAttention",
           "Transformer", "TransformerEncoder", "TransformerEncoderLayer", "TransformerDecoder",
           "TransformerDecoderLayer", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell",
           "GRUCell"] + _padding.__all__

from .activation_more import *  # noqa: F401,F403  (Hardtanh, SELU, CELU, Softmin, ...: activation_more.__all__)
from .loss_more import *  # noqa: F401,F403  (MarginRankingLoss, TripletMarginLoss, ...: loss_more.__all__)
from .layers_more import *  # noqa: F401,F403  (Dropout1d, RMSNorm, Bilinear, Fold, ...: layers_more.__all__)
from . import activation_more as _activation_more, loss_more as _loss_more, layers_more as _layers_more
__all__ += _activation_more.__all__ + _loss_more.__all__ + _layers_more.__all__

from . import parallel  # noqa: E402  (nn.parallel.DistributedDataParallel, nn.DataParallel)
from .parallel import DataParallel  # noqa: E402
from . import modules  # noqa: E402  (the torch.nn.modules.<file> import paths)
__all__ += ["parallel", "DataParallel", "modules"]
