"""When a worker that Celery stopped starts again, and how soon."""
from __future__ import annotations

import pytest

from scheduler.restarts import ENV_RESTARTS, RestartPolicy, previous_failures

POLICY = RestartPolicy(first_pause=1.0, max_pause=30.0, healthy_after=60.0)


@pytest.mark.parametrize("code, ready, asked, expected", [
    (1, True, False, True),     # serving, then an unrecoverable error: start again
    (1, False, False, False),   # failed while starting (a bad option): report it
    (1, True, True, False),     # a cold shutdown someone asked for
    (0, True, False, False),    # a clean stop (remote `shutdown`)
    (0, True, True, False),     # a warm shutdown (SIGTERM)
    (None, True, False, False),
])
def test_only_an_unasked_failure_after_ready_restarts(code, ready, asked, expected):
    assert POLICY.should_restart(code, ready, asked) is expected


def test_pauses_double_with_quick_failures_and_are_capped():
    failures, pauses = 0, []
    for _ in range(8):
        failures = POLICY.failures(failures, ran_for=5.0)
        pauses.append(POLICY.pause(failures))
    assert pauses == [1, 2, 4, 8, 16, 30, 30, 30]


def test_a_worker_that_ran_long_starts_the_doubling_over():
    assert POLICY.failures(previous=6, ran_for=60.0) == 1
    assert POLICY.pause(POLICY.failures(previous=6, ran_for=3600.0)) == 1.0
    assert POLICY.failures(previous=6, ran_for=59.0) == 7


@pytest.mark.parametrize("value, expected", [(None, 0), ("3", 3), ("-2", 0), ("x", 0), ("", 0)])
def test_previous_failures_come_from_the_environment(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv(ENV_RESTARTS, raising=False)
    else:
        monkeypatch.setenv(ENV_RESTARTS, value)
    assert previous_failures() == expected
