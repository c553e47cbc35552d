"""Draws of "nice" exercise data: small integers, and an ε that makes every root rational.

Each exercise kind needs data whose answers are exact fractions: :func:`nice_input` chooses
a small integer z and ε with q(z) + ε the square of a rational (so s = √(q + ε) and the core
are rational), :func:`scalable_input` also a factor a with q(az) + ε a square,
:func:`inverse_data` a target core variance, :func:`sensitivity_data` a perturbation of a
constant input. :class:`Novelty` keeps the inputs of one sheet distinct.

>>> from lnsym.exact.closed_form import scale
>>> z, eps = nice_input(random.Random(0), 3, Novelty())
>>> [str(x) for x in z], eps, scale(z, eps)
(['3', '0', '3'], Fraction(2, 1), Fraction(2, 1))
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from lnsym.errors import CrossCheckError
from lnsym.exact.closed_form import Vec, squared_norm, variance, vec

#: Draws before a search gives up (it never does for d ≥ 2: there are plenty of inputs).
ATTEMPTS = 10_000
#: Draws that insist on inputs no earlier exercise of the sheet used.
NOVEL_ATTEMPTS = 200


class Novelty:
    """The inputs a sheet has used, so that no two exercises share one (up to permutation).

    The rule is dropped after :data:`NOVEL_ATTEMPTS` draws: a small range of d runs out of
    novel small inputs on a long sheet.
    """

    def __init__(self) -> None:
        self._seen: set[Vec] = set()

    def accept(self, v: Vec, attempt: int) -> bool:
        """Whether to use ``v`` at this attempt (and remember it if so)."""
        key = tuple(sorted(v))
        if key in self._seen and attempt < NOVEL_ATTEMPTS:
            return False
        self._seen.add(key)
        return True


def _not_found(d: int) -> CrossCheckError:  # pragma: no cover - never reached for d ≥ 2
    return CrossCheckError(f"no nice data found at d = {d}")


def is_square(n: int) -> bool:
    """Whether the integer ``n`` is a perfect square."""
    return n >= 0 and math.isqrt(n) ** 2 == n


def small_vector(rng: random.Random, d: int, bound: int) -> Vec:
    """d integers from −bound..bound."""
    return vec([rng.randint(-bound, bound) for _ in range(d)])


def nonzero(rng: random.Random, bound: int) -> int:
    """A nonzero integer from −bound..bound."""
    return rng.choice([k for k in range(-bound, bound + 1) if k != 0])


def gain(rng: random.Random, d: int) -> Vec:
    """A non-constant gain with nonzero entries in −3..3."""
    while True:
        gamma = vec([nonzero(rng, 3) for _ in range(d)])
        if len(set(gamma)) > 1:
            return gamma


def upstream(rng: random.Random, d: int) -> Vec:
    """A nonzero upstream gradient with entries in −2..2."""
    while True:
        g = small_vector(rng, d, 2)
        if any(g):
            return g


def _entry_bound(d: int) -> int:
    # Larger d: smaller entries, so that q (and the denominators) stay small.
    return 3 if d <= 3 else 2 if d <= 5 else 1


def nice_input(
    rng: random.Random, d: int, novelty: Novelty, slack: int = 4
) -> tuple[Vec, Fraction]:
    """A non-constant integer z and ε > 0 with q(z) + ε = (k/d)² for a small integer k.

    N = d²·q(z) is an integer and k is just above √N, so ε = (k² − N)/d². The core is then
    u = d·Pz/k, an integer vector over k, and J an integer matrix over k³; k ≤ d + ``slack``
    keeps those denominators modest.
    """
    for attempt in range(ATTEMPTS):
        z = small_vector(rng, d, _entry_bound(d))
        n = int(variance(z) * d * d)
        k = math.isqrt(n) + rng.randint(1, 2)
        if n > 0 and k <= d + slack and novelty.accept(z, attempt):
            return z, Fraction(k * k - n, d * d)
    raise _not_found(d)


def scalable_input(rng: random.Random, d: int, novelty: Novelty) -> tuple[Vec, Fraction, int]:
    """Like :func:`nice_input`, plus a factor a ∈ {2, 3} with q(az) + ε a rational square too.

    With s = k/(dj) for a small j: q(az) + ε = ((a² − 1)N j² + k²)/(dj)², so the search is
    for k and a making (a² − 1)N j² + k² a perfect square.
    """
    for attempt in range(ATTEMPTS):
        z = small_vector(rng, d, _entry_bound(d))
        n = int(variance(z) * d * d)
        for j in (1, 2, 3):
            root = math.isqrt(n * j * j)
            found = [
                (k, a)
                for k in range(root + 1, root + 1 + 3 * j)
                for a in (2, 3)
                if n > 0 and is_square((a * a - 1) * n * j * j + k * k)
            ]
            if found and novelty.accept(z, attempt):
                k, a = rng.choice(found)
                return z, Fraction(k * k - n * j * j, (d * j) ** 2), a
    raise _not_found(d)


#: Target core variances r and factors t for :func:`inverse_data`.
TARGETS = tuple(Fraction(a, b) for a, b in ((1, 2), (2, 3), (3, 4), (4, 5), (9, 10), (1, 3)))
FACTORS = tuple(Fraction(a, b) for a, b in ((1, 1), (2, 1), (3, 1), (1, 2), (3, 2)))


def inverse_data(
    rng: random.Random, d: int, novelty: Novelty
) -> tuple[Vec, Fraction, Fraction, Fraction]:
    """A direction v, a factor t, a target r and ε with q(tv)/(q(tv) + ε) = r.

    ε = q(1 − r)/r for q = t²·q(v), kept to a small numerator and denominator; then
    t = √(q/q(v)) is rational by construction.
    """
    for attempt in range(ATTEMPTS):
        v = small_vector(rng, d, 2)
        t, r = rng.choice(FACTORS), rng.choice(TARGETS)
        q = t * t * variance(v)
        eps = q * (1 - r) / r
        if q and eps.denominator <= 36 and eps.numerator <= 99 and novelty.accept(v, attempt):
            return v, t, r, eps
    raise _not_found(d)


def centered_direction(rng: random.Random, d: int) -> Vec:
    """A nonzero integer h with mean zero and entries in −3..3."""
    while True:
        head = [rng.randint(-2, 2) for _ in range(d - 1)]
        h = vec([*head, -sum(head)])
        if any(h) and abs(h[-1]) <= 3:
            return h


def sensitivity_data(
    rng: random.Random, d: int, novelty: Novelty
) -> tuple[Vec, Fraction, Fraction]:
    """A centered h and rationals e, s with ε = e² and q(h) + ε = s² (small denominators).

    s² − e² = q(h) factors as (s − e)(s + e): any rational m = s − e below √q(h) gives
    s = (q(h)/m + m)/2 and e = (q(h)/m − m)/2.
    """
    for attempt in range(ATTEMPTS):
        h = centered_direction(rng, d)
        q_h = squared_norm(h) / d
        pairs = {
            ((q_h / m - m) / 2, (q_h / m + m) / 2)
            for b in range(1, 7)
            for m in (Fraction(a, b) for a in range(1, 6 * b))
            if m * m < q_h
        }
        choices = sorted(
            (e, s) for e, s in pairs if max(e.denominator, s.denominator) <= 12 and e <= 2
        )
        if choices and novelty.accept(h, attempt):
            e, s = rng.choice(choices)
            return h, e, s
    raise _not_found(d)
