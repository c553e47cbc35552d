"""Directional derivatives and gradients of normal forms, computed by the derivation z ↦ h.

The derivative along h sends an atom z to h, a power sum S[m] to the power sums with one z
of m replaced by h, and a root r to D(R)/(2r): exactly d/dt at t = 0 of z ↦ z + t·h. A
gradient is read off the linear form in the reserved probe atom :data:`PROBE`.

:func:`_d_symbol` is called through this module's globals, so patching it here (or on
``lnsym.engines.general``, which forwards the assignment) changes the rule the engine uses.
"""

from __future__ import annotations

from functools import lru_cache

import sympy
from sympy.core.sorting import default_sort_key

from lnsym.engines.general.symbols import _POWER_SUMS, _ROOTS, Monomial
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
    return total


@lru_cache(maxsize=4096)
def _d_symbol(sym: sympy.Symbol, wrt: str, direction: VectorForm) -> sympy.Expr:
    m = _POWER_SUMS.get(sym)
    if m is not None:
        k = m.count(wrt)
        if not k:
            return sympy.Integer(0)
        rest = VectorForm.monomial(_without_one(m, wrt))
        return k * rest.hadamard(direction).total()
    radicand = _ROOTS.get(sym)
    if radicand is not None:
        dr = _d_scalar(radicand, wrt, direction)
        return dr / (2 * sym) if dr != 0 else sympy.Integer(0)
    return sympy.Integer(0)


def gradient(f: sympy.Expr, wrt: str) -> VectorForm:
    """∇_wrt f: the vector whose power sums against a probe h give D_wrt f(h)."""
    return _read_gradient(_d_scalar(f, wrt, VectorForm.atom(PROBE)))


def _read_gradient(df: sympy.Expr) -> VectorForm:
    """The vector g with df = ⟨g, probe⟩, for df linear in the probe atom."""
    out: dict[Monomial, sympy.Expr] = {}
    for sym in sorted(df.free_symbols, key=default_sort_key):
        m = _POWER_SUMS.get(sym)
        if m is None or PROBE not in m:
            continue
        coefficient = sympy.diff(df, sym)
        rest = _without_one(m, PROBE)
        if PROBE in rest or any(
            PROBE in (_POWER_SUMS.get(s) or ()) for s in coefficient.free_symbols
        ):
            raise UnsupportedError("the derivative is not linear in its direction")
        out[rest] = out.get(rest, 0) + coefficient
    return VectorForm.of(out)
