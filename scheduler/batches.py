"""Several subproblems in one Celery message, sized from an estimate of their time.

A message costs the same whatever it carries (the broker's round trip, the worker's task
start), so subproblems that take milliseconds travel together.  A message is filled, in
the order given, until its estimated seconds — each subproblem's weight (its share of
the tree) times the run's measured seconds per unit of weight — reach a target; a
subproblem estimated over the target travels alone.  Without an estimate each subproblem
is a message of its own, as before batching.

The worker that runs a message hands back what it has not started once
:data:`MESSAGE_SECONDS` (or the run's budget, if shorter) have passed
(:func:`scheduler.celery_messages.execute_batch`), so an estimate that was too low costs at most
one message's time of imbalance.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

#: at most this many subproblems in one message
MOST_PER_MESSAGE = 64
#: a message's target time, and the time after which a worker hands back the rest of it
MESSAGE_SECONDS = 5.0
#: a message takes at most 1/share of the estimated work not yet in a message (guided
#: self-scheduling): big messages first, smaller ones toward the end of the queue, so the
#: last ones are short.  The share is the number of workers serving the queue where they
#: announced themselves (:mod:`scheduler.workforce`), else this: short last messages
#: however many workers there are
GUIDED_SHARE = 4
#: the workers a Celery run is planned for where none has announced itself on its queue
#: (:mod:`scheduler.workforce`): as many messages as that carry it to them
CLUSTER_WORKERS = 8
#: ... but its target is not cut below this (seconds): a message costs a few milliseconds
#: (its lease, its results recorded, a look at the run).  At 0.1 s the last donated
#: frontier of a pentacube box run (2026-11-28: 50 subproblems, 0.12 s) went in one
#: message, which one of two idle workers took while the other idled to the end
MESSAGE_FLOOR_SECONDS = 0.03


def seconds_per_weight(seconds: float, weight_done: Fraction | float) -> float | None:
    """The measured time per unit of weight (the whole tree is weight 1): ``seconds``
    spent finishing ``weight_done``; None when nothing finished (no measure)."""
    done = float(weight_done)
    if done <= 0.0 or seconds < 0.0:
        return None
    return seconds / done


def message_target(budget: float) -> float:
    """The seconds one message aims at: :data:`MESSAGE_SECONDS`, or a shorter task budget
    (a message is handed back after that long anyway)."""
    return min(MESSAGE_SECONDS, budget)


def pack(sub_ids: Sequence[int], weights: Sequence[Fraction | float], rate: float | None, target: float,
         most: int = MOST_PER_MESSAGE, share: int | None = None) -> list[list[int]]:
    """The subproblems ``sub_ids`` (with ``weights``, in the same order) as messages:
    greedy in order, a message closes once its estimated seconds (weight x ``rate``, the
    seconds per unit of weight) would pass its cap or it holds ``most``.  A message's cap,
    set when it opens, is ``target`` or, if less, 1/``share`` of the estimated seconds
    not yet in a message (not below :data:`MESSAGE_FLOOR_SECONDS`); ``share``: the
    workers that serve the queue, None when unknown (:data:`GUIDED_SHARE`).  ``rate``
    None: one subproblem per message."""
    if len(sub_ids) != len(weights):
        raise ValueError(f"{len(sub_ids)} subproblems but {len(weights)} weights")
    if most < 1:
        raise ValueError("a message holds at least one subproblem")
    if share is not None and share < 1:
        raise ValueError("a message's share is of at least one worker")
    if rate is None:
        return [[sub_id] for sub_id in sub_ids]
    estimates = [float(w) * rate for w in weights]
    remaining = sum(estimates)
    messages: list[list[int]] = []
    current: list[int] = []
    seconds = 0.0
    share = GUIDED_SHARE if share is None else share
    cap = message_cap(remaining, target, share)
    for sub_id, estimated in zip(sub_ids, estimates):
        if current and (seconds + estimated > cap or len(current) >= most):
            messages.append(current)
            remaining -= seconds
            current, seconds = [], 0.0
            cap = message_cap(remaining, target, share)
        current.append(sub_id)
        seconds += estimated
    if current:
        messages.append(current)
    return messages


def message_cap(remaining: float, target: float, share: int = GUIDED_SHARE) -> float:
    """The estimated seconds a message may hold when ``remaining`` seconds of work are not
    yet in a message and ``share`` workers serve the queue (see :func:`pack`)."""
    return min(target, max(MESSAGE_FLOOR_SECONDS, remaining / share))


def messages_of(sub_ids: Sequence[int], weights: Sequence[Fraction | float] | None, rate: float | None,
                target: float, share: int | None, at_most: int | None) -> list[list[int]]:
    """The messages a run's subproblems are sent in (:func:`pack`; no ``weights`` or
    ``rate``: one each), the first ``at_most`` only, where the workers pull the rest from
    the ledger.  Both senders, Celery's (:mod:`scheduler.celery_executor`) and ``submit``'s
    (:mod:`scheduler.redis_sender`), send these."""
    return pack(sub_ids, weights if weights is not None else [0] * len(sub_ids),
                rate if weights is not None else None, target, share=share)[:at_most]
