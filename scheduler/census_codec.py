"""A subproblem's census as the ledger stores it: one packed blob per subproblem.

For every option, the solutions below the subproblem that use it — exact integers of any
size (past 2^128 as the counts are), so each is an unsigned LEB128 varint (7 bits a byte,
the high bit set on every byte but the last).  Two layouts, the shorter one kept, told
apart by the first byte:

* ``D`` (dense): the number of options, then one varint per option (zeros are one byte);
* ``S`` (sparse): the number of options and of nonzero entries, then for each nonzero
  entry the gap from the previous one's index and its value.

A subproblem fixes a few placements and rules out many others, so most of a vector below
a deep path is zeros, and the sparse layout wins there; near the root, or on a small
board where every option is used, the dense one.  Measured in docs/ledger.md.
"""
from __future__ import annotations

from typing import Sequence

DENSE = b"D"
SPARSE = b"S"


def _varint(n: int, out: bytearray) -> None:
    """Append ``n`` (an int >= 0) as an unsigned LEB128 varint."""
    if n < 0:
        raise ValueError(f"a census entry is a count, not {n}")
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _read_varint(blob: bytes, at: int) -> tuple[int, int]:
    """The varint at ``at`` and where the next one starts."""
    n = shift = 0
    while True:
        if at >= len(blob):
            raise ValueError("a census blob ends inside a number")
        byte = blob[at]
        at += 1
        n |= (byte & 0x7F) << shift
        if byte < 0x80:
            return n, at
        shift += 7


def pack_dense(per_option: Sequence[int]) -> bytes:
    out = bytearray(DENSE)
    _varint(len(per_option), out)
    for n in per_option:
        _varint(n, out)
    return bytes(out)


def pack_sparse(per_option: Sequence[int]) -> bytes:
    out = bytearray(SPARSE)
    nonzero = [(k, n) for k, n in enumerate(per_option) if n]
    _varint(len(per_option), out)
    _varint(len(nonzero), out)
    last = 0
    for k, n in nonzero:
        _varint(k - last, out)
        _varint(n, out)
        last = k
    return bytes(out)


def pack_census(per_option: Sequence[int]) -> bytes:
    """The shorter of the two layouts of a census vector."""
    dense, sparse = pack_dense(per_option), pack_sparse(per_option)
    return sparse if len(sparse) < len(dense) else dense


def unpack_census(blob: bytes) -> list[int]:
    """A census vector from either layout (see the module text)."""
    blob = bytes(blob)
    if not blob:
        raise ValueError("an empty census blob")
    layout, at = blob[:1], 1
    size, at = _read_varint(blob, at)
    if layout == DENSE:
        out = []
        for _ in range(size):
            n, at = _read_varint(blob, at)
            out.append(n)
    elif layout == SPARSE:
        out = [0] * size
        entries, at = _read_varint(blob, at)
        k = 0
        for _ in range(entries):
            gap, at = _read_varint(blob, at)
            k += gap
            out[k], at = _read_varint(blob, at)
    else:
        raise ValueError(f"a census blob of unknown layout {layout!r}")
    if at != len(blob):
        raise ValueError("a census blob with bytes past its numbers")
    return out


def add_packed(total: list[int], blob: bytes) -> None:
    """Add a stored vector into ``total`` (a run's census summed over its subproblems)."""
    vector = unpack_census(blob)
    if len(vector) != len(total):
        raise ValueError(f"a census of {len(vector)} options added to one of {len(total)}")
    for k, n in enumerate(vector):
        if n:
            total[k] += n
