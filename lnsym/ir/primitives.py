"""The IR's base class :class:`Expr` and its primitive nodes, with coercion and operators.

The operators of :class:`Expr` build the primitive nodes (sums, scalar multiples, Hadamard
and scalar products, powers) and :meth:`Expr.subs` builds a :class:`Substitution`, so these
live together here, below :mod:`lnsym.ir.nodes`, which adds the defined nodes (mean, var, …)
and the constructors, and re-exports the names of this module.

>>> z = VectorAtom("z")
>>> z - z * z
z - z ⊙ z
>>> power(Const(d) + 1, 2)
(d + 1)^2
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any, ClassVar

import sympy

from lnsym.errors import ExpressionError
from lnsym.ir.names import _ATOM_NAME, _check_constant, d
from lnsym.ir.sealing import refuse_sealed_bases

#: How ``repr`` and Jupyter show IR objects: "text" and "latex" printers, installed by
#: :mod:`lnsym.printing` when it is imported (``import lnsym`` does). The printers depend
#: on the IR, so the IR may not import them.
PRINTERS: dict[str, Callable[[Any], str]] = {}


def shown(obj: Any, how: str) -> str:
    """``obj`` through the installed ``how`` printer (a plain repr if there is none)."""
    printer = PRINTERS.get(how)
    return printer(obj) if printer is not None else object.__repr__(obj)


class Expr:
    """Base of every IR node: immutable, hashable, with arithmetic operators.

    ``kind`` is ``"vector"`` or ``"scalar"``. Operators type-check eagerly and raise
    :class:`~lnsym.errors.ExpressionError` for mixtures that have no meaning.
    """

    # The hash, once computed: a dataclass hashes the tuple of its fields, which walks the
    # whole subtree at every dictionary lookup — the engines' memo tables do millions. The
    # children, a defined node's definition, a matrix's shape and what a node is written in
    # (lnsym.ir.written) are kept once found too.
    __slots__ = ("_hash", "_children", "_definition", "_shape", "_written")
    # SymPy's operators defer to an operand with a higher _op_priority, so that
    # ``sympy_expr * vector`` reaches our __rmul__ instead of failing inside SymPy.
    _op_priority = 100.0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # @dataclass(frozen=True) puts its structural __hash__ in the class it builds (with
        # slots=True, a second class, which comes through here again): keep it, cached.
        refuse_sealed_bases(cls)
        super().__init_subclass__(**kwargs)
        structural = cls.__dict__.get("__hash__")
        if structural is not None and not hasattr(structural, "structural"):
            cls.__hash__ = _cached_hash(structural)  # type: ignore[method-assign,assignment]

    @property
    def kind(self) -> str:
        raise NotImplementedError

    def children(self) -> tuple[Expr, ...]:
        """The sub-expressions of this node, in field order (found once per node: the
        engines' walks ask for them hundreds of thousands of times)."""
        try:
            return self._children  # type: ignore[attr-defined]
        except AttributeError:
            pass
        out: list[Expr] = []
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            items = value if isinstance(value, tuple) else (value,)
            out.extend(v for v in items if isinstance(v, Expr))
        found = tuple(out)
        object.__setattr__(self, "_children", found)
        return found

    def subs(self, target: Any, value: Any) -> Expr:
        """Evaluate at ``target = value``: a vector atom and a vector, or a symbol and a scalar.

        >>> from lnsym.ir.nodes import mean, ones, scalar, vector
        >>> z, c = vector("z"), scalar("c")
        >>> mean(z).subs(z, c * ones)
        mean(z)|_{z=c·1}
        """
        return substitution(self, target, value)

    def __repr__(self) -> str:
        return shown(self, "text")

    def _repr_latex_(self) -> str:
        return f"${shown(self, 'latex')}$"

    # -- arithmetic -----------------------------------------------------------------
    # With a matrix on the right, the matrix's own operator builds the matrix node
    # (Python tries it when this one returns NotImplemented): mean(g)·Z is a scaled matrix.
    def __add__(self, other: Any) -> Expr:
        if _matrix(other):
            return NotImplemented
        return add(self, other)

    def __radd__(self, other: Any) -> Expr:
        return add(other, self)

    def __sub__(self, other: Any) -> Expr:
        if _matrix(other):
            return NotImplemented
        return add(self, negate(other))

    def __rsub__(self, other: Any) -> Expr:
        return add(other, negate(self))

    def __neg__(self) -> Expr:
        return negate(self)

    def __pos__(self) -> Expr:
        return self

    def __mul__(self, other: Any) -> Expr:
        if _matrix(other):
            return NotImplemented
        return multiply(self, other)

    def __rmul__(self, other: Any) -> Expr:
        return multiply(other, self)

    def __truediv__(self, other: Any) -> Expr:
        return multiply(self, power(_operand(other), -1))

    def __rtruediv__(self, other: Any) -> Expr:
        return multiply(other, power(self, -1))

    def __pow__(self, exponent: Any) -> Expr:
        return power(self, exponent)


def _kinds(node: Expr, kind: str, *parts: Any) -> None:
    """Refuse a node built directly from parts of the wrong kind (the operators and the
    constructors never build one; the engines would each read it their own way)."""
    for part in parts:
        if not isinstance(part, Expr) or part.kind != kind:
            raise ExpressionError(
                f"{type(node).__name__} takes {kind}s, not {type(part).__name__} {part!r}"
            )


def _matrix(x: Any) -> bool:
    """Whether ``x`` is a matrix node (lnsym.ir.matrices), which builds its own products."""
    return isinstance(x, Expr) and x.kind == "matrix"


def _cached_hash(structural: Callable[[Expr], int]) -> Callable[[Expr], int]:
    """``structural`` computed once per node (a frozen node's fields never change)."""

    def __hash__(self: Expr) -> int:
        try:
            return self._hash  # type: ignore[attr-defined]
        except AttributeError:
            value = structural(self)
            object.__setattr__(self, "_hash", value)
            return value

    __hash__.structural = structural  # type: ignore[attr-defined]
    return __hash__


def kept_on_node(slot: str, compute: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``compute`` (a method of a node) computed once per node and kept in its ``slot``: a
    node never changes. (The hash has its own copy of this, without ``getattr``: it is the
    hottest lookup of every engine.) The result's ``computed`` is ``compute``."""

    def once(self: Any) -> Any:
        try:
            return getattr(self, slot)
        except AttributeError:
            value = compute(self)
            object.__setattr__(self, slot, value)
            return value

    once.computed = compute  # type: ignore[attr-defined]
    once.__doc__ = compute.__doc__
    return once


class VectorNode(Expr):
    """An expression whose value is a vector in ℝ^d."""

    __slots__ = ()

    @property
    def kind(self) -> str:
        return "vector"


class ScalarNode(Expr):
    """An expression whose value is a real number."""

    __slots__ = ()

    @property
    def kind(self) -> str:
        return "scalar"


# ---------------------------------------------------------------------------------------
# Primitive vectors


@dataclass(frozen=True, slots=True, repr=False)
class VectorAtom(VectorNode):
    """A named vector variable in ℝ^d."""

    name: str
    names_an_atom: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _ATOM_NAME.match(self.name):
            raise ExpressionError(f"invalid vector name {self.name!r}")


@dataclass(frozen=True, slots=True, repr=False)
class Ones(VectorNode):
    """The all-ones vector 1."""


@dataclass(frozen=True, slots=True, repr=False)
class VectorSum(VectorNode):
    """A sum of two or more vectors."""

    terms: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _kinds(self, "vector", *self.terms)


@dataclass(frozen=True, slots=True, repr=False)
class Scaled(VectorNode):
    """A scalar multiple ``coefficient · vector``."""

    coefficient: Expr
    vector: Expr

    def __post_init__(self) -> None:
        _kinds(self, "scalar", self.coefficient)
        _kinds(self, "vector", self.vector)


@dataclass(frozen=True, slots=True, repr=False)
class Hadamard(VectorNode):
    """The coordinatewise product ``left ⊙ right``."""

    left: Expr
    right: Expr

    def __post_init__(self) -> None:
        _kinds(self, "vector", self.left, self.right)


# ---------------------------------------------------------------------------------------
# Primitive scalars


@dataclass(frozen=True, slots=True, repr=False)
class Const(ScalarNode):
    """A real SymPy expression free of vectors: a number, ``d``, ``eps``, a user scalar.

    The IR is real: a constant that is not real (``I``, ``(-8)^(1/3)``, a symbol without a
    real assumption), infinite, or whose symbols have names outside the identifier grammar
    is refused here, so no engine and no printer ever sees one.

    Raises:
        ExpressionError: for such a value.
    """

    value: sympy.Expr

    def __post_init__(self) -> None:
        _check_constant(self.value)


@dataclass(frozen=True, slots=True, repr=False)
class Dot(ScalarNode):
    """The inner product ⟨left, right⟩ = Σᵢ leftᵢ·rightᵢ."""

    left: Expr
    right: Expr

    def __post_init__(self) -> None:
        _kinds(self, "vector", self.left, self.right)


@dataclass(frozen=True, slots=True, repr=False)
class ScalarSum(ScalarNode):
    """A sum of two or more scalars."""

    terms: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _kinds(self, "scalar", *self.terms)


@dataclass(frozen=True, slots=True, repr=False)
class ScalarProduct(ScalarNode):
    """A product of two or more scalars."""

    factors: tuple[Expr, ...]

    def __post_init__(self) -> None:
        _kinds(self, "scalar", *self.factors)


@dataclass(frozen=True, slots=True, repr=False)
class Power(ScalarNode):
    """``base ** exponent`` for a scalar base and a SymPy (usually rational) exponent.

    Raises:
        ExpressionError: for an exponent that is not a real constant (a Python int or
            Fraction is made a SymPy number).
    """

    base: Expr
    exponent: sympy.Expr

    def __post_init__(self) -> None:
        _kinds(self, "scalar", self.base)
        if isinstance(self.exponent, Expr):
            raise ExpressionError("exponents must be numbers or SymPy expressions, not IR nodes")
        object.__setattr__(self, "exponent", as_scalar(self.exponent).value)  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------
# Evaluation at a point


@dataclass(frozen=True, slots=True, repr=False)
class Substitution(Expr):
    """``expr`` evaluated at ``target = value`` (after any derivative inside it is taken)."""

    expr: Expr
    target: Expr  # a VectorAtom or a Const holding a SymPy symbol
    value: Expr

    def __post_init__(self) -> None:
        target, value = self.target, self.value
        if isinstance(target, VectorAtom):
            wanted = "vector"
        elif isinstance(target, Const) and isinstance(target.value, sympy.Symbol):
            wanted = "scalar"
            if target.value == d:
                raise ExpressionError("cannot substitute for d: it is the dimension")
        else:
            raise ExpressionError(
                f"a substitution replaces a vector atom or a scalar symbol, not {target!r}"
            )
        if not isinstance(value, Expr) or value.kind != wanted:
            raise ExpressionError(f"{target!r} is a {wanted}: it cannot take the value {value!r}")
        _check_admissible(target, value)

    @property
    def kind(self) -> str:
        return self.expr.kind


#: The rule that decides whether a value satisfies the assumptions of the symbol it
#: replaces: :func:`lnsym.ir.signs.admissible`, installed when that module is imported (the
#: sign rules read every kind of node, so they sit above this module; ``lnsym.ir`` imports
#: them). Without it, every substitution for such a symbol is refused.
ADMISSIBLE: list[Callable[[Expr, Expr], bool]] = []


def _check_admissible(target: Expr, value: Expr) -> None:
    """Refuse a value that breaks an assumption of the symbol it replaces.

    SymPy simplifies constants when they are built, using their symbols' assumptions: for a
    positive p, √(p²) is p. Evaluated at p = −1 that constant would read −1, not |−1|. So a
    symbol declared positive (or with any assumption beyond real) is replaced only by a
    value known to satisfy its assumptions; the others are refused here, before any engine
    could read the simplified constant at a point where the simplification is false.
    """
    sym = target.value if isinstance(target, Const) else None
    if not isinstance(sym, sympy.Symbol) or sym.assumptions0 == _REAL:
        return
    if not ADMISSIBLE or not ADMISSIBLE[0](target, value):
        if sym.is_positive:
            held = f"{sym} is positive"
        else:
            facts = sorted(k for k, v in sym.assumptions0.items() if v and k not in _PLAIN)
            held = f"{sym} is {', '.join(facts)}"
        raise ExpressionError(
            f"cannot evaluate at {sym} = {shown(value, 'text')}: {held} and the value is not "
            f"known to be, while constants built with {sym} may already have been simplified "
            f"with it (for a positive p, √(p²) is built as p); write the expression with a "
            f"real scalar (lnsym.scalar) in place of {sym} and substitute that"
        )


#: Facts every real symbol has; the rest is what a substitution must respect.
_PLAIN = frozenset({"commutative", "complex", "real", "extended_real", "finite", "hermitian"})
_REAL = sympy.Symbol("x", real=True).assumptions0


def substitution(expr: Any, target: Any, value: Any) -> Expr:
    """``expr`` at ``target = value``; see :meth:`Expr.subs`."""
    expr = _operand(expr)
    if expr.kind == "matrix":
        raise ExpressionError(
            "substitution inside a matrix expression is not supported: write the matrix "
            "expression with the value in place"
        )
    if isinstance(target, VectorAtom):
        return Substitution(expr, target, as_vector(value))
    if isinstance(target, sympy.Symbol) and target not in (d,):
        return Substitution(expr, Const(target), as_scalar(value))
    raise ExpressionError(
        f"cannot substitute for {target!r}: give a vector atom or a scalar symbol other than d"
    )


# ---------------------------------------------------------------------------------------
# Coercion and operators


def as_scalar(x: Any) -> Expr:
    """Coerce an int, Fraction, SymPy expression or scalar IR node to a scalar node.

    Strings are refused on purpose: they would have to go through SymPy's parser.

    Raises:
        ExpressionError: for vectors, floats, strings and anything else.
    """
    if isinstance(x, Expr):
        if x.kind != "scalar":
            raise ExpressionError(f"expected a scalar, got the vector {x!r}")
        return x
    if isinstance(x, bool):
        raise ExpressionError("booleans are not scalars")
    if isinstance(x, int):
        return Const(sympy.Integer(x))
    if isinstance(x, Fraction):
        return Const(sympy.Rational(x.numerator, x.denominator))
    if isinstance(x, sympy.Expr) and not isinstance(x, sympy.MatrixBase):
        return Const(x)
    if isinstance(x, float):
        raise ExpressionError(_float_message(x))
    if isinstance(x, str):
        raise ExpressionError(
            f"strings are never parsed into expressions ({x!r}); use lnsym.parse for numbers"
        )
    raise ExpressionError(f"cannot use {type(x).__name__} as a scalar")


def as_vector(x: Any) -> Expr:
    """Check that ``x`` is a vector IR node.

    Raises:
        ExpressionError: otherwise.
    """
    if isinstance(x, Expr) and x.kind == "vector":
        return x
    raise ExpressionError(f"expected a vector expression, got {x!r}")


def _operand(x: Any) -> Expr:
    return x if isinstance(x, Expr) else as_scalar(x)


def _is_zero_literal(x: Any) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool) and x == 0) or (
        isinstance(x, sympy.Integer) and x == 0
    )


