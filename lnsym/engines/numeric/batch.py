"""The interpreter behind :mod:`lnsym.engines.numeric.engine`: the IR evaluated on a batch of
points, each value with a running bound on its rounding error.

**Batches.** Every value carries a sample axis: a vector has shape (S, d), a scalar (S,),
for S points of the same dimension, so the cost of interpreting the IR is paid once per
batch, not once per point. Where a sample is undefined (1/0, the root of a negative) or
indeterminate in this precision it is flagged in a per-sample :class:`Status` and its values
become NaN or junk; the rest of the batch goes on. Every choice that depends on the values
(complex-step size, Ridders' steps and stopping) is made per sample, and every sum runs over
the last axis of a C-ordered array, so a sample's result does not depend on its batch (the
tests compare it with the point evaluated alone, bit for bit).

Mean, centering and variance are evaluated directly and in two passes (subtract the mean,
then average the squares); that is what keeps shift invariance true to ~1e-8 at offsets of
1e8, where E[z²] − E[z]² would cancel every digit.

The :class:`Evaluator` here dispatches on the IR's nodes; its parts live beside it:

- :mod:`~lnsym.engines.numeric.environment` — points, the batch's values, per-sample status;
- :mod:`~lnsym.engines.numeric.rounding` — arithmetic with running error bounds (the rules);
- :mod:`~lnsym.engines.numeric.constants` — SymPy constants in the sampled scalars;
- :mod:`~lnsym.engines.numeric.derivatives` — jvp, Jacobians, gradients, derivatives with
  respect to a scalar (reverse mode, forward mode, complex step, Ridders' central
  differences);
- :mod:`~lnsym.engines.numeric.adjoint` — the adjoint expressions of reverse mode;
- :mod:`~lnsym.engines.numeric.dual` — dual numbers, the values of forward mode;
- :mod:`~lnsym.engines.numeric.norms` — operator norms by Lanczos;
- :mod:`~lnsym.engines.numeric.forms` and :mod:`~lnsym.engines.numeric.arrays` — facts read
  off an expression's form, and array helpers.

**Errors along 1.** Of the correlations between rounding errors one is kept, the one layer
normalization lives on: the part of a vector's bound that is an error along 1 (the rounding
of a mean, ~u·1e8 at offsets of 1e8) is tracked here, so that centering removes it and the
variance sees it only squared.

The core at a point offset by 1e8: each coordinate is known to ~2e-8, the rounding of the
mean (two additions of numbers near 1e8), an error along 1:

>>> from lnsym import vector, core, eps
>>> z = vector("z")
>>> point = SamplePoint(3, {"z": np.array([1.0, 2.0, 4.0]) + 1e8}, {eps: 1 / 3})
>>> value, bound = Evaluator(Env.of([point], track=True), Status(1)).get(core(z))
>>> value.round(5)
array([[-0.97014, -0.24254,  1.21268]])
>>> [f"{b:.0e}" for b in bound[0]]
['2e-08', '2e-08', '2e-08']
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from lnsym import ir
from lnsym.engines.numeric.arrays import (
    as_column,
    as_row,
    bound_sum,
    bound_times,
    first_coordinate,
    is_exact,
    jet_product,
    mag,
    mag_mul,
    per_sample,
)
from lnsym.engines.numeric.constants import Constants
from lnsym.engines.numeric.derivatives import Derivatives
from lnsym.engines.numeric.environment import Env as Env
from lnsym.engines.numeric.environment import Flag, Pair
from lnsym.engines.numeric.environment import SamplePoint as SamplePoint
from lnsym.engines.numeric.environment import Status as Status
from lnsym.engines.numeric.forms import is_centered, is_nonnegative, is_uniform
from lnsym.engines.numeric.norms import operator_norm
from lnsym.engines.numeric.norms import top_eigenvalue as _top_eigenvalue  # noqa: F401
from lnsym.engines.numeric.rounding import BoundedArithmetic
from lnsym.errors import DomainError, UnsupportedError
from lnsym.ir.calculus import Diff, Grad, Jvp, OperatorNorm, Vjp


class Evaluator(BoundedArithmetic, Constants, Derivatives):
    """Evaluates IR nodes in one environment, memoizing each node's value and error bound.

    The rules for arithmetic, constants and derivatives come from its bases (one module
    each, see the module docstring); here are the nodes and the errors along 1.

    Failures at a sample are flagged in ``status`` (shared with the evaluators it creates
    for substitutions and derivatives), never raised; a malformed question (a missing
    value, an unsupported node) raises.
    """

    def __init__(self, env: Env, status: Status) -> None:
        self.env = env
        self.status = status
        self.u = float(np.finfo(env.real).eps) / 2  # the unit roundoff
        #: Node → its value and the status flags its evaluation raised (replayed on reuse).
        self.cache: dict[ir.Expr, tuple[Pair, tuple[Flag, ...]]] = {}
        #: id → (node, its entry in ``cache``): the node stays alive, so that its id stays its own.
        self.by_id: dict[int, tuple[ir.Expr, tuple[Pair, tuple[Flag, ...]]]] = {}
        #: Vector node → the part of its error bound that is an error along 1 (per sample).
        self.shared: dict[ir.Expr, Any] = {}
        self.mags: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        #: Expression → the derivatives in all its scalars at once, or None (see
        #: :meth:`~lnsym.engines.numeric.derivatives.Derivatives._scalar_tangents`).
        self.scalar_tangents: dict[ir.Expr, Any] = {}
        #: Bytes of the arrays held in ``cache`` and ``mags`` (an evaluator kept between
        #: statements is dropped when it holds too much, see
        #: :mod:`~lnsym.engines.numeric.comparison`).
        self.nbytes = 0

    def get(self, e: ir.Expr) -> Pair:
        # By identity first: the IR's hash walks a node's whole subtree, and an expression
        # written out entry by entry asks for the same objects many times.
        seen = self.by_id.get(id(e))
        found = seen[1] if seen is not None else self.cache.get(e)
        if found is not None:
            # Known already (in this statement or, for a kept evaluator, an earlier one):
            # the flags its evaluation raised go to the status of the statement now asking.
            if found[1]:
                self.status.replay(found[1])
        else:
            start = len(self.status.log)
            pair = self._eval(e)
            found = self.cache[e] = (pair, tuple(self.status.log[start:]))
            for x in pair:
                if isinstance(x, np.ndarray):
                    x.flags.writeable = False  # shared by every statement that uses e
                    self.nbytes += x.nbytes
            vector = e.kind == "vector"  # (no scalar is a multiple of 1)
            if self.env.track and vector and not is_exact(pair[1]) and is_uniform(e):
                # Every coordinate of c·1 is the same computation: so is its error.
                self.shared[e] = pair[1][..., 0]
        if seen is None:
            self.by_id[id(e)] = (e, found)
        return found[0]

    def value(self, e: ir.Expr) -> np.ndarray:
        return self.get(e)[0]

    def _child(self, env: Env, status: Status | None = None) -> Evaluator:
        return Evaluator(env, self.status if status is None else status)

    def _flag(self, bad: Any, axis: int, code: int, what: str) -> None:
        """Flag the samples where ``bad`` (over a value with its sample axis ``axis`` from
        the end) holds anywhere."""
        if np.any(bad):
            self.status.flag(per_sample(bad, self.env.n, axis, np.any), code, what)

    def _eval(self, e: ir.Expr) -> Pair:
        env = self.env
        match e:
            case ir.VectorAtom(name=name):
                if name not in env.vectors:
                    raise DomainError(f"no value given for the vector {name}")
                return env.vectors[name]
            case ir.Ones():
                return np.ones(env.d, env.real), 0.0
            case ir.Const(value=v):
                return self._const(v)
            case ir.VectorSum(terms=terms) | ir.ScalarSum(terms=terms):
                pair = self._add([self.get(t) for t in terms])
                if self.shared:  # (each lookup hashes a term's whole subtree)
                    self._share(e, *(self.shared.get(t) for t in terms))
                return pair
            case ir.Scaled(coefficient=c, vector=v):
                a, ba = self.get(c)
                pair = self._mul((a[..., None], as_column(ba)), self.get(v))
                if v in self.shared:  # a shared error along 1 stays along 1
                    self._share(e, mag_mul(bound_sum(mag(a), ba), self.shared[v]))
                return pair
            case ir.Hadamard(left=left, right=right):
                pair = self._mul(self.get(left), self.get(right))
                for uniform, other in ((left, right), (right, left)):
                    if other in self.shared and is_uniform(uniform):  # (a·1) ⊙ σ1 = aσ·1
                        x, bx = self.get(uniform)
                        size = bound_sum(mag(x[..., 0]), first_coordinate(bx))
                        self._share(e, mag_mul(size, self.shared[other]))
                        break
                return pair
            case ir.ScalarProduct(factors=factors):
                return reduce(self._mul, [self.get(f) for f in factors])
            case ir.Dot(left=left, right=right):
                return self._dot(left, right)
            case ir.Power(base=base, exponent=n):
                return self._power(self.get(base), n, is_nonnegative(base))
            # Mean, centering and variance directly, the variance in two passes (see the
            # module docstring); the other defined nodes (core, layer, norm) build on them.
            case ir.Mean(arg=arg):
                return self._mean(self.get(arg))
            case ir.Center(arg=arg):
                return self._center(arg)
            case ir.Var(arg=arg):
                total, bound = self._dot(ir.Center(arg), ir.Center(arg))
                return self._divide(total / env.d, bound)
            case ir.Defined():
                pair = self.get(e.definition())
                self._share(e, self.shared.get(e.definition()))
                return pair
            case ir.Substitution(target=ir.VectorAtom(name=name), value=v):
                return self._inside(e, env.with_vector(name, self.get(v)))
            case ir.Substitution(target=ir.Const(value=sym), value=v):
                return self._inside(e, env.with_scalar(sym, self.get(v)))
            case Jvp(expr=f, wrt=wrt, direction=h):
                return self.directional(f, wrt, self.get(h))
            case Diff(expr=f, wrt=ir.Const(value=sym)):
                return self.scalar_derivative(f, sym)
            case Grad(expr=f, wrt=wrt):
                pulled = self.pulled_back(f, wrt)
                return pulled if pulled is not None else self.jacobian(f, wrt)
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                pulled = self.pulled_back(f, wrt, g)
                if pulled is not None:
                    return pulled
                # Jᵀg with g held fixed at the point (g may itself depend on wrt); the sum
                # runs over the last axis, like every other sum (see the module docstring).
                transposed, (cot, bcot) = self.jacobian(f, wrt, transposed=True), self.get(g)
                return self._sum(self._mul(transposed, (cot[..., None, :], as_row(bcot))))
            case OperatorNorm(expr=f, wrt=wrt):
                return operator_norm(*self.jacobian(f, wrt), self.u, self.env.track)
        raise UnsupportedError(f"the numeric engine cannot interpret {type(e).__name__}")

    def _inside(self, e: ir.Substitution, env: Env) -> Pair:
        child = self._child(env)
        pair = child.get(e.expr)
        self._share(e, child.shared.get(e.expr))
        return pair

    # -- errors along 1: what centering removes -------------------------------------------
    def _share(self, e: ir.Expr, *parts: Any) -> None:
        """Record that ``parts`` (summed) of the bound of ``e`` is an error along 1."""
        present = [p for p in parts if p is not None]
        if present and self.env.track:
            self.shared[e] = bound_sum(*present)

    def _center(self, arg: ir.Expr) -> Pair:
        """x − mean(x)·1. An error σ·1 of x cancels; the mean's own error (its bound less
        σ's) becomes an error along 1 of the result."""
        (x, bx), (m, bm) = self.get(arg), self.get(ir.Mean(arg))
        out = x - m[..., None]
        if not self.env.track or self.env.d == 1:  # P = 0, and x − x/1 is exactly 0
            return out, 0.0
        shared = bound_sum(bm, bound_times(-1, self.shared.get(arg, 0.0)))
        own = bound_sum(bx, bound_times(-1, as_column(self.shared.get(arg, 0.0))))
        self._share(ir.Center(arg), shared)
        return out, bound_sum(own, as_column(shared), self.u * mag(out))

    def _dot(self, left: ir.Expr, right: ir.Expr) -> Pair:
        """Σ aᵢbᵢ, without conjugation (the complex step needs the analytic product).

        For computed â = a + σ·1 + e and b̂ = b + τ·1 + f, the error is τ·Σa + ⟨a, f⟩ +
        σ·Σb + ⟨e, b⟩ + ⟨σ·1 + e, τ·1 + f⟩: where a is centered by its form, Σa = 0 and τ
        drops out of the first-order terms (and σ where b is)."""
        (a, ba), (b, bb) = self.get(left), self.get(right)
        own_a = self._own(right, left, ba)
        own_b = own_a if left == right else self._own(left, right, bb)
        if own_a is ba and own_b is bb:
            return self._sum(self._mul((a, ba), (b, bb)))
        out = jet_product(a, b)
        rounding = (2 if np.iscomplexobj(out) else 1) * self.u * mag_mul(self._mag(a), self._mag(b))
        first = mag_mul(bound_sum(self._mag(a), ba), own_b)
        second = first if left == right else mag_mul(bound_sum(self._mag(b), bb), own_a)
        return self._sum((out, bound_sum(rounding, first, second, mag_mul(ba, bb))))

    def _own(self, other: ir.Expr, e: ir.Expr, bound: Any) -> Any:
        """The bound of ``e`` less its error along 1, when ``other`` is centered by its
        form (so that ⟨other, 1⟩ = 0 removes that error); else the whole bound."""
        shared = self.shared.get(e)
        if shared is None or not is_centered(other):
            return bound
        return bound_sum(bound, bound_times(-1, as_column(shared)))
