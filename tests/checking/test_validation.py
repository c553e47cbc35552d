"""Translation validation: no claim can dodge the cross-checks, and a planted bug in the
general engine never makes a claim PROVED while validation is on.

Every fixed-size check can be dodged: multiply both sides by p(d) = Π(d − k) over the sizes
the concrete and numeric engines use, and they see 0 = 0 wherever they look. These tests plant
bugs in the general engine's rules, dodge every fixed size, and check that the claim comes
out PROVED with validation switched off (the bug is real, the dodge works) and never with it
on; and that the validation's own dimension avoids every zero a claim writes in.
"""

from __future__ import annotations

import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import expressions

from lnsym import (
    Eq,
    Le,
    center,
    core,
    d,
    dot,
    eps,
    jvp,
    m,
    mean,
    n,
    norm,
    ones,
    scalar,
    sqrt,
    var,
    vector,
)
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim
from lnsym.checking.fingerprint import digest
from lnsym.checking.validation import (
    FIRST,
    FIXED,
    candidates,
    dimension_for,
    matrix_sizes,
)
from lnsym.engines.concrete.points import LARGE_DIMENSIONS
from lnsym.engines.general import GeneralEngine, derivatives, engine
from lnsym.engines.general.engine import Decision
from lnsym.engines.general.symbols import PowerSum, Root
from lnsym.engines.numeric.sampling import _LARGE_DIMENSION, _SMALL_DIMENSIONS
from lnsym.ir.lowering import SIZES
from lnsym.ir.matrices import matrix, mean_along, ones_matrix

