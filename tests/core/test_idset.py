"""The bitmaps of ``--where`` (core/_idset.c, core/where_bits.py) against plain Python:
a text of ids becomes the int with those bits, a page is the sorted positions sliced,
and the algebra of a query equals its test on each solution's options."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from core._idset import ids_bitmap, set_bits
from core.where_bits import bits_of_ids, evaluate, positions
from core.where_options import AllOf, AnyOf, NoneOf, Uses, matches

IDS = st.lists(st.integers(0, 2_000), max_size=300)


@given(ids=IDS, lo=st.integers(0, 50), extra=st.integers(0, 70))
def test_a_text_of_ids_becomes_the_int_with_those_bits(ids, lo, extra):
    ids = [i + lo for i in ids]
    nbits = max([i - lo + 1 for i in ids], default=0) + extra
    text = ",".join(map(str, ids))
    assert bits_of_ids(text, lo, nbits) == sum(1 << (i - lo) for i in set(ids))
    assert len(ids_bitmap(text, lo, nbits)) == (nbits + 7) // 8


@given(ids=st.sets(st.integers(0, 3_000), max_size=300), skip=st.integers(0, 320), limit=st.integers(0, 40))
def test_a_page_is_the_sorted_positions_sliced(ids, skip, limit):
    bits = sum(1 << i for i in ids)
    assert positions(bits, skip, limit) == sorted(ids)[skip:skip + limit]
    assert set_bits(bits.to_bytes(400, "little"), skip, limit) == sorted(ids)[skip:skip + limit]


@pytest.mark.parametrize("text", ["1,,2", ",1", "1,", "1;2", "-1", "1 2", "12a", "99999999999999999999"])
def test_anything_but_numbers_joined_by_commas_is_refused(text):
    with pytest.raises(ValueError, match="ids_bitmap"):
        ids_bitmap(text, 0, 100)


@pytest.mark.parametrize("text, lo, nbits", [("9", 10, 5), ("15", 10, 5), ("10,14,15", 10, 5)])
def test_an_id_outside_the_frame_is_refused(text, lo, nbits):
    with pytest.raises(ValueError, match="outside"):
        ids_bitmap(text, lo, nbits)


SOLUTIONS = st.lists(st.frozensets(st.integers(0, 7), max_size=5), min_size=1, max_size=40)
CONDITIONS = st.builds(Uses, st.frozensets(st.integers(0, 7), max_size=3))


def _queries():
    return st.recursive(CONDITIONS, lambda c: st.one_of(
        st.builds(NoneOf, c), st.lists(c, min_size=2, max_size=3).map(lambda ps: AllOf(tuple(ps))),
        st.lists(c, min_size=2, max_size=3).map(lambda ps: AnyOf(tuple(ps)))), max_leaves=6)


@given(solutions=SOLUTIONS, q=_queries(), lo=st.integers(1, 9))
def test_the_algebra_of_a_query_is_its_test_on_each_solution(solutions, q, lo):
    """Solution k (id lo + k) uses the options ``solutions[k]``."""
    def bits_of(u: Uses) -> int:
        ids = [lo + k for k, s in enumerate(solutions) if not u.options.isdisjoint(s)]
        return bits_of_ids(",".join(map(str, ids)), lo, len(solutions))

    got = evaluate(q, bits_of, lambda: (1 << len(solutions)) - 1)
    assert got == sum(1 << k for k, s in enumerate(solutions) if matches(q, s))
