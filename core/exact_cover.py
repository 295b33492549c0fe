"""The exact cover value every model compiles to.

Vocabulary (Knuth, TAOCP 7.2.2.1):

* an **item** is something to cover.  *Primary* items (indices ``0 .. n_primary-1``)
  must be covered exactly once — or, with multiplicity bounds ``(lo, hi)``, between
  ``lo`` and ``hi`` times.  *Secondary* items (indices ``n_primary ..``) are covered
  at most once, unless every option that touches them agrees on a **color**.
* an **option** is a set of items covered together: ``((item, color), ...)`` where
  ``color`` is 0 for "no color" and ``c >= 1`` indexes ``colors``.

The class is a frozen value: a thin normalisation layer that turns friendly input
(names, ``"item:color"``) into flat integer tuples for the compiled kernel, which never
sees a name.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, chain, compress, islice
from operator import ge, itemgetter
from typing import Iterable, Sequence

from .errors import ProblemError

Item = int
Color = int
OptionEntries = tuple[tuple[Item, Color], ...]


@dataclass(frozen=True)
class ExactCover:
    """Items, options and colors of one exact cover problem (integer form)."""

    items: tuple[str, ...]
    n_primary: int
    options: tuple[OptionEntries, ...]
    colors: tuple[str, ...] = ("",)
    #: multiplicity ``(lo, hi)`` of each primary item; ``None`` means all ``(1, 1)``.
    bounds: tuple[tuple[int, int], ...] | None = None
    #: optional human label of each option (for printing solutions)
    labels: tuple[str, ...] | None = field(default=None, compare=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def build(
        cls,
        primary: Sequence[str],
        secondary: Sequence[str] = (),
        options: Iterable[Iterable[str | tuple[str, str | None]]] = (),
        *,
        bounds: dict[str, tuple[int, int]] | None = None,
        labels: Sequence[str] | None = None,
        source: str | None = None,
    ) -> "ExactCover":
        """Build from names.  An option entry is ``"item"``, ``"item:color"`` or
        ``(item, color)``.  Raises :class:`ProblemError` on bad input."""
        names = list(primary) + list(secondary)
        index: dict[str, int] = {}
        for i, name in enumerate(names):
            if not isinstance(name, str) or not name:
                raise ProblemError(f"item {i} has an empty or non-text name", source=source)
            if name in index:
                raise ProblemError(f"item {name!r} is declared twice", source=source)
            index[name] = i
        n_primary = len(primary)
        color_index: dict[str, int] = {"": 0}
        color_names: list[str] = [""]
        built: list[OptionEntries] = []
        for k, option in enumerate(options):
            entries = []
            for entry in option:
                if isinstance(entry, tuple):
                    name, color = entry
                else:
                    name, _, color = entry.partition(":")
                color = color or ""
                entries.append((name, color))
            built.append(
                cls._entries(entries, index, n_primary, color_index, color_names, f"option {k + 1}", source)
            )
        bound_list = None
        if bounds:
            bound_list = [(1, 1)] * n_primary
            for name, (lo, hi) in bounds.items():
                i = index.get(name)
                if i is None or i >= n_primary:
                    raise ProblemError(f"multiplicity given for {name!r}, which is not a primary item", source=source)
                bound_list[i] = (lo, hi)
        return cls.from_indices(
            tuple(names), n_primary, built, tuple(color_names), bound_list, labels, source=source
        )

    @staticmethod
    def _entries(entries, index, n_primary, color_index, color_names, what, source, line=None):
        if not entries:
            raise ProblemError(f"{what} is empty", source=source, line=line)
        seen: set[int] = set()
        out = []
        for name, color in entries:
            i = index.get(name)
            if i is None:
                raise ProblemError(f"{what} uses unknown item {name!r}", source=source, line=line)
            if i in seen:
                raise ProblemError(f"{what} uses item {name!r} twice", source=source, line=line)
            seen.add(i)
            c = 0
            if color:
                if i < n_primary:
                    raise ProblemError(
                        f"{what} gives a color to primary item {name!r}", source=source, line=line
                    )
                c = color_index.get(color)
                if c is None:
                    c = color_index[color] = len(color_names)
                    color_names.append(color)
            out.append((i, c))
        return tuple(out)

    @classmethod
    def from_indices(
        cls,
        items: Sequence[str],
        n_primary: int,
        options: Iterable[Iterable[tuple[int, int]]],
        colors: Sequence[str] = ("",),
        bounds: Sequence[tuple[int, int]] | None = None,
        labels: Sequence[str] | None = None,
        *,
        source: str | None = None,
    ) -> "ExactCover":
        """Build from integer entries, validating everything the kernel relies on."""
        items = tuple(items)
        n = len(items)
        if not 0 <= n_primary <= n:
            raise ProblemError(f"n_primary={n_primary} is outside 0..{n}", source=source)
        colors = tuple(colors) if colors else ("",)
        options = options if isinstance(options, (list, tuple)) else list(options)
        opts = _plain_options(options, n)
        if opts is None:
            opts = cls._checked_options(items, n_primary, options, colors, source)
        if bounds is not None:
            bounds = tuple((int(lo), int(hi)) for lo, hi in bounds)
            if len(bounds) != n_primary:
                raise ProblemError("bounds must give one (lo, hi) per primary item", source=source)
            for i, (lo, hi) in enumerate(bounds):
                if not (0 <= lo <= hi and hi >= 1):
                    raise ProblemError(
                        f"item {items[i]!r} has multiplicity {lo}:{hi}; need 0 <= lo <= hi, hi >= 1",
                        source=source,
                    )
            if all(b == (1, 1) for b in bounds):
                bounds = None
        if labels is not None:
            labels = tuple(labels)
            if len(labels) != len(opts):
                raise ProblemError("labels must give one label per option", source=source)
        return cls(items, n_primary, tuple(opts), colors, bounds, labels)

    @staticmethod
    def _checked_options(items, n_primary, options, colors, source) -> list[OptionEntries]:
        """Every entry checked, each fault named (the path for any input but the plain one)."""
        n = len(items)
        opts = []
        for k, option in enumerate(options):
            entries = tuple((int(i), int(c)) for i, c in option)
            if not entries:
                raise ProblemError(f"option {k + 1} is empty", source=source)
            used = set()
            for i, c in entries:
                if not 0 <= i < n:
                    raise ProblemError(f"option {k + 1} uses item index {i}, outside 0..{n - 1}", source=source)
                if i in used:
                    raise ProblemError(f"option {k + 1} uses item {items[i]!r} twice", source=source)
                used.add(i)
                if not 0 <= c < len(colors):
                    raise ProblemError(f"option {k + 1} uses unknown color {c}", source=source)
                if c and i < n_primary:
                    raise ProblemError(
                        f"option {k + 1} gives a color to primary item {items[i]!r}", source=source
                    )
            opts.append(entries)
        return opts

    # ------------------------------------------------------------------ views
    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_options(self) -> int:
        return len(self.options)

    @property
    def primary(self) -> tuple[str, ...]:
        return self.items[: self.n_primary]

    @property
    def secondary(self) -> tuple[str, ...]:
        return self.items[self.n_primary :]

    def bound(self, item: int) -> tuple[int, int]:
        """Multiplicity ``(lo, hi)`` of an item: secondary items are ``(0, 1)``."""
        if item >= self.n_primary:
            return (0, 1)
        return self.bounds[item] if self.bounds else (1, 1)

    @cached_property
    def derived(self) -> dict:
        """What solvers compute once from this cover and keep with it (a compiled kernel
        problem, the band, ...), keyed by whoever stores it.  The cover itself is
        immutable, so whatever is derived from it stays true."""
        return {}

    def __getstate__(self) -> dict:
        """Pickled without :attr:`derived`: compiled objects do not pickle, and the
        receiving process derives them again when it needs them."""
        state = dict(self.__dict__)
        state.pop("derived", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    @cached_property
    def colored(self) -> bool:
        """Whether some option gives an item a color."""
        return any(c for option in self.options for _, c in option)

    @cached_property
    def item_sets(self) -> tuple[frozenset[Item], ...]:
        """The items of each option, as a set (computed once)."""
        return tuple(frozenset(i for i, _ in option) for option in self.options)

    @cached_property
    def covering(self) -> tuple[tuple[int, ...], ...]:
        """For each item, the options that use it, in increasing id (computed once)."""
        out: list[list[int]] = [[] for _ in range(self.n_items)]
        for k, option in enumerate(self.options):
            for i, _ in option:
                out[i].append(k)
        return tuple(tuple(ks) for ks in out)

    def option_text(self, k: int) -> str:
        """An option as its DLX line (``item item:color ...``), or its label."""
        if self.labels is not None:
            return self.labels[k]
        return " ".join(
            self.items[i] + (":" + self.colors[c] if c else "") for i, c in self.options[k]
        )

    def is_solution(self, chosen: Iterable[int]) -> bool:
        """Independent check: every primary item within its bounds, secondary items at most
        once unless all uses agree on a color.  As in Knuth's algorithms, an option with no
        primary item is never part of a solution, and no option is chosen twice."""
        count = [0] * self.n_items
        color: dict[int, int] = {}
        chosen = list(chosen)
        if len(set(chosen)) != len(chosen):
            return False
        for k in chosen:
            if not 0 <= k < self.n_options:
                return False
            if all(i >= self.n_primary for i, _ in self.options[k]):
                return False
            for i, c in self.options[k]:
                count[i] += 1
                if i >= self.n_primary:
                    if c == 0:
                        if count[i] > 1:
                            return False
                        color[i] = -1
                    else:
                        if color.setdefault(i, c) != c:
                            return False
        for i in range(self.n_primary):
            lo, hi = self.bound(i)
            if not lo <= count[i] <= hi:
                return False
        return True


def _plain_options(options: Sequence, n: int) -> tuple[OptionEntries, ...] | None:
    """The options as they are, where each is a non-empty tuple of ``(item, 0)`` pairs of
    ints with the items strictly increasing within ``0 .. n-1`` (what the models compile
    to); None where any is not, for the checked path to name the fault.  Checked over all
    entries at once by whole-sequence operations (map, set), not entry by entry: the
    checked path took most of a small polyform problem's compile."""
    if not options:
        return ()
    if set(map(type, options)) != {tuple}:
        return None
    lengths = list(map(len, options))
    if 0 in lengths:
        return None
    entries = list(chain.from_iterable(options))
    if set(map(type, entries)) != {tuple} or set(map(len, entries)) != {2}:
        return None
    items = list(map(itemgetter(0), entries))
    colours = set(map(itemgetter(1), entries))
    if set(map(type, items)) != {int} or colours != {0} or type(colours.pop()) is not int:
        return None
    if min(items) < 0 or max(items) >= n:
        return None
    # the items fall only where an option ends and the next begins
    starts = set(accumulate(lengths))
    falls = compress(range(1, len(items)), map(ge, items, islice(items, 1, None)))
    if not starts.issuperset(falls):
        return None
    return tuple(options)
