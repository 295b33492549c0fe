"""The kernel's memory on deep searches (issue 21, point 5): MRV outside the lanes keeps
one live set with a trail, so a level costs what it changed, not a copy of the problem's
state; small covers with colors or multiplicities keep copies per level (faster there).
Both layouts walk the reference's tree node for node, on covers with colors,
multiplicities and the region rule, and on covers too wide for the lanes (over 256
items)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core
from core import _kernel
from core.exact_cover import ExactCover
from core.kernel import KernelSolver, compile_problem
from core.reference import ReferenceSolver
from core.search import SolveRequest
from test_kernel_properties import DOMINO, I_TROMINO, L_TROMINO, _grid_tiling, exact_covers

#: where ``core`` is imported from (the checkout, or the sanitizer test's copy)
ROOT = Path(core.__file__).resolve().parents[1]
LAYOUTS = ["copies", "trail"]
#: more items than the kernel's uint16 lanes take (MAX_LANE_ITEMS in core/_kernel.c)
WIDE = 257


def domino_strip(cells: int) -> ExactCover:
    """Dominoes on a 1 x cells strip: MRV takes the forced end cell at every level, so
    the search is cells / 2 levels deep with one branch at each (one solution)."""
    names = [f"c{k}" for k in range(cells)]
    options = [[(k, 0), (k + 1, 0)] for k in range(cells - 1)]
    return ExactCover.from_indices(names, cells, options)


@st.composite
def wide_covers(draw):
    """A small random plain cover (5 primary items at most) with WIDE secondary items,
    some used by the options: the same kind of tree, on the kernel's path for wide covers."""
    n_primary = draw(st.integers(1, 5))
    n_items = n_primary + WIDE
    options = []
    for _ in range(draw(st.integers(1, 11))):
        primary = draw(st.lists(st.integers(0, n_primary - 1), min_size=1, max_size=3, unique=True))
        secondary = draw(st.lists(st.integers(n_primary, n_items - 1), max_size=2, unique=True))
        options.append([(i, 0) for i in primary + secondary])
    names = [f"p{i}" for i in range(n_primary)] + [f"s{i}" for i in range(WIDE)]
    return ExactCover.from_indices(names, n_primary, options)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def kernel_with(ec, layout, region=None, heuristic="mrv"):
    """The kernel (no memo, so node counts compare) with its MRV layout forced."""
    solver = KernelSolver(ec, heuristic, region, memo=False)
    solver._problem = compile_problem(ec, heuristic, region, mrv_layout=layout)
    return solver


def assert_same_tree(kernel, reference):
    """Node for node: the solutions in order, nodes per depth, the frontier at depth 2."""
    k, r = kernel.solve((), SolveRequest(listing=True)), reference.solve((), SolveRequest(listing=True))
    assert k.solutions == r.solutions
    assert k.stats.nodes == r.stats.nodes and k.stats.nodes_per_depth == r.stats.nodes_per_depth
    assert [(s.path, s.weight) for s in kernel.split(2)] == [(s.path, s.weight) for s in reference.split(2)]


def budgeted_total(kernel, budget):
    """The count summed over budget stops resumed from their frontiers."""
    total, todo = 0, [()]
    while todo:
        part = kernel.solve(todo.pop(), SolveRequest(node_budget=budget))
        total += part.count
        todo.extend(s.path for s in part.frontier)
    return total


@pytest.mark.parametrize("layout", LAYOUTS)
@SETTINGS
@given(exact_covers(), st.integers(1, 4))
def test_both_layouts_walk_the_reference_tree_with_colors_and_multiplicities(layout, ec, budget):
    kernel = kernel_with(ec, layout)
    assert_same_tree(kernel, ReferenceSolver(ec, "mrv"))
    assert budgeted_total(kernel, budget) == ReferenceSolver(ec, "mrv").count()


