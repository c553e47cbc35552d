"""The symbolic reduction's values built in the polynomial ring directly, without SymPy.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). The
exact evaluator of :mod:`lnsym.engines.concrete.exact` — forward-mode jets for derivatives —
runs here over fractions of FLINT polynomials (:class:`Fraction`, on a
:class:`~lnsym.engines.concrete.ring._Ring`) instead of numbers: coordinates, scalars and s
are generators, and a square root adjoins a generator r with r² = R. The identity holds when
the numerator of lhs − rhs reduces to 0 modulo those relations, as on the SymPy route
(:func:`~lnsym.engines.concrete.dimension._symbolic_zero`), which builds SymPy expressions
first and converts them; building the fractions directly is several times faster, and so
proves larger cases within the same kind of work limit (:data:`DIRECT_WORK`).

|x| is √(x²), a generator like any root, as on the SymPy route. What the evaluator cannot
write this way — a sign of a symbolic value, a power that is not a multiple of ½, more than
64 square roots — raises :class:`~lnsym.engines.concrete.arithmetic.Inexpressible`, and the
SymPy route decides.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.concrete import arithmetic
from lnsym.engines.concrete.arithmetic import Inexpressible, Jet
from lnsym.engines.concrete.exact import Evaluator, _compile
from lnsym.engines.concrete.problem import _constrain, _Problem
from lnsym.engines.concrete.ring import Pair, _Ring
from lnsym.engines.concrete.values import _free
from lnsym.errors import DomainError, UnsupportedError
from lnsym.ir.relations import Relation

#: Term products allowed in one reduction built directly (the SymPy route allows
#: :data:`~lnsym.engines.concrete.ring.SYMBOLIC_WORK` of its own, which count differently:
#: the jets multiply more, smaller polynomials). Every identity of the catalog that the
#: SymPy route proves needs at most 65,000.
DIRECT_WORK = 150_000
#: Generators reserved for square roots, tried in turn (the catalog needs at most 2; more
#: generators make every monomial longer, so a reduction that needs more starts again).
ROOT_SLOTS = (8, 64)


class _OutOfSlots(Inexpressible):
    """More square roots than the ring has generators for."""


class _DirectRing(_Ring):
    """The ring of one reduction: root slots, s, the scalars, then every coordinate.

    Roots take slots from the last one down: a radicand is evaluated before its root is
    taken, so it holds only roots with later slots, as the reduction's order needs.
    """

    def __init__(
        self,
        atoms: dict[str, int],
        symbols: Sequence[sympy.Symbol],
        with_s: bool,
        slots: int = ROOT_SLOTS[0],
    ) -> None:
        first = slots + with_s  # the first scalar's generator
        count = first + len(symbols) + sum(atoms.values())
        positive = [slots] if with_s else []  # s, then the scalars declared positive
        positive += [first + i for i, v in enumerate(symbols) if v.is_positive]
        super().__init__(count, slots if with_s else None, positive, DIRECT_WORK)
        self.scalars = {v: Fraction(self.gens[first + i], {}, self) for i, v in enumerate(symbols)}
        self.coordinates: dict[str, tuple[Fraction, ...]] = {}
        k = first + len(symbols)
        for atom, d in atoms.items():
            self.coordinates[atom] = tuple(Fraction(g, {}, self) for g in self.gens[k : k + d])
            k += d
        self._slots_left = slots
        self._sqrt: dict[int, tuple[Any, Any]] = {}

    def _slot(self) -> int:
        if self._slots_left == 0:
            raise _OutOfSlots("more square roots than the ring has generators for")
        self._slots_left -= 1
        return self._slots_left

    def sqrt(self, x: Any) -> Any:
        """√x (the tower of :func:`~lnsym.engines.concrete.arithmetic.power`); once per object."""
        if type(x) is not Fraction:  # a rational: its root, or a generator
            if x < 0:
                raise Inexpressible("the square root of a negative number")
            exact = arithmetic._rational_sqrt(x)
            if exact is not None:
                return exact
        hit = self._sqrt.get(id(x))
        if hit is None:
            pair = x.pair if type(x) is Fraction else (self.context.constant(x), {})
            hit = self._sqrt[id(x)] = (x, self.fraction(self.root(pair, 1, self._slot)))
        return hit[1]

    def modulus(self, x: Any) -> Any:
        """|x| = √(x²): a generator r with r² = x², which proves an identity for either sign
        of r, |x| among them (as the SymPy route does)."""
        return arithmetic.power(x * x, arithmetic.Q(1, 2), self)

    def fraction(self, pair: Pair) -> Any:
        num, den = pair
        if not den and num.is_constant():  # a rational, as the exact numbers write it
            return arithmetic.ZERO if num.is_zero() else num.leading_coefficient()
        return Fraction(num, den, self)

    def vanishes(self, x: Any) -> bool:
        return self.is_zero(x.pair) if type(x) is Fraction else x == 0


class Fraction:
    """num / Π fᵏ over a :class:`_DirectRing`, with the operators of the exact numbers."""

    __slots__ = ("num", "den", "ring")

    def __init__(self, num: Any, den: dict, ring: _DirectRing) -> None:
        self.num, self.den, self.ring = num, den, ring

    @property
    def pair(self) -> Pair:
        return self.num, self.den

    def _lift(self, y: Any) -> Pair:
        return y.pair if type(y) is Fraction else (self.ring.context.constant(y), {})

    def __bool__(self) -> bool:
        # As written (a value may still reduce to 0). A 0 over denominators is kept, so that
        # a denominator that vanishes identically is still found at the end.
        return not self.num.is_zero() or bool(self.den)

    def __add__(self, y: Any) -> Any:
        if type(y) is Jet:
            return NotImplemented
        if type(y) is not Fraction:
            if not y:
                return self
            if not self.den:  # (the common case, without the general sum's bookkeeping)
                return self.ring.fraction((self.num + y, {}))
        elif not self.den and not y.den:
            return self.ring.fraction((self.num + y.num, {}))
        return self.ring.fraction(self.ring.add([self.pair, self._lift(y)]))

    __radd__ = __add__

    def __neg__(self) -> Fraction:
        return Fraction(-self.num, self.den, self.ring)

    def __sub__(self, y: Any) -> Any:
        if type(y) is Jet:
            return NotImplemented
        return self + (-y)

    def __rsub__(self, y: Any) -> Any:
        return (-self) + y

    def __mul__(self, y: Any) -> Any:
        if type(y) is Jet:
            return NotImplemented
        if type(y) is not Fraction:
            return Fraction(self.num * y, self.den, self.ring)
        return self.ring.fraction(self.ring.multiply([self.pair, y.pair]))

    __rmul__ = __mul__

    def __truediv__(self, y: Any) -> Any:
        if type(y) is Jet:
            return NotImplemented
        return self * (y**-1 if type(y) is Fraction else arithmetic.ONE / y)

    def __rtruediv__(self, y: Any) -> Any:
        return y * self**-1

    def __pow__(self, k: int) -> Any:
        try:
            return self.ring.fraction(self.ring.power(self.pair, k))
        except DomainError as exc:
            raise ZeroDivisionError(str(exc)) from None

    def __gt__(self, y: Any) -> bool:
        raise Inexpressible("the sign of a symbolic value")

    __lt__ = __gt__


class _RingEvaluator(Evaluator):
    """The exact evaluator over :class:`Fraction` s: no sign is decided (a root of a
    symbolic value is a generator whatever its sign) and no radicand recorded."""

    decides_signs = False


def direct_zero(problem: _Problem, d: int) -> bool:
    """Whether lhs − rhs reduces to 0 at ``d`` for symbolic atoms (s² = q + ε).

    Raises:
        Inexpressible: for a value the ring cannot hold (the SymPy route decides).
        UnsupportedError: for degenerate assumptions at ``d``.
        DomainError: for a denominator that vanishes identically.
        _TooLarge: past :data:`DIRECT_WORK` term products.
    """
    for slots in ROOT_SLOTS[:-1]:
        with contextlib.suppress(_OutOfSlots):
            return _direct_zero(problem, d, slots)
    return _direct_zero(problem, d, ROOT_SLOTS[-1])


def _direct_zero(problem: _Problem, d: int, slots: int) -> bool:
    with_s = problem.principal is not None
    symbols = [v for v in problem.symbols if not (with_s and v == ir.eps)]
    ring = _DirectRing({a: d for a in problem.atoms}, symbols, with_s, slots)
    bound = _constrained(problem, ring, d)
    scalars: dict[sympy.Symbol, Any] = dict(ring.scalars)
    try:
        if problem.principal is not None and ring.s is not None:  # ε = s² − q: √(q + ε) = s
            q = _RingEvaluator(d, bound, scalars, ring).value(problem.principal)
            scalars[ir.eps] = Fraction(ring.s**2, {}, ring) - q
        ev = _RingEvaluator(d, bound, scalars, ring)
        lhs, rhs = ev.value(problem.lhs), ev.value(problem.rhs)
        pairs = zip(lhs, rhs, strict=True) if isinstance(lhs, tuple) else [(lhs, rhs)]
        return all(ring.vanishes(a - b) for a, b in pairs)
    except ZeroDivisionError as exc:
        raise DomainError(str(exc)) from None


def _constrained(problem: _Problem, ring: _DirectRing, d: int) -> dict[str, tuple[Any, ...]]:
    """The atoms' coordinates, the last ones of a constrained atom solved from its linear
    assumptions (a rational function of the others, compiled as a constant over them).

    Raises:
        UnsupportedError: for degenerate assumptions at ``d``.
    """
    if not any(problem.constraints(a) for a in problem.atoms):
        return dict(ring.coordinates)  # (no SymPy symbols to solve with)
    coordinates = {a: tuple(sympy.Dummy() for _ in range(d)) for a in problem.atoms}
    vectors = _constrain(problem, coordinates, d)
    if vectors is None:
        raise UnsupportedError("the assumptions are degenerate at this dimension")
    names = {
        c: g
        for a in problem.atoms
        for c, g in zip(coordinates[a], ring.coordinates[a], strict=True)
    }
    # Uncached compilation: the coordinates are new in every check and would flood the cache.
    return {a: tuple(_compile(x)(names, ring) for x in v) for a, v in vectors.items()}


def proved_together(relations: Mapping[int, Relation]) -> set[int]:
    """The keys of the equalities (scalar, without vectors or a layer's root) that the
    reduction proves, all evaluated in one ring so that their shared parts are computed
    once; each one's own products count against :data:`DIRECT_WORK` (what an earlier one
    built costs a later one nothing). Any that fails or is not proved is left out."""
    memo: dict = {}  # (the entries share their parts: each is looked at once)
    found: set[sympy.Symbol] = set()
    for relation in relations.values():
        for side in (relation.lhs, relation.rhs):
            found |= _free(side, frozenset(), frozenset(), memo)[1]
    ring = _DirectRing({}, sorted(found, key=lambda v: v.name), False)
    ev = _RingEvaluator(1, {}, dict(ring.scalars), ring)
    proved = set()
    for k, relation in relations.items():
        ring.work = 0
        try:
            if ring.vanishes(ev.value(relation.lhs) - ev.value(relation.rhs)):
                proved.add(k)
        except (UnsupportedError, DomainError, ZeroDivisionError):
            continue  # checked alone
    return proved
