"""``solutions RUN --where`` on both ledgers: the index's answer equals the stored
solutions filtered in Python by the placements they hold (piece names and cells, read
from each solution, not from the option sets the query resolves to), and the same query
in SQL alone (``INTERSECT`` / ``UNION`` / ``EXCEPT``), where combined queries are
answered with bitmaps; also on a run whose ids have gaps."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import text
from hypothesis import HealthCheck, given, settings, strategies as st

from core.library import load
from core.where_options import resolve
from core.where_syntax import And, CellIn, Not, Or, PieceAt, PieceTouches
from scheduler.cli import cli
from scheduler.db import open_ledger
from scheduler.queries import iter_solutions
from scheduler.where_sql import count_matches, iter_matches, matches_sql

#: a plane board with a hole (520 solutions), a box (316), and pieces in any number (117:
#: a piece may touch a cell twice, so a condition's rows hold doubles)
PROBLEMS = ["pentomino-8x8-centre", "soma-bathtub", "tetrominoes-4x4"]
_solved: dict[tuple[str, str], int] = {}


def _tc(url: str, *args: str, code: int = 0):
    result = CliRunner().invoke(cli, [*args, "--db", url], catch_exceptions=False)
    assert result.exit_code == code, (result.output, result.stderr)
    return result


def _run(url: str, name: str) -> int:
    if (url, name) not in _solved:
        out = _tc(url, "solve", name, "--all", "--json", "--workers", "1", "--split-depth", "2").stdout
        _solved[url, name] = json.loads(out)["run_id"]
    return _solved[url, name]


def _holds(query, placements, board) -> bool:
    """The query on one solution, from its placements alone."""
    if isinstance(query, And):
        return all(_holds(q, placements, board) for q in query.parts)
    if isinstance(query, Or):
        return any(_holds(q, placements, board) for q in query.parts)
    if isinstance(query, Not):
        return not _holds(query.part, placements, board)
    cell = (0, *query.cell) if len(query.cell) == 2 else query.cell
    if isinstance(query, PieceAt):
        return any(p.piece == query.piece and cell in p.cells for p in placements)
    if isinstance(query, PieceTouches):
        near = set(board.neighbours(cell))
        return any(p.piece == query.piece and near & p.cells for p in placements)
    return any(p.piece in query.pieces and cell in p.cells for p in placements)


def _queries(problem):
    names = [p.name for p in problem.pieces]
    cells = sorted(c if problem.board.space == 3 else c[1:] for c in problem.board.free)
    piece, cell = st.sampled_from(names), st.sampled_from(cells)
    atoms = st.one_of(st.builds(PieceAt, piece, cell), st.builds(PieceTouches, piece, cell),
                      st.builds(CellIn, cell, st.lists(piece, min_size=1, max_size=3, unique=True).map(tuple)))
    return st.recursive(atoms, lambda c: st.one_of(
        st.builds(Not, c), st.lists(c, min_size=2, max_size=3).map(lambda ps: And(tuple(ps))),
        st.lists(c, min_size=2, max_size=3).map(lambda ps: Or(tuple(ps)))), max_leaves=5)


@pytest.mark.parametrize("name", PROBLEMS)
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_index_answers_as_the_solutions_filtered_in_python(any_url, name, data):
    run_id = _run(any_url, name)
    problem = load(name)
    ledger = open_ledger(any_url)
    stored = [(sub, options) for _, sub, options in iter_solutions(ledger, run_id)]
    query = data.draw(_queries(problem))
    expected = [options for _, options in stored if _holds(query, problem.placements_of(options), problem.board)]
    resolved = resolve(problem, query)
    assert count_matches(ledger, run_id, resolved) == len(expected)
    assert [m.options for m in iter_matches(ledger, run_id, resolved, chunk=7)] == expected
    offset = data.draw(st.integers(0, len(expected) + 1))
    page = list(iter_matches(ledger, run_id, resolved, limit=3, offset=offset))
    assert [(m.index, m.options) for m in page] == list(enumerate(expected))[offset:offset + 3]
    assert [m.solution_id for m in iter_matches(ledger, run_id, resolved)] == _in_sql_alone(ledger, run_id, resolved)


def _in_sql_alone(ledger, run_id: int, resolved) -> list[int]:
    with ledger.session() as session:
        sql = f"SELECT solution_id FROM ({matches_sql(run_id, resolved)}) AS m ORDER BY solution_id"
        return list(session.execute(text(sql)).scalars())


_gapped: dict[str, int] = {}


def _run_with_gaps(url: str) -> int:
    """A run of tetrominoes-4x4 less every stored solution whose id is a multiple of 3
    (and its index rows), so that its ids are not one range."""
    if url not in _gapped:
        run_id = json.loads(_tc(url, "solve", "tetrominoes-4x4", "--all", "--json", "--workers", "1").stdout)["run_id"]
        with open_ledger(url).session() as session:
            session.execute(text(f"DELETE FROM solution_options WHERE run_id = {run_id} AND solution_id % 3 = 0"))
            session.execute(text(f"DELETE FROM solutions WHERE run_id = {run_id} AND id % 3 = 0"))
        _gapped[url] = run_id
    return _gapped[url]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_run_whose_ids_have_gaps_is_answered_as_its_solutions_filtered_in_python(any_url, data):
    from scheduler.codec import unpack

    run_id = _run_with_gaps(any_url)
    problem = load("tetrominoes-4x4")
    ledger = open_ledger(any_url)
    with ledger.session() as session:
        stored = session.execute(text(f"SELECT id, options FROM solutions WHERE run_id = {run_id} ORDER BY id")).all()
    assert 0 < len(stored) < 117 and all(sid % 3 for sid, _ in stored)
    query = data.draw(_queries(problem).flatmap(lambda q: st.sampled_from([q, Not(q), And((Not(q), Not(q)))])))
    expected = [sid for sid, blob in stored if _holds(query, problem.placements_of(unpack(blob)), problem.board)]
    resolved = resolve(problem, query)
    assert count_matches(ledger, run_id, resolved) == len(expected)
    assert [m.solution_id for m in iter_matches(ledger, run_id, resolved, chunk=5)] == expected
    assert _in_sql_alone(ledger, run_id, resolved) == expected



@pytest.mark.parametrize("where", ["X@2,2 and not I touches 0,0", "X@2,2 or X@5,5", "not X@2,2",
                                   "not (X@2,2 or X@5,5) and not L touches 1,1"])
def test_ids_read_in_slices_give_the_same_answer(any_url, monkeypatch, where):
    """At most 2**24 ids a statement on big runs; here slices of 7 ids, on a run whose ids
    have gaps (so that a ``not`` reads the run's ids too, in slices)."""
    import scheduler.where_sql as where_sql
    from core.where_syntax import parse_where

    problem = load("pentomino-8x8-centre")
    ledger = open_ledger(any_url)
    run_id = _run(any_url, "pentomino-8x8-centre")
    with ledger.session() as session:
        session.execute(text(f"DELETE FROM solution_options WHERE run_id = {run_id} AND solution_id % 5 = 0"))
        session.execute(text(f"DELETE FROM solutions WHERE run_id = {run_id} AND id % 5 = 0"))
    resolved = resolve(problem, parse_where(where))
    whole = [m.solution_id for m in iter_matches(ledger, run_id, resolved)]
    monkeypatch.setattr(where_sql, "SLICE", 7)
    assert [m.solution_id for m in iter_matches(ledger, run_id, resolved)] == whole
    assert whole == _in_sql_alone(ledger, run_id, resolved) and 0 < len(whole) < 520
    del _solved[any_url, "pentomino-8x8-centre"]

def test_the_command_counts_lists_and_refuses_cleanly(any_url):
    run_id = _run(any_url, "pentomino-8x8-centre")
    out = _tc(any_url, "solutions", str(run_id), "--where", "X@2,2", "--where", "not I touches 0,0",
              "--limit", "2").stdout
    first = out.splitlines()[0]
    assert first.startswith(f"run {run_id}: ") and "of 520 stored solutions match X@2,2 and not I touches 0,0" in first
    assert out.count("match 1:") == 1 and out.count("match 2:") == 1
    counted = json.loads(_tc(any_url, "solutions", str(run_id), "--where", "X@2,2 or X@5,5", "--count",
                             "--json").stdout)
    listed = json.loads(_tc(any_url, "solutions", str(run_id), "--where", "X@2,2 or X@5,5", "--limit", "1000",
                            "--json").stdout)
    assert counted["matches"] == len(listed) and counted["stored"] == 520
    assert [e["index"] for e in listed] == list(range(len(listed)))
    for text, message in [("X@", "column 3"), ("Q@1,1", "no piece 'Q'"), ("X@3,3", "r3c3 is not a free cell")]:
        result = _tc(any_url, "solutions", str(run_id), "--where", text, code=2)
        assert result.stderr.count("\n") == 1 and message in result.stderr and "Traceback" not in result.stderr


def test_a_sudoku_is_asked_by_option_text(any_url):
    """Relabelling the digits maps the 288 grids of 4x4 onto each other, so a given
    digit stands in a given cell in a quarter of them."""
    run_id = _run(any_url, "sudoku-4x4")
    count = lambda where: int(_tc(any_url, "solutions", str(run_id), "--where", where, "--count").stdout)  # noqa: E731
    assert count('option "r1c1=1"') == 72
    assert count('option "r1c1=1" and option "r2c2=1"') == 0  # one box
    assert count("item r1c1") == 288
    assert count('not option "r1c1=1" and not option "r1c1=2"') == 144


def test_deleting_a_run_deletes_its_index_rows(any_url):
    from sqlalchemy import func, select

    from scheduler.models import SolutionOption

    run_id = _run(any_url, "pentomino-8x8-centre")
    ledger = open_ledger(any_url)

    def rows() -> int:
        with ledger.session() as session:
            return session.scalar(select(func.count()).select_from(SolutionOption)
                                  .where(SolutionOption.run_id == run_id))

    assert rows() == 520 * 12
    _tc(any_url, "delete", str(run_id))
    del _solved[any_url, "pentomino-8x8-centre"]
    assert rows() == 0


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(st.text(max_size=40), st.lists(st.sampled_from(
    ["X", "I", "Q", "@", "2,2", "3,3", "9,9", "0,0,0", "r2c2", "in", "{", "}", ",", "and", "or", "not", "(", ")",
     "touches", "option", "item", '"X *"', '"', " "]), max_size=12).map(" ".join)))
def test_any_text_given_to_the_command_is_an_answer_or_one_clean_line(sqlite_url, text):
    run_id = _run(sqlite_url, "pentomino-8x8-centre")
    result = CliRunner().invoke(cli, ["solutions", str(run_id), "--where", text, "--count", "--db", sqlite_url])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    if result.exit_code == 0:
        assert 0 <= int(result.stdout) <= 520
    else:
        assert result.exit_code == 2 and result.stderr.startswith("tilecensus: ") and result.stderr.count("\n") == 1

