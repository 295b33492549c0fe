"""Published crossword files on the command line: ``solve FILE`` (no --kind) rebuilds every
grid with the file's numbering and says whether the file's own grid is among them;
``solutions --json`` gives each grid as rows of ``#`` and ``.``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FILES = Path(__file__).resolve().parents[1] / "core" / "data" / "crossword" / "files"
#: file -> grids with its numbering, its rules and its strongest symmetry (rotational)
GRIDS = {"nyt-1976-01-01.json": 1, "nyt-1976-01-01.puz": 1, "example_v2.ipuz": 7, "nyt1955-01-01.xd": 1}


@pytest.mark.parametrize("name", list(GRIDS))
def test_solve_a_file_says_its_grid_is_found(tc, name):
    path = str(FILES / name)
    data = json.loads(tc("solve", path, "--json", "--workers", "1").stdout)
    assert (data["status"], data["solutions"], data["given_found"]) == ("done", GRIDS[name], True)
    listed = json.loads(tc("solve", path, "--all", "--json", "--workers", "1").stdout)
    assert listed["given_found"] is True and len(listed["listing"]) == GRIDS[name]
    line = tc("solve", path, "--workers", "1").stdout.strip().splitlines()[-1]
    assert line.endswith("— done; the file's own grid is among them")
    show = tc("show", str(listed["run_id"]), "--json").stdout
    assert json.loads(show)["given_found"] is True and json.loads(show)["summary"]["given_found"] is True
    assert "— done; the file's own grid is among them" in tc("show", str(data["run_id"])).stdout


def test_first_n_says_whether_the_grid_is_among_those_listed(tc):
    path = str(FILES / "example_v2.ipuz")
    found = [json.loads(tc("solve", path, "--first", str(n), "--json", "--workers", "1").stdout)["given_found"]
             for n in range(1, 8)]
    # the grids are listed one by one: once the file's grid is among them, it stays
    assert found[-1] is True and found == sorted(found)


def test_solutions_json_gives_grids_as_rows(tc):
    path = FILES / "nyt1955-01-01.xd"
    run_id = json.loads(tc("solve", str(path), "--all", "--json", "--workers", "1").stdout)["run_id"]
    [entry] = json.loads(tc("solutions", str(run_id), "--json").stdout)
    rows = [line for line in path.read_text().split("\n\n\n")[1].splitlines() if line]
    assert entry["grid"] == ["".join("#" if ch == "#" else "." for ch in row) for row in rows]
    # the text picture: every square 3 wide (a 15x15 grid's numbers go up to 225), one space apart
    assert {len(line) for line in entry["text"].splitlines()} == {15 * 4 - 1}


def test_a_puz_file_from_standard_input_end_to_end(tmp_path):
    """The installed command, a binary .puz piped in, its run in a fresh SQLite ledger."""
    env = dict(os.environ, TILECENSUS_DB_URL=f"sqlite:///{tmp_path / 'ledger.db'}")
    out = subprocess.run([sys.executable, "-m", "scheduler", "solve", "-", "--json", "--workers", "1"],
                         input=(FILES / "nyt-1976-01-01.puz").read_bytes(), capture_output=True, env=env,
                         timeout=120, check=True)
    data = json.loads(out.stdout)
    assert (data["problem"], data["solutions"], data["given_found"]) == ("<stdin>", 1, True)


def test_a_bad_file_is_one_line_and_exit_2(tc, tmp_path):
    bad = tmp_path / "bad.puz"
    bad.write_bytes((FILES / "nyt-1976-01-01.puz").read_bytes()[:40])
    out = tc("solve", str(bad), code=2).output.strip()
    assert out.endswith("bad.puz: bad .puz file: it ends inside its header or an extension") and "\n" not in out
