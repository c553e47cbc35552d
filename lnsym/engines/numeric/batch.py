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

**Derivatives** are finite-difference based:

- a first derivative (jvp, vjp, grad, or the Jacobian behind an operator norm) of an
  expression free of other derivatives uses the **complex step** f'(x)·h ≈ Im f(x + iτh)/τ
  with τ·max|h| ≤ 1e-100 (1e-15 in float32), τ a power of 2. It has no subtractive
  cancellation, so any τ this small is exact to machine precision; it needs only that every
  operation be analytic (sums of products, never ``vdot``/``conj``; principal square roots;
  real parts kept in the domain of each power).
- a derivative of an expression that contains derivatives (or an operator norm, which is
  not analytic) uses **Ridders' central differences**: steps shrinking by 2 with Richardson
  extrapolation, starting where no power's base changes by more than 1% (about 0.005σ of
  the input for the core, whatever its offset).

Gradients and Jacobians push the d basis directions through at once, as a leading axis, in
chunks of about 64k entries (small enough for the CPU caches). An operator norm is
√λ_max(JᵀJ) by Lanczos with full reorthogonalization, applying J and Jᵀ as matrix-vector
products without BLAS: the Jacobians of the catalog have two or three distinct singular
values, so the Krylov space is invariant after as many steps. LAPACK's O(d³) ``eigvalsh``
of JᵀJ — slow at d = 768, and slower still under load with BLAS threads, which a library
cannot pin without a dependency — is left for Jacobians whose Krylov space is not invariant
within 24 steps.

**Rounding.** Beside every value runs a bound B on |computed − exact| at the sample
(Wilkinson's running error analysis; Higham, *Accuracy and Stability of Numerical
Algorithms*, §3.3), for the real and the imaginary part separately (a complex B holds both).
Atoms are exact; a sum of k terms adds (k − 1)·u·Σ|terms|, so cancellation shows (a
coordinate sum counts d − 1 additions, whatever order numpy adds in); a product adds
|a|·B_b + B_a·|b| + B_a·B_b + u·|ab| (2u for complex); a power adds B times its derivative at
the worst end of [|x| − B, |x| + B] (mean-value theorem), or B^n for a root of a base that is
a sum of squares, plus a few ulps, and a root or negative power of a base whose B exceeds
10⁻⁴ of it is *indeterminate*; a complex step divides the imaginary bound by τ; Ridders'
extrapolation adds its own error estimate; an operator norm adds the Frobenius norm of its
Jacobian's bound (Weyl) and the eigensolver's backward error. One correlation is kept, the
one layer normalization lives on: the part of a vector's bound that is an error along 1
(the rounding of a mean, ~u·1e8 at offsets of 1e8) is tracked, so that centering removes
it and the variance sees it only squared. Products of two imaginary (complex-step) parts,
O(τ²), and gradual underflow are below every bound and ignored.

The core at a point offset by 1e8: each coordinate is known to ~2e-8, the rounding of the
mean (two additions of numbers near 1e8), an error along 1:

>>> from lnsym import vector, core, eps
>>> z = vector("z")
>>> point = Point(3, {"z": np.array([1.0, 2.0, 4.0]) + 1e8}, {eps: 1 / 3})
>>> value, bound = Evaluator(Env.of([point], track=True), Status(1)).get(core(z))
>>> value.round(5)
array([[-0.97014, -0.24254,  1.21268]])
>>> [f"{b:.0e}" for b in bound[0]]
['2e-08', '2e-08', '2e-08']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache, reduce
from typing import Any

import numpy as np
import sympy
from sympy.core.function import AppliedUndef

from lnsym.errors import DomainError, UnsupportedError, UserInputError
from lnsym.ir import nodes as ir
from lnsym.ir.calculus import Grad, Jvp, OperatorNorm, Vjp

#: The largest entry of τ·h in a complex step, per real dtype (see the module docstring).
_COMPLEX_STEP = {np.dtype(np.float64): 1e-100, np.dtype(np.float32): 1e-15}
_RIDDERS_SHRINK = 2.0
_RIDDERS_STEPS = 20
#: Ridders' error estimate may exceed the rounding bound of its differences by this much.
_RIDDERS_TRUST = 1e3
#: Basis directions of a batched Jacobian are chunked to keep arrays below this many entries.
_MAX_BATCH_ENTRIES = 1 << 16
#: A root or a negative power needs its base's error bound below this fraction of the base.
_POLE_MARGIN = 1e-4
#: Lanczos steps before an operator norm falls back to LAPACK's eigvalsh.
_LANCZOS_STEPS = 24
DERIVATIVES = (Jvp, Vjp, Grad, OperatorNorm)
#: Per-sample status codes, in increasing precedence.
OK, INDETERMINATE, UNDEFINED = 0, 1, 2


class Undefined(DomainError):
    """The expression is undefined at this point (e.g. 1/0 or the root of a negative)."""


