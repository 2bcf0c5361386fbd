"""loom.nn.utils: gradient clipping, flattening parameters into one vector, parametrizations
(weight_norm, spectral_norm), BatchNorm fusion and sequence packing, as torch.nn.utils."""
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .legacy_norms import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm
from . import parametrizations, parametrize, rnn

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "weight_norm", "remove_weight_norm",
           "spectral_norm", "remove_spectral_norm", "parameters_to_vector", "vector_to_parameters", "rnn", "parametrize",
           "parametrizations"]
