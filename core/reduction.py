"""The tile-reduction engine of seed 002: tiles, values, rules; MRV backtracking.

Vocabulary:

* a **tile** ``t`` is something to assign (a sudoku cell, a road square);
* a **value** ``s`` is what a tile may take (a digit, a road tile);
* a **rule** maps an assignment ``(t, s)`` to possibilities ``(t', S')``: once ``t = s``,
  tile ``t'`` may only take a value in ``S'``;
* a **domain** is the set of values a tile may still take, held as a bitmask over value
  indices (bit ``i`` = ``values[i]``).

Some tiles are **fixed** up front (the givens): their rules are applied at the root and
they are never branched on.  The search then repeats: branch on the first tile (in the
order of ``tiles``) among the unassigned tiles with the fewest remaining values, try its
values in order, refine the other tiles' domains by the rules of the chosen value, and
recurse.  A tile with no value left ends the branch (a dead end); no tile left to assign
is a solution.

A **choice id** names one ``(tile, value)`` pair a free tile may take at the root: the
pairs listed tile by tile (in tile order), value by value.  A path is the sequence of
choice ids from the root, so :class:`ReductionSolver` keeps the :class:`~core.search.Solver`
contract: replay, weights, split, budgets, frontier, limit.  Models that also compile to
an exact cover (sudoku, roads, edges) use the same ids for their options, so a path from
either engine decodes the same way.
"""
from __future__ import annotations

import importlib
import time
import tomllib
from fractions import Fraction
from typing import Any, Callable, Hashable, Iterable, Sequence

from .bitsets import bits
from .errors import PathError, ProblemError
from .exact_cover import ExactCover
from .catalog import register_kind, register_pattern
from .engines import Engine, SolverOptions, register_engine
from .problem import Problem
from .search import COUNT, Path, SolveRequest, SolveResult, Solver, Stats, Subpath

Tile = Hashable
Value = Hashable
Rules = Callable[[Any, Any], Iterable[tuple[Any, Iterable[Any]]]]
Mask = int

HEURISTICS = ("mrv", "first")


