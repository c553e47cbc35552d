"""Rich display in Jupyter: claims, derivations and results as Markdown with typeset math.

IPython calls ``_repr_markdown_`` / ``_repr_latex_`` on the objects; those methods delegate
here, so the core modules need not import the printers at start-up.

>>> from lnsym import Claim, Eq, core, ones, scalar, vector
>>> z, c = vector("z"), scalar("c")
>>> print(claim_markdown(Claim("mine.shift", Eq(core(z + c * ones), core(z)), title="Shift")))
**`mine.shift`** — Shift
<BLANKLINE>
$$u_{\\varepsilon}(\\mathbf{z} + c \\mathbf{1}) = u_{\\varepsilon}(\\mathbf{z})$$
"""

from __future__ import annotations

from typing import Any

from lnsym.printing.evidence import counterexample_text
from lnsym.printing.formulas import latex_chain
from lnsym.printing.latex_printer import latex


def _heading(item_id: str, title: str) -> str:
    return f"**`{item_id}`**" + (f" — {title}" if title else "")


def claim_markdown(claim: Any) -> str:
    """A claim: id, title, statement and assumptions."""
    lines = [_heading(claim.id, claim.title), "", f"$${latex(claim.statement)}$$"]
    if claim.assumptions:
        lines += ["", "assuming " + ", ".join(f"${latex(a)}$" for a in claim.assumptions)]
    if claim.expect == "refuted":
        lines += ["", "expected to be refuted"]
    return "\n".join(lines)


def result_markdown(result: Any) -> str:
    """A checked claim: the claim, its verdict and every engine's evidence."""
    mark = "passes" if result.passed else "**fails** its expectation"
    lines = [claim_markdown(result.claim), "", f"**{result.verdict}** ({mark})", ""]
    lines += [f"- {e.engine} — {e.outcome}: {e.detail}" for e in result.evidence]
    if result.counterexample is not None:
        lines += ["", f"Counterexample: {counterexample_text(result.counterexample)}"]
    return "\n".join(lines)


def derivation_markdown(derivation: Any) -> str:
    """A derivation: its numbered chain and the justification of every step."""
    chain = latex_chain(derivation.start, [(s.relation, s.expr) for s in derivation.steps])
    lines = [_heading(derivation.id, derivation.title), "", f"$$\n{chain}\n$$", ""]
    lines += [f"{i}. {step.why}" for i, step in enumerate(derivation.steps, 1)]
    return "\n".join(lines)


def derivation_result_markdown(result: Any) -> str:
    """A checked derivation: the chain with each step's verdict."""
    derivation = result.derivation
    chain = latex_chain(derivation.start, [(s.relation, s.expr) for s in derivation.steps])
    lines = [_heading(derivation.id, derivation.title), "", f"$$\n{chain}\n$$", ""]
    lines += [
        f"{i}. {step.why} — **{r.verdict}**"
        for i, (step, r) in enumerate(zip(derivation.steps, result.steps, strict=True), 1)
    ]
    lines += ["", f"**{result.verdict}** ({'passes' if result.passed else '**fails**'})"]
    return "\n".join(lines)
