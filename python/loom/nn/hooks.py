"""Handles that remove a registered hook, as torch.utils.hooks.RemovableHandle."""
import itertools

_ids = itertools.count()


class RemovableHandle:
    """Removes its hook from the dicts it was registered in; usable as a context manager."""

    def __init__(self, *hooks_dicts):
        self.id = next(_ids)
        self._dicts = hooks_dicts

    def remove(self):
        for d in self._dicts:   # the hook dicts, and the sets of ids flagged with_kwargs / always_call
            if isinstance(d, set):
                d.discard(self.id)
            else:
                d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False
