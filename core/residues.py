"""Counts of any size as residues: the moduli a level count works in, the proven bound
that says how many it needs, and the Chinese remainder theorem that joins them.

A level count (``core/_frontier.c``) adds counts and nothing else, so it can work modulo
any number: it keeps each state's count as residues modulo 2^64 (the machine's own
wrapping addition) and modulo primes just below 2^63 (one addition and a conditional
subtraction each).  When 2^64 times the primes passes a proven upper bound on the
count, the residues determine the count (:func:`join`).  Each modulus is independent
work, so a count can also be taken modulo a few of them at a time (by other workers, or
in several passes), and joined afterwards: :func:`contribution` turns one group's
residue into a share of the count that adds up with the other groups' modulo their
product.

Why residues rather than counts of several words (measured 2026-12-03, this project's
2-core x86_64 machine): both cost one word of memory and one addition per 64 bits of
count, but residues need no carries between words, split across workers and passes for
free, and a count whose bound is loose wastes only whole residues.  The bound
(:func:`count_bound`) is the number of ways to choose one option at each branching
level, with each option consuming its primary items: at most 19% above the true size of
the domino counts in bits, twice that of the tetromino ones.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

#: the first modulus: the machine word, no reduction needed
WORD = 1 << 64
#: the primes are below this (an addition of two residues stays under 2^64)
PRIME_LIMIT = 1 << 63
#: bases for which Miller-Rabin is deterministic below 3.3 x 10^24 (Sorenson and Webster)
_WITNESSES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


def is_prime(n: int) -> bool:
    """Whether n (below 3.3 x 10^24) is prime: deterministic Miller-Rabin."""
    if n < 2:
        return False
    for p in _WITNESSES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in _WITNESSES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


#: the primes found so far, largest first
_PRIMES: list[int] = []
#: the odd primes below 200, multiplied: a gcd with it turns most composites away at once
_SMALL = math.prod(p for p in range(3, 200, 2) if all(p % q for q in range(3, p, 2)))


def primes(n: int) -> list[int]:
    """The n largest primes below 2^63, largest first (the same list on every machine)."""
    candidate = _PRIMES[-1] - 2 if _PRIMES else PRIME_LIMIT - 1
    while len(_PRIMES) < n:
        if math.gcd(candidate, _SMALL) == 1 and is_prime(candidate):
            _PRIMES.append(candidate)
        candidate -= 2
    return _PRIMES[:n]


def moduli_for(bound: int) -> list[int]:
    """The moduli a count of at most ``bound`` needs: 2^64, then primes below 2^63 until
    their product passes the bound (so that the residues determine the count)."""
    need = [WORD]
    product = WORD
    k = 0
    while product <= bound:
        k += 1
        p = primes(k)[-1]
        need.append(p)
        product *= p
    return need


def product(moduli: Iterable[int]) -> int:
    out = 1
    for m in moduli:
        out *= m
    return out


def join(residues: Sequence[int], moduli: Sequence[int]) -> int:
    """The number below the product of ``moduli`` (pairwise coprime) with these residues
    (Garner's mixed-radix form, one modulus at a time)."""
    if len(residues) != len(moduli):
        raise ValueError("one residue per modulus")
    x, m = 0, 1
    for r, p in zip(residues, moduli):
        # x + m * t = r (mod p)
        t = ((r - x) % p) * pow(m % p, -1, p) % p if m > 1 else r % p
        x += m * t
        m *= p
    return x


def contribution(residue: int, group: int, whole: int) -> int:
    """A count known modulo ``group`` (a divisor of ``whole``, coprime to whole / group)
    as its share of a count modulo ``whole``: the number below ``whole`` that is the
    residue modulo ``group`` and 0 modulo the rest.  The shares of a partition of the
    moduli into groups add up to the count modulo ``whole``."""
    rest = whole // group
    if rest == 1:
        return residue % whole
    return residue * rest * pow(rest % group, -1, group) % whole


class CountBound:
    """A proven upper bound on the exact covers below any state, from the options'
    primary items per lead (the options branched on at a level are those of one lead).

    Proof: below a state with r uncovered primary items, the count is the sum, over the
    options of its level that fit, of the counts below the children, each with r - k
    uncovered (k, that option's primary items); so it is at most
    f(r) = sum over k of a_k f(r - k), f(0) = 1, f(r < 0) = 0, where a_k is the most
    options of k primary items that any one lead has."""

    def __init__(self, sizes_by_lead: Iterable[Iterable[int]]):
        most: dict[int, int] = {}
        for sizes in sizes_by_lead:
            per: dict[int, int] = {}
            for k in sizes:
                per[k] = per.get(k, 0) + 1
            for k, a in per.items():
                most[k] = max(most.get(k, 0), a)
        #: (k, a_k), smallest k first
        self.terms = sorted((k, a) for k, a in most.items() if k > 0)
        self._known: dict[int, int] = {}

    def __call__(self, uncovered: int) -> int:
        """f(uncovered): at least the count below any state with that many uncovered
        primary items."""
        if uncovered <= 0:
            return 1 if uncovered == 0 else 0
        found = self._known.get(uncovered)
        if found is None:
            found = self._known[uncovered] = self._f(uncovered)
        return found

    def _f(self, r: int) -> int:
        if not self.terms:
            return 0
        span = self.terms[-1][0]
        window = [0] * span + [1]  # f(-span) .. f(0), the last `span` values kept
        for _ in range(r):
            window.append(sum(a * window[-k] for k, a in self.terms))
            del window[0]
        return window[-1]
