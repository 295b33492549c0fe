"""Compact encodings for the ledger: paths as canonical JSON, solutions as packed ids."""
from __future__ import annotations

import json
import struct
from fractions import Fraction
from typing import Sequence


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
    return str(f.numerator), str(f.denominator), float(f)
