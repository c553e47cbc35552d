"""A sum split by its monomials in a few kept symbols, without expanding the coefficients.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). A
symbolic check names the coefficients of an inner product Σᵢ xᵢyᵢ as a polynomial in the
perturbation t, the F(t) of abbreviated powers and a generic direction w
(:class:`~lnsym.engines.concrete.shared._Names`). Those coefficients are free of the kept
symbols and are expanded again by the ring reduction, so they need not be expanded here:
only the kept symbols are multiplied out, and terms of degree 2 or more in the innermost t
are dropped on the way (they cannot change d/dt at t = 0).
"""

from __future__ import annotations

from collections.abc import Collection

import sympy

_ONE = sympy.Integer(1)

#: A polynomial in the kept symbols: monomial → the list of its coefficient's terms.
_Terms = dict[sympy.Expr, list[sympy.Expr]]


def by_monomial(
    total: sympy.Expr, keep: Collection[sympy.Expr], t: sympy.Symbol | None
) -> dict[sympy.Expr, sympy.Expr]:
    """``total`` as {monomial in ``keep``: coefficient free of ``keep``}, without the
    monomials of degree ≥ 2 in ``t`` (None: none dropped).

    Sums and products are multiplied out where they hold a kept symbol, positive integer
    powers of such sums too; any other part that holds one (a negative or fractional power,
    a function) is a monomial of its own, as ``as_independent`` would leave it.

    >>> t, w, a, b = sympy.symbols("t w a b")
    >>> by_monomial((a + t * w) * (b + t), {t, w}, t)
    {1: a*b, t: a, t*w: b}
    """
    memo: dict[sympy.Expr, _Terms] = {}
    # Whether a part holds a kept symbol, found bottom-up once per distinct part (the
    # values share most of their parts, and free_symbols would walk each one again).
    held: dict[sympy.Basic, bool] = {}

    def holds(e: sympy.Basic) -> bool:
        found = held.get(e)
        if found is None:
            found = held[e] = e in keep or any(holds(a) for a in e.args)
        return found

    def times(a: _Terms, b: _Terms) -> _Terms:
        out: _Terms = {}
        for ma, ca in a.items():
            for mb, cb in b.items():
                m = ma * mb
                if t is not None and m.as_powers_dict().get(t, 0) >= 2:
                    continue
                out.setdefault(m, []).append(sympy.Mul(sympy.Add(*ca), sympy.Add(*cb)))
        return out

    def split(e: sympy.Expr) -> _Terms:
        found = memo.get(e)
        if found is not None:
            return found
        if e in keep:
            found = {e: [_ONE]}
        elif not holds(e):
            found = {_ONE: [e]}
        elif e.is_Add:
            found = {}
            for a in e.args:
                for m, c in split(a).items():
                    found.setdefault(m, []).extend(c)
        elif e.is_Mul:
            found = {_ONE: [_ONE]}
            for f in e.args:
                found = times(found, split(f))
        elif e.is_Pow and e.exp.is_Integer and e.exp > 0:
            base = split(e.base)
            found = base
            for _ in range(int(e.exp) - 1):
                found = times(found, base)
        else:
            found = {e: [_ONE]}
        memo[e] = found
        return found

    return {m: sympy.Add(*c) for m, c in split(total).items()}
