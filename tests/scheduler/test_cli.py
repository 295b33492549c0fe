"""The tilecensus command line, in process (click's runner), on a SQLite ledger."""
from __future__ import annotations

import json
import re

import pytest

from core.engines import SolverOptions
from core.library import load




def test_solve_count_json(tc):
    data = json.loads(tc("solve", "dominoes-6x6", "--json", "--workers", "2").stdout)
    assert data["solutions"] == 6728 and data["status"] == "done"
    assert {"run_id", "nodes", "seconds"} <= set(data)
    assert data["progress"] == 1.0


def test_no_memo_visits_every_solution(tc):
    def run(*extra):
        return json.loads(tc("solve", "dominoes-8x8", "--split-depth", "0", "--json", "--workers", "1", *extra).stdout)

    with_memo, without = run(), run("--no-memo")
    assert with_memo["solutions"] == without["solutions"] == 12_988_816
    assert without["nodes"] > with_memo["nodes"] * 100  # the memo counts without visiting


def test_no_memo_needs_the_kernel(tc):
    assert "kernel engine" in tc("solve", "dominoes-4x4", "--no-memo", "--engine", "reference", code=2).output
    assert "--no-memo is not an option of the crossword engine" in tc("solve", "crossword-23", "--no-memo", code=2).output


def test_solve_distinct_with_tiny_budget(tc):
    out = tc("solve", "pentomino-6x10", "--distinct", "--json", "--budget", "0.02", "--workers", "2").stdout
    data = json.loads(out)
    assert (data["solutions"], data["distinct"]) == (9356, 2339)
    show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
    assert show["subproblem_states"]["donated"] > 0
    assert (show["status"], show["solutions"], show["distinct"]) == ("done", 9356, 2339)


@pytest.mark.parametrize("name, args, total, distinct", [
    ("pentomino-6x10", [], 9_356, 2_339),                       # the total by levels below orbits
    ("pentomino-6x10", ["--split-depth", "3"], 9_356, 2_339),   # the parts as subproblems
    ("dominoes-8x8", [], 12_988_816, 1_629_189),                # folds that fix tilings
    ("pentomino-8x8-centre", ["--no-symmetry"], 520, 65),       # the total without orbits
])
def test_distinct_by_burnside_from_the_command_line(tc, name, args, total, distinct):
    """--distinct counts the classes by Burnside's lemma: the run's options say so, its
    parts add up to |G| times the classes, show prints the sum term by term; listing the
    classes (--all) goes by canonical checks."""
    data = json.loads(tc("solve", name, "--distinct", "--json", "--workers", "2", *args).stdout)
    assert (data["status"], data["solutions"], data["distinct"]) == ("done", total, distinct)
    show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
    order = show["options"]["burnside"]
    assert order in (4, 8) and show["burnside"]["order"] == order
    parts = show["burnside"]["classes"]
    assert parts[0] == {"size": 1, "fixed": total}
    assert sum(c["size"] * c["fixed"] for c in parts) == order * distinct
    assert f"/ {order} = {distinct:,}" in tc("show", str(data["run_id"])).stdout
    listed = json.loads(tc("solve", "pentomino-3x20", "--distinct", "--all", "--json").stdout)
    assert (listed["solutions"], listed["distinct"]) == (8, 2)
    assert json.loads(tc("show", str(listed["run_id"]), "--json").stdout)["options"]["burnside"] == 0


