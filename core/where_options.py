"""A ``--where`` query (:mod:`core.where_syntax`) resolved against one problem: each
atom becomes the set of option ids it stands for, so that the ledger can answer it from
its index of the options of each stored solution.

A solution matches an atom when it uses at least one of the atom's options: ``X@3,4``
is every placement of X that covers the cell (3, 4); ``X touches 3,4`` every placement
of X that covers one of the cell's neighbours on the board (sharing an edge, a face on a
box; whatever covers the cell itself); ``3,4 in {X,I}`` the placements of X or I that
cover the cell; ``option TEXT`` every option whose text (its line as ``solutions``
prints an exact cover's solution: ``r1c1=3``, ``X r0c1 r1c0 ...``) matches TEXT, with
``*`` and ``?`` as wildcards; ``item NAME`` every option that covers that item.
"""
from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Union

from .polyform.problem import PolyformProblem
from .problem import Problem
from .where_syntax import (And, CellIn, CellRef, ItemCovered, Not, OptionLike, Or, PieceAt, PieceTouches, Query,
                           WhereError)


@dataclass(frozen=True)
class Uses:
    """The solutions that use at least one of these options; ``disjoint``: no solution
    uses two of them (they share an item without a color, which a solution covers at most
    once), so the ledger may count their rows without removing doubles."""

    options: frozenset[int]
    disjoint: bool = False


Resolved = Union[Uses, "AllOf", "AnyOf", "NoneOf"]


@dataclass(frozen=True)
class AllOf:
    parts: tuple[Resolved, ...]


@dataclass(frozen=True)
class AnyOf:
    parts: tuple[Resolved, ...]


@dataclass(frozen=True)
class NoneOf:
    """The solutions that do not match ``part``."""

    part: Resolved


def resolve(problem: Problem, query: Query) -> Resolved:
    """The query with every atom replaced by its option ids (:class:`WhereError` when it
    names a piece, cell or item the problem does not have)."""
    if isinstance(query, And):
        return AllOf(tuple(resolve(problem, q) for q in query.parts))
    if isinstance(query, Or):
        return AnyOf(tuple(resolve(problem, q) for q in query.parts))
    if isinstance(query, Not):
        return NoneOf(resolve(problem, query.part))
    options = frozenset(_atom_options(problem, query))
    return Uses(options, _share_a_plain_item(problem.exact_cover(), options))


def matches(resolved: Resolved, options: frozenset[int] | set[int]) -> bool:
    """Whether a solution with these option ids matches (the ledger's answer, in Python)."""
    if isinstance(resolved, Uses):
        return not resolved.options.isdisjoint(options)
    if isinstance(resolved, AllOf):
        return all(matches(p, options) for p in resolved.parts)
    if isinstance(resolved, AnyOf):
        return any(matches(p, options) for p in resolved.parts)
    return not matches(resolved.part, options)


def _share_a_plain_item(ec, options: frozenset[int]) -> bool:
    """Whether some item is in every one of the options, never with a color, and covered
    at most once (no multiplicity past 1)."""
    once = lambda i: ec.bounds is None or i >= len(ec.bounds) or ec.bounds[i][1] <= 1  # noqa: E731
    common: set[int] | None = None
    for k in options:
        plain = {i for i, color in ec.options[k] if not color and once(i)}
        common = plain if common is None else common & plain
        if not common:
            return len(options) <= 1
    return True


def _atom_options(problem: Problem, atom) -> list[int]:
    ec = problem.exact_cover()
    if ec is None:
        raise WhereError(f"{problem.kind} problems have no options to query (their solutions are not exact covers)")
    if isinstance(atom, OptionLike):
        return [k for k in range(ec.n_options) if fnmatchcase(ec.option_text(k), atom.pattern)]
    if isinstance(atom, ItemCovered):
        try:
            item = ec.items.index(atom.item)
        except ValueError:
            raise WhereError(f"--where {atom}: no item {atom.item!r} in this problem "
                             f"(items such as {', '.join(ec.items[:4])})") from None
        return list(ec.covering[item])
    if not isinstance(problem, PolyformProblem):
        raise WhereError(f"--where {atom}: pieces and cells are for polyform problems; for a {problem.kind} problem "
                         'use option "TEXT" or item NAME')
    if isinstance(atom, PieceAt):
        kinds, cells = _kinds(problem, atom.piece, atom), {_cell(problem, atom.cell, atom)}
    elif isinstance(atom, PieceTouches):
        kinds, cells = _kinds(problem, atom.piece, atom), set(problem.board.neighbours(_cell(problem, atom.cell, atom)))
    elif isinstance(atom, CellIn):
        kinds = set().union(*(_kinds(problem, p, atom) for p in atom.pieces))
        cells = {_cell(problem, atom.cell, atom)}
    else:
        raise WhereError(f"--where {atom}: not a condition")
    return [k for k, (kind, covered) in enumerate(problem.placements) if kind in kinds and not cells.isdisjoint(covered)]


def _kinds(problem: PolyformProblem, name: str, atom) -> set[int]:
    kinds = {k for k, p in enumerate(problem.pieces) if p.name == name}
    if not kinds:
        names = ", ".join(p.name for p in problem.pieces)
        raise WhereError(f"--where {atom}: no piece {name!r} in this problem (its pieces: {names})")
    return kinds


def _cell(problem: PolyformProblem, ref: CellRef, atom) -> tuple[int, int, int]:
    board = problem.board
    if board.space == 3 and len(ref) != 3:
        raise WhereError(f"--where {atom}: a cell of this {'x'.join(map(str, board.dims))} box is layer,row,col")
    if board.space == 2 and len(ref) != 2:
        raise WhereError(f"--where {atom}: a cell of this {'x'.join(map(str, board.dims))} board is row,col")
    cell = (0, *ref) if len(ref) == 2 else tuple(ref)
    if cell not in board.free:
        raise WhereError(f"--where {atom}: {board.cell_name(cell)} is not a free cell of the "
                         f"{'x'.join(map(str, board.dims))} board (cells count from 0)")
    return cell
