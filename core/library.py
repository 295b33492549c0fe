"""Loading problems: by built-in name or from a file, for every model.

Each model registers its kinds and named problems in :mod:`core.catalog` when it is
imported; the lookups here import a model only when they need it: a spec's kind its own
module (:data:`core.catalog.KIND_MODELS`), a name the models in
:data:`core.catalog.MODELS`' order until one knows it, a listing all of them.  A small
run's command then loads one model, not six.  :func:`load` is the one entry point the
CLI and the workers use; :func:`from_spec` rebuilds a problem from the spec stored in
the ledger.
"""
from __future__ import annotations

import importlib
import os
import re
import sys
from typing import Any, Iterable

from . import catalog
from .catalog import LibraryEntry, NamePattern
from .errors import ProblemError
from .problem import Problem
from .sniff import is_toml_with_kind, sniff
from .toml_input import load_toml


def import_models(*modules: str) -> None:
    """Import model modules (each registers itself on import); none named: every one."""
    for module in modules or catalog.MODELS:
        importlib.import_module(module)


def library() -> list[LibraryEntry]:
    """Every built-in named problem, grouped by kind, each kind in natural name order."""
    import_models()
    return sorted(catalog.ENTRIES.values(), key=lambda e: (e.spec.get("kind", ""), natural_key(e.name)))


def natural_key(name: str) -> tuple[Any, ...]:
    """Sort key putting ``crossword-2`` before ``crossword-10``: digit runs compare as numbers."""
    return tuple((1, int(part)) if part.isdigit() else (0, part) for part in re.split(r"(\d+)", name))


def library_patterns() -> list[NamePattern]:
    """The families of named problems (``dominoes-RxC``)."""
    import_models()
    return list(catalog.PATTERNS)


def named_spec(name: str) -> dict[str, Any] | None:
    """The spec of a built-in named problem, or None: the models are imported in
    :data:`core.catalog.MODELS`' order until the name is known (no two models know the
    same name: a test checks every name finds the spec it finds with all imported)."""
    for module in catalog.MODELS:
        import_models(module)
        spec = _known(name)
        if spec is not None:
            return spec
    return None


def _known(name: str) -> dict[str, Any] | None:
    """The spec of ``name`` among the models imported so far, or None."""
    if name in catalog.ENTRIES:
        return dict(catalog.ENTRIES[name].spec, name=name)
    for pattern in catalog.PATTERNS:
        spec = pattern.factory(name)
        if spec is not None:
            return dict(spec, name=name)
    return None


def from_spec(spec: dict[str, Any]) -> Problem:
    """Rebuild a problem from its spec (as stored in the ledger)."""
    kind = spec.get("kind")
    loader = catalog.LOADERS.get(kind)  # type: ignore[arg-type]
    if loader is None:
        import_models(*([catalog.KIND_MODELS[kind]] if kind in catalog.KIND_MODELS else []))
        loader = catalog.LOADERS.get(kind)  # type: ignore[arg-type]
    if loader is None:
        raise ProblemError(f"unknown problem kind {kind!r} (known: {', '.join(kinds())})")
    return loader(spec)


def kinds() -> Iterable[str]:
    """The kinds a spec may name."""
    import_models()
    return sorted(catalog.LOADERS)

#: file suffix -> format name
SUFFIX_FORMATS = {".dlx": "dlx", ".toml": "toml", ".txt": "text", ".puz": "puz", ".ipuz": "ipuz", ".xd": "xd"}
#: formats that only one model reads: the suffix names the model too
SUFFIX_KINDS = {"dlx": "exact-cover", "puz": "crossword", "ipuz": "crossword", "xd": "crossword"}
#: the name that reads a problem from standard input
STDIN = "-"


