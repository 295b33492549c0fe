"""Loading problems: by built-in name or from a file, for every model.

Importing this module registers every model's kind, formats and named problems with
:mod:`core.problem`.  :func:`load` is the one entry point the CLI and the workers use.
"""
from __future__ import annotations

import os
from typing import Any

from .errors import ProblemError
from .toml_input import load_toml
from .problem import Problem, from_spec, named_spec

# Each model module registers itself on import.
from . import dlx_format  # noqa: F401,E402  kind "exact-cover"
from . import reduction, sudoku, edges  # noqa: F401,E402  kinds reduction, sudoku, latin, roads, edges
from .polyform import problem as _polyform  # noqa: F401,E402  kind polyform
from . import crossword  # noqa: F401,E402  kind crossword

#: file suffix -> format name
SUFFIX_FORMATS = {".dlx": "dlx", ".toml": "toml", ".txt": "text"}


def spec_from_file(path: str, kind: str | None = None) -> dict[str, Any]:
    """Read a problem file into a spec (its text travels with the spec, so a worker on
    another machine needs no copy of the file)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ProblemError("no such file or built-in problem", source=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProblemError(f"cannot read file: {exc}", source=path) from None
    return spec_from_text(text, source_name=path, kind=kind)


def spec_from_text(text: str, *, source_name: str = "<text>", kind: str | None = None) -> dict[str, Any]:
    """The spec of a problem given as text: TOML (with ``kind``), DLX, or a model's plain
    text format (``kind`` names the model)."""
    suffix = os.path.splitext(source_name)[1].lower()
    fmt = SUFFIX_FORMATS.get(suffix)
    if fmt == "toml" or (fmt is None and kind is None and _looks_like_toml(text)):
        data = load_toml(text, source_name)
        toml_kind = data.get("kind")
        if not isinstance(toml_kind, str):
            raise ProblemError('the TOML file needs a line kind = "..." naming the model', source=source_name)
        if kind is not None and kind != toml_kind:
            raise ProblemError(f"--kind {kind} disagrees with kind = {toml_kind!r} in the file", source=source_name)
        return {"kind": toml_kind, "format": "toml", "text": text, "source_name": source_name}
    if kind is None:
        kind = "exact-cover"
    return {"kind": kind, "format": fmt or "text", "text": text, "source_name": source_name}


def load_spec(name_or_path: str, kind: str | None = None) -> dict[str, Any]:
    """The spec of a built-in name or a file path."""
    if not os.path.exists(name_or_path):
        spec = named_spec(name_or_path)
        if spec is not None:
            if kind is not None and spec.get("kind") != kind:
                raise ProblemError(f"built-in problem {name_or_path!r} is of kind {spec.get('kind')!r}, not {kind!r}")
            return spec
    return spec_from_file(name_or_path, kind)


def load(name_or_path: str, kind: str | None = None) -> Problem:
    """A problem by built-in name (``tilecensus problems`` lists them) or from a file."""
    return from_spec(load_spec(name_or_path, kind))


def _looks_like_toml(text: str) -> bool:
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        return s.startswith("kind") and "=" in s
    return False
