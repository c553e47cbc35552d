"""A new normalization is one class: a toy RMS layer, defined here and nowhere in lnsym/.

It subclasses :class:`lnsym.ir.layers.Normalization` (fields, ``symbol``, ``statistic()``,
``definition()``) and gets one LaTeX notation entry; with nothing else, the general engine
proves its identities, the concrete engine takes its fast path (exact points at which the
layer's root is rational, the symbolic reduction with s² = t + ε), and the printers show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
import sympy

from lnsym import (
    Claim,
    Eq,
    check,
    d,
    dot,
    eps,
    hadamard,
    ir,
    jvp,
    latex,
    mean,
    ones,
    scalar,
    text,
    vector,
)
from lnsym.engines.concrete import engine as concrete
from lnsym.engines.concrete.problem import _Problem
from lnsym.ir.layers import Normalization
from lnsym.printing.notation import LATEX_NAMES


@dataclass(frozen=True, slots=True, repr=False)
class RMSCore(Normalization):
    """a / √(mean(a ⊙ a) + ε): RMS normalization without a gain."""

    arg: ir.Expr
    eps: ir.Expr
    symbol: ClassVar[str] = "rms"

    def statistic(self) -> ir.Expr:
        return mean(hadamard(self.arg, self.arg))

    def definition(self) -> ir.Expr:
        return ir.Scaled(ir.Power(self.radicand(), sympy.Rational(-1, 2)), self.arg)


def rms(a: Any, stabilizer: Any = eps) -> ir.Expr:
    return RMSCore(ir.as_vector(a), ir.as_scalar(stabilizer))


z, h = vector("z"), vector("h")
c = scalar("c", positive=True)
m = mean(hadamard(z, z))


@pytest.mark.parametrize(
    "claim",
    [
        Claim("rms.norm", Eq(dot(rms(z), rms(z)), d * m / (m + eps))),
        Claim("rms.along_input", Eq(jvp(rms(z), z, z), eps / (m + eps) * rms(z))),
    ],
    ids=lambda claim: claim.id,
)
def test_identities_of_a_new_layer_are_proved_with_every_engine_agreeing(claim):
    result = check(claim)
    assert result.verdict == "PROVED"
    general, validation, concrete_evidence, numeric = result.evidence
    assert general.outcome == "proved"
    assert validation.outcome == "holds"
    # The fast path: the layer's root made rational, reduced symbolically at d = 1..8.
    assert concrete_evidence.outcome == "holds"
    assert "symbolic reduction with s² = t + ε" in concrete_evidence.detail
    assert numeric.outcome == "consistent"


def test_the_concrete_engine_finds_the_new_layers_statistic():
    problem = _Problem.of(rms(z), rms(z + h), "eq", ())
    assert problem.principal == m
    # A statistic that is not rational at rational points (a root inside) gets no fast path.
    assert _Problem.of(rms(ir.norm(z) * z), rms(ir.norm(z) * h), "eq", ()).principal is None
    mixed = _Problem.of(rms(ir.norm(z) * z), rms(z), "eq", ())
    assert mixed.principal == m  # the first layer with a rational statistic
    # An irrational constant makes the statistic irrational at rational points: no fast
    # path, and the exact points still decide (before, an assertion failed at d = 16).
    irrational = rms(z + sympy.sqrt(2) * h)
    assert _Problem.of(irrational, 2 * irrational, "eq", ()).principal is None
    claim = Claim("rms.irrational", Eq(mean(hadamard(irrational, irrational)), m / (m + eps)))
    assert concrete.check_dimension(claim, 16).status == "counterexample"


def test_a_false_claim_about_the_new_layer_is_refuted_exactly():
    result = check(Claim("rms.shift", Eq(rms(z + c * ones), rms(z)), expect="refuted"))
    assert result.verdict == "REFUTED"
    concrete_evidence = next(e for e in result.evidence if e.engine == "concrete")
    assert concrete_evidence.outcome == "counterexample"
    assert result.counterexample is not None and result.counterexample.d >= 1


def test_scale_invariance_without_stabilizer():
    assert check(Claim("rms.scale", Eq(rms(c * z, 0), rms(z, 0)))).verdict == "PROVED"


def test_the_new_layer_prints_by_fallback_and_by_its_notation_entry(monkeypatch):
    assert text(rms(z)) == "rms(z, ε)"
    assert latex(rms(z)) == r"\operatorname{rms}(\mathbf{z}, \varepsilon)"
    monkeypatch.setitem(LATEX_NAMES, "rms", r"\operatorname{RMS}")
    assert latex(rms(z)) == r"\operatorname{RMS}(\mathbf{z}, \varepsilon)"
    assert latex(jvp(rms(z), z, h)).startswith(r"D_{\mathbf{z}}[\operatorname{RMS}(")


def test_concrete_evidence_of_the_new_layer_is_deterministic():
    claim = Claim("rms.norm", Eq(dot(rms(z), rms(z)), d * m / (m + eps)))
    first, second = concrete.evidence(claim, max_d=4), concrete.evidence(claim, max_d=4)
    assert first.detail == second.detail and first.outcome == "holds"
