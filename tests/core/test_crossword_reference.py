"""Independent references for the crossword tests: no code shared with the search.

* :func:`features` / :func:`brute_force`: every grid of a small size, analysed once.
* :func:`row_search`: a second, simple search that builds grids a whole row at a time
  (each row a pattern of black and white), checks each row's numbers against the clue
  string once the row below it is known, and fills mirrored rows by the symmetry.
"""
from __future__ import annotations

from collections import Counter
from itertools import product

from core.crossword import symmetry as sym


def _runs(cells):
    """Lengths of the white runs of a sequence of black flags."""
    out, n = [], 0
    for b in list(cells) + [True]:
        if b:
            if n:
                out.append(n)
            n = 0
        else:
            n += 1
    return out


def _number_letters(black, R, C):
    def bl(r, c):
        return not (0 <= r < R and 0 <= c < C) or black[r * C + c]

    letters, first = [], None
    for r in range(R):
        for c in range(C):
            if bl(r, c):
                continue
            a = bl(r, c - 1) and not bl(r, c + 1)
            d = bl(r - 1, c) and not bl(r + 1, c)
            if a or d:
                if first is None:
                    first = r * C + c + 1
                letters.append("Z" if a and d else "A" if a else "D")
    return "".join(letters), first


def features(black, R, C):
    """(clue string, first numbered square (0 when a white square comes before it), has a 2-square word, has an unchecked white
    square, has an all-black line, whites disconnected)."""
    rows = [black[r * C:(r + 1) * C] for r in range(R)]
    cols = [black[c::C] for c in range(C)]
    runs = [x for line in rows + cols for x in _runs(line)]
    two = 2 in runs
    unchecked = False
    for r in range(R):
        for c in range(C):
            if not black[r * C + c]:
                h = (c > 0 and not black[r * C + c - 1]) or (c + 1 < C and not black[r * C + c + 1])
                v = (r > 0 and not black[(r - 1) * C + c]) or (r + 1 < R and not black[(r + 1) * C + c])
                if not (h and v):
                    unchecked = True
    line = any(all(x) for x in rows) or any(all(x) for x in cols)
    whites = {q for q in range(R * C) if not black[q]}
    disc = False
    if whites:
        seen, todo = set(), [min(whites)]
        while todo:
            q = todo.pop()
            if q in seen or q not in whites:
                continue
            seen.add(q)
            r, c = divmod(q, C)
            todo += [q2 for q2, ok in ((q - 1, c > 0), (q + 1, c + 1 < C), (q - C, r > 0), (q + C, r + 1 < R)) if ok]
        disc = len(seen) != len(whites)
    clues, first = _number_letters(black, R, C)
    if first is not None and not all(black[:first - 1]):
        first = 0  # a white square before number 1: no start describes this grid
    return clues, first, two, unchecked, line, disc


def symmetric_grids(R, C, kind):
    """Every grid with the symmetry ``kind`` (one bit per orbit)."""
    for bits in product((False, True), repeat=len(set(sym.orbits(kind, R, C)))):
        yield sym.from_orbits(kind, R, C, bits)


def brute_force(R, C, kind):
    """For every rule setting (min_word, checked, connected, no_black_lines): a Counter of
    (clue string, first square) over the legal grids."""
    settings = list(product((2, 3), (False, True), (False, True), (False, True)))
    out = {s: Counter() for s in settings}
    for black in symmetric_grids(R, C, kind):
        if all(black):
            continue  # no white square: no words, not a crossword (in no rule setting)
        clues, first, two, unchecked, line, disc = features(black, R, C)
        for s in settings:
            mw, checked, connected, nbl = s
            if (mw >= 3 and two) or (checked and unchecked) or (nbl and line) or (connected and disc):
                continue
            out[s][clues, first] += 1
    return out


