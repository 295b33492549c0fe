"""``tilecensus web``, through Starlette's test client: every page and API route, the API
equal to the ``--json`` outputs, escaping, the token rule, read-only access, paging on a
large ledger; the charts as SVG text."""
from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import select, text, update
from sqlalchemy.exc import OperationalError
from starlette.testclient import TestClient

from scheduler.cli.web import is_loopback
from scheduler.codec import unpack
from scheduler.db import open_ledger, open_reader
from scheduler.ledger.results import insert_solutions
from scheduler.models import Run, Solution
from scheduler.web import charts, create_app
from scheduler.web.reading import PAGE_SIZE
from tc_helpers import make_run

HOSTILE = '<script>alert("x")</script>&<b>'


@pytest.fixture
def ledger_runs(tc, sqlite_url):
    """A ledger with a stored enumeration (1), a crossword enumeration (2), a split count
    (3), a sudoku --first (4) and a planned run still running (5)."""
    def solve(*args: str) -> int:
        return json.loads(tc("solve", *args, "--json", "--no-progress", "--workers", "1").stdout)["run_id"]

    ids = [solve("pentomino-seed-5x5", "--all"), solve("crossword-39", "--all"),
           solve("dominoes-4x5", "--subproblems", "20"), solve("sudoku-4x4", "--first", "30")]
    ids.append(make_run(open_ledger(sqlite_url), "dominoes-4x5", depth=2))
    return ids


@pytest.fixture
def client(ledger_runs, sqlite_url):
    return TestClient(create_app(open_reader(sqlite_url)))


def _routes(ids: list[int]) -> list[tuple[str, str]]:
    enum, cross, count, first, running = ids
    return [
        ("/", "Runs"), ("/runs?status=done&problem=pent", "pentomino-seed-5x5"),
        (f"/runs/{enum}", 'data-field="solutions">8<'), (f"/runs/{cross}", "What every stored solution agrees on"),
        (f"/runs/{count}", "slowest subproblems"), (f"/runs/{running}", 'data-status="running"'),
        (f"/runs/{enum}/solutions", "solution 8"), (f"/runs/{cross}/solutions?page=3", "solution 55"),
        (f"/runs/{enum}/solutions/0.svg", "<svg"), (f"/runs/{enum}/solutions.json", '"index": 0'),
        (f"/runs/{enum}/solutions.csv", "index,subproblem,options,text"),
        (f"/runs/{count}/charts/progress.svg", "share of the tree finished"),
        (f"/runs/{count}/charts/rate.svg", "nodes per second"),
        (f"/runs/{count}/charts/sizes.svg", "subproblems by size"),
        (f"/runs/{count}/charts/slowest.svg", "slowest subproblems"),
        (f"/runs/{count}/charts/estimate.svg", "estimate"),
        ("/problems", 'src="/problems/pentomino-6x10.svg"'), ("/problems/pentomino-6x10.svg", "<svg"),
        ("/problems/crossword-39.svg", "every square to be decided"),
        ("/problems/sudoku-9x9-seed.svg", 'font-weight="bold"'),  # the givens
        ("/api/runs", '"run_id"'), (f"/api/runs/{enum}", '"stored_solutions"'),
        (f"/api/runs/{count}/series", '"timeline"'), (f"/api/runs/{enum}/solutions", '"text"'),
        ("/api/problems", '"patterns"'), ("/static/app.js", "fetch("), ("/static/style.css", "body"),
    ]