@pytest.mark.parametrize("layout", LAYOUTS)
@SETTINGS
@given(st.integers(2, 4), st.integers(2, 5), st.sets(st.tuples(st.integers(0, 3), st.integers(0, 4)), max_size=3),
       st.sampled_from([(0,), (0, 1), (1, 2), (0, 2)]), st.booleans())
def test_both_layouts_walk_the_reference_tree_with_the_region_rule(layout, rows, cols, blocked, which, counted):
    shapes = [[DOMINO, L_TROMINO, I_TROMINO][k] for k in which]
    ec, region = _grid_tiling(rows, cols, blocked, shapes, {0: (0, 2)} if counted else {})
    if ec.n_options:
        assert_same_tree(kernel_with(ec, layout, region), ReferenceSolver(ec, "mrv", region))


@pytest.mark.parametrize("layout", LAYOUTS)
@SETTINGS
@given(wide_covers(), st.sampled_from(["mrv", "first"]), st.integers(1, 4))
def test_wide_covers_walk_the_reference_tree(layout, ec, heuristic, budget):
    kernel = kernel_with(ec, layout, heuristic=heuristic)
    assert_same_tree(kernel, ReferenceSolver(ec, heuristic))
    assert budgeted_total(kernel, budget) == ReferenceSolver(ec, heuristic).count()


def test_the_layout_is_chosen_by_size():
    """Small covers with multiplicities copy; plain wide ones and big ones use the trail
    (what choose_mrv_layout in core/_kernel.c says; the state's size shows which)."""
    small, _ = _grid_tiling(4, 4, set(), [DOMINO, L_TROMINO], {0: (0, 2)})
    auto = KernelSolver(small, memo=False).solve().stats.nodes
    assert auto == kernel_with(small, "copies").solve().stats.nodes == kernel_with(small, "trail").solve().stats.nodes
    copies = _kernel.solve(compile_problem(small, mrv_layout="copies"), [], False, -1, -1, -1.0, -1, 0, ())
    chosen = _kernel.solve(compile_problem(small), [], False, -1, -1, -1.0, -1, 0, ())
    assert chosen.state_bytes == copies.state_bytes


def test_a_deep_search_state_grows_by_what_each_level_changed():
    cells = 4000
    out = _kernel.solve(compile_problem(domino_strip(cells)), [], False, -1, -1, -1.0, -1, 0, ())
    depth = len(out.nodes_per_depth) - 1
    assert out.count == 1 and depth == cells // 2
    # a copy of the live list and the item counts per level would be depth x (items +
    # options) x 4 bytes (64 MB here); the kernel's own state must be far below that
    per_level_copies = depth * (cells + (cells - 1)) * 4
    assert out.state_bytes * 50 < per_level_copies, (out.state_bytes, per_level_copies)


@pytest.mark.skipif("libasan" in os.environ.get("LD_PRELOAD", ""), reason="the sanitizer's shadow memory and quarantine")
def test_a_deep_search_leaves_the_resident_set_flat():
    """The same, measured from outside the kernel: the process's peak resident set, in a
    fresh interpreter, grows by far less than per-level copies would take (64 MB)."""
    script = textwrap.dedent(
        """
        import json, resource, sys
        sys.path.insert(0, sys.argv[1])
        from core import _kernel
        from core.exact_cover import ExactCover
        from core.kernel import compile_problem
        cells = 4000
        strip = ExactCover.from_indices([f"c{k}" for k in range(cells)], cells,
                                        [[(k, 0), (k + 1, 0)] for k in range(cells - 1)])
        problem = compile_problem(strip)
        _kernel.solve(problem, [], False, -1, -1, -1.0, 8, 0, ())  # the root's tables, touched
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = _kernel.solve(problem, [], False, -1, -1, -1.0, -1, 0, ())
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"depth": len(out.nodes_per_depth) - 1, "grew_kib": after - before}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(ROOT)], capture_output=True, text=True, check=True)
    measured = json.loads(done.stdout)
    assert measured["depth"] == 2000
    assert measured["grew_kib"] < 16 * 1024, measured
