"""BurrTools' command-line solver beside tilecensus on three packing problems, whole
commands as the user waits, one core each.  By hand, never in CI:

    .venv/bin/python bench/bench_burrtools.py --write-puzzles /tmp/bt/puzzles
    .venv/bin/python bench/bench_burrtools.py --burrtxt /tmp/burrtools/build/burrTxt --puzzles /tmp/bt/puzzles
    .venv/bin/python bench/bench_burrtools.py --burrtxt ... --puzzles ... --repeat 5 --only pentomino-6x10

BurrTools (GPL, https://github.com/burr-tools/burr-tools) is not part of this project:
build it outside the checkout.  On Debian 12, from a checkout of its source:

    apt-get install meson ninja-build build-essential libgl-dev libglu1-mesa-dev \\
        freeglut3-dev libfltk1.3-dev libpng-dev zlib1g-dev
    meson setup build --buildtype=release && ninja -C build burrTxt

(its meson.build asks for the GUI's libraries even when only ``burrTxt`` is built; Boost,
which its BUILD.md lists, is used only by its unit tests).

``--write-puzzles DIR`` writes the three puzzles as BurrTools files (gzipped XML, as the
program saves them), made here from the pentomino shapes:

* ``pentomino-8x8-centre.xmpuzzle``: the 12 pentominoes in an 8x8 square less its
  central 2x2, one layer thick;
* ``pentomino-6x10.xmpuzzle``: the 12 pentominoes in a 6x10 rectangle, one layer thick;
* ``pentacubes-3x4x5.xmpuzzle``: the 12 flat pentacubes in a 3x4x5 box.

The pieces are solids on the cube grid, each used once, so BurrTools turns them in three
dimensions and a flat piece's mirror image is one of its rotations.

For each problem, in turn (A B A B ..., after one unmeasured run of each, so that a
drifting machine moves both alike): ``burrTxt -q -r FILE`` and ``tilecensus solve NAME
--distinct --workers 1 --no-progress`` on a SQLite ledger that exists, the least wall
time of each (and the least CPU time, user and system), their ratio, and the load
average when the problem's runs ended.  ``-q`` prints only the count; ``-r`` reduces the
placements before the search, as BurrTools' own window does by default (on 6x10 it saves
about 7%; on the pentacubes it removes nothing).

``burrTxt`` drops the solutions that a symmetry of the box maps onto one already found
(it keeps neither rotations nor mirror images), so the number of assemblies it prints is
the distinct count, checked here, as tilecensus's counts are, against the published
values (``tilecensus problems``): a fast wrong answer, or a wrong puzzle file, fails the
benchmark.  BurrTools has no total count to set beside tilecensus's: its symmetry breaker
fixes one piece's placements before the search whatever the flags (``burrTxt2 -r -m``
still finds 65 and 2,339).  ``burrTxt2`` is no use for timing either: it polls its
standard input once a second and stops at end of file.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TILECENSUS = str(Path(sys.executable).parent / "tilecensus")

#: the twelve pentominoes, rows from the top; '#' a cell
PENTOMINOES: dict[str, list[str]] = {
    "F": [".##", "##.", ".#."],
    "I": ["#####"],
    "L": ["####", "#..."],
    "N": ["##..", ".###"],
    "P": ["##", "##", "#."],
    "T": ["###", ".#.", ".#."],
    "U": ["#.#", "###"],
    "V": ["#..", "#..", "###"],
    "W": ["#..", "##.", ".##"],
    "X": [".#.", "###", ".#."],
    "Y": ["####", ".#.."],
    "Z": ["##.", ".#.", ".##"],
}

#: problem name (tilecensus's library): the box, (x, y, z) and the cells left out of it
PUZZLES: dict[str, tuple[tuple[int, int, int], set[tuple[int, int, int]]]] = {
    "pentomino-8x8-centre": ((8, 8, 1), {(3, 3, 0), (3, 4, 0), (4, 3, 0), (4, 4, 0)}),
    "pentomino-6x10": ((10, 6, 1), set()),
    "pentacubes-3x4x5": ((5, 4, 3), set()),
}

ASSEMBLIES = re.compile(r"(\d+) assemblies and (\d+) solutions found with (\d+) iterations")


def voxel(size: tuple[int, int, int], filled, name: str) -> str:
    """One ``<voxel>`` element: BurrTools' state string runs x fastest, then y, then z."""
    x, y, z = size
    state = "".join("#" if (i, j, k) in filled else "_" for k in range(z) for j in range(y) for i in range(x))
    return f'    <voxel x="{x}" y="{y}" z="{z}" type="0" name="{name}">{state}</voxel>'


