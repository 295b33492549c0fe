"""``tilecensus census RUN``: a ``--census`` run's census mapped to its problem, against the
same views tallied over every solution that ``solve --all`` listed and stored; the sum
rules; the pentomino 6x10's X; errors as one line and exit status 2."""
from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path

import pytest

from core.library import load
from scheduler.db import open_ledger
from scheduler.ledger import get_run
from scheduler.queries import iter_solutions, problem_of
from tc_helpers import make_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(tc, name: str, *flags: str) -> int:
    out = json.loads(tc("solve", name, "--workers", "1", "--json", "--no-progress", *flags).stdout)
    assert out["status"] == "done"
    return out["run_id"]


def _listed(sqlite_url: str, run_id: int) -> list[tuple[int, ...]]:
    """The stored solutions of an ``--all`` run, each its option ids."""
    return [options for _, _, options in iter_solutions(open_ledger(sqlite_url), run_id)]


def _listed_heat(problem, solutions) -> dict[str, Counter]:
    """Per piece name, per cell name: the listed solutions in which that piece covers it
    (each solution's placements as the problem draws them, tallied one by one)."""
    heat: dict[str, Counter] = {p.name: Counter() for p in problem.pieces}
    for solution in solutions:
        for placement in problem.placements_of(solution):
            for cell in placement.cells:
                heat[placement.piece][problem.board.cell_name(cell)] += 1
    return heat


def _census_json(tc, run_id: int, *flags: str) -> dict:
    return json.loads(tc("census", str(run_id), "--json", *flags).stdout)


POLYFORMS = ["pentomino-3x20", "trominoes-3x4", "tetracubes-2x2x8", "tetrahexes-4x7", "hexiamonds-3x12",
             str(EXAMPLES / "polyform-pack-tetrominoes.toml")]


@pytest.mark.parametrize("name", POLYFORMS)
def test_the_heat_of_each_piece_is_the_listed_solutions_tally(tc, sqlite_url, name):
    listed = _listed(sqlite_url, _run(tc, name, "--all"))
    shown = _census_json(tc, _run(tc, name, "--census"))
    problem = load(name)
    assert shown["total"] == len(listed)
    expected = _listed_heat(problem, listed)
    cells = [c["cell"] for c in shown["board"]["cells"]]
    assert sorted(cells) == sorted(problem.board.cell_name(c) for c in problem.board.free)
    assert [p["name"] for p in shown["pieces"]] == [p.name for p in problem.pieces]
    for piece in shown["pieces"]:
        assert dict(zip(cells, piece["heat"])) == {c: expected[piece["name"]][c] for c in cells}
    used = Counter(problem.exact_cover().option_text(k) for solution in listed for k in solution)
    texts = [problem.exact_cover().option_text(k) for k in range(problem.exact_cover().n_options)]
    assert {f["text"] for f in shown["forced"]} == {t for t in texts if listed and used[t] == len(listed)}
    assert {f["text"] for f in shown["impossible"]} == {t for t in texts if used[t] == 0}


@pytest.mark.parametrize("name", ["sudoku-4x4", str(EXAMPLES / "langford7.dlx")])
def test_other_models_list_each_option_and_item_as_the_listed_solutions_tally(tc, sqlite_url, name):
    listed = _listed(sqlite_url, _run(tc, name, "--all"))
    shown = _census_json(tc, _run(tc, name, "--census"))
    ec = load(name).exact_cover()
    used = Counter(k for solution in listed for k in solution)
    assert shown["total"] == len(listed)
    assert [(o["text"], o["solutions"]) for o in shown["options"]] == \
        [(ec.option_text(k), used[k]) for k in range(ec.n_options)]
    for entry, name_ in zip(shown["items"], ec.items):
        item = ec.items.index(name_)
        assert entry["item"] == name_
        assert {o["option"]: o["solutions"] for o in entry["options"]} == \
            {k: used[k] for k in range(ec.n_options) if used[k] and any(i == item for i, _ in ec.options[k])}
    assert {f["option"] for f in shown["impossible"]} == {k for k in range(ec.n_options) if not used[k]}


def _sum_rules(shown: dict, problem) -> None:
    """At every cell of a filled board the pieces' heat adds up to the total; a piece placed
    exactly once covers its size in cells in every solution."""
    total = shown["total"]
    for j in range(len(shown["board"]["cells"])):
        assert sum(p["heat"][j] for p in shown["pieces"]) == total
    for p, kind in zip(shown["pieces"], problem.pieces):
        if kind.count == (1, 1):
            assert sum(p["heat"]) == total * p["size"]


