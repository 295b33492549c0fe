"""The newest revision of the ledger's schema, read from the migration files' own
``revision = ...`` and ``down_revision = ...`` lines, without importing Alembic.

Alembic costs a few hundred milliseconds to import; every command opens the ledger, and
almost always finds its schema already at the newest revision.  So
:func:`scheduler.db.open_ledger` compares the stored revision with :func:`head_revision`
and loads Alembic (:mod:`scheduler.migrate`) only when they differ.  A test checks that
this reading agrees with Alembic's own head.
"""
from __future__ import annotations

import functools
import os
import re

import migrations

VERSIONS = os.path.join(os.path.dirname(migrations.__file__), "versions")

_REVISION = re.compile(r"^revision\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)
_DOWN_REVISION = re.compile(r"^down_revision\s*(?::[^=]*)?=(.*)$", re.MULTILINE)
_QUOTED = re.compile(r"['\"]([^'\"]+)['\"]")


@functools.cache
def head_revision() -> str | None:
    """The one revision no other migration revises; None when there is not exactly one
    (no migrations, several heads, or a file this reading does not understand), so the
    caller asks Alembic."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for name in sorted(n for n in os.listdir(VERSIONS) if n.endswith(".py")):
        with open(os.path.join(VERSIONS, name), encoding="utf-8") as f:
            text = f.read()
        revision = _REVISION.search(text)
        if revision is None:
            continue  # __init__.py, or a helper module beside the migrations
        down = _DOWN_REVISION.search(text)
        if down is None:
            return None
        revisions.add(revision.group(1))
        revised.update(_QUOTED.findall(down.group(1)))
    heads = revisions - revised
    return heads.pop() if len(heads) == 1 else None
