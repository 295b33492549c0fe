"""constraints.txt pins every dependency, each pin satisfies pyproject.toml, and the
README's install commands, CI and the Docker image all install with it."""
from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def _pins() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for number, line in enumerate((ROOT / "constraints.txt").read_text().splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        assert sep, f"constraints.txt:{number}: {line!r} is not name==version"
        key = canonicalize_name(name)
        assert key not in pins, f"constraints.txt:{number}: {name} pinned twice"
        pins[key] = Version(version)
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        specs.extend(extra)
    return [Requirement(s) for s in specs]


def test_every_dependency_is_pinned_within_its_bounds():
    pins = _pins()
    for req in _requirements():
        key = canonicalize_name(req.name)
        assert key in pins, f"{req.name} is a dependency but constraints.txt does not pin it"
        assert req.specifier.contains(pins[key], prereleases=True), (
            f"constraints.txt pins {req.name}=={pins[key]}, outside pyproject.toml's {req}"
        )


def test_known_bad_releases_are_not_pinned():
    celery = next(r for r in _requirements() if r.name == "celery")
    assert not celery.specifier.contains("5.7.0"), "celery 5.7.0 kills workers on a Redis restart"
    assert _pins()["celery"] != Version("5.7.0")


def test_installs_use_the_constraints():
    readme = (ROOT / "README.md").read_text()
    installs = [line for line in readme.splitlines() if "pip install" in line]
    assert installs
    for line in installs:
        assert "-c constraints.txt" in line, f"README installs without the constraints: {line.strip()}"
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -q -c constraints.txt -e '.[test]'" in ci
    assert "-c constraints.txt" in (ROOT / "Dockerfile").read_text()
