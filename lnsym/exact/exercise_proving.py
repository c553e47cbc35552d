r"""Derivations and statements of the exercises, checked by lnsym's engines before printing.

A derivation or proof exercise writes its answer as a chain ``e₀ = e₁ = … (≤ …)`` of IR
expressions, each link with a justification (:class:`Link`); a concept exercise states
claims that hold or fail. :func:`check_chain` and :func:`check_statement` run the engines
(general d, exact d = 1..3, numeric samples) through :mod:`lnsym.checking.checker` and
refuse — :class:`~lnsym.errors.CrossCheckError` — a link that is not PROVED or a statement
whose verdict is not the expected one. The key prints each link through the LaTeX printer,
so what the student reads is exactly what was proved.

The claims do not depend on an exercise's numbers, so one checker serves every sheet of the
process and checks each link once.

>>> from lnsym import vector, mean, ones, scalar, dot, d
>>> z, c = vector("z"), scalar("c")
>>> lines, verdicts = check_chain("x.mean_shift", mean(z + c * ones), [
...     Link(dot(ones, z + c * ones) / d, r"\text{definition}"),
...     Link(mean(z) + c, r"\langle @1, @1 \rangle = d"),
... ])
>>> verdicts
{'x.mean_shift#1': 'PROVED', 'x.mean_shift#2': 'PROVED'}
>>> lines[1]
('', '\\mu(\\mathbf{z}) + c', '\\langle @1, @1 \\rangle = d', '=')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lnsym import ir
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim, Result
from lnsym.checking.proof import Derivation, Step
from lnsym.checking.verdicts import Verdict
from lnsym.errors import CrossCheckError
from lnsym.printing.printer import latex

#: Exact checks up to d = 3 and 20 numeric samples: the proof is the general engine's; the
#: other two engines only corroborate it, and a sheet must stay quick to draw.
_CHECKER = Checker(Options(timeout=60.0, max_d=3, samples=20, seed=0))

#: A worked line (lhs, rhs, why, relation): LaTeX with @-names (lnsym.exact.exercise_writing).
Line = tuple[str, str, str, str]


@dataclass(frozen=True)
class Link:
    """One link of a chain: the next expression, why it follows (LaTeX with @-names), and
    ``≤`` with its certificate (as in :class:`~lnsym.ir.nodes.Le`) for an inequality."""

    expr: Any
    why: str
    relation: str = "="
    certificate: tuple[Any, ...] = ()


def check_chain(
    chain_id: str,
    start: ir.Expr,
    links: Sequence[Link],
    assumptions: Sequence[ir.Assumption] = (),
) -> tuple[list[Line], dict[str, str]]:
    """Check every link of a chain with the engines and write it as worked lines.

    Returns:
        The lines (the first with ``start`` as its lhs) and each link's verdict by claim id.

    Raises:
        CrossCheckError: when a link is not PROVED.
    """
    steps = tuple(Step(link.expr, chain_id, link.relation, link.certificate) for link in links)
    derivation = Derivation(chain_id, chain_id, start, steps, tuple(assumptions))
    result = _CHECKER.check_derivation(derivation)
    verdicts: dict[str, str] = {}
    for k, step_result in enumerate(result.steps, 1):
        if step_result.verdict != Verdict.PROVED:
            raise CrossCheckError(
                f"{chain_id}, link {k}: the engines give {step_result.verdict}, not PROVED "
                f"({step_result.reason})"
            )
        verdicts[f"{chain_id}#{k}"] = step_result.verdict.value
    lines: list[Line] = []
    for k, (link, step) in enumerate(zip(links, derivation.steps, strict=True)):
        relation = r"\le" if link.relation == "≤" else "="
        lhs = latex(start) if k == 0 else ""
        lines.append((lhs, latex(step.expr), link.why, relation))
    return lines, verdicts


def check_statement(claim: Claim) -> Result:
    """Check a statement of a concept exercise: PROVED when it holds, REFUTED when not.

    Raises:
        CrossCheckError: when the verdict is not the one the claim expects.
    """
    result = _CHECKER.check(claim)
    wanted = Verdict.REFUTED if claim.expect == "refuted" else Verdict.PROVED
    if result.verdict != wanted:
        raise CrossCheckError(
            f"{claim.id}: the engines give {result.verdict}, not {wanted} ({result.reason})"
        )
    return result