class TileReduction:
    """A tile-reduction problem: ``tiles``, ``values``, ``rules`` and fixed tiles.

    ``rules(t, s)`` yields pairs ``(t2, allowed)``: after ``t = s``, tile ``t2`` may only
    take values in ``allowed``.  ``fixed`` maps tiles to their given value; ``domains``
    maps tiles to the values they may take at all.  ``render(assignment)`` turns a full
    assignment (dict tile -> value) into text, for pictures of solutions.
    """

    def __init__(
        self,
        tiles: Iterable[Tile],
        values: Iterable[Value],
        rules: Rules | None = None,
        fixed: dict[Tile, Value] | None = None,
        *,
        domains: dict[Tile, Iterable[Value]] | None = None,
        render: Callable[[dict], str] | None = None,
        name: str | None = None,
    ):
        self.tiles = tuple(tiles)
        self.values = tuple(values)
        self.rules = rules
        self.render = render
        self.name = name
        self.tile_index = self._index(self.tiles, "tile")
        self.value_index = self._index(self.values, "value")
        self.fixed: dict[int, int] = {}
        for t, s in (fixed or {}).items():
            self.fixed[self._tile(t, "fixed")] = self._value(s, f"fixed tile {t!r}")
        self.restrict: dict[int, Mask] = {}
        for t, allowed in (domains or {}).items():
            self.restrict[self._tile(t, "domains")] = self._mask(allowed, f"domain of {t!r}")
        self._root: tuple | None = None
        self._effects: list | None = None

    # ------------------------------------------------------------------ indexing
    @staticmethod
    def _index(seq: tuple, what: str) -> dict:
        index = {}
        for i, x in enumerate(seq):
            try:
                if x in index:
                    raise ProblemError(f"{what} {x!r} is listed twice")
            except TypeError:
                raise ProblemError(f"{what} {x!r} is not hashable") from None
            index[x] = i
        return index

    def _tile(self, t: Tile, what: str) -> int:
        i = self.tile_index.get(t)
        if i is None:
            raise ProblemError(f"{what}: {t!r} is not a tile")
        return i

    def _value(self, s: Value, what: str) -> int:
        i = self.value_index.get(s)
        if i is None:
            raise ProblemError(f"{what}: {s!r} is not a value")
        return i

    def _mask(self, values: Iterable[Value], what: str) -> Mask:
        m = 0
        for s in values:
            m |= 1 << self._value(s, what)
        return m

    def index_rules(self, t: int, s: int) -> list[tuple[int, Mask]]:
        """The rules of ``(tiles[t], values[s])`` as ``(tile index, allowed mask)`` pairs.
        Models override this with a fast precomputed version."""
        if self.rules is None:
            return []
        out = []
        what = f"rule of ({self.tiles[t]!r}, {self.values[s]!r})"
        for t2, allowed in self.rules(self.tiles[t], self.values[s]):
            out.append((self._tile(t2, what), self._mask(allowed, what)))
        return out

    # ------------------------------------------------------------------ compiling
    @property
    def n_tiles(self) -> int:
        return len(self.tiles)

    @property
    def n_values(self) -> int:
        return len(self.values)

    def root(self) -> tuple[list[Mask] | None, tuple[int, ...], tuple[tuple[int, int], ...]]:
        """``(domains, free, choices)`` at the root: the domains after the fixed tiles'
        rules (``None`` if that leaves some tile without a value), the free tiles in
        order, and the choice ids' ``(tile, value)`` pairs."""
        if self._root is None:
            full = (1 << self.n_values) - 1
            dom = [full] * self.n_tiles
            for t, m in self.restrict.items():
                dom[t] &= m
            for t, s in self.fixed.items():
                dom[t] &= 1 << s
            for t, s in sorted(self.fixed.items()):
                for u, m in self.index_rules(t, s):
                    dom[u] &= m
            free = tuple(t for t in range(self.n_tiles) if t not in self.fixed)
            choices = tuple((t, s) for t in free for s in bits(dom[t]))
            alive = all(dom)
            self._root = (dom if alive else None, free, choices, dom)
        dom, free, choices, _ = self._root
        return (None if dom is None else list(dom)), free, choices

    def root_domains(self) -> list[Mask]:
        """The root domains even when some are empty (for compiling to an exact cover)."""
        self.root()
        return list(self._root[3])

    def effects(self) -> list[tuple[tuple[int, Mask], ...]]:
        """For each choice id, the refinements it makes (only those that can bite)."""
        if self._effects is None:
            _, free, choices = self.root()
            rootdom = self._root[3]
            out = []
            for t, s in choices:
                merged: dict[int, Mask] = {}
                for u, m in self.index_rules(t, s):
                    merged[u] = merged.get(u, -1) & m
                if t in merged and not (merged[t] >> s) & 1:
                    merged[t] = 0  # the choice contradicts itself
                elif t in merged:
                    del merged[t]
                eff = tuple((u, m) for u, m in sorted(merged.items()) if rootdom[u] & m != rootdom[u])
                out.append(eff)
            self._effects = out
        return self._effects

    def choice_ids(self) -> list[dict[int, int]]:
        """Per tile: value index -> choice id."""
        _, _, choices = self.root()
        ids: list[dict[int, int]] = [{} for _ in range(self.n_tiles)]
        for k, (t, s) in enumerate(choices):
            ids[t][s] = k
        return ids

    # ------------------------------------------------------------------ using
    def solver(self, heuristic: str = "mrv") -> "ReductionSolver":
        return ReductionSolver(self, heuristic=heuristic)

    def assignment_indices(self, path: Sequence[int]) -> dict[int, int]:
        """Tile index -> value index of the fixed tiles and the choices of ``path``."""
        _, _, choices = self.root()
        out = dict(self.fixed)
        for k in path:
            t, s = choices[k]
            out[t] = s
        return out

    def assignment(self, path: Sequence[int]) -> dict:
        """Tile -> value for the fixed tiles and the choices of ``path``."""
        return {self.tiles[t]: self.values[s] for t, s in sorted(self.assignment_indices(path).items())}

    def is_solution(self, assignment: dict) -> bool:
        """Independent check: every tile has a value in its domain, fixed tiles keep theirs,
        and every rule of every assignment holds."""
        if set(assignment) != set(self.tiles):
            return False
        for t, s in assignment.items():
            ti = self.tile_index[t]
            si = self.value_index.get(s)
            if si is None:
                return False
            if ti in self.fixed and self.fixed[ti] != si:
                return False
            if ti in self.restrict and not (self.restrict[ti] >> si) & 1:
                return False
        for t, s in assignment.items():
            ti, si = self.tile_index[t], self.value_index[s]
            for u, m in self.index_rules(ti, si):
                if not (m >> self.value_index[assignment[self.tiles[u]]]) & 1:
                    return False
        return True

    def text(self, path: Sequence[int]) -> str:
        """A solution as text: ``render`` if given, else one ``tile = value`` line per tile."""
        a = self.assignment(path)
        if self.render is not None:
            return self.render(a)
        return "\n".join(f"{t} = {s}" for t, s in a.items())


