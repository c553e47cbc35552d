"""SymPy values of the IR at a fixed dimension d: the concrete engine's instantiation.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). A vector
atom becomes d coordinates — Dummy symbols inside checks, readable symbols z_1, …, z_d for
:func:`~lnsym.engines.concrete.instantiate.instantiate` and
:func:`~lnsym.engines.concrete.instantiate.jacobian` — or d numbers at a point; derivatives are
d/dt at t = 0 in a perturbation t (of a vector atom z ↦ z + t·h, or of a scalar symbol
a ↦ a + t for a derivative with respect to a) — taken by :class:`_Slope`, which applies
SymPy's rules for sums, products and powers with every factor not differentiated taken at
t = 0 (the derivative at 0 without building the derivative first; :func:`_derivative` is the
derivative itself, ``sympy.diff``'s expression without its per-node bookkeeping). Inner
products get names (:class:`_Names`) so that SymPy differentiates short expressions, and the
symbolic values of a node are shared by the checks of all claims (:class:`_Shared`).

This module holds the evaluator (:class:`_Evaluator`) and :func:`_free_variables`. The names
and the shared store are in :mod:`lnsym.engines.concrete.shared`; ``_sign`` and ``_real``,
which decide exact SymPy numbers, in :mod:`lnsym.engines.concrete.sympy_numbers`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from lnsym import ir
from lnsym.engines.concrete.arithmetic import Undefined as _Undefined
from lnsym.engines.concrete.monomials import by_monomial
from lnsym.engines.concrete.shared import _Names, _Shared
from lnsym.engines.concrete.sympy_numbers import AGREEMENT_DIGITS as AGREEMENT_DIGITS
from lnsym.engines.concrete.sympy_numbers import SympyValue as SympyValue
from lnsym.engines.concrete.sympy_numbers import _agree as _agree
from lnsym.engines.concrete.sympy_numbers import _sign
from lnsym.errors import UnsupportedError
from lnsym.ir.calculus import Diff, Grad, Jvp, OperatorNorm, Vjp

_ZERO, _ONE = sympy.Integer(0), sympy.Integer(1)


class _Evaluator:
    """Values of IR nodes for one binding of the vector atoms and scalar symbols (memoized).

    Args:
        d: the dimension.
        vectors: the value (d SymPy expressions) of each vector atom.
        scalars: values of scalar symbols (others stay symbols).
        expand: expand inner products (at numeric points, where a scalar of f(z + t·h) is
            then a short polynomial in t).
        names: name inner products (symbolic checks); without ``expand`` or ``names`` they
            are kept as they are (:func:`~lnsym.engines.concrete.instantiate.instantiate`).
        perturbations: the symbols t of the directional derivatives being taken, innermost
            last.
        generic: the symbols of generic directions whose coefficients are read off.
        level: where powers depending on the innermost t are recorded as F(t).
        radicands: where the radicand of every square root is recorded (at t = 0).
    """

    def __init__(
        self,
        d: int,
        vectors: Mapping[str, tuple[sympy.Expr, ...]],
        scalars: Mapping[sympy.Symbol, sympy.Expr],
        *,
        expand: bool = False,
        names: _Names | None = None,
        perturbations: tuple[sympy.Symbol, ...] = (),
        generic: tuple[sympy.Symbol, ...] = (),
        level: list[tuple[sympy.Expr, sympy.Expr]] | None = None,
        radicands: list[sympy.Expr] | None = None,
        shared: _Shared | None = None,
    ) -> None:
        self.d = d
        self.vectors = dict(vectors)
        self.scalars = {**scalars, ir.d: sympy.Integer(d)}
        self.expand = expand
        self.names = names
        self.perturbations = perturbations
        self.generic = generic
        self.level = level
        self.radicands = radicands
        self.shared = shared
        self._memo: dict[ir.Expr, SympyValue] = {}
        #: id → (node, its value): the node stays alive, so that its id stays its own.
        self._ids: dict[int, tuple[ir.Expr, SympyValue]] = {}

    def value(self, e: ir.Expr) -> SympyValue:
        """The value of ``e``: a tuple of d expressions for a vector, else one expression."""
        # By identity first: the IR's hash walks a node's whole subtree, and an expression
        # written out entry by entry asks for the same objects many times.
        seen = self._ids.get(id(e))
        if seen is not None:
            return seen[1]
        shared = self.shared
        if shared is None:
            found = self._memo.get(e)
            if found is None:
                found = self._memo[e] = self._value(e)
        else:
            # Shared between checks: the same node with the same coordinates for its atoms
            # (by the node's identity first, then by equality).
            bound = tuple((a, self.vectors.get(a)) for a in shared.free_atoms(e))
            hit = shared.value_ids.get((id(e), self.d, *bound))
            if hit is not None:
                found = hit[1]
            else:
                key = (e, self.d, *bound)
                found = shared.values.get(key)
                if found is None:
                    found = shared.values[key] = self._value(e)
                shared.value_ids[(id(e), self.d, *bound)] = (e, found)
        self._ids[id(e)] = (e, found)
        return found

    def _rebind(
        self,
        vectors: Mapping[str, tuple[sympy.Expr, ...]] | None = None,
        scalars: Mapping[sympy.Symbol, sympy.Expr] | None = None,
        perturbation: sympy.Symbol | None = None,
        generic: tuple[sympy.Symbol, ...] = (),
    ) -> _Evaluator:
        return _Evaluator(
            self.d,
            {**self.vectors, **(vectors or {})},
            {**self.scalars, **(scalars or {})},
            expand=self.expand,
            names=self.names,
            perturbations=self.perturbations + ((perturbation,) if perturbation else ()),
            generic=self.generic + generic,
            level=[] if perturbation else self.level,
            radicands=self.radicands,
        )

    def _value(self, e: ir.Expr) -> SympyValue:
        match e:
            case ir.VectorAtom(name=name):
                if name not in self.vectors:
                    raise UnsupportedError(f"the vector {name} has no value")
                return self.vectors[name]
            case ir.Ones():
                return (_ONE,) * self.d
            case ir.Const(value=v):
                value = v.xreplace(self.scalars)
                if self.perturbations and value.has(*self.perturbations):
                    self._check_kinks(value)
                return value
            case ir.VectorSum(terms=terms):
                return tuple(
                    sympy.Add(*xs) for xs in zip(*(self._vec(t) for t in terms), strict=True)
                )
            case ir.Scaled(coefficient=c, vector=v):
                k = self._sca(c)
                return tuple(k * x for x in self._vec(v))
            case ir.Hadamard(left=a, right=b):
                return tuple(x * y for x, y in zip(self._vec(a), self._vec(b), strict=True))
            case ir.Dot(left=a, right=b):
                return self._collect(
                    sympy.Add(*(x * y for x, y in zip(self._vec(a), self._vec(b), strict=True)))
                )
            case ir.ScalarSum(terms=terms):
                return sympy.Add(*(self._sca(t) for t in terms))
            case ir.ScalarProduct(factors=factors):
                return sympy.Mul(*(self._sca(f) for f in factors))
            case ir.Power(base=base, exponent=exponent):
                value = self._sca(base)
                n = exponent.xreplace(self.scalars)
                if not n.is_Integer:
                    at_zero = {t: _ZERO for t in self.perturbations + self.generic}
                    self._check_real_power(value.xreplace(at_zero), n)
                    if self.radicands is not None and n.is_Rational and n.q == 2:
                        self.radicands.append(value.xreplace(at_zero))
                moving = self.perturbations + self.generic
                if n.is_negative:
                    # 0 to a negative power is undefined, as in the exact arithmetic. SymPy's
                    # zoo would vanish unseen from a product with an exact 0 (0·zoo is nan,
                    # but F(t) hides it) or from d/dt of a part that does not hold t.
                    if value.xreplace({t: _ZERO for t in moving}) == 0:
                        raise _Undefined(f"the power {n} of 0")
                elif not (n.is_integer and n.is_nonnegative) and self.perturbations:
                    # A root of 0 while differentiating: first order cannot tell whether it
                    # has a slope (terms in t² are dropped before, and √(t²) = |t| has none).
                    # As in the exact arithmetic.
                    if sympy.expand(value.xreplace({t: _ZERO for t in moving})) == 0:
                        raise _Undefined(f"the power {n} of 0 under a derivative")
                return self._abbreviate(_power(value, n))
            case ir.Substitution(expr=inner, target=target, value=bound):
                if isinstance(target, ir.VectorAtom):
                    return self._rebind(vectors={target.name: self._vec(bound)}).value(inner)
                assert isinstance(target, ir.Const)
                return self._rebind(scalars={target.value: self._sca(bound)}).value(inner)
            case Jvp(expr=f, wrt=wrt, direction=h):
                return self._directional(f, wrt, self._vec(h))
            case Diff(expr=f, wrt=ir.Const(value=sym)):
                return self._scalar_derivative(f, sym)
            case Grad(expr=f, wrt=wrt):
                return self._linear_form(f, wrt)
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                # Jᵀg = ∇⟨g, f⟩ with g held fixed: g is evaluated before wrt moves.
                return self._linear_form(f, wrt, self._vec(g))
            case OperatorNorm(expr=f, wrt=wrt):
                return self._operator_norm(f, wrt)
            case ir.Defined():
                return self.value(e.definition())
        raise UnsupportedError(f"the concrete engine cannot evaluate {type(e).__name__}")

    @staticmethod
    def _check_real_power(base: sympy.Expr, n: sympy.Expr) -> None:
        """Refuse a non-integer power of a negative (or non-real) number: the IR is real, and
        SymPy's principal root of a negative number is not (√−1, (−8)^(1/3) = 1 + √3·i).

        Raises:
            _Undefined: at such a point (symbolic bases are left alone).
        """
        if base.free_symbols or not base.is_number:
            return
        if not n.is_real:
            raise _Undefined(f"the exponent {n} is not real")
        if _sign(base) < 0:
            raise _Undefined(f"the power {n} of the negative number {base}")

    def _check_kinks(self, value: sympy.Expr) -> None:
        """Refuse to differentiate |x| (sign(x), H(x)) where x moves through 0: it has no
        derivative there, as the exact arithmetic says (SymPy would give sign(0) = 0).

        Raises:
            _Undefined: at such a point (symbolic arguments are left alone).
        """
        moving = self.perturbations + self.generic
        at_zero = {t: _ZERO for t in moving}
        for kink in value.atoms(sympy.Abs, sympy.sign, sympy.Heaviside):
            argument = kink.args[0]
            if argument.has(*moving) and argument.xreplace(at_zero) == 0:
                raise _Undefined(f"{kink.func} is not differentiable at 0")

    def _vec(self, e: ir.Expr) -> tuple[sympy.Expr, ...]:
        return self.value(e)

    def _sca(self, e: ir.Expr) -> sympy.Expr:
        return self.value(e)

    def _collect(self, total: sympy.Expr) -> sympy.Expr:
        """A sum over coordinates, kept short: expanded at numbers, named when symbolic."""
        keep = {t for t in self.perturbations + self.generic if total.has(t)}
        if self.names is not None and not keep:
            return self.names.name(total)
        if self.names is None and not self.expand:
            return total
        # Terms of order t² cannot change d/dt at t = 0, the only use of this value.
        t = self.perturbations[-1] if self.perturbations else None
        if self.names is not None:
            # Grouped by monomials in what must stay visible, each coefficient named.
            parts = by_monomial(total, keep | total.atoms(AppliedUndef), t)
            return sympy.Add(*(self.names.name(c) * m for m, c in parts.items()))
        terms = sympy.Add.make_args(sympy.expand(total))
        if t is not None:
            terms = tuple(x for x in terms if x.as_powers_dict().get(t, 0) < 2)
        return sympy.Add(*terms)

    def _abbreviate(self, value: sympy.Expr) -> sympy.Expr:
        """Write a power that depends on the innermost t as F(t), so SymPy differentiates it
        once (in :meth:`_directional`) instead of once in every coordinate that holds it."""
        if self.level is None or value.is_Atom or not value.has(self.perturbations[-1]):
            return value
        if any(value.has(t) for t in self.perturbations[:-1]):
            return value
        function = sympy.Function(f"F{len(self.level)}")(self.perturbations[-1])
        self.level.append((function, value))
        return function

    def _directional(
        self,
        f: ir.Expr,
        wrt: ir.VectorAtom,
        direction: tuple[sympy.Expr, ...],
        cotangent: tuple[sympy.Expr, ...] | None = None,
        generic: tuple[sympy.Symbol, ...] = (),
    ) -> SympyValue:
        """d/dt at t = 0 of f (or of ⟨cotangent, f⟩) with wrt moved to wrt + t·direction."""
        t = sympy.Dummy("t")
        moved = tuple(x + t * h for x, h in zip(self._vec(wrt), direction, strict=True))
        child = self._rebind(vectors={wrt.name: moved}, perturbation=t, generic=generic)
        value = child.value(f)
        if cotangent is not None:
            value = child._collect(
                sympy.Add(*(g * x for g, x in zip(cotangent, value, strict=True)))
            )
        return self._at_zero(child, value, t)

    def _scalar_derivative(self, f: ir.Expr, sym: sympy.Symbol) -> SympyValue:
        """∂f/∂sym: d/dt at t = 0 of f with the scalar moved to sym + t (its value at this
        point, or the symbol itself where it has none)."""
        t = sympy.Dummy("t", real=True)  # a real exponent a + t stays real
        moved = self.scalars.get(sym, sym) + t
        child = self._rebind(scalars={sym: moved}, perturbation=t)
        return self._at_zero(child, child.value(f), t)

    @staticmethod
    def _at_zero(child: _Evaluator, value: SympyValue, t: sympy.Symbol) -> SympyValue:
        """d/dt at t = 0 of ``value``, computed by ``child`` (whose powers in t are F(t))."""
        # F(t) and F'(t) at t = 0, from SymPy's derivative of each definition, in order.
        at_zero: dict[sympy.Expr, sympy.Expr] = {t: _ZERO}
        for function, definition in child.level or ():
            at_zero[sympy.Derivative(function, t)] = _Slope(t, at_zero).of(definition)
            at_zero[function] = definition.xreplace(at_zero)
        slope = _Slope(t, at_zero)
        if isinstance(value, tuple):
            return tuple(slope.of(x) for x in value)
        return slope.of(value)

    def _linear_form(
        self, f: ir.Expr, wrt: ir.VectorAtom, cotangent: tuple[sympy.Expr, ...] | None = None
    ) -> Any:
        """The coefficients of D_w f (or of D_w⟨cotangent, f⟩) in a generic direction w.

        D_w f = J·w is linear in w, so its coefficients are the columns of J: for a scalar
        they form the gradient (⟨∇f, w⟩ = D_w f), for a vector the rows of the Jacobian.
        """
        w = tuple(sympy.Dummy(f"w{i}") for i in range(self.d))
        value = self._directional(f, wrt, w, cotangent, generic=w)

        # x is linear and homogeneous in w (w enters numerators only, through d/dt at t = 0),
        # so its coefficient of wᵢ is x at w = eᵢ: no expansion of x is needed.
        units = [{wj: _ONE if i == j else _ZERO for j, wj in enumerate(w)} for i in range(self.d)]

        def coefficients(x: sympy.Expr) -> tuple[sympy.Expr, ...]:
            return tuple(x.xreplace(unit) for unit in units)

        if isinstance(value, tuple):
            return tuple(coefficients(x) for x in value)
        return coefficients(value)

    def _operator_norm(self, f: ir.Expr, wrt: ir.VectorAtom) -> sympy.Expr:
        """‖J‖₂ = √(largest eigenvalue of JᵀJ), exactly, at a point where J is numeric."""
        jac = sympy.Matrix(self._linear_form(f, wrt))
        if jac.free_symbols:  # a symbolic point: the maximum has no closed form
            raise UnsupportedError("an operator norm is evaluated only at exact numeric points")
        found = sympy.roots((jac.T * jac).charpoly())
        if sum(found.values()) != self.d:
            raise UnsupportedError("the eigenvalues of JᵀJ have no closed form here")
        return sympy.sqrt(max(found, key=lambda lam: sympy.re(lam.evalf(50))))


def _power(base: sympy.Expr, n: sympy.Expr) -> sympy.Expr:
    """``base**n``, the same expression; a symbolic sum to a rational power is built without
    SymPy's evaluation, which for such a base changes nothing after asking whether a term of
    a two-term sum is infinite — an assumption query through the whole sum. (``Add._eval_power``
    returns None for a sum that is not a number unless a term holds the imaginary unit,
    which the IR's real values never do; the expressions are compared in the tests.)"""
    if base.is_Add and n.is_Rational and n not in (0, 1) and base.free_symbols:
        return sympy.Pow(base, n, evaluate=False)
    return base**n


def _derivative(x: sympy.Expr, t: sympy.Symbol) -> sympy.Expr:
    """``sympy.diff(x, t)``, the same expression, with SymPy's rules for sums, products and
    powers applied here directly.

    ``sympy.diff`` builds a ``Derivative`` at every node of ``x``, and each one asks whether
    its result is zero and walks it for derivatives to make canonical — most of the cost on
    the long sums of a symbolic check. The rules are SymPy's own (``Add._eval_derivative``,
    the Leibniz rule of ``Mul._eval_derivative_n_times`` for one derivative,
    ``Pow._eval_derivative``), so the result is the expression ``sympy.diff`` returns;
    anything else (F(t), |x|, functions) is left to ``sympy.diff``.
    """
    if t not in x.free_symbols:
        return _ZERO
    if x.is_Add:
        return sympy.Add(*(_derivative(a, t) for a in x.args))
    if x.is_Mul:
        args = x.args
        return sympy.Add(
            *(sympy.Mul(*args[:i], _derivative(a, t), *args[i + 1 :]) for i, a in enumerate(args))
        )
    if x.is_Pow:
        base, exponent = x.base, x.exp
        dbase, dexp = _derivative(base, t), _derivative(exponent, t)
        if dexp == 0:  # SymPy's 0·log(base) is 0 here (base holds t, so it is not 0)
            return x * (dbase * exponent / base)
        return x * (dexp * sympy.log(base) + dbase * exponent / base)
    return sympy.diff(x, t)


class _Slope:
    """d/dt at t = 0 of expressions, ``_derivative(x, t).xreplace(at_zero)`` built directly:
    each factor that is not differentiated is taken at t = 0 (once per distinct part, shared
    by the coordinates of a vector), and a term whose differentiated factor does not hold t
    is never built. ``at_zero`` maps t, each F(t) and each F'(t) to its value at 0."""

    def __init__(self, t: sympy.Symbol, at_zero: Mapping[sympy.Expr, sympy.Expr]) -> None:
        self.t = t
        self.at_zero = at_zero
        self._values: dict[sympy.Expr, sympy.Expr] = {}
        self._slopes: dict[sympy.Expr, sympy.Expr] = {}

    def value(self, x: sympy.Expr) -> sympy.Expr:
        found = self._values.get(x)
        if found is None:
            found = self._values[x] = x.xreplace(self.at_zero)
        return found

    def of(self, x: sympy.Expr) -> sympy.Expr:
        found = self._slopes.get(x)
        if found is None:
            found = self._slopes[x] = self._slope(x)
        return found

    def _slope(self, x: sympy.Expr) -> sympy.Expr:
        t = self.t
        if t not in x.free_symbols:
            return _ZERO
        if x.is_Add:
            return sympy.Add(*(self.of(a) for a in x.args))
        if x.is_Mul:
            args = x.args
            terms = []
            for i, a in enumerate(args):
                if t in a.free_symbols:
                    rest = [self.value(b) for j, b in enumerate(args) if j != i]
                    terms.append(sympy.Mul(*rest[:i], self.of(a), *rest[i:]))
            return sympy.Add(*terms)
        if x.is_Pow:
            base, exponent = x.base, x.exp
            if t not in exponent.free_symbols:
                # x·(base' · n / base), which SymPy makes n·base^(n − 1)·base' (one base).
                return sympy.Mul(exponent, self.value(base ** (exponent - 1)), self.of(base))
        try:
            return _derivative(x, t).xreplace(self.at_zero)
        except ValueError as exc:  # a derivative SymPy left unevaluated, now "wrt 0"
            raise UnsupportedError(f"SymPy leaves the derivative of {x} unevaluated") from exc


# ---------------------------------------------------------------------------------------
# Free variables


def _free_variables(
    e: ir.Expr,
    bound_atoms: frozenset[str] = frozenset(),
    bound_symbols: frozenset[sympy.Symbol] = frozenset(),
) -> tuple[set[str], set[sympy.Symbol]]:
    """The vector atoms and scalar symbols that ``e`` depends on (not bound by a substitution)."""
    atoms, symbols = _free(e, bound_atoms, bound_symbols, {})
    return set(atoms), set(symbols)


_Free = tuple[frozenset[str], frozenset[sympy.Symbol]]


def _free(
    e: ir.Expr,
    bound_atoms: frozenset[str],
    bound_symbols: frozenset[sympy.Symbol],
    memo: dict[tuple[int, frozenset[str], frozenset[sympy.Symbol]], tuple[ir.Expr, _Free]],
) -> _Free:
    """:func:`_free_variables`, each object with the same bindings looked at once (``memo``:
    by id, the node kept alive): an expression written out entry by entry shares its parts."""
    key = (id(e), bound_atoms, bound_symbols)
    hit = memo.get(key)
    if hit is not None:
        return hit[1]
    atoms: frozenset[str] = frozenset()
    symbols: frozenset[sympy.Symbol] = frozenset()
    match e:
        case ir.VectorAtom(name=name):
            if name not in bound_atoms:
                atoms = frozenset((name,))
        case ir.Const(value=v):
            symbols = frozenset(s for s in v.free_symbols if s != ir.d) - bound_symbols
        case ir.Power(base=base, exponent=n):
            atoms, symbols = _free(base, bound_atoms, bound_symbols, memo)
            symbols |= frozenset(s for s in n.free_symbols if s != ir.d) - bound_symbols
        case ir.Substitution(expr=inner, target=target, value=bound):
            a, s = _free(bound, bound_atoms, bound_symbols, memo)
            if isinstance(target, ir.VectorAtom):
                b = _free(inner, bound_atoms | {target.name}, bound_symbols, memo)
            else:
                assert isinstance(target, ir.Const)
                b = _free(inner, bound_atoms, bound_symbols | {target.value}, memo)
            atoms, symbols = a | b[0], s | b[1]
        case _:
            for child in e.children():
                a, s = _free(child, bound_atoms, bound_symbols, memo)
                atoms |= a
                symbols |= s
    memo[key] = (e, (atoms, symbols))
    return atoms, symbols
