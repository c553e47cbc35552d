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
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.base import Checkable, Counterexample, Evidence, Outcome, Statement
from lnsym.engines.concrete.engine import _mentions_d, _routes, cross_checks
from lnsym.engines.concrete.engine import evidence as scalar_evidence
from lnsym.engines.concrete.examine import _examine
from lnsym.engines.concrete.points import _Point
from lnsym.engines.concrete.problem import _principal, _Problem
from lnsym.engines.concrete.recheck import promote as scalar_promote
from lnsym.engines.concrete.recheck import recheck as scalar_recheck
from lnsym.engines.concrete.ring_values import proved_together
from lnsym.errors import DomainError
from lnsym.ir.lowering import lower_relation, lowered_entries, sizes_for, sizes_text
from lnsym.ir.names import d, m, n
from lnsym.ir.relations import Eq, Relation

_NAMES = {"n": n, "d": d, "m": m}


def evidence(claim: Checkable, *, seed: int) -> Evidence:
    """Check every entry of a matrix statement exactly at each size of ``sizes_for``."""
    start = time.perf_counter()
    if claim.assumptions:
        detail = "assumptions on a statement about matrices are not supported"
        return Evidence("concrete", Outcome.ERROR, detail, time.perf_counter() - start)
    outcomes: list[Outcome] = []
    checked = []
    cross_check = cross_checks()  # owed once by the statement, as by a scalar claim
    for sizes in sizes_for(claim.statement):
        named = {str(k): v for k, v in sizes.items()}
        entries = lowered_entries(claim.statement, sizes)
        proved = _proved_together([relation for _, relation in entries])
        for k, (index, relation) in enumerate(entries):
            if k in proved:
                outcomes.append(Outcome.HOLDS)
                continue
            try:
                found = scalar_evidence(
                    Statement(relation), max_d=1, seed=seed, cross_check=cross_check
                )
            except DomainError as exc:
                detail = f"entry {index} for {sizes_text(named)}: {exc}"
                return Evidence("concrete", Outcome.ERROR, detail, time.perf_counter() - start)
            if found.outcome == Outcome.COUNTEREXAMPLE and found.counterexample is not None:
                point = _small(relation, found.counterexample)
                point = replace(point, d=sizes[d], sizes=named, entry=index)
                detail = f"violated exactly at entry {index} for {sizes_text(named)}"
                seconds = time.perf_counter() - start
                data = {"exact": True, "sizes": named}
                return Evidence("concrete", Outcome.COUNTEREXAMPLE, detail, seconds, data, point)
            if found.outcome not in (Outcome.HOLDS, Outcome.CONSISTENT):
                detail = f"entry {index} for {sizes_text(named)}: {found.detail}"
                return Evidence("concrete", found.outcome, detail, time.perf_counter() - start)
            outcomes.append(found.outcome)
        checked.append("(" + ", ".join(str(v) for v in sizes.values()) + ")")
    where = f"every entry for (n, d, m) = {', '.join(checked)}"
    data = {"exact": True, "sizes": checked}
    seconds = time.perf_counter() - start
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


def _entry(claim: Checkable, sizes: Mapping[str, int], entry: tuple[int, ...]) -> Relation | None:
    """The statement's entry ``entry`` written out afresh at ``sizes`` (n, d, m by name)."""
    entries = dict(lower_relation(claim.statement, {_NAMES[k]: v for k, v in sizes.items()}))
    return entries.get(entry)


def recheck(claim: Checkable, point: Counterexample) -> tuple[Counterexample | None, str]:
    """Write the statement afresh at the point's sizes and re-check the reported entry."""
    relation = _entry(claim, point.sizes, point.entry)
    if relation is None:
        return None, f"the statement has no entry {point.entry} at those sizes"
    found, how = scalar_recheck(Statement(relation), replace(point, sizes={}, entry=()))
    if found is None:
        return None, how
    return replace(found, d=point.d, sizes=point.sizes, entry=point.entry), how


def promote(claim: Checkable, sample: Mapping[str, Any]) -> tuple[Counterexample | None, str]:
    """Make the numeric engine's violating sample of one entry an exact counterexample: the
    statement is written afresh at the sample's sizes and that entry evaluated exactly at
    the sample read as rationals (:func:`lnsym.engines.concrete.recheck.promote`)."""
    try:
        named = {str(k): int(v) for k, v in sample["sizes"].items()}
        entry = tuple(int(i) for i in sample["entry"])
        relation = _entry(claim, named, entry)
    except (KeyError, TypeError, ValueError) as exc:
        return None, f"the sample does not say which entry it violates: {exc}"
    if relation is None:
        return None, f"the statement has no entry {entry} at those sizes"
    scalar = {k: v for k, v in sample.items() if k not in ("sizes", "entry")}
    found, how = scalar_promote(Statement(relation), scalar)
    if found is None:
        return None, how
    return replace(_small(relation, found), d=named["d"], sizes=named, entry=entry), how