class ReductionSolver(Solver):
    """The seed's search over a :class:`TileReduction`, keeping the Solver contract.

    ``heuristic="mrv"`` branches on the first tile with the fewest remaining values;
    ``"first"`` on the first unassigned tile.
    """

    def __init__(self, reduction: TileReduction, heuristic: str = "mrv"):
        if heuristic not in HEURISTICS:
            raise ValueError(f"unknown heuristic {heuristic!r} (use one of {', '.join(HEURISTICS)})")
        self.reduction = reduction
        self.heuristic = heuristic
        self._dom, self._free, self._choices = reduction.root()
        self._effects = reduction.effects()
        self._ids = reduction.choice_ids()

    # -- the pieces of one step ------------------------------------------------
    def _pick(self, dom: list[Mask], free: tuple[int, ...]) -> int:
        if self.heuristic == "first":
            return free[0]
        best, best_count = free[0], 1 << 30
        for u in free:
            c = dom[u].bit_count()
            if c < best_count:
                best, best_count = u, c
                if c <= 1:
                    break
        return best

    def _apply(self, dom: list[Mask], t: int, k: int) -> list[Mask] | None:
        nd = dom[:]
        nd[t] = 1 << self._choices[k][1]
        for u, m in self._effects[k]:
            x = nd[u] & m
            if not x:
                return None
            nd[u] = x
        return nd

    # -- the contract -------------------------------------------------------------
    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        started = time.perf_counter()
        listing, limit, max_depth = request.listing, request.limit, request.max_depth
        node_budget, seconds = request.node_budget, request.seconds
        path = tuple(int(k) for k in path)
        dom, free = self._dom, self._free
        denom = 1
        n_choices = len(self._choices)
        for depth, k in enumerate(path):
            if dom is None or not free:
                raise PathError(f"path {list(path)} goes below a leaf at depth {depth}")
            t = self._pick(dom, free)
            if not 0 <= k < n_choices or self._choices[k][0] != t or not (dom[t] >> self._choices[k][1]) & 1:
                raise PathError(f"choice {k} is not a branch at depth {depth} of path {list(path)}")
            denom *= dom[t].bit_count()
            dom = self._apply(dom, t, k)
            free = tuple(u for u in free if u != t)
        weight = Fraction(1, denom)

        stats = Stats(nodes_per_depth=[0] * len(path))
        npd = stats.nodes_per_depth
        base = len(path)
        cur = list(path)
        frontier: list[Subpath] = []
        found: list[Path] = []
        count = nodes = updates = leaves = 0
        stopped: str | None = None
        deadline = None if seconds is None else started + seconds
        effects, ids = self._effects, self._ids
        pick, apply = self._pick, self._apply
        # a frame: [tile, choice ids, next position, domains, free tiles below, denom below, depth]
        stack: list[list] = []
        node_dom, node_free, node_denom = dom, free, denom
        entering = True
        while True:
            if entering:
                entering = False
                depth = len(cur)
                if depth > base and (
                    (node_budget is not None and nodes >= node_budget)
                    or (deadline is not None and (nodes & 255) == 0 and time.perf_counter() >= deadline)
                ):
                    stopped = "budget"
                    frontier.append(Subpath(tuple(cur), Fraction(1, node_denom)))
                    break
                nodes += 1
                while len(npd) <= depth:
                    npd.append(0)
                npd[depth] += 1
                if max_depth is not None and (depth >= max_depth or node_dom is None or not node_free):
                    frontier.append(Subpath(tuple(cur), Fraction(1, node_denom)))
                elif node_dom is None:
                    leaves += 1  # a tile with no value left: dead end
                elif not node_free:
                    leaves += 1
                    count += 1
                    if listing:
                        found.append(tuple(cur))
                    if limit is not None and count >= limit:
                        stopped = "limit"
                        break
                else:
                    t = pick(node_dom, node_free)
                    m = node_dom[t]
                    row = ids[t]
                    kids = [row[s] for s in bits(m)]
                    stack.append(
                        [t, kids, 0, node_dom, tuple(u for u in node_free if u != t), node_denom * len(kids), depth]
                    )
            if not stack:
                break
            frame = stack[-1]
            pos = frame[2]
            if pos == len(frame[1]):
                stack.pop()
                continue
            frame[2] = pos + 1
            k = frame[1][pos]
            del cur[frame[6]:]
            cur.append(k)
            updates += len(effects[k])
            node_dom = apply(frame[3], frame[0], k)
            node_free, node_denom = frame[4], frame[5]
            entering = True
        if stopped is not None:
            for frame in reversed(stack):
                prefix = tuple(cur[: frame[6]])
                w = Fraction(1, frame[5])
                frontier.extend(Subpath(prefix + (k,), w) for k in frame[1][frame[2]:])
        stats.nodes, stats.leaves, stats.solutions, stats.updates = nodes, leaves, count, updates
        stats.seconds = time.perf_counter() - started
        return SolveResult(
            path=path,
            weight=weight,
            count=count,
            stats=stats,
            frontier=frontier,
            solutions=found if listing else None,
            stopped_by=stopped,
        )