@dataclass
class Point:
    """Values for the atoms: vectors of length ``d`` and scalar symbols.

    Args:
        d: the dimension (it is also the value of ``lnsym.d``).
        vectors: vector atom name → array of length d.
        scalars: SymPy symbol (``lnsym.eps``, user scalars) → value.
        dtype: ``numpy.float64`` or ``numpy.float32``; vectors are converted to it.
        slack: vector atom name → a bound on the distance (2-norm) of its value from the
            exact point it stands for (e.g. a projection onto the centered vectors, exact
            only up to rounding); error bounds start from it.

    Raises:
        UserInputError: for a bad dimension, a vector of the wrong shape, or ``d`` given
            as a scalar.
    """

    d: int
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    scalars: dict[sympy.Symbol, float] = field(default_factory=dict)
    dtype: Any = np.float64
    slack: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.d, bool) or not isinstance(self.d, int | np.integer) or self.d < 1:
            raise UserInputError(f"the dimension must be a positive integer, got {self.d!r}")
        self.d = int(self.d)
        self.dtype = real_dtype(self.dtype)
        vectors = {}
        for name, value in self.vectors.items():
            array = np.array(value, dtype=self.dtype)
            if array.shape != (self.d,):
                raise UserInputError(f"vector {name} has shape {array.shape}, not ({self.d},)")
            vectors[name] = array
        self.vectors = vectors
        if ir.d in self.scalars:
            raise UserInputError("d is the point's dimension; do not give it as a scalar")
        self.scalars = {sym: float(value) for sym, value in self.scalars.items()}


def real_dtype(dtype: Any) -> np.dtype:
    real = np.dtype(dtype)
    if real not in _COMPLEX_STEP:
        raise UserInputError(f"the numeric engine works in float64 or float32, not {real}")
    return real


# ---------------------------------------------------------------------------------------
# The interpreter

#: A value and its running error bound (the float 0.0 when the value is exact).
_Pair = tuple[np.ndarray, Any]


class Status:
    """Per-sample outcome of a batch: evaluable, indeterminate or undefined, and why.

    A sample keeps the reason of its first failure of the highest precedence (undefined
    over indeterminate).
    """

    def __init__(self, n: int) -> None:
        self.code = np.zeros(n, np.int8)
        self.reason = [""] * n

    def flag(self, bad: np.ndarray, code: int, what: str) -> None:
        for i in np.flatnonzero(bad & (self.code < code)):
            self.code[i], self.reason[i] = code, what

    def merge(self, other: Status, where: np.ndarray) -> None:
        for code in (INDETERMINATE, UNDEFINED):
            for i in np.flatnonzero(where & (other.code == code) & (self.code < code)):
                self.code[i], self.reason[i] = code, other.reason[i]


@dataclass(frozen=True)
class Env:
    """Values at a batch of points (possibly complex, possibly with basis axes).

    Vectors have shape (*basis, S, d) and scalars (*basis, S), where S is the number of
    samples and each basis axis comes from a gradient or Jacobian (always inserted leftmost);
    axes of size 1 broadcast, and a value that does not depend on the sample may lack its
    sample axis. ``batch`` is the largest number of axes any vector has left of d. With
    ``track`` every value carries its running error bound.
    """

    d: int
    n: int
    vectors: dict[str, _Pair]
    scalars: dict[sympy.Symbol, _Pair]
    real: np.dtype
    track: bool
    batch: int = 1

    @staticmethod
    def of(points: list[Point], track: bool) -> Env:
        """The batch of ``points``, which share their dimension, atoms, symbols and dtype."""
        first = points[0]
        vectors = {}
        for name in first.vectors:
            slack = np.array([[p.slack.get(name, 0.0)] for p in points], first.dtype)
            exact = not (track and np.any(slack))
            vectors[name] = (np.stack([p.vectors[name] for p in points]), 0.0 if exact else slack)
        scalars = {
            sym: (np.array([p.scalars[sym] for p in points], first.dtype), 0.0)
            for sym in first.scalars
        }
        return Env(first.d, len(points), vectors, scalars, first.dtype, track)

    def with_vector(self, name: str, pair: _Pair) -> Env:
        vectors = {**self.vectors, name: pair}
        return replace(self, vectors=vectors, batch=max(self.batch, np.ndim(pair[0]) - 1))

    def with_scalar(self, sym: sympy.Symbol, pair: _Pair) -> Env:
        scalars = {**self.scalars, sym: pair}
        return replace(self, scalars=scalars, batch=max(self.batch, np.ndim(pair[0])))


