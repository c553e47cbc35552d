"""Formulas for reports and notebooks, assembled from the LaTeX printer.

- :func:`latex_value` — an exact value from evidence (number, vector, IR node) as LaTeX.
- :func:`latex_chain` — a derivation e₀ = e₁ ≤ e₂ … as a numbered ``aligned`` block.
- :func:`latex_certificate` — the terms of an inequality certificate, one formula each.
- :func:`notation` — the report's notation block, defining every abbreviation.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import sympy

from lnsym import ir
from lnsym.ir.calculus import Jvp, Vjp
from lnsym.printing.latex_printer import LatexPrinter, latex
from lnsym.printing.notation import ABBREVIATIONS, INPUT, Q_PLUS_EPS, Q, U, Y


def latex_value(value: Any) -> str:
    """LaTeX for an exact value found in evidence: a number, a vector of numbers, an IR node.

    Args:
        value: an int, Fraction, SymPy expression, IR node, or a list/tuple of these.

    Returns:
        A math-mode body; a list becomes a parenthesized tuple.

    Raises:
        TypeError: for floats (inexact) and other types, which callers show as text.

    >>> from fractions import Fraction
    >>> print(latex_value([1, Fraction(-2, 3)]))
    \\left( 1, - \\frac{2}{3} \\right)
    """
    if isinstance(value, bool):
        raise TypeError("booleans are text")
    if isinstance(value, list | tuple):
        return LatexPrinter._wrap(", ".join(latex_value(v) for v in value), "(", ")")
    if isinstance(value, int):
        return latex(sympy.Integer(value))
    if isinstance(value, Fraction):
        return latex(sympy.Rational(value.numerator, value.denominator))
    if isinstance(value, sympy.Basic | ir.Expr | ir.Relation):
        return latex(value)
    raise TypeError(f"no exact LaTeX form for {type(value).__name__}")


def latex_chain(
    start: Any, steps: Iterable[tuple[str, Any]], abbreviations: Iterable[str] = ()
) -> str:
    """A derivation start = e₁ ≤ e₂ … as an ``aligned`` block, each relation numbered.

    Args:
        start: the first expression.
        steps: ``(relation, expression)`` pairs, the relation ``"="`` or ``"≤"``.
        abbreviations: as for :func:`latex`.

    Raises:
        ValueError: for another relation.

    >>> from lnsym import vector, mean, ones, dot, d
    >>> z = vector("z")
    >>> print(latex_chain(mean(z), [("=", dot(ones, z) / d)]))
    \\begin{aligned}
    \\mu(\\mathbf{z}) &\\overset{(1)}{=} \\frac{\\langle \\mathbf{1}, \\mathbf{z} \\rangle}{d}
    \\end{aligned}
    """
    relations = {"=": "=", "≤": r"\le", "<=": r"\le"}
    lines = []
    for i, (relation, e) in enumerate(steps, 1):
        if relation not in relations:
            raise ValueError(f"unknown relation {relation!r}")
        lhs = latex(start, abbreviations) + " " if i == 1 else ""
        lines.append(f"{lhs}&\\overset{{({i})}}{{{relations[relation]}}} {latex(e, abbreviations)}")
    # a little air between lines: fractions in consecutive lines would touch
    return "\\begin{aligned}\n" + " \\\\[0.5ex]\n".join(lines) + "\n\\end{aligned}"


def notation() -> list[tuple[str, str]]:
    """The notation block of a report: (LaTeX formula, plain-text explanation) pairs.

    Each formula defines one abbreviation of :data:`~lnsym.printing.notation.ABBREVIATIONS`
    (or a name the others use) in terms of the full IR, printed by the LaTeX printer, so the
    block and the report can never disagree.

    >>> print(notation()[4][0])
    s = \\sqrt{q + \\varepsilon}
    """
    z, h, g = INPUT, ir.VectorAtom("h"), ir.VectorAtom("g")
    every = ABBREVIATIONS
    s = ir.Power(Q_PLUS_EPS, sympy.Rational(1, 2))
    return [
        (
            r"\mathbf{z} \in \mathbb{R}^{d}, \quad d \ge 1, \quad \varepsilon > 0",
            "the input, its dimension and the stabilizer; bold letters are vectors",
        ),
        (
            latex(ir.Eq(ir.Mean(z), ir.dot(ir.ones, z) / ir.d)),
            "the mean of the d coordinates of z; 𝟏 is the all-ones vector and ⊙ the "
            "coordinatewise (Hadamard) product",
        ),
        (
            r"P = I - \frac{1}{d} \mathbf{1} \mathbf{1}^{\mathsf{T}}, \quad "
            + latex(ir.Eq(ir.Center(z), z - ir.Mean(z) * ir.ones)),
            "centering: the orthogonal projection onto the vectors with mean zero",
        ),
        (
            latex(Q, every) + " = " + latex(ir.Eq(Q, ir.Norm(ir.Center(z)) ** 2 / ir.d)),
            "the variance of the coordinates (divisor d)",
        ),
        (
            latex(s, every) + " = " + latex(s, {"q"}),
            "the stabilized standard deviation, with the stabilizer ε > 0",
        ),
        (
            latex(U, every) + " = " + latex(U) + " = " + latex(U.definition(), {"s"}),
            "the normalized core",
        ),
        (
            latex(Y, every) + " = " + latex(Y) + " = " + latex(Y.definition(), {"u"}),
            "the layer output with gain γ and bias β",
        ),
        (
            latex(Jvp(U, z, h), every) + " = " + latex(Jvp(U, z, h)),
            "J is the Jacobian of the core at z; the right side is the derivative of the "
            "core at z along h, d/dt u(z + t·h) at t = 0",
        ),
        (
            latex(Vjp(U, z, g), every) + " = " + latex(Vjp(U, z, g)),
            "the gradient with respect to z of the scalar ⟨g, u⟩: the upstream gradient g "
            "propagated back through the core",
        ),
    ]


def latex_certificate(terms: Iterable[Any], abbreviations: Iterable[str] = ()) -> list[str]:
    """The terms t₁, t₂, … of an inequality certificate as ``t_{k} = …`` formulas.

    >>> from lnsym import vector, norm, eps
    >>> latex_certificate([norm(vector("h")) ** 2 / eps])
    ['t_{1} = \\\\frac{\\\\lVert \\\\mathbf{h} \\\\rVert^{2}}{\\\\varepsilon}']
    """
    return [f"t_{{{k}}} = {latex(t, abbreviations)}" for k, t in enumerate(terms, 1)]
