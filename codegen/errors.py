"""Errors that point at a line of a YAML file, so a build fails with `ops/pointwise.yaml:12: ...`."""
import difflib


class SpecError(Exception):
    def __init__(self, file, line, message):
        super().__init__(f"{file}:{line}: {message}")
        self.file, self.line, self.message = file, line, message


def did_you_mean(name, candidates):
    close = difflib.get_close_matches(name, list(candidates), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""
