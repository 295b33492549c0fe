"""Published solution counts, for the C kernel and the pure-Python reference solver.

Every enumerated solution is checked with the independent :meth:`ExactCover.is_solution`;
small random exact covers (colors, multiplicities) are checked against brute force.
"""
from __future__ import annotations

import itertools
import os
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.dlx_format import parse_dlx
from core.exact_cover import ExactCover

sys.path.insert(0, os.path.dirname(__file__))
import problems  # noqa: E402
from core.search import SolveRequest

kernel = pytest.importorskip("core.kernel")
reference = pytest.importorskip("core.reference")
KernelSolver = kernel.KernelSolver
ReferenceSolver = reference.ReferenceSolver

HEURISTICS = ["mrv", "first"]
#: problems small enough for the pure-Python reference solver (with either heuristic)
SMALL = ["queens4", "queens6", "queens8", "langford3", "langford4", "langford7",
         "dominoes4x4", "sudoku4x4", "queens10", "dominoes6x6"]
#: problems the kernel counts in CI: (name, heuristics)
KERNEL = [(name, h) for name in SMALL + ["pentominoes3x20",
                                         "pentominoes8x8-hole", "soma", "pentominoes6x10"]
          for h in HEURISTICS]
#: the kernel counts these too, but they take long: slow, and with MRV only
KERNEL_SLOW = ["dominoes8x8", "sudoku6x6"]
#: enumerate these in full and check every solution
ENUMERATE = ["queens8", "queens10", "langford7", "dominoes6x6", "sudoku4x4", "soma", "pentominoes8x8-hole"]

_CACHE: dict[str, ExactCover] = {}


def exact_cover(name: str) -> ExactCover:
    if name not in _CACHE:
        _CACHE[name] = parse_dlx(problems.generate(name), source=name)
    return _CACHE[name]


def check_solutions(ec: ExactCover, solutions, expected: int) -> None:
    """Every solution valid, none repeated, as many as expected."""
    seen = set()
    for solution in solutions:
        assert ec.is_solution(solution), f"not a solution: {solution}"
        key = frozenset(solution)
        assert key not in seen, f"solution found twice: {solution}"
        seen.add(key)
    assert len(seen) == expected


# ---------------------------------------------------------------------------- counts
@pytest.mark.parametrize("name, heuristic", KERNEL)
def test_kernel_counts(name, heuristic):
    assert KernelSolver(exact_cover(name), heuristic=heuristic).count() == problems.KNOWN_COUNTS[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNEL_SLOW)
def test_kernel_counts_big(name):
    assert KernelSolver(exact_cover(name)).count() == problems.KNOWN_COUNTS[name]


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("name", SMALL)
def test_reference_counts(name, heuristic):
    ec = exact_cover(name)
    result = ReferenceSolver(ec, heuristic=heuristic).solve((), SolveRequest(listing=True))
    assert result.count == problems.KNOWN_COUNTS[name]
    check_solutions(ec, result.solutions, problems.KNOWN_COUNTS[name])


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("name", ENUMERATE)
def test_kernel_enumerates_valid_solutions(name, heuristic):
    ec = exact_cover(name)
    check_solutions(ec, KernelSolver(ec, heuristic=heuristic).solutions(batch=1000), problems.KNOWN_COUNTS[name])


@pytest.mark.parametrize("name", ["queens8", "langford7", "soma"])
def test_kernel_split_adds_up(name):
    """The frontier at depth 2 partitions the tree: counts and weights add up."""
    solver = KernelSolver(exact_cover(name))
    frontier = solver.split(2)
    assert sum((s.weight for s in frontier), Fraction(0)) == 1
    assert sum(solver.count(s.path) for s in frontier) == problems.KNOWN_COUNTS[name]


@pytest.mark.parametrize("name", ["queens8", "langford7", "dominoes4x4"])
def test_kernel_and_reference_agree_on_first_solutions(name):
    ec = exact_cover(name)
    for heuristic in HEURISTICS:
        assert KernelSolver(ec, heuristic=heuristic).first(5) == ReferenceSolver(ec, heuristic=heuristic).first(5)


def test_knuth_colors_example():
    ec = parse_dlx("p q r | x y\np q x y:A\np r x:A y\np x:B\nq x:A\nr y:B\n")
    for solver in (KernelSolver(ec), ReferenceSolver(ec), KernelSolver(ec, heuristic="first")):
        result = solver.solve((), SolveRequest(listing=True))
        assert result.count == 1
        assert sorted(result.solutions[0]) == [1, 3]


def test_multiplicity_example():
    """Choose 2 of 4 options covering 'a' (lo:hi = 2:2): C(4,2) = 6 ways; 1:3 gives 4+6+4; 0:4 every subset, the empty one too."""
    text = "{}|a\na\na\na\na\n"
    for prefix, expected in [("2", 6), ("1:3", 14), ("0:4", 16)]:
        ec = parse_dlx(text.format(prefix))
        assert KernelSolver(ec).count() == expected
        assert ReferenceSolver(ec).count() == expected


# ---------------------------------------------------------------------------- brute force
def brute_force(ec: ExactCover) -> int:
    return sum(
        1
        for r in range(ec.n_options + 1)
        for chosen in itertools.combinations(range(ec.n_options), r)
        if ec.is_solution(chosen)
    )


@st.composite
def small_exact_covers(draw):
    n_items = draw(st.integers(1, 6))
    n_primary = draw(st.integers(1, n_items))
    names = [f"i{k}" for k in range(n_items)]
    options = []
    for _ in range(draw(st.integers(0, 9))):
        chosen = draw(st.lists(st.integers(0, n_items - 1), min_size=1, max_size=n_items, unique=True))
        options.append(
            [(names[i], draw(st.sampled_from(["", "", "r", "g"])) if i >= n_primary else "") for i in chosen]
        )
    bounds = {}
    if draw(st.booleans()):
        for i in range(n_primary):
            lo = draw(st.integers(0, 2))
            bounds[names[i]] = (lo, draw(st.integers(max(lo, 1), 3)))
    return ExactCover.build(names[:n_primary], names[n_primary:], options, bounds=bounds)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_exact_covers(), st.sampled_from(HEURISTICS))
def test_solvers_match_brute_force(ec, heuristic):
    expected = brute_force(ec)
    for solver in (KernelSolver(ec, heuristic=heuristic), ReferenceSolver(ec, heuristic=heuristic)):
        result = solver.solve((), SolveRequest(listing=True))
        assert result.count == expected
        check_solutions(ec, result.solutions, expected)
