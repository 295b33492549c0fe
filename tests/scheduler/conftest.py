"""Fixtures shared by the scheduler tests."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from scheduler.cli import cli


@pytest.fixture
def tc(sqlite_url, monkeypatch):
    """Run the `tilecensus` CLI on a fresh SQLite ledger; asserts the exit code."""
    monkeypatch.setenv("TILECENSUS_DB_URL", sqlite_url)
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == code, (result.output, result.stderr)
        return result

    return invoke
