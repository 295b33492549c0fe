"""The level count's contract in plain Python, for differential tests of ``core/_frontier.c``.

The same algorithm, written for reading: a state is the frozenset of covered items, a
level's states a dict from state to the number of paths reaching it, and counts are
Python integers.  Branching on the lowest uncovered front item (the items up to the last
lead; see :class:`core.frontier.LevelCounter`), a state's children are the options of
that lead that miss it; a child covering every front item is a solution when it covers
every primary item.  Without walls the C count expands exactly these states, level by
level, so the tests compare the distinct states of each level as well as the count.
"""
from __future__ import annotations

from typing import Sequence

from .exact_cover import ExactCover


class LevelReference:
    """A plain cover counted level by level in Python (small covers only)."""

    def __init__(self, ec: ExactCover):
        self.ec = ec
        self.by_lead: dict[int, list[frozenset[int]]] = {}
        for option in ec.options:
            items = frozenset(i for i, _ in option)
            if items and min(items) < ec.n_primary:
                self.by_lead.setdefault(min(items), []).append(items)
        self.n_front = max(self.by_lead, default=0) + 1
        self.primary = frozenset(range(ec.n_primary))

    def _level(self, covered: frozenset[int]) -> int:
        return next((i for i in range(self.n_front) if i not in covered), self.n_front)

    def count(self, covered: Sequence[int] = ()) -> tuple[int, list[int]]:
        """The covers completing ``covered``, and the distinct states expanded at each level
        from the start's level on."""
        start = frozenset(covered)
        first = self._level(start)
        if first >= self.n_front:
            return int(self.primary <= start), []
        pending: dict[int, dict[frozenset[int], int]] = {first: {start: 1}}
        total = 0
        states: list[int] = []
        for level in range(first, self.n_front):
            here = pending.pop(level, {})
            states.append(len(here))
            for state, paths in here.items():
                for option in self.by_lead.get(level, ()):
                    if option & state:
                        continue
                    child = state | option
                    next_level = self._level(child)
                    if next_level >= self.n_front:
                        if self.primary <= child:
                            total += paths
                        continue
                    into = pending.setdefault(next_level, {})
                    into[child] = into.get(child, 0) + paths
        return total, states
