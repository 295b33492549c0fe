"""Shared fixtures: ledger URLs (SQLite, a fresh PostgreSQL database per test), Redis,
unique Celery queues, and helpers that run the CLI and workers as real processes."""
from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests have no time limit: speed is measured in bench/, and a CI machine busy
# with the other half of the suite must not fail a law for being slow to check it.
settings.register_profile("tilecensus", deadline=None)
settings.load_profile("tilecensus")

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the packages are importable without an install
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "scheduler"))  # tc_helpers

from services import (  # noqa: E402  (the path above first)
    PG_ADMIN_URL, REDIS_HOST, REDIS_PORT, REDIS_TEST_DB, SESSION_TAG, Processes, create_pg_database,
    drop_pg_database, pg_admin, redis_up, start_redis,
)


@pytest.fixture(scope="session")
def pg_available() -> bool:
    try:
        pg_admin().close()
    except Exception as exc:  # report why PostgreSQL tests are skipped
        pytest.skip(f"PostgreSQL not reachable at {PG_ADMIN_URL}: {exc}")
    return True


@pytest.fixture
def pg_url(pg_available):
    """A fresh PostgreSQL database for this test, dropped afterwards."""
    name, url = create_pg_database()
    yield url
    drop_pg_database(name)


@pytest.fixture
def sqlite_url(tmp_path):
    return f"sqlite:///{tmp_path / 'ledger.sqlite'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def any_url(request, tmp_path):
    """Each ledger backend in turn."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    return request.getfixturevalue("pg_url")


@pytest.fixture(scope="session")
def redis_available() -> bool:
    if not redis_up():
        pytest.skip(f"Redis not reachable at {REDIS_HOST}:{REDIS_PORT}")
    return True


@pytest.fixture
def broker_url(redis_available):
    yield f"redis://{REDIS_HOST}:{REDIS_PORT}/{REDIS_TEST_DB}"
    start_redis()  # whatever the test did, leave Redis running


@pytest.fixture
def queue(request) -> str:
    """A Celery queue name of this test alone."""
    return f"tc-test-{SESSION_TAG}-{secrets.token_hex(4)}"


@pytest.fixture
def processes(tmp_path):
    procs = Processes(tmp_path)
    yield procs
    procs.stop_all()


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: end-to-end tests with real workers, Redis and PostgreSQL")


@pytest.fixture(autouse=True)
def _services_one_at_a_time(request):
    """Tests that start workers or restart Redis hold one machine-wide lock, so that with
    pytest-xdist a Redis restart never lands in the middle of another test's run."""
    parts = Path(str(request.node.fspath)).parts
    if "e2e" not in parts and "worker" not in parts:
        yield
        return
    import fcntl
    import tempfile

    with open(os.path.join(tempfile.gettempdir(), "tilecensus-service-tests.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
