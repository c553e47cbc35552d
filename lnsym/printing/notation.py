r"""Notation shared by the printers: names of defined nodes and the report's abbreviations.

- :data:`LATEX_NAMES` — the LaTeX name of each defined node printed as a function call;
  one entry is all a new normalization needs to be typeset.
- :func:`defined_name` / :func:`latex_name` — the text and LaTeX names of a defined node.
- :data:`ABBREVIATIONS` and the quantities they stand for (q, s, 𝐮, 𝐲, J), with
  :func:`abbreviations_for`, which decides where a short name cannot be confused, and
  :func:`abbreviation` / :func:`root_power` / :func:`is_core_jacobian`, which both printers
  ask where a short name goes.

>>> from lnsym.ir import Mean, vector
>>> defined_name(Mean(vector("z"))), latex_name(Mean(vector("z")))
('mean', '\\mu')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import fields, is_dataclass
from typing import Any

import sympy
from sympy.printing.latex import latex_escape

from lnsym import ir
from lnsym.ir.layers import Core, LayerNorm

# ---------------------------------------------------------------------------------------
# Names of defined nodes

#: The LaTeX name of a defined node (:class:`lnsym.ir.nodes.Defined`) that is typeset as a
#: function call ``name(arg₁, arg₂, …)`` of its children, keyed by the node's ``symbol``.
#:
#: A defined node without an entry is typeset ``\operatorname{symbol}(…)``, so every node
#: prints; an entry gives it its mathematical name. A new normalization, say
#: ``class PowerNorm(Defined, VectorNode)`` with ``symbol = "pn"``, is typeset
#: ``\operatorname{PN}(\mathbf{z}, \varepsilon)`` by adding ``"pn": r"\operatorname{PN}"``
#: here, as weight normalization's ``"wn"`` is. A node that needs another shape
#: (subscripts, delimiters, as for u_ε, LN, RMS_ε, P a and ‖a‖) gets a ``_print_<Class>``
#: method in the printers instead, which takes precedence (for lnsym's own node classes).
#: In text every defined node is written ``symbol(arg₁, arg₂, …)`` unless a method says
#: otherwise.
LATEX_NAMES: dict[str, str] = {
    "mean": r"\mu",  # μ(a), the coordinate mean
    "var": "q",  # q(a), the coordinate variance
    "wn": r"\operatorname{WN}",  # WN(v, g) = g·v/‖v‖, weight normalization
}

#: Symbols that can be set upright as they are with ``\operatorname``.
_OPERATOR_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


def defined_name(e: ir.Defined) -> str:
    """The text name of a defined node: its ``symbol``, else its class name."""
    return e.symbol or type(e).__name__


def latex_name(e: ir.Defined) -> str:
    """The LaTeX name of a defined node: its :data:`LATEX_NAMES` entry, else an operator name.

    >>> from lnsym.ir import Var, vector
    >>> latex_name(Var(vector("z")))
    'q'
    """
    name = defined_name(e)
    if name in LATEX_NAMES:
        return LATEX_NAMES[name]
    if _OPERATOR_NAME.match(name):
        return r"\operatorname{" + name.replace("_", r"\_") + "}"
    return r"\mathtt{\text{" + latex_escape(name) + "}}"


# ---------------------------------------------------------------------------------------
# Abbreviations

#: The abbreviations a report may use, each defined in its notation block.
ABBREVIATIONS = frozenset({"q", "s", "u", "y", "J"})
#: The input atom that the abbreviations refer to, and the parameter atoms of 𝐲.
INPUT, GAIN, BIAS = ir.VectorAtom("z"), ir.VectorAtom("gamma"), ir.VectorAtom("beta")
#: The quantities the abbreviations stand for: ε, q = q(z), q + ε, 𝐮 = u_ε(z),
#: 𝐲 = LN_{γ,β}(z), and the symbol s.
EPS = ir.Const(ir.eps)
Q = ir.Var(INPUT)
Q_PLUS_EPS = ir.ScalarSum((Q, EPS))
U = Core(INPUT, EPS)
Y = LayerNorm(INPUT, GAIN, BIAS, EPS)
S = sympy.Symbol("s", positive=True)


def root_power(e: Any) -> sympy.Expr | None:
    """k for e = (q(z) + ε)^(k/2) with k odd, i.e. e = s^k; None otherwise."""
    if isinstance(e, ir.Power) and e.base == Q_PLUS_EPS:
        k = 2 * e.exponent
        if k.is_Integer and k % 2 == 1:
            return k
    return None


def abbreviation(e: Any, allowed: frozenset[str]) -> str | None:
    """The abbreviation among ``allowed`` that names ``e`` itself: q, u, y or s; else None.

    Both printers write the letter their own way (𝐮 is bold in LaTeX, ``u`` in text).

    >>> from lnsym import vector, core, var, eps, sqrt
    >>> z = vector("z")
    >>> abbreviation(sqrt(var(z) + eps), ABBREVIATIONS), abbreviation(core(z), frozenset("q"))
    ('s', None)
    """
    if e == Q and "q" in allowed:
        return "q"
    if e == U and "u" in allowed:
        return "u"
    if e == Y and "y" in allowed:
        return "y"
    if root_power(e) == 1 and "s" in allowed:
        return "s"
    return None


def is_core_jacobian(e: Any, allowed: frozenset[str]) -> bool:
    """A derivative node (D, vjp, operator norm) of 𝐮 = u_ε(z) in z, written with J."""
    return "J" in allowed and getattr(e, "expr", None) == U and getattr(e, "wrt", None) == INPUT


def is_square_norm(e: Any) -> bool:
    """⟨a, a⟩ is printed ‖a‖², except ⟨𝟏, 𝟏⟩ = d, which derivations refer to as such."""
    return isinstance(e, ir.Dot) and e.left == e.right and not isinstance(e.left, ir.Ones)


def _nodes(objects: Iterable[Any]) -> Iterator[Any]:
    for obj in objects:
        if isinstance(obj, ir.Expr):
            yield from ir.walk(obj)
        elif isinstance(obj, ir.Relation):
            yield from _nodes([obj.lhs, obj.rhs, *getattr(obj, "certificate", ())])
        elif isinstance(obj, ir.Assumption):
            assert is_dataclass(obj), obj  # every assumption is a dataclass of its atoms
            yield from _nodes(getattr(obj, f.name) for f in fields(obj))


def abbreviations_for(*objects: Any) -> frozenset[str]:
    """The abbreviations that may be used consistently across all of ``objects``.

    q, 𝐮 and 𝐲 stand for q(z), u_ε(z) and LN_{γ,β}(z) only when every variance, core and
    layer in the objects is exactly that one — so u_ε(z + c𝟏) = u_ε(z) is never written
    u_ε(z + c𝟏) = 𝐮. s and J name a single fixed quantity and are always allowed.

    Args:
        objects: IR expressions, relations and assumptions that are printed together
            (e.g. every line of a derivation).

    Returns:
        A subset of :data:`ABBREVIATIONS`.

    >>> from lnsym import vector, core, var, ones, scalar, Eq
    >>> z, c = vector("z"), scalar("c")
    >>> sorted(abbreviations_for(Eq(var(core(z)), var(z))))
    ['J', 's', 'u', 'y']
    >>> sorted(abbreviations_for(Eq(core(z + c * ones), core(z))))
    ['J', 'q', 's', 'y']
    """
    allowed = set(ABBREVIATIONS)
    for node in _nodes(objects):
        if isinstance(node, ir.Var) and node != Q:
            allowed.discard("q")
        elif isinstance(node, Core) and node != U:
            allowed.discard("u")
        elif isinstance(node, LayerNorm) and node != Y:
            allowed.discard("y")
    return frozenset(allowed)
