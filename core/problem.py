"""Problems: one instance of a model, and how it is named, stored and rebuilt.

A :class:`Problem` knows how to search itself (:meth:`Problem.solver`), how to show a
solution, and how to be rebuilt anywhere from its :attr:`Problem.spec` — a small JSON
value (the kind, the source text and the options), which is what the ledger stores and
what a worker on another machine rebuilds the problem from.

Models register themselves here: a *loader* per ``kind`` (turns a spec into a Problem)
and their built-in named problems.  ``core.library`` imports the models, so
``load(name_or_path)`` sees all of them.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from .errors import ProblemError
from .exact_cover import ExactCover
from .search import Path, Solver


class Problem:
    """Base class of every model's problem.

    Subclasses set ``kind`` and implement :meth:`exact_cover` (or override
    :meth:`solver` when they bring their own search), and :meth:`render_text`.
    """

    kind: str = "exact-cover"

    def __init__(self, spec: dict[str, Any], name: str | None = None):
        self.spec = spec
        self.name = name or spec.get("name") or spec.get("source_name") or self.kind

    # -- searching -----------------------------------------------------------------
    def exact_cover(self) -> ExactCover | None:
        """The exact cover this problem compiles to (``None`` for own-search models)."""
        return None

    def solver(self, *, engine: str = "kernel", **options: Any) -> Solver:
        """A :class:`Solver` for this problem: the C kernel by default, ``engine="reference"``
        for the pure-Python reference solver."""
        ec = self.exact_cover()
        if ec is None:
            raise NotImplementedError(f"{type(self).__name__} must override solver()")
        from .kernel import KernelSolver
        from .reference import ReferenceSolver

        cls = {"kernel": KernelSolver, "reference": ReferenceSolver}.get(engine)
        if cls is None:
            raise ProblemError(f"unknown engine {engine!r} (kernel, reference)")
        return cls(ec, **self.solver_options(**options))

    def solver_options(self, **options: Any) -> dict[str, Any]:
        """Model-specific options handed to the solver (heuristic, pruning, ...)."""
        return options

    def verify(self, solution: Path) -> bool:
        """Independent check of one solution."""
        ec = self.exact_cover()
        return ec is not None and ec.is_solution(solution)

    # -- showing ---------------------------------------------------------------------
    def render_text(self, solution: Path) -> str:
        ec = self.exact_cover()
        assert ec is not None
        return "\n".join(ec.option_text(k) for k in sorted(solution))

    def render_svg(self, solution: Path) -> str | None:
        """An SVG picture of a solution, where the model has one."""
        return None

    def describe(self) -> str:
        """One line for listings."""
        ec = self.exact_cover()
        if ec is None:
            return self.kind
        return f"{self.kind}: {ec.n_items} items ({ec.n_primary} primary), {ec.n_options} options"

    # -- identity -------------------------------------------------------------------
    @property
    def spec_hash(self) -> str:
        """A stable hash of the spec: two runs of the same problem share it."""
        text = json.dumps(self.spec, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


Loader = Callable[[dict[str, Any]], Problem]

_LOADERS: dict[str, Loader] = {}


@dataclass(frozen=True)
class LibraryEntry:
    """A built-in named problem: its name, a one-line description and its spec."""

    name: str
    description: str
    spec: dict[str, Any]
    #: the known number of solutions (total, distinct) where published, for listings/tests
    known: dict[str, int] | None = None


_LIBRARY: dict[str, LibraryEntry] = {}
_LIBRARY_PATTERNS: list[tuple[str, str, Callable[[str], dict[str, Any] | None]]] = []


def register_kind(kind: str, loader: Loader) -> None:
    """Make ``kind`` loadable from a spec (``{"kind": kind, ...}``)."""
    _LOADERS[kind] = loader


def register_problem(entry: LibraryEntry) -> None:
    """Add a built-in named problem to the library."""
    _LIBRARY[entry.name] = entry


def register_pattern(pattern: str, description: str, factory: Callable[[str], dict[str, Any] | None]) -> None:
    """A family of named problems (``dominoes-RxC``): ``factory(name)`` gives a spec or None."""
    _LIBRARY_PATTERNS.append((pattern, description, factory))


def library() -> list[LibraryEntry]:
    """Every built-in named problem, in name order."""
    _load_models()
    return sorted(_LIBRARY.values(), key=lambda e: e.name)


def library_patterns() -> list[tuple[str, str]]:
    _load_models()
    return [(p, d) for p, d, _ in _LIBRARY_PATTERNS]


def named_spec(name: str) -> dict[str, Any] | None:
    """The spec of a built-in named problem, or None."""
    _load_models()
    if name in _LIBRARY:
        return dict(_LIBRARY[name].spec, name=name)
    for _, _, factory in _LIBRARY_PATTERNS:
        spec = factory(name)
        if spec is not None:
            return dict(spec, name=name)
    return None


def from_spec(spec: dict[str, Any]) -> Problem:
    """Rebuild a problem from its spec (as stored in the ledger)."""
    _load_models()
    kind = spec.get("kind")
    loader = _LOADERS.get(kind)  # type: ignore[arg-type]
    if loader is None:
        raise ProblemError(f"unknown problem kind {kind!r} (known: {', '.join(sorted(_LOADERS))})")
    return loader(spec)


def kinds() -> Iterable[str]:
    _load_models()
    return sorted(_LOADERS)


def _load_models() -> None:
    from . import library as _  # noqa: F401  (registers every model)