def test_distinct_folds_counted_by_levels_travel_with_the_run(tc):
    """The 10x10 domino board's half turn and diagonal folds are chosen by levels: the
    choice is in the run's options (``fold_methods``), the parts go to the pool with it,
    and the classes equal the count with every fold searched (a second method, here)."""
    from core.engines import solver_for
    from core.solver_options import SolverOptions

    searched = solver_for(load("dominoes-10x10"), SolverOptions(distinct=True, burnside=8)).solve()
    data = json.loads(tc("solve", "dominoes-10x10", "--distinct", "--json", "--workers", "2",
                         "--split-depth", "2").stdout)
    assert (data["status"], data["solutions"], data["distinct"]) == ("done", 258_584_046_368, searched.distinct // 8)
    options = json.loads(tc("show", str(data["run_id"]), "--json").stdout)["options"]
    assert "levels" in [m["method"] for m in options["fold_methods"]]


def test_solve_all_first_and_stats(tc):
    out = tc("solve", "dominoes-4x5", "--all", "--limit", "2", "--stats").stdout
    assert out.count("solution ") == 2 and "95 solutions" in out
    assert "nodes per depth" in out and "updates" in out and "leaves" in out
    data = json.loads(tc("solve", "dominoes-4x5", "--first", "3", "--json").stdout)
    problem = load("dominoes-4x5")
    assert data["solutions"] == 3 and len(data["listing"]) == 3
    assert all(problem.is_solution(s["options"]) for s in data["listing"])


def test_queries(tc, tmp_path):
    run_id = json.loads(tc("solve", "dominoes-4x5", "--all", "--json", "--split-depth", "3").stdout)["run_id"]
    runs = json.loads(tc("runs", "--json").stdout)
    assert runs[0]["run_id"] == run_id and runs[0]["solutions"] == 95
    assert "dominoes-4x5" in tc("runs").stdout
    text = tc("show", str(run_id)).stdout
    assert "slowest subproblems" in text and "throughput" in text
    sols = json.loads(tc("solutions", str(run_id), "--format", "json", "--limit", "5", "--offset", "90").stdout)
    assert [s["index"] for s in sols] == [90, 91, 92, 93, 94]
    assert "solution 1:" in tc("solutions", str(run_id), "--limit", "1").stdout
    lines = tc("export", str(run_id), "--format", "jsonl").stdout.splitlines()
    assert len(lines) == 95 and json.loads(lines[0])["options"]
    csv_out = tc("export", str(run_id), "--format", "csv", "--what", "subproblems").stdout.splitlines()
    assert csv_out[0].startswith("id,path,weight")
    svg = tc("solutions", str(run_id), "--format", "svg", "--limit", "2", "--out", str(tmp_path / "svg")).stdout
    assert "2 SVG files" in svg and len(list((tmp_path / "svg").glob("*.svg"))) == 2


def test_problems_and_db_upgrade(tc):
    out = tc("problems").stdout
    assert "pentomino-6x10" in out and "patterns:" in out
    data = json.loads(tc("problems", "--json").stdout)
    assert any(p["name"] == "pentomino-6x10" for p in data["problems"])
    up = json.loads(tc("db", "upgrade", "--json").stdout)
    assert up["revision"] == up["head"]


def test_bad_input_is_one_line_exit_2_and_writes_nothing(tc, tmp_path):
    r = tc("solve", "no-such-problem", code=2)
    assert r.stderr.count("\n") == 1 and "no-such-problem" in r.stderr
    bad = tmp_path / "bad.dlx"
    bad.write_text("a b\na c\n")
    r = tc("solve", str(bad), code=2)
    assert r.stderr.count("\n") == 1 and "bad.dlx" in r.stderr
    assert json.loads(tc("runs", "--json").stdout) == []
    r = tc("show", "999", code=2)
    assert "no run 999" in r.stderr


def test_database_that_does_not_answer(tc):
    url = "postgresql://postgres@127.0.0.1:1/nothing"
    for args in (["solve", "dominoes-4x5", "--db", url], ["runs", "--db", url], ["db", "upgrade", "--db", url]):
        r = tc(*args, code=2)
        assert r.stderr.count("\n") == 1 and "cannot reach the database" in r.stderr
    r = tc("runs", "--db", "nonsense://", code=2)
    assert r.stderr.count("\n") == 1


def test_cancel_and_resume_a_local_run(tc, sqlite_url):
    from tc_helpers import make_run
    from scheduler.db import open_ledger

    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=3, node_budget=200)
    assert "cancelled" in tc("cancel", str(run_id)).stdout
    data = json.loads(tc("resume", str(run_id), "--json", "--workers", "2").stdout)
    assert (data["status"], data["solutions"]) == ("done", 6728)


