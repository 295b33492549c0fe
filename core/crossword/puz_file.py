"""The grid of an Across Lite ``.puz`` file (binary), read with puzpy.

A ``.puz`` file holds the solution grid one byte per square: ``.`` is a black square
(``:`` in a diagramless puzzle), anything else a white square (a letter, or a scrambled
letter in a locked puzzle, whose black squares are not scrambled).  Every failure of the
library on a bad file -- a missing ``ACROSS&DOWN`` header, a checksum that does not
match, a file cut short -- becomes one :class:`ProblemError` naming the file.

A ``.puz`` spec travels as base64 text (:func:`spec_text`), so a worker on another
machine reads the same bytes from the ledger.
"""
from __future__ import annotations

import base64
import binascii
import struct
from typing import TYPE_CHECKING

from ..errors import ProblemError
from .grid import Grid

if TYPE_CHECKING:  # the library is imported when a file is read (it costs 35 ms: importlib.metadata)
    import puz

#: the magic string of a .puz file, 2 bytes after its start (after any preamble)
MAGIC = b"ACROSS&DOWN\x00"
#: squares of the solution grid that are black
BLACK = frozenset(".:")
CUT_SHORT = "it ends inside its header or an extension"


def is_puz(data: bytes) -> bool:
    """Whether ``data`` looks like a .puz file: its magic string after a 2-byte checksum."""
    return data.find(MAGIC) >= 2


def spec_text(data: bytes) -> str:
    """The bytes of a .puz file as the text of a spec (base64)."""
    return base64.b64encode(data).decode("ascii")


def spec_bytes(text: str, source: str | None = None) -> bytes:
    """The bytes of a .puz spec's text."""
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ProblemError("a .puz spec's text must be the file's bytes in base64", source=source) from None


def load(data: bytes, source: str | None = None) -> "puz.Puzzle":
    """The puzpy puzzle of a .puz file's bytes, or one clean error."""
    if not is_puz(data):
        raise ProblemError("not a .puz file: no ACROSS&DOWN header", source=source)
    import puz

    try:
        return puz.load(data)
    except puz.PuzzleFormatError as exc:
        message = " ".join((exc.message or "format error").split())
        if message.startswith("could not unpack"):
            message = CUT_SHORT
        raise ProblemError(f"bad .puz file: {message}", source=source) from None
    except struct.error:
        raise ProblemError(f"bad .puz file: {CUT_SHORT}", source=source) from None
    except UnicodeDecodeError as exc:
        raise ProblemError(f"bad .puz file: text that is not {exc.encoding}", source=source) from None
    except (ValueError, IndexError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ProblemError(f"bad .puz file: {first}", source=source) from None


def grid_of(p: "puz.Puzzle", source: str | None = None) -> Grid:
    """The black squares of a puzpy puzzle's solution."""
    rows, cols = p.height, p.width
    if rows < 1 or cols < 1:
        raise ProblemError(f"bad .puz file: a {cols}x{rows} grid", source=source)
    if len(p.solution) != rows * cols:
        raise ProblemError(f"bad .puz file: the solution has {len(p.solution)} squares, not {rows * cols}",
                           source=source)
    return Grid(rows, cols, tuple(ch in BLACK for ch in p.solution))


def read_grid(data: bytes, source: str | None = None) -> Grid:
    """The grid of a .puz file's bytes."""
    return grid_of(load(data, source), source)
