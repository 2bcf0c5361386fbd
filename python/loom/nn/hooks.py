"""Handles that remove a registered hook, as torch.utils.hooks.RemovableHandle."""
import itertools

_ids = itertools.count()


class RemovableHandle:
    """Removes its hook from the dicts it was registered in; usable as a context manager."""

    def __init__(self, *hooks_dicts):
        self.id = next(_ids)
        self._dicts = hooks_dicts

    def remove(self):
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False