# ---------------------------------------------------------------------- exact cover bridge
def choices_exact_cover(
    red: TileReduction,
    constraint_items: Callable[[int, int], Iterable[tuple[str, str | None]]],
    *,
    extra_primary: Sequence[str] = (),
    bounds: dict[str, tuple[int, int]] | None = None,
    tile_name: Callable[[int], str] | None = None,
    label: Callable[[int, int], str] | None = None,
) -> ExactCover:
    """An exact cover whose option ``k`` is choice ``k`` of ``red``: one primary item per
    free tile, plus the items ``constraint_items(t, s)`` gives (``(name, color)``; a name
    seen with a color is secondary, else primary)."""
    dom = red.root_domains()
    _, free, choices = red.root()
    tile_name = tile_name or (lambda t: f"t{t}")
    prim = [tile_name(t) for t in free]
    sec: list[str] = []
    primary_set, secondary_set = set(prim), set()
    rows = []
    for t, s in choices:
        extra = list(constraint_items(t, s))
        for name, color in extra:
            if color is None:
                if name not in primary_set:
                    primary_set.add(name)
                    prim.append(name)
            elif name not in secondary_set:
                secondary_set.add(name)
                sec.append(name)
        rows.append([(tile_name(t), None)] + extra)
    for name in extra_primary:
        if name not in primary_set:
            primary_set.add(name)
            prim.append(name)
    if any(dom[t] == 0 for t in range(red.n_tiles)):
        prim.append("(contradiction among the fixed tiles)")
    index = {n: i for i, n in enumerate(prim + sec)}
    color_index: dict[str, int] = {"": 0}
    colors = [""]
    opts = []
    for row in rows:
        entries = []
        for name, color in row:
            c = 0
            if color is not None:
                c = color_index.get(color)
                if c is None:
                    c = color_index[color] = len(colors)
                    colors.append(color)
            entries.append((index[name], c))
        opts.append(entries)
    labels = None
    if label is not None:
        labels = [label(t, s) for t, s in choices]
    bl = None
    if bounds:
        bl = [bounds.get(n, (1, 1)) for n in prim]
    return ExactCover.from_indices(prim + sec, len(prim), opts, colors, bl, labels)


# ---------------------------------------------------------------------- user-defined puzzles
def _resolve_factory(ref: str, source: str | None) -> Callable[..., TileReduction]:
    module_name, sep, func_name = ref.partition(":")
    if not sep or not module_name or not func_name:
        raise ProblemError(f"factory {ref!r} must be 'module:function'", source=source)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ProblemError(f"cannot import module {module_name!r} of factory {ref!r}: {exc}", source=source) from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ProblemError(f"module {module_name!r} has no function {func_name!r}", source=source)
    return func


