"""The language: immutable vector and scalar expressions, relations and assumptions.

- :mod:`~lnsym.ir.names` — d, ε, user scalars, and the checks every constant passes.
- :mod:`~lnsym.ir.nodes` — the nodes, their constructors (vector, dot, mean, var, …) and
  operators; the base class, the primitive nodes, coercion and the operators are defined in
  :mod:`~lnsym.ir.primitives` and re-exported by ``nodes``.
- :mod:`~lnsym.ir.relations` — Eq and Le (with a certificate).
- :mod:`~lnsym.ir.assumptions` — centered, orthogonal, nonconstant, dimension.
- :mod:`~lnsym.ir.calculus` — jvp, vjp, grad, diff (w.r.t. a scalar) and the operator norm.
- :mod:`~lnsym.ir.layers` — the normalizations (the :class:`~lnsym.ir.layers.Normalization`
  protocol, core, layer_norm).
- :mod:`~lnsym.ir.signs` — the sign rules (part of the trusted kernel, docs/trust.md).
- :mod:`~lnsym.ir.kinks` — no derivative through a kink (|x|, max, a Piecewise, …): the
  check the checker and ``derive`` run first (trusted kernel too).
- :mod:`~lnsym.ir.sealing` — lnsym's own types cannot be subclassed (sealed at the end of
  this file's import, once every node type is built).

This package re-exports the names of the first four modules, so that the rest of lnsym
writes ``from lnsym import ir`` and ``ir.Eq``, ``ir.Var``. Modules inside this package
import each other by module, never through this file.
"""

from __future__ import annotations

from lnsym.ir import batch_layers as _batch_layers
from lnsym.ir import calculus as _calculus  # noqa: F401 — its node types, sealed below
from lnsym.ir import layers as _layers
from lnsym.ir import matrices as _matrices
from lnsym.ir.assumptions import Assumption as Assumption
from lnsym.ir.assumptions import Centered as Centered
from lnsym.ir.assumptions import FixedDimension as FixedDimension
from lnsym.ir.assumptions import MinDimension as MinDimension
from lnsym.ir.assumptions import Nonconstant as Nonconstant
from lnsym.ir.assumptions import Orthogonal as Orthogonal
from lnsym.ir.assumptions import admits as admits
from lnsym.ir.assumptions import centered as centered
from lnsym.ir.assumptions import dimension as dimension
from lnsym.ir.assumptions import dimension_at_least as dimension_at_least
from lnsym.ir.assumptions import dimensions as dimensions
from lnsym.ir.assumptions import nonconstant as nonconstant
from lnsym.ir.assumptions import orthogonal as orthogonal
from lnsym.ir.names import d as d
from lnsym.ir.names import eps as eps
from lnsym.ir.names import free_symbols as free_symbols
from lnsym.ir.names import scalar as scalar
from lnsym.ir.nodes import PRINTERS as PRINTERS
from lnsym.ir.nodes import Center as Center
from lnsym.ir.nodes import Const as Const
from lnsym.ir.nodes import Defined as Defined
from lnsym.ir.nodes import Dot as Dot
from lnsym.ir.nodes import Expr as Expr
from lnsym.ir.nodes import Hadamard as Hadamard
from lnsym.ir.nodes import Mean as Mean
from lnsym.ir.nodes import Norm as Norm
from lnsym.ir.nodes import Ones as Ones
from lnsym.ir.nodes import Power as Power
from lnsym.ir.nodes import ScalarNode as ScalarNode
from lnsym.ir.nodes import ScalarProduct as ScalarProduct
from lnsym.ir.nodes import ScalarSum as ScalarSum
from lnsym.ir.nodes import Scaled as Scaled
from lnsym.ir.nodes import Substitution as Substitution
from lnsym.ir.nodes import Var as Var
from lnsym.ir.nodes import VectorAtom as VectorAtom
from lnsym.ir.nodes import VectorNode as VectorNode
from lnsym.ir.nodes import VectorSum as VectorSum
from lnsym.ir.nodes import add as add
from lnsym.ir.nodes import as_scalar as as_scalar
from lnsym.ir.nodes import as_vector as as_vector
from lnsym.ir.nodes import center as center
from lnsym.ir.nodes import distinct_nodes as distinct_nodes
from lnsym.ir.nodes import dot as dot
from lnsym.ir.nodes import hadamard as hadamard
from lnsym.ir.nodes import mean as mean
from lnsym.ir.nodes import multiply as multiply
from lnsym.ir.nodes import negate as negate
from lnsym.ir.nodes import norm as norm
from lnsym.ir.nodes import ones as ones
from lnsym.ir.nodes import power as power
from lnsym.ir.nodes import shown as shown
from lnsym.ir.nodes import sqrt as sqrt
from lnsym.ir.nodes import substitution as substitution
from lnsym.ir.nodes import var as var
from lnsym.ir.nodes import vector as vector
from lnsym.ir.nodes import vector_atoms as vector_atoms
from lnsym.ir.nodes import walk as walk
from lnsym.ir.relations import Eq as Eq
from lnsym.ir.relations import Le as Le
from lnsym.ir.relations import Relation as Relation
from lnsym.ir.sealing import seal as _seal
from lnsym.ir.signs import admissible as admissible  # installs the check of substitutions

# Every node type of lnsym is built by now: seal them (lnsym.ir.sealing says why).
_seal(
    roots=(Expr, Relation, Assumption),
    extension_points=(
        Expr,
        VectorNode,
        ScalarNode,
        _matrices.MatrixNode,
        Defined,
        _layers.Normalization,
        _batch_layers.MatrixNormalization,
        Relation,
        Assumption,
    ),
)
