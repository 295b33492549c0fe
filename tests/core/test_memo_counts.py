"""Counting without visiting every solution: published tiling counts, memo on = memo off."""
from __future__ import annotations

import pytest

from core.library import load
from core.polyform import problem_from_text


def _l_trominoes(cols: int) -> str:
    return f'kind = "polyform"\nsize = [4, {cols}]\n[[pieces]]\nname = "L"\nshape = """\n#.\n##\n"""\ncount = "any"\n'


@pytest.mark.parametrize("cols, expected", [(3, 4), (6, 18), (9, 88), (12, 468), (15, 2672), (18, 16072)])
def test_l_tromino_tilings_of_4xn(cols, expected):
    assert problem_from_text(_l_trominoes(cols), format="toml").solver().count() == expected


@pytest.mark.parametrize("pieces, expected", [("trominoes", 80_092), ("tetrominoes", 178_939)])
def test_6x6_tilings_by_every_shape_of_a_set(pieces, expected):
    text = f'kind = "polyform"\nsize = [6, 6]\n[[pieces]]\nset = "{pieces}"\ncount = "any"\n'
    problem = problem_from_text(text, format="toml")
    assert problem.solver().count() == expected
    if pieces == "trominoes":
        assert problem.solver(memo=False).count() == expected  # memo on = memo off


@pytest.mark.parametrize(
    "name, expected",
    [("dominoes-12x12", 53_060_477_521_960_000), ("dominoes-16x16", 2_444_888_770_250_892_795_802_079_170_816)],
)
def test_domino_tilings_past_64_bits(name, expected):
    assert load(name).solver().count() == expected