class ReductionProblem(Problem):
    """A user-defined tile-reduction puzzle, rebuilt from ``module:function`` and arguments.

    Its spec is ``{"kind": "reduction", "format": "factory", "factory": "pkg.mod:func",
    "args": {...}}`` (or a TOML file with ``kind``, ``factory`` and an ``[args]`` table);
    ``func(**args)`` returns a :class:`TileReduction`.  The module must be importable
    wherever the problem is solved (workers included).
    """

    kind = "reduction"
    #: a general rule set has no exact cover: only the tile-reduction search
    engines = ("reduction",)

    def __init__(self, spec: dict[str, Any], reduction: TileReduction | None = None):
        super().__init__(spec)
        source = spec.get("source_name")
        if reduction is None:
            factory, args = spec.get("factory"), spec.get("args") or {}
            if spec.get("format") == "toml":
                data = tomllib.loads(spec["text"])
                factory, args = data.get("factory"), data.get("args") or {}
                unknown = set(data) - {"kind", "factory", "args", "name"}
                if unknown:
                    raise ProblemError(f"unknown key {sorted(unknown)[0]!r} for kind reduction", source=source)
            if not isinstance(factory, str):
                raise ProblemError('a reduction problem needs factory = "module:function"', source=source)
            if not isinstance(args, dict):
                raise ProblemError("args must be a table of keyword arguments", source=source)
            func = _resolve_factory(factory, source)
            try:
                reduction = func(**args)
            except ProblemError as exc:
                raise exc.located(source) from None
            except (TypeError, ValueError) as exc:
                raise ProblemError(f"factory {factory!r} failed: {exc}", source=source) from None
            if not isinstance(reduction, TileReduction):
                raise ProblemError(f"factory {factory!r} did not return a TileReduction", source=source)
        self.reduction = reduction
        if reduction.name and "name" not in spec and "source_name" not in spec:
            self.name = reduction.name

    @classmethod
    def from_factory(cls, factory: str, **args: Any) -> "ReductionProblem":
        """The problem ``factory(**args)`` names, with a spec any worker can rebuild it from."""
        return cls({"kind": "reduction", "format": "factory", "factory": factory, "args": args})

    def is_solution(self, solution: Path) -> bool:
        return self.reduction.is_solution(self.reduction.assignment(solution))

    def render_text(self, solution: Path) -> str:
        return self.reduction.text(solution)

    def describe(self) -> str:
        r = self.reduction
        return f"reduction: {r.n_tiles} tiles, {r.n_values} values, {len(r.fixed)} fixed"


register_kind("reduction", ReductionProblem)


def _reduction_solver(problem: Problem, options: SolverOptions) -> Solver:
    reduction = getattr(problem, "reduction", None)
    if not isinstance(reduction, TileReduction):
        raise ProblemError(f"{problem.name}: the {problem.kind} model has no tile reduction")
    return ReductionSolver(reduction)


register_engine(Engine("reduction", "the tile-reduction search: domains of values per tile, MRV (Python)",
                       frozenset(), _reduction_solver))


# ---------------------------------------------------------------------- a demo puzzle
def n_queens(n: int = 8) -> TileReduction:
    """``n`` queens on an ``n x n`` board: tiles = rows, values = columns.  The example of
    a user-defined puzzle (``factory = "core.reduction:n_queens"``)."""
    if not isinstance(n, int) or not 1 <= n <= MAX_QUEENS:
        raise ProblemError(f"n must be an integer from 1 to {MAX_QUEENS}")

    def rules(row, col):
        for other in range(n):
            if other != row:
                d = abs(other - row)
                yield other, [c for c in range(n) if c not in (col, col - d, col + d)]

    def render(assignment):
        return "\n".join(" ".join("Q" if assignment[r] == c else "." for c in range(n)) for r in range(n))

    return TileReduction(range(n), range(n), rules, render=render, name=f"{n}-queens")


#: the largest board ``queens-N`` (and :func:`n_queens`) takes
MAX_QUEENS = 64


def _queens_pattern(name: str) -> dict[str, Any] | None:
    """The spec of ``queens-N``; a name of the family past its limits is an error that
    states them."""
    import re

    m = re.fullmatch(r"queens-(\d+)", name)
    if not m:
        return None
    n = int(m.group(1))
    if not 1 <= n <= MAX_QUEENS:
        raise ProblemError(f"N at {'least 1' if n < 1 else f'most {MAX_QUEENS}'}", source=name)
    return {"kind": "reduction", "format": "factory", "factory": "core.reduction:n_queens", "args": {"n": n}}


register_pattern("queens-N", f"N queens on an N x N board, 1 <= N <= {MAX_QUEENS} (a user-defined tile reduction)",
                 _queens_pattern)
