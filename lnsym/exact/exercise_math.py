"""Layer normalization in exact rational arithmetic, and draws of "nice" exercise data.

The closed forms here — μ, Pz, q, s, u, J = (P − uuᵀ/d)/s, ∂ℓ/∂z — use only ``Fraction`` arithmetic,
independent of the IR and its engines, so that :mod:`lnsym.exact.exercises` can check each against
the IR evaluated by :mod:`lnsym.engines.concrete.engine`. The draws choose small integers and an ε
that makes every square root rational, so every answer is an exact fraction.

>>> z = vec([1, 2, 3])
>>> mean(z), variance(z), core(z, Fraction(1, 3))
(Fraction(2, 1), Fraction(2, 3), (Fraction(-1, 1), Fraction(0, 1), Fraction(1, 1)))
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from typing import TypeAlias

from lnsym.errors import CrossCheckError

Vec: TypeAlias = tuple[Fraction, ...]
Mat: TypeAlias = tuple[Vec, ...]

# ---------------------------------------------------------------------------------------
# Closed forms


def vec(values: Sequence[int | Fraction]) -> Vec:
    """A vector of Fractions."""
    return tuple(Fraction(v) for v in values)


def mean(v: Vec) -> Fraction:
    """μ(v) = ⟨1, v⟩/d."""
    return sum(v, Fraction(0)) / len(v)


def center(v: Vec) -> Vec:
    """Pv = v − μ(v)1."""
    mu = mean(v)
    return tuple(x - mu for x in v)


def squared_norm(v: Vec) -> Fraction:
    """‖v‖²."""
    return sum((x * x for x in v), Fraction(0))


def variance(v: Vec) -> Fraction:
    """q(v) = ‖Pv‖²/d."""
    return squared_norm(center(v)) / len(v)


def rational_sqrt(x: Fraction) -> Fraction:
    """The exact square root of the square of a rational.

    Raises:
        CrossCheckError: when ``x`` is not one (nice data always gives one, so this is a bug).

    >>> rational_sqrt(Fraction(16, 9))
    Fraction(4, 3)
    """
    p, q = math.isqrt(max(x.numerator, 0)), math.isqrt(x.denominator)
    if x < 0 or p * p != x.numerator or q * q != x.denominator:
        raise CrossCheckError(f"{x} is not the square of a rational: the data are not nice")
    return Fraction(p, q)


def scale(v: Vec, eps: Fraction) -> Fraction:
    """s = √(q(v) + ε), which nice data make rational."""
    return rational_sqrt(variance(v) + eps)


def core(v: Vec, eps: Fraction) -> Vec:
    """u = Pv/s."""
    s = scale(v, eps)
    return tuple(x / s for x in center(v))


def hadamard(a: Vec, b: Vec) -> Vec:
    """a ⊙ b."""
    return tuple(x * y for x, y in zip(a, b, strict=True))


def add(a: Vec, b: Vec) -> Vec:
    """a + b."""
    return tuple(x + y for x, y in zip(a, b, strict=True))


def times(c: Fraction, v: Vec) -> Vec:
    """c·v."""
    return tuple(c * x for x in v)


def centering(d: int) -> Mat:
    """P = I − 11ᵀ/d."""
    return tuple(tuple(Fraction(int(i == j)) - Fraction(1, d) for j in range(d)) for i in range(d))


def jacobian(u: Vec, s: Fraction) -> Mat:
    """J = (P − uuᵀ/d)/s, the Jacobian of the core at the input with core u and scale s."""
    d = len(u)
    p = centering(d)
    return tuple(tuple((p[i][j] - u[i] * u[j] / d) / s for j in range(d)) for i in range(d))


def apply(m: Mat, v: Vec) -> Vec:
    """The matrix-vector product m·v."""
    return tuple(sum((a * b for a, b in zip(row, v, strict=True)), Fraction(0)) for row in m)


def norm_ratio(a: Vec, b: Vec) -> Fraction:
    """‖a‖/‖b‖, which nice data make rational."""
    return rational_sqrt(squared_norm(a) / squared_norm(b))


def grad_z(u: Vec, s: Fraction, g_hat: Vec) -> Vec:
    """∂ℓ/∂z = (ĝ − μ(ĝ)1 − μ(ĝ ⊙ u)u)/s for ĝ = γ ⊙ g."""
    m, mu = mean(g_hat), mean(hadamard(g_hat, u))
    return tuple((gh - m - mu * ui) / s for gh, ui in zip(g_hat, u, strict=True))


# ---------------------------------------------------------------------------------------
# Nice data

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
