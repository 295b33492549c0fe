"""The census of a count: beside the total, for every option the number of solutions
that use it, exact and without listing them.

A solver's :meth:`~core.search.Solver.census` returns a :class:`Census` of the subtree
below a path.  The census of a split's subproblems add up to the whole census, as their
counts add up to the whole count.  Two laws hold for every census: for every primary
item covered exactly once, the census of the options covering it sums to the total; an
option's census is at most the total.

How each solver takes it:

* the C search (``core/_kernel.c``): when the subtree below a node that chose option o
  has counted c solutions, c is added to census[o] — every solution is counted once per
  option on its path, with no listing;
* counting by levels (``core/_frontier.c``): a forward pass (the paths reaching each
  state) and a backward pass (the paths finishing from it); census[o] is the sum, over
  the moves by o, of forward(state) x backward(next state);
* counting by orbits (:class:`core.symmetry.OrbitCounter`): the census below each
  representative, mapped through the symmetries that carry it around its orbit;
* the reference (:class:`core.reference.ReferenceSolver`, for tests): every solution
  listed and its options tallied.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence


@dataclass
class Census:
    """The total and, for each option id, the solutions that use it (Python ints: exact
    however large)."""

    total: int
    per_option: list[int] = field(default_factory=list)

    @classmethod
    def empty(cls, n_options: int) -> "Census":
        return cls(0, [0] * n_options)

    def add(self, other: "Census") -> None:
        """Add another census of the same cover (a subproblem's, an orbit's image)."""
        if len(other.per_option) != len(self.per_option):
            raise ValueError(f"a census of {len(other.per_option)} options added to one of {len(self.per_option)}")
        self.total += other.total
        per = self.per_option
        for k, n in enumerate(other.per_option):
            if n:
                per[k] += n

    def credit(self, options: Iterable[int]) -> None:
        """Every solution counted uses these options (a replayed path, a partial cover the
        search started from): each gets the total.  Ids past the options (the "take no
        more" branches of a multiplicity) are no options and are skipped."""
        n = len(self.per_option)
        for k in options:
            if 0 <= k < n:
                self.per_option[k] += self.total

    def to_json(self) -> dict:
        return {"total": self.total, "per_option": list(self.per_option)}

    @classmethod
    def from_json(cls, data: dict) -> "Census":
        return cls(int(data["total"]), [int(n) for n in data["per_option"]])


def tally(solutions: Iterable[Sequence[int]], n_options: int) -> Census:
    """The census of listed solutions (each a sequence of option ids): the reference."""
    out = Census.empty(n_options)
    for solution in solutions:
        out.total += 1
        for k in solution:
            out.per_option[k] += 1
    return out


def from_u128_bytes(total: int, packed: bytes) -> Census:
    """A census from the C side's per-option counts: 16 bytes each, little-endian."""
    per = [int.from_bytes(packed[j:j + 16], "little") for j in range(0, len(packed), 16)]
    return Census(total, per)
