"""DDP's gradient reducer: parameters in buckets (reverse registration order, as gradients
arrive in backward), each bucket all-reduced asynchronously as soon as its last gradient
arrives, while backward still runs.

loom's autograd has hooks that run on a leaf's incoming gradient just before it is
accumulated, but no hook after accumulation nor a callback at the end of backward. So a
hook copies `.grad + incoming` (the gradient the parameter is about to hold) into its
bucket; the hook of the last parameter of the iteration waits for all buckets, writes the
averages into every other `.grad`, and returns its own average as the gradient to store.
Buckets live on the parameters' device and go through the group's all_reduce: MPI for CPU
tensors (their memory lent to MPI), NCCL for CUDA ones."""
from ..._ops import zeros
from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled

from ...distributed import _group
from ...distributed._collectives import all_reduce


class _Bucket:
    def __init__(self, params, dtype):
        self.params = params
        self.offsets, n = [], 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        self.flat = zeros(n, dtype=dtype, device=params[0].device)
        self.work = None
        self.pending = 0


class Reducer:
    def __init__(self, params, group, bucket_bytes, find_unused):
        self.group = group or _group.resolve(None)
        self.find_unused = find_unused
        self.params = params
        self.buckets, self.where = [], {}
        for p in reversed(params):   # gradients arrive roughly last layer first
            b = self.buckets[-1] if self.buckets else None
            if b is None or b[0].dtype != p.dtype or b[0].device != p.device or sum(q.nbytes for q in b) + p.nbytes > bucket_bytes:
                self.buckets.append([p])
            else:
                b.append(p)
        self.buckets = [_Bucket(ps, ps[0].dtype) for ps in self.buckets]
        for bi, b in enumerate(self.buckets):
            for j, p in enumerate(b.params):
                self.where[id(p)] = (bi, j)
        self.handles = [p.register_hook(self._hook_for(p)) for p in params]
        self.armed = self.started = False
        self.sync = True

    # ---- per iteration ----
    def prepare(self, outputs):
        if self.armed and self.started and self.remaining:
            unready = [i for i, p in enumerate(self.params) if not self.ready.get(id(p))]
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. This error "
                "indicates that your module has parameters that were not used in producing loss (parameter indices "
                f"{unready[:10]}). Pass find_unused_parameters=True to DistributedDataParallel, or make sure all "
                "outputs of forward take part in the loss.")
        self.armed = self.sync and is_grad_enabled() and bool(self.params)
        if not self.armed:
            return
        self.ready, self.remaining, self.next_launch, self.started = {}, len(self.params), 0, False
        for b in self.buckets:
            b.pending, b.work = len(b.params), None
        if self.find_unused:
            used = _reachable_leaves(outputs)
            for p in self.params:
                if id(p) not in used:
                    self._mark(p, None)

    def _hook_for(self, p):
        def hook(grad):
            if not self.armed or self.ready.get(id(p)):
                return None
            self.started = True
            total = grad if p.grad is None else p.grad + grad
            self._mark(p, total)
            if self.remaining == 0:
                return self._finish(p)
            return None
        return hook

    def _mark(self, p, total):
        bi, j = self.where[id(p)]
        b = self.buckets[bi]
        view = b.flat[b.offsets[j]:b.offsets[j] + p.numel()]
        if total is None and p.grad is None:
            view.zero_()
        else:
            view.copy_((p.grad if total is None else total).detach().reshape(-1))
        self.ready[id(p)] = True
        self.remaining -= 1
        b.pending -= 1
        # launched in bucket order on every rank: MPI needs collectives in the same order everywhere
        while self.next_launch < len(self.buckets) and self.buckets[self.next_launch].pending == 0:
            nb = self.buckets[self.next_launch]
            nb.work = all_reduce(nb.flat, group=self.group, async_op=True)
            self.next_launch += 1
        if self.remaining == 0 and total is None:   # the last one was unused: nothing returns its gradient
            self._finish(None)

    def _finish(self, last):
        for b in self.buckets:
            b.work.wait()
        self.armed = False
        n = self.group.size()
        mine = None
        for b in self.buckets:
            b.flat.div_(n)
            for j, p in enumerate(b.params):
                avg = b.flat[b.offsets[j]:b.offsets[j] + p.numel()].reshape(tuple(p.shape)).clone()
                if p is last:
                    mine = avg
                else:
                    p.grad = avg
        if last is not None:
            last.grad = None   # the engine stores the returned average as the gradient
        return mine

    def remove(self):
        for h in self.handles:
            h.remove()


def _reachable_leaves(outputs):
    """ids of the leaf tensors the autograd graph of `outputs` reaches."""
    stack, seen, leaves = [], set(), set()
    for t in _tensors(outputs):
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad:
            leaves.add(id(t))
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:
            leaves.add(id(var))
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return leaves


def _tensors(x):
    if isinstance(x, Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            yield from _tensors(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _tensors(y)