def test_every_page_and_api_route_answers(client, ledger_runs):
    for url, needle in _routes(ledger_runs):
        r = client.get(url)
        assert r.status_code == 200, (url, r.text[:300])
        assert needle in r.text, (url, needle)
        assert "script-src 'self'" in r.headers["content-security-policy"] or url.endswith(".svg"), url
    svg = client.get(f"/runs/{ledger_runs[0]}/solutions/0.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert "script" not in svg.headers["content-security-policy"]  # a picture alone runs no script


def test_errors_are_one_line_and_a_status(client, ledger_runs):
    enum = ledger_runs[0]
    for url, status, needle in [
        ("/runs/999", 404, "no run 999"), ("/api/runs/999", 404, "no run 999"),
        ("/runs?status=bogus", 400, "status must be one of"), (f"/runs/{enum}/solutions?page=x", 400, "page must be"),
        (f"/runs/{enum}/solutions?page=9", 404, "1 page(s)"), (f"/runs/{enum}/solutions/99.svg", 404, "no stored"),
        (f"/runs/{enum}/solutions.xml", 404, ".json or .csv"), (f"/runs/{enum}/charts/pie.svg", 404, "no chart"),
        ("/api/runs?limit=0", 400, "limit must be"), ("/problems/nothing.svg", 404, "no picture"),
    ]:
        r = client.get(url)
        assert r.status_code == status, (url, r.status_code)
        assert needle in r.text, (url, r.text[:300])
        assert "Traceback" not in r.text
    assert client.get("/api/runs/999").json() == {"error": "no run 999 in the ledger"}


def test_the_api_equals_the_cli_json(client, tc, ledger_runs):
    enum, cross, count, _, _ = ledger_runs
    api_runs = client.get("/api/runs").json()
    assert all("eta_seconds" in r for r in api_runs)
    cli_runs = json.loads(tc("runs", "--json").stdout)
    volatile = {"eta_seconds", "seconds"}  # the running run's clock moves between the two reads
    assert [{k: v for k, v in r.items() if k not in volatile} for r in api_runs] == \
        [{k: v for k, v in r.items() if k not in volatile} for r in cli_runs]
    for run_id in (enum, cross, count):
        shown = client.get(f"/api/runs/{run_id}").json()
        assert shown.pop("eta_seconds") == 0.0
        cli_shown = json.loads(tc("show", str(run_id), "--json").stdout)
        assert cli_shown.pop("ledger")  # the CLI names its ledger; the page never shows its URL (a password)
        assert shown == cli_shown
    page = client.get(f"/api/runs/{cross}/solutions?offset=7&limit=5")
    assert page.json() == json.loads(tc("solutions", str(cross), "--json", "--offset", "7", "--limit", "5").stdout)
    assert page.headers["x-total-count"] == "55"
    assert client.get("/api/problems").json() == json.loads(tc("problems", "--json").stdout)


def test_runs_filter_by_status_and_problem(client, ledger_runs):
    running = ledger_runs[4]
    rows = client.get("/api/runs?status=running").json()
    assert [r["run_id"] for r in rows] == [running] and rows[0]["status"] == "running"
    assert {r["problem"] for r in client.get("/api/runs?problem=domino").json()} == {"dominoes-4x5"}
    page = client.get("/runs?problem=crossword").text
    assert "crossword-39" in page and "pentomino-seed-5x5" not in page
    assert client.get("/api/runs?problem=%25").json() == []  # a LIKE wildcard is taken literally


def test_every_value_shown_is_escaped(client, ledger_runs, sqlite_url):
    enum = ledger_runs[0]
    with open_ledger(sqlite_url).session() as s:
        s.execute(update(Run).where(Run.id == enum).values(name=HOSTILE, error=HOSTILE, status="failed"))
    for url in ("/runs", f"/runs/{enum}", f"/runs?problem={HOSTILE}", f"/runs?status={HOSTILE}"):
        page = client.get(url).text
        assert HOSTILE not in page, url
        assert "&lt;script&gt;alert(" in page, url
    assert client.get("/api/runs").json()[-1]["problem"] == HOSTILE  # JSON carries it as data


def test_pictures_go_in_as_images_only(client, ledger_runs):
    """A model's SVG is never inline in the HTML (an <img> runs no script)."""
    for url in (f"/runs/{ledger_runs[0]}/solutions", f"/runs/{ledger_runs[1]}"):
        page = client.get(url).text
        assert "<svg" not in page and 'src="data:image/svg+xml;base64,' in page, url


def test_every_board_shown_is_there(client):
    """The library page shows an image only where the model draws one (a sudoku cube has
    none), and each one loads."""
    page = client.get("/problems").text
    boards = re.findall(r'src="(/problems/[^"]+\.svg)"', page)
    assert "sudoku-cube-k2n3-seed" in page and "/problems/sudoku-cube-k2n3-seed.svg" not in boards
    assert len(boards) > 20 and all(client.get(b).status_code == 200 for b in boards)


def test_a_database_that_stops_answering_is_a_503(ledger_runs, sqlite_url, tmp_path):
    reader = open_reader(sqlite_url)
    c = TestClient(create_app(reader))
    assert c.get("/api/runs").status_code == 200
    reader.engine.dispose()
    (tmp_path / "ledger.sqlite").rename(tmp_path / "gone.sqlite")
    (tmp_path / "ledger.sqlite").mkdir()  # the path now names a directory: SQLite cannot open it
    r = c.get("/api/runs")
    assert r.status_code == 503 and r.json()["error"].startswith("the database stopped answering: ")


def test_the_token_rule(ledger_runs, sqlite_url):
    c = TestClient(create_app(open_reader(sqlite_url), token="s3cret"))
    assert c.get("/runs").status_code == 401
    assert c.get("/api/runs", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert c.get("/api/runs", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    first = c.get("/runs?token=s3cret")
    assert first.status_code == 200 and "httponly" in first.headers["set-cookie"].lower()
    assert c.get("/api/runs").status_code == 200  # the cookie carries it from now on
    c.cookies.clear()
    assert c.get(f"/runs/{ledger_runs[0]}/solutions/0.svg").status_code == 401


def test_web_binds_beyond_loopback_only_with_a_token(tc, monkeypatch):
    monkeypatch.delenv("TILECENSUS_WEB_TOKEN", raising=False)
    out = tc("web", "--host", "0.0.0.0", code=2)
    assert "TILECENSUS_WEB_TOKEN" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    missing = tc("web", "--db", "sqlite:////nonexistent/ledger.sqlite", code=2).stderr
    assert "no ledger file" in missing and len(missing.strip().splitlines()) == 1
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")


def test_the_reader_never_writes(any_url, tc, monkeypatch):
    monkeypatch.setenv("TILECENSUS_DB_URL", any_url)
    tc("solve", "pentomino-seed-5x5", "--all", "--no-progress", "--workers", "1")
    reader = open_reader(any_url)
    with pytest.raises(OperationalError if any_url.startswith("sqlite") else Exception, match="read"):
        with reader.session() as s:
            s.execute(update(Run).values(name="changed"))
    c = TestClient(create_app(reader))
    assert c.post("/runs").status_code == 405 and c.delete("/api/runs/1").status_code == 405
    assert c.get("/runs/1").status_code == 200
    with open_ledger(any_url).session() as s:
        assert s.scalar(select(Run.name)) == "pentomino-seed-5x5"


def test_the_reader_needs_an_existing_upgraded_ledger(tmp_path, sqlite_url, tc):
    from scheduler.errors import LedgerError

    with pytest.raises(LedgerError, match="no ledger file"):
        open_reader(f"sqlite:///{tmp_path / 'none.sqlite'}")
    assert not (tmp_path / "none.sqlite").exists()
    open_ledger(sqlite_url)  # creates and migrates the ledger
    with open_ledger(sqlite_url).session() as s:
        s.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    with pytest.raises(LedgerError, match="db upgrade"):
        open_reader(sqlite_url)


def test_paging_a_large_ledger(tc, sqlite_url):
    """20,000 stored solutions: each page is its own slice, read through the index."""
    run_id = json.loads(tc("solve", "pentomino-seed-5x5", "--all", "--json", "--no-progress").stdout)["run_id"]
    ledger = open_ledger(sqlite_url)
    with ledger.session() as s:
        sub, = s.execute(select(Solution.subproblem_id).where(Solution.run_id == run_id).limit(1)).one()
        eight = [unpack(o) for o in s.scalars(select(Solution.options).order_by(Solution.id))]
    with ledger.engine.begin() as conn:
        insert_solutions(conn, run_id, sub, [eight[i % 8] for i in range(20_000 - 8)])
    c = TestClient(create_app(open_reader(sqlite_url)))
    pages = (20_000 + PAGE_SIZE - 1) // PAGE_SIZE
    deep = pages // 2
    html = c.get(f"/runs/{run_id}/solutions?page={deep}").text
    assert f"page {deep} of {pages}" in html
    first_index = (deep - 1) * PAGE_SIZE
    assert re.findall(r"solution (\d+) ·", html) == [str(i + 1) for i in range(first_index, first_index + PAGE_SIZE)]
    last = c.get(f"/runs/{run_id}/solutions.json?page={pages}").json()
    assert [r["index"] for r in last] == list(range((pages - 1) * PAGE_SIZE, 20_000))
    assert c.get(f"/runs/{run_id}/solutions?page={pages + 1}").status_code == 404
    with ledger.engine.connect() as conn:  # what a page reads: the index, never the whole table
        for sql, how in (("SELECT id FROM solutions WHERE run_id = 1 ORDER BY id LIMIT 1 OFFSET 9000", "COVERING INDEX"),
                         ("SELECT count(*) FROM solutions WHERE run_id = 1", "COVERING INDEX"),
                         ("SELECT id, subproblem_id, options FROM solutions WHERE run_id = 1 AND id > 9000 "
                          "ORDER BY id LIMIT 24", "INDEX")):
            plan = " ".join(str(r[-1]) for r in conn.exec_driver_sql("EXPLAIN QUERY PLAN " + sql))
            assert f"{how} ix_solutions_run_id" in plan, plan


def test_charts_escape_their_labels_and_say_when_empty():
    svg = charts.bar_chart([(HOSTILE, 3.0)], title=HOSTILE, unit="s")
    assert HOSTILE not in svg and "&lt;script&gt;" in svg
    assert "not enough finished subproblems" in charts.line_chart([(0, 0)], title="t", x_label="x", y_label="y")
    line = charts.line_chart([(0, 0), (1, 0.5), (2, 1.0)], title="p", x_label="s", y_label="p", y_max=1.0)
    assert line.count("<polyline") == 1 and line.startswith("<svg")
    grid = charts.summary_grid("#.?\n?.#", title="two rows")
    assert grid.count('fill="#000000"') == 2 and grid.count('fill="#f2c94c"') == 2
    assert [charts.number_text(v) for v in (1_500_000, 999.6, 0.25)] == ["1.5M", "1000", "0.25"]
    band = charts.estimate_chart(low=800.0, estimate=1000.0, high=1300.0, found=1100.0, unit="nodes")
    assert "estimate 1k nodes" in band and "searched 1.1k nodes" in band and "95% band 800..1.3k" in band


def test_the_series_add_up_to_the_run(client, ledger_runs):
    """The charts' data: the timeline ends at the run's totals, the sizes count every
    finished subproblem."""
    count = ledger_runs[2]
    series = client.get(f"/api/runs/{count}/series").json()
    shown = client.get(f"/api/runs/{count}").json()
    last = series["timeline"][-1]
    assert last["progress"] == pytest.approx(1.0) and last["nodes"] == shown["nodes"]
    assert last["solutions"] == shown["solutions"]
    seconds = [p["seconds"] for p in series["timeline"]]
    assert seconds == sorted(seconds) and len(seconds) <= 121
    assert sum(b["subproblems"] for b in series["sizes"]) == shown["subproblem_states"]["done"]
    assert all(b["low"] <= b["high"] for b in series["sizes"])
    running = client.get(f"/api/runs/{ledger_runs[4]}/series").json()
    assert running["timeline"] == [{"seconds": 0.0, "progress": 0.0, "nodes": 0, "solutions": 0,
                                    "nodes_per_second": None}] and running["sizes"] == []


@pytest.fixture
def census_runs(tc):
    """``--census`` runs on a square board, a box, hexagons, a sudoku; a count without one."""
    def solve(*args: str) -> int:
        return json.loads(tc("solve", *args, "--json", "--no-progress", "--workers", "1").stdout)["run_id"]

    names = ["pentomino-3x20", "tetracubes-2x2x8", "tetrahexes-4x7", "sudoku-4x4"]
    return {**{name: solve(name, "--census") for name in names}, "plain": solve("pentomino-3x20")}


def _heatmaps(page: str) -> list[str]:
    """The SVG of each heatmap on a run's page (images as data: URIs, never inline)."""
    import base64

    assert "<svg" not in page
    pictures = re.findall(r'<figure class="heat"><img alt="[^"]*" src="data:image/svg\+xml;base64,([^"]+)"', page)
    return [base64.b64decode(p).decode() for p in pictures]


@pytest.mark.parametrize("name, shape", [("pentomino-3x20", "rect"), ("tetracubes-2x2x8", "rect"),
                                         ("tetrahexes-4x7", "polygon")])
def test_the_run_page_draws_a_heatmap_per_piece_with_the_census_numbers(tc, sqlite_url, census_runs, name, shape):
    run_id = census_runs[name]
    shown = json.loads(tc("census", str(run_id), "--json").stdout)
    client = TestClient(create_app(open_reader(sqlite_url)))
    pictures = _heatmaps(client.get(f"/runs/{run_id}").text)
    assert len(pictures) == len(shown["pieces"])
    cells = [c["cell"] for c in shown["board"]["cells"]]
    for svg, piece in zip(pictures, shown["pieces"]):
        assert svg.startswith("<svg") and piece["name"] in svg
        drawn = dict(re.findall(rf'<{shape} [^>]*><title>(\w+): ([\d,]+) of [\d,]+</title>', svg))
        assert {c: int(n.replace(",", "")) for c, n in drawn.items()} == dict(zip(cells, piece["heat"]))
    if shape == "polygon":
        assert "<rect" not in pictures[0]
    if name == "tetracubes-2x2x8":
        assert "layer 0" in pictures[0] and "layer 1" in pictures[0]


def test_the_census_api_is_the_cli_s_json_and_other_models_get_no_heatmap(tc, sqlite_url, census_runs):
    client = TestClient(create_app(open_reader(sqlite_url)))
    for name in ("pentomino-3x20", "sudoku-4x4"):
        run_id = census_runs[name]
        assert client.get(f"/api/runs/{run_id}/census").json() == json.loads(tc("census", str(run_id), "--json").stdout)
    one = client.get(f"/api/runs/{census_runs['pentomino-3x20']}/census?piece=X").json()
    assert [p["name"] for p in one["pieces"]] == ["X"]
    sudoku = client.get(f"/runs/{census_runs['sudoku-4x4']}").text
    assert "Census of the 288 solutions" in sudoku and _heatmaps(sudoku) == []
    plain = client.get(f"/api/runs/{census_runs['plain']}/census")
    assert plain.status_code == 404 and "without --census" in plain.json()["error"]
    assert "Census of" not in client.get(f"/runs/{census_runs['plain']}").text
