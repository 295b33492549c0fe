"""What the commands print: headlines, estimates, statistics, a run in detail, tables.

Pure formatting of the ledger's summaries (:mod:`scheduler.queries`): every function
takes dicts or values and returns text (or echoes it), so what is printed can be tested
without running anything.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import click

from core.solver_options import Method

from ..phases import phases_line
from ..run_options import RunOptions
from ..shapes import run_json

if TYPE_CHECKING:
    from core.estimate import Band, Estimate

    from ..planning import PreparedRun


def estimate_line(est: Estimate) -> str:
    """The estimate in one line: nodes, solutions and time on one core here, with bands."""

    def banded(b: Band, unit: str, fmt: str = "{:,.0f}") -> str:
        text = f"{fmt.format(b.value)} {unit}"
        if b.low != b.high:
            text += f" (95% {fmt.format(b.low)}..{fmt.format(b.high)}{' s' if unit == 's' else ''})"
        return text

    source = "exact: searched in full while timing" if est.samples == 0 else f"from {est.samples:,} random paths"
    solutions = banded(est.solutions, "solutions")
    if est.samples and not est.solutions_reached:
        solutions = "solutions not estimated (no random path reached one)"
    return (f"estimate: {banded(est.nodes, 'nodes')}, {solutions}, "
            f"{banded(est.seconds, 's', '{:,.1f}')} on one core here; {source}")


def method_line(options: RunOptions) -> str | None:
    """What stands in for the estimate when the run counts by levels: why, and how not to."""
    if options.solver.method is not Method.LEVELS:
        return None
    if options.method_reason:  # chosen by measuring: "levels: <what was measured>"
        return f"counting by {options.method_reason} (--by-search searches instead)"
    return "counting by levels (--by-levels): no search-tree estimate"


def before_the_run(prepared: PreparedRun) -> str | None:
    """The line printed before a run starts: its estimate, or why there is none."""
    if prepared.estimate is not None:
        return estimate_line(prepared.estimate)
    if prepared.estimate_refusal is not None:
        return f"no estimate: cannot estimate this model ({prepared.estimate_refusal})"
    return method_line(prepared.options)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 solution``, ``2 solutions``, ``1,244 solutions``; ``many``: the plural where it
    is not the word and an ``s`` (``2 worker processes``)."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def known_counts(known: dict[str, int] | None) -> str:
    """A built-in problem's published counts, labelled alike for every kind:
    ``known: 9,356 solutions, 2,339 distinct``."""
    if not known:
        return ""
    parts = [plural(known["solutions"], "solution")] if "solutions" in known else []
    parts += [f"{known['distinct']:,} distinct"] if "distinct" in known else []
    return "known: " + ", ".join(parts)


def short(s: dict[str, Any]) -> dict[str, Any]:
    """A run's summary as ``--json`` prints it for ``solve``, ``submit --wait``, ``watch``
    and ``resume``: the totals, in the shape of :func:`run_json`."""
    keys = ["run_id", "problem", "mode", "status", "solutions", "distinct", "nodes", "seconds", "cpu_seconds",
            "progress", "error", "subproblems"]
    full = run_json(s)
    out = {k: full[k] for k in keys}
    if s.get("verification"):
        out["verified"] = s["verification"]["verified"]
        out["mismatches"] = s["verification"]["mismatches"]
    return out


def node_unit(s: dict[str, Any]) -> str:
    """What a run's node total counts: search-tree nodes, level-count states, or both.
    A finished run's stats say how many subproblems were counted by levels (one that was
    meant to go by levels may have fallen back to the search); before that, or for a run
    recorded before the stats said so, the run's options tell what was meant."""
    by_levels = (s.get("stats") or {}).get("by_levels")
    if by_levels is None:
        meant = RunOptions.from_json(s.get("options")).solver.method is Method.LEVELS
        return "states, by levels" if meant else "nodes"
    done = s["subproblems"].get("done", 0)
    if by_levels == 0:
        return "nodes"
    if by_levels >= done:
        return "states, by levels"
    return f"nodes and states ({by_levels} of {done} subproblems by levels)"