def spec_from_file(path: str, kind: str | None = None) -> dict[str, Any]:
    """Read a problem file (``-``: standard input) into a spec (its text travels with the
    spec, so a worker on another machine needs no copy of the file)."""
    if path == STDIN:
        stream = getattr(sys.stdin, "buffer", None)  # (a text stream without bytes under tests)
        if stream is None:
            return spec_from_text(sys.stdin.read(), source_name="<stdin>", kind=kind)
        return spec_from_bytes(stream.read(), source_name="<stdin>", kind=kind)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        raise ProblemError("no such file or built-in problem", source=path) from None
    except IsADirectoryError:
        raise ProblemError("a directory, not a problem file", source=path) from None
    except OSError as exc:
        raise ProblemError(f"cannot read file: {exc.strerror or exc}", source=path) from None
    return spec_from_bytes(data, source_name=path, kind=kind)


def spec_from_bytes(data: bytes, *, source_name: str = "<stdin>", kind: str | None = None) -> dict[str, Any]:
    """The spec of a problem file's bytes: an Across Lite ``.puz`` file (binary: told by
    its suffix or its magic string) travels as base64 text; anything else must be UTF-8
    text (:func:`spec_from_text`)."""
    from .crossword.puz_file import is_puz  # (the crossword model: imported for files only)
    from .crossword.puz_file import spec_text as puz_spec_text

    suffix = os.path.splitext(source_name)[1].lower()
    if SUFFIX_FORMATS.get(suffix) == "puz" or (kind in (None, "crossword") and is_puz(data)):
        if kind not in (None, "crossword"):
            raise ProblemError(f"--kind {kind}: a .puz file is a crossword", source=source_name)
        return {"kind": "crossword", "format": "puz", "text": puz_spec_text(data), "source_name": source_name}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ProblemError("not a problem file: not UTF-8 text", source=source_name) from None
    return spec_from_text(text, source_name=source_name, kind=kind)


def spec_from_text(text: str, *, source_name: str = "<text>", kind: str | None = None) -> dict[str, Any]:
    """The spec of a problem given as text: TOML (its ``kind`` line names the model), a
    ``.dlx``, ``.ipuz`` or ``.xd`` file, or ``kind``'s format; without ``kind``, the model
    is told from the content (:mod:`core.sniff`)."""
    suffix = os.path.splitext(source_name)[1].lower()
    fmt = SUFFIX_FORMATS.get(suffix)
    if fmt == "toml" or (fmt not in SUFFIX_KINDS and kind is None and is_toml_with_kind(text)):
        data = load_toml(text, source_name)
        toml_kind = data.get("kind")
        if not isinstance(toml_kind, str):
            raise ProblemError('the TOML file needs a line kind = "..." naming the model', source=source_name)
        if kind is not None and kind != toml_kind:
            raise ProblemError(f"--kind {kind} disagrees with kind = {toml_kind!r} in the file", source=source_name)
        return {"kind": toml_kind, "format": "toml", "text": text, "source_name": source_name}
    if fmt == "puz":
        raise ProblemError("a .puz file is binary: read it from its file", source=source_name)
    if kind is None and fmt in SUFFIX_KINDS:
        kind = SUFFIX_KINDS[fmt]
    if kind is None:
        found = sniff(text, source_name)  # (TOML was taken above: here found.kind is a model)
        return {"kind": found.kind, "format": found.format, "text": text, "source_name": source_name}
    if fmt is None:  # --kind K on a file without a telling suffix: K's format, as the content says
        try:
            found = sniff(text, source_name)
        except ProblemError:
            found = None
        if found is not None and found.kind == kind:
            fmt = found.format
    return {"kind": kind, "format": fmt or "text", "text": text, "source_name": source_name}


def load_spec(name_or_path: str, kind: str | None = None) -> dict[str, Any]:
    """The spec of a built-in name, a file path, or ``-`` (standard input)."""
    if name_or_path != STDIN and not os.path.exists(name_or_path):
        spec = named_spec(name_or_path)
        if spec is not None:
            if kind is not None and spec.get("kind") != kind:
                raise ProblemError(f"built-in problem {name_or_path!r} is of kind {spec.get('kind')!r}, not {kind!r}")
            return spec
    return spec_from_file(name_or_path, kind)


def load(name_or_path: str, kind: str | None = None) -> Problem:
    """A problem by built-in name (``tilecensus problems`` lists them), from a file, or
    from standard input (``-``)."""
    return from_spec(load_spec(name_or_path, kind))
