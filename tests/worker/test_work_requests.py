"""Work stealing between Celery workers over Redis (scheduler/work_requests.py), with the
real Redis: a waiting worker's token stops another process's search with its frontier and
sends the rest of its message back to the queue; the waiting ends when a message is
queued or nobody searches, and leaves no token; a sender wakes the waiting."""
from __future__ import annotations

import secrets
import threading
import time

import pytest
import redis

from tc_helpers import SentMessages, make_run, sub_ids
from core.kernel import KernelSolver
from core.library import load
from core.search import SolveRequest
from scheduler import ledger as L
from scheduler.db import open_ledger
from scheduler.celery_messages import execute_batch
from scheduler import work_requests
from scheduler.work_requests import WorkRequests


@pytest.fixture
def own_tokens(monkeypatch) -> None:
    """This test's requests for work under keys of its own: its run ids (1 in a fresh
    ledger) are every test's, and tests run side by side on the same Redis."""
    tag = secrets.token_hex(4)
    monkeypatch.setattr(work_requests, "token_key", lambda run_id: f"tilecensus:test-{tag}:hungry:{run_id}")
    monkeypatch.setattr(work_requests, "fed_key", lambda run_id: f"tilecensus:test-{tag}:fed:{run_id}")


def _requests(url: str) -> WorkRequests:
    return WorkRequests(redis.Redis.from_url(url))


class _Asking(SentMessages):
    """Messages kept here, requests for work over the real Redis, a queue never empty
    (the message's end does not wait for work)."""

    def __init__(self, url: str):
        super().__init__()
        self._requests = _requests(url)

    def queue_size(self, queue: str) -> int:
        return 1


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
    assert requests.redis.llen(work_requests.token_key(run_id)) == 0


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
        looks.append(requests.redis.lrange(work_requests.token_key(run_id), 0, -1))
        return 1 if len(looks) >= 3 else 0

    assert requests.wait_for_work(run_id, "me", queued, lambda: True) == "queued"
    assert looks[1] == [b"me"] and looks[2] == [b"me"]  # one token, renewed, not doubled
    assert requests.redis.llen(work_requests.token_key(run_id)) == 0


def test_no_requests_without_a_redis_broker():
    assert WorkRequests.for_broker("amqp://guest@localhost//") is None
    assert WorkRequests.for_broker("redis://localhost:6379/0") is not None


class _GivenBack:
    """What a worker handed back to the ledger (each hand-back's ids, in order) and how
    often it woke the waiting workers."""

    def __init__(self, monkeypatch, executor):
        from scheduler import celery_messages

        self.ids: list[list[int]] = []
        self.wakes = 0
        real_unlease, real_fed = celery_messages.unlease, executor.requests.fed

        def unlease(ledger, sub_ids, owner):
            self.ids.append(list(sub_ids))
            real_unlease(ledger, sub_ids, owner)

        def fed(run_id):
            self.wakes += 1
            real_fed(run_id)

        monkeypatch.setattr(celery_messages, "unlease", unlease)
        monkeypatch.setattr(executor.requests, "fed", fed)


def test_asked_for_work_a_worker_leaves_its_unstarted_rest_in_the_ledger(sqlite_url, broker_url, own_tokens,
                                                                         monkeypatch):
    """A token taken while a message is held: the subproblems not started go back to the
    ledger, pending for whichever worker pulls next, and the waiting workers are woken;
    nothing goes to the queue, and the run still counts exactly (here the worker pulls
    them back itself: nobody else does)."""
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "pentomino-6x10", depth=1, executor="celery", memo=False)
    ids = sub_ids(ledger, run_id)
    executor = _Asking(broker_url)
    given = _GivenBack(monkeypatch, executor)
    executor.requests.redis.rpush(work_requests.token_key(run_id), "idle-worker")
    execute_batch(ledger, run_id, ids, executor)
    started = len(ids) - len(given.ids[0])
    assert 1 <= started <= 3 and given.ids[0] == ids[started:]
    assert given.wakes >= 1 and executor.sent == []
    assert L.get_run(ledger, run_id).solutions == 9356


def test_a_sender_wakes_the_waiting_workers(broker_url):
    requests = _requests(broker_url)
    run_id = 555_000_000 + int(time.time() * 1000) % 1_000_000
    requests.fed(run_id)
    assert requests.redis.llen(work_requests.fed_key(run_id)) == 1
    requests._nap(run_id)  # returns at once, taking the wake-up
    assert requests.redis.llen(work_requests.fed_key(run_id)) == 0




def test_a_message_of_young_searches_gives_back_its_rest_at_once(sqlite_url, broker_url, own_tokens, monkeypatch):
    """A token that comes while the message's searches are all young (each made to last
    20 ms more, under HANDOFF_AFTER, so none is stopped) is taken at once all the same:
    the subproblems not started go back at the end of the running search, instead of the
    asker waiting for a search old enough to stop (here: none, the whole message)."""
    from scheduler import celery_messages

    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "pentomino-6x10", depth=2, executor="celery", memo=False)  # 328, each < 30 ms
    ids = sub_ids(ledger, run_id)
    executor = _Asking(broker_url)
    given = _GivenBack(monkeypatch, executor)
    real, calls = celery_messages.solve_task, []

    def young(*args):
        calls.append(1)
        if len(calls) == 5:  # the token comes during the fifth search
            executor.requests.redis.rpush(work_requests.token_key(run_id), "idle-worker")
        time.sleep(0.02)
        return real(*args)

    monkeypatch.setattr(celery_messages, "solve_task", young)
    execute_batch(ledger, run_id, ids[:40], executor)  # the message; the worker then pulls the rest for 5 s
    assert len(ids[:40]) - len(given.ids[0]) in (5, 6)
    monkeypatch.setattr(celery_messages, "solve_task", real)
    while pending := sub_ids(ledger, run_id, state="pending"):  # what is left after its 5 s on the run
        execute_batch(ledger, run_id, pending, None)
    assert L.get_run(ledger, run_id).solutions == 9356


