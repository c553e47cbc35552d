"""Sign rules: which scalar IR expressions are known real, nonnegative or positive.

These rules are part of the trusted kernel (docs/trust.md): an inequality is PROVED only
when every term of its certificate is nonnegative by them. Each rule holds for every real
value of the vector atoms and every value of the scalar symbols allowed by their SymPy
assumptions, wherever the expression is defined:

- a constant by SymPy's assumptions (ε > 0, d ≥ 1, symbols declared positive);
- ⟨a, b⟩ ≥ 0 when the Hadamard factors of a and b pair up and every factor is real
  (a sum of squares, e.g. ⟨a, a⟩, ⟨1, v ⊙ v⟩);
- sums and products of nonnegative terms; any real power of a positive term; a positive
  power of a nonnegative term; an even integer power of a *real* term;
- a power with a non-integer exponent is real only when its base is known nonnegative
  (√(999 − d) is not real for d > 999, so its square is not a known square);
- at a point ``expr|_{x=v}``: the sign of ``expr`` for every x, provided v satisfies the
  assumptions of x (substituting 999 − d for a positive p keeps nothing of "positive");
- defined nodes (mean, var, norm, core) through their definitions.

>>> from lnsym import vector, var, center, dot, scalar
>>> z, c = vector("z"), scalar("c")
>>> sign(var(z)), sign(dot(z, center(z))), sign(((c - 1) ** sympy.Rational(1, 2)) ** 2)
('nonnegative', 'unknown', 'unknown')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

import lnsym.ir.nodes as ir
from lnsym.ir.assumptions import Assumption, Nonconstant
from lnsym.ir.primitives import ADMISSIBLE

POSITIVE, NONNEGATIVE, UNKNOWN = "positive", "nonnegative", "unknown"

_REAL = sympy.Symbol("x", real=True).assumptions0
_POSITIVE = sympy.Symbol("x", positive=True).assumptions0


Assumptions = tuple[Assumption, ...]


def sign(e: ir.Expr, assumptions: Assumptions = ()) -> str:
    """``"positive"``, ``"nonnegative"`` or ``"unknown"`` for a scalar IR expression.

    Under ``assumptions``, var(x) of an atom assumed non-constant is positive. Each node
    type has one rule in :data:`RULES` (tests break them one at a time).
    """
    for node_type, rule in RULES.items():
        if isinstance(e, node_type):
            return rule(e, assumptions)
    return UNKNOWN


def constant_sign(e: ir.Const, assumptions: Assumptions) -> str:
    """A real constant by SymPy's assumptions on its symbols."""
    v = e.value
    if v.is_real is not True:
        return UNKNOWN
    if v.is_positive:
        return POSITIVE
    return NONNEGATIVE if v.is_nonnegative else UNKNOWN


def dot_sign(e: ir.Dot, assumptions: Assumptions) -> str:
    """⟨a, b⟩ = Σᵢ Π fᵢ ≥ 0 when the real Hadamard factors f pair up into squares."""
    factors = _factors(e.left) + _factors(e.right)
    return NONNEGATIVE if _pairs_up(factors) and all(map(is_real, factors)) else UNKNOWN


def sum_sign(e: ir.ScalarSum, assumptions: Assumptions) -> str:
    """Nonnegative terms add to a nonnegative sum, positive if one term is positive."""
    signs = [sign(t, assumptions) for t in e.terms]
    if UNKNOWN in signs:
        return UNKNOWN
    return POSITIVE if POSITIVE in signs else NONNEGATIVE


def product_sign(e: ir.ScalarProduct, assumptions: Assumptions) -> str:
    """Nonnegative factors multiply to a nonnegative product, positive if all are."""
    signs = [sign(f, assumptions) for f in e.factors]
    if UNKNOWN in signs:
        return UNKNOWN
    return POSITIVE if all(s == POSITIVE for s in signs) else NONNEGATIVE


def power_sign(e: ir.Power, assumptions: Assumptions) -> str:
    """b^n: positive for b > 0; ≥ 0 for an even integer n and a real b, or b ≥ 0, n > 0."""
    n = e.exponent
    if n.is_real is not True:
        return UNKNOWN
    base_sign = sign(e.base, assumptions)
    if base_sign == POSITIVE:
        return POSITIVE
    if n.is_integer and n.is_even and is_real(e.base):
        return NONNEGATIVE
    if base_sign == NONNEGATIVE and n.is_positive:
        return NONNEGATIVE
    return UNKNOWN


def substitution_sign(e: ir.Substitution, assumptions: Assumptions) -> str:
    """A sign valid for every admissible value of the target holds at this value too."""
    return sign(e.expr) if admissible(e.target, e.value) else UNKNOWN


def variance_sign(e: ir.Var, assumptions: Assumptions) -> str:
    """var(x) > 0 for an atom assumed non-constant; otherwise by its definition."""
    if isinstance(e.arg, ir.VectorAtom) and Nonconstant(e.arg) in assumptions:
        return POSITIVE
    return defined_sign(e, assumptions)


def defined_sign(e: ir.Defined, assumptions: Assumptions) -> str:
    """A defined node (mean, norm, …) has the sign of its definition."""
    return sign(e.definition(), assumptions)


#: One rule per node type, tried in order (Var before the other defined nodes).
RULES: dict[type, Callable[[Any, Assumptions], str]] = {
    ir.Const: constant_sign,
    ir.Dot: dot_sign,
    ir.ScalarSum: sum_sign,
    ir.ScalarProduct: product_sign,
    ir.Power: power_sign,
    ir.Substitution: substitution_sign,
    ir.Var: variance_sign,
    ir.Defined: defined_sign,
}


def is_real(e: ir.Expr) -> bool:
    """Whether ``e`` (scalar or vector) is known to be real wherever it is defined."""
    match e:
        case ir.Const(value=v):
            return v.is_real is True
        case ir.VectorAtom() | ir.Ones():
            return True
        case ir.Power(base=base, exponent=n):
            if n.is_real is not True or not is_real(base):
                return False
            return bool(n.is_integer) or sign(base) != UNKNOWN
        case ir.Substitution(expr=inner, target=target, value=value):
            return admissible(target, value) and is_real(inner)
        case ir.Defined():
            return is_real(e.definition())
    return all(is_real(c) for c in e.children())


def admissible(target: ir.Expr, value: ir.Expr) -> bool:
    """Whether ``value`` is known to satisfy every assumption of the substituted ``target``.

    A vector atom ranges over all of ℝ^d, so any real vector value is admissible. A scalar
    symbol admits a value only when the value is known to have the symbol's assumptions
    (real; positive); a symbol with other assumptions admits a constant for which SymPy
    decides every one of them alike (an integer symbol admits 3, not 1/2 or a real c).
    """
    if not is_real(value):
        return False
    if isinstance(target, ir.VectorAtom):
        return True
    sym = target.value if isinstance(target, ir.Const) else None
    if not isinstance(sym, sympy.Symbol):
        return False
    if sym.assumptions0 == _REAL:
        return True
    if sym.assumptions0 == _POSITIVE:
        return sign(value) == POSITIVE
    if isinstance(value, ir.Const):  # every assumption decided alike for the constant
        return all(
            getattr(value.value, f"is_{key}") is held for key, held in sym.assumptions0.items()
        )
    return False


def _factors(v: ir.Expr) -> list[ir.Expr]:
    """The Hadamard factors of a vector, with the ones vector dropped."""
    if isinstance(v, ir.Hadamard):
        return _factors(v.left) + _factors(v.right)
    return [] if isinstance(v, ir.Ones) else [v]


def _pairs_up(factors: list[ir.Expr]) -> bool:
    remaining = list(factors)
    while remaining:
        first = remaining.pop()
        if first not in remaining:
            return False
        remaining.remove(first)
    return True


# Substitutions are checked against this rule when they are built (looked up at each call,
# so that a test breaking the rule breaks the check too).
ADMISSIBLE[:] = [lambda target, value: admissible(target, value)]
