"""Problems: one instance of a model, and how it is named, searched, shown and rebuilt.

A :class:`Problem` declares what the engines need to know of it — the exact cover it
compiles to, the engines that can search it, hints for the search, its symmetry group —
and shows a solution as text or a picture.  It is rebuilt anywhere from its
:attr:`Problem.spec`: a small JSON value (the kind, the source text and the options),
which is what the ledger stores and what a worker on another machine reads.

Models register their kinds and named problems in :mod:`core.catalog`; loading by
name or file is :mod:`core.library`; choosing a solver is :mod:`core.engines`.
"""
from __future__ import annotations

import json
from typing import Any

try:  # CPython's own SHA-256, without the OpenSSL that hashlib loads (2 ms of a small run's start)
    from _sha2 import sha256  # type: ignore[import-not-found]  # (3.12 on)
except ImportError:
    try:
        from _sha256 import sha256  # type: ignore[import-not-found,no-redef]  # (3.11)
    except ImportError:
        from hashlib import sha256  # type: ignore[assignment]

from .engines import SearchHints, SolverOptions, solver_for
from .exact_cover import ExactCover
from .search import Path, Solver
from .symmetry import OptionSymmetry


class Problem:
    """Base class of every model's problem.

    Subclasses set ``kind``, implement :meth:`exact_cover` (or list their own engine in
    :attr:`engines`) and :meth:`render_text`, and override the declarations that apply.
    """

    kind: str = "exact-cover"
    #: the engines that can search this problem (:mod:`core.engines`), the default first
    engines: tuple[str, ...] = ("kernel", "reference")

    def __init__(self, spec: dict[str, Any], name: str | None = None):
        self.spec = spec
        self.name = name or spec.get("name") or spec.get("source_name") or self.kind

    # -- what the engines need ------------------------------------------------------
    def exact_cover(self) -> ExactCover | None:
        """The exact cover this problem compiles to (``None`` for own-search models)."""
        return None

    def search_hints(self) -> SearchHints:
        """Model knowledge for the exact-cover engines (heuristic, region rule, board)."""
        return SearchHints()

    def symmetry(self) -> OptionSymmetry | None:
        """The problem's symmetry group acting on the options, where the model knows it."""
        return None

    def engine_refusal(self, engine: str) -> str | None:
        """Why an engine this problem does not list cannot search it, where the model knows
        a better reason than "it is not listed"."""
        return None

    def solver(self, **options: Any) -> Solver:
        """A :class:`Solver` for this problem: ``engine=`` (default: the first of
        :attr:`engines`), ``distinct=``, ``memo=``, ``levels=`` (see
        :class:`core.engines.SolverOptions`)."""
        return solver_for(self, SolverOptions.of(**options))

    # -- checking and showing -------------------------------------------------------
    def is_solution(self, solution: Path) -> bool:
        """An independent check that the option ids ``solution`` solve this problem."""
        ec = self.exact_cover()
        return ec is not None and ec.is_solution(solution)

    def render_text(self, solution: Path) -> str:
        ec = self.exact_cover()
        if ec is None:
            raise NotImplementedError(f"{type(self).__name__} must override render_text()")
        return "\n".join(ec.option_text(k) for k in sorted(solution))

    def render_svg(self, solution: Path) -> str | None:
        """An SVG picture of a solution, where the model has one."""
        return None

    def solution_json(self, solution: Path) -> dict[str, Any]:
        """What a solution's JSON entry (``solutions --json``, ``solve --all --json``) adds
        to its option ids and text, where the model has a plainer form (crosswords: the
        grid as rows of ``#`` and ``.``)."""
        return {}

    @property
    def has_pictures(self) -> bool:
        """Whether :meth:`render_svg` draws this model's solutions."""
        return type(self).render_svg is not Problem.render_svg

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
        return sha256(text.encode()).hexdigest()
