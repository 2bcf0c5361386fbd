"""NumPy references for the neural-network ops, named in ops.yaml test hints as `ref.NAME`."""
import numpy as np


def _pair(v):
    v = [v] if isinstance(v, int) else list(v)
    return (v[0], v[0]) if len(v) == 1 else tuple(v)


def conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    N, C, H, W = x.shape
    O, Cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    OH = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    OW = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((N, O, OH, OW), dtype=np.result_type(x, w))
    Og = O // groups
    for g in range(groups):
        xs = xp[:, g * Cg:(g + 1) * Cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dh:i * dh + sh * (OH - 1) + 1:sh, j * dw:j * dw + sw * (OW - 1) + 1:sw]
                out[:, g * Og:(g + 1) * Og] += np.einsum("nchw,oc->nohw", patch, w[g * Og:(g + 1) * Og, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def _vjp(f, x, g):
    """The exact vector-Jacobian product of a linear map f (by its columns)."""
    x = np.zeros_like(x)
    out = np.zeros(x.size, dtype=x.dtype)
    for k in range(x.size):
        e = np.zeros(x.size, dtype=x.dtype)
        e[k] = 1
        out[k] = (f(e.reshape(x.shape)) * g).sum()
    return out.reshape(x.shape)


def conv2d_backward_input(g, w, input_size, stride, padding, dilation, groups):
    x0 = np.zeros(input_size, dtype=g.dtype)
    return _vjp(lambda x: conv2d(x, w, None, stride, padding, dilation, groups), x0, g)


def linear_backward(g, x, w, input_grad, weight_grad, bias_grad):
    rows = g.reshape(-1, g.shape[-1])
    empty = np.empty(0, dtype=g.dtype)
    return (g @ w if input_grad else empty, rows.T @ x.reshape(-1, x.shape[-1]) if weight_grad else empty,
            rows.sum(0) if bias_grad else empty)


def conv2d_backward_weight(g, x, weight_size, stride, padding, dilation, groups):
    w0 = np.zeros(weight_size, dtype=g.dtype)
    return _vjp(lambda w: conv2d(x, w, None, stride, padding, dilation, groups), w0, g)



def pad(x, pad, mode="constant", value=None):
    """torch.nn.functional.pad with np.pad: circular wraps around what its negative pads leave;
    the other modes pad first and crop after (reflect and replicate read the uncropped edges)."""
    k = len(pad) // 2
    sides = [(0, 0)] * (x.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in reversed(range(k))]
    crop = lambda a: a[tuple(slice(-min(l, 0), a.shape[d] + min(r, 0)) for d, (l, r) in enumerate(sides))]
    grow = [(max(l, 0), max(r, 0)) for l, r in sides]
    if mode == "circular":
        return np.pad(crop(x), grow, mode="wrap")
    if mode == "constant":
        return crop(np.pad(x, grow, constant_values=0 if value is None else value))
    return crop(np.pad(x, grow, mode={"reflect": "reflect", "replicate": "edge"}[mode]))

def pad_backward(g, input_size, pads, mode):
    return _vjp(lambda x: pad(x, pads, mode), np.zeros(input_size, dtype=g.dtype), g)

def _out(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    o = (-(-span // s) if ceil else span // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def max_pool2d_with_indices(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    (kh, kw) = _pair(kernel_size)
    (sh, sw) = _pair(stride) if stride not in ((), []) else (kh, kw)
    (ph, pw), (dh, dw) = _pair(padding), _pair(dilation)
    H, W = x.shape[-2:]
    OH, OW = _out(H, kh, sh, ph, dh, ceil_mode), _out(W, kw, sw, pw, dw, ceil_mode)
    vals = np.zeros(x.shape[:-2] + (OH, OW), dtype=x.dtype)
    idx = np.zeros(x.shape[:-2] + (OH, OW), dtype=np.int64)
    for oh in range(OH):
        for ow in range(OW):
            hs = [oh * sh - ph + i * dh for i in range(kh) if 0 <= oh * sh - ph + i * dh < H]
            ws = [ow * sw - pw + j * dw for j in range(kw) if 0 <= ow * sw - pw + j * dw < W]
            flat = np.array([h * W + w for h in hs for w in ws])
            win = x.reshape(x.shape[:-2] + (H * W,))[..., flat]
            k = np.argmax(win, axis=-1)
            vals[..., oh, ow] = np.take_along_axis(win, k[..., None], -1)[..., 0]
            idx[..., oh, ow] = flat[k]
    return vals, idx


def avg_pool2d(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    (kh, kw) = _pair(kernel_size)
    (sh, sw) = _pair(stride) if stride not in ((), []) else (kh, kw)
    (ph, pw) = _pair(padding)
    H, W = x.shape[-2:]
    OH, OW = _out(H, kh, sh, ph, 1, ceil_mode), _out(W, kw, sw, pw, 1, ceil_mode)
    out = np.zeros(x.shape[:-2] + (OH, OW), dtype=x.dtype)
    for oh in range(OH):
        for ow in range(OW):
            h0, w0 = oh * sh - ph, ow * sw - pw
            h1, w1 = min(h0 + kh, H + ph), min(w0 + kw, W + pw)
            padded = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            div = divisor_override or (padded if count_include_pad else (h1 - h0) * (w1 - w0))
            out[..., oh, ow] = x[..., h0:h1, w0:w1].sum(axis=(-2, -1)) / div
    return out


def avg_pool2d_backward(g, x, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    return _vjp(lambda t: avg_pool2d(t, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override),
                x, g)


def adaptive_avg_pool2d(x, output_size):
    OH, OW = _pair(output_size)
    H, W = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (OH, OW), dtype=x.dtype)
    for oh in range(OH):
        h0, h1 = oh * H // OH, -(-(oh + 1) * H // OH)
        for ow in range(OW):
            w0, w1 = ow * W // OW, -(-(ow + 1) * W // OW)
            out[..., oh, ow] = x[..., h0:h1, w0:w1].mean(axis=(-2, -1))
    return out


def adaptive_avg_pool2d_backward(g, x):
    return _vjp(lambda t: adaptive_avg_pool2d(t, g.shape[-2:]), x, g)


def softmax(x, dim):
    e = np.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def layer_norm(x, normalized_shape, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    out = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    return out * (1 if w is None else w) + (0 if b is None else b)


def native_layer_norm(x, normalized_shape, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    return (layer_norm(x, normalized_shape, w, b, eps), x.mean(axes, keepdims=True),
            1 / np.sqrt(x.var(axes, keepdims=True) + eps))


def native_layer_norm_backward(dy, x, normalized_shape, mean, rstd, w=None, b=None):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    lead = tuple(range(x.ndim - len(normalized_shape)))
    xhat = (x - mean) * rstd
    g = dy if w is None else dy * w
    dx = rstd * (g - g.mean(axes, keepdims=True) - xhat * (g * xhat).mean(axes, keepdims=True))
    return dx, (dy * xhat).sum(lead), dy.sum(lead)


def batch_norm(x, rm, rv, w, b, training, momentum, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = (x.mean(axes), x.var(axes)) if training else (rm, rv)
    out = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if w is not None:
        out = out * w.reshape(shape)
    return out + (0 if b is None else b.reshape(shape))


def _batch_norm_train(x, w=None, b=None, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    return batch_norm(x, None, None, w, b, True, 0.1, eps), x.mean(axes), 1 / np.sqrt(x.var(axes) + eps)


def _batch_norm_train_backward(dy, x, mean, invstd, w=None):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    xhat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    g = dy if w is None else dy * w.reshape(shape)
    dx = invstd.reshape(shape) * (g - g.mean(axes, keepdims=True) - xhat * (g * xhat).mean(axes, keepdims=True))
    return dx, (dy * xhat).sum(axes), dy.sum(axes)


def erf(x):
    import math
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


def erfc(x):
    import math
    return np.vectorize(math.erfc, otypes=[x.dtype])(x)


def lgamma(x):
    import math
    return np.vectorize(math.lgamma, otypes=[x.dtype])(x)


def special(name, *args):
    """scipy.special's NAME (skips the test where SciPy is missing), in the first array's dtype."""
    import pytest
    sp = pytest.importorskip("scipy.special")
    x = np.asarray(args[-1])
    return np.asarray(getattr(sp, name)(*args)).astype(x.dtype)


def reduce(loss, reduction):
    return {"mean": loss.mean, "sum": loss.sum, "none": lambda: loss}[reduction]()


def nll_loss(x, t, w=None, reduction="mean", ignore_index=-100):
    C = x.shape[1] if x.ndim > 1 else x.shape[0]
    x2 = np.moveaxis(x, 1, -1).reshape(-1, C) if x.ndim > 1 else x[None]
    t2 = np.asarray(t).reshape(-1)
    w = np.ones(C, dtype=x.dtype) if w is None else w
    keep = t2 != ignore_index
    tt = np.where(keep, t2, 0)
    per = np.where(keep, -w[tt] * x2[np.arange(len(t2)), tt], 0)
    if reduction == "none":
        return per.reshape(np.shape(t))
    return per.sum() if reduction == "sum" else per.sum() / np.where(keep, w[tt], 0).sum()


def nll_loss_backward(g, x, t, w, reduction, ignore_index):
    return _vjp(lambda v: np.asarray(nll_loss(v, t, w, reduction, ignore_index)), x, g)


def log_softmax(x, dim):
    m = x.max(axis=dim, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=dim, keepdims=True))


def cross_entropy(x, t, w=None, reduction="mean", ignore_index=-100, label_smoothing=0.0):
    cdim = 0 if x.ndim == 1 else 1
    C = x.shape[cdim]
    lsm = log_softmax(x, cdim)
    nll = nll_loss(lsm, t, w, reduction, ignore_index)
    if not label_smoothing:
        return nll
    ww = np.ones(C, dtype=x.dtype) if w is None else w
    shape = [C] + [1] * (x.ndim - 1 - cdim)
    smooth = -(lsm * ww.reshape(shape)).sum(cdim) * (np.asarray(t) != ignore_index)
    if reduction == "mean":
        keep = np.asarray(t).reshape(-1) != ignore_index
        smooth = smooth.sum() / ww[np.asarray(t).reshape(-1)[keep]].sum()
    else:
        smooth = reduce(smooth, reduction)
    return nll * (1 - label_smoothing) + smooth * label_smoothing / C


def adam_step_exp_avg(m, v, params, grads, lr, beta1, beta2, eps, weight_decay, step, decoupled, maximize):
    """adam_step_'s new exp_avg (the op's self), from PyTorch's Adam rule"""
    g = np.concatenate([np.ravel(x) for x in grads]) * (-1 if maximize else 1)
    if not decoupled:
        g = g + weight_decay * np.concatenate([np.ravel(p) for p in params])
    return m * beta1 + g * (1 - beta1)


def conv1d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    one = lambda v: v if isinstance(v, int) else v[0]
    return conv2d(x[:, :, None], w[:, :, None], b, (1, one(stride)), (0, one(padding)), (1, one(dilation)),
                  groups)[:, :, 0]


def conv_transpose2d(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Every input pixel scatters its kernel-weighted copy into an unpadded output, which padding then crops
    (and output_padding extends with what was cropped, or zeros) on the bottom/right."""
    (sh, sw), (ph, pw), (oh, ow), (dh, dw) = (_pair(v) for v in (stride, padding, output_padding, dilation))
    N, C, H, W = x.shape
    _, Og, kh, kw = w.shape
    Cg = C // groups
    FH, FW = (H - 1) * sh + dh * (kh - 1) + 1, (W - 1) * sw + dw * (kw - 1) + 1
    full = np.zeros((N, Og * groups, FH + oh, FW + ow), dtype=np.result_type(x, w))
    for g in range(groups):
        xs = x[:, g * Cg:(g + 1) * Cg]
        for i in range(kh):
            for j in range(kw):
                full[:, g * Og:(g + 1) * Og, i * dh:i * dh + sh * (H - 1) + 1:sh, j * dw:j * dw + sw * (W - 1) + 1:sw] += \
                    np.einsum("nchw,co->nohw", xs, w[g * Cg:(g + 1) * Cg, :, i, j])
    out = full[:, :, ph:FH + oh - ph, pw:FW + ow - pw]
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def conv_transpose1d(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    one = lambda v: v if isinstance(v, int) else v[0]
    return conv_transpose2d(x[:, :, None], w[:, :, None], b, (1, one(stride)), (0, one(padding)),
                            (0, one(output_padding)), groups, (1, one(dilation)))[:, :, 0]


def group_norm(x, num_groups, w=None, b=None, eps=1e-5):
    g = x.reshape(x.shape[0], num_groups, -1)
    out = ((g - g.mean(2, keepdims=True)) / np.sqrt(g.var(2, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return out * (1 if w is None else w.reshape(shape)) + (0 if b is None else b.reshape(shape))


def instance_norm(x, w=None, b=None, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    out = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + eps)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return out * (1 if w is None else w.reshape(shape)) + (0 if b is None else b.reshape(shape))


def _nearest_index(n_in, n_out, scale, exact):
    s = np.float32(1.0 / scale) if scale else np.float32(n_in) / np.float32(n_out)
    if n_out == n_in and not exact:
        return list(range(n_out))
    return [min(int(np.floor((np.float32(i) + np.float32(0.5 if exact else 0)) * s)), n_in - 1) for i in range(n_out)]


def upsample_nearest(x, output_size, scales_h=None, scales_w=None, exact=False):
    (oh, ow), (h, w) = output_size, x.shape[-2:]
    return x[..., _nearest_index(h, oh, scales_h, exact), :][..., _nearest_index(w, ow, scales_w, exact)]


def upsample_bilinear(x, output_size, align_corners, scales_h=None, scales_w=None):
    """Each output pixel from the four input pixels around its source position, weighted by distance."""
    def source(n_in, n_out, scale):
        if align_corners:
            return np.arange(n_out) * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0.0)
        return np.maximum((np.arange(n_out) + 0.5) * (1 / scale if scale else n_in / n_out) - 0.5, 0)
    (oh, ow), (h, w) = output_size, x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (oh, ow), dtype=x.dtype)
    for i, sy in enumerate(source(h, oh, scales_h)):
        y0 = min(int(sy), h - 1)
        y1, ly = min(y0 + 1, h - 1), sy - y0
        for j, sx in enumerate(source(w, ow, scales_w)):
            x0 = min(int(sx), w - 1)
            x1, lx = min(x0 + 1, w - 1), sx - x0
            out[..., i, j] = ((1 - ly) * ((1 - lx) * x[..., y0, x0] + lx * x[..., y0, x1])
                              + ly * ((1 - lx) * x[..., y1, x0] + lx * x[..., y1, x1]))
    return out


def adaptive_max_pool2d(x, output_size):
    OH, OW = _pair(output_size)
    H, W = x.shape[-2:]
    vals = np.zeros(x.shape[:-2] + (OH, OW), dtype=x.dtype)
    idx = np.zeros(x.shape[:-2] + (OH, OW), dtype=np.int64)
    for oh in range(OH):
        h0, h1 = oh * H // OH, -(-(oh + 1) * H // OH)
        for ow in range(OW):
            w0, w1 = ow * W // OW, -(-(ow + 1) * W // OW)
            win = x[..., h0:h1, w0:w1].reshape(x.shape[:-2] + (-1,))
            k = win.argmax(-1)
            vals[..., oh, ow] = win.max(-1)
            idx[..., oh, ow] = (h0 + k // (w1 - w0)) * W + w0 + k % (w1 - w0)
    return vals, idx


def pixel_shuffle(x, r):
    *lead, C, H, W = x.shape
    out = np.zeros(tuple(lead) + (C // (r * r), H * r, W * r), dtype=x.dtype)
    for c in range(C):   # channel c feeds the (c // r² )-th output channel at offset ((c // r) % r, c % r)
        out[..., c // (r * r), (c // r) % r::r, c % r::r] = x[..., c, :, :]
    return out


def pixel_unshuffle(x, r):
    *lead, C, H, W = x.shape
    out = np.zeros(tuple(lead) + (C * r * r, H // r, W // r), dtype=x.dtype)
    for c in range(C * r * r):
        out[..., c, :, :] = x[..., c // (r * r), (c // r) % r::r, c % r::r]
    return out


def cumextreme(x, dim, is_max):
    """cummax/cummin: running extreme and the last position reaching it; a NaN sticks."""
    x = np.moveaxis(np.asarray(x), dim, -1)
    vals, idx = np.empty_like(x), np.zeros(x.shape, np.int64)
    for pos in np.ndindex(*x.shape[:-1]):
        best, at = None, 0
        for i, v in enumerate(x[pos]):
            if i == 0 or v != v or (v >= best if is_max else v <= best):
                best, at = v, i
            vals[pos + (i,)], idx[pos + (i,)] = best, at
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


def sdpa_flash_backward(g, q, k, v, o, lse, is_causal, scale):
    """The fused attention backward from the saved output and logsumexp (as given, consistent or not)."""
    s = q @ np.swapaxes(k, -1, -2) * scale
    p = np.exp(s - lse[..., None])
    if is_causal:
        p = p * np.tril(np.ones(s.shape[-2:], dtype=p.dtype))
    delta = (g * o).sum(-1, keepdims=True)
    ds = p * (g @ np.swapaxes(v, -1, -2) - delta) * scale
    return ds @ k, np.swapaxes(ds, -1, -2) @ q, np.swapaxes(p, -1, -2) @ g


def _sig(x):
    return 1 / (1 + np.exp(-x))


def lstm_gates(gates, cx):
    i, f, g, o = np.split(gates, 4, -1)
    cy = _sig(f) * cx + _sig(i) * np.tanh(g)
    return _sig(o) * np.tanh(cy), cy


def lstm_gates_backward(dh, dcy, gates, cx, cy):
    i, f, g, o = (_sig(a) if k != 2 else np.tanh(a) for k, a in enumerate(np.split(gates, 4, -1)))
    tc = np.tanh(cy)
    dc = dcy + dh * o * (1 - tc * tc)
    return np.concatenate([dc * g * i * (1 - i), dc * cx * f * (1 - f), dc * i * (1 - g * g),
                           dh * tc * o * (1 - o)], -1), dc * f


def lstm_layer(x_proj, h0, c0, w_hh, b_hh, reverse):
    T, H = x_proj.shape[0], h0.shape[-1]
    out, cells, acts = np.zeros(x_proj.shape[:2] + (H,)), np.zeros(x_proj.shape[:2] + (H,)), np.zeros(x_proj.shape)
    h, c = h0, c0
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        g = x_proj[t] + h @ w_hh.T + (0 if b_hh is None else b_hh)
        i, f, gg, o = np.split(g, 4, -1)
        i, f, gg, o = _sig(i), _sig(f), np.tanh(gg), _sig(o)
        c = f * c + i * gg
        h = o * np.tanh(c)
        out[t], cells[t], acts[t] = h, c, np.concatenate([i, f, gg, o], -1)
    return out, cells, acts


def lstm_layer_backward(go, gc, h0, c0, w_hh, output, cells, gates, reverse):
    """_lstm_layer_backward's maths over the given (activated) gates, cells and outputs."""
    T, H = gates.shape[0], h0.shape[-1]
    dG, dh, dc = np.zeros(gates.shape), np.zeros(h0.shape), np.zeros(c0.shape)
    order = list(range(T - 1, -1, -1)) if reverse else list(range(T))
    for s in range(T - 1, -1, -1):
        t = order[s]
        c_prev = c0 if s == 0 else cells[order[s - 1]]
        i, f, g, o = np.split(gates[t], 4, -1)
        tc = np.tanh(cells[t])
        h_ = dh + go[t]
        c_ = dc + gc[t] + h_ * o * (1 - tc * tc)
        dG[t] = np.concatenate([c_ * g * i * (1 - i), c_ * c_prev * f * (1 - f), c_ * i * (1 - g * g),
                                h_ * tc * o * (1 - o)], -1)
        dc = c_ * f
        dh = dG[t] @ w_hh
    dw = sum(dG[order[s]].T @ (h0 if s == 0 else output[order[s - 1]]) for s in range(T))
    return dG, dh, dc, dw, dG.reshape(-1, 4 * H).sum(0)