z, h = vector("z"), vector("h")
c = scalar("c")
s = sqrt(var(z) + eps)
SLOW = settings(
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- the dimension ---------------------------------------------------------------------


def test_no_size_another_engine_checks_is_ever_chosen():
    assert set(range(1, Options().max_d + 1)) <= FIXED
    assert set(LARGE_DIMENSIONS) <= FIXED
    assert {*_SMALL_DIMENSIONS, _LARGE_DIMENSION} <= FIXED
    for seed in range(50):
        fingerprint = digest(seed)
        order = list(candidates(fingerprint))
        assert not FIXED & set(order)
        first = [k for k in FIRST if k not in FIXED]
        assert sorted(order[: len(first)]) == first  # the first range, once, in some order
    starts = {next(candidates(digest(seed))) for seed in range(50)}
    assert len(starts) > 15  # the claim decides where to start


@SLOW
@given(lhs=expressions, rhs=expressions)
def test_the_dimension_is_the_claims_own(lhs, rhs):
    if lhs.kind != rhs.kind:
        rhs = lhs
    claim = Claim("x", Eq(lhs, rhs))
    again = Claim("other.id", Eq(lhs, rhs), title="another title")
    chosen = dimension_for(claim, [], GeneralEngine())
    assert chosen == dimension_for(again, [], GeneralEngine())  # the mathematics decides
    assert chosen not in FIXED and 9 <= chosen


#: Ways to write a factor p(d) with zeros at ``zeros``: a constant, a product of vector-free
#: IR parts (⟨1, 1⟩ − k), and the claim's sides spread over a flat sum Σ cⱼ dʲ·side.
def _vanishing(side, zeros: list[int], how: str):
    if how == "constant":
        return sympy.prod([d - k for k in zeros]) * side
    if how == "parts":
        out = side
        for k in zeros:
            out = (dot(ones, ones) - k) * out
        return out
    coefficients = sympy.Poly(sympy.prod([d - k for k in zeros]), d).all_coeffs()[::-1]
    terms = [(c_j * d**j) * side for j, c_j in enumerate(coefficients) if c_j != 0]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


@SLOW
@given(
    zeros=st.lists(st.sampled_from([k for k in FIRST if k not in FIXED]), min_size=1, max_size=3),
    how=st.sampled_from(["constant", "parts"]),
    shape=st.integers(0, 2),
)
def test_a_factor_vanishing_at_a_dimension_makes_that_dimension_skipped(zeros, how, shape):
    # (Spread over a flat sum, the factor is not skipped when the claim is true; a wrong part
    # or a wrong decision behind it is caught all the same: the two tests below.)
    lhs, rhs = [
        (jvp(core(z), z, h), (center(h) - dot(core(z), h) / d * core(z)) / s),
        (mean(z * z), var(z) + mean(z) ** 2),
        (norm(core(z)) ** 2, d * var(z) / (var(z) + eps)),
    ][shape]
    claim = Claim("dodge", Eq(_vanishing(lhs, zeros, how), _vanishing(rhs, zeros, how)))
    general = GeneralEngine()
    with general.recording() as obligations:
        assert general.decide(claim.statement).proved
    chosen = dimension_for(claim, obligations, general)
    assert chosen is not None and chosen not in zeros and chosen not in FIXED


def test_a_claim_about_one_dimension_is_validated_there():
    claim = Claim("fixed", Eq(mean(z), mean(z) + 0 * c), [])
    assert dimension_for(claim, [], GeneralEngine()) in FIRST
    from lnsym import dimension

    fixed = Claim("fixed", Eq(mean(z), mean(z)), [dimension(12)])
    assert dimension_for(fixed, [], GeneralEngine()) == 12


def test_matrix_sizes_avoid_the_engines_sizes_and_the_claims_zeros():
    Z = matrix("Z", n, d)
    claim = Claim("m", Eq(mean_along(Z, 1), mean_along(Z, 1)))
    for k in range(40):
        sizes = matrix_sizes(claim, digest(k), GeneralEngine())
        assert sizes is not None and (sizes[n], sizes[d], sizes[m]) not in SIZES
    dodged = Claim("m", Eq((n - 3) * (n - 4) * mean_along(Z, 1), 0 * ones_matrix(n, 1)))
    for k in range(40):
        sizes = matrix_sizes(dodged, digest(k), GeneralEngine())
        assert sizes is not None and sizes[n] not in (3, 4)


# -- planted bugs ----------------------------------------------------------------------


def _roots_are_constants(monkeypatch):
    """SymPy's own matrix-calculus bug: √(q + ε) held fixed when differentiating."""
    original = derivatives._d_symbol

    def broken(sym, wrt, direction):
        return sympy.Integer(0) if isinstance(sym, Root) else original(sym, wrt, direction)

    monkeypatch.setattr(derivatives, "_d_symbol", broken)
    return Eq(jvp(core(z), z, h), center(h) / s)


def _multiplicity_lost(monkeypatch):
    """D S[z·z] along h taken as S[h·z] instead of 2 S[h·z]."""
    original = derivatives._d_symbol

    def broken(sym, wrt, direction):
        found = original(sym, wrt, direction)
        if isinstance(sym, PowerSum) and sym.monomial.count(wrt) > 1:
            return found / sym.monomial.count(wrt)
        return found

    monkeypatch.setattr(derivatives, "_d_symbol", broken)
    return Eq(jvp(dot(z, z) * mean(z), z, h), dot(z, h) * mean(z) + dot(z, z) * mean(h))


def _sign_of_a_root_lost(monkeypatch):
    """√(c²·q) taken out as c·√q for a real c (the |c| dropped)."""
    from lnsym.engines.general import algebra

    def broken(radicand):
        outside, inside = [], []
        for factor in sympy.Mul.make_args(sympy.factor_terms(radicand)):
            base, exponent = factor.as_base_exp()
            if exponent == 2 and base.is_real:
                outside.append(base)
            else:
                inside.append(factor)
        return sympy.Mul(*outside), sympy.Mul(*inside)

    monkeypatch.setattr(algebra, "_square_factors", broken)
    algebra.root.cache_clear()
    return Eq(sqrt(c**2 * (var(z) + 1)), c * sqrt(var(z) + 1))


def _slices_proved_blindly(monkeypatch):
    """Every matrix statement proved by its slices, unseen."""
    monkeypatch.setattr(
        engine.GeneralEngine,
        "_decide_sliced",
        lambda self, statement, assumptions, shown=True: Decision(True, "sliced blindly"),
    )
    Z = matrix("Z", n, d)
    return Eq(mean_along(Z, 1), 0 * ones_matrix(n, 1))


BUGS = {
    "roots constant": _roots_are_constants,
    "multiplicity lost": _multiplicity_lost,
    "sign of a root lost": _sign_of_a_root_lost,
    "slices blind": _slices_proved_blindly,
}
#: The vector engines' fixed dimensions, and the matrix engines' batch sizes.
DODGE_D = sympy.prod([d - k for k in (*range(1, 9), 16, 64, 768)])
DODGE_N = sympy.prod([n - k for k in sorted({size[0] for size in SIZES})])


def _dodged(statement, how: str):
    factor = DODGE_N if statement.lhs.kind == "matrix" else DODGE_D
    if how == "scaled":
        return Eq(factor * statement.lhs, factor * statement.rhs)
    return Eq(factor * (statement.lhs - statement.rhs), 0 * statement.lhs)


@settings(SLOW, max_examples=16)
@given(bug=st.sampled_from(sorted(BUGS)), how=st.sampled_from(["scaled", "difference"]))
def test_a_planted_bug_never_makes_a_dodging_claim_proved(bug, how):
    import pytest

    with pytest.MonkeyPatch.context() as monkeypatch:
        statement = _dodged(BUGS[bug](monkeypatch), how)
        claim = Claim("planted", statement)
        bare = Checker(Options(validation=False, samples=60)).check(claim)
        assert bare.verdict == "PROVED", (bug, bare.reason)  # the bug is real, the dodge works
        validated = Checker(Options(samples=60)).check(claim)
        assert validated.verdict != "PROVED", (bug, validated.reason)
        outcomes = {e.engine: e.outcome for e in validated.evidence}
        assert outcomes["validation"] in ("error", "counterexample"), validated.evidence
    from lnsym.engines.general import algebra

    algebra.root.cache_clear()  # no root of the planted rule survives the test


def test_a_planted_bug_without_a_dodge_is_refuted_by_validation_first():
    import pytest

    with pytest.MonkeyPatch.context() as monkeypatch:
        claim = Claim("planted", _roots_are_constants(monkeypatch))
        result = Checker(Options(engines=("general",))).check(claim)
    assert result.verdict in ("REFUTED", "ERROR")
    validation = next(e for e in result.evidence if e.engine == "validation")
    assert validation.outcome in ("error", "counterexample")
    assert f"d = {validation.data['dimension']}" in validation.detail or (
        validation.counterexample.d == validation.data["dimension"]
    )


def test_a_true_claim_is_validated_and_says_where():
    result = Checker(Options()).check(Claim("shift", Eq(core(z + c * ones), core(z))))
    assert result.verdict == "PROVED"
    validation = next(e for e in result.evidence if e.engine == "validation")
    assert validation.outcome == "holds"
    chosen = validation.data["dimension"]
    assert chosen not in FIXED and validation.data["at"] == f"d = {chosen}"
    assert "a dimension chosen from the claim outside every fixed size" in validation.detail
    inequality = Claim("var.le", Le(0, var(z), certificate=[var(z)]))
    assert Checker(Options()).check(inequality).verdict == "PROVED"


def test_a_wrong_part_hidden_by_a_factor_vanishing_at_every_candidate_is_caught():
    """A + p(d)·B with p zero at every dimension validation would try first and at every
    fixed size, A sharing B's monomials so that no coefficient of the side vanishes: the
    side agrees with its normal form wherever p is zero, but the part B does not."""
    import pytest

    zeros = [k for k in FIRST if k not in FIXED] + [*range(1, 9), 16, 64, 768]
    p = sympy.Poly(sympy.prod([d - k for k in zeros]), d).all_coeffs()[::-1]

    def spread(side):
        terms = [(c_j * d**j) * side for j, c_j in enumerate(p) if c_j != 0]
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        return total

    with pytest.MonkeyPatch.context() as monkeypatch:
        _multiplicity_lost(monkeypatch)  # D ⟨z, z⟩ along h taken as ⟨z, h⟩
        a = dot(z, h) * z + dot(z, z) * h
        b = jvp(dot(z, z) * z, z, h)  # 2⟨z, h⟩z + ⟨z, z⟩h
        b_by_the_bug = dot(z, h) * z + dot(z, z) * h
        claim = Claim("hidden", Eq(a + spread(b), a + spread(b_by_the_bug)))
        bare = Checker(Options(validation=False, samples=60)).check(claim)
        assert bare.verdict == "PROVED", bare.reason
        result = Checker(Options(samples=60)).check(claim)
        validation = next(e for e in result.evidence if e.engine == "validation")
    assert result.verdict != "PROVED"
    assert validation.outcome == "error" and "engines disagree" in validation.detail


def _centred_zeroes_every_pair(monkeypatch):
    """A planted decision bug: centered(z) also zeroes every S[z·x], not only S[z]."""
    from lnsym import centered
    from lnsym.engines.general import substitution

    original = substitution.Hypotheses.power_sum

    def broken(self, m):
        if ("z",) in self.zero and "z" in m and len(m) == 2:
            return sympy.Integer(0)
        return original(self, m)

    monkeypatch.setattr(substitution.Hypotheses, "power_sum", broken)
    return lambda factor: Claim("dodge", Eq(factor * dot(z, h), factor * 0), [centered(z)])


def test_a_zero_hidden_in_a_root_makes_that_dimension_skipped():
    """√((⟨1, 1⟩ − k)²) is |d − k|, 0 at k: d inside a root symbol, which a test of the
    normal form's free symbols misses. With a factor zero at every fixed size too, and a
    planted decision bug, the validation's own dimension must never be k."""
    import pytest

    size = dot(ones, ones)
    with pytest.MonkeyPatch.context() as monkeypatch:
        make = _centred_zeroes_every_pair(monkeypatch)
        for k in [k for k in FIRST if k not in FIXED]:
            factor = sqrt((size - k) * (size - k))
            for j in (*range(1, 9), 16, 64, 768):
                factor = factor * (size - j)
            claim = make(factor)
            general = GeneralEngine()
            with general.recording() as obligations:
                assert general.decide(claim.statement, claim.assumptions).proved  # the bug
            assert dimension_for(claim, obligations, general) != k
        result = Checker(Options(samples=40)).check(claim)
    assert result.verdict != "PROVED", result.reason


def test_a_wrong_decision_hidden_by_a_factor_spread_over_a_sum_is_caught():
    """A + p(d)·B = A with p zero at every dimension tried first and every fixed size, spread
    over a flat sum so that no coefficient of either side vanishes, and a decision bug that
    makes B's part of the difference 0: the difference, before the assumptions, is 0 at
    every zero of p — those dimensions are skipped, and the claim fails at the next."""
    import pytest

    from lnsym import centered

    zeros = [k for k in FIRST if k not in FIXED] + [*range(1, 9), 16, 64, 768]
    p = sympy.Poly(sympy.prod([d - k for k in zeros]), d).all_coeffs()[::-1]
    with pytest.MonkeyPatch.context() as monkeypatch:
        _centred_zeroes_every_pair(monkeypatch)
        a = dot(z, h) * z + dot(h, h) * z
        spread = a
        for j, c_j in enumerate(p):
            if c_j != 0:
                spread = spread + (c_j * d**j) * (dot(z, h) * z)
        claim = Claim("decided", Eq(spread, a), [centered(z)])
        bare = Checker(Options(validation=False, samples=40)).check(claim)
        assert bare.verdict == "PROVED", bare.reason
        result = Checker(Options(samples=40)).check(claim)
    assert result.verdict != "PROVED", result.reason


def _squares_seen_on_their_diagonal(monkeypatch):
    """A planted slicing bug: a square matrix sliced as if one generic index were enough."""
    from lnsym.engines.general import slicing
    from lnsym.ir import matrices as mx

    original = slicing._Slicer.spread

    def broken(self, shape):
        if shape[0] == shape[1] != mx._ONE and self.world.axis not in shape:
            return None
        return original(self, shape)

    monkeypatch.setattr(slicing._Slicer, "spread", broken)


@settings(SLOW, max_examples=6)
@given(how=st.sampled_from(["constant", "with an atom", "atom-free"]))
def test_a_matrix_claim_vanishing_at_every_size_checked_is_not_proved(how):
    """F·S = F·Sᵀ for S square, F zero at every d the engines and validation check: with a
    planted slicing bug the general engine proves it, and F written as a constant, as a
    function of d holding an atom (⟨1,1⟩ − k + var(g) − var(g + 1)) or without atoms."""
    import pytest

    from lnsym import var as variance
    from lnsym.ir.matrices import matrix as mat

    g, size, square = vector("g"), dot(ones, ones), mat("S", n, n)
    zeros = range(2, 7)
    if how == "constant":
        factor = sympy.prod([d - k for k in zeros])
    else:
        factor = 1
        for k in zeros:
            part = size - k + (variance(g) - variance(g + ones) if how == "with an atom" else 0)
            factor = factor * part
    with pytest.MonkeyPatch.context() as monkeypatch:
        _squares_seen_on_their_diagonal(monkeypatch)
        claim = Claim("square", Eq(factor * square, factor * square.T))
        result = Checker(Options(samples=30)).check(claim)
    assert result.verdict != "PROVED", result.reason


def test_a_slice_along_the_batch_is_validated_at_a_dimension_of_its_own():
    """dimension(2) speaks of d; a proof along the batch is about n, at a dimension validation
    chooses (it was validated at n = 2, a size the engines check anyway)."""
    from lnsym import batch_norm, dimension
    from lnsym.ir.matrices import matrix as mat

    big = mat("Z", n, d)
    claim = Claim("bn.shift", Eq(batch_norm(big + row_of(vector("g"))), batch_norm(big)),
                  [dimension(2)])  # fmt: skip
    result = Checker(Options(samples=30)).check(claim)
    assert result.verdict == "PROVED"
    validation = next(e for e in result.evidence if e.engine == "validation")
    assert validation.data["dimension"] not in FIXED


def row_of(v):
    from lnsym.ir.matrices import row

    return row(v)


def test_a_matrix_claim_with_identical_sides_is_proved():
    from lnsym.ir.matrices import matrix as mat

    square = mat("S", n, n)
    result = Checker(Options(samples=30)).check(Claim("same", Eq(square @ square, square @ square)))
    assert result.verdict == "PROVED"
