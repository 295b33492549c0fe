"""The kernel's memory on deep searches (issue 21, point 5): one live set updated in
place with a trail, so a level costs what it changed, not a copy of the problem's state;
and the covers too wide for the lanes (over 256 items), which take that path, still walk
the reference's tree node for node."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import _kernel
from core.exact_cover import ExactCover
from core.kernel import KernelSolver
from core.reference import ReferenceSolver
from core.search import SolveRequest

ROOT = Path(__file__).resolve().parents[2]
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


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(wide_covers(), st.sampled_from(["mrv", "first"]))
def test_wide_covers_walk_the_reference_tree(ec, heuristic):
    kernel, reference = KernelSolver(ec, heuristic, memo=False), ReferenceSolver(ec, heuristic)
    k, r = kernel.solve((), SolveRequest(listing=True)), reference.solve((), SolveRequest(listing=True))
    assert k.solutions == r.solutions
    assert k.stats.nodes == r.stats.nodes and k.stats.nodes_per_depth == r.stats.nodes_per_depth
    assert [(s.path, s.weight) for s in kernel.split(2)] == [(s.path, s.weight) for s in reference.split(2)]


@SETTINGS
@given(wide_covers(), st.integers(1, 4))
def test_wide_covers_budget_continuation_sums_to_the_whole(ec, budget):
    kernel = KernelSolver(ec, "mrv", memo=False)
    total, todo = 0, [()]
    while todo:
        part = kernel.solve(todo.pop(), SolveRequest(node_budget=budget))
        total += part.count
        todo.extend(s.path for s in part.frontier)
    assert total == ReferenceSolver(ec, "mrv").count()


def test_a_deep_search_state_grows_by_what_each_level_changed():
    cells = 4000
    solver = KernelSolver(domino_strip(cells), "mrv", memo=False)
    out = _kernel.solve(solver._problem, [], False, -1, -1, -1.0, -1, 0, ())
    depth = len(out.nodes_per_depth) - 1
    assert out.count == 1 and depth == cells // 2
    # a copy of the live list and the item counts per level would be depth x (items +
    # options) x 4 bytes (64 MB here); the kernel's own state must be far below that
    per_level_copies = depth * (cells + (cells - 1)) * 4
    assert out.state_bytes * 50 < per_level_copies, (out.state_bytes, per_level_copies)


def test_a_deep_search_leaves_the_resident_set_flat():
    """The same, measured from outside the kernel: the process's peak resident set, in a
    fresh interpreter, grows by far less than per-level copies would take (64 MB)."""
    script = textwrap.dedent(
        """
        import json, resource, sys
        sys.path.insert(0, sys.argv[1])
        from core import _kernel
        from core.kernel import KernelSolver
        from tests.core.test_kernel_memory import domino_strip
        solver = KernelSolver(domino_strip(4000), "mrv", memo=False)
        _kernel.solve(solver._problem, [], False, -1, -1, -1.0, 8, 0, ())  # the root's tables, touched
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = _kernel.solve(solver._problem, [], False, -1, -1, -1.0, -1, 0, ())
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"depth": len(out.nodes_per_depth) - 1, "grew_kib": after - before}))
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(ROOT)], capture_output=True, text=True, check=True)
    measured = json.loads(done.stdout)
    assert measured["depth"] == 2000
    assert measured["grew_kib"] < 16 * 1024, measured
