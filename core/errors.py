"""Errors for bad input: one line that names the source, the line and what is wrong."""
from __future__ import annotations


class ProblemError(ValueError):
    """A problem could not be read or built.

    ``str(err)`` is the one line a user sees: ``source:line: message`` (the parts
    that are known).  The CLI prints it and exits with status 2.
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.source is not None:
            where = f"{self.source}:"
            if self.line is not None:
                where += f"{self.line}:"
            where += " "
        elif self.line is not None:
            where = f"line {self.line}: "
        return f"{where}{self.message}"

    def located(self, source: str | None = None, line: int | None = None) -> "ProblemError":
        """The same error with a source (and line) filled in where they were missing."""
        return ProblemError(
            self.message,
            source=self.source if self.source is not None else source,
            line=self.line if self.line is not None else line,
        )


class PathError(ValueError):
    """A path (list of option ids) that is not legal in the search tree."""


class CensusError(ProblemError):
    """A census (:mod:`core.census`) this solver or method cannot take: which, and why."""
