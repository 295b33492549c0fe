"""End to end, the web page in a real headless Chromium (Selenium and chromedriver from
the system's packages): ``tilecensus web`` over a PostgreSQL ledger while a run is
going — the runs page shows its progress change without a reload, the run's page draws
its charts, a stored solution's picture opens, the problem library's boards load, a
``--census`` run's page shows its heatmaps, and the browser logs no console error."""
from __future__ import annotations

import json
import shutil
import socket
import time
import urllib.request

import pytest

from services import run_cli

pytestmark = pytest.mark.e2e

CHROMIUM, CHROMEDRIVER = shutil.which("chromium") or shutil.which("chromium-browser"), shutil.which("chromedriver")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")
if CHROMIUM is None or CHROMEDRIVER is None:
    pytest.skip("Chromium and chromedriver are not installed (apt-get install chromium chromium-driver; "
                ".ci/run installs them)", allow_module_level=True)

from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_answers(url: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.2)


def running_run(base: str, seconds: float = 60.0) -> dict:
    """The long run, once it has finished some subproblems but not all."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{base}/api/runs?status=running", timeout=5) as r:
            rows = json.load(r)
        if rows and 0 < rows[0]["progress"] < 0.9:
            return rows[0]
        time.sleep(0.3)
    raise AssertionError("the long run never showed progress")


@pytest.fixture
def browser():
    options = Options()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def test_the_page_follows_a_run_and_shows_solutions(pg_url, processes, browser):
    stored = json.loads(run_cli("solve", "pentomino-seed-5x5", "--all", "--json", "--no-progress", db_url=pg_url,
                                check=True).stdout)["run_id"]
    # a run that takes minutes (the pure-Python reference search on one worker), recording
    # a result every half second (its budget)
    processes.start("solve", "pentomino-5x12", "--engine", "reference", "--no-symmetry", "--subproblems", "50",
                    "--budget", "0.5", "--workers", "1", "--no-progress", "--no-estimate", db_url=pg_url, name="solve")
    port = free_port()
    processes.start("web", "--port", str(port), db_url=pg_url, name="web")
    base = f"http://127.0.0.1:{port}"
    wait_answers(f"{base}/api/runs")
    run = running_run(base)
    console: list[dict] = []

    browser.get(f"{base}/runs")
    row = f'tr[data-run-id="{run["run_id"]}"] .pct'
    before = browser.find_element(By.CSS_SELECTOR, row).text
    WebDriverWait(browser, 60, poll_frequency=0.5).until(
        lambda d: d.find_element(By.CSS_SELECTOR, row).text != before)
    assert browser.find_element(By.ID, "updated").text.startswith("updated")  # changed by polling, no reload
    console += browser.get_log("browser")

    browser.get(f"{base}/runs/{run['run_id']}")
    charts = browser.find_elements(By.CSS_SELECTOR, "img.chart")
    assert len(charts) == 5
    WebDriverWait(browser, 20).until(
        lambda d: all(d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", c)
                      for c in d.find_elements(By.CSS_SELECTOR, "img.chart")))
    console += browser.get_log("browser")

    browser.get(f"{base}/runs/{stored}/solutions")
    pictures = browser.find_elements(By.CSS_SELECTOR, "figure.solution img")
    assert len(pictures) == 8
    assert all(browser.execute_script("return arguments[0].naturalWidth > 0", p) for p in pictures)
    browser.find_element(By.CSS_SELECTOR, "figure.solution a").click()
    WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith(f"/runs/{stored}/solutions/0.svg"))
    assert browser.find_elements(By.CSS_SELECTOR, "svg rect")  # the picture itself, drawn
    console += browser.get_log("browser")

    browser.get(f"{base}/problems")
    # the boards load lazily, as they come near the view: each is scrolled to (a jump to
    # the bottom left those in the middle unrequested in one CI run of three)
    for img in browser.find_elements(By.CSS_SELECTOR, "figure.problem img"):
        browser.execute_script("arguments[0].scrollIntoView()", img)
    WebDriverWait(browser, 20).until(
        lambda d: all(d.execute_script("return arguments[0].complete", img)
                      for img in d.find_elements(By.CSS_SELECTOR, "figure.problem img")))
    console += browser.get_log("browser")

    errors = [entry for entry in console if entry["level"] == "SEVERE"]
    assert errors == [], errors
    run_cli("cancel", str(run["run_id"]), db_url=pg_url, check=True)


def test_the_page_draws_triangle_and_hexagon_boards(pg_url, processes, browser):
    """Solutions on the triangle and hexagon lattices open as pictures of polygons."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples"
    runs = {name: json.loads(run_cli("solve", str(examples / name), "--first", "2", "--json", "--no-progress",
                                     db_url=pg_url, check=True).stdout)["run_id"]
            for name in ("polyform-hexiamonds-6x6.toml", "polyform-trihexes-ring.toml")}
    port = free_port()
    processes.start("web", "--port", str(port), db_url=pg_url, name="web")
    base = f"http://127.0.0.1:{port}"
    wait_answers(f"{base}/api/runs")
    console: list[dict] = []
    for name, cells in (("polyform-hexiamonds-6x6.toml", 72), ("polyform-trihexes-ring.toml", 18)):
        run_id = runs[name]
        browser.get(f"{base}/runs/{run_id}/solutions")
        pictures = browser.find_elements(By.CSS_SELECTOR, "figure.solution img")
        assert len(pictures) == 2
        WebDriverWait(browser, 10).until(
            lambda d: all(d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", p)
                          for p in d.find_elements(By.CSS_SELECTOR, "figure.solution img")))
        browser.find_element(By.CSS_SELECTOR, "figure.solution a").click()
        WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith(f"/runs/{run_id}/solutions/0.svg"))
        assert len(browser.find_elements(By.CSS_SELECTOR, "svg polygon")) == cells  # a polygon per cell
        assert not browser.find_elements(By.CSS_SELECTOR, "svg rect")
        console += browser.get_log("browser")
    errors = [entry for entry in console if entry["level"] == "SEVERE"]
    assert errors == [], errors


