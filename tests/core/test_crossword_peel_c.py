"""The C layer build of the square symmetries (core/crossword/_peel.c) against its
pure-Python reference (core/crossword/peel.py) and the search, and the transfer Solver's
contract on the square kinds (splits and budgets partition the count exactly).

Self-contained (only ``core`` is imported), so the AddressSanitizer test runs it too.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.crossword import Puzzle, Rules
from core.crossword import _peel
from core.crossword.peel import PEELED, PeelCounter, count
from core.crossword.compiled import CompiledCrosswordSolver
from core.crossword.transfer_solver import TransferSolver, c_count
from core.search import SolveRequest

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
rules_st = st.builds(Rules, st.integers(1, 4), st.booleans(), st.booleans(), st.booleans())


@SETTINGS
@given(st.integers(1, 6), st.sampled_from(PEELED), rules_st, st.data())
def test_c_count_equals_the_python_reference(n, kind, rules, data):
    """Any size, rule setting and a few squares fixed at random (a subtree of a search)."""
    if n < rules.min_word:
        return
    fixed: list[bool | None] = [None] * (n * n)
    for q in data.draw(st.lists(st.integers(0, n * n - 1), max_size=4)):
        fixed[q] = data.draw(st.booleans())
    pz = Puzzle.build(n, n, rules=rules, symmetry=kind)
    assert c_count(pz, fixed) == count(pz, fixed)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 5), st.sampled_from(PEELED), rules_st)
def test_c_count_equals_the_search(n, kind, rules):
    if n < rules.min_word:
        return
    pz = Puzzle.build(n, n, rules=rules, symmetry=kind)
    assert c_count(pz) == CompiledCrosswordSolver(pz).count()


@pytest.mark.parametrize("n,kind", [(9, "diagonal"), (11, "quarter-turn"), (12, "full"), (9, "anti-diagonal")])
def test_c_count_equals_the_python_reference_on_whole_sizes(n, kind):
    pz = Puzzle.build(n, n, symmetry=kind)
    assert c_count(pz) == count(pz)


def test_a_prefix_fixes_the_first_layers():
    """The counts below each pattern of the first layer add up to the whole count."""
    peeler = PeelCounter(Puzzle.build(9, 9, symmetry="quarter-turn"))
    whole = _peel.count(*peeler.c_arguments(), -1.0, -1)[0]
    parts = [_peel.count(*peeler.c_arguments((x,)), -1.0, -1)[0] for x in peeler.patterns(0)]
    assert sum(parts) == whole == peeler.count() > 0


def test_a_budget_stops_the_count():
    peeler = PeelCounter(Puzzle.build(11, 11, symmetry="diagonal"))
    got, _states, done, _seconds = _peel.count(*peeler.c_arguments(), -1.0, 100)
    assert got is None and done == 100


def test_bad_layers_are_refused_cleanly():
    peeler = PeelCounter(Puzzle.build(5, 5, symmetry="diagonal"))
    n, L, checked, connected, nbl, ring, layers = peeler.c_arguments()
    w, pats, bits, intra, cross, border = layers[1]
    with pytest.raises(ValueError, match="width"):
        _peel.count(n, L, checked, connected, nbl, ring, [layers[0], (w + 1, pats, bits, intra, cross, border)],
                    -1.0, -1)
    with pytest.raises(ValueError, match="cross"):
        _peel.count(n, L, checked, connected, nbl, ring, [layers[0], (w, pats, bits, intra, cross + [0, 99], border)],
                    -1.0, -1)
    with pytest.raises(ValueError, match="pattern"):
        _peel.count(n, L, checked, connected, nbl, ring, [(w, [1 << w], bits, intra, cross, border)], -1.0, -1)


@pytest.mark.parametrize("kind", PEELED)
def test_every_colouring_counts_with_every_rule_off(kind):
    """Rules off: each orbit of the symmetry black or white at will, 2^orbits grids less
    the all-black one (no white square: not a crossword)."""
    from core.crossword import symmetry as sym

    loose = Rules(1, False, False, False)
    for n in range(1, 8):
        orbits = len(set(sym.orbits(kind, n, n)))
        assert c_count(Puzzle.build(n, n, rules=loose, symmetry=kind)) == 2 ** orbits - 1


# -- the solver's contract on the square kinds --------------------------------------------------------
@pytest.mark.parametrize("n,kind", [(9, "diagonal"), (9, "quarter-turn"), (11, "full"), (8, "anti-diagonal")])
@pytest.mark.parametrize("budget", [1, 300, 3_000])
def test_a_node_budget_hands_back_an_exact_frontier(n, kind, budget):
    solver = TransferSolver(Puzzle.build(n, n, symmetry=kind))
    whole = solver.count()
    result = solver.solve((), SolveRequest(node_budget=budget))
    assert result.weight_done + sum((s.weight for s in result.frontier), Fraction(0)) == 1
    assert result.count + sum(solver.count(s.path) for s in result.frontier) == whole
    assert result.complete == (result.stopped_by is None)