def test_estimate_brackets_the_true_size(tc):
    truth = json.loads(tc("solve", "examples/queens8.dlx", "--json", "--workers", "1", "--stats").stdout)
    # (--seconds: the 2,000 paths however loaded the machine; at load 8 three seconds held 29)
    data = json.loads(tc("estimate", "examples/queens8.dlx", "--samples", "2000", "--seed", "3", "--seconds", "600",
                         "--json").stdout)
    assert data["samples"] == 2000 and 0 < data["solutions_reached"] < 2000
    assert data["solutions"]["low"] <= 92 <= data["solutions"]["high"]
    assert data["nodes"]["estimate"] > 0 and data["seconds"]["estimate"] > 0
    assert truth["solutions"] == 92
    text = tc("estimate", "pentomino-6x10", "--samples", "20").stdout
    assert "nodes" in text and "95%" in text
    # the 20 walks of seed 0 reach none of the 6x10's solutions: no band of 0 .. 0 then
    assert "solutions  not estimated: none of the 20 random paths reached one" in text
    assert "a whole count (solve, submit) goes by levels here" in text  # not the tree estimated
    assert data["whole_count"] == "search"  # the 8 queens: a tree of 1,199 nodes, done in the trial
    tc("estimate", "no-such-problem", code=2)


def test_estimate_of_a_crossword_rebuild_is_refused_not_wrong(tc):
    """Random paths miss a clue string's tree by 20-4000x: the answer is a refusal."""
    assert "crossword-23: cannot estimate this model" in tc("estimate", "crossword-23").stdout
    data = json.loads(tc("estimate", "crossword-23", "--json").stdout)
    assert "cannot size a rebuild" in data["cannot_estimate"] and "nodes" not in data
    data = json.loads(tc("estimate", "crossword-all-7x7-rotational", "--seed", "1", "--json").stdout)
    assert data["nodes"]["low"] <= 753 <= data["nodes"]["high"]  # every 7x7 grid: a tree of 753 nodes


def test_a_count_by_levels_is_timed_from_a_sample_of_its_shares(tc):
    """Levels walk no tree: where the whole count goes by levels, `estimate` also counts a
    random sample of the root's shares and scales it (the ETA a distributed run can have
    before it starts); every share sampled, the count is exact."""
    text = tc("estimate", "crossword-all-9x9-rotational", "--by-levels", "--samples", "50").stdout
    assert re.search(r"by levels  \d+ shares of the root, 4 counted in .* s: .* on one core", text)
    data = json.loads(tc("estimate", "crossword-all-7x7-rotational", "--by-levels", "--samples", "50",
                         "--shares", "1000", "--json").stdout)
    shares = data["by_levels"]
    assert data["whole_count"] == "levels" and len(shares["sampled"]) == shares["shares"]
    count = json.loads(tc("solve", "crossword-all-7x7-rotational", "--json", "--workers", "1").stdout)["solutions"]
    assert shares["count"]["estimate"] == shares["count"]["low"] == count


def test_verify_agrees_then_catches_a_corrupted_result(tc, sqlite_url):
    from sqlalchemy import create_engine, text

    run = json.loads(tc("solve", "dominoes-4x5", "--json", "--workers", "1", "--split-depth", "3").stdout)
    ok = json.loads(tc("verify", str(run["run_id"]), "--fraction", "1", "--json").stdout)
    assert ok["ok"] and ok["verified"] == ok["eligible"] > 1
    engine = create_engine(sqlite_url)
    with engine.begin() as conn:  # corrupt one stored result, as a faulty worker would
        sub = conn.execute(text("SELECT id FROM subproblems WHERE run_id = :r AND count > 0 ORDER BY id LIMIT 1"),
                           {"r": run["run_id"]}).scalar()
        conn.execute(text("UPDATE subproblems SET count = count + 1 WHERE id = :s"), {"s": sub})
    bad = tc("verify", str(run["run_id"]), "--fraction", "1", code=1).stdout
    assert f"#{sub}" in bad and "MISMATCH" in bad and "worker" in bad
    shown = json.loads(tc("show", str(run["run_id"]), "--json").stdout)
    assert "verify failed" in shown["error"] and f"#{sub}" in shown["error"]
    engine.dispose()


