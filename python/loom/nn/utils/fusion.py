"""Folding an eval-mode BatchNorm into the convolution or linear layer before it, as
torch.nn.utils.fusion: one layer computing what the pair computes."""
import copy

from ... import _ops as _L
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _or(t, like, value):
    return t if t is not None else _L.full(tuple(like.shape), value, dtype=like.dtype)


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """(weight, bias) Parameters of the convolution that equals conv followed by the eval-mode BN."""
    with no_grad():
        conv_b = _or(conv_b, bn_rm, 0.0)
        bn_w, bn_b = _or(bn_w, bn_rm, 1.0), _or(bn_b, bn_rm, 0.0)
        scale = bn_w * _L.rsqrt(bn_rv + bn_eps)
        shape = [1, -1] + [1] * (conv_w.ndim - 2) if transpose else [-1] + [1] * (conv_w.ndim - 1)
        w = conv_w * scale.reshape(shape).to(conv_w.dtype)
        b = ((conv_b - bn_rm) * scale + bn_b).to(conv_w.dtype)
    return Parameter(w, conv_w.requires_grad), Parameter(b, conv_b.requires_grad)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    with no_grad():
        linear_b = _or(linear_b, bn_rm, 0.0)
        bn_w, bn_b = _or(bn_w, bn_rm, 1.0), _or(bn_b, bn_rm, 0.0)
        scale = bn_w * _L.rsqrt(bn_rv + bn_eps)
        w = linear_w * scale.unsqueeze(-1)
        b = (linear_b - bn_rm) * scale + bn_b
    return Parameter(w, linear_w.requires_grad), Parameter(b, linear_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features must equal bn.num_features or bn.num_features must be 1")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused
