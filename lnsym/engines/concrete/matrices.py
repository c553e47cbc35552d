"""Matrix statements in the concrete engine: every entry checked exactly at small sizes.

The statement is written entry by entry at each (n, d, m) of
:func:`lnsym.ir.lowering.sizes_for` (:mod:`lnsym.ir.lowering`: no rule of the general
engine's slices is used), and each entry's scalar statement goes through the concrete
engine's exact checks. The first violated entry is the counterexample — with the sizes and
the entry's index, its point being the scalar entries X11, X12, … of the matrices — and is
re-checked by :func:`recheck`, which writes the statement out afresh at those sizes.

The entries of one size share most of their parts, so the symbolic reduction that decides an
equality at d = 1 is done for all of them in one ring (:func:`_proved_together`); an entry
it does not prove goes through the checks alone, and the evidence is the same either way
(the tests compare the two). Of the entries checked alone, the first to reach a random point
has that point evaluated by SymPy as well, the check of the exact arithmetic that a scalar
claim gets once too.

**Assumptions.** Sizes come from ``sizes_for`` with the claim's dimension assumptions. A vector
atom of ℝ^d is written as its entries gamma1, …, gamma_d; its linear assumptions (centered,
orthogonal) fix its last entries as functions of the others — solved exactly, as the scalar
engine solves them (:func:`~lnsym.engines.concrete.problem._constrain`) — and every entry is
checked at those values: each side is evaluated *at* gamma_d = −Σ others (a
:class:`~lnsym.ir.Substitution`, after any derivative inside is taken, so that ∂/∂gamma1 is
still the partial derivative), which the symbolic reduction decides for all free entries at
once. A non-constant atom is not written into the entries; a violation the scalar checks find
is a counterexample only if it lifts to a point where every assumption holds
(:meth:`_Under.lift`), and otherwise the entries are searched at exact random points drawn
under every assumption (:meth:`_Under.search`): a point outside the claim is never a
counterexample. Atoms that occur only in the assumptions are drawn too (their entries are in
the point), so an assumption never silently vanishes; one that constrains nothing the
statement uses changes nothing. :func:`recheck` checks every assumption at the point.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.base import Checkable, Counterexample, Evidence, Outcome, Statement
from lnsym.engines.concrete.engine import OVERDETERMINED, _mentions_d, _routes, cross_checks
from lnsym.engines.concrete.engine import evidence as scalar_evidence
from lnsym.engines.concrete.examine import _examine
from lnsym.engines.concrete.points import _Point
from lnsym.engines.concrete.problem import _constrain, _principal, _Problem
from lnsym.engines.concrete.recheck import _rational
from lnsym.engines.concrete.recheck import promote as scalar_promote
from lnsym.engines.concrete.recheck import recheck as scalar_recheck
from lnsym.engines.concrete.ring_values import proved_together
from lnsym.errors import DomainError, UnsupportedError
from lnsym.ir.lowering import MAX_D, Lowered, lower_claim, lowered, sizes_for, sizes_text
from lnsym.ir.names import d, m, n
from lnsym.ir.relations import Eq, Relation

_NAMES = {"n": n, "d": d, "m": m}


def evidence(claim: Checkable, *, seed: int) -> Evidence:
    """Check every entry of a matrix statement exactly at each size of ``sizes_for``."""
    start = time.perf_counter()
    all_sizes = sizes_for(claim.statement, claim.assumptions)
    if not all_sizes:
        detail = f"no size with d ≤ {MAX_D} (a multiple of every group count) satisfies the " + (
            "assumptions: " + ", ".join(map(repr, claim.assumptions))
        )
        return Evidence("concrete", Outcome.ERROR, detail, time.perf_counter() - start)
    constrained = _vector_assumptions(claim.assumptions)
    outcomes: list[Outcome] = []
    checked: list[str] = []
    special: list[str] = []  # sizes where an atom meets d or more linear constraints
    cross_check = cross_checks()  # owed once by the statement, as by a scalar claim
    for sizes in all_sizes:
        named = {str(k): v for k, v in sizes.items()}
        label = "(" + ", ".join(str(v) for v in sizes.values()) + ")"
        # There the points make an atom 0; its other admissible values are never reached:
        # a counterexample still counts, a size that holds shows nothing.
        overdetermined = constrained and _problem_of(claim).overdetermined(sizes[d])
        held: list[Outcome] = []
        written = lowered(claim.statement, sizes, claim.assumptions)
        entries = written.entries
        under = _Under.of(claim, written, sizes) if constrained else None
        relations = [r if under is None else under.wrap(r) for _, r in entries]
        proved = _proved_together(relations)
        for k, (index, relation) in enumerate(entries):
            if k in proved:
                held.append(Outcome.HOLDS)
                continue
            try:
                found = scalar_evidence(
                    Statement(relations[k]), max_d=1, seed=seed, cross_check=cross_check
                )
            except DomainError as exc:
                detail = f"entry {index} for {sizes_text(named)}: {exc}"
                return Evidence("concrete", Outcome.ERROR, detail, time.perf_counter() - start)
            if found.outcome == Outcome.COUNTEREXAMPLE and found.counterexample is not None:
                point: Counterexample | None
                if under is None:
                    point = _small(relation, found.counterexample)
                    point = replace(point, d=sizes[d], sizes=named, entry=index)
                else:  # a counterexample only where every assumption holds
                    point = under.lift(index, found.counterexample) or under.search(seed)
                if point is not None:
                    where = f"entry {point.entry} for {sizes_text(named)}"
                    detail = f"violated exactly at {where}"
                    seconds = time.perf_counter() - start
                    found_at = {"exact": True, "sizes": named}
                    return Evidence(
                        "concrete", Outcome.COUNTEREXAMPLE, detail, seconds, found_at, point
                    )
                found = replace(found, outcome=Outcome.CONSISTENT)  # none under the assumptions
            if found.outcome not in (Outcome.HOLDS, Outcome.CONSISTENT):
                detail = f"entry {index} for {sizes_text(named)}: {found.detail}"
                return Evidence("concrete", found.outcome, detail, time.perf_counter() - start)
            held.append(found.outcome)
        if overdetermined:
            special.append(label)
        else:
            outcomes.extend(held)
            checked.append(label)
    seconds = time.perf_counter() - start
    if not checked:
        detail = f"no violation at the points reached for (n, d, m) = {', '.join(special)}: "
        nothing = {"exact": True, "sizes": [], "special_sizes": special}
        return Evidence("concrete", Outcome.CONSISTENT, detail + OVERDETERMINED, seconds, nothing)
    where = f"every entry for (n, d, m) = {', '.join(checked)}"
    if constrained:
        where += " under the assumptions"
        if any(isinstance(a, ir.Centered | ir.Orthogonal) for a in claim.assumptions):
            where += " (the entries their linear constraints fix solved exactly)"
    data: dict[str, Any] = {"exact": True, "sizes": checked}
    if special:
        data["special_sizes"] = special
        where += f" ({', '.join(special)} decide nothing: {OVERDETERMINED})"
    if all(o == Outcome.HOLDS for o in outcomes):
        return Evidence("concrete", Outcome.HOLDS, f"exact for {where}", seconds, data)
    detail = f"no violation at exact sample points of {where}"
    return Evidence("concrete", Outcome.CONSISTENT, detail, seconds, data)


def _proved_together(relations: Sequence[Relation]) -> set[int]:
    """The entries (by position) whose equality the symbolic reduction proves, reduced in
    one ring (:func:`~lnsym.engines.concrete.ring_values.proved_together`): what checking
    each alone decides first (at d = 1, the only dimension of an entry that does not mention
    d, an equality is decided by the symbolic reduction before anything else), with the
    values of the parts the entries share — a row's mean, its variance — computed once
    instead of once per entry.

    An entry not proved here — an inequality, a remainder that is not 0, a reduction too
    large, an entry that mentions d or has a layer's root to make rational, any error — is
    checked alone, as before, which also reports what is to be reported.
    """
    if not _routes().direct:
        return set()  # every entry alone, through SymPy
    searched: dict[int, ir.Expr] = {}  # (the nodes _principal searched, for every entry)
    equalities: dict[int, Relation] = {}
    for k, relation in enumerate(relations):
        if not isinstance(relation, Eq) or _mentions_d(relation):
            continue
        if _principal(relation.lhs, searched) or _principal(relation.rhs, searched):
            return set()  # (a later entry would not find a root found once: all alone)
        equalities[k] = relation
    return proved_together(equalities)


#: Values tried for an entry's symbols to make a counterexample readable (positive ones
#: for symbols that must be positive), and how many combinations at most.
_SMALL = tuple(sympy.Integer(v) for v in (1, -1, 2, -2, 3))
_SMALL_POSITIVE = (sympy.Integer(1), sympy.Integer(2), sympy.Integer(3), sympy.Rational(1, 2))
_SMALL_TRIES = 200


def _size(point: Counterexample) -> int:
    return max((max(abs(v.p), v.q) for v in point.scalars.values()), default=0)


def _small(relation: Relation, point: Counterexample) -> Counterexample:
    """The first exact violation of ``relation`` with small nonzero values (1, −1, 2, …, in
    order of their sum of ranks), if it is smaller than ``point``; the search's point
    otherwise. Random points of the search read badly (X11 = 806539898841823)."""
    if point.vectors or _size(point) <= 3:
        return point
    symbols = _symbols(relation)
    if set(symbols) != set(point.scalars):
        return point
    names = sorted(symbols)
    choices = [_SMALL_POSITIVE if symbols[k].is_positive else _SMALL for k in names]
    ranks = _by_size(tuple(len(c) - 1 for c in choices))
    kind = "le" if isinstance(relation, ir.Le) else "eq"
    problem = _Problem.of(relation.lhs, relation.rhs, kind, ())
    for combo in itertools.islice(ranks, _SMALL_TRIES):
        values = {k: c[i] for k, c, i in zip(names, choices, combo, strict=True)}
        # Exact arithmetic first (SymPy confirms a violation it finds); SymPy re-checks
        # only the candidate that violates.
        at = _Point(point.d, {}, {symbols[k]: v for k, v in values.items()})
        if _examine(problem, at).violation is None:
            continue
        found, _ = scalar_recheck(Statement(relation), replace(point, scalars=values))
        if found is not None:
            return found
    return point


def _symbols(relation: Relation) -> dict[str, sympy.Symbol]:
    """The symbols of a lowered relation by name."""
    nodes = ir.distinct_nodes(relation.lhs, relation.rhs)
    return {str(s): s for x in nodes if isinstance(x, ir.Const) for s in x.value.free_symbols}


def _by_size(bounds: tuple[int, ...], total: int | None = None) -> Iterator[tuple[int, ...]]:
    """Every tuple of ranks (0 ≤ rᵢ ≤ boundsᵢ), by increasing sum, then lexicographically."""
    if total is None:
        for t in range(sum(bounds) + 1):
            yield from _by_size(bounds, t)
        return
    if not bounds:
        if total == 0:
            yield ()
        return
    for first in range(min(total, bounds[0]) + 1):
        for rest in _by_size(bounds[1:], total - first):
            yield (first, *rest)


def _entry(
    claim: Checkable, sizes: Mapping[str, int], entry: tuple[int, ...]
) -> tuple[Relation | None, Lowered]:
    """The statement's entry ``entry`` written out afresh at ``sizes`` (n, d, m by name), in
    one namespace with the claim's assumptions, and the whole written claim."""
    written = lower_claim(
        claim.statement, {_NAMES[k]: v for k, v in sizes.items()}, claim.assumptions
    )
    return dict(written.entries).get(entry), written


def recheck(claim: Checkable, point: Counterexample) -> tuple[Counterexample | None, str]:
    """Write the statement afresh at the point's sizes and re-check the reported entry there,
    with every assumption checked at the point (the vectors read off their entries)."""
    relation, written = _entry(claim, point.sizes, point.entry)
    if relation is None:
        return None, f"the statement has no entry {point.entry} at those sizes"
    size = int(point.sizes.get("d", 0))
    if not all(a.admits(size) for a in claim.assumptions):
        return None, f"d = {size} is outside the assumptions"
    vectors, why = _assumed_vectors(claim, written, point.scalars)
    if vectors is None:
        return None, why
    found, how = scalar_recheck(Statement(relation), replace(point, sizes={}, entry=()))
    if found is None:
        return None, how
    scalars = {**found.scalars, **_entries_of(written, vectors)}
    found = replace(found, scalars=dict(sorted(scalars.items())))
    return replace(found, d=point.d, sizes=point.sizes, entry=point.entry), how


def _assumed_vectors(
    claim: Checkable, written: Lowered, scalars: Mapping[str, Any]
) -> tuple[dict[str, tuple[sympy.Expr, ...]] | None, str]:
    """The vectors of the assumptions' atoms read off their entries at a point, if every
    assumption holds there (None and why not otherwise)."""
    vectors: dict[str, tuple[sympy.Expr, ...]] = {}
    for name in _assumed_atoms(claim.assumptions):
        values = []
        for symbol in written.vectors[name]:
            if symbol.name not in scalars:
                return None, f"no value for the entry {symbol.name} of {name}"
            values.append(sympy.Rational(scalars[symbol.name]))
        vectors[name] = tuple(values)
    for assumption in claim.assumptions:
        if not assumption.holds(vectors):
            return None, f"the point does not satisfy the assumption {assumption!r}"
    return vectors, ""


def _entries_of(
    written: Lowered, vectors: Mapping[str, tuple[sympy.Expr, ...]]
) -> dict[str, sympy.Expr]:
    """Vectors as the values of their entries by name (gamma1, gamma2, …)."""
    return {
        symbol.name: value
        for name, values in vectors.items()
        for symbol, value in zip(written.vectors[name], values, strict=True)
    }


def promote(claim: Checkable, sample: Mapping[str, Any]) -> tuple[Counterexample | None, str]:
    """Make the numeric engine's violating sample of one entry an exact counterexample: the
    statement is written afresh at the sample's sizes and that entry evaluated exactly at
    the sample read as rationals (:func:`lnsym.engines.concrete.recheck.promote`); under
    assumptions, the entries their linear constraints fix are solved again exactly from the
    others, and every assumption is checked at the point (:func:`recheck`)."""
    try:
        named = {str(k): int(v) for k, v in sample["sizes"].items()}
        entry = tuple(int(i) for i in sample["entry"])
        relation, written = _entry(claim, named, entry)
    except (KeyError, TypeError, ValueError) as exc:
        return None, f"the sample does not say which entry it violates: {exc}"
    if relation is None:
        return None, f"the statement has no entry {entry} at those sizes"
    scalar = {k: v for k, v in sample.items() if k not in ("sizes", "entry")}
    if not _vector_assumptions(claim.assumptions):
        found, how = scalar_promote(Statement(relation), scalar)
        if found is None:
            return None, how
        return replace(_small(relation, found), d=named["d"], sizes=named, entry=entry), how
    why = "no sample"
    for digits in (6, None):
        try:
            values = {k: _rational(v, digits) for k, v in scalar.get("scalars", {}).items()}
        except (TypeError, ValueError, OverflowError) as exc:
            return None, f"the sample cannot be read exactly: {exc}"
        under = _Under.of(claim, written, {_NAMES[k]: v for k, v in named.items()})
        point = under.solved(values)
        if point is None:
            why = "the assumptions are degenerate at the sample"
            continue
        found, why = under.counterexample(entry, point)
        if found is not None:
            how = "rounded to 6 significant digits" if digits else "read exactly"
            return found, f"the numeric sample, {how}, violates the claim exactly"
    return None, why


# ---------------------------------------------------------------------------------------
# Points under the assumptions


def _vector_assumptions(assumptions: Sequence[ir.Assumption]) -> bool:
    """Whether an assumption constrains vector atoms (beyond the dimension)."""
    return any(_atoms_of(a) for a in assumptions)


def _atoms_of(assumption: ir.Assumption) -> list[str]:
    return [v.name for v in vars(assumption).values() if isinstance(v, ir.VectorAtom)]


def _assumed_atoms(assumptions: Sequence[ir.Assumption]) -> list[str]:
    """The vector atoms the assumptions name, sorted (as the scalar engine orders them: a
    partner of an orthogonality comes before the atom whose entries it constrains)."""
    return sorted({name for a in assumptions for name in _atoms_of(a)})


#: Exact random points tried per size when the checks' own violation lies outside the
#: assumptions (a non-constant atom constant there), and the ranges their integers come from.
SEARCH_POINTS = 24
_SEARCH_RANGES = (2, 5, 30, 1000)
_SMALL_EXPONENT = 6


def _problem_of(claim: Checkable) -> _Problem:
    """The assumptions' atoms and the assumptions, as the constraint solver reads them."""
    zero = ir.Const(sympy.Integer(0))
    atoms = tuple(_assumed_atoms(claim.assumptions))
    return _Problem(zero, zero, "eq", atoms, (), tuple(claim.assumptions), None)