def headline(s: dict[str, Any]) -> str:
    """One line: the run, its totals, what it cost, its status."""
    parts = [plural(s["solutions"], "solution")]
    if s.get("distinct") is not None:
        parts.append(f"{s['distinct']:,} distinct")
    verified = f", {s['verification']['verified']} verified" if s.get("verification") else ""
    nodes = f"{s['nodes']:,} {node_unit(s)}"
    total = s["subproblems"]["total"]
    line = (f"run {s['run_id']} {s['problem']}: {', '.join(parts)} "
            f"({nodes}, {plural(total, 'subproblem')}{verified}, {s['seconds']:.2f} s)"
            f" — {s['status']}")
    if s.get("error"):
        line += f": {s['error']}"
    return line


def given_note(found: bool | None) -> str:
    """What the headline of a crossword file's run adds: whether the file's own grid is
    among the grids found (nothing for a run without a given grid)."""
    if found is None:
        return ""
    return "; the file's own grid is among them" if found else "; the file's own grid is NOT among them"


def print_stats(s: dict[str, Any]) -> None:
    """The search statistics of a run (``solve --stats``)."""
    st = s.get("stats") or {}
    click.echo(f"nodes            {st.get('nodes', s['nodes']):,}")
    if "leaves" in st:  # (runs recorded before leaves were counted have none)
        click.echo(f"leaves           {st['leaves']:,} (solutions and dead ends reached)")
    click.echo(f"solutions        {s['solutions']:,}")
    click.echo(f"updates          {st.get('updates', 0):,}")
    per_depth = st.get("nodes_per_depth", [])
    if node_unit(s) != "states, by levels" and (any(per_depth) or not st.get("nodes")):
        click.echo(f"nodes per depth  {' '.join(str(n) for n in per_depth)}")
    else:  # a level count (--by-levels): its "nodes" are distinct states, with no depth
        click.echo("nodes per depth  none: counted by levels (the nodes are distinct states)")
    click.echo(f"seconds          {s['seconds']:.3f} wall, {s['cpu_seconds']:.3f} in workers")


def verified_cell(r: dict[str, Any]) -> str:
    """The ``runs`` table's verified column: how many, and the mismatches."""
    if r["verified"] is None:
        return ""
    return f"{r['verified']}" + (f" ({r['mismatches']} MISMATCH)" if r["mismatches"] else "")


def runs_table(rows: list[dict[str, Any]]) -> None:
    """The ``runs`` listing as a table (wide when not on a terminal)."""
    from rich.console import Console
    from rich.table import Table

    table = Table("run", "problem", "mode", "status", "solutions", "distinct", "done", "subproblems", "verified",
                  "seconds", "created")
    for r in rows:
        table.add_row(str(r["run_id"]), r["problem"], r["mode"], r["status"], f"{r['solutions']:,}",
                      "" if r["distinct"] is None else f"{r['distinct']:,}", f"{100 * r['progress']:.1f}%",
                      str(r["subproblems"]), verified_cell(r), f"{r['seconds']:.2f}", r["created"] or "")
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    console.print(table)


def _estimate_lines(s: dict[str, Any]) -> list[str]:
    e = s.get("estimate")
    if not e:
        return []
    n = e["nodes"]
    how = "exact" if e.get("exact") else f"95% {n['low']:,.0f}..{n['high']:,.0f}, {e['samples']:,} paths"
    line = f"estimate     {n['estimate']:,.0f} nodes ({how}), {e['seconds']['estimate']:,.1f} s on one core"
    if e.get("ratio") is not None:
        line += f"; searched {s['nodes']:,} = {e['ratio']:.2f}x the estimate"
    return [line]