@pytest.mark.parametrize("name, flags", [("pentomino-6x10", ()), ("pentomino-6x10", ("--no-symmetry",)),
                                         ("tetracubes-2x4x4", ()), ("hexiamonds-4x9", ()),
                                         ("dominoes-4x5", ("--by-levels",))])
def test_the_sum_rules_hold(tc, name, flags):
    _sum_rules(_census_json(tc, _run(tc, name, "--census", *flags)), load(name))


def test_the_x_of_the_pentomino_6x10_as_every_listed_solution_places_it(tc, sqlite_url):
    """The X's heat against its cells in each of the 9,356 listed solutions: never in a
    corner's three cells, symmetric under the board's four symmetries, 5 cells a solution."""
    listed = _listed(sqlite_url, _run(tc, "pentomino-6x10", "--all"))
    assert len(listed) == 9356
    problem = load("pentomino-6x10")
    expected = _listed_heat(problem, listed)["X"]
    shown = _census_json(tc, _run(tc, "pentomino-6x10", "--census"), "--piece", "X")
    assert [p["name"] for p in shown["pieces"]] == ["X"]
    heat = {c["cell"]: n for c, n in zip(shown["board"]["cells"], shown["pieces"][0]["heat"])}
    assert heat == {f"r{y}c{x}": expected[f"r{y}c{x}"] for y in range(6) for x in range(10)}
    assert sum(heat.values()) == 9356 * 5
    for y, x in ((0, 0), (0, 1), (1, 0), (5, 9), (4, 9), (5, 8)):
        assert heat[f"r{y}c{x}"] == 0
    for y in range(6):
        for x in range(10):
            assert heat[f"r{y}c{x}"] == heat[f"r{5 - y}c{x}"] == heat[f"r{y}c{9 - x}"]


def test_the_text_draws_a_grid_per_piece_and_the_csv_holds_the_json_s_numbers(tc):
    run_id = _run(tc, "pentomino-3x20", "--census")
    text = tc("census", str(run_id), "--piece", "X").stdout
    shown = _census_json(tc, run_id, "--piece", "X")
    heat = shown["pieces"][0]["heat"]
    grid = [line.split()[1:] for line in text.splitlines() if line.strip()[:1].isdigit()][1:]
    assert [int(v) for row in grid for v in row] == heat  # row by row, as the JSON lists the cells
    assert "census of 8 solutions" in text and "forced (in every solution)" in text
    rows = list(csv.DictReader(io.StringIO(tc("census", str(run_id), "--csv").stdout)))
    full = _census_json(tc, run_id)
    assert len(rows) == len(full["pieces"]) * 60
    by_piece = {p["name"]: p["heat"] for p in full["pieces"]}
    for j, row in enumerate(rows):
        assert int(row["solutions"]) == by_piece[row["piece"]][j % 60] and int(row["total"]) == 8


def test_a_box_is_drawn_a_slice_per_layer(tc):
    text = tc("census", str(_run(tc, "tetracubes-2x2x8", "--census")), "--piece", "I").stdout
    assert "layer 0:" in text and "layer 1:" in text


def _one_line_error(result, says: str) -> None:
    assert says in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_unknown_runs_and_pieces_are_one_line_and_exit_2(tc):
    run_id = _run(tc, "pentomino-3x20", "--census")
    _one_line_error(tc("census", "999", code=2), "no run 999")
    _one_line_error(tc("census", str(run_id), "--piece", "Q", code=2), "no piece 'Q'")
    _one_line_error(tc("census", str(run_id), "--json", "--csv", code=2), "not both")
    error = json.loads(tc("census", "999", "--json", code=2).stderr)
    assert error["exit_code"] == 2 and "no run 999" in error["error"]
    sudoku = _run(tc, "sudoku-4x4", "--census")
    _one_line_error(tc("census", str(sudoku), "--piece", "X", code=2), "--piece is for polyform problems")


def test_a_run_without_a_census_or_not_finished_is_one_line_and_exit_2(tc, sqlite_url):
    plain = _run(tc, "pentomino-3x20")
    _one_line_error(tc("census", str(plain), code=2), "without --census")
    running = make_run(open_ledger(sqlite_url), "pentomino-3x20", depth=2, census=True)
    assert get_run(open_ledger(sqlite_url), running).status == "running"
    _one_line_error(tc("census", str(running), code=2), "not done")
    assert problem_of(open_ledger(sqlite_url), running).name == "pentomino-3x20"