def puzzle_xml(name: str) -> str:
    """The BurrTools file of one problem: the twelve pieces, one of each, and the box."""
    (bx, by, bz), holes = PUZZLES[name]
    shapes = []
    for letter, rows in PENTOMINOES.items():
        cells = {(i, len(rows) - 1 - j, 0) for j, row in enumerate(rows) for i, c in enumerate(row) if c == "#"}
        shapes.append(voxel((len(rows[0]), len(rows), 1), cells, letter))
    box = {(i, j, k) for i in range(bx) for j in range(by) for k in range(bz)} - holes
    shapes.append(voxel((bx, by, bz), box, "Result"))
    parts = "\n".join(f'        <shape id="{i}" count="1"/>' for i in range(len(PENTOMINOES)))
    return "\n".join([
        '<?xml version="1.0"?>',
        '<puzzle version="2">',
        '  <gridType type="0"/>',
        "  <colors/>",
        "  <shapes>", *shapes, "  </shapes>",
        "  <problems>",
        f'    <problem name="{name}" state="0">',
        "      <shapes>", parts, "      </shapes>",
        f'      <result id="{len(PENTOMINOES)}"/>',
        "      <bitmap/>",
        "    </problem>",
        "  </problems>",
        f"  <comment>{name}: written by tilecensus bench/bench_burrtools.py</comment>",
        "</puzzle>",
        "",
    ])


def write_puzzles(directory: str) -> None:
    Path(directory).mkdir(parents=True, exist_ok=True)
    for name in PUZZLES:
        path = Path(directory) / f"{name}.xmpuzzle"
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(puzzle_xml(name))
        print(path)


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (user and system) of one process, and what it printed; its
    failure ends the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def known() -> dict[str, dict]:
    out = subprocess.run([TILECENSUS, "problems", "--json"], capture_output=True, text=True, check=True).stdout
    return {p["name"]: p.get("known") or {} for p in json.loads(out)["problems"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--burrtxt", metavar="PATH", help="BurrTools' burrTxt, built outside this checkout")
    ap.add_argument("--puzzles", metavar="DIR", help="the three .xmpuzzle files (see --write-puzzles)")
    ap.add_argument("--write-puzzles", metavar="DIR", help="write the three .xmpuzzle files into DIR and stop")
    ap.add_argument("--repeat", type=int, default=3, help="measured runs of each command; the best counts")
    ap.add_argument("--only", nargs="+", default=list(PUZZLES), choices=list(PUZZLES))
    args = ap.parse_args()
    if args.write_puzzles:
        write_puzzles(args.write_puzzles)
        return
    if not args.burrtxt or not args.puzzles:
        ap.error("--burrtxt and --puzzles are needed (or --write-puzzles)")
    published = known()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.2f}; best of {args.repeat} whole commands, one core each")
    print(f"{'problem':22} {'distinct':>8} {'BurrTools s':>11} {'CPU s':>7} {'tilecensus s':>12} {'CPU s':>7} "
          f"{'ratio':>7} {'load':>5}")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="bench-burrtools-") as tmp:
        env["TILECENSUS_DB_URL"] = f"sqlite:///{tmp}/ledger.sqlite"
        for name in args.only:
            want = published.get(name, {})
            commands = {
                "burrtools": [args.burrtxt, "-q", "-r", str(Path(args.puzzles) / f"{name}.xmpuzzle")],
                "tilecensus": [TILECENSUS, "solve", name, "--distinct", "--workers", "1", "--no-progress", "--json"],
            }
            times: dict[str, list[tuple[float, float]]] = {key: [] for key in commands}
            for i in range(args.repeat + 1):  # the first of each writes caches and the ledger: not counted
                for key, argv in commands.items():
                    seconds, cpu, out = run(argv, env)
                    if key == "burrtools":
                        found = ASSEMBLIES.search(out)
                        got = {"distinct": int(found.group(1)) if found else None}
                    else:
                        result = json.loads(out.strip().splitlines()[-1])
                        got = {"solutions": result["solutions"], "distinct": result.get("distinct")}
                    if any(got[k] != want.get(k) for k in got):
                        sys.exit(f"{name} ({key}): {got}, published {want}; printed: {out.strip()[-300:]}")
                    if i > 0:
                        times[key].append((seconds, cpu))
            b, t = min(w for w, _ in times["burrtools"]), min(w for w, _ in times["tilecensus"])
            bc, tc = min(c for _, c in times["burrtools"]), min(c for _, c in times["tilecensus"])
            print(f"{name:22} {want.get('distinct', 0):8,} {b:11.2f} {bc:7.2f} {t:12.2f} {tc:7.2f} {b / t:6.1f}x "
                  f"{os.getloadavg()[0]:5.2f}", flush=True)
    print("# ratio: BurrTools' best wall time over tilecensus's; above 1, tilecensus is faster")


if __name__ == "__main__":
    main()
