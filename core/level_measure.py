"""Measuring a whole count by levels before choosing it: a probe, its projection, the
memory it may take, and how its shares are laid out (:class:`~core.solver_options.LevelPlan`).

Used by the method choice (:func:`core.engines.choose_method`) and by ``estimate``.  The
probe counts the cover's first levels for a moment on the threads the count would have
(:meth:`core.frontier.LevelCounter.count` with ``seconds``); a probe that finishes is the
count itself.  :func:`plan_for` then fits the count to the memory allowed: every share
holds the states of a level, and the residues of its group of moduli.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass

from .exact_cover import ExactCover
from .frontier import LevelCount, LevelCounter
from .level_projection import Projection, project
from .pruning import RegionRule
from .solver_options import LevelPlan

#: the share of the machine's memory a count may take when the caller names none
MEMORY_SHARE = 0.6
#: a count is planned to fit where this many times its projected peak fits
MEMORY_MARGIN = 1.5


def machine_memory() -> int:
    """This machine's memory in bytes (0 where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 0


def default_memory() -> int:
    """The memory a count may take by default: :data:`MEMORY_SHARE` of the machine's
    (1 TB where the machine does not say)."""
    total = machine_memory()
    return int(total * MEMORY_SHARE) if total else 1 << 40


def counter_for(ec: ExactCover, region: RegionRule | None) -> LevelCounter:
    """The cover's level counter (built once per cover and region: the method choice,
    the planner and ``estimate`` share it)."""
    key = ("level-counter", region)
    found = ec.derived.get(key)
    if found is None:
        found = ec.derived[key] = LevelCounter(ec, region)
    return found


@dataclass
class LevelMeasure:
    """A probe of a whole count by levels and what it projects."""

    counter: LevelCounter
    probe: LevelCount | None
    projection: Projection | None
    threads: int
    #: why there is no projection (the probe's first levels passed the memory allowed)
    refusal: str | None = None

    @property
    def complete(self) -> bool:
        return self.probe is not None and self.probe.complete


def measure(ec: ExactCover, region: RegionRule | None, seconds: float, threads: int = 1,
            memory: int | None = None) -> LevelMeasure:
    """Probe the whole count for about ``seconds`` (at least one level) on ``threads``
    threads within ``memory`` bytes, and project it."""
    counter = counter_for(ec, region)
    limit = default_memory() if memory is None else memory
    probe = counter.count(seconds=seconds, threads=threads, max_bytes=limit)
    if probe is None:
        return LevelMeasure(counter, None, None, threads,
                            f"its first levels passed the {human_bytes(limit)} of memory allowed")
    return LevelMeasure(counter, probe, project(probe, counter.levels, counter.period, counter.reach, threads),
                        threads)


def plan_for(measured: LevelMeasure, *, threads: int, memory: int, hosts: int = 1,
             cluster: bool = False) -> LevelPlan | None:
    """How the count goes within ``memory`` bytes: on a local pool of ``threads`` workers,
    one share on all of them as threads where it fits, else the residues in groups, the
    shares that run at once sharing the workers and the memory; on a cluster, one share
    per host at least (``hosts``; each host's memory its own), each on ``threads``
    threads.  None when even one residue a share would not fit."""
    proj = measured.projection
    assert proj is not None
    counter = measured.counter
    moduli = len(counter.moduli())
    window = counter.window()
    words = window.key_words if window is not None else 1
    # the projection with a margin, not its band's top: a band of 10 either way (a probe of
    # one row) would refuse counts that fit; a share that passes its allowance after all
    # stops cleanly (the C count declines) and says what it needed
    need = MEMORY_MARGIN * proj.peak_bytes
    for groups in range(max(1, min(hosts, moduli)) if cluster else 1, moduli + 1):
        together = 1 if cluster else min(groups, threads)  # shares running at once on one machine
        share_bytes = need * (words + math.ceil(moduli / groups)) / (words + moduli)
        if share_bytes * together <= memory:
            return LevelPlan(threads=max(1, threads // together), groups=groups, memory=memory // together)
    return None


def human_bytes(n: float) -> str:
    """Bytes in the largest unit that keeps the number at least 1: 3.2 GB, 1.5 TB."""
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB", "EB", "ZB"):
        if abs(n) < 1024 or unit == "ZB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} YB"  # pragma: no cover


def human_seconds(s: float) -> str:
    """Seconds in words: 0.42 s, 3.5 minutes, 2.1 hours, 4.3 days, 12 years, 3.1e+12 years."""
    if not math.isfinite(s):
        return "forever"
    if s < 90:
        return f"{s:.2g} s"
    if s < 90 * 60:
        return f"{s / 60:.2g} minutes"
    if s < 48 * 3600:
        return f"{s / 3600:.2g} hours"
    if s < 730 * 86400:
        return f"{s / 86400:.2g} days"
    return f"{s / (365.25 * 86400):.2g} years"
