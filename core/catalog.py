"""The catalog: which problem kinds can be rebuilt from a spec, and the built-in named
problems (``tilecensus problems``).

Models register here when they are imported: a *loader* per ``kind`` (a spec in, a
:class:`~core.problem.Problem` out), their named problems and families of names
(``dominoes-RxC``).  Looking something up goes through :mod:`core.library`, which
imports the models as a lookup needs them (:data:`MODELS`, :data:`KIND_MODELS`); this
module imports none, so a model can register without a cycle.  A plugin
(``TILECENSUS_PLUGINS``) registers its own kinds the same way.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

Spec = dict[str, Any]
#: a spec in, a core.problem.Problem out (not imported here: the models import this module)
Loader = Callable[[Spec], Any]


@dataclass(frozen=True)
class LibraryEntry:
    """A built-in named problem: its name, a one-line description and its spec."""

    name: str
    description: str
    spec: Spec
    #: the known numbers where published, for listings/tests: ``{"solutions": n}``, with
    #: ``"distinct"`` (up to symmetry) where that is known too
    known: dict[str, int] | None = None


@dataclass(frozen=True)
class NamePattern:
    """A family of named problems (``dominoes-RxC``): ``factory(name)`` gives the spec of
    a name of the family, or None for a name that is not one."""

    pattern: str
    description: str
    factory: Callable[[str], Spec | None]


#: every built-in model's module, in the order a name is looked for: the polyforms first,
#: the kind most named, so ``solve pentomino-6x10`` imports no other model (about 0.03 s)
MODELS = ("core.polyform.problem", "core.dlx_format", "core.reduction", "core.sudoku", "core.edges",
          "core.crossword")
#: the module that registers each built-in kind (a test checks it against the registrations)
KIND_MODELS = {
    "polyform": "core.polyform.problem",
    "exact-cover": "core.dlx_format",
    "reduction": "core.reduction",
    "sudoku": "core.sudoku",
    "latin": "core.sudoku",
    "edges": "core.edges",
    "roads": "core.edges",
    "crossword": "core.crossword",
}
#: the built-in kinds whose problems read a finished run's stored solutions back for
#: ``show`` (``Problem.summarise``, ``Problem.given_found``), so that ``show`` reads other
#: runs without building their problem (a test checks it against the models)
SOLUTION_READERS = frozenset({"crossword"})

LOADERS: dict[str, Loader] = {}
#: the kinds whose problems have a symmetry group (``Problem.symmetry``), for messages
SYMMETRIC_KINDS: set[str] = set()
ENTRIES: dict[str, LibraryEntry] = {}
PATTERNS: list[NamePattern] = []


def register_kind(kind: str, loader: Loader, *, symmetric: bool = False) -> None:
    """Make ``kind`` loadable from a spec (``{"kind": kind, ...}``); ``symmetric``: its
    problems have a symmetry group."""
    LOADERS[kind] = loader
    if symmetric:
        SYMMETRIC_KINDS.add(kind)


def register_problem(entry: LibraryEntry) -> None:
    """Add a built-in named problem."""
    ENTRIES[entry.name] = entry


def register_pattern(pattern: str, description: str, factory: Callable[[str], Spec | None]) -> None:
    """Add a family of named problems (see :class:`NamePattern`)."""
    PATTERNS.append(NamePattern(pattern, description, factory))
