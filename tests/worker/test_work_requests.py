"""Work stealing between Celery workers over Redis (scheduler/work_requests.py), with the
real Redis: a waiting worker's token stops another process's search with its frontier;
the waiting ends when a message is queued or nobody searches, and leaves no token."""
from __future__ import annotations

import threading
import time

import redis

from core.kernel import KernelSolver
from core.library import load
from core.search import SolveRequest
from scheduler.work_requests import WorkRequests, token_key


def _requests(url: str) -> WorkRequests:
    return WorkRequests(redis.Redis.from_url(url))


def test_a_token_stops_the_search_with_its_frontier(broker_url):
    run_id = 10_000 + int(time.time() * 1000) % 1_000_000
    requests, waiting = _requests(broker_url), _requests(broker_url)
    solver = KernelSolver(load("pentomino-6x10").exact_cover(), memo=False)  # about 2 s of search
    stop = threading.Event()
    waited = []
    thread = threading.Thread(target=lambda: waited.append(
        waiting.wait_for_work(run_id, "idle-worker", lambda: 0, lambda: not stop.is_set())))
    thread.start()
    try:
        with requests.searching(run_id):
            result = solver.solve((), SolveRequest(seconds=600))
    finally:
        stop.set()
        thread.join(timeout=30)
    assert result.stopped_by == "budget" and result.frontier
    assert result.weight_done + sum(s.weight for s in result.frontier) == 1
    assert waited == ["nobody searching"]
    assert requests.redis.llen(token_key(run_id)) == 0


def test_without_a_token_the_search_runs_to_its_end(broker_url):
    requests = _requests(broker_url)
    solver = KernelSolver(load("pentomino-3x20").exact_cover())
    with requests.searching(987_654_321):
        result = solver.solve((), SolveRequest(seconds=60))
    assert result.complete and result.count == 8


def test_waiting_ends_when_a_message_is_queued_and_takes_its_token_back(broker_url):
    requests = _requests(broker_url)
    run_id = 123_456_789
    looks = []

    def queued() -> int:
        looks.append(requests.redis.lrange(token_key(run_id), 0, -1))
        return 1 if len(looks) >= 3 else 0

    assert requests.wait_for_work(run_id, "me", queued, lambda: True) == "queued"
    assert looks[1] == [b"me"] and looks[2] == [b"me"]  # one token, renewed, not doubled
    assert requests.redis.llen(token_key(run_id)) == 0


def test_no_requests_without_a_redis_broker():
    assert WorkRequests.for_broker("amqp://guest@localhost//") is None
    assert WorkRequests.for_broker("redis://localhost:6379/0") is not None
