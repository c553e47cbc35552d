"""Exact values of normal forms at concrete vectors and scalars.

Holds :func:`instantiate`, which the worked examples use to evaluate what the general
engine derived, with d fixed by the vectors' length.
"""

from __future__ import annotations

from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.general.symbols import Monomial, PowerSum, Root, exact_sqrt
from lnsym.engines.general.vector_form import Form, VectorForm
from lnsym.errors import DomainError


def instantiate(
    f: Form, atoms: dict[str, list[Any]], scalars: dict[sympy.Symbol, Any] | None = None
) -> Any:
    """Evaluate a normal form exactly at concrete vectors (all of one length d) and scalars.

    Returns a SymPy scalar, or a list of SymPy scalars for a vector form.

    >>> from lnsym import vector, var, core
    >>> from lnsym.engines.general import GeneralEngine
    >>> z = vector("z")
    >>> engine = GeneralEngine()
    >>> instantiate(engine.form(core(z)), {"z": [1, 2, 3]}, {ir.eps: sympy.Rational(1, 3)})
    [-1, 0, 1]
    """
    lengths = {len(v) for v in atoms.values()}
    if len(lengths) > 1:
        raise DomainError("all vectors must have the same length")
    dim = lengths.pop() if lengths else None
    values: dict[sympy.Symbol, sympy.Expr] = dict(scalars or {})
    if dim is not None:
        values[ir.d] = sympy.Integer(dim)

    def coordinate(m: Monomial, i: int) -> sympy.Expr:
        return sympy.Mul(*(ir.as_scalar(atoms[a][i]).value for a in m))  # type: ignore[attr-defined]

    def value_of(sym: sympy.Symbol) -> sympy.Expr:
        if sym not in values:
            if isinstance(sym, PowerSum):
                m = sym.monomial
                missing = [a for a in m if a not in atoms]
                if missing or dim is None:
                    raise DomainError(
                        f"no value given for the vector {missing[0] if missing else m}"
                    )
                values[sym] = sympy.Add(*(coordinate(m, i) for i in range(dim)))
            elif isinstance(sym, Root):
                values[sym] = exact_sqrt(scalar_value(sym.radicand))
            else:
                raise DomainError(f"no value given for the symbol {sym}")
        return values[sym]

    def scalar_value(g: sympy.Expr) -> sympy.Expr:
        result = g.xreplace({s: value_of(s) for s in g.free_symbols})
        if result.has(sympy.zoo, sympy.nan):
            raise DomainError("division by zero at this point")
        return result

    if isinstance(f, VectorForm):
        if dim is None:
            raise DomainError("a vector needs at least one vector value to fix d")
        # The coefficients do not depend on the coordinate: evaluate each one once.
        coefficients = [(m, scalar_value(c)) for m, c in f.terms]
        return [sympy.Add(*(c * coordinate(m, i) for m, c in coefficients)) for i in range(dim)]
    return scalar_value(f)
