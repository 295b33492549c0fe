"""Packing subproblems into Celery messages (scheduler.batches): the laws of ``pack``
and the measured rate."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scheduler.batches import (GUIDED_SHARE, MESSAGE_FLOOR_SECONDS, MESSAGE_SECONDS, message_cap, message_target,
                               pack, seconds_per_weight)

weights_st = st.lists(st.fractions(min_value=0, max_value=1, max_denominator=10_000), max_size=200)
rate_st = st.one_of(st.none(), st.floats(min_value=0.0, max_value=1e6, allow_nan=False))
target_st = st.floats(min_value=0.001, max_value=100.0)
most_st = st.integers(min_value=1, max_value=70)


def estimated(message, seconds_of):
    total = 0.0
    for sub_id in message:
        total += seconds_of[sub_id]
    return total


@given(weights_st, rate_st, target_st, most_st)
def test_every_id_once_in_order_within_most(weights, rate, target, most):
    ids = [1000 + i for i in range(len(weights))]
    messages = pack(ids, weights, rate, target, most)
    assert [i for m in messages for i in m] == ids  # every id exactly once, order kept
    assert all(1 <= len(m) <= most for m in messages)


@given(weights_st, st.floats(min_value=0.0, max_value=1e6, allow_nan=False), target_st, most_st)
def test_over_its_cap_only_alone(weights, rate, target, most):
    ids = list(range(len(weights)))
    seconds_of = {i: float(w) * rate for i, w in zip(ids, weights)}
    messages = pack(ids, weights, rate, target, most)
    remaining = sum(seconds_of.values())
    for m, nxt in zip(messages, messages[1:] + [None]):
        cap = message_cap(remaining, target)
        assert cap <= target
        if len(m) > 1:
            assert estimated(m, seconds_of) <= cap * (1 + 1e-9)
        # greedy: a message closed early was full, or the next subproblem would not fit
        if nxt is not None:
            assert len(m) == most or estimated(m, seconds_of) + seconds_of[nxt[0]] > cap
        remaining -= estimated(m, seconds_of)


def test_messages_shrink_toward_the_end_of_the_queue():
    """Guided: each message holds about a quarter of what is left, down to the floor, so
    the last messages are short whichever worker takes them."""
    weights = [Fraction(1, 1000)] * 1000
    messages = pack(list(range(1000)), weights, rate=3.0, target=MESSAGE_SECONDS, most=1000)  # 3 s in all
    sizes = [len(m) * 0.003 for m in messages]
    assert sizes[0] == pytest.approx(3.0 / GUIDED_SHARE, abs=0.004)
    assert all(a >= b - 1e-9 for a, b in zip(sizes, sizes[1:]))  # never growing
    assert sizes[-2] == pytest.approx(MESSAGE_FLOOR_SECONDS, abs=0.004)
    assert 10 <= len(messages) <= 20


@given(weights_st, target_st)
def test_no_estimate_one_per_message(weights, target):
    ids = list(range(len(weights)))
    assert pack(ids, weights, None, target) == [[i] for i in ids]


def test_small_pieces_share_a_message():
    weights = [Fraction(1, 64)] * 64
    # 0.02 s in all, under the floor: one message
    assert pack(list(range(64)), weights, rate=0.02, target=MESSAGE_SECONDS) == [list(range(64))]
    # 0.05 s in all, past it: messages of the floor's size at most, the rest in the last
    messages = pack(list(range(64)), weights, rate=0.05, target=MESSAGE_SECONDS)
    assert [len(m) for m in messages] == [38, 26] and 38 * 0.05 / 64 <= MESSAGE_FLOOR_SECONDS
    # 64 s in all: a quarter of what is left is past the 2 s target until the last few
    assert pack(list(range(64)), weights, rate=64.0, target=2.0)[:28] == [[i, i + 1] for i in range(0, 56, 2)]


def test_mismatched_lengths_are_an_error():
    with pytest.raises(ValueError, match="3 subproblems but 2 weights"):
        pack([1, 2, 3], [Fraction(1, 2), Fraction(1, 2)], 1.0, 1.0)


def test_seconds_per_weight():
    assert seconds_per_weight(2.0, Fraction(1, 4)) == 8.0
    assert seconds_per_weight(2.0, 0) is None
    assert message_target(60.0) == MESSAGE_SECONDS and message_target(0.3) == 0.3
