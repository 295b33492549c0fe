"""What a whole count by levels will cost, projected from a probe of its first levels.

A probe (:meth:`core.frontier.LevelCounter.count` with ``seconds``) expands the first
levels and stops; it reports the distinct states of each level and the time each took.
On a board the states of a level depend on the cells within a window of it, not on how
far the board goes on: row after row (a row: :attr:`LevelCounter.period` levels), the
states grow, then settle on a plateau once the window has left the board's first edge
behind, and fall over the last rows.  Measured on rectangles (2026-12-03): the growth of
each row over the one before, less one, shrinks geometrically — dominoes 20 wide:
18.3, 1.9, 0.48, 0.17, 0.054, 0.016; tetrominoes 10 wide: 12.9, 1.2, 0.075, 0.0006;
pentominoes 10 wide: 14.4, 1.07, 0.037 — and the rows past the last full window hold
together about 0.4 to 1.2 plateau rows.  So:

* rows measured: the plateau is the last row grown on by the same shrinking excesses
  (ratio of the last two, between :data:`Q_LEAST` and :data:`Q_MOST`; with two rows only,
  :data:`Q_TWO_ROWS`);
* less than two rows: the states of the last levels measured grow at their own rate per
  level until the window is full, and the plateau is :data:`PLATEAU_OVER_FIRST_ROW` times
  that first row (dominoes 104, tetrominoes 33, pentominoes 33);
* the whole: the rows measured, plateau rows to the last window, and
  :data:`LAST_ROWS` plateau rows for the fall;
* time: the seconds per state of the largest levels measured, and :data:`CACHE_PENALTY`
  where the plateau's levels are much larger; memory: the bytes held per state of a level
  at the probe's end, times the plateau's states per level.

The band (low, high) is a factor :data:`BAND` either way when rows were measured, and
:data:`BAND_EARLY` when the first row was not finished: an estimate, not a bound.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .frontier import LevelCount

#: a row that grew by less than this over the one before is on the plateau
SETTLED = 0.002
#: the shrinking of the growth excess from row to row, as measured, kept within these
Q_LEAST, Q_MOST = 0.25, 0.8
#: the plateau over the first row, and over the second, where no more were measured
#: (measured: 22 to 104, and 1.9 to 5.4)
PLATEAU_OVER_FIRST_ROW = 40.0
PLATEAU_OVER_SECOND_ROW = 3.5
#: the fall over the last rows, in plateau rows
LAST_ROWS = 0.8
#: seconds per state grow with the level's size past the caches: this factor where the
#: plateau's levels hold over CACHE_STEP times the largest level measured
CACHE_PENALTY = 1.5
CACHE_STEP = 8.0
#: a level count on T threads runs this much faster than on one (measured: pentominoes
#: 9x10 1.8x on two, dominoes 20x20 1.34x: the sorting shares the memory bus)
THREAD_GAIN = 0.6
#: the band's factor
BAND = 2.0
BAND_EARLY = 10.0


@dataclass(frozen=True)
class Projection:
    """A whole level count's projected size: states (distinct, all levels), the most
    states in one level, seconds on ``threads`` threads, the peak of memory, each with a
    band; ``exact`` when the probe finished the count (no projection at all)."""

    states: float
    level_states: float
    seconds: float
    peak_bytes: float
    band: float
    threads: int = 1
    exact: bool = False
    #: what was measured, in words (for show and estimate)
    basis: str = ""

    @property
    def seconds_low(self) -> float:
        return self.seconds / self.band

    @property
    def seconds_high(self) -> float:
        return self.seconds * self.band

    @property
    def bytes_low(self) -> float:
        return self.peak_bytes / self.band

    @property
    def bytes_high(self) -> float:
        return self.peak_bytes * self.band

    def to_json(self) -> dict:
        return {"states": self.states, "level_states": self.level_states, "seconds": self.seconds,
                "seconds_low": self.seconds_low, "seconds_high": self.seconds_high, "peak_bytes": self.peak_bytes,
                "bytes_low": self.bytes_low, "bytes_high": self.bytes_high, "threads": self.threads,
                "exact": self.exact, "basis": self.basis}


def speedup(threads: int) -> float:
    """How much faster a level count runs on ``threads`` threads than on one."""
    return 1.0 + THREAD_GAIN * (max(1, threads) - 1)


def project(probe: LevelCount, levels: int, period: int, reach: int, threads: int = 1) -> Projection:
    """The whole count of ``levels`` levels (from the probe's start), from ``probe``
    (run on ``threads`` threads); ``period``: the levels of one row, ``reach``: the
    window's width (see the module text)."""
    done = probe.levels_done
    states = probe.level_states[:done]
    clock = probe.level_clock[:done]
    if probe.complete:
        peak_level = max(states, default=0)
        return Projection(float(probe.states), float(peak_level), probe.seconds, float(probe.peak_bytes), 1.0,
                          threads, True, f"counted whole by the probe in {probe.seconds:.3g} s")
    period = max(1, period)
    rows = _rows(states, period)
    remaining_levels = max(0, levels - done)
    if rows:
        plateau_row, how = _plateau(rows)
        band = BAND if len(rows) >= 3 else BAND_EARLY
    else:
        plateau_row, how = _plateau_early(states, period, reach)
        band = BAND_EARLY
    per_level = plateau_row / period
    window_rows = math.ceil(reach / period)
    remaining_rows = remaining_levels / period
    full = max(0.0, remaining_rows - window_rows)
    fall = min(remaining_rows, window_rows) * LAST_ROWS / max(1, window_rows)
    projected = float(sum(states)) + plateau_row * (full + fall)
    # the partial row the probe stopped in: already in sum(states), and in remaining_levels
    # from where it stopped, so nothing more to add
    seconds_per_state = _seconds_per_state(states, clock)
    biggest = max(states, default=1) or 1
    if per_level > CACHE_STEP * biggest:
        seconds_per_state *= CACHE_PENALTY
    elapsed = clock[-1] if clock else probe.seconds
    seconds = elapsed + (projected - sum(states)) * seconds_per_state
    bytes_per_state = probe.peak_bytes / max(1.0, max(states[-period:], default=1))
    peak = max(float(probe.peak_bytes), bytes_per_state * per_level)
    basis = (f"{done:,} of {levels:,} levels in {elapsed:.3g} s ({probe.states:,} states, "
             f"{len(rows)} row{'' if len(rows) == 1 else 's'} of {period}); {how}")
    return Projection(projected, per_level, seconds, peak, band, threads, False, basis)


def _rows(states: list[int], period: int) -> list[float]:
    """The states of each complete row measured (a row begun is left out: its first
    levels are compared with the first row's few states, a ratio too unsteady to use)."""
    done = len(states)
    return [float(sum(states[i:i + period])) for i in range(0, done - done % period, period)]


def _plateau(rows: list[float]) -> tuple[float, str]:
    """The states of a plateau row, from the rows measured (one or more)."""
    last = rows[-1]
    if len(rows) == 1:
        plateau = last * PLATEAU_OVER_FIRST_ROW
        return plateau, f"one row measured: a plateau of about {plateau:,.3g} states a row"
    if len(rows) == 2:
        plateau = last * PLATEAU_OVER_SECOND_ROW
        return plateau, f"two rows measured: a plateau of about {plateau:,.3g} states a row"
    excess = rows[-1] / max(1.0, rows[-2]) - 1.0
    if excess <= SETTLED:
        return last, f"settled at {last:,.0f} states a row"
    before = rows[-2] / max(1.0, rows[-3]) - 1.0
    q = min(Q_MOST, max(Q_LEAST, excess / before)) if before > 0 else Q_MOST
    factor, e = 1.0, excess
    for _ in range(200):
        e *= q
        if e < 1e-6:
            break
        factor *= 1.0 + e
    return last * factor, f"rows still growing ({excess:.1%} over the one before): plateau about {last * factor:,.0f}"


def _plateau_early(states: list[int], period: int, reach: int) -> tuple[float, str]:
    """The states of a plateau row, from less than two rows: the last levels' growth per
    level carried on to the end of the window, that first row times
    :data:`PLATEAU_OVER_FIRST_ROW`."""
    done = len(states)
    if done == 0:
        return math.inf, "no level finished"
    tail = states[max(0, done - max(2, min(done // 2, period // 2))):]
    tail = [s for s in tail if s > 0] or [1]
    steps = max(1, len(tail) - 1)
    rate = (tail[-1] / tail[0]) ** (1.0 / steps) if len(tail) > 1 else 1.0
    rate = max(1.0, rate)
    to_go = max(0, min(period, reach) - done)
    last = float(tail[-1])
    try:
        peak_level = last * rate ** to_go
    except OverflowError:
        peak_level = math.inf
    first_row = float(sum(states)) + peak_level * max(0, period - done) / 2.0
    plateau = first_row * PLATEAU_OVER_FIRST_ROW
    return plateau, (f"the first row unfinished: its states growing {rate:.3g}x a level, "
                     f"a plateau of about {plateau:,.3g} states a row")


def _seconds_per_state(states: list[int], clock: list[float]) -> float:
    """Seconds per state of the largest levels measured (the last third of the states)."""
    if not states:
        return 1e-6
    total = sum(states)
    if total == 0:
        return 1e-6
    # the levels from where two thirds of the states were done
    acc, start = 0, 0
    for k, s in enumerate(states):
        acc += s
        if acc >= total * 2 / 3:
            start = k
            break
    before = clock[start - 1] if start > 0 else 0.0
    spent = clock[-1] - before
    counted = sum(states[start:])
    return max(spent / max(1, counted), 1e-9)
