"""Polyform benchmark: our kernel (total by search, total by levels, total as the command
line's default chooses between them, and distinct by symmetry breaking) beside the PyPI packages ``xcover`` and ``exact-cover`` on the same
exact covers.

Run by hand:  .venv/bin/python bench/bench_polyform.py [--skip-others] [--repeat N] [NAME ...]
Default problems: pentomino-6x10, pentomino-8x8-centre, soma, pentacubes-3x4x5.
Each package gets the same options (our compiled cover, all items primary); the time of
their import / JIT warm-up is not counted (a tiny cover is solved first).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core.library import load  # noqa: E402

DEFAULT = ["pentomino-6x10", "pentomino-8x8-centre", "soma", "pentacubes-3x4x5"]


REPEAT = 1


def timed(fn):
    """The value and the best time of REPEAT calls (a shared machine is noisy)."""
    best = None
    for _ in range(REPEAT):
        t = time.perf_counter()
        value = fn()
        elapsed = time.perf_counter() - t
        best = elapsed if best is None else min(best, elapsed)
    return value, best


def ours_total(problem):
    return problem.solver().count()


def levels_solver(problem):
    """The solver counting by levels with the model's board geometry (``--by-levels``),
    built before the clock starts (as the search's bitsets are), or None."""
    from core.frontier import accepts

    return problem.solver(levels=True) if accepts(problem.exact_cover()) else None


def ours_levels(solver):
    """When the level count runs out of memory the search finishes the count: that time
    is included."""
    n = solver.count()
    return n if solver.counted_by == "levels" else f"{n} (searched)"


def ours_auto(solver):
    """The automatic choice (``levels="auto"``, the command line's default): the count and
    which way it went."""
    n = solver.count()
    return f"{n} ({solver.counted_by})"


def ours_distinct(problem):
    """Total and distinct by symmetry breaking; "n/a" for a model without board symmetry."""
    try:
        solver = problem.solver(distinct=True)
    except TypeError:  # not a polyform: its solver takes no `distinct`
        return "n/a"
    r = solver.solve()
    return f"{r.count}/{r.distinct}"


def xcover_count(ec):
    from xcover import covers

    options = [[ec.items[i] for i, _ in opt] for opt in ec.options]
    return sum(1 for _ in covers(options, primary=list(ec.primary), secondary=list(ec.secondary)))


def exact_cover_count(ec):
    import numpy as np
    import exact_cover

    if ec.n_primary != ec.n_items or ec.bounds is not None:
        return None
    m = np.zeros((ec.n_options, ec.n_items), dtype=np.int32)
    for k, opt in enumerate(ec.options):
        for i, _ in opt:
            m[k, i] = 1
    return int(exact_cover.get_solution_count(m))


def warm_up():
    from core.exact_cover import ExactCover

    tiny = ExactCover.build(["a", "b"], [], [["a"], ["b"], ["a", "b"]])
    try:
        xcover_count(tiny)
    except Exception:  # pragma: no cover - optional package
        pass
    try:
        exact_cover_count(tiny)
    except Exception:  # pragma: no cover
        pass


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", default=DEFAULT)
    ap.add_argument("--skip-others", action="store_true", help="time only our kernel")
    ap.add_argument("--repeat", type=int, default=1, help="keep the best of this many counts per solver")
    args = ap.parse_args(argv)
    global REPEAT
    REPEAT = max(1, args.repeat)
    if not args.skip_others:
        warm_up()
    head = (f"{'problem':24} {'ours total':>16} {'ours by levels':>16} {'ours auto':>22} {'ours distinct':>20} "
            f"{'xcover':>16} "
            f"{'exact-cover':>16}  ratios")
    print(head)
    print("-" * len(head))
    for name in args.names:
        p = load(name)
        ec = p.exact_cover()
        n_total, t_total = timed(lambda: ours_total(p))
        by_levels = levels_solver(p)
        n_levels, t_levels = timed(lambda: ours_levels(by_levels)) if by_levels else (None, 0.0)
        auto = p.solver(levels="auto")
        n_auto, t_auto = timed(lambda: ours_auto(auto))
        n_dist, t_dist = timed(lambda: ours_distinct(p))
        cols = [f"{n_total} {t_total:7.2f}s", "n/a" if n_levels is None else f"{n_levels} {t_levels:7.2f}s",
                f"{n_auto} {t_auto:7.2f}s", f"{n_dist} {t_dist:7.2f}s"]
        ratios = []
        for label, fn in (("xcover", xcover_count), ("exact-cover", exact_cover_count)):
            if args.skip_others:
                cols.append("-")
                continue
            try:
                n, t = timed(lambda: fn(ec))
            except Exception as exc:  # an optional package missing or failing
                cols.append(f"error: {type(exc).__name__}")
                continue
            if n is None:
                cols.append("n/a")
                continue
            mark = "" if n == n_total else " MISMATCH"
            cols.append(f"{n} {t:7.2f}s{mark}")
            by_levels = f", {t / t_levels:.1f}x by levels" if n_levels is not None else ""
            ratios.append(f"{label} {t / t_total:.1f}x total{by_levels}, {t / t_auto:.1f}x auto, "
                          f"{t / t_dist:.1f}x distinct")
        print(f"{name:24} {cols[0]:>16} {cols[1]:>16} {cols[2]:>22} {cols[3]:>20} {cols[4]:>16} {cols[5]:>16}  "
              f"{'; '.join(ratios)}", flush=True)


if __name__ == "__main__":
    main()
