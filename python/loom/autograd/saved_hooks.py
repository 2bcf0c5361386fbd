"""Hooks on the tensors autograd saves for backward (PyTorch's
autograd.graph.saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks).
The stack is read by loom._autograd.save, which packs a tensor with the
innermost pair while the stack is not empty (one test when it is), and the
node's unpack calls the unpack hook."""
from .._autograd import set_saved_hooks

_stack = []              # (pack_hook, unpack_hook) pairs, innermost last
_disabled = [None]       # the error message while disable_saved_tensors_hooks is on
set_saved_hooks(_stack)


class saved_tensors_hooks:
    """Within this context, pack_hook(tensor) is called for each tensor an op saves
    for backward and its result stored instead; unpack_hook(packed) must give the
    tensor back when backward needs it. Contexts nest: the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _disabled[0] is not None:
            raise RuntimeError(_disabled[0])
        _stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _stack.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept in CPU memory (pinned with pin_memory) and moved back
    to their device when backward unpacks them."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack(t):
            if t.device.type == "cpu" and not pin_memory:
                return (t.device, t)
            cpu = t.to("cpu")
            return (t.device, cpu.pin_memory() if pin_memory and hasattr(cpu, "pin_memory") else cpu)

        def unpack(packed):
            device, t = packed
            return t.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Within this context, entering saved_tensors_hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        self.prev = _disabled[0]
        _disabled[0] = self.error_message

    def __exit__(self, *exc):
        _disabled[0] = self.prev
        return False