def _until(condition, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.002)
    return condition()


def test_a_token_taken_but_not_answered_goes_back(broker_url, own_tokens):
    """A token taken during a message that sends nothing after it (its last search ended
    just then) goes back to the list when the message ends, for another worker; one
    answered by messages sent does not."""
    requests = _requests(broker_url)
    run_id = 777_000_000 + int(time.time() * 1000) % 1_000_000
    key = work_requests.token_key(run_id)
    with requests.serving(run_id):
        requests.redis.rpush(key, "idle-worker")
        assert _until(requests.asked)
    assert requests.redis.lrange(key, 0, -1) == [b"idle-worker"]
    requests.redis.delete(key)
    with requests.serving(run_id):
        requests.redis.rpush(key, "idle-worker")
        assert _until(requests.asked)
        requests.fed(run_id)  # the message sent work out: the asker is answered
    assert requests.redis.llen(key) == 0


def test_a_listener_whose_message_ended_gives_the_token_back(broker_url, own_tokens):
    """The listener still waiting on the list when its message ends (it blocks up to
    POLL_SECONDS at a time) does not keep a token pushed meanwhile: the asker's request
    stays for a worker that holds work."""
    requests = _requests(broker_url)
    run_id = 888_000_000 + int(time.time() * 1000) % 1_000_000
    key = work_requests.token_key(run_id)
    for _ in range(5):
        with requests.serving(run_id):
            time.sleep(0.01)  # the listener is now blocked on the list
        requests.redis.rpush(key, "idle-worker")
        time.sleep(work_requests.POLL_SECONDS * 2)
        assert requests.redis.lrange(key, 0, -1) == [b"idle-worker"]
        requests.redis.delete(key)


def test_the_unstarted_rest_goes_back_during_the_running_search(sqlite_url, broker_url, own_tokens, monkeypatch):
    """A token taken while the message still holds subproblems not started: the listening
    thread hands them back at once, while the running search goes on (it is not stopped,
    and the asker need not wait for its end); the count stays exact."""
    from scheduler import celery_messages

    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "pentomino-6x10", depth=2, executor="celery", memo=False)
    ids = sub_ids(ledger, run_id)
    executor = _Asking(broker_url)
    given = _GivenBack(monkeypatch, executor)
    real, calls, seen_during = celery_messages.solve_task, [], []

    def slow_third(*args):
        calls.append(1)
        if len(calls) == 3:  # the token comes during the third search, which lasts until the rest went
            executor.requests.redis.rpush(work_requests.token_key(run_id), "idle-worker")
            seen_during.append(_until(lambda: bool(given.ids)))
        return real(*args)

    monkeypatch.setattr(celery_messages, "solve_task", slow_third)
    execute_batch(ledger, run_id, ids[:40], executor)
    assert seen_during == [True]
    assert given.ids[0] == ids[3:40]
    assert L.get_run(ledger, run_id).solutions == 9356


def test_a_worker_asking_for_work_does_not_take_its_own_token(broker_url, own_tokens):
    """A worker staying on its run asks while it still serves the run: its own listener
    leaves its token for the others (traced: it took it, and the asker idled until the
    other worker's search ended, 100 ms at the end of half the box's runs)."""
    requests = _requests(broker_url)
    run_id = 999_000_000 + int(time.time() * 1000) % 1_000_000
    key = work_requests.token_key(run_id)
    seen: list[list[bytes]] = []

    def nap(_run: int) -> None:
        time.sleep(work_requests.POLL_SECONDS * 2)  # the listener has had time to take it
        seen.append(requests.redis.lrange(key, 0, -1))

    with requests.serving(run_id):
        looks = iter(range(3))
        why = requests.wait_for_work(run_id, "me", lambda: 0, lambda: next(looks, None) is not None, nap=nap)
    assert why == "nobody searching"
    assert seen == [[b"me"]] * 3 and not requests.asked()
    assert requests.redis.llen(key) == 0  # taken back once it stopped asking


def test_a_new_connection_for_requests_sends_its_database_alone(broker_url, monkeypatch):
    """No ``HELLO``, ``CLIENT MAINT_NOTIFICATIONS`` nor ``CLIENT SETINFO`` before the first
    command: each was a round trip on a link with latency."""
    import redis.connection

    sent = []
    real = redis.connection.AbstractConnection.send_command

    def counted(self, *args, **kwargs):
        sent.append(str(args[0]).upper())
        return real(self, *args, **kwargs)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_command", counted)
    requests = WorkRequests.for_broker(broker_url)
    requests.redis.ping()
    assert sent == ["SELECT", "PING"] if not broker_url.endswith("/0") else sent == ["PING"]
