"""Derivatives of normal forms: directional derivatives and gradients (the derivation z ↦ h),
and derivatives with respect to a scalar symbol.

The derivative along h sends an atom z to h, a power sum S[m] to the power sums with one z
of m replaced by h, and a root r to D(R)/(2r): exactly d/dt at t = 0 of z ↦ z + t·h. A
gradient is read off the linear form in the reserved probe atom :data:`PROBE`. The
derivative with respect to a scalar symbol a (ε, a user scalar) differentiates the
coefficients with ``sympy.diff`` and sends a root r to (∂R/∂a)/(2r); monomials and power
sums do not depend on scalars (:func:`scalar_derivative`).

:func:`_d_symbol` is called through this module's globals, so patching it here (or on
``lnsym.engines.general``, which forwards the assignment) changes the rule the engine uses.
"""

from __future__ import annotations

from functools import lru_cache

import sympy
from sympy.core.sorting import default_sort_key

from lnsym.engines.general.symbols import Monomial, PowerSum, Root
from lnsym.engines.general.vector_form import Form, VectorForm
from lnsym.errors import UnsupportedError

#: The atom used to read gradients off directional derivatives; users cannot name it.
PROBE = "_probe"


def _without_one(m: Monomial, atom: str) -> Monomial:
    i = m.index(atom)
    return m[:i] + m[i + 1 :]


def derivative(f: Form, wrt: str, direction: VectorForm) -> Form:
    """D_wrt f along ``direction``: d/dt f(wrt + t·direction) at t = 0."""
    if isinstance(f, VectorForm):
        out = VectorForm(())
        for m, c in f.terms:
            out = out + VectorForm.monomial(m).scale(_d_scalar(c, wrt, direction))
            k = m.count(wrt)
            if k:
                rest = VectorForm.monomial(_without_one(m, wrt))
                out = out + rest.hadamard(direction).scale(k * c)
        return out
    return _d_scalar(f, wrt, direction)


def _d_scalar(f: sympy.Expr, wrt: str, direction: VectorForm) -> sympy.Expr:
    total = sympy.Integer(0)
    for sym in sorted(f.free_symbols, key=default_sort_key):
        ds = _d_symbol(sym, wrt, direction)
        if ds != 0:
            total += sympy.diff(f, sym) * ds
    return _smooth(total, f)


@lru_cache(maxsize=4096)
def _d_symbol(sym: sympy.Symbol, wrt: str, direction: VectorForm) -> sympy.Expr:
    if isinstance(sym, PowerSum):
        m = sym.monomial
        k = m.count(wrt)
        if not k:
            return sympy.Integer(0)
        rest = VectorForm.monomial(_without_one(m, wrt))
        return k * rest.hadamard(direction).total()
    if isinstance(sym, Root):
        dr = _d_scalar(sym.radicand, wrt, direction)
        return dr / (2 * sym) if dr != 0 else sympy.Integer(0)
    return sympy.Integer(0)


def scalar_derivative(f: Form, wrt: sympy.Symbol) -> Form:
    """∂f/∂wrt for a scalar symbol ``wrt``: the coefficients by ``sympy.diff``, with every
    root r = √R sent to (∂R/∂wrt)/(2r); power sums and monomials are constant in it.

    Raises:
        UnsupportedError: where the derivative leaves the algebra of normal forms (the
            derivative of sign(a) is a Dirac delta; an unevaluated derivative).
    """
    if isinstance(f, VectorForm):
        return f.map(lambda c: _d_by_scalar(c, wrt))
    return _d_by_scalar(f, wrt)


#: What ``sympy.diff`` may leave that is not a function the normal forms can hold, or the
#: derivative of a kink (|x| → sign(x), which SymPy makes 0 at 0 where none exists).
_NOT_FUNCTIONS = (sympy.Derivative, sympy.Subs, sympy.DiracDelta, sympy.Heaviside, sympy.sign)


def _smooth(derivative: sympy.Expr, f: sympy.Expr) -> sympy.Expr:
    """``derivative`` of ``f``, refused where it left the functions the normal forms hold —
    where it differentiated a kink, such as the |c| of √(c²·q) = |c|·√q (a sign(x) that f
    already held, away from any derivative, is a value like another).

    Raises:
        UnsupportedError: for such a derivative.
    """
    made = derivative.atoms(*_NOT_FUNCTIONS) - f.atoms(*_NOT_FUNCTIONS)
    if made:
        raise UnsupportedError(
            f"the derivative of {f} is not a function the general engine can normalize "
            "(a kink: |x| has no derivative at 0)"
        )
    return derivative


def _d_by_scalar(f: sympy.Expr, wrt: sympy.Symbol) -> sympy.Expr:
    total = sympy.diff(f, wrt)  # with power sums and roots held fixed
    for sym in sorted(f.free_symbols, key=default_sort_key):
        if isinstance(sym, Root):
            dr = _d_root_by_scalar(sym, wrt)
            if dr != 0:
                total += sympy.diff(f, sym) * dr
    return _smooth(total, f)


@lru_cache(maxsize=4096)
def _d_root_by_scalar(r: Root, wrt: sympy.Symbol) -> sympy.Expr:
    dr = _d_by_scalar(r.radicand, wrt)
    return dr / (2 * r) if dr != 0 else sympy.Integer(0)


def gradient(f: sympy.Expr, wrt: str) -> VectorForm:
    """∇_wrt f: the vector whose power sums against a probe h give D_wrt f(h)."""
    return _read_gradient(_d_scalar(f, wrt, VectorForm.atom(PROBE)))


def _read_gradient(df: sympy.Expr) -> VectorForm:
    """The vector g with df = ⟨g, probe⟩, for df linear in the probe atom."""
    out: dict[Monomial, sympy.Expr] = {}
    for sym in sorted(df.free_symbols, key=default_sort_key):
        if not isinstance(sym, PowerSum) or PROBE not in sym.monomial:
            continue
        coefficient = sympy.diff(df, sym)
        rest = _without_one(sym.monomial, PROBE)
        if PROBE in rest or any(
            isinstance(s, PowerSum) and PROBE in s.monomial for s in coefficient.free_symbols
        ):
            raise UnsupportedError("the derivative is not linear in its direction")
        out[rest] = out.get(rest, 0) + coefficient
    return VectorForm.of(out)