def test_show_summarises_a_crossword_run(tc):
    run = json.loads(tc("solve", "crossword-39", "--all", "--json", "--workers", "1").stdout)
    assert run["solutions"] == 55
    shown = json.loads(tc("show", str(run["run_id"]), "--json").stdout)
    summary = shown["summary"]
    assert summary["grids"] == 55
    picture = summary["picture"]
    rows = picture if isinstance(picture, list) else picture.splitlines()
    assert len(rows) == summary["rows"] and set("".join(rows)) <= set("#.? ")
    assert "every stored solution" in tc("show", str(run["run_id"])).stdout


def test_solve_all_limit_svg_writes_pictures(tc, tmp_path):
    out = tmp_path / "pics"
    tc("solve", "pentomino-6x10", "--all", "--limit", "5", "--svg", str(out), "--workers", "2",
       "--split-depth", "1")
    files = sorted(out.glob("*.svg"))
    assert len(files) == 5
    text = files[0].read_text()
    assert text.lstrip().startswith("<svg") and text.count("<rect") + text.count("<path") + text.count("<polygon") >= 12


def test_by_levels_counts_in_one_level_count(tc):
    data = json.loads(tc("solve", "pentomino-5x12", "--by-levels", "--json", "--workers", "1").stdout)
    assert data["solutions"] == 4040 and data["status"] == "done"
    show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
    # not split: a level count shares its states — unless a loaded machine stopped the
    # planner's 0.2 s trial first (then what is left goes out in pieces)
    assert show["subproblems"] == 1 or not show["plan"]["trial"]["complete"]


def test_a_count_goes_by_levels_where_they_pay_and_says_so(tc):
    out = tc("solve", "pentomino-5x12", "--workers", "1").stdout
    assert "4,040 solutions" in out and re.search(r"states, by levels, \d+ subproblems?,", out)
    run_id = out.split()[1]
    show = json.loads(tc("show", run_id, "--json").stdout)
    assert show["options"]["method"] == "levels" and show["options"]["method_reason"].startswith("levels: ")
    assert show["subproblems"] == 1 or not show["plan"]["trial"]["complete"]  # (as above)
    assert "states/s" in tc("show", run_id).stdout  # a level count walks no tree: no nodes/s
    # where the search's tree is smaller, or when asked, it searches (and splits where asked)
    for args in (["pentomino-8x8-centre"], ["pentomino-5x12", "--by-search"],
                 ["pentomino-5x12", "--split-depth", "1"], ["pentomino-5x12", "--no-memo"]):
        data = json.loads(tc("solve", *args, "--json", "--workers", "1").stdout)
        show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
        assert show["options"]["method"] == "search", args
        if "--split-depth" in args:
            assert show["subproblems"] > 1, args
    assert "not both" in tc("solve", "pentomino-5x12", "--by-levels", "--by-search", code=2).output


def test_by_levels_refuses_what_it_cannot_count(tc, tmp_path):
    assert "kernel engine" in tc("solve", "dominoes-4x4", "--by-levels", "--all", code=2).output
    assert "kernel engine" in tc("solve", "dominoes-4x4", "--by-levels", "--engine", "reference", code=2).output
    colored = tmp_path / "colored.dlx"
    colored.write_text("a | x\na x:red\n")
    assert "plain exact cover" in tc("solve", str(colored), "--by-levels", code=2).output
    out = tc("solve", "crossword-23", "--by-levels", "--all", code=2).output  # the transfer counts only
    assert out.startswith("tilecensus: ") and out.count("\n") == 1
    # a square symmetry: the transfer counts whole grids layer by layer
    out = tc("solve", "crossword-all-5x5-diagonal", "--by-levels", code=0).output
    assert "26 solutions" in out


