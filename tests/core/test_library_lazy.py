"""The library imports models as lookups need them (issue 43, part 2): a name or a kind
finds what it finds with every model imported, and a polyform run loads no other model."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core import catalog
from core.library import import_models, kinds, library, library_patterns, named_spec

ROOT = Path(__file__).resolve().parents[2]

#: names of each family of patterns, one per model (sizes within each pattern's limits)
PATTERN_NAMES = ["dominoes-4x5", "tetrominoes-8x8", "latin-4", "queens-6", "crossword-all-5x5", "hoffman-5x6x7"]


def _fresh(code: str) -> object:
    """What ``code`` prints as JSON, run in a fresh interpreter (nothing imported yet)."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_kind_models_name_the_module_that_registers_each_kind():
    import_models()
    builtin = {kind for kind, loader in catalog.LOADERS.items() if loader.__module__.startswith("core.")}
    assert set(catalog.KIND_MODELS) == builtin
    for kind, module in catalog.KIND_MODELS.items():
        assert catalog.LOADERS[kind].__module__.startswith(module), kind
    assert set(catalog.KIND_MODELS.values()) == set(catalog.MODELS)


def test_every_name_found_lazily_is_the_spec_found_with_every_model_imported():
    """In a fresh process each name is looked up before any listing imports everything:
    the spec is the one the full catalog gives, so no model's name hides another's."""
    names = [e.name for e in library()] + PATTERN_NAMES + ["no-such-problem"]
    expected = {}
    for name in names:
        if name in catalog.ENTRIES:
            expected[name] = dict(catalog.ENTRIES[name].spec, name=name)
        else:
            found = next((p.factory(name) for p in library_patterns() if p.factory(name) is not None), None)
            expected[name] = None if found is None else dict(found, name=name)
    assert all(expected[n] is not None for n in PATTERN_NAMES)
    code = ("import json; from core.library import named_spec\n"
            f"print(json.dumps({{n: named_spec(n) for n in {names!r}}}))")
    assert _fresh(code) == json.loads(json.dumps(expected))
    assert named_spec("no-such-problem") is None


def test_a_polyform_name_imports_no_other_model():
    code = ("import json, sys; from core.library import load\n"
            "load('pentomino-6x10').exact_cover()\n"
            "print(json.dumps(sorted(m for m in sys.modules if m in "
            f"{list(catalog.MODELS)!r})))")
    assert _fresh(code) == ["core.polyform.problem"]


def test_a_spec_imports_only_its_kind():
    code = ("import json, sys; from core.library import from_spec, load_spec\n"
            "from_spec(load_spec('sudoku-4x4'))\n"
            f"print(json.dumps(sorted(m for m in sys.modules if m in {list(catalog.MODELS)!r})))")
    assert "core.sudoku" in _fresh(code)


def test_an_unknown_kind_lists_every_kind():
    from core.errors import ProblemError
    from core.library import from_spec

    with pytest.raises(ProblemError, match="unknown problem kind 'nope'") as err:
        from_spec({"kind": "nope"})
    for kind in catalog.KIND_MODELS:
        assert kind in str(err.value)
    assert set(catalog.KIND_MODELS) <= set(kinds())
