"""The compiled crossword search (core/crossword/_crossword.c) against the Python reference
(core/crossword/search.py): the same tree, node for node — counts, listings, nodes per
depth, budget stops and their frontiers, splits, replayed paths and bad paths."""
from __future__ import annotations

import csv
import random

import pytest

from core.crossword import Grid, Puzzle, Rules
from core.crossword import symmetry as sym
from core.crossword.compiled import CompiledCrosswordSolver
from core.crossword.library import CSV_PATH
from core.crossword.search import BLACK, CrosswordSolver, _State
from core.errors import PathError
from core.search import SolveRequest

with open(CSV_PATH, encoding="utf-8") as fh:
    LIBRARY = {int(r["number"]): r for r in csv.DictReader(fh)}


def library(n: int, start: bool = True) -> Puzzle:
    r = LIBRARY[n]
    return Puzzle.build(int(r["rows"]), int(r["cols"]), symmetry=r["symmetry"], clues=r["clues"],
                        start=int(r["start"]) if start else None)


def random_grid(R: int, C: int, kind: str, rng: random.Random) -> Grid:
    """A random legal grid: the search's own labels, black taken now and then."""
    pz = Puzzle.build(R, C, symmetry=kind)
    orbit = sym.orbits(kind, R, C)
    while True:
        st = _State(pz, orbit)
        st.root()
        p, opts = st.descend(0)
        while opts:
            st.apply(p, 0 if 0 in opts and rng.random() < 0.15 else max(opts))
            p, opts = st.descend(p + 1)
        if p == st.n and st.is_solution():
            return Grid(R, C, tuple(x == BLACK for x in st.color))


def random_clue_puzzles() -> list[Puzzle]:
    """A random legal grid's clue string for every symmetry, without a start."""
    rng = random.Random(22)
    out = []
    for kind in sym.NAMES:
        R = 7 if sym.KINDS[kind][1] else 6
        g = random_grid(R, 7, kind, rng)
        out.append(Puzzle.build(R, 7, symmetry=kind, clues=g.clue_string()))
    return out


PUZZLES = [
    Puzzle.build(5, 5),
    Puzzle.build(6, 6, symmetry="rotational"),
    Puzzle.build(4, 4, rules=Rules(2, False, True, False)),
    Puzzle.build(4, 5, rules=Rules(3, False, False, True)),
    library(39), library(39, start=False), library(53), library(20), library(23, start=False),
    Puzzle.build(5, 5, clues="ZDDDZDAAAA"[:6], numbered=(True,) + (False,) * 24),
    *random_clue_puzzles(),
]


def same_result(a, b) -> None:
    assert (a.count, a.stopped_by, a.weight) == (b.count, b.stopped_by, b.weight)
    assert (a.stats.nodes, a.stats.leaves, a.stats.nodes_per_depth) == (b.stats.nodes, b.stats.leaves,
                                                                      b.stats.nodes_per_depth)
    assert a.solutions == b.solutions
    assert a.frontier == b.frontier


@pytest.mark.parametrize("pz", PUZZLES, ids=lambda p: p.describe())
def test_same_tree_as_the_reference(pz):
    py, c = CrosswordSolver(pz), CompiledCrosswordSolver(pz)
    for request in (SolveRequest(), SolveRequest(listing=True), SolveRequest(listing=True, limit=3),
                    SolveRequest(listing=True, node_budget=7), SolveRequest(node_budget=1),
                    SolveRequest(max_depth=2), SolveRequest(max_depth=0)):
        same_result(c.solve((), request), py.solve((), request))
    for sub in py.split(3):
        same_result(c.solve(sub.path, SolveRequest(listing=True)), py.solve(sub.path, SolveRequest(listing=True)))
        same_result(c.solve(sub.path, SolveRequest(node_budget=3)), py.solve(sub.path, SolveRequest(node_budget=3)))


@pytest.mark.parametrize("pz", PUZZLES[:6], ids=lambda p: p.describe())
def test_budget_continuation_lists_every_grid_once(pz):
    c = CompiledCrosswordSolver(pz)
    whole = c.solve((), SolveRequest(listing=True))
    pending, sols = [()], []
    while pending:
        res = c.solve(pending.pop(), SolveRequest(listing=True, node_budget=5))
        sols += res.solutions
        assert res.weight_done + sum(s.weight for s in res.frontier) == res.weight
        pending.extend(s.path for s in reversed(res.frontier))
    assert sols == whole.solutions


