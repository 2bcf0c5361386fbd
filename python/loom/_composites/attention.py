"""Composite ops of ops/attention.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/attention.yaml names it with
`composite: true`."""
import math

from .. import _ops
from .._dtype import bool_


def scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"scaled_dot_product_attention(): expected query, key and value of at least 2 dims, got {query.ndim}, {key.ndim} and {value.ndim}")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention(): query's last dim {query.shape[-1]} differs from key's {key.shape[-1]}")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention(): key has {key.shape[-2]} positions but value has {value.shape[-2]}")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        if query.shape[-3] % key.shape[-3]:
            raise RuntimeError(f"scaled_dot_product_attention(): {query.shape[-3]} query heads are not a multiple of {key.shape[-3]} key heads")
        rep = query.shape[-3] // key.shape[-3]
        key, value = key.repeat_interleave(rep, -3), value.repeat_interleave(rep, -3)
    L, S = query.shape[-2], key.shape[-2]
    s = (1.0 / math.sqrt(query.shape[-1])) if scale is None else scale
    # the fused kernel is the CPU's; on CUDA the matmul/softmax path below stays on the device
    if attn_mask is None and dropout_p == 0.0 and query.ndim == key.ndim == value.ndim and not query.is_cuda \
            and query.shape[:-2] == key.shape[:-2] == value.shape[:-2] and query.dtype == key.dtype == value.dtype:
        return _ops.sdpa_flash(query, key, value, is_causal, s)[0]
    attn = _ops.matmul(query * s, key.transpose(-2, -1))
    if is_causal:
        attn = attn.masked_fill(_ops.ones((L, S), dtype=bool_, device=query.device).tril().logical_not(), float("-inf"))
    elif attn_mask is not None:
        if attn_mask.dtype == bool_:
            attn = attn.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn = attn + attn_mask
    attn = _ops.softmax(attn, -1)
    if dropout_p > 0.0:
        attn = _ops.dropout(attn, dropout_p)
    return _ops.matmul(attn, value)
