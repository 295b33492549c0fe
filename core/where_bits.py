"""A resolved ``--where`` query (:mod:`core.where_options`) answered with bitmaps: each
condition's solutions as a Python int whose bit k stands for the solution with id
``lo + k``; ``and`` is ``&``, ``or`` ``|``, ``not`` ``& ~``, the count ``bit_count()``.

At a million stored solutions a condition matches hundreds of thousands; a database
answers ``INTERSECT`` / ``UNION`` / ``EXCEPT`` of such sets through a temporary B-tree
or hash (a few hundred nanoseconds an id), where an int of a million bits is combined
with another in tens of microseconds.  The ids come in as text (decimal, joined by
commas, as the ledger aggregates them) and the page goes out as positions, both in C
(``core/_idset.c``).
"""
from __future__ import annotations

from typing import Callable

from ._idset import ids_bitmap, set_bits
from .where_options import AllOf, AnyOf, NoneOf, Resolved, Uses

#: the solutions as a bitmap: bit k set for the id lo + k
Bits = int


def bits_of_ids(text: str | None, lo: int, nbits: int) -> Bits:
    """The bitmap of the ids in ``text`` (decimal, joined by commas; ``None`` or empty:
    none), each in ``[lo, lo + nbits)`` (``ValueError`` otherwise)."""
    if not text:
        return 0
    return int.from_bytes(ids_bitmap(text, lo, nbits), "little")


def positions(bits: Bits, skip: int, limit: int) -> list[int]:
    """The positions of the set bits, lowest first, past the first ``skip``, at most ``limit``."""
    if bits <= 0 or limit <= 0:
        return []
    return set_bits(bits.to_bytes((bits.bit_length() + 7) // 8, "little"), skip, limit)


def evaluate(q: Resolved, bits_of: Callable[[Uses], Bits], universe: Callable[[], Bits]) -> Bits:
    """The bitmap of the solutions that match ``q``: ``bits_of`` gives a condition's,
    ``universe`` every stored solution's (asked only for a ``not`` with nothing positive
    beside it: ``A and not B`` is ``A & ~B``, no universe needed).  An ``and`` stops
    reading its conditions once nothing is left."""
    if isinstance(q, Uses):
        return bits_of(q)
    if isinstance(q, AnyOf):
        out = 0
        for p in q.parts:
            out |= evaluate(p, bits_of, universe)
        return out
    if isinstance(q, NoneOf):
        return universe() & ~evaluate(q.part, bits_of, universe)
    positive = [p for p in q.parts if not isinstance(p, NoneOf)]
    out = None
    for p in positive:
        out = evaluate(p, bits_of, universe) if out is None else out & evaluate(p, bits_of, universe)
        if not out:
            return 0
    if out is None:
        out = universe()
    for p in q.parts:
        if isinstance(p, NoneOf):
            out &= ~evaluate(p.part, bits_of, universe)
            if not out:
                return 0
    return out
