"""``solve --census``: the census of a run, summed per subproblem in the ledger, against
the census of the whole problem (core) and the placements tallied over every listed
solution (the reference lists them); split and resumed runs; the stored layout."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from core.census import tally
from core.library import load
from scheduler.census_codec import pack_census, pack_dense, pack_sparse, unpack_census
from scheduler.db import open_ledger
from scheduler.ledger import get_run, interrupt_run, lease_batch, record_results
from scheduler.ledger.censuses import run_census
from scheduler.run_options import RunOptions
from scheduler.work import build_solver, census_task
from tc_helpers import make_run

counts = st.lists(st.one_of(st.just(0), st.integers(0, 300), st.integers(0, 1 << 200)), max_size=60)


@given(counts)
def test_both_layouts_give_the_vector_back_and_the_shorter_is_kept(vector):
    assert unpack_census(pack_dense(vector)) == vector
    assert unpack_census(pack_sparse(vector)) == vector
    assert len(pack_census(vector)) == min(len(pack_dense(vector)), len(pack_sparse(vector)))


def test_a_damaged_blob_is_refused():
    blob = pack_dense([1, 1 << 140, 0])
    for bad in (blob[:-1], blob + b"\x00", b"X" + blob[1:], b""):
        with pytest.raises(ValueError):
            unpack_census(bad)


def _solve(tc, name: str, *flags: str) -> int:
    out = json.loads(tc("solve", name, "--census", "--workers", "1", "--json", "--no-progress", *flags).stdout)
    assert out["status"] == "done"
    return out["run_id"]


def _census(sqlite_url, run_id: int):
    found = run_census(open_ledger(sqlite_url), run_id)
    assert found is not None and found.parts == found.done
    return found.census


@pytest.mark.parametrize("name, flags", [
    ("dominoes-4x5", ()), ("dominoes-4x5", ("--no-symmetry", "--by-search")), ("dominoes-4x5", ("--by-levels",)),
    ("pentomino-3x20", ()), ("pentomino-3x20", ("--no-symmetry",)), ("pentomino-3x20", ("--engine", "reference")),
])
def test_the_census_of_a_run_is_the_problem_s_and_the_listed_solutions_tally(tc, sqlite_url, name, flags):
    census = _census(sqlite_url, _solve(tc, name, *flags))
    problem = load(name)
    listed = list(problem.solver(engine="reference").solutions())
    assert census == tally(listed, problem.exact_cover().n_options)  # every solution listed, its options tallied
    assert census == problem.solver(method="search").census()


@settings(max_examples=6, deadline=None)
@given(st.sampled_from([("--subproblems", "1"), ("--split-depth", "0"), ("--split-depth", "1"),
                        ("--split-depth", "3"), ("--subproblems", "40"), ("--subproblems", "200")]))
def test_a_run_split_in_many_subproblems_has_the_census_of_one(tmp_path_factory, split):
    from click.testing import CliRunner

    from scheduler.cli import cli

    url = f"sqlite:///{tmp_path_factory.mktemp('split') / 'ledger.sqlite'}"
    args = ["solve", "pentomino-3x20", "--census", "--workers", "1", "--json", "--no-progress", "--db", url]
    one = json.loads(CliRunner().invoke(cli, [*args, "--subproblems", "1"], catch_exceptions=False).stdout)
    many = json.loads(CliRunner().invoke(cli, [*args, *split], catch_exceptions=False).stdout)
    assert _census(url, one["run_id"]) == _census(url, many["run_id"])


def test_the_sum_rules_hold_for_a_run_s_census(tc, sqlite_url):
    census = _census(sqlite_url, _solve(tc, "pentomino-3x20", "--subproblems", "30"))
    ec = load("pentomino-3x20").exact_cover()
    assert census.total == 8
    for i in range(ec.n_primary):  # every cell, and every piece placed once
        if ec.bound(i) == (1, 1):
            assert sum(census.per_option[k] for k in ec.covering[i]) == census.total


def test_a_resumed_run_has_the_census_of_the_whole(tc, sqlite_url):
    """Some subproblems recorded, the run interrupted, then resumed: its census is the
    whole problem's, each subproblem's counted once."""
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "pentomino-3x20", depth=2, census=True)
    options = RunOptions.from_json(get_run(ledger, run_id).options)
    _, solver = build_solver(load("pentomino-3x20").spec, options)
    leased = lease_batch(ledger, run_id, "test:host:1", 3, 60.0)
    assert len(leased) == 3
    record_results(ledger, [census_task(solver, task) for task in leased])
    assert interrupt_run(ledger, run_id)
    tc("resume", str(run_id), "--workers", "1", "--json")
    assert _census(sqlite_url, run_id) == load("pentomino-3x20").solver(method="search").census()


@pytest.mark.parametrize("flags, says", [
    (("--all",), "--census goes with a count"), (("--first", "2"), "--census goes with a count"),
    (("--distinct",), "not with --distinct"), (("--by-bitboard",), "the bitboard search takes no census"),
    (("--level-shares", "2"), "in shares takes no census"),
])
def test_a_census_that_cannot_be_taken_is_one_line_and_exit_2(tc, flags, says):
    result = tc("solve", "pentomino-3x20", "--census", *flags, code=2)
    assert says in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