def _verification_lines(s: dict[str, Any]) -> list[str]:
    v = s.get("verification")
    if not v:
        return []
    n = v["verified"]
    lines = [f"verified     {n} subproblem{'' if n == 1 else 's'} re-solved by another worker "
             f"({100 * v['fraction']:g}% sampled, seed {v['seed']}): {v['agree']} agree, "
             f"{v['mismatches']} mismatch, {v['open']} open"]
    lines += [f"  MISMATCH {m['detail']}" for m in v["mismatched"]]
    return lines


def burnside_line(b: dict) -> str:
    """Burnside's sum in one line: the solutions each class's elements fix, over the order."""
    terms = " + ".join(f"{c['fixed']:,}" if c["size"] == 1 else f"{c['size']} x {c['fixed']:,}" for c in b["classes"])
    total = sum(c["size"] * c["fixed"] for c in b["classes"])
    return (f"by Burnside's lemma over {b['order']} symmetries in {len(b['classes'])} classes: "
            f"({terms}) / {b['order']} = {total // b['order']:,}")


def show_text(s: dict[str, Any], ledger_url: str) -> str:
    """``show``: one run in detail, the ledger it is in first."""
    options = RunOptions.from_json(s["options"])
    lines = [f"ledger       {ledger_url}",
             headline(s) + given_note(s.get("given_found")),
             f"problem      {s['problem']} ({s['kind']}, spec {s['spec_hash'][:12]})",
             f"mode         {s['mode']} on {s['executor']}; options "
             f"{json.dumps({k: v for k, v in s['options'].items() if v is not None})}"]
    solver = options.solver
    if solver.engine or options.method_reason:
        method = f"{solver.engine or 'the default engine'}, {solver.method}"
        lines.append(f"method       {method}" + (f" — {options.method_reason}" if options.method_reason else ""))
    gave_up = (s.get("stats") or {}).get("gave_up")
    if gave_up:  # the count by levels left its projection behind (core/level_shares.py)
        lines.append(f"             then: {gave_up}")
    symmetry = (s.get("plan") or {}).get("symmetry")
    if symmetry:
        lines.append(f"symmetry     counted by orbits of {symmetry}")
    if s.get("burnside"):
        lines.append(f"distinct     {burnside_line(s['burnside'])}")
    lines.append(f"status       {s['status']}" + (f": {s['error']}" if s["error"] else ""))
    lines.append(f"progress     {100 * s['progress']:.2f}% of the tree")
    lines += _estimate_lines(s)
    lines += _verification_lines(s)
    lines.append(f"timings      created {s['created']}, finished {s['finished'] or '-'}; {s['seconds']:.3f} s wall, "
                 f"{s['cpu_seconds']:.3f} s in workers")
    if s.get("times"):  # where the solving command's time went (scheduler.phases)
        lines.append(f"times        {phases_line(s['times'])}")
    t = s["throughput"]
    unit = {"nodes": "nodes", "states, by levels": "states"}.get(node_unit(s), "nodes and states")
    lines.append(f"throughput   {t['nodes_per_second'] or 0:,.0f} {unit}/s, "
                 f"{t['subproblems_per_second'] or 0:,.1f} subproblems/s")
    lines.append("subproblems  " + ", ".join(f"{k} {v}" for k, v in s["subproblems"].items()))
    for what, q in s["sizes"].items():
        if q:
            lines.append(f"sizes ({what:7s}) " + ", ".join(f"{k} {v}" for k, v in q.items()))
    if s["slowest"]:
        lines.append("slowest subproblems:")
        for r in s["slowest"]:
            lines.append(f"  #{r['id']:<6} {r['seconds']:9.4f} s {r['nodes'] or 0:>12,} {unit} "
                         f"{r['solutions'] or 0:>8,} solutions  path {r['path']}")
    summary = s.get("summary")
    if summary is not None:
        lines.append(f"what every stored solution agrees on ({summary.get('grids', '?')} solutions):")
        picture = summary.get("picture")
        if picture:
            lines.append(picture if isinstance(picture, str) else "\n".join(picture))
        for key in ("black_in_every", "white_in_every"):
            if key in summary:
                lines.append(f"{key.replace('_', ' '):15s} {len(summary[key])} squares")
    return "\n".join(lines)
