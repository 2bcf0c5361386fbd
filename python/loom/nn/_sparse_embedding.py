"""embedding(..., sparse=True): the weight's gradient as a sparse COO tensor (PyTorch's), one row of
the output's gradient per looked-up index, padding_idx's rows left out (as PyTorch's
embedding_dense_backward's sparse twin)."""
from .. import _ops
from .._sparse import _make
from ..autograd.function import Function


class SparseEmbedding(Function):
    @staticmethod
    def forward(ctx, weight, input, padding_idx, scale_grad_by_freq):
        ctx.input, ctx.shape = input, tuple(weight.shape)
        ctx.padding_idx, ctx.scale = padding_idx, scale_grad_by_freq
        return _ops.embedding(weight, input, padding_idx, scale_grad_by_freq)

    @staticmethod
    def backward(ctx, grad):
        if ctx.scale:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")
        n, dim = ctx.shape
        idx = ctx.input.reshape(-1).long()
        g = grad.reshape(-1, dim)
        if ctx.padding_idx >= 0:
            keep = (idx != ctx.padding_idx).nonzero().reshape(-1)
            idx, g = idx.index_select(0, keep), g.index_select(0, keep)
        return _make(idx.unsqueeze(0), g, (n, dim), idx.shape[0] <= 1), None, None, None
