"""What the interpreter reads off an expression's form, before any value: cached walks of
the IR.

Which nodes are derivatives (and so which derivative method applies), which scalars are
nonnegative and which vectors are centered or multiples of 1 *exactly* — facts rounding
cannot see, which the error bounds use — and the power bases that set the first step of
central differences.
"""

from __future__ import annotations

from functools import lru_cache

import sympy
from sympy.core.function import AppliedUndef

from lnsym import ir
from lnsym.ir.calculus import Diff, Grad, Jvp, OperatorNorm, Vjp

DERIVATIVES = (Jvp, Vjp, Grad, OperatorNorm, Diff)
#: Functions of the scalars that are not analytic (where they are differentiable, the
#: complex step may still not see it: |a + iτ| is real), so a derivative with respect to
#: a scalar inside one takes central differences.
_NOT_ANALYTIC = (
    sympy.Abs, sympy.sign, sympy.Min, sympy.Max, sympy.Piecewise, sympy.floor,
    sympy.ceiling, sympy.frac, sympy.Heaviside, sympy.re, sympy.im, sympy.arg,
    sympy.conjugate,
)  # fmt: skip


@lru_cache(maxsize=4096)
def has_derivative(e: ir.Expr) -> bool:
    return any(isinstance(node, DERIVATIVES) for node in ir.distinct_nodes(e, definitions=True))


@lru_cache(maxsize=4096)
def has_forward_tangents(e: ir.Expr) -> bool:
    """Whether ``e`` can carry forward-mode tangents (:mod:`~lnsym.engines.numeric.dual`):
    no derivative inside, and no substitution of a scalar, whose value would carry tangents
    into the functions of the scalars (|a|, exp, …) that a Dual does not follow."""
    return not any(
        isinstance(node, DERIVATIVES)
        or (isinstance(node, ir.Substitution) and isinstance(node.target, ir.Const))
        for node in ir.distinct_nodes(e, definitions=True)
    )


@lru_cache(maxsize=4096)
def is_nonnegative(e: ir.Expr) -> bool:
    """Whether the scalar ``e`` is nonnegative by its form: squares, norms, variances and
    sums, products and powers of such (the exact value, whatever rounding does)."""
    match e:
        case ir.Const(value=v):
            return bool(v.is_nonnegative)
        case ir.Dot(left=left, right=right):
            return left == right
        case ir.Var() | ir.Norm():
            return True
        case ir.Power(base=base, exponent=n):
            return bool(n.is_Integer and n.is_even) or is_nonnegative(base)
        case ir.ScalarSum(terms=parts) | ir.ScalarProduct(factors=parts):
            return all(is_nonnegative(p) for p in parts)
        case ir.Defined():
            return is_nonnegative(e.definition())
    return False


@lru_cache(maxsize=4096)
def is_centered(e: ir.Expr) -> bool:
    """Whether the vector ``e`` sums to 0 by its form: centerings, their multiples and sums
    (the exact value, whatever rounding does)."""
    match e:
        case ir.Center():
            return True
        case ir.Scaled(vector=v):
            return is_centered(v)
        case ir.VectorSum(terms=terms):
            return all(is_centered(t) for t in terms)
        case ir.Substitution(expr=inner):
            return is_centered(inner)
        case ir.Defined():
            return is_centered(e.definition())
    return False


@lru_cache(maxsize=4096)
def is_uniform(e: ir.Expr) -> bool:
    """Whether the vector ``e`` is a multiple of 1 by its form (c·1, sums and products)."""
    match e:
        case ir.Ones():
            return True
        case ir.Scaled(vector=v):
            return is_uniform(v)
        case ir.VectorSum(terms=terms):
            return all(is_uniform(t) for t in terms)
        case ir.Hadamard(left=left, right=right):
            return is_uniform(left) and is_uniform(right)
        case ir.Substitution(expr=inner):
            return is_uniform(inner)
        case ir.Defined():
            return e.kind == "vector" and is_uniform(e.definition())
    return False


def _symbols(e: ir.Expr) -> set[sympy.Symbol]:
    """The scalar symbols written in ``e`` or in the definitions of its defined nodes."""
    found: set[sympy.Symbol] = set()
    for node in ir.distinct_nodes(e, definitions=True):
        if isinstance(node, ir.Const):
            found |= ir.free_symbols(node.value)
        elif isinstance(node, ir.Power):
            found |= ir.free_symbols(node.exponent)
    return found


@lru_cache(maxsize=4096)
def scalar_symbols(e: ir.Expr) -> frozenset[sympy.Symbol]:
    """The scalar symbols written in ``e`` or in the definitions of its defined nodes."""
    return frozenset(_symbols(e))


@lru_cache(maxsize=4096)
def has_plain_constants(e: ir.Expr) -> bool:
    """Whether every constant of ``e`` is plain arithmetic of its symbols (sums, products,
    powers with numeric exponents, analytic functions such as exp or sin) and no exponent
    holds a symbol: what tangents in the scalars (:mod:`~lnsym.engines.numeric.dual`)
    follow — a function by its derivatives (:mod:`~lnsym.engines.numeric.constants`). A
    function that is not analytic (|a|, min, sign, …) stops them."""
    for node in ir.distinct_nodes(e, definitions=True):
        if isinstance(node, ir.Const) and not _plain(node.value):
            return False
        if isinstance(node, ir.Power) and ir.free_symbols(node.exponent):
            return False
    return True


