"""Compact encodings for the ledger: paths as canonical JSON, solutions as packed ids."""
from __future__ import annotations

import json
import struct
import sys
from contextlib import contextmanager
from fractions import Fraction
from typing import Iterator, Sequence


def path_text(path: Sequence[int]) -> str:
    """A path as the canonical JSON text stored (and made unique) in the ledger."""
    return json.dumps([int(k) for k in path], separators=(",", ":"))


def path_of(text: str) -> tuple[int, ...]:
    return tuple(json.loads(text))


def pack(options: Sequence[int]) -> bytes:
    """Option ids as little-endian unsigned 32-bit integers."""
    return struct.pack(f"<{len(options)}I", *options)


def unpack(blob: bytes) -> tuple[int, ...]:
    return struct.unpack(f"<{len(blob) // 4}I", bytes(blob))


def fraction_parts(f: Fraction) -> tuple[str, str, float]:
    """A weight as the ledger stores it: numerator and denominator in decimal, and its
    value as a float (for sums and sorting in SQL)."""
    with _any_digits():
        return str(f.numerator), str(f.denominator), float(f)


def fraction_of(num: str, den: str) -> Fraction:
    """A weight from the ledger's two decimal columns (see :func:`fraction_parts`)."""
    with _any_digits():
        return Fraction(int(num), int(den))


def count_text(n: int) -> str:
    """A count as the ledger stores it: decimal text of any length."""
    with _any_digits():
        return str(int(n))


def count_of(text: str) -> int:
    """A count from the ledger's decimal text (see :func:`count_text`)."""
    with _any_digits():
        return int(text)


def total_of(counts, modulus: int | None = None) -> int:
    """The sum of subproblems' counts (decimal text or ints), modulo ``modulus`` where the
    run has one (a count by levels in groups of moduli: core/level_shares.py)."""
    with _any_digits():
        total = sum(int(c) for c in counts if c is not None)
    return total % modulus if modulus else total


@contextmanager
def _any_digits() -> Iterator[None]:
    """Inside, integers of any length convert to and from decimal text.  Python refuses
    past 4,300 digits by default (a guard against slow conversions of untrusted input);
    a weight's denominator is the product of the branching factors along its path, 6,000
    digits at depth 20,000 (the 200x200 domino board), a count by levels of a long strip
    has as many, and the text is the ledger's own."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)
