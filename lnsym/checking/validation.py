"""Translation validation: a PROVED rests on normal forms checked where no claim can aim.

The general engine proves a claim for symbolic d by rules that grow with every capability;
the concrete and numeric engines check it at fixed sizes (d = 1..8, 10, 16, 64, 100, …), which
a claim can dodge — multiply both sides by Π(d − k) over those k and every fixed-size check
passes whatever the general engine decides. So whenever the general engine (or a lemma
schema) proves a claim, :func:`validate` checks it again where no claim can aim:

- a dimension D is chosen from the claim's fingerprint (:func:`dimension_for`): the first
  admissible value, in an order the fingerprint decides, of 9..40 outside every fixed set and
  then upward — skipping any D at which a part of the claim that does not depend on its
  vectors vanishes without vanishing identically (p(d) = Π(d − k) has finitely many zeros,
  and each one is skipped), or a coefficient of a normal form compared does;
- every equality the general engine decided by normal forms (each
  :class:`~lnsym.engines.general.Obligation`: the claim's sides after the chain rule, a
  congruence's arguments, a slice's sides, a certificate's identity, a lemma's side
  conditions) is evaluated at one random exact point of dimension D: both sides, and each
  side's normal form written back as IR, by the concrete engine's own exact arithmetic and
  its own derivatives (:func:`lnsym.engines.concrete.agreement.agree_at`) — a normal form
  that is not its side's value, or two normal forms found equal that are not, is an engine
  disagreement;
- so is the normal form of every part of those sides (each node, definitions expanded, once
  per claim): a wrong part B can hide in a side A + p(d)·B at a zero of p;
- the claim itself is evaluated there too (an inequality with every certificate term), and
  a matrix claim entry by entry at sizes n, d, m chosen from its fingerprint outside the
  concrete engine's own: a violation is an exact counterexample, which the checker re-checks.

docs/trust.md gives the argument, and the probability that a wrong normal form survives.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import sympy

from lnsym import ir
from lnsym.checking.fingerprint import NotKeyable, digest
from lnsym.engines.base import Checkable, Evidence, Outcome
from lnsym.engines.concrete.agreement import Agreement, agree_at, entries_agree_at
from lnsym.engines.general import GeneralEngine, Obligation, VectorForm, is_zero, to_expr
from lnsym.engines.general.substitution import SymbolSubstitution
from lnsym.engines.general.symbols import Root
from lnsym.errors import DomainError, UnsupportedError
from lnsym.ir.calculus import OperatorNorm
from lnsym.ir.lowering import MAX_D, SIZES, group_counts, lower, sizes_for
from lnsym.ir.matrices import has_matrices
from lnsym.ir.names import d, m, n

#: The first dimensions tried, in an order the claim's fingerprint decides.
FIRST = range(9, 41)
#: Dimensions the other engines check at fixed sizes: never chosen (the concrete engine's
#: d = 1..8 and its large dimensions, the numeric engine's samples).
FIXED = frozenset({*range(1, 9), 10, 16, 64, 100, 768, 1000, 10**4, 10**6, 10**9})
#: How far past 40 the search for an admissible dimension goes before it gives up.
LAST = 200
#: The largest dimension validation evaluates at (a claim stated only above it, or at one d
#: above it, is not validated: exact values of that size are out of reach).
HIGHEST = 1000
#: The sides of a matrix claim's validation: each from its range, chosen by the fingerprint.
MATRIX_RANGES = {n: range(3, 7), d: range(3, 7), m: range(2, 6)}


def validate(
    claim: Checkable, obligations: Sequence[Obligation], engine: GeneralEngine, *, seed: int = 0
) -> Evidence:
    """Check a proof's normal forms and the claim itself where no claim can aim.

    Returns:
        Evidence of the engine ``"validation"``: ``holds`` when everything agrees; an exact
        ``counterexample`` when the claim itself fails at the point; ``error`` for an engine
        disagreement (a normal form that is not its side's value); ``not proved`` when no
        point could be evaluated (no admissible dimension, no real value at any point drawn).
    """
    start = time.perf_counter()
    fingerprint = _fingerprint(claim)
    point_seed = int(fingerprint[8:24], 16) ^ seed
    pending = list(dict.fromkeys(obligations))  # each equality once, in order
    # A matrix claim's slices each carry the assumptions that hold in their world.
    sliced = has_matrices(claim.statement)
    dimension = dimension_for(claim, pending, engine, fingerprint, () if sliced else None)
    if dimension is None:
        return _evidence(Outcome.NOT_PROVED, "no admissible dimension", start)

    checks: list[tuple[str, Agreement, str]] = []  # what, how it went, where it was checked
    statement = claim.statement
    if has_matrices(statement):
        sizes = matrix_sizes(claim, fingerprint, engine)
        if sizes is None:
            return _evidence(Outcome.NOT_PROVED, "no admissible sizes for the matrices", start)
        where = ", ".join(f"{k} = {v}" for k, v in sizes.items())
        checks.append(("the claim", entries_agree_at(claim, sizes, seed=point_seed), where))
    else:
        where = f"d = {dimension}"
        pairs = _claim_pairs(statement)
        if pairs:
            agreement = agree_at(pairs, claim.assumptions, dimension, seed=point_seed)
            checks.append(("the claim", agreement, where))
    seen: set[ir.Expr] = set()
    parts = 0
    for k, obligation in enumerate(pending):
        at = dimension
        if not ir.admits(obligation.assumptions, dimension):
            own = dimension_for(claim, [obligation], engine, fingerprint, obligation.assumptions)
            if own is None:
                why = f"no admissible dimension for equality {k + 1}"
                return _evidence(Outcome.NOT_PROVED, why, start)
            at = own
        pairs = [
            (obligation.lhs, _written(engine, obligation.lhs), "eq"),
            (obligation.rhs, _written(engine, obligation.rhs), "eq"),
            (obligation.lhs, obligation.rhs, "eq"),
        ]
        # Every part's normal form too: an error in a part can hide in a side that a
        # factor vanishing at this dimension multiplies (A + p(d)·B, p(D) = 0).
        for part in _parts(obligation, seen):
            pairs.append((part, _written(engine, part), "eq"))
            parts += 1
        agreement = agree_at(pairs, obligation.assumptions, at, seed=point_seed + k + 1)
        checks.append((f"equality {k + 1}", agreement, f"d = {at}"))

    data: dict[str, Any] = {"dimension": dimension, "equalities": len(pending), "parts": parts}
    if has_matrices(statement):
        data["sizes"] = where
    else:
        data["at"] = where
    for what, agreement, at_point in checks:
        if agreement.status == "differ":
            assert agreement.point is not None
            # (a matrix claim's pairs are its entries; a vector claim's first is the claim)
            if what == "the claim" and (agreement.differing == 0 or has_matrices(statement)):
                detail = f"the claim fails at an exact point at {where}"
                seconds = time.perf_counter() - start
                return Evidence(
                    "validation", Outcome.COUNTEREXAMPLE, detail, seconds, data, agreement.point
                )
            detail = _disagreement(what, agreement, at_point)
            return _evidence(Outcome.ERROR, detail, start, data)
        if agreement.status != "agree":
            detail = f"{what} could not be evaluated at {at_point}: {agreement.note}"
            return _evidence(Outcome.NOT_PROVED, detail, start, data)
    # The sizes are in the data: the detail reads alike for claims validated alike.
    size = "sizes" if has_matrices(statement) else "a dimension"
    detail = (
        f"the claim and the normal forms of {len(pending)} "
        f"equalit{'y' if len(pending) == 1 else 'ies'} agree with the concrete engine's exact "
        f"values at one random rational point each, at {size} chosen from the claim outside "
        "every fixed size"
    )
    return _evidence(Outcome.HOLDS, detail, start, data)


def dimension_for(
    claim: Checkable,
    obligations: Sequence[Obligation],
    engine: GeneralEngine,
    fingerprint: str | None = None,
    assumptions: Sequence[ir.Assumption] | None = None,
) -> int | None:
    """The dimension D of the validation: ``dimension(k)`` when the assumptions fix it, else
    the first admissible value of :func:`candidates` — allowed by the dimension assumptions
    and not degenerate for the claim (:func:`degenerate`) — or, for a claim stated only above
    :data:`LAST`, of the dimensions from its lower bound on. None when none is.

    ``assumptions`` are the claim's unless given: a matrix claim's speak of its d, which a
    slice along the batch or the inputs does not have (its own assumptions say so)."""
    assumptions = claim.assumptions if assumptions is None else assumptions
    fixed = {a.value for a in assumptions if isinstance(a, ir.FixedDimension)}
    if fixed:
        return min(fixed) if min(fixed) <= HIGHEST else None
    fingerprint = fingerprint or _fingerprint(claim)
    parts = _scalar_parts(claim, obligations)
    low = max((a.value for a in assumptions if isinstance(a, ir.MinDimension)), default=1)
    beyond = range(low, min(low + LAST, HIGHEST + 1)) if low > LAST else range(0)
    for candidate in itertools.chain(candidates(fingerprint), beyond):
        if not ir.admits(assumptions, candidate):
            continue
        if not degenerate(candidate, parts, obligations, engine):
            return candidate
    return None


def candidates(fingerprint: str) -> Iterator[int]:
    """:data:`FIRST` outside :data:`FIXED`, starting where the fingerprint says and wrapping
    round, then every dimension above it up to :data:`LAST` outside :data:`FIXED`."""
    first = [k for k in FIRST if k not in FIXED]
    start = int(fingerprint[:8], 16) % len(first)
    yield from first[start:] + first[:start]
    yield from (k for k in range(FIRST.stop, LAST + 1) if k not in FIXED)


def degenerate(
    dimension: int,
    parts: Iterable[ir.Expr],
    obligations: Iterable[Obligation],
    engine: GeneralEngine,
) -> bool:
    """Whether ``dimension`` is a zero of the claim: a vector-free part (``parts``: a
    constant, ⟨1, 1⟩ − 3, a root of such) is zero there but not identically, or undefined;
    or the difference of two compared sides, before their assumptions, is 0 there but not
    identically (a wrong decision about A − B would hide behind a factor p(d) spread over its
    terms). A claim multiplied by p(d) would pass any check at a zero of p. (A wrong normal
    form behind such a factor is caught apart: every part is validated on its own.)"""
    for part in parts:
        if _vanishes_at(_form(engine, part), dimension):
            return True
    for obligation in obligations:
        left, right = _form(engine, obligation.lhs), _form(engine, obligation.rhs)
        if left is None or right is None or isinstance(left, VectorForm) != isinstance(
            right, VectorForm
        ):
            continue
        difference = (
            left + right.scale(sympy.Integer(-1)) if isinstance(left, VectorForm) else left - right
        )
        terms = _coefficients(difference)
        if terms and all(_vanishes_at(c, dimension) for c in terms):
            return True
    return False


def _coefficients(form: Any) -> list[Any]:
    if form is None:
        return []
    return [c for _, c in form.terms] if isinstance(form, VectorForm) else [form]


def matrix_sizes(
    claim: Checkable, fingerprint: str, engine: GeneralEngine
) -> dict[sympy.Symbol, int] | None:
    """Sizes n, d, m for a matrix claim: each from :data:`MATRIX_RANGES`, in an order the
    fingerprint decides (d a multiple of every group count, admitted by the assumptions),
    never one of the concrete engine's own sizes, never a zero of a constant of the claim (a
    factor (n − 2)(n − 3) would make every entry vanish there), nor of a part that is a
    function of the sizes (⟨1, 1⟩ − 4 at d = 4, a product of ones matrices); None when no
    size is left."""
    factor = 1
    for g in group_counts(claim.statement):
        factor = factor * g // sympy.igcd(factor, g)
    own = {tuple(s.values()) for s in sizes_for(claim.statement, claim.assumptions)}
    own |= set(SIZES)
    admitted = [k for k in range(factor, factor * (MAX_D + 1), factor)
                if ir.admits(claim.assumptions, k)]  # fmt: skip
    if not admitted:
        return None
    choices = {axis: list(r) for axis, r in MATRIX_RANGES.items()}
    width = len(MATRIX_RANGES[d])
    choices[d] = [k for k in admitted if k >= 3 * factor][:width] or admitted[-1:]
    constants = _constants(claim)
    vector_parts, matrix_parts = _size_parts(claim)
    h = int(fingerprint[24:40], 16)
    combinations = 1
    for values in choices.values():
        combinations *= len(values)
    for shift in range(combinations):
        k = (h + shift) % combinations
        picked: dict[sympy.Symbol, int] = {}
        for axis, values in choices.items():
            picked[axis] = values[k % len(values)]
            k //= len(values)
        if (picked[n], picked[d], picked[m]) in own:
            continue
        if any(_zero_at(c, picked) for c in constants):
            continue
        if any(_vanishes_at(_form(engine, p), picked[d]) for p in vector_parts):
            continue
        if any(_part_vanishes(p, picked, h) for p in matrix_parts):
            continue
        return picked
    return None


def _size_parts(claim: Checkable) -> tuple[list[ir.Expr], list[ir.Expr]]:
    """The claim's parts that are functions of the sizes: scalars of the vector IR (their
    normal forms are functions of d, whatever vectors they hold: ⟨1, 1⟩ − 4 + var(g) −
    var(g + 1)), and parts of the matrix IR that hold no atom (Σ of a ones matrix, a product
    of ones matrices), scalars or matrices."""
    statement = claim.statement
    sides = (statement.lhs, statement.rhs, *getattr(statement, "certificate", ()))
    vector_parts, matrix_parts = [], []
    for x in ir.distinct_nodes(*sides, definitions=True):
        if isinstance(x, ir.Const | ir.VectorAtom) or x.kind == "vector":
            continue
        if not has_matrices(x):
            vector_parts.append(x)
        elif not any(getattr(y, "names_an_atom", False) for y in ir.walk(x)):
            matrix_parts.append(x)
    return vector_parts, matrix_parts


def _part_vanishes(part: ir.Expr, sizes: dict[sympy.Symbol, int], seed: int) -> bool:
    """Whether a part without atoms is 0 at these sizes (every entry, at a random value of
    its scalars) while it is not at sizes far from them, chosen from the fingerprint: a
    part 0 at both is taken for 0 everywhere."""

    def zero_at(at: dict[sympy.Symbol, int]) -> bool:
        try:
            written = lower(part, at)
        except (UnsupportedError, DomainError):
            return False
        entries = written if isinstance(written, list) else [written]
        flat = [x for row in entries for x in (row if isinstance(row, list) else [row])]
        pairs = [(x, ir.as_scalar(0), "eq") for x in flat]
        return agree_at(pairs, (), at[d], seed=seed).status == "agree"

    if not zero_at(sizes):
        return False
    far = {axis: 11 + (seed // 7**i) % 6 for i, axis in enumerate((n, d, m))}
    return not zero_at(far)


def _constants(claim: Checkable) -> list[sympy.Expr]:
    """The SymPy constants of the claim that mention a size."""
    statement = claim.statement
    sides = (statement.lhs, statement.rhs, *getattr(statement, "certificate", ()))
    return [
        x.value
        for x in ir.distinct_nodes(*sides, definitions=True)
        if isinstance(x, ir.Const) and x.value.free_symbols & {n, d, m}
    ]


def _zero_at(value: sympy.Expr, sizes: dict[sympy.Symbol, int]) -> bool:
    """Whether a constant vanishes (or loses its denominator) at the sizes, while not
    identically zero."""
    numerator, denominator = sympy.fraction(sympy.together(value))
    at = {k: sympy.Integer(v) for k, v in sizes.items()}
    if sympy.expand(denominator.xreplace(at)) == 0:
        return True
    return sympy.expand(numerator) != 0 and sympy.expand(numerator.xreplace(at)) == 0


# ---------------------------------------------------------------------------------------


def _fingerprint(claim: Checkable) -> str:
    try:
        return digest((claim.statement, tuple(claim.assumptions)))
    except NotKeyable:  # an object without a structural encoding: its text still decides
        return hashlib.sha256(repr(claim.statement).encode()).hexdigest()


def _claim_pairs(statement: ir.Relation) -> list[tuple[ir.Expr, ir.Expr, str]]:
    """The claim's own comparisons; none with an operator norm (a maximum over directions,
    which the lemma schemas prove from premises validated on their own)."""
    if any(isinstance(x, OperatorNorm) for x in ir.walk(statement.lhs) + ir.walk(statement.rhs)):
        return []
    if isinstance(statement, ir.Le):
        zero = ir.as_scalar(0)
        terms = [(zero, t, "le") for t in statement.certificate]
        return [(statement.lhs, statement.rhs, "le"), *terms]
    return [(statement.lhs, statement.rhs, "eq")]


def _scalar_parts(claim: Checkable, obligations: Sequence[Obligation]) -> list[ir.Expr]:
    """The scalar parts of the claim and the compared sides that hold no vector atom."""
    statement = claim.statement
    sides = [statement.lhs, statement.rhs, *getattr(statement, "certificate", ())]
    sides += [x for ob in obligations for x in (ob.lhs, ob.rhs)]
    return [
        x
        for x in ir.distinct_nodes(*sides)
        if x.kind == "scalar" and not has_matrices(x) and not _has_vectors(x)
    ]


def _has_vectors(e: ir.Expr) -> bool:
    return any(isinstance(x, ir.VectorAtom | ir.Ones) for x in ir.walk(e))


def _form(engine: GeneralEngine, e: ir.Expr) -> Any:
    try:
        return engine.form(e)
    except (UnsupportedError, DomainError, AssertionError, TypeError):
        return None


def _vanishes_at(f: Any, dimension: int) -> bool:
    """Whether the scalar normal form ``f`` is zero (or undefined) at d = dimension while not
    identically zero — d replaced inside roots too (√((⟨1, 1⟩ − k)²) hides a zero at k)."""
    if f is None or isinstance(f, VectorForm) or not _mentions_d(f):
        return False
    try:
        at = SymbolSubstitution(d, sympy.Integer(dimension)).form(f)
    except DomainError:
        return True  # a denominator, or a root's, vanishes there
    try:
        return not is_zero(f) and is_zero(at)
    except DomainError:
        return True
    except UnsupportedError:
        return False


#: Parts whose normal form is the node itself, or that of its definition (checked apart).
_PLAIN = (ir.VectorAtom, ir.Ones, ir.Const, ir.Defined)


def _parts(obligation: Obligation, seen: set[ir.Expr]) -> Iterator[ir.Expr]:
    """The parts of an obligation's sides (definitions expanded) whose normal forms the
    engine computed by a rule of its own, each once per claim."""
    for part in ir.distinct_nodes(obligation.lhs, obligation.rhs, definitions=True):
        if part in seen or isinstance(part, _PLAIN):
            continue
        if part is obligation.lhs or part is obligation.rhs:
            continue
        seen.add(part)
        yield part


def _mentions_d(f: sympy.Expr) -> bool:
    """Whether d occurs in ``f``, inside its roots' radicands too (a form free of d is the
    same at every dimension: it cannot vanish at one alone)."""
    return any(
        s == d or (isinstance(s, Root) and _mentions_d(s.radicand)) for s in f.free_symbols
    )


def _written(engine: GeneralEngine, e: ir.Expr) -> ir.Expr:
    """The general engine's normal form of ``e``, written back as IR."""
    return to_expr(engine.form(e))


def _disagreement(what: str, agreement: Agreement, where: str) -> str:
    side = {0: "lhs", 1: "rhs"}.get(agreement.differing or 0)
    if side is not None and what != "the claim":
        found = f"the general engine's normal form of the {side} of {what}"
        return (
            f"engines disagree: {found} is not its value by the concrete engine at {where} "
            "(an exact random point)"
        )
    if what == "the claim":
        return f"engines disagree: a certificate term is negative at an exact point at {where}"
    return (
        f"engines disagree: the sides of {what}, whose normal forms the general engine found "
        f"equal, differ at an exact random point at {where}"
    )


def _evidence(
    outcome: Outcome, detail: str, start: float, data: dict[str, Any] | None = None
) -> Evidence:
    if outcome == Outcome.NOT_PROVED:
        detail = f"not validated: {detail}"
    return Evidence("validation", outcome, detail, time.perf_counter() - start, data or {})