def add(a: Any, b: Any) -> Expr:
    """``a + b`` for two vectors or two scalars; a literal 0 is neutral (so ``sum`` works)."""
    if isinstance(b, Expr) and b.kind == "vector" and _is_zero_literal(a):
        return b
    if isinstance(a, Expr) and a.kind == "vector" and _is_zero_literal(b):
        return a
    a, b = _operand(a), _operand(b)
    if a.kind != b.kind:
        raise ExpressionError(
            f"cannot add a {a.kind} and a {b.kind} ({a!r}, {b!r}); write c * ones for c·1"
        )
    cls = VectorSum if a.kind == "vector" else ScalarSum
    return cls(_flatten(cls, a) + _flatten(cls, b))


def _flatten(cls: type, e: Expr) -> tuple[Expr, ...]:
    return e.terms if isinstance(e, cls) else (e,)  # type: ignore[attr-defined]


def negate(a: Any) -> Expr:
    """``-a``."""
    return multiply(-1, a)


def multiply(a: Any, b: Any) -> Expr:
    """``a * b``: scalar·scalar, scalar·vector, vector·scalar, or vector ⊙ vector."""
    a, b = _operand(a), _operand(b)
    if a.kind == "vector" and b.kind == "vector":
        return Hadamard(a, b)
    if a.kind == "vector":
        a, b = b, a
    if b.kind == "vector":
        # c·(k·v) is kept as (c·k)·v so that printed coefficients do not nest.
        if isinstance(b, Scaled):
            return Scaled(multiply(a, b.coefficient), b.vector)
        return Scaled(a, b)
    if isinstance(a, Const) and isinstance(b, Const):
        return Const(a.value * b.value)
    if a == Const(sympy.Integer(1)):
        return b
    if b == Const(sympy.Integer(1)):
        return a
    factors = (a.factors if isinstance(a, ScalarProduct) else (a,)) + (
        b.factors if isinstance(b, ScalarProduct) else (b,)
    )
    return ScalarProduct(factors)