def test_a_level_count_says_why_in_place_of_the_estimate():
    from core.engines import Method
    from scheduler.cli.render import method_line
    from scheduler.planning import RunRequest, prepare
    from scheduler.run_options import Mode, RunOptions

    def line(method: Method) -> str | None:
        options = RunOptions(SolverOptions(method=method))
        return method_line(prepare(RunRequest("pentomino-6x10", None, Mode.COUNT, options, False), workers=1).options)

    assert re.match(r"counting by levels: the whole count: levels [\d.]+ s, "
                    r"(search past [\d.]+ s|the search's [\d.]+ s trial finished \d+% of it)", line(Method.AUTO))
    assert "--by-search" in line(Method.AUTO)
    assert "--by-levels" in line(Method.LEVELS)
    assert line(Method.SEARCH) is None


def test_a_count_past_2_to_the_128_comes_out_exact(tc, tmp_path):
    # 81 items, each taken by any of 3 options of its own: 3^81 > 2^128 covers; a task
    # hands on what would pass 2^128 as new subproblems, and the ledger sums them exactly
    dlx = tmp_path / "big.dlx"
    dlx.write_text(" ".join(f"i{j}" for j in range(81)) + "\n" + "".join(f"i{j}\n" * 3 for j in range(81)))
    for args in ([], ["--split-depth", "3"], ["--by-search"]):
        data = json.loads(tc("solve", str(dlx), *args, "--json", "--workers", "1").stdout)
        assert (data["status"], data["solutions"]) == ("done", 3**81), args
    # by default (the memoised search's trial ends it at once) and by levels (the residues
    # of a level count joined), past 2^128 exactly
    for args in ([], ["--by-levels"]):
        headline = tc("solve", str(dlx), "--workers", "1", "--no-progress", *args).stdout
        run_id = headline.split()[1]
        show = json.loads(tc("show", run_id, "--json").stdout)
        assert show["solutions"] == 3**81, args
    assert show["options"]["method"] == "levels" and "by levels" in headline


@pytest.mark.parametrize("stats, options, done, unit", [
    ({"by_levels": 0}, {"levels": "auto"}, 1, "nodes"),  # meant to go by levels, searched
    ({"by_levels": 1}, {"levels": "auto"}, 1, "states, by levels"),
    ({"by_levels": 64}, {"levels": True}, 64, "states, by levels"),
    ({"by_levels": 3}, {"levels": "auto"}, 5, "nodes and states (3 of 5 subproblems by levels)"),
    (None, {"levels": True}, 0, "states, by levels"),  # still running: what was meant
    ({"nodes": 7}, {}, 1, "nodes"),  # recorded before the stats said
])
def test_the_node_total_says_what_it_counts(stats, options, done, unit):
    from scheduler.cli.render import node_unit

    assert node_unit({"stats": stats, "options": options, "subproblems": {"done": done}}) == unit


def test_the_method_is_chosen_by_measuring_and_show_says_why(tc):
    data = json.loads(tc("solve", "pentomino-6x10", "--json", "--workers", "1").stdout)
    assert data["solutions"] == 9356
    shown = tc("show", str(data["run_id"])).stdout
    assert "method       kernel, " in shown and "symmetry     counted by orbits of X: 7 of its 28 options" in shown
    for flag, method in (("--by-search", "search"), ("--by-bitboard", "bitboard"), ("--by-levels", "levels")):
        data = json.loads(tc("solve", "pentomino-5x12", flag, "--json", "--workers", "1").stdout)
        show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
        assert (data["solutions"], show["options"]["method"], show["options"]["symmetry"]) == (4040, method, True)
    data = json.loads(tc("solve", "pentomino-5x12", "--no-symmetry", "--by-bitboard", "--json", "--workers", "1").stdout)
    show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
    assert data["solutions"] == 4040 and show["options"]["symmetry"] is False and "symmetry" not in show["plan"]
    assert "give one of" in tc("solve", "soma", "--by-levels", "--by-bitboard", code=2).stderr
    assert "--by-bitboard:" in tc("solve", "crossword-23", "--by-bitboard", code=2).stderr or \
        "not an option" in tc("solve", "crossword-23", "--by-bitboard", code=2).stderr