def test_the_run_page_draws_the_census_as_heatmaps(pg_url, processes, browser):
    """A --census run's page: a heatmap per piece (squares, a box's layers, hexagons), each
    image loaded, its cells drawn with their numbers; no console error."""
    runs = {name: json.loads(run_cli("solve", name, "--census", "--json", "--no-progress", db_url=pg_url,
                                     check=True).stdout)["run_id"]
            for name in ("pentomino-3x20", "tetracubes-2x2x8", "tetrahexes-4x7")}
    port = free_port()
    processes.start("web", "--port", str(port), db_url=pg_url, name="web")
    base = f"http://127.0.0.1:{port}"
    wait_answers(f"{base}/api/runs")
    console: list[dict] = []
    for name, pieces, cells, shape in (("pentomino-3x20", 12, 60, "rect"), ("tetracubes-2x2x8", 8, 32, "rect"),
                                       ("tetrahexes-4x7", 7, 28, "polygon")):
        run_id = runs[name]
        with urllib.request.urlopen(f"{base}/api/runs/{run_id}/census", timeout=10) as r:
            census = json.load(r)
        assert len(census["pieces"]) == pieces and len(census["board"]["cells"]) == cells
        browser.get(f"{base}/runs/{run_id}")
        heatmaps = browser.find_elements(By.CSS_SELECTOR, "figure.heat img")
        assert len(heatmaps) == pieces
        WebDriverWait(browser, 20).until(
            lambda d: all(d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img)
                          for img in d.find_elements(By.CSS_SELECTOR, "figure.heat img")))
        # the first heatmap opened alone, as the browser draws it: a shape and a number per cell
        browser.get(browser.find_element(By.CSS_SELECTOR, "figure.heat img").get_attribute("src"))
        drawn = browser.find_elements(By.CSS_SELECTOR, f"svg {shape} title")
        assert len(drawn) == cells
        numbers = {t.get_attribute("textContent").split(":")[0]: int(t.get_attribute("textContent").split(": ")[1]
                                                                        .split(" of ")[0].replace(",", ""))
                   for t in drawn}
        first = census["pieces"][0]["heat"]
        assert numbers == {c["cell"]: n for c, n in zip(census["board"]["cells"], first)}
        console += browser.get_log("browser")
    errors = [entry for entry in console if entry["level"] == "SEVERE"]
    assert errors == [], errors