@dataclass(frozen=True)
class _Under:
    """One size of a matrix claim under its vector assumptions: the entries their linear
    constraints fix, as exact functions of the other entries."""

    claim: Checkable
    written: Lowered
    sizes: Mapping[sympy.Symbol, int]
    problem: _Problem  # the assumptions' atoms and the assumptions, for _constrain
    dependent: Mapping[sympy.Symbol, sympy.Expr]  # an entry fixed by the constraints → value
    #: The search's outcome, once made (the entries whose violation did not lift share it).
    searched: dict[int, Counterexample | None] = field(default_factory=dict, compare=False)

    @staticmethod
    def of(claim: Checkable, written: Lowered, sizes: Mapping[sympy.Symbol, int]) -> _Under:
        problem = _problem_of(claim)
        atoms = problem.atoms
        symbolic = {a: tuple(written.vectors[a]) for a in atoms}
        solved = _constrain(problem, dict(symbolic), sizes[d])
        dependent: dict[sympy.Symbol, sympy.Expr] = {}
        if solved is not None:  # (None: degenerate for every point; the search decides)
            for a in atoms:
                for symbol, value in zip(symbolic[a], solved[a], strict=True):
                    if value != symbol:
                        dependent[symbol] = value
        return _Under(claim, written, sizes, problem, dependent)

    @property
    def d(self) -> int:
        return self.sizes[d]

    def wrap(self, relation: Relation) -> Relation:
        """``relation`` with each side evaluated at the constrained entries' values: a
        Substitution, taken after any derivative inside it (∂/∂gamma1 stays partial)."""
        used = {s for x in ir.distinct_nodes(relation.lhs, relation.rhs)
                if isinstance(x, ir.Const) for s in x.value.free_symbols}  # fmt: skip
        sides = [relation.lhs, relation.rhs]
        for symbol, value in self.dependent.items():
            if symbol in used:
                sides = [ir.Substitution(x, ir.Const(symbol), ir.Const(value)) for x in sides]
        return type(relation)(*sides)

    def solved(self, values: Mapping[str, sympy.Expr]) -> dict[str, sympy.Expr] | None:
        """Every entry of the assumptions' atoms at a point given by (some of) its free
        entries, the constrained ones solved again exactly; None where that is degenerate.
        A free entry without a value gets 0."""
        vectors = {
            a: tuple(sympy.Rational(values.get(s.name, 0)) for s in self.written.vectors[a])
            for a in self.problem.atoms
        }
        constrained = _constrain(self.problem, vectors, self.d)
        if constrained is None:
            return None
        return {**values, **_entries_of(self.written, constrained)}

    def lift(self, entry: tuple[int, ...], found: Counterexample) -> Counterexample | None:
        """The scalar checks' violation of a wrapped entry as a point of the whole claim:
        the constrained entries computed, the entries the entry does not use chosen so that
        every assumption holds where it can (a few fillings tried); None if none does."""
        given = dict(found.scalars)
        free = [s.name for a in self.problem.atoms for s in self.written.vectors[a]
                if s not in self.dependent and s.name not in given]  # fmt: skip
        for sign in (1, -1):
            filled = {**given, **{name: sympy.Integer(sign * (k + 1)) for k, name in
                                  enumerate(free)}}  # fmt: skip
            point = self._completed(filled)
            if point is None:
                continue
            lifted, _ = self.counterexample(entry, point)
            if lifted is not None:
                return lifted
        return None

    def _completed(self, values: Mapping[str, sympy.Expr]) -> dict[str, sympy.Expr] | None:
        """``values`` with the constrained entries computed from them (None if undefined)."""
        at = {s: values[s.name] for s in {*self.free_symbols()} if s.name in values}
        out = dict(values)
        for symbol, value in self.dependent.items():
            exact = value.xreplace(at)
            if not exact.is_Rational:
                return None  # a vanishing denominator: outside the parametrization
            out[symbol.name] = exact
        return out

    def free_symbols(self) -> list[sympy.Symbol]:
        return [s for a in self.problem.atoms for s in self.written.vectors[a]
                if s not in self.dependent]  # fmt: skip

    def counterexample(
        self, entry: tuple[int, ...], values: Mapping[str, sympy.Expr]
    ) -> tuple[Counterexample | None, str]:
        """The claim's counterexample at entry ``entry`` and the exact point ``values``
        (entries by name), as :func:`recheck` confirms it — assumptions included."""
        relation = dict(self.written.entries).get(entry)
        if relation is None:
            return None, f"the statement has no entry {entry} at those sizes"
        named = {str(k): v for k, v in self.sizes.items()}
        point = Counterexample(self.d, {}, dict(values), 0, 0, "eq", named, entry)
        return recheck(self.claim, point)

    def search(self, seed: int) -> Counterexample | None:
        """The first violation among :data:`SEARCH_POINTS` exact random points drawn under
        every assumption (the linear constraints solved exactly, the non-constant atoms
        checked), in entry order at each point; None if every entry holds at all of them."""
        if seed not in self.searched:
            self.searched[seed] = self._search(seed)
        return self.searched[seed]

    def _search(self, seed: int) -> Counterexample | None:
        rng = random.Random(f"{seed}:{sorted(self.sizes.items(), key=str)}")
        problems = [
            (index, _Problem.of(r.lhs, r.rhs, "le" if isinstance(r, ir.Le) else "eq", ()))
            for index, r in self.written.entries
        ]
        symbols = sorted({s for _, p in problems for s in p.symbols}, key=lambda s: s.name)
        small = {s for _, p in problems for s in p.exponents()}
        for k in range(SEARCH_POINTS):
            size = _SEARCH_RANGES[k % len(_SEARCH_RANGES)]
            vectors = {
                a: tuple(sympy.Integer(rng.randint(-size, size)) for _ in range(self.d))
                for a in self.problem.atoms
            }
            constrained = _constrain(self.problem, vectors, self.d)
            if constrained is None or not all(a.holds(constrained) for a in self.claim.assumptions):
                continue
            values = _entries_of(self.written, constrained)
            for s in symbols:
                if s.name in values:
                    continue
                top = min(size, _SMALL_EXPONENT) if s in small else size
                values[s.name] = sympy.Integer(rng.randint(1 if s.is_positive else -top, top))
            for index, problem in problems:
                at = _Point(1, {}, {s: values[s.name] for s in problem.symbols})
                try:
                    look = _examine(problem, at)
                except (UnsupportedError, DomainError):
                    continue
                if look.violation is not None:
                    found, _ = self.counterexample(index, values)
                    if found is not None:
                        return found
        return None