class Evaluator:
    """Evaluates IR nodes in one environment, memoizing each node's value and error bound.

    Failures at a sample are flagged in ``status`` (shared with the evaluators it creates
    for substitutions and derivatives), never raised; a malformed question (a missing
    value, an unsupported node) raises.
    """

    def __init__(self, env: Env, status: Status) -> None:
        self.env = env
        self.status = status
        self.u = float(np.finfo(env.real).eps) / 2  # the unit roundoff
        self.cache: dict[ir.Expr, _Pair] = {}
        #: Vector node → the part of its error bound that is an error along 1 (per sample).
        self.shared: dict[ir.Expr, Any] = {}
        self.mags: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def get(self, e: ir.Expr) -> _Pair:
        cached = self.cache.get(e)
        if cached is None:
            cached = self.cache[e] = self._eval(e)
            if self.env.track and not _exact(cached[1]) and _uniform(e):
                # Every coordinate of c·1 is the same computation: so is its error.
                self.shared[e] = cached[1][..., 0]
        return cached

    def value(self, e: ir.Expr) -> np.ndarray:
        return self.get(e)[0]

    def _child(self, env: Env, status: Status | None = None) -> Evaluator:
        return Evaluator(env, self.status if status is None else status)

    def _flag(self, bad: Any, axis: int, code: int, what: str) -> None:
        """Flag the samples where ``bad`` (over a value with its sample axis ``axis`` from
        the end) holds anywhere."""
        if np.any(bad):
            self.status.flag(_per_sample(bad, self.env.n, axis, np.any), code, what)

    def _eval(self, e: ir.Expr) -> _Pair:
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
                self._share(e, *(self.shared.get(t) for t in terms))
                return pair
            case ir.Scaled(coefficient=c, vector=v):
                a, ba = self.get(c)
                pair = self._mul((a[..., None], _column(ba)), self.get(v))
                if v in self.shared:  # a shared error along 1 stays along 1
                    self._share(e, _mag_mul(bound_sum(_mag(a), ba), self.shared[v]))
                return pair
            case ir.Hadamard(left=left, right=right):
                pair = self._mul(self.get(left), self.get(right))
                for uniform, other in ((left, right), (right, left)):
                    if other in self.shared and _uniform(uniform):  # (a·1) ⊙ σ1 = aσ·1
                        x, bx = self.get(uniform)
                        size = bound_sum(_mag(x[..., 0]), _first(bx))
                        self._share(e, _mag_mul(size, self.shared[other]))
                        break
                return pair
            case ir.ScalarProduct(factors=factors):
                return reduce(self._mul, [self.get(f) for f in factors])
            case ir.Dot(left=left, right=right):
                return self._dot(left, right)
            case ir.Power(base=base, exponent=n):
                return self._power(self.get(base), n, _nonnegative(base))
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
            case Grad(expr=f, wrt=wrt):
                return self.jacobian(f, wrt)
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                # Jᵀg with g held fixed at the point (g may itself depend on wrt); the sum
                # runs over the last axis, like every other sum (see the module docstring).
                transposed, (cot, bcot) = self.jacobian(f, wrt, transposed=True), self.get(g)
                return self._sum(self._mul(transposed, (cot[..., None, :], _row(bcot))))
            case OperatorNorm(expr=f, wrt=wrt):
                return self._operator_norm(*self.jacobian(f, wrt))
        raise UnsupportedError(f"the numeric engine cannot interpret {type(e).__name__}")

    def _inside(self, e: ir.Substitution, env: Env) -> _Pair:
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

    def _center(self, arg: ir.Expr) -> _Pair:
        """x − mean(x)·1. An error σ·1 of x cancels; the mean's own error (its bound less
        σ's) becomes an error along 1 of the result."""
        (x, bx), (m, bm) = self.get(arg), self.get(ir.Mean(arg))
        out = x - m[..., None]
        if not self.env.track:
            return out, 0.0
        shared = bound_sum(bm, _times(-1, self.shared.get(arg, 0.0)))
        own = bound_sum(bx, _times(-1, _column(self.shared.get(arg, 0.0))))
        self._share(ir.Center(arg), shared)
        return out, bound_sum(own, _column(shared), self.u * _mag(out))

    def _dot(self, left: ir.Expr, right: ir.Expr) -> _Pair:
        """Σ aᵢbᵢ, without conjugation (the complex step needs the analytic product).

        For computed â = a + σ·1 + e and b̂ = b + τ·1 + f, the error is τ·Σa + ⟨a, f⟩ +
        σ·Σb + ⟨e, b⟩ + ⟨σ·1 + e, τ·1 + f⟩: where a is centered by its form, Σa = 0 and τ
        drops out of the first-order terms (and σ where b is)."""
        (a, ba), (b, bb) = self.get(left), self.get(right)
        own_a = self._own(right, left, ba)
        own_b = self._own(left, right, bb)
        if own_a is ba and own_b is bb:
            return self._sum(self._mul((a, ba), (b, bb)))
        out = a * b
        rounding = (
            (2 if np.iscomplexobj(out) else 1) * self.u * _mag_mul(self._mag(a), self._mag(b))
        )
        first = _mag_mul(bound_sum(self._mag(a), ba), own_b)
        second = _mag_mul(bound_sum(self._mag(b), bb), own_a)
        return self._sum((out, bound_sum(rounding, first, second, _mag_mul(ba, bb))))

    def _own(self, other: ir.Expr, e: ir.Expr, bound: Any) -> Any:
        """The bound of ``e`` less its error along 1, when ``other`` is centered by its
        form (so that ⟨other, 1⟩ = 0 removes that error); else the whole bound."""
        shared = self.shared.get(e)
        if shared is None or not _centered(other):
            return bound
        return bound_sum(bound, _times(-1, _column(shared)))

    # -- arithmetic with running error bounds (see the module docstring) ----------------
    def _mag(self, x: np.ndarray) -> np.ndarray:
        """:func:`_mag`, computed once per array (values are operands many times)."""
        hit = self.mags.get(id(x))
        if hit is None or hit[0] is not x:
            hit = self.mags[id(x)] = (x, _mag(x))
        return hit[1]

    def _add(self, terms: list[_Pair]) -> _Pair:
        out = reduce(np.add, [v for v, _ in terms])
        if not self.env.track:
            return out, 0.0
        if len(terms) == 2:
            rounding = self.u * _mag(out)
        else:
            rounding = (len(terms) - 1) * self.u * reduce(np.add, [self._mag(v) for v, _ in terms])
        return out, bound_sum(rounding, *(b for _, b in terms))

    def _mul(self, x: _Pair, y: _Pair) -> _Pair:
        (a, ba), (b, bb) = x, y
        out = a * b
        if not self.env.track:
            return out, 0.0
        ma, mb = self._mag(a), self._mag(b)
        bound = (2 if np.iscomplexobj(out) else 1) * self.u * _mag_mul(ma, mb)
        if not _exact(bb):
            bound = bound + _mag_mul(ma, bb)
        if not _exact(ba):
            bound = bound + _mag_mul(ba, mb)
            if not _exact(bb):
                bound = bound + _mag_mul(ba, bb)
        return out, bound

    def _sum(self, x: _Pair) -> _Pair:
        """Σ over the last axis, in the same order at every sample of any batch."""
        v, b = np.ascontiguousarray(x[0]), x[1]
        out = np.sum(v, axis=-1)
        if not self.env.track:
            return out, 0.0
        bound = (v.shape[-1] - 1) * self.u * np.sum(_mag(v), axis=-1)
        if not _exact(b):
            bound = bound + np.sum(np.broadcast_to(b, v.shape), axis=-1)
        return out, bound

    def _mean(self, x: _Pair) -> _Pair:
        total, bound = self._sum(x)
        return self._divide(total / self.env.d, bound)

    def _divide(self, out: np.ndarray, bound: Any) -> _Pair:
        """``out`` = a total divided by d, and its bound from the total's ``bound``."""
        if not self.env.track:
            return out, 0.0
        d = self.env.d
        if d & (d - 1) == 0:  # dividing by a power of 2 is exact
            return out, _times(1 / d, bound)
        return out, bound_sum(_times(1 / d, bound), self.u * _mag(out))

    def _power(self, x: _Pair, n: sympy.Expr, nonnegative: bool = False) -> _Pair:
        """``x ** n``; ``nonnegative`` when the exact base cannot be negative (a sum of
        squares, say), which lets a root of a base lost in rounding keep a bound."""
        # In complex-step mode the real parts carry the value, so the domain is checked on
        # them: a power that is not analytic there would return a meaningless derivative.
        base, bbase = x
        re, im = np.real(base), np.imag(base)
        if n.is_number and not n.is_real:
            raise UnsupportedError(f"complex exponent {n}")
        if n.is_number:
            exponent, bexp = (int(n) if n.is_Integer else float(n)), 0.0
        else:
            exponent, bexp = self._const(n)
        if not n.is_Integer:
            what = f"undefined at this point: power {n} of a negative number"
            self._flag(re < 0, 1, UNDEFINED, what)
            what = f"undefined at this point: power {n} is not differentiable at 0"
            self._flag((re == 0) & (im != 0), 1, UNDEFINED, what)
        negative = np.asarray(exponent) < 0
        if np.any(negative):
            what = f"undefined at this point: division by zero (power {n} of 0)"
            self._flag((re == 0) & negative, 1, UNDEFINED, what)
        if n.is_Rational and n.q == 2:
            out = np.sqrt(base) ** int(n.p)  # the principal root, accurate to the last bit
        else:
            out = base**exponent
        if not self.env.track or n.is_zero:
            return out, 0.0
        ulps = 4 + 2 * np.abs(exponent)
        if not (n.is_Rational and n.q <= 2):  # pow through exp and log
            ulps = ulps + np.abs(exponent * np.log(np.abs(re)))
        bound = bound_sum(ulps * self.u * _mag(out), self._propagated(x, n, exponent, nonnegative))
        if not _exact(bexp):
            bound = bound + _mag_mul(_mag(out * np.log(base)), bexp)
        return out, bound

    def _propagated(self, x: _Pair, n: sympy.Expr, exponent: Any, nonnegative: bool) -> Any:
        """How far the error B of the base x moves x ** n: by the mean-value theorem,
        B·|n|·|t|^(n−1) at the end t of [|x| − B, |x| + B] where that is largest; for a root
        of a nonnegative real base, at most B^n. A negative power or a root of a base whose
        error exceeds ``_POLE_MARGIN`` of it is flagged as indeterminate."""
        base, bbase = x
        if _exact(bbase):
            return 0.0
        e, br, re = np.asarray(exponent), np.real(bbase), np.real(base)
        if not (n.is_Integer or nonnegative):
            what = f"the base of the power {n} may be negative within rounding"
            self._flag(re < br, 1, INDETERMINATE, what)
        lost = (e < 1) & ~(br <= _POLE_MARGIN * np.abs(re))
        root = lost & (e > 0) if nonnegative and not np.iscomplexobj(base) else False
        self._flag(lost & ~root, 1, INDETERMINATE, f"the base of the power {n} is lost in rounding")
        worst = self._mag(base) + np.where(e >= 1, br, -br)
        if np.iscomplexobj(bbase):
            worst = worst + 1j * np.imag(bbase)
        slope = np.abs(e) * _mag(worst ** (e - 1))
        mean_value = np.nan_to_num(_mag_mul(slope, bbase), nan=0.0)  # 0·∞ where B = 0
        return np.where(root, br ** np.where(root, e, 1), mean_value)

    # -- constants ----------------------------------------------------------------------
    def _const(self, value: Any) -> _Pair:
        if not isinstance(value, sympy.Expr):
            raise UnsupportedError(f"not a scalar constant: {value!r}")
        undefined = value.atoms(AppliedUndef)
        if undefined:
            name = sorted(str(f.func) for f in undefined)[0]
            raise UnsupportedError(f"the constant {value} uses the undefined function {name}")
        return self._symbolic(value)

    def _symbolic(self, value: sympy.Expr) -> _Pair:
        """A SymPy expression in the scalars, by the same rules as the IR's arithmetic."""
        if value.is_Symbol:
            if value == ir.d:
                return np.asarray(self.env.d, self.env.real), 0.0
            if value not in self.env.scalars:
                raise DomainError(f"no value given for the symbol {value}")
            return self.env.scalars[value]
        if not value.free_symbols:
            try:
                number = np.asarray(float(value), self.env.real)
            except TypeError as exc:  # e.g. the imaginary unit
                raise UnsupportedError(f"the constant {value} is not a real number") from exc
            exact = (value.is_Rational and sympy.Rational(float(number)) == value) or (
                value.is_Float and float(number) == float(value)
            )
            return number, 0.0 if exact else self.u * np.abs(number)
        if value.is_Add:
            return self._add([self._symbolic(a) for a in value.args])
        if value.is_Mul:
            return reduce(self._mul, [self._symbolic(a) for a in value.args])
        if value.is_Pow:
            nonnegative = bool(value.base.is_nonnegative)
            return self._power(self._symbolic(value.base), value.exp, nonnegative)
        return self._function(value)

    def _function(self, value: sympy.Expr) -> _Pair:
        """Any other function of the scalars: numpy's value, and the first-order bound
        Σ|∂f/∂aᵢ|·B(aᵢ) plus 8 ulps."""
        if not all(isinstance(a, sympy.Expr) for a in value.args):
            raise UnsupportedError(f"the numeric engine cannot evaluate the constant {value}")
        args = [self._symbolic(a) for a in value.args]
        fn, slopes = _function_rules(value.func, len(args))
        values = [a for a, _ in args]
        out = np.asarray(fn(*values))
        if not self.env.track:
            return out, 0.0
        bound = 8 * self.u * _mag(out)
        for slope, (_, b) in zip(slopes, args, strict=True):
            if not _exact(b):
                bound = bound + _mag_mul(_mag(np.asarray(slope(*values))), b)
        return out, bound

    # -- derivatives -------------------------------------------------------------------
    def directional(self, f: ir.Expr, wrt: ir.VectorAtom, h: _Pair) -> _Pair:
        """D_wrt f along ``h`` (which may carry basis axes) at this point."""
        (x, bx), (direction, bh) = self.get(wrt), h
        scale = _per_sample(np.abs(direction), self.env.n, 2, np.max)
        if has_derivative(f):
            return self._ridders(f, wrt.name, (x, bx), h, scale)
        # τ a power of 2: τh and the division by τ are exact.
        tau = np.exp2(
            np.floor(np.log2(_COMPLEX_STEP[self.env.real] / np.where(scale > 0, scale, 1)))
        )
        tau = tau.astype(self.env.real)
        moved = x + 1j * (tau[:, None] * direction)
        bound = 0.0
        if self.env.track:  # errors in x and h move along
            bound = bound_sum(bx, _times(1j * tau[:, None], bh))
        value, vbound = self._child(self.env.with_vector(wrt.name, (moved, bound))).get(f)
        tau_out = tau[:, None] if f.kind == "vector" else tau
        out = (np.imag(value) / tau_out).astype(self.env.real)
        if not self.env.track or _exact(vbound):
            return out, 0.0
        return out, np.imag(vbound) / tau_out

    def _ridders(self, f: ir.Expr, name: str, x: _Pair, h: _Pair, scale: np.ndarray) -> _Pair:
        """Ridders' extrapolated central differences (Numerical Recipes, dfridr), with the
        steps, the extrapolation and its stopping chosen per sample.

        Flags as indeterminate the samples where the extrapolation does not settle down to
        the rounding level, so that no digit of the derivative can be trusted.
        """
        env, n, u = self.env, self.env.n, self.u
        axis = 2 if f.kind == "vector" else 1
        (xv, bx), (hv, bh) = x, h

        def central(step: np.ndarray, status: Status) -> tuple[np.ndarray, Any]:
            values = []
            for sign in (1, -1):
                delta = sign * step[:, None] * hv
                moved = xv + delta
                bound = 0.0
                if env.track:  # x ± step·h is rounded too
                    bound = bound_sum(
                        bx, _times(step[:, None], bh), u * (np.abs(xv) + np.abs(delta))
                    )
                values.append(self._child(env.with_vector(name, (moved, bound)), status).get(f))
            (plus, bplus), (minus, bminus) = values
            width = 2 * _expand(step, axis)
            quotient = (plus - minus) / width
            if not env.track:
                return quotient, 0.0
            return quotient, bound_sum(bplus, bminus) / width + 2 * u * np.abs(quotient)

        largest = 0.1 * np.maximum(1.0, _per_sample(np.abs(xv), n, 2, np.max))
        step = self._first_step(f, name, h, largest / np.where(scale > 0, scale, 1.0))
        for _ in range(_RIDDERS_STEPS):  # large first steps may leave the domain: shrink
            trial = Status(n)
            central(step, trial)
            if not np.any(trial.code):
                break
            step = np.where(trial.code > 0, step / _RIDDERS_SHRINK, step)
        else:
            what = "undefined at this point: no central difference step stays in the domain"
            self.status.flag(trial.code > 0, UNDEFINED, what)
        previous = [central(step, self.status)]
        best, error = previous[0], np.full(n, np.inf)
        done, noise = np.zeros(n, bool), _per_sample(previous[0][1], n, axis, np.max)
        for i in range(1, _RIDDERS_STEPS):
            step = step / _RIDDERS_SHRINK
            trial = Status(n)
            row = [central(step, trial)]
            self.status.merge(trial, ~done)
            noise = np.where(
                done, noise, np.maximum(noise, _per_sample(row[0][1], n, axis, np.max))
            )
            factor = _RIDDERS_SHRINK**2
            for j in range(1, i + 1):
                (a, ba), (b, bb) = row[j - 1], previous[j - 1]
                value = (a * factor - b) / (factor - 1)
                bound = 0.0
                if env.track:
                    bound = bound_sum(_times(factor, ba), bb) / (factor - 1) + 2 * u * (
                        np.abs(a) * factor + np.abs(b)
                    ) / (factor - 1)
                row.append((value, bound))
                factor *= _RIDDERS_SHRINK**2
                estimate = np.maximum(
                    _per_sample(np.abs(value - a), n, axis, np.max),
                    _per_sample(np.abs(value - b), n, axis, np.max),
                )
                better = (estimate <= error) & ~done
                best = (
                    _select(better, value, best[0], axis),
                    _select(better, bound, best[1], axis),
                )
                error = np.where(better, estimate, error)
            drift = _per_sample(np.abs(row[i][0] - previous[i - 1][0]), n, axis, np.max)
            done |= drift >= 2 * error  # higher orders only add rounding noise now
            if np.all(done):
                break
            previous = row
        if not env.track:
            return best
        # The bound carries the rounding error; the truncation error (Ridders' estimate)
        # must not be far above it, or the estimate itself is rounding noise.
        size = _per_sample(np.abs(best[0]), n, axis, np.max)
        trust = _RIDDERS_TRUST * np.maximum(noise, u * size)
        what = "central differences did not converge within rounding error"
        self.status.flag(~(error <= trust), INDETERMINATE, what)
        return best[0], bound_sum(best[1], _expand(np.where(error <= trust, error, 0.0), axis))

    def _first_step(self, f: ir.Expr, name: str, h: _Pair, largest: np.ndarray) -> np.ndarray:
        """Per sample, a first step that moves no power's base by more than 1%.

        The nonlinearity of an IR expression lives in its powers; the rate |D B(h)/B| of
        each derivative-free base B (by complex step) sets the length scale — about σ for
        the core, however large the offset of the input.
        """
        rate = np.zeros(self.env.n)
        for base in _power_bases(f, name):
            # A scratch evaluator: a base may be undefined where f is not (e.g. a base
            # that is only defined after a substitution).
            scratch = self._child(replace(self.env, track=False), Status(self.env.n))
            try:
                value = np.real(scratch.value(base))
                change, _ = scratch.directional(base, ir.VectorAtom(name), (h[0], 0.0))
            except DomainError:
                continue
            ratio = np.abs(np.broadcast_to(change, np.broadcast_shapes(change.shape, value.shape)))
            ratio = np.where(value != 0, ratio / np.abs(np.where(value != 0, value, 1)), 0)
            ratio = _per_sample(ratio, self.env.n, 1, np.max)
            rate = np.fmax(rate, np.where(scratch.status.code > 0, 0, ratio))
        return np.where(rate > 0, np.minimum(largest, 0.01 / np.where(rate > 0, rate, 1)), largest)

    def jacobian(self, f: ir.Expr, wrt: ir.VectorAtom, transposed: bool = False) -> _Pair:
        """The Jacobian (*batch, d_out, d) of a vector ``f`` (its transpose if asked), or the
        gradient (*batch, d), C-ordered."""
        env, d = self.env, self.env.d
        pad = (1,) * env.batch
        shapes = [np.shape(v)[:-1] for v, _ in env.vectors.values()]
        shapes += [np.shape(s) for s, _ in env.scalars.values()]
        entries_per_row = math.prod(np.broadcast_shapes(*shapes, ())) * d
        chunk = max(1, _MAX_BATCH_ENTRIES // entries_per_row)
        values, bounds = [], []
        for start in range(0, d, chunk):
            rows = np.zeros((min(chunk, d - start), d), env.real)
            rows[range(len(rows)), range(start, start + len(rows))] = 1
            part, bound = self.directional(f, wrt, (rows.reshape((len(rows),) + pad + (d,)), 0.0))
            target = (len(rows),) + pad + ((d,) if f.kind == "vector" else ())
            values.append(np.broadcast_to(part, np.broadcast_shapes(part.shape, target)))
            bounds.append(np.broadcast_to(bound, values[-1].shape))
        # The basis axis leads; move it last so that J[..., i, j] = ∂fᵢ/∂wrtⱼ.
        axis = -2 if transposed and f.kind == "vector" else -1
        out = np.ascontiguousarray(np.moveaxis(np.concatenate(values, axis=0), 0, axis))
        if not env.track:
            return out, 0.0
        return out, np.ascontiguousarray(np.moveaxis(np.concatenate(bounds, axis=0), 0, axis))

    def _operator_norm(self, jac: np.ndarray, bound: Any) -> _Pair:
        """‖J‖₂ = √λ_max(JᵀJ) of a real Jacobian (*batch, d_out, d) (see the module
        docstring), with the bound ‖B_J‖_F (Weyl) plus the eigensolver's error."""
        lead, (rows, cols) = jac.shape[:-2], jac.shape[-2:]
        flat = jac.reshape(-1, rows, cols)
        finite = np.all(np.isfinite(flat), axis=(1, 2))
        flat = np.where(finite[:, None, None], flat, 0)  # flagged samples: no LAPACK on NaN
        top, residual = _top_eigenvalue(flat)
        sigma = np.sqrt(np.maximum(top, 0))
        out = np.where(finite, sigma, np.nan).reshape(lead)
        if not self.env.track:
            return out, 0.0
        # Forming JᵀJ and the eigensolver's backward error: (d + 8)·u·‖J‖_F² at most.
        spread = residual + (cols + 8) * self.u * np.sum(flat * flat, axis=(1, 2))
        change = spread / np.where(spread > 0, sigma + np.sqrt(sigma * sigma + spread), 1)
        own = 0.0 if _exact(bound) else np.sqrt(np.sum(np.real(bound) ** 2, axis=(-1, -2)))
        return out, bound_sum((change + self.u * sigma).reshape(lead), own)


# ---------------------------------------------------------------------------------------
# Array helpers


def _per_sample(x: Any, n: int, axis: int, how: Callable[..., Any]) -> np.ndarray:
    """``how`` (np.max, np.any) of ``x`` over every axis but its sample axis, which is
    ``axis`` from the end: an array of length ``n`` (broadcast if ``x`` has no sample axis)."""
    x = np.asarray(x)
    if x.ndim < axis:
        return np.full(n, how(x))
    samples = np.moveaxis(x, x.ndim - axis, 0)
    return np.broadcast_to(how(samples.reshape(len(samples), -1), axis=1), (n,))


def _expand(per_sample: np.ndarray, axis: int) -> np.ndarray:
    """A per-sample array shaped to broadcast on values with the sample axis ``axis``."""
    return per_sample.reshape(per_sample.shape + (1,) * (axis - 1))


def _select(mask: np.ndarray, a: Any, b: Any, axis: int) -> Any:
    """Per sample, ``a`` where ``mask`` holds, else ``b``."""
    if _exact(a) and _exact(b):
        return 0.0
    return np.where(_expand(mask, axis), a, b)


def _exact(bound: Any) -> bool:
    return isinstance(bound, float)


def bound_sum(*bounds: Any) -> Any:
    """The sum of error bounds, skipping exact ones."""
    inexact = [b for b in bounds if not _exact(b)]
    return reduce(np.add, inexact) if inexact else 0.0


def _times(factor: Any, bound: Any) -> Any:
    return bound if _exact(bound) else factor * bound


def _first(bound: Any) -> Any:
    """The bound of the first coordinate of a vector."""
    return bound if _exact(bound) else bound[..., 0]


def _column(bound: Any) -> Any:
    return bound if _exact(bound) else bound[..., None]


def _row(bound: Any) -> Any:
    return bound if _exact(bound) else bound[..., None, :]


def _mag(x: Any) -> np.ndarray:
    """|x|, with separate magnitudes for the real and imaginary parts of a complex x."""
    x = np.asarray(x)
    if not np.iscomplexobj(x):
        return np.abs(x)
    if x.ndim and x.flags.c_contiguous:  # one pass over the interleaved parts
        return np.abs(x.view(x.real.dtype)).view(x.dtype)
    return np.abs(x.real) + 1j * np.abs(x.imag)


def _mag_mul(a: Any, b: Any) -> np.ndarray:
    """The magnitudes of a product's real and imaginary parts from those of its factors:
    (aᵣbᵣ + aᵢbᵢ) + i(aᵢbᵣ + aᵣbᵢ), i.e. a·b + 2aᵢbᵢ."""
    out = np.asarray(a * b)
    if np.iscomplexobj(a) and np.iscomplexobj(b):
        correction = np.multiply(a.imag, b.imag)
        correction *= 2
        out.real += correction
    return out


def maxabs(x: Any) -> float:
    return float(np.max(np.abs(x))) if np.size(x) else 0.0


@lru_cache(maxsize=256)
def _function_rules(func: Any, arity: int) -> tuple[Callable[..., Any], list[Callable[..., Any]]]:
    """numpy functions for f(x₀, …) and its partial derivatives (built once per function)."""
    xs = sympy.symbols(f"x0:{arity}", real=True)
    try:
        applied = func(*xs)
        return sympy.lambdify(xs, applied, "numpy"), [
            sympy.lambdify(xs, applied.diff(x), "numpy") for x in xs
        ]
    except Exception as exc:  # noqa: BLE001 — SymPy raises many kinds here
        raise UnsupportedError(f"the numeric engine cannot evaluate {func}") from exc


def _top_eigenvalue(jac: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """λ_max(JᵀJ) for a stack of real matrices (n, rows, d), and how far it may be off.

    Lanczos with full reorthogonalization from a fixed random start, applying J and Jᵀ
    without BLAS, until the Krylov space is invariant to rounding: then its top Ritz value
    is λ_max (a Gaussian start has a component along every eigenvector), within the last
    off-diagonal β. Stacks without an invariant Krylov space after ``_LANCZOS_STEPS`` steps
    go to LAPACK.
    """
    count, _, d = jac.shape
    u = float(np.finfo(jac.dtype).eps) / 2
    start = np.random.default_rng(20240).standard_normal(d)
    basis = np.zeros((count, min(d, _LANCZOS_STEPS) + 1, d), jac.dtype)
    basis[:, 0] = start / np.linalg.norm(start)
    top, residual = np.full(count, np.nan), np.zeros(count)
    pending = np.ones(count, bool)
    diagonal, off = np.zeros((count, 0)), np.zeros((count, 0))
    for k in range(basis.shape[1] - 1):
        v = basis[:, k]
        w = np.einsum("nij,ni->nj", jac, np.einsum("nij,nj->ni", jac, v))
        diagonal = np.concatenate([diagonal, np.einsum("nj,nj->n", w, v)[:, None]], axis=1)
        for _ in range(2):  # full reorthogonalization, twice for the rounding of the first
            seen = basis[:, : k + 1]
            w = w - np.einsum("nkj,nk->nj", seen, np.einsum("nkj,nj->nk", seen, w))
        beta = np.sqrt(np.einsum("nj,nj->n", w, w))
        tridiagonal = np.zeros((count, k + 1, k + 1))
        tridiagonal[:, range(k + 1), range(k + 1)] = diagonal
        tridiagonal[:, range(k), range(1, k + 1)] = off
        tridiagonal[:, range(1, k + 1), range(k)] = off
        ritz = np.linalg.eigvalsh(tridiagonal)[:, -1]
        done = pending & ((beta <= 8 * d * u * np.maximum(ritz, 0)) | (k + 1 == d))
        top[done], residual[done] = ritz[done], beta[done]
        pending &= ~done
        if not pending.any():
            return top, residual
        off = np.concatenate([off, beta[:, None]], axis=1)
        basis[:, k + 1] = w / np.where(beta > 0, beta, 1)[:, None]
    rest = jac[pending]
    top[pending] = np.linalg.eigvalsh(np.swapaxes(rest, -1, -2) @ rest)[:, -1]
    return top, residual


def nodes(e: ir.Expr) -> Iterator[ir.Expr]:
    """Every node of ``e``, looking inside the definitions of defined nodes too."""
    for node in ir.walk(e):
        yield node
        if isinstance(node, ir.Defined):
            yield from nodes(node.definition())


@lru_cache(maxsize=4096)
def has_derivative(e: ir.Expr) -> bool:
    return any(isinstance(node, DERIVATIVES) for node in nodes(e))


@lru_cache(maxsize=4096)
def _nonnegative(e: ir.Expr) -> bool:
    """Whether the scalar ``e`` is nonnegative by its form: squares, norms, variances and
    sums, products and powers of such (the exact value, whatever rounding does)."""
    match e:
        case ir.Const(value=v):
            return bool(v.is_nonnegative)
        case ir.Dot(left=left, right=right):
            return left == right
        case ir.Var() | ir.Norm():
            return True
        case ir.Power(base=base, exponent=n):
            return bool(n.is_Integer and n.is_even) or _nonnegative(base)
        case ir.ScalarSum(terms=parts) | ir.ScalarProduct(factors=parts):
            return all(_nonnegative(p) for p in parts)
        case ir.Defined():
            return _nonnegative(e.definition())
    return False


@lru_cache(maxsize=4096)
def _centered(e: ir.Expr) -> bool:
    """Whether the vector ``e`` sums to 0 by its form: centerings, their multiples and sums
    (the exact value, whatever rounding does)."""
    match e:
        case ir.Center():
            return True
        case ir.Scaled(vector=v):
            return _centered(v)
        case ir.VectorSum(terms=terms):
            return all(_centered(t) for t in terms)
        case ir.Substitution(expr=inner):
            return _centered(inner)
        case ir.Defined():
            return _centered(e.definition())
    return False


@lru_cache(maxsize=4096)
def _uniform(e: ir.Expr) -> bool:
    """Whether the vector ``e`` is a multiple of 1 by its form (c·1, sums and products)."""
    match e:
        case ir.Ones():
            return True
        case ir.Scaled(vector=v):
            return _uniform(v)
        case ir.VectorSum(terms=terms):
            return all(_uniform(t) for t in terms)
        case ir.Hadamard(left=left, right=right):
            return _uniform(left) and _uniform(right)
        case ir.Substitution(expr=inner):
            return _uniform(inner)
        case ir.Defined():
            return e.kind == "vector" and _uniform(e.definition())
    return False


@lru_cache(maxsize=1024)
def _power_bases(e: ir.Expr, atom: str) -> tuple[ir.Expr, ...]:
    """The derivative-free bases of non-polynomial powers in ``e`` that involve ``atom``."""
    bases = {
        node.base
        for node in nodes(e)
        if isinstance(node, ir.Power)
        and not (node.exponent.is_Integer and node.exponent >= 0)
        and not has_derivative(node.base)
        and atom in ir.vector_atoms(node.base)
    }
    return tuple(sorted(bases, key=repr))
