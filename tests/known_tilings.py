"""Tiling counts computed independently of the code under test: Kasteleyn's product
formula for dominoes, and published generating functions and terms (OEIS)."""
from __future__ import annotations

from decimal import Decimal, localcontext


def _pi(digits: int) -> Decimal:
    """Pi to ``digits`` digits (the series of the decimal module's documentation)."""
    with localcontext() as ctx:
        ctx.prec = digits + 5
        lasts, t, s, n, na, d, da = 0, Decimal(3), Decimal(3), 1, 0, 0, 24
        while s != lasts:
            lasts = s
            n, na = n + na, na + 8
            d, da = d + da, da + 32
            t = (t * n) / d
            s += t
        return +s


def _cos(x: Decimal, digits: int) -> Decimal:
    """cos(x) by its Taylor series (|x| <= pi: the terms shrink fast enough)."""
    with localcontext() as ctx:
        ctx.prec = digits + 5
        term, total, k = Decimal(1), Decimal(1), 0
        while True:
            k += 2
            term = -term * x * x / (k * (k - 1))
            if abs(term) < Decimal(10) ** (-(digits + 3)):
                return +total
            total += term


def kasteleyn(m: int, n: int) -> int:
    """The domino tilings of an m x n rectangle by Kasteleyn's product formula (1961):
    the product over 1 <= j <= ceil(m/2), 1 <= k <= ceil(n/2) of
    4 cos^2(pi j / (m + 1)) + 4 cos^2(pi k / (n + 1)), in enough decimal digits to round
    exactly."""
    if m * n % 2:
        return 0
    digits = int(0.13 * m * n) + 30  # the count has about 0.127 m n digits
    pi = _pi(digits)
    with localcontext() as ctx:
        ctx.prec = digits
        product = Decimal(1)
        for j in range(1, (m + 1) // 2 + 1):
            a = _cos(pi * j / (m + 1), digits)
            for k in range(1, (n + 1) // 2 + 1):
                b = _cos(pi * k / (n + 1), digits)
                product *= 4 * a * a + 4 * b * b
        return int(product.to_integral_value())


def series(numerator: list[int], denominator: list[int], terms: int) -> list[int]:
    """The first ``terms`` coefficients of numerator(x) / denominator(x) (coefficient
    lists, constant first; the denominator's constant is +1 or -1)."""
    q0 = denominator[0]
    assert q0 in (1, -1)
    out: list[int] = []
    for n in range(terms):
        acc = numerator[n] if n < len(numerator) else 0
        for k in range(1, min(n, len(denominator) - 1) + 1):
            acc -= denominator[k] * out[n - k]
        out.append(acc * q0)  # 1 / q0 == q0
    return out


def _poly(text: str) -> list[int]:
    """Coefficients of a polynomial written as in the OEIS ("x^3 +2*x -1"), constant first."""
    text = text.replace(" ", "").replace("-", "+-")
    coefficients: dict[int, int] = {}
    for term in filter(None, text.split("+")):
        sign = -1 if term.startswith("-") else 1
        term = term.lstrip("-")
        if "x" not in term:
            coefficients[0] = coefficients.get(0, 0) + sign * int(term)
            continue
        factor, _, power = term.partition("x")
        factor = factor.rstrip("*")
        exponent = int(power[1:]) if power.startswith("^") else 1
        coefficients[exponent] = coefficients.get(exponent, 0) + sign * (int(factor) if factor else 1)
    return [coefficients.get(e, 0) for e in range(max(coefficients) + 1)]


#: A174248, the tilings of a 4 x n rectangle by tetrominoes of any shape: its generating
#: function (Alois P. Heinz, Nov 26 2013), G.f. = -P(x) / Q(x)
_A174248_P = ("x^31 +3*x^30 -2*x^29 -7*x^28 -25*x^27 -78*x^26 +23*x^25 +116*x^24 +217*x^23 +604*x^22 -21*x^21 "
              "-556*x^20 -649*x^19 -1621*x^18 -175*x^17 +727*x^16 +523*x^15 +1707*x^14 +236*x^13 -470*x^12 "
              "-143*x^11 -749*x^10 -133*x^9 +166*x^8 +15*x^7 +126*x^6 +27*x^5 -23*x^4 -x^3 -6*x^2 -x +1")
_A174248_Q = ("x^35 +3*x^34 -3*x^33 -13*x^32 -50*x^31 -123*x^30 +39*x^29 +225*x^28 +659*x^27 +1476*x^26 +60*x^25 "
              "-1102*x^24 -2600*x^23 -6047*x^22 -489*x^21 +2786*x^20 +3210*x^19 +9566*x^18 +1102*x^17 -3349*x^16 "
              "-1620*x^15 -6885*x^14 -1053*x^13 +1970*x^12 +414*x^11 +2258*x^10 +469*x^9 -548*x^8 -76*x^7 "
              "-290*x^6 -77*x^5 +54*x^4 +8*x^3 +8*x^2 +2*x -1")


def a174248(terms: int) -> list[int]:
    """The tetromino tilings of 4 x n, n = 0 .. terms - 1, from the generating function."""
    return series([-c for c in _poly(_A174248_P)], _poly(_A174248_Q), terms)


#: A174249, the tilings of a 5 x n rectangle by pentominoes of any shape, n = 0..22 (Bob
#: Harris, Alois P. Heinz)
A174249 = [1, 1, 5, 56, 501, 4006, 27950, 214689, 1696781, 13205354, 101698212, 782267786, 6048166230,
           46799177380, 361683136647, 2793722300087, 21583392631817, 166790059833039, 1288885349447958,
           9959188643348952, 76953117224941654, 594617039453764617, 4594660583890506956]

#: A230031, the tetromino tilings of k x n: rows 4, 6 and 8 of the square array as
#: published (n = 0..8)
A230031_ROWS = {
    4: [1, 1, 4, 23, 117, 454, 2003, 9157, 40899],
    6: [1, 0, 9, 0, 2003, 0, 178939, 0, 22483347],
    8: [1, 1, 25, 997, 40899, 800290, 22483347, 657253434, 19077209438],
}

#: A233427, the pentomino tilings of k x n: row 10 of the square array (n = 0..6)
A233427_ROW_10 = [1, 1, 45, 7670, 890989, 101698212, 7845888732]
