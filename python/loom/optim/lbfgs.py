"""L-BFGS: a quasi-Newton method keeping the last history_size curvature pairs, with a fixed step
(lr) or a strong-Wolfe line search (PyTorch's formulation, after minFunc). step(closure) runs up to
max_iter iterations, re-evaluating the closure; one parameter group, real or complex parameters."""
from .._ops import cat, view_as_real, zeros
from ..autograd.grad_mode import enable_grad, no_grad
from ._line_search import strong_wolfe
from .optimizer import Optimizer

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    _counts_steps = False

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _real(self, t):
        return view_as_real(t) if t.dtype.is_complex else t

    def _flat_grad(self):
        return cat([self._real(p.grad).reshape(-1) if p.grad is not None else
                    zeros(p.numel() * (2 if p.dtype.is_complex else 1), dtype=self._real(p).dtype, device=p.device)
                    for p in self._params])

    def _add(self, t, d):
        o = 0
        for p in self._params:
            r = self._real(p)
            n = r.numel()
            r.add_(d[o:o + n].view(tuple(r.shape)), alpha=t)
            o += n

    def _evaluate(self, closure, x, d):
        def at(t):
            self._add(t, d)
            with enable_grad():
                loss = float(closure())
            g = self._flat_grad()
            for p, v in zip(self._params, x):
                p.copy_(v)
            return loss, g
        return at

    def step(self, closure):
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change, history = group["tolerance_grad"], group["tolerance_change"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss, evals = float(orig_loss), 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if g.abs().max().item() <= tol_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_g, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = g.neg(), [], [], [], 1.0
            else:   # the two-loop recursion over the stored (y, s) pairs
                y, s = g.sub(prev_g), d.mul(t)
                ys = y.dot(s).item()
                if ys > 1e-10:
                    if len(old_dirs) == history:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y).item()
                al = [0.0] * len(old_dirs)
                q = g.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q).item() * ro[i]
                    q.add_(old_dirs[i], alpha=-al[i])
                d = q.mul(h_diag)
                for i in range(len(old_dirs)):
                    be = old_dirs[i].dot(d).item() * ro[i]
                    d.add_(old_stps[i], alpha=al[i] - be)
            prev_g = g.clone() if prev_g is None else prev_g.copy_(g)
            prev_loss = loss
            t = min(1.0, 1.0 / g.abs().sum().item()) * lr if state["n_iter"] == 1 else lr
            gtd = g.dot(d).item()
            if gtd > -tol_change:
                break
            ls_evals = 0
            if group["line_search_fn"] is not None:
                x = [p.clone() for p in self._params]
                loss, g, t, ls_evals = strong_wolfe(self._evaluate(closure, x, d), t, d, loss, g, gtd,
                                                    max_ls=max_eval - evals)
                self._add(t, d)
                opt_cond = g.abs().max().item() <= tol_grad
            else:
                self._add(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    g = self._flat_grad()
                    opt_cond = g.abs().max().item() <= tol_grad
                    ls_evals = 1
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max().item() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag, prev_flat_grad=prev_g,
                     prev_loss=prev_loss)
        return orig_loss
