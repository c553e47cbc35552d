"""The IR's expressions: immutable vector and scalar nodes, their constructors and operators.

Vectors live in ℝ^d for a symbolic dimension ``d``; scalars are real. The leaves are vector
atoms, the ones vector and constants (SymPy expressions in ``d``, ``eps`` and user scalars).
Everything else is built from a few primitives (sum, scalar multiple, Hadamard product,
inner product, scalar sum/product/power) plus *defined* nodes such as :func:`mean`, whose
meaning ``definition()`` spells out in primitives — so every interpreter handles only the
primitives, and the printers still show ``mean(z)`` rather than its expansion.

The base class :class:`Expr`, the primitive nodes, coercion and the operators are in
:mod:`lnsym.ir.primitives` (the operators build primitive nodes) and importable from here;
this module adds the defined nodes, the constructors and the tree walks.

>>> z = vector("z")
>>> mean(z + 2 * ones)
mean(z + 2·1)
>>> (var(z) + eps) ** sympy.Rational(-1, 2)
(var(z) + ε)^(-1/2)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import sympy

from lnsym.errors import ExpressionError
from lnsym.ir.names import _check_name
from lnsym.ir.names import d as d
from lnsym.ir.names import eps as eps
from lnsym.ir.names import scalar as scalar
from lnsym.ir.primitives import PRINTERS as PRINTERS
from lnsym.ir.primitives import Const as Const
from lnsym.ir.primitives import Dot as Dot
from lnsym.ir.primitives import Expr as Expr
from lnsym.ir.primitives import Hadamard as Hadamard
from lnsym.ir.primitives import Ones as Ones
from lnsym.ir.primitives import Power as Power
from lnsym.ir.primitives import ScalarNode as ScalarNode
from lnsym.ir.primitives import ScalarProduct as ScalarProduct
from lnsym.ir.primitives import ScalarSum as ScalarSum
from lnsym.ir.primitives import Scaled as Scaled
from lnsym.ir.primitives import Substitution as Substitution
from lnsym.ir.primitives import VectorAtom as VectorAtom
from lnsym.ir.primitives import VectorNode as VectorNode
from lnsym.ir.primitives import VectorSum as VectorSum
from lnsym.ir.primitives import _is_zero_literal as _is_zero_literal
from lnsym.ir.primitives import _operand as _operand
from lnsym.ir.primitives import add as add
from lnsym.ir.primitives import as_scalar as as_scalar
from lnsym.ir.primitives import as_vector as as_vector
from lnsym.ir.primitives import kept_on_node
from lnsym.ir.primitives import multiply as multiply
from lnsym.ir.primitives import negate as negate
from lnsym.ir.primitives import power as power
from lnsym.ir.primitives import shown as shown
from lnsym.ir.primitives import substitution as substitution
from lnsym.ir.written import check_definition


class Defined(Expr):
    """A node whose meaning is :meth:`definition` in terms of other nodes.

    Interpreters expand it; printers show it under its own name.
    """

    __slots__ = ()
    #: The name printers use, e.g. ``mean``.
    symbol: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every interpreter expands a defined node, many times: its definition is built once
        # and kept on the node (which is immutable), so that it is also one object, whose
        # hash is computed once.
        super().__init_subclass__(**kwargs)
        written = cls.__dict__.get("definition")
        if written is not None and not hasattr(written, "computed"):
            cls.definition = kept_on_node("_definition", written)  # type: ignore[method-assign,assignment]
        # A subclass's own __post_init__ still ends with the check of its definition.
        own = cls.__dict__.get("__post_init__")
        if own is not None and not hasattr(own, "checks_definition"):
            cls.__post_init__ = _then_check_definition(own)  # type: ignore[method-assign]

    def __post_init__(self) -> None:
        """Refuse a definition that uses what no field holds (lnsym.ir.written): every walk
        that decides soundness reads the fields; and, for lnsym's statistics of a vector
        (mean, center, var, norm), an argument that is not one."""
        if isinstance(self, _STATISTICS) and getattr(self.arg, "kind", None) != "vector":
            raise ExpressionError(
                f"{type(self).__name__} takes a vector, not {self.arg!r}"
            )
        check_definition(self)

    __post_init__.checks_definition = True  # type: ignore[attr-defined]

    def definition(self) -> Expr:
        raise NotImplementedError


def _then_check_definition(post_init: Any) -> Any:
    def checked(self: Defined) -> None:
        post_init(self)
        check_definition(self)

    checked.checks_definition = True  # type: ignore[attr-defined]
    return checked


# ---------------------------------------------------------------------------------------
# Defined statistics of a vector


@dataclass(frozen=True, slots=True, repr=False)
class Mean(Defined, ScalarNode):
    """μ(a) = ⟨1, a⟩ / d."""

    arg: Expr
    symbol: ClassVar[str] = "mean"

    def definition(self) -> Expr:
        return ScalarProduct((Const(1 / d), Dot(Ones(), self.arg)))


@dataclass(frozen=True, slots=True, repr=False)
class Center(Defined, VectorNode):
    """P a with the centering matrix P = I − 11ᵀ/d, i.e. a − (⟨1, a⟩/d)·1."""

    arg: Expr
    symbol: ClassVar[str] = "center"

    def definition(self) -> Expr:
        offset = ScalarProduct((Const(-1 / d), Dot(Ones(), self.arg)))
        return VectorSum((self.arg, Scaled(offset, Ones())))


@dataclass(frozen=True, slots=True, repr=False)
class Var(Defined, ScalarNode):
    """q(a) = ‖P a‖² / d, the coordinate variance with divisor d."""

    arg: Expr
    symbol: ClassVar[str] = "var"

    def definition(self) -> Expr:
        centered_arg = Center(self.arg)
        return Mean(Hadamard(centered_arg, centered_arg))


@dataclass(frozen=True, slots=True, repr=False)
class Norm(Defined, ScalarNode):
    """The Euclidean norm ‖a‖ = ⟨a, a⟩^(1/2)."""

    arg: Expr
    symbol: ClassVar[str] = "norm"

    def definition(self) -> Expr:
        return Power(Dot(self.arg, self.arg), sympy.Rational(1, 2))


# ---------------------------------------------------------------------------------------
# Constructors


_STATISTICS = (Mean, Center, Var, Norm)


def vector(name: str) -> VectorAtom:
    """A vector variable in ℝ^d.

    Args:
        name: an identifier such as ``"z"`` or ``"gamma"``; names starting with ``_`` are
            reserved for lnsym.

    Raises:
        ExpressionError: if ``name`` is not a valid identifier.

    >>> vector("z")
    z
    """
    return VectorAtom(_check_name(name))


#: The all-ones vector.
ones = Ones()


def dot(a: Any, b: Any) -> Expr:
    """The inner product ⟨a, b⟩ of two vectors."""
    return Dot(as_vector(a), as_vector(b))


def hadamard(a: Any, b: Any) -> Expr:
    """The coordinatewise product a ⊙ b (also written ``a * b``)."""
    return Hadamard(as_vector(a), as_vector(b))


def mean(a: Any) -> Expr:
    """The coordinate mean μ(a) = ⟨1, a⟩/d."""
    return Mean(as_vector(a))


def center(a: Any) -> Expr:
    """The centered vector P a = a − μ(a)·1."""
    return Center(as_vector(a))


def var(a: Any) -> Expr:
    """The coordinate variance q(a) = ‖P a‖²/d (divisor d, "correction zero")."""
    return Var(as_vector(a))


def norm(a: Any) -> Expr:
    """The Euclidean norm ‖a‖."""
    return Norm(as_vector(a))


def sqrt(x: Any) -> Expr:
    """The square root of a scalar: ``x ** (1/2)``, real where x ≥ 0 (the sign rules and
    the engines treat a negative radicand as outside the claim's domain).

    >>> sqrt(var(vector("z")) + eps)
    (var(z) + ε)^(1/2)
    >>> sqrt(4)
    2
    """
    return power(x, sympy.Rational(1, 2))


def walk(e: Expr) -> list[Expr]:
    """All nodes of ``e`` in pre-order (a node may appear more than once)."""
    out: list[Expr] = []
    stack = [e]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children()))
    return out


def distinct_nodes(*exprs: Expr, definitions: bool = False) -> Iterator[Expr]:
    """The nodes of ``exprs`` in the order of :func:`walk`, each object once; with
    ``definitions``, the nodes inside the definition of every defined node (mean, var, …)
    too.

    An expression written out entry by entry (:mod:`lnsym.ir.lowering`) shares its parts;
    walking every occurrence costs the size of the tree, not the number of its nodes. In
    pre-order a repeated object's subtree was walked at its first occurrence, so skipping it
    keeps the order in which nodes are first met.
    """
    seen: dict[int, Expr] = {}  # id → node (kept alive, so that ids stay unique)
    for e in exprs:
        stack = [e]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen[id(node)] = node
            yield node
            if definitions and isinstance(node, Defined):
                stack.append(node.definition())
            stack.extend(reversed(node.children()))


def depth(e: Expr) -> int:
    """The number of levels of ``e``'s tree (its fields; definitions not expanded), found
    without recursion: Python's own stack would overflow on a deep tree before this did."""
    levels: dict[int, int] = {}
    stack: list[tuple[Expr, bool]] = [(e, False)]
    keep: list[Expr] = []  # alive while ids are keys
    while stack:
        node, done = stack.pop()
        if id(node) in levels:
            continue
        children = node.children()
        if done:
            levels[id(node)] = 1 + max((levels[id(c)] for c in children), default=0)
            keep.append(node)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in levels)
    return levels[id(e)]


def vector_atoms(e: Expr) -> set[str]:
    """Names of the vector atoms that occur in ``e``."""
    return {n.name for n in walk(e) if isinstance(n, VectorAtom)}
