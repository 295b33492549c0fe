"""Knuth's DLX text format, read into and written from :class:`ExactCover`.

The format of Knuth's DLX1/DLX2/DLX3 programs, so problems travel between tools::

    | a comment: any line whose first non-blank character is '|'
    a b c | x y          <- the items line: primary items, then '|', then secondary
    a b x:red            <- one option per line; 'item:color' on secondary items only
    b c y

Tokens are separated by white space.  Names are non-empty and have no ``:`` or ``|``.
On the items line a primary item may carry Knuth's multiplicity prefix (DLX3/MCC):
``lo:hi|name`` covers ``name`` between ``lo`` and ``hi`` times, ``m|name`` exactly ``m``
times; a plain ``name`` is ``1:1``.  Lines end at ``\\n``, ``\\r\\n`` or ``\\r``.

Round trip: ``parse_dlx(format_dlx(ec)) == ec`` for every ExactCover whose colors are
numbered in order of first use (as :meth:`ExactCover.build` and :func:`parse_dlx` number
them); any other ExactCover comes back with the same solutions and renumbered colors.

This module also registers the problem kind ``"exact-cover"``: a DLX file as a problem; and,
through :mod:`core.hoffman`, the kind's named problems.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

from .errors import ProblemError
from .exact_cover import ExactCover
from .catalog import register_kind
from .problem import Problem

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
#: the multiplicity prefix of a primary item: ``lo:hi`` or ``m`` (ASCII digits, bounded
#: length, so no huge int conversions)
_MULTIPLICITY = re.compile(r"([0-9]{1,9})(?::([0-9]{1,9}))?")
_SHOW_MAX = 40


def _show(text: str) -> str:
    """A name for an error message: repr (one line, escapes control characters), cut short."""
    if len(text) > _SHOW_MAX:
        return repr(text[:_SHOW_MAX]) + "..."
    return repr(text)


def _check_name(name: str, what: str, source: str, line: int) -> None:
    if not name:
        raise ProblemError(f"empty {what} name", source=source, line=line)
    for bad in ":|":
        if bad in name:
            raise ProblemError(
                f"{what} name {_show(name)} contains {bad!r} (names may not contain ':' or '|')",
                source=source,
                line=line,
            )


# ---------------------------------------------------------------------------- reading
def parse_dlx(text: str, source: str = "<text>") -> ExactCover:
    """Read DLX text into an ExactCover; each option's label is its line as written.

    Raises :class:`ProblemError` (``source:line: message``) on anything malformed."""
    if not isinstance(text, str):
        raise ProblemError(f"DLX text must be a string, not {type(text).__name__}", source=source)
    lines = _LINE_BREAK.split(text)
    header = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("|"):
            header = number
            break
    if header is None:
        raise ProblemError("no items line (every line is blank or a '|' comment)", source=source)

    names, n_primary, bounds = _parse_items(lines[header - 1].split(), source, header)
    index = {name: i for i, name in enumerate(names)}
    color_index: dict[str, int] = {"": 0}
    colors: list[str] = [""]
    options: list[tuple[tuple[int, int], ...]] = []
    labels: list[str] = []
    for number in range(header + 1, len(lines) + 1):
        stripped = lines[number - 1].strip()
        if not stripped or stripped.startswith("|"):
            continue
        options.append(_parse_option(stripped.split(), index, n_primary, color_index, colors, source, number))
        labels.append(stripped)
    return ExactCover.from_indices(names, n_primary, options, colors, bounds, labels, source=source)


def _parse_items(
    tokens: list[str], source: str, line: int
) -> tuple[list[str], int, list[tuple[int, int]] | None]:
    """The items line: names, how many are primary, and the primary multiplicities."""
    names: list[str] = []
    seen: set[str] = set()
    bounds: list[tuple[int, int]] = []
    n_primary: int | None = None
    for token in tokens:
        if token == "|":
            if n_primary is not None:
                raise ProblemError("the items line has more than one '|'", source=source, line=line)
            n_primary = len(names)
            continue
        lo_hi = (1, 1)
        name = token
        if "|" in token:
            prefix, _, name = token.partition("|")
            if n_primary is not None:
                raise ProblemError(
                    f"secondary item {_show(token)} has a multiplicity (only primary items may)",
                    source=source,
                    line=line,
                )
            lo_hi = _parse_multiplicity(prefix, token, source, line)
        _check_name(name, "item", source, line)
        if name in seen:
            raise ProblemError(f"item {_show(name)} is declared twice", source=source, line=line)
        seen.add(name)
        names.append(name)
        if n_primary is None:
            bounds.append(lo_hi)
    if n_primary is None:
        n_primary = len(names)
    if n_primary == 0:
        raise ProblemError("the items line has no primary items", source=source, line=line)
    return names, n_primary, (bounds if any(b != (1, 1) for b in bounds) else None)


def _parse_multiplicity(prefix: str, token: str, source: str, line: int) -> tuple[int, int]:
    match = _MULTIPLICITY.fullmatch(prefix)
    if match is None:
        raise ProblemError(
            f"bad multiplicity {_show(prefix)} in {_show(token)}: write lo:hi|name or m|name "
            "(and put spaces around the '|' before the secondary items)",
            source=source,
            line=line,
        )
    lo = int(match.group(1))
    hi = int(match.group(2)) if match.group(2) is not None else lo
    if lo > hi or hi < 1:
        raise ProblemError(
            f"bad multiplicity {lo}:{hi} in {_show(token)}: need lo <= hi and hi >= 1",
            source=source,
            line=line,
        )
    return lo, hi


def _parse_option(
    tokens: list[str],
    index: dict[str, int],
    n_primary: int,
    color_index: dict[str, int],
    colors: list[str],
    source: str,
    line: int,
) -> tuple[tuple[int, int], ...]:
    """One option line as ``((item, color), ...)``."""
    if not tokens:  # unreachable from text (blank lines are skipped); kept for safety
        raise ProblemError("empty option", source=source, line=line)
    entries: list[tuple[int, int]] = []
    used: set[int] = set()
    for token in tokens:
        if "|" in token:
            raise ProblemError(
                f"option entry {_show(token)} contains '|' (a comment line must start with '|')",
                source=source,
                line=line,
            )
        name, colon, color = token.partition(":")
        _check_name(name, "item", source, line)
        i = index.get(name)
        if i is None:
            raise ProblemError(f"unknown item {_show(name)} (not on the items line)", source=source, line=line)
        if i in used:
            raise ProblemError(f"item {_show(name)} appears twice in one option", source=source, line=line)
        used.add(i)
        c = 0
        if colon:
            if i < n_primary:
                raise ProblemError(
                    f"primary item {_show(name)} has a color (only secondary items may)",
                    source=source,
                    line=line,
                )
            _check_name(color, "color", source, line)
            c = color_index.get(color, 0)
            if not c:
                c = color_index[color] = len(colors)
                colors.append(color)
        entries.append((i, c))
    return tuple(entries)


# ---------------------------------------------------------------------------- writing
def _writable(name: str, what: str) -> None:
    if not name or any(ch.isspace() or ch in ":|" for ch in name):
        raise ProblemError(
            f"{what} {_show(name)} cannot be written in DLX format "
            "(names must be non-empty, without white space, ':' or '|')"
        )


def format_dlx(ec: ExactCover, comments: Iterable[str] = ()) -> str:
    """The DLX text of an ExactCover (``comments`` become ``|`` lines at the top).

    Raises :class:`ProblemError` when a name cannot be written (white space, ``:``, ``|``),
    names repeat, or there is no primary item (an items line cannot start with ``|``)."""
    if ec.n_primary == 0:
        raise ProblemError("an exact cover with no primary items cannot be written in DLX format")
    seen: set[str] = set()
    for name in ec.items:
        _writable(name, "item")
        if name in seen:
            raise ProblemError(f"item {_show(name)} appears twice; DLX names must be unique")
        seen.add(name)
    for color in ec.colors[1:]:
        _writable(color, "color")
    out: list[str] = []
    for comment in comments:
        out.extend(("| " + part).rstrip() for part in _LINE_BREAK.split(comment))
    head = []
    for i, name in enumerate(ec.primary):
        lo, hi = ec.bound(i)
        head.append(name if (lo, hi) == (1, 1) else f"{lo}:{hi}|{name}")
    if ec.secondary:
        head.append("|")
        head.extend(ec.secondary)
    out.append(" ".join(head))
    for option in ec.options:
        out.append(" ".join(ec.items[i] + (":" + ec.colors[c] if c else "") for i, c in option))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------- the problem kind
class ExactCoverProblem(Problem):
    """A problem given directly as an exact cover (a DLX file)."""

    kind = "exact-cover"

    def __init__(self, spec: dict[str, Any], ec: ExactCover, name: str | None = None):
        super().__init__(spec, name)
        self._ec = ec

    def exact_cover(self) -> ExactCover:
        return self._ec

    def render_text(self, solution: Sequence[int]) -> str:
        """The option lines of a solution, in the order they were chosen."""
        ec = self._ec
        for k in solution:
            if not isinstance(k, int) or not 0 <= k < ec.n_options:
                raise ProblemError(f"solution names option {k!r}, outside 0..{ec.n_options - 1}", source=self.name)
        return "\n".join(ec.option_text(k) for k in solution)

    def describe(self) -> str:
        ec = self._ec
        parts = [f"{ec.n_primary} primary"]
        if ec.n_items > ec.n_primary:
            parts.append(f"{ec.n_items - ec.n_primary} secondary")
        extra = ""
        if len(ec.colors) > 1:
            extra += f", {len(ec.colors) - 1} colors"
        if ec.bounds is not None:
            extra += ", multiplicities"
        return f"exact cover: {' + '.join(parts)} items, {ec.n_options} options{extra}"


def load_exact_cover(spec: dict[str, Any]) -> ExactCoverProblem:
    """The loader of kind ``"exact-cover"``: the spec's ``text`` is DLX."""
    source = spec.get("source_name") or spec.get("name") or "<text>"
    fmt = spec.get("format", "dlx")
    if fmt not in ("dlx", "text"):
        raise ProblemError(f"exact-cover problems are written in DLX format, not {fmt!r}", source=source)
    text = spec.get("text")
    if not isinstance(text, str):
        raise ProblemError("the exact-cover spec has no DLX text", source=source)
    return ExactCoverProblem(spec, parse_dlx(text, source=source))


register_kind("exact-cover", load_exact_cover)

# the kind's named problems, each an exact cover built by a model of its own
from . import hoffman  # noqa: E402,F401  (registers hoffman-4x5x6, hoffman-AxBxC)
