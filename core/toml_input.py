"""Reading TOML problem files with errors that name the file and the line, and finding
where in the text a key was written (``tomllib`` keeps no line numbers)."""
from __future__ import annotations

import re
import tomllib
from typing import Any

from .errors import ProblemError


def load_toml(text: str, source: str | None = None) -> dict[str, Any]:
    """The TOML document in ``text``; a syntax error is a :class:`ProblemError` naming
    ``source`` and the line (the last line when the document ended too soon)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        said = str(exc)
        m = re.search(r"line (\d+)", said)
        line = int(m.group(1)) if m else (len(text.splitlines()) if "end of document" in said else None)
        message = re.sub(r"\s*\((at line \d+, column \d+|at end of document)\)", "", said) or "syntax error"
        raise ProblemError(f"not valid TOML: {message}", source=source, line=line) from None


def key_line(text: str | None, key: str, start: int = 0, stop: int | None = None) -> int | None:
    """The 1-based line of the first ``key = ...`` at or after line index ``start`` (and
    before ``stop``), or None."""
    if not text:
        return None
    lines = text.splitlines()
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i in range(start, len(lines) if stop is None else min(stop, len(lines))):
        if pattern.match(lines[i]):
            return i + 1
    return None


def value_first_line(text: str, key: str, start: int = 0, stop: int | None = None) -> int | None:
    """The line where the string value of ``key`` begins: the key's own line, or the next
    one when the value opens with triple quotes at the end of the line (TOML drops that
    newline); None when the key is not there."""
    line = key_line(text, key, start, stop)
    if line is None:
        return None
    value = text.splitlines()[line - 1].split("=", 1)[1].strip()
    return line + 1 if value in ('"""', "'''") else line


def table_key_line(text: str, table: str, key: str) -> int | None:
    """The line of ``key = ...`` after the ``[table]`` header (anywhere when the text has
    no such header), or None."""
    header = re.compile(rf"^\s*\[\s*{re.escape(table)}\s*\]")
    for i, line in enumerate(text.splitlines()):
        if header.match(line):
            return key_line(text, key, i + 1)
    return key_line(text, key)
