"""The commands and examples in README.md and docs/*.md still run as shown.

The convention (docs/cli.md, "How the examples in these pages are checked", says the
same for writers):

* In any fenced block, a line that starts with ``$ `` is a command.  Its ``tilecensus``
  part (from the word ``tilecensus`` or ``.venv/bin/tilecensus`` to the first ``|``,
  ``;``, ``&&``, ``&``, ``>`` or ``#``) is **parsed** with click: the group's context,
  then the subcommand's (and a subgroup's), so an unknown command or option, or a bad value,
  fails — unless the page shows that very error under it.
* Blocks fenced as ```` ```console ```` are also **run**, in the order of the file,
  in-process (click's ``CliRunner``) against one fresh SQLite ledger per file
  (``TILECENSUS_DB_URL``), so ``show 2`` means the second run the file's commands made.
  Not run: a block whose fence follows a line ``<!-- parse-only -->`` (blank lines may
  stand between), and a command that does not start its line (an environment
  assignment, ``docker compose run ...``, the tail of a ``&&`` chain).
* A command that runs must exit 0, or 2 where the output shown under it starts with
  ``tilecensus:`` (errors are one line), or N where the output shows a line ``exit N``.
  Where the output shows a run's headline (``run 3 soma: 11,520 solutions (...)``), the
  real headline must read the same up to the parenthesis: the run number, the problem and
  the counts (times and node counts may differ from day to day).
* Every example path (``examples/...``, ``bench/problems/...``) exists and loads with
  :func:`core.library.load`; a ``.txt`` file with the ``--kind`` on its line, else the
  kind its name starts with (``sudoku-9x9-seed.txt``: sudoku).  Every repository path in
  backticks (``core/...``, ``scheduler/...``, ``tests/...``, ...) exists.
* Every relative link between the pages points to a file that exists, and to a heading
  of it where it names one (``cli.md#solve``).
"""
from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from scheduler.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PARSE_ONLY = "<!-- parse-only -->"
#: a command that runs longer than this is too slow for this test: mark its block parse-only
CHEAP_SECONDS = 10.0

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
SHELL_END = re.compile(r";|\s(?:\||&&|&|>|2>|#)")
HEADLINE = re.compile(r"^run \d+ \S+: .*?(?= \(|$)")
EXIT_SHOWN = re.compile(r"^exit (\d+)$")


@dataclass
class Command:
    page: Path
    line: int
    text: str  # the whole line after "$ "
    args: list[str]  # the tilecensus arguments
    runs: bool  # run in-process (else parsed only)
    shown: list[str] = field(default_factory=list)  # the output the page shows under it

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    def expected_exit(self) -> int:
        for line in self.shown:
            m = EXIT_SHOWN.match(line.strip())
            if m:
                return int(m.group(1))
        if any(line.startswith("tilecensus: ") for line in self.shown):
            return 2
        return 0


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    parse_only: bool
    lines: list[str]


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, with the fence's language and marker."""
    out: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(2), m.group(3)
        before = [s.strip() for s in lines[:i] if s.strip()]
        marker = bool(before) and before[-1] == PARSE_ONLY
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        out.append(Block(page, i + 1, lang, marker, lines[i + 1:j]))
        i = j + 1
    return out


def tilecensus_args(text: str) -> tuple[list[str], bool] | None:
    """The tilecensus arguments of a command line, and whether the command starts it."""
    words = text.split()
    for k, word in enumerate(words):
        if word == "tilecensus" or word.endswith("/tilecensus"):
            rest = " ".join(words[k + 1:])
            m = SHELL_END.search(" " + rest)
            if m:
                rest = (" " + rest)[:m.start()]
            return shlex.split(rest), k == 0
    return None


def commands(page: Path) -> list[Command]:
    out: list[Command] = []
    for block in blocks(page):
        current: Command | None = None
        for n, line in enumerate(block.lines, block.line + 1):
            if line.startswith("$ "):
                current = None
                found = tilecensus_args(line[2:])
                if found is None:
                    continue
                args, leads = found
                runs = block.lang == "console" and not block.parse_only and leads
                current = Command(page, n, line[2:], args, runs)
                out.append(current)
            elif current is not None:
                current.shown.append(line)
    return out


ALL_COMMANDS = [c for page in PAGES for c in commands(page)]


