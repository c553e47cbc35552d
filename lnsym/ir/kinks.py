"""No derivative through a kink: which derivatives of a statement may not exist.

SymPy differentiates |x| to sign(x) and evaluates sign(0) = 0, and a Piecewise to the
derivative of each piece: every engine that differentiates with SymPy then agrees on a
derivative that does not exist (∂_a|a| at a = 0 "is" 0; written as a Piecewise it "is" 1).
So a derivative (``diff``, ``jvp``, ``grad``, ``vjp``, the operator norm, a matrix
gradient) is refused, for every engine alike, when what it differentiates holds a function
that is not differentiable everywhere and whose argument moves with the variable:

- |x|, sign(x), H(x), unless the sign rules (:mod:`lnsym.ir.signs`) show x > 0 or −x > 0
  under the claim's assumptions (then x stays away from the kink at 0);
- max/min, unless every two arguments have a difference of known strict sign;
- a Piecewise whose conditions move, floor, ceiling and every other SymPy function not in
  :data:`SMOOTH` (an allowlist: what is not known smooth is refused);
- a root of a square factor, √(x²·r) = |x|·√r (SymPy and the general engine take it out
  as |x|), unless x is known positive. Other non-integer powers are differentiable wherever
  their base is positive and undefined where it is 0: the engines' domains handle those.

An argument moves with the variable when it contains it (a scalar symbol for ``diff``), or
a symbol or atom substituted inside the derivative by a value that depends on it (|t| at
t = mean(z) under a jvp in z); user-defined nodes are read through their definitions. The
kink is refused wherever it lies: ``diff(f, a).subs(a, 0)`` differentiates first, so the
derivative must exist for every a, not only at 0. Kinks outside every derivative are not
concerned. Part of the trusted kernel (docs/trust.md).

>>> import sympy
>>> from lnsym.ir.calculus import diff
>>> from lnsym.ir.nodes import Const, scalar, eps
>>> a, c = scalar("a"), scalar("c")
>>> print(kink_under_derivative(diff(Const(sympy.Abs(a)), a)))  # doctest: +NORMALIZE_WHITESPACE
no derivative through a kink: Abs(a) under ∂_a: its argument a moves with a and is not
shown to stay away from the kink (a ≠ 0)
>>> kink_under_derivative(diff(Const(sympy.Abs(c) * a), a)) is None
True
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

import sympy

from lnsym.errors import LnsymError
from lnsym.ir import nodes as ir
from lnsym.ir.assumptions import Assumption
from lnsym.ir.calculus import Diff, Grad, Jvp, OperatorNorm, Vjp
from lnsym.ir.matrices import MatGrad, MatrixAtom
from lnsym.ir.relations import Relation
from lnsym.ir.signs import POSITIVE, sign

#: SymPy functions differentiable wherever they are defined (poles and the ends of their
#: domains are the engines' domain checks). Anything else under a derivative is a kink.
SMOOTH: frozenset[type] = frozenset(
    {
        sympy.exp,
        sympy.log,
        sympy.sin,
        sympy.cos,
        sympy.tan,
        sympy.sinh,
        sympy.cosh,
        sympy.tanh,
        sympy.atan,
        sympy.asinh,
        sympy.erf,
        sympy.erfc,
    }
)

#: Functions whose only kink is where their single argument is 0.
_KINK_AT_ZERO: tuple[type[sympy.Basic], ...] = (sympy.Abs, sympy.sign, sympy.Heaviside)

#: The derivative nodes; each holds what it differentiates in ``expr``.
_DERIVATIVES: tuple[type, ...] = (Diff, Jvp, Grad, Vjp, OperatorNorm, MatGrad)


@dataclass(frozen=True)
class _Scope:
    """What moves with the differentiation variable at a point of the walk.

    ``moving`` holds the scalar symbols and atoms that move; a constant or an expression
    moves when it names one of them (by name: a collision of names can only make more
    things move, and a substitution stops only the very symbol or atom it binds). ``values``
    are the IR values of the scalar symbols substituted on the way down (None: unknown).
    """

    label: str
    wrt: str
    moving: frozenset[Any]
    values: tuple[tuple[sympy.Symbol, ir.Expr | None], ...] = ()

    @functools.cached_property
    def names(self) -> frozenset[str]:
        return frozenset(map(_target_name, self.moving))

    def value_map(self) -> Mapping[sympy.Symbol, ir.Expr | None]:
        return dict(self.values)

    def bound(self, target: ir.Expr, value: ir.Expr, moves: bool) -> _Scope:
        """The scope inside ``expr|_{target=value}``: target moves iff its value does."""
        key = _variable(target)
        moving = self.moving | {key} if moves else self.moving - {key}
        values = self.values
        if isinstance(key, sympy.Symbol):
            closed = value if not _mentions(value, {s for s, _ in values}) else None
            values = tuple((s, v) for s, v in values if s != key) + ((key, closed),)
        return _Scope(self.label, self.wrt, moving, values)


def kink_under_derivative(
    subject: Relation | ir.Expr, assumptions: Iterable[Assumption] = ()
) -> str | None:
    """Why a derivative in ``subject`` may not exist (one line), or None.

    Args:
        subject: a relation (both sides and any certificate are read) or an expression.
        assumptions: the claim's assumptions, for the sign rules (var(z) > 0 for a
            non-constant z).

    Returns:
        The first kink met under a derivative, naming the function, its argument and the
        derivative; None when every derivative is taken away from every kink.
    """
    given = tuple(assumptions)
    memo: dict[tuple[Any, _Scope, tuple[Assumption, ...]], str | None] = {}
    for node in ir.distinct_nodes(*_parts(subject), definitions=True):
        if isinstance(node, _DERIVATIVES):
            found = _scan(node.expr, _scope_of(node), given, memo)  # type: ignore[attr-defined]
        elif isinstance(node, ir.Const):
            found = _sympy_derivatives(node.value)
        else:
            found = None
        if found is not None:
            return f"no derivative through a kink: {found}"
    return None


def _parts(subject: Relation | ir.Expr) -> tuple[ir.Expr, ...]:
    if isinstance(subject, ir.Expr):
        return (subject,)
    return (subject.lhs, subject.rhs, *getattr(subject, "certificate", ()))


def _scope_of(node: ir.Expr) -> _Scope:
    """The variable a derivative node moves, and how its refusal names it."""
    variable = _variable(node.wrt)  # type: ignore[attr-defined]
    name = _target_name(variable)
    labels = {
        Diff: f"∂_{name}",
        Jvp: f"D_{name}",
        Grad: f"∇_{name}",
        Vjp: f"the vjp in {name}",
        OperatorNorm: f"‖D_{name}‖",
        MatGrad: f"∂/∂{name}",
    }
    return _Scope(labels[type(node)], name, frozenset({variable}))


def _variable(target: ir.Expr) -> Any:
    """What a derivative or a substitution binds: a SymPy symbol or an atom node."""
    if isinstance(target, ir.Const) and isinstance(target.value, sympy.Symbol):
        return target.value
    return target


def _target_name(variable: Any) -> str:
    if isinstance(variable, ir.VectorAtom | MatrixAtom | sympy.Symbol):
        return variable.name
    return repr(variable)


# ---------------------------------------------------------------------------------------
# The walk below a derivative


def _scan(
    e: ir.Expr,
    scope: _Scope,
    assumptions: tuple[Assumption, ...],
    memo: dict[tuple[Any, _Scope, tuple[Assumption, ...]], str | None],
) -> str | None:
    """The first kink in ``e`` whose argument moves in ``scope`` (memoized: lowered
    expressions share their parts)."""
    key = (e, scope, assumptions)
    if key in memo:
        return memo[key]
    memo[key] = None  # a node never contains itself; this only guards re-entry
    found = _scan_node(e, scope, assumptions, memo)
    memo[key] = found
    return found


def _scan_node(
    e: ir.Expr,
    scope: _Scope,
    assumptions: tuple[Assumption, ...],
    memo: dict[tuple[Any, _Scope, tuple[Assumption, ...]], str | None],
) -> str | None:
    if isinstance(e, ir.Substitution):
        # The value is part of the function too (the chain rule runs through it).
        found = _scan(e.value, scope, assumptions, memo)
        inner = scope.bound(e.target, e.value, _moves(e.value, scope))
        # Inside, the target stands for the value: what the claim assumes of the atom
        # (non-constant, centered, …) says nothing of it there.
        kept = tuple(a for a in assumptions if e.target not in _atoms_of(a))
        return found or _scan(e.expr, inner, kept, memo)
    if isinstance(e, ir.Const):
        return _sympy_kink(e.value, scope, assumptions)
    if isinstance(e, ir.Defined):
        # The definition is the node's meaning; a field it does not use changes nothing.
        return _scan(e.definition(), scope, assumptions, memo)
    if isinstance(e, ir.Power):
        found = _root_of_square(e, scope, assumptions)
        if found is not None:
            return found
    for item in _sympy_fields(e):
        found = _sympy_kink(item, scope, assumptions)
        if found is not None:
            return found
    for child in e.children():
        found = _scan(child, scope, assumptions, memo)
        if found is not None:
            return found
    return None


def _atoms_of(assumption: Assumption) -> tuple[Any, ...]:
    """The atoms an assumption speaks of (its fields that are nodes)."""
    return tuple(
        v for f in fields(assumption) if isinstance(v := getattr(assumption, f.name), ir.Expr)  # type: ignore[arg-type]
    )


def _sympy_fields(e: ir.Expr) -> Iterator[sympy.Expr]:
    """The SymPy values a node holds besides its children (a power's exponent)."""
    for f in fields(e):  # type: ignore[arg-type]
        value = getattr(e, f.name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, sympy.Expr):
                yield item


def _moves(e: ir.Expr, scope: _Scope) -> bool:
    """Whether ``e`` may depend on what moves (read through definitions; a rebinding
    inside ``e`` is ignored, which can only say "moves" more often)."""
    if not scope.moving:
        return False
    for node in ir.distinct_nodes(e, definitions=True):
        if isinstance(node, ir.VectorAtom | MatrixAtom) and node.name in scope.names:
            return True
        if any(_symbol_moves(item, scope) for item in _sympy_fields(node)):
            return True
    return False


def _symbol_moves(x: sympy.Basic, scope: _Scope) -> bool:
    return any(s.name in scope.names for s in x.free_symbols if isinstance(s, sympy.Symbol))


def _mentions(e: ir.Expr, symbols: set[sympy.Symbol]) -> bool:
    if not symbols:
        return False
    return any(
        item.free_symbols & symbols
        for node in ir.distinct_nodes(e, definitions=True)
        for item in _sympy_fields(node)
    )


# ---------------------------------------------------------------------------------------
# Kinks inside a SymPy constant


def _sympy_kink(x: sympy.Basic, scope: _Scope, assumptions: tuple[Assumption, ...]) -> str | None:
    """The first function of ``x`` that is not differentiable where its argument moves."""
    if not _symbol_moves(x, scope):
        return None
    if x.is_Atom or isinstance(x, sympy.Add | sympy.Mul):
        pass
    elif isinstance(x, sympy.Pow):
        if x.exp.is_integer is not True:
            found = _sympy_root_of_square(x, scope, assumptions)
            if found is not None:
                return found
    elif isinstance(x, sympy.Piecewise):
        conditions = [cond for _, cond in x.args]
        if any(_symbol_moves(cond, scope) for cond in conditions):
            return (
                f"{x} under {scope.label}: its conditions move with {scope.wrt}, and a "
                "piecewise function has no derivative where its piece changes"
            )
        return _first(_sympy_kink(piece, scope, assumptions) for piece, _ in x.args)
    elif isinstance(x, _KINK_AT_ZERO):
        argument = x.args[0]
        if _symbol_moves(argument, scope) and not _away_from_zero(argument, scope, assumptions):
            return _refused(x, scope, f"its argument {argument} moves with", f"{argument} ≠ 0")
    elif isinstance(x, sympy.Max | sympy.Min):
        for left, right in itertools.combinations(x.args, 2):
            gap = left - right
            if _symbol_moves(gap, scope) and not _away_from_zero(gap, scope, assumptions):
                return _refused(
                    x,
                    scope,
                    f"the difference {left} − {right} of its arguments moves with",
                    f"{left} ≠ {right}",
                )
    elif type(x) not in SMOOTH:
        return (
            f"{x} under {scope.label}: its argument moves with {scope.wrt}, and "
            f"{type(x).__name__} is not known to be differentiable everywhere"
        )
    return _first(_sympy_kink(arg, scope, assumptions) for arg in x.args)


def _refused(x: Any, scope: _Scope, what: str, away: str) -> str:
    return (
        f"{x} under {scope.label}: {what} {scope.wrt} and is not shown to stay away "
        f"from the kink ({away})"
    )


def _first(found: Iterable[str | None]) -> str | None:
    return next((f for f in found if f is not None), None)


def _away_from_zero(x: sympy.Expr, scope: _Scope, assumptions: tuple[Assumption, ...]) -> bool:
    """Whether x > 0 or −x > 0 by the sign rules, substituted symbols read as their values."""
    for candidate in (x, -x):
        try:
            as_ir = _as_ir(candidate, scope.value_map())
        except LnsymError:  # not an IR constant (not known real): no sign is known
            continue
        if as_ir is not None and sign(as_ir, assumptions) == POSITIVE:
            return True
    return False


def _as_ir(x: sympy.Expr, values: Mapping[sympy.Symbol, ir.Expr | None]) -> ir.Expr | None:
    """``x`` as an IR scalar with every substituted symbol replaced by its IR value (None
    where that is not possible): the sign rules then see what the symbol stands for."""
    if not (x.free_symbols & values.keys()):
        return ir.Const(x)
    if isinstance(x, sympy.Symbol):
        return values[x]
    if isinstance(x, sympy.Add | sympy.Mul):
        parts = [_as_ir(arg, values) for arg in x.args]
        if any(p is None for p in parts):
            return None
        combine = ir.add if isinstance(x, sympy.Add) else ir.multiply
        out = parts[0]
        for part in parts[1:]:
            out = combine(out, part)
        return out
    if isinstance(x, sympy.Pow) and not (x.exp.free_symbols & values.keys()):
        base = _as_ir(x.base, values)
        return None if base is None else ir.power(base, x.exp)
    return None


def _sympy_derivatives(value: sympy.Expr) -> str | None:
    """A SymPy ``Derivative`` written inside a constant, through a kink in its variables."""
    for derivative in sorted(value.atoms(sympy.Derivative), key=sympy.default_sort_key):
        variables = frozenset(v for v in derivative.variables if isinstance(v, sympy.Symbol))
        wrt = ", ".join(sorted(v.name for v in variables))
        scope = _Scope(f"the SymPy derivative {derivative}", wrt, variables)
        found = _sympy_kink(derivative.expr, scope, ())
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------------------------------
# √(x²·r) = |x|·√r


def _root_of_square(e: ir.Power, scope: _Scope, assumptions: tuple[Assumption, ...]) -> str | None:
    """A non-integer power of an IR base with a moving square factor x² (|x| hides in it)."""
    if e.exponent.is_integer is True or not _moves(e.base, scope):
        return None
    if sign(e.base, assumptions) == POSITIVE:
        return None
    counts: dict[ir.Expr, int] = {}
    for factor, k in _ir_factors(e.base):
        if isinstance(factor, ir.Const):
            for base, power in _sympy_factors(factor.value):
                if power >= 2 and _symbol_moves(base, scope):
                    if not _away_from_zero(base, scope, assumptions):
                        return _square_refused(e, str(base), scope)
        else:
            counts[factor] = counts.get(factor, 0) + k
    for factor, count in counts.items():
        if count >= 2 and _moves(factor, scope) and sign(factor, assumptions) != POSITIVE:
            return _square_refused(e, repr(factor), scope)
    return None


def _square_refused(root: Any, factor: str, scope: _Scope) -> str:
    return _refused(
        root,
        scope,
        f"the square of {factor} under the root moves with",
        f"{factor} ≠ 0; the root of a square is an absolute value",
    )


def _ir_factors(e: ir.Expr) -> list[tuple[ir.Expr, int]]:
    """The factors of a scalar IR product with their integer multiplicities."""
    if isinstance(e, ir.ScalarProduct):
        return [pair for f in e.factors for pair in _ir_factors(f)]
    if isinstance(e, ir.Power) and e.exponent.is_Integer and e.exponent > 0:
        return [(f, k * int(e.exponent)) for f, k in _ir_factors(e.base)]
    return [(e, 1)]


def _sympy_factors(x: sympy.Expr) -> list[tuple[sympy.Expr, int]]:
    """The factors of a SymPy product (after ``factor_terms``) with integer multiplicities."""
    out: list[tuple[sympy.Expr, int]] = []
    for factor in sympy.Mul.make_args(sympy.factor_terms(x)):
        base, power = factor.as_base_exp()
        out.append((base, int(power)) if power.is_Integer and power > 0 else (factor, 1))
    return out


def _sympy_root_of_square(
    x: sympy.Pow, scope: _Scope, assumptions: tuple[Assumption, ...]
) -> str | None:
    """A non-integer power of a SymPy base with a moving square factor."""
    if x.base.is_positive:
        return None
    for base, power in _sympy_factors(x.base):
        if power >= 2 and _symbol_moves(base, scope):
            if not _away_from_zero(base, scope, assumptions):
                return _square_refused(x, str(base), scope)
    return None