def _plain(value: sympy.Expr) -> bool:
    """The cases of :meth:`~lnsym.engines.numeric.constants.Constants._symbolic` a Dual
    follows: a number, a symbol, a sum, a product, a power with a numeric exponent, an
    analytic function (a SymPy ``Function`` that is neither user-defined nor among
    :data:`_NOT_ANALYTIC`) of such."""
    if value.is_Symbol or not ir.free_symbols(value):
        return True
    if value.is_Add or value.is_Mul:
        return all(_plain(a) for a in value.args)
    if value.is_Pow:
        return not ir.free_symbols(value.exp) and _plain(value.base)
    return (
        isinstance(value, sympy.Function)
        and not isinstance(value, (AppliedUndef, *_NOT_ANALYTIC))
        and all(isinstance(a, sympy.Expr) and _plain(a) for a in value.args)
    )


@lru_cache(maxsize=4096)
def is_analytic_in(e: ir.Expr, sym: sympy.Symbol) -> bool:
    """Whether no constant of ``e`` applies a non-analytic function (|x|, sign, max, …) to
    an expression in ``sym``: then the complex step in ``sym`` is exact."""
    for node in ir.distinct_nodes(e, definitions=True):
        values = [node.value] if isinstance(node, ir.Const) else []
        if isinstance(node, ir.Power):
            values.append(node.exponent)
        for value in values:
            if any(sym in f.free_symbols for f in value.atoms(*_NOT_ANALYTIC)):
                return False
    return True


@lru_cache(maxsize=4096)
def is_analytic_along(e: ir.Expr, target: str | sympy.Symbol) -> bool:
    """Whether the complex step along ``target`` (the name of a vector atom, or a scalar
    symbol) is exact in ``e``: no non-analytic function of the symbol, and none of a scalar
    substituted with a value that moves with ``target`` (|t| at t = mean(z): |t + iτ| is
    real, so the step would lose the derivative through it)."""
    if isinstance(target, sympy.Symbol) and not is_analytic_in(e, target):
        return False
    return not any(
        isinstance(node, ir.Substitution)
        and isinstance(node.target, ir.Const)
        and _involves(node.value, target)
        and not is_analytic_along(node.expr, node.target.value)
        for node in ir.distinct_nodes(e, definitions=True)
    )


def _involves(e: ir.Expr, target: str | sympy.Symbol) -> bool:
    if isinstance(target, str):
        return target in ir.vector_atoms(e)
    return target in _symbols(e)


def needs_central_differences(e: ir.Expr, target: str | sympy.Symbol) -> bool:
    """Whether a derivative of ``e`` along ``target`` (a vector atom's name, or a scalar
    symbol) takes Ridders' central differences: a derivative inside, or a function that the
    complex step would not see (:func:`is_analytic_along`)."""
    return has_derivative(e) or not is_analytic_along(e, target)


@lru_cache(maxsize=4096)
def takes_scalars_together(e: ir.Expr) -> bool:
    """Whether the derivatives of ``e`` in its scalars are taken all at once, in forward
    mode (one scalar or more besides d, tangents that a Dual follows, plain constants);
    a sample flagged along some directions only still sends them to one complex step each.

    One scalar too: a Dual has no step, so a derivative far below the step's 1e-100 (c⁴
    at c = 1e-100: the complex step's imaginary part 4e-300·τ underflows to 0) keeps its
    value."""
    return bool(scalar_symbols(e) - {ir.d}) and has_forward_tangents(e) and has_plain_constants(e)


@lru_cache(maxsize=4096)
def kinks(e: ir.Expr, sym: sympy.Symbol) -> tuple[sympy.Expr, ...]:
    """The arguments x, in ``sym``, of |x|, sign(x) and H(x) in the constants of ``e``: where
    one is 0 the derivative in ``sym`` does not exist (central differences would give 0)."""
    found: set[sympy.Expr] = set()
    for node in ir.distinct_nodes(e, definitions=True):
        if isinstance(node, ir.Const):
            for kink in node.value.atoms(sympy.Abs, sympy.sign, sympy.Heaviside):
                if sym in kink.args[0].free_symbols:
                    found.add(kink.args[0])
    return tuple(sorted(found, key=sympy.default_sort_key))


@lru_cache(maxsize=1024)
def power_bases(e: ir.Expr, target: str | sympy.Symbol) -> tuple[ir.Expr, ...]:
    """The derivative-free bases of non-polynomial powers in ``e`` that involve ``target``
    (the name of a vector atom, or a scalar symbol)."""

    bases = {
        node.base
        for node in ir.distinct_nodes(e, definitions=True)
        if isinstance(node, ir.Power)
        and not (node.exponent.is_Integer and node.exponent >= 0)
        and not has_derivative(node.base)
        and _involves(node.base, target)
    }
    return tuple(sorted(bases, key=repr))
