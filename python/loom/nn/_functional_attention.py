"""F.scaled_dot_product_attention and F.multi_head_attention_forward with PyTorch's signatures and mask
conventions (sdpa: a bool mask's True keeps a position; multi-head attention: True masks it out)."""
import math

from .. import _dtype
from .. import _ops
from .._args import takes_tensors


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    return _ops.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                           enable_gqa=enable_gqa)


def _additive(mask, dtype, name):
    """A bool mask (True: masked out) as 0 / -inf of dtype; a float mask as it is."""
    if mask is None:
        return None
    if mask.dtype == _dtype.bool_:
        return _ops.zeros(tuple(mask.shape), dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask.to(dtype)


def _pad_last(mask):
    return None if mask is None else _ops.pad(mask, (0, 1))


@takes_tensors("query", "key", "value", "in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj_weight",
               "out_proj_bias", "key_padding_mask", "attn_mask", "q_proj_weight", "k_proj_weight", "v_proj_weight",
               "static_k", "static_v", optional=("in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj_bias"),
               embed_dim_to_check="int", num_heads="int", dropout_p="float")
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention over sequence-first inputs (L, N, E) (or unbatched (L, E)); returns the output and,
    with need_weights, the attention weights (averaged over heads when average_attn_weights)."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward(): static_k/static_v are not supported by loom")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if query.ndim != 3:
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor")
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    if use_separate_proj_weight:
        bq, bk, bv = in_proj_bias.chunk(3) if in_proj_bias is not None else (None, None, None)
        q = _ops.linear(query, q_proj_weight, bq)
        k = _ops.linear(key, k_proj_weight, bk)
        v = _ops.linear(value, v_proj_weight, bv)
    elif query is key and key is value:          # self-attention: one projection, then split
        q, k, v = _ops.linear(query, in_proj_weight, in_proj_bias).chunk(3, -1)
    else:
        wq, wk, wv = in_proj_weight.chunk(3)
        bq, bk, bv = in_proj_bias.chunk(3) if in_proj_bias is not None else (None, None, None)
        q, k, v = _ops.linear(query, wq, bq), _ops.linear(key, wk, bk), _ops.linear(value, wv, bv)

    attn_mask = _additive(attn_mask, q.dtype, "attn_mask")
    if attn_mask is not None:
        src = key.shape[0]
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    key_padding_mask = _additive(key_padding_mask, q.dtype, "key_padding_mask")

    if bias_k is not None and bias_v is not None:
        k = _ops.cat([k, bias_k.repeat(1, bsz, 1)])
        v = _ops.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        k = _ops.cat([k, _ops.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)], 1)
        v = _ops.cat([v, _ops.zeros((bsz * num_heads, 1, head_dim), dtype=v.dtype, device=v.device)], 1)
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    src_len = k.shape[1]

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len)
        kpm = kpm.reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm

    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = _ops.bmm(q * (1.0 / math.sqrt(head_dim)), k.transpose(1, 2))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = _ops.softmax(scores, -1)
        if dropout_p > 0.0:
            weights = _ops.dropout(weights, dropout_p)
        out = _ops.bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _ops.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if unbatched:
            return out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        # (N*H, L or 1, S) -> (N, H, L or 1, S); a shared (1, L, S) mask broadcasts over N and H
        attn_mask = attn_mask.reshape(bsz, num_heads, attn_mask.shape[1], src_len) if attn_mask.shape[0] != 1 \
            else attn_mask.unsqueeze(0)
    q, k, v = (t.reshape(bsz, num_heads, t.shape[1], head_dim) for t in (q, k, v))
    out = _ops.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, False)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _ops.linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    return (out.squeeze(1) if unbatched else out), None
