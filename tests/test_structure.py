"""The layout DESIGN.md describes, checked: no module reaches into another's private
names.  (The import contracts — layers, and no cycles between the modules of a package
even through a function-local import — are import-linter's, in pyproject.toml; .ci/run
runs `lint-imports`, and so does the test below.)"""
from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "scheduler", "worker", "migrations")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = ROOT / name.replace(".", "/")
    return path.is_dir() or path.with_suffix(".py").exists() or any(path.parent.glob(path.name + ".*.so")) \
        or path.with_suffix(".c").exists()


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_reach_ins() -> list[str]:
    """``from a import _b`` (``_b`` not a module of one's own package) and ``a._b`` where
    ``a`` is a project module, in the project's own code."""
    found = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            module, is_package = _module_name(path), path.name == "__init__.py"
            own_package = module if is_package else module.rsplit(".", 1)[0]
            tree = ast.parse(path.read_text(encoding="utf-8"))
            modules: dict[str, str] = {}
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    target = _absolute(module, node, is_package)
                    if target.split(".")[0] not in PACKAGES:
                        continue
                    for alias in node.names:
                        full = f"{target}.{alias.name}"
                        if _is_module(full):
                            modules[alias.asname or alias.name] = full
                        private = alias.name.startswith("_") and not alias.name.startswith("__")
                        if private and not (_is_module(full) and target == own_package):
                            found.append(f"{module}: from {target} import {alias.name}")
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.split(".")[0] in PACKAGES:
                            modules[alias.asname or alias.name] = alias.name
            for node in ast.walk(tree):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                        and node.attr.startswith("_") and not node.attr.startswith("__")):
                    found.append(f"{module}: {node.value.id}.{node.attr}")
    return sorted(set(found))


def test_no_module_reaches_into_another_modules_private_names():
    assert private_reach_ins() == []


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint, "import-linter is a test dependency (pip install -e '.[test]')"
    result = subprocess.run([lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
