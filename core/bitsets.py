"""Sets of small integers held as the bits of a Python integer (tile choices in
:mod:`core.reduction`, live options in :mod:`core.symmetry`): a few big-integer
operations where a set would walk its members."""
from __future__ import annotations


def bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