def test_bad_paths_say_the_same():
    pz = library(39)
    py, c = CrosswordSolver(pz), CompiledCrosswordSolver(pz)
    [sol] = py.first(1)
    for bad in ((9,), sol + (0,), (-1,), (1 << 40,)):
        with pytest.raises(PathError) as want:
            py.solve(bad)
        with pytest.raises(PathError) as got:
            c.solve(bad)
        assert str(got.value) == str(want.value)


def test_time_budget_stops_with_a_frontier():
    c = CompiledCrosswordSolver(Puzzle.build(11, 11, symmetry="rotational"))
    res = c.solve((), SolveRequest(seconds=0.05))
    assert res.stopped_by == "budget" and res.frontier
    assert res.weight_done + sum(s.weight for s in res.frontier) == 1


def table_puzzles() -> list[tuple[Puzzle, Grid]]:
    """Random grids' clue strings where the reachability table is on (no symmetry,
    left-right), under loose and strict rules, some with their numbered squares or start."""
    rng = random.Random(28)
    out = []
    for i in range(24):
        kind = ("none", "left-right")[i % 2]
        R, C = rng.randint(4, 7), rng.randint(4, 7)
        g = random_grid(R, C, kind, rng)
        rules = (Rules(), Rules(2, False, True, False), Rules(3, True, False, True), Rules(2, False, False, False))[i % 4]
        numbered = start = None
        if i % 6 == 5:
            nums = {n.row * C + n.col for n in g.numbering()}
            numbered = tuple(q in nums for q in range(R * C))
        elif i % 6 == 4:
            start = g.first_square()
        out.append((Puzzle.build(R, C, rules=rules, symmetry=kind, clues=g.clue_string(), numbered=numbered,
                                 start=start), g))
    return out


@pytest.mark.parametrize("pz,g", table_puzzles(), ids=lambda x: x.describe() if isinstance(x, Puzzle) else "")
def test_the_table_only_ends_dead_branches(pz, g):
    """With the reachability table at row starts: the C search and the Python one node
    for node; the same grids as the C search without the table, in no more nodes; the
    grid the clue string came from among them under its own rules."""
    from core.crossword import _crossword

    c = CompiledCrosswordSolver(pz)
    assert c.reach_spec() is not None
    got = c.solve((), SolveRequest(listing=True))
    ref = CrosswordSolver(pz).solve((), SolveRequest(listing=True))
    assert ref.solutions == got.solutions and ref.stats.nodes_per_depth == got.stats.nodes_per_depth
    plain = _crossword.solve(*c._head, [], *SolveRequest(listing=True).c_arguments(), None)
    assert plain[2] == got.solutions and got.stats.nodes <= plain[4]
    if pz.rules == Rules():
        assert c.path_of(g) in got.solutions


def test_the_table_is_kept_between_calls_and_is_its_puzzles_alone():
    """The C search makes its reachability table once per solver and keeps it, memo and
    all, for every later call (made anew each call, it cost each subproblem tens of
    milliseconds): later calls find what a fresh solver finds; another puzzle's search
    refuses the table; a pickled copy makes its own."""
    import pickle

    from core.crossword import _crossword

    (pz, _), (other, _) = table_puzzles()[:2]
    c = CompiledCrosswordSolver(pz)
    first = c.solve((), SolveRequest(listing=True))
    table = c._table()
    assert table is not None and c._table() is table
    for sub in c.split(2):
        fresh = CompiledCrosswordSolver(pz).solve(sub.path, SolveRequest(listing=True))
        same_result(c.solve(sub.path, SolveRequest(listing=True)), fresh)
    same_result(c.solve((), SolveRequest(listing=True)), first)
    o = CompiledCrosswordSolver(other)
    with pytest.raises(ValueError, match="another puzzle"):
        _crossword.solve(*o._head, [], *SolveRequest().c_arguments(), table)
    copy = pickle.loads(pickle.dumps(c))
    assert copy._reach_table is None
    same_result(copy.solve((), SolveRequest(listing=True)), first)