def power(base: Any, exponent: Any) -> Expr:
    """``base ** exponent`` for a scalar base and a numeric or SymPy exponent."""
    base = _operand(base)
    if base.kind != "scalar":
        raise ExpressionError(f"cannot raise the vector {base!r} to a power; use a * a")
    if isinstance(exponent, Expr):
        raise ExpressionError("exponents must be numbers or SymPy expressions, not IR nodes")
    exponent_value = as_scalar(exponent).value  # type: ignore[attr-defined]
    if exponent_value == 1:
        return base
    if isinstance(base, Const):
        return Const(base.value**exponent_value)
    return Power(base, exponent_value)


def _float_message(x: float) -> str:
    """How to write the number a float literal meant, exactly (0.1 → Fraction(1, 10))."""
    if x != x or x in (float("inf"), float("-inf")):
        return f"the float {x!r} is not a number lnsym can use; write an exact rational"
    meant = Fraction(repr(x))  # the decimal the user typed, not the binary float
    if meant.denominator == 1:
        return f"the float {x!r} is inexact (floats are rounded in binary); write {meant}"
    return (
        f"the float {x!r} is inexact (floats are rounded in binary); write "
        f"Fraction({meant.numerator}, {meant.denominator}) (from fractions import Fraction) "
        f"or sympy.Rational({meant.numerator}, {meant.denominator})"
    )
