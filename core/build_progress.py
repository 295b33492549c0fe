"""How far the building of a big problem has got, for whoever shows it.

A model that may take long to build (a polyform board of tens of thousands of cells)
calls :func:`report` now and then with its stage and how far along it is; a front end
(the command line's progress line on stderr) installs a *watcher* for a block of work
with :func:`watching`.  With nobody watching, a report costs one function call, so core
stays a library that prints nothing.
"""
from __future__ import annotations

import contextlib
from typing import Callable, Iterator

#: a watcher: (stage, done, total) -> None; ``done == total`` ends the stage
Watcher = Callable[[str, int, int], None]

_watchers: list[Watcher] = []


def report(stage: str, done: int, total: int) -> None:
    """Tell the watchers that ``stage`` has done ``done`` of ``total`` steps."""
    for watcher in _watchers:
        watcher(stage, done, total)


@contextlib.contextmanager
def watching(watcher: Watcher) -> Iterator[None]:
    """Send the reports made inside the block to ``watcher`` too."""
    _watchers.append(watcher)
    try:
        yield
    finally:
        _watchers.remove(watcher)
