"""A symmetry group acting on an exact cover's options, as the engines use it.

A model that knows its problem's symmetries (polyforms: the board's rotations and
reflections that map the board and the piece set to themselves) gives them as
permutations of option ids (:class:`OptionSymmetry`): each maps every solution to a
solution.  ``--distinct`` counts once per orbit of solutions (:mod:`core.distinct`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class OptionSymmetry:
    """A group G acting on option ids."""

    #: one permutation of the option ids per element of G, the identity first
    permutations: tuple[tuple[int, ...], ...]
    #: for each piece kind placed exactly once in every solution and mapped to itself by
    #: every element of G: its option ids (the kind's number is the model's own)
    single_pieces: dict[int, list[int]]
    #: what the group is, in one line ("the 4 symmetries of a 6x10 rectangle")
    description: str = ""

    @property
    def order(self) -> int:
        return len(self.permutations)


def orbits(perms: Sequence[tuple[int, ...]], elements: Sequence[int]) -> list[tuple[int, list[int]]]:
    """G-orbits of the given option ids: (smallest element, stabiliser indices in perms)."""
    seen: set[int] = set()
    out = []
    for x in sorted(elements):
        if x in seen:
            continue
        orbit = {g[x] for g in perms}
        seen |= orbit
        out.append((x, [i for i, g in enumerate(perms) if g[x] == x]))
    return out
