"""Reading TOML problem files with errors that name the file and the line."""
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
