"""Work handles for async_op=True: an MPI request plus what must run once it completes
(writing a staged buffer back, dividing for AVG)."""

from ._mpi import mpi


class Work:
    def __init__(self, requests=(), finish=None, result=None):
        self._requests = list(requests)
        self._finish = finish
        self._done = False
        self._result = result

    def _complete(self):
        if not self._done:
            self._done = True
            if self._finish is not None:
                self._finish()

    def wait(self, timeout=None):
        if not self._done:
            mpi().Request.Waitall(self._requests)
            self._complete()
        return True

    def is_completed(self):
        if not self._done:
            if self._requests and not mpi().Request.Testall(self._requests):
                return False
            self._complete()
        return True

    def is_success(self):
        return self.is_completed()

    def result(self):
        self.wait()
        return self._result

    def __repr__(self):
        return f"Work(completed={self._done})"


def done(result=None):
    """A handle for work already finished (a rank outside the group, an empty group)."""
    w = Work(result=result)
    w._done = True
    return w