def row_search(R, C, clues, start, kind, L=3):
    """The number of grids (default rules: checked, connected, no black lines, words of
    at least L) with this clue string, number 1 at ``start`` and symmetry ``kind`` (one of
    none, left-right, up-down, rotational, three-way)."""
    pats = []
    for p in product((False, True), repeat=C):
        rs = _runs(p)
        if all(p) or any(x < L for x in rs):
            continue
        if kind in ("left-right", "three-way") and p != p[::-1]:
            continue
        pats.append(p)

    def mirror(p):
        return p[::-1] if kind == "rotational" else p

    mirrored = kind in ("rotational", "up-down", "three-way")
    rows: list[tuple] = [()] * R
    count = 0

    def row_letters(r):
        out = []
        for c in range(C):
            if rows[r][c]:
                continue
            left = c == 0 or rows[r][c - 1]
            right = c + 1 == C or rows[r][c + 1]
            up = r == 0 or rows[r - 1][c]
            down = r + 1 == R or rows[r + 1][c]
            a, d = left and not right, up and not down
            if a or d:
                out.append(("Z" if a and d else "A" if a else "D", r * C + c + 1))
        return out

    def go(r, k, first):
        nonlocal count
        if r == R:
            letters = row_letters(R - 1)
            s = "".join(x for x, _ in letters)
            if clues[k:] != s:
                return
            f = first if first is not None else (letters[0][1] if letters else None)
            if f != start:
                return
            black = tuple(b for row in rows for b in row)
            cols = [black[c::C] for c in range(C)]
            if any(all(col) or any(x < L for x in _runs(col)) for col in cols):
                return
            if features(black, R, C)[5]:
                return
            count += 1
            return
        if mirrored and r >= (R + 1) // 2:
            choices = [mirror(rows[R - 1 - r])]
        else:
            choices = pats
            if mirrored and r == R // 2 and R % 2 and kind == "rotational":
                choices = [p for p in pats if p == p[::-1]]
        for p in choices:
            base = r * C
            if start is not None and any(not p[c] for c in range(C) if base + c < start - 1):
                continue
            if start is not None and 0 <= start - 1 - base < C and p[start - 1 - base]:
                continue
            rows[r] = p
            k2, f2 = k, first
            if r >= 1:
                letters = row_letters(r - 1)
                s = "".join(x for x, _ in letters)
                if clues[k:k + len(s)] != s:
                    continue
                if f2 is None and letters:
                    f2 = letters[0][1]
                k2 = k + len(s)
            go(r + 1, k2, f2)
        rows[r] = ()

    go(0, 0, None)
    return count


# -- the search against the brute force ------------------------------------------------
import pytest  # noqa: E402

from core.crossword.puzzle import Puzzle  # noqa: E402
from core.crossword.rules import Rules  # noqa: E402
from core.crossword.search import CrosswordSolver  # noqa: E402

SIZES = [
    (3, 3, "none"), (3, 4, "none"), (4, 4, "left-right"), (4, 4, "diagonal"), (4, 4, "anti-diagonal"),
    (5, 5, "rotational"), (5, 5, "three-way"), (5, 5, "quarter-turn"), (5, 5, "full"), (5, 4, "rotational"),
]
SLOW_SIZES = [(4, 4, "none"), (3, 5, "none"), (4, 5, "up-down"), (5, 5, "left-right"), (5, 5, "up-down"),
              (5, 5, "diagonal"), (5, 5, "anti-diagonal")]


def _check_against_brute_force(R, C, kind):
    table = brute_force(R, C, kind)
    for (mw, checked, connected, nbl), counter in table.items():
        if min(R, C) < mw:
            continue
        rules = Rules(mw, checked, connected, nbl)
        # counting every grid
        total = sum(counter.values())
        got = CrosswordSolver(Puzzle.build(R, C, rules=rules, symmetry=kind)).count()
        assert got == total, (R, C, kind, rules)
        # rebuilding: every clue string with a start, and without one
        by_clues = Counter()
        for clues, first in counter:
            by_clues[clues] += counter[clues, first]
        # a deterministic sample: the most common clue strings and some rare ones
        common = [key for key, _ in counter.most_common()]
        for clues, first in common[:6] + common[-4:]:
            n = counter[clues, first]
            if first:
                pz = Puzzle.build(R, C, rules=rules, symmetry=kind, clues=clues, start=first)
                assert CrosswordSolver(pz).count() == n, (R, C, kind, rules, clues, first)
        common = [key for key, _ in by_clues.most_common()]
        for clues in common[:5] + common[-3:]:
            n = by_clues[clues]
            pz = Puzzle.build(R, C, rules=rules, symmetry=kind, clues=clues)
            assert CrosswordSolver(pz).count() == n, (R, C, kind, rules, clues)


@pytest.mark.parametrize("R,C,kind", SIZES)
def test_search_agrees_with_brute_force(R, C, kind):
    _check_against_brute_force(R, C, kind)


@pytest.mark.slow
@pytest.mark.parametrize("R,C,kind", SLOW_SIZES)
def test_search_agrees_with_brute_force_slow(R, C, kind):
    _check_against_brute_force(R, C, kind)


def test_row_search_agrees_on_library_39():
    assert row_search(9, 9, "ZDDZDDAAAAAAADDDAAAA", 1, "left-right") == 55
