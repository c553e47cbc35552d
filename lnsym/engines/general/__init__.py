"""The general-d engine: normal forms over power sums, derivatives, and equality for every d.

A vector's normal form is a linear combination Σ c_m·m of Hadamard monomials m of vector
atoms (the ones vector is the empty monomial). A scalar's normal form is a SymPy expression
in d, ε, user scalars, *power-sum symbols* S[m] = Σᵢ Πₐ aᵢ (so ⟨a, b⟩ = S[a·b], S[] = d) and
*root symbols* r standing for √R with the relation r² = R. The dimension d stays a symbol
throughout, so every identity proved here holds for every d.

Derivatives are computed, never looked up: the directional derivative along h is the
derivation that sends an atom z to h, a power sum S[m] to the power sums with one z of m
replaced by h, and a root r to D(R)/(2r) — exactly d/dt at t = 0 of z ↦ z + t·h. A gradient
is read off the linear form in a fresh probe atom.

Equality is decided without ``simplify``: bring the difference to one fraction, reduce the
numerator modulo r² − R for every root, and expand. A zero numerator proves the identity;
a nonzero one is a residual (for independent power sums, i.e. large enough d, the identity
is then false). Power sums are never assumed positive; only squares are nonnegative.

>>> from lnsym import vector, core, jvp, var, eps, Eq
>>> z = vector("z")
>>> engine = GeneralEngine()
>>> engine.decide(Eq(jvp(core(z), z, z), eps / (var(z) + eps) * core(z))).proved
True

The engine is one concept per module, each importing only those listed before it:

- ``symbols`` — power-sum and root symbols (each is what it stands for: no registry);
- ``algebra`` — √, fractions modulo r² = R, the zero test, canonical forms, size limits;
- ``vector_form`` — vector normal forms Σ c_m·m;
- ``derivatives`` — directional derivatives and gradients;
- ``substitution`` — substitutions and assumptions as rewrites of normal forms;
- ``back_to_ir`` — normal forms back to IR expressions;
- ``ir_rewrites`` — the chain rule and symbol values, applied to IR before normalizing;
- ``engine`` — :class:`GeneralEngine` and :class:`Decision`;
- ``evaluation`` — exact values of normal forms (:func:`instantiate`).

This package re-exports what the rest of lnsym uses. To patch a rule, patch the module
that calls it (e.g. ``lnsym.engines.general.derivatives._d_symbol``).
"""

from __future__ import annotations

from lnsym.engines.general.algebra import RESIDUAL_LIMIT as RESIDUAL_LIMIT
from lnsym.engines.general.algebra import ROOT_DEPTH_LIMIT as ROOT_DEPTH_LIMIT
from lnsym.engines.general.algebra import TERM_LIMIT as TERM_LIMIT
from lnsym.engines.general.algebra import canonical, is_zero, root
from lnsym.engines.general.algebra import term_bound as term_bound
from lnsym.engines.general.back_to_ir import to_expr
from lnsym.engines.general.derivatives import PROBE as PROBE
from lnsym.engines.general.derivatives import derivative, gradient
from lnsym.engines.general.engine import Decision, GeneralEngine, Obligation
from lnsym.engines.general.evaluation import instantiate as instantiate
from lnsym.engines.general.ir_rewrites import chain_rule as chain_rule
from lnsym.engines.general.substitution import AtomSubstitution as AtomSubstitution
from lnsym.engines.general.substitution import Hypotheses as Hypotheses
from lnsym.engines.general.substitution import Rewriter as Rewriter
from lnsym.engines.general.substitution import SymbolSubstitution as SymbolSubstitution
from lnsym.engines.general.symbols import Monomial as Monomial
from lnsym.engines.general.symbols import exact_sqrt as exact_sqrt
from lnsym.engines.general.symbols import mentions_vectors, power_sum
from lnsym.engines.general.symbols import radicand_of as radicand_of
from lnsym.engines.general.vector_form import Form as Form
from lnsym.engines.general.vector_form import VectorForm

# The public API, as before the split. The ``X as X`` imports above re-export the former
# module's other names (lnsym.checking, lnsym.exact and the tests import some from here).
__all__ = [
    "GeneralEngine",
    "Decision",
    "Obligation",
    "VectorForm",
    "canonical",
    "derivative",
    "gradient",
    "is_zero",
    "mentions_vectors",
    "power_sum",
    "root",
    "to_expr",
]