def parse(args: list[str]) -> None:
    """Parse a command line as click would, down to the last subcommand; raises on an
    unknown command or option or a bad value."""
    command: click.Command = cli
    ctx = command.make_context("tilecensus", list(args))
    while isinstance(command, click.Group):
        leading = ctx.__dict__.get("_protected_args")
        rest = [*(leading if leading is not None else ctx.protected_args), *ctx.args]
        if not rest:
            raise click.UsageError("no command", ctx)
        name, sub, rest = command.resolve_command(ctx, rest)
        assert sub is not None, name
        command, ctx = sub, sub.make_context(name, rest, parent=ctx)


def test_the_pages_show_commands():
    assert {c.page.name for c in ALL_COMMANDS} >= {"README.md", "cli.md"}
    assert sum(c.runs for c in ALL_COMMANDS) >= 20


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: f"{c.where} {c.text}")
def test_command_parses(command: Command):
    try:
        parse(command.args)
    except click.exceptions.Exit as exc:  # --help, --version
        assert exc.exit_code == 0, command.where
    except click.ClickException as exc:
        if exc.format_message() in "\n".join(command.shown):  # the page shows this very error
            return
        pytest.fail(f"{command.where}: `{command.text}` does not parse: {exc.format_message()}")


@pytest.mark.parametrize("page", [p for p in PAGES if any(c.runs for c in commands(p))],
                         ids=lambda p: p.name)
def test_commands_run_as_shown(page: Path, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    env = {"TILECENSUS_DB_URL": f"sqlite:///{tmp_path / 'ledger.sqlite'}", "TILECENSUS_PLUGINS": ""}
    runner = CliRunner()
    for command in (c for c in commands(page) if c.runs):
        started = time.monotonic()
        result = runner.invoke(cli, command.args, env=env)
        took = time.monotonic() - started
        output = result.output  # stdout and stderr as a terminal shows them
        assert result.exit_code == command.expected_exit(), (
            f"{command.where}: `{command.text}` exited {result.exit_code}, the page shows "
            f"{command.expected_exit()}:\n{output}\n{result.exception!r}")
        assert took < CHEAP_SECONDS, f"{command.where}: `{command.text}` took {took:.1f} s: mark it parse-only"
        shown = [m.group(0) for line in command.shown if (m := HEADLINE.match(line))]
        real = [m.group(0) for line in result.stdout.splitlines() if (m := HEADLINE.match(line))]
        if shown:
            assert real[-1:] == shown[-1:], f"{command.where}: `{command.text}` printed\n{output}"


# ---------------------------------------------------------------------------- files and links
EXAMPLE_PATH = re.compile(r"(?<![\w/.-])((?:examples|bench/problems)/[\w.-]+\.(?:dlx|toml|txt))")
REPO_PATH = re.compile(r"`((?:core|scheduler|worker|bench|tests|migrations|examples|docs|\.ci)/[\w./-]*)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _example_paths() -> list[tuple[str, str, str | None]]:
    found: dict[tuple[str, str | None], str] = {}
    for page in PAGES:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for path in EXAMPLE_PATH.findall(line):
                kind = None
                if path.endswith(".txt"):
                    m = re.search(r"--kind[ =](\w+)", line)
                    kind = m.group(1) if m else Path(path).name.split("-")[0]
                found.setdefault((path, kind), f"{page.name}:{n}")
    return [(where, path, kind) for (path, kind), where in sorted(found.items(), key=lambda x: x[0][0])]


@pytest.mark.parametrize("where, path, kind", _example_paths(), ids=lambda v: str(v))
def test_example_files_load(where: str, path: str, kind: str | None):
    from core.library import load

    assert (ROOT / path).is_file(), f"{where}: {path} does not exist"
    problem = load(str(ROOT / path), kind)
    assert problem.kind


def test_repository_paths_exist():
    missing = []
    for page in PAGES:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for path in REPO_PATH.findall(line):
                if "*" not in path and "..." not in path and not (ROOT / path).exists():
                    missing.append(f"{page.name}:{n}: {path}")
    assert not missing, "\n".join(missing)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    in_fence = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        m = re.match(r"^#{1,6}\s+(.*)", line)
        if m and not in_fence:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    return out


def test_relative_links_resolve():
    broken = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (page.parent / file).resolve() if file else page
            if not dest.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in PAGES[1:]:
        assert f"docs/{page.name}" in readme, f"README.md does not link docs/{page.name}"
