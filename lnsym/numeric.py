"""The numeric engine: the IR evaluated with numpy at concrete and sampled points.

Vector atoms become arrays of length d, ``ones`` an array of ones, constants floats (``d``
the dimension, ``eps`` and user scalars their sampled values). Defined nodes expand through
their definitions, except the mean, centering and variance, which are evaluated directly and
in two passes (subtract the mean, then average the squares); that is what keeps shift
invariance true to ~1e-8 at offsets of 1e8, where E[z²] − E[z]² would cancel every digit.

Derivatives are finite-difference based:

- a first derivative (jvp, vjp, grad, or the Jacobian behind an operator norm) of an
  expression free of other derivatives uses the **complex step** f'(x)·h ≈ Im f(x + iτh)/τ
  with τ·max|h| = 1e-100 (1e-15 in float32). It has no subtractive cancellation, so any τ
  this small is exact to machine precision; it needs only that every operation be analytic
  (sums of products, never ``vdot``/``conj``; principal square roots; real parts kept in
  the domain of each power).
- a derivative of an expression that contains derivatives (or an operator norm, which is
  not analytic) uses **Ridders' central differences**: steps shrinking by 2 with Richardson
  extrapolation, starting where no power's base changes by more than 1% (about 0.005σ of
  the input for the core, whatever its offset).

Gradients and Jacobians push all d basis directions through at once, as a leading batch
axis. :func:`evidence` compares the two sides of a claim on a few hundred sampled points,
with a tolerance from a Monte Carlo estimate of the rounding error at each point.

>>> from lnsym import vector, core, eps
>>> z = vector("z")
>>> evaluate(core(z), Point(3, {"z": np.array([1.0, 2.0, 4.0])}, {eps: 1 / 3}))
array([-0.9701425 , -0.24253563,  1.21267813])
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache, reduce
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import sympy
from sympy.core.function import AppliedUndef
from sympy.core.sorting import default_sort_key

from lnsym import expr as ir
from lnsym.calculus import Grad, Jvp, OperatorNorm, Vjp
from lnsym.errors import DomainError, UnsupportedError, UserInputError

if TYPE_CHECKING:
    from lnsym.claims import Claim, Evidence

#: The largest entry of τ·h in a complex step, per real dtype (see the module docstring).
_COMPLEX_STEP = {np.dtype(np.float64): 1e-100, np.dtype(np.float32): 1e-15}
_RIDDERS_SHRINK = 2.0
_RIDDERS_STEPS = 20
#: Ridders' error estimate may exceed the rounding level of its differences by this much.
_RIDDERS_TRUST = 1e3
#: Basis directions of a batched Jacobian are chunked to keep arrays below this many entries.
_MAX_BATCH_ENTRIES = 1 << 20
#: Monte Carlo mode carries the clean value and this many - 1 independently perturbed twins:
#: one twin's spread is a single random draw, far too often much smaller than the error.
_SLOTS = 5
#: Monte Carlo perturbations are this many units of roundoff: smaller ones would often be
#: rounded away themselves (a perturbation below half an ulp vanishes).
_NOISE_ULPS = 16
#: A side may differ from the other by this many times the estimated rounding error.
_MARGIN = 1e4
#: A negative power needs its base's rounding error below this fraction of the base.
_POLE_MARGIN = 1e-4
_DERIVATIVES = (Jvp, Vjp, Grad, OperatorNorm)
_T = TypeVar("_T")


class _Undefined(DomainError):
    """The expression is undefined at this point (e.g. 1/0 or the root of a negative)."""


class _Indeterminate(_Undefined):
    """Rounding leaves the value undetermined here (e.g. 1/x where x is all rounding)."""


#: Failures that mean "undefined at this sample", as opposed to a malformed question.
_UNDEFINED = (_Undefined, FloatingPointError, ZeroDivisionError)


@dataclass
class Point:
    """Values for the atoms: vectors of length ``d`` and scalar symbols.

    Args:
        d: the dimension (it is also the value of ``lnsym.d``).
        vectors: vector atom name → array of length d.
        scalars: SymPy symbol (``lnsym.eps``, user scalars) → value.
        dtype: ``numpy.float64`` or ``numpy.float32``; vectors are converted to it.

    Raises:
        UserInputError: for a bad dimension, a vector of the wrong shape, or ``d`` given
            as a scalar.
    """

    d: int
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    scalars: dict[sympy.Symbol, float] = field(default_factory=dict)
    dtype: Any = np.float64

    def __post_init__(self) -> None:
        if isinstance(self.d, bool) or not isinstance(self.d, int | np.integer) or self.d < 1:
            raise UserInputError(f"the dimension must be a positive integer, got {self.d!r}")
        self.d = int(self.d)
        self.dtype = _real_dtype(self.dtype)
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


def _real_dtype(dtype: Any) -> np.dtype:
    real = np.dtype(dtype)
    if real not in _COMPLEX_STEP:
        raise UserInputError(f"the numeric engine works in float64 or float32, not {real}")
    return real


# ---------------------------------------------------------------------------------------
# Public evaluation helpers


def evaluate(e: ir.Expr, point: Point) -> np.ndarray | float:
    """Evaluate an IR expression at a point.

    Args:
        e: a vector or scalar expression.
        point: values for every atom and symbol that ``e`` uses.

    Returns:
        An array of length d for a vector, a float for a scalar.

    Raises:
        DomainError: where ``e`` is undefined at the point, or a value is missing.
        UnsupportedError: for a node the engine cannot interpret.

    >>> from lnsym import vector, var, ones
    >>> z = vector("z")
    >>> evaluate(var(z + 10**8 * ones), Point(3, {"z": np.array([1.0, 2.0, 3.0])}))
    0.6666666666666666
    """
    value = _run(lambda: _Evaluator(_Env.of(point)).value(e))
    return float(value) if value.ndim == 0 else value


def jacobian(expr: ir.Expr, wrt: ir.VectorAtom, point: Point) -> np.ndarray:
    """The Jacobian matrix of ``expr`` with respect to the atom ``wrt`` at ``point``.

    Computed by complex step (Ridders' central differences if ``expr`` holds derivatives).

    Returns:
        A (d, d) array J with J[i, j] = ∂exprᵢ/∂wrtⱼ; a (1, d) row for a scalar ``expr``.

    Raises:
        DomainError: where ``expr`` is undefined at the point.

    >>> from lnsym import vector, mean
    >>> z = vector("z")
    >>> jacobian(mean(z), z, Point(2, {"z": np.array([1.0, 5.0])}))
    array([[0.5, 0.5]])
    """
    matrix = _run(lambda: _Evaluator(_Env.of(point)).jacobian(expr, _atom(wrt)))
    return matrix if expr.kind == "vector" else matrix[None, :]


def lipschitz_ratio(f: ir.Expr, wrt: ir.VectorAtom, point: Point, h: Any) -> float:
    """The finite-difference ratio ‖f(wrt + h) − f(wrt)‖ / ‖h‖ at ``point``.

    Args:
        f: a vector or scalar expression.
        wrt: the vector atom that moves.
        point: the base point (it must hold a value for ``wrt``).
        h: the perturbation, an array of length d.

    Raises:
        UserInputError: for a zero or malformed ``h``.
        DomainError: where ``f`` is undefined at either point.

    >>> from lnsym import vector, core, eps
    >>> z = vector("z")
    >>> point = Point(2, {"z": np.array([7.0, 7.0])}, {eps: 1e-2})
    >>> round(lipschitz_ratio(core(z), z, point, np.array([1e-3, -1e-3])), 6)
    9.9995
    """
    wrt = _atom(wrt)
    step = np.array(h, dtype=point.dtype)
    if step.shape != (point.d,) or not np.any(step):
        raise UserInputError(f"h must be a nonzero vector of length {point.d}")
    if wrt.name not in point.vectors:
        raise DomainError(f"no value given for the vector {wrt.name}")
    moved = Point(
        point.d,
        {**point.vectors, wrt.name: point.vectors[wrt.name] + step},
        point.scalars,
        point.dtype,
    )
    change = np.asarray(evaluate(f, moved)) - np.asarray(evaluate(f, point))
    return float(np.linalg.norm(change) / np.linalg.norm(step))


def _atom(wrt: Any) -> ir.VectorAtom:
    if not isinstance(wrt, ir.VectorAtom):
        raise UserInputError(f"derivatives are taken with respect to a vector atom, not {wrt!r}")
    return wrt


def _run(compute: Callable[[], _T]) -> _T:
    """Run an evaluation with numpy's floating-point errors raised, as DomainError."""
    try:
        with np.errstate(divide="raise", invalid="raise", over="raise", under="ignore"):
            return compute()
    except (FloatingPointError, ZeroDivisionError) as exc:
        raise _Undefined(f"undefined at this point: {exc}") from exc


# ---------------------------------------------------------------------------------------
# The interpreter

_Magnitude = Callable[[], np.ndarray]


@dataclass(frozen=True)
class _Env:
    """Values at one (possibly complex, possibly batched) point.

    Vector values have shape (*batch, d) and scalars (*batch), where batch axes come from
    gradients and Jacobians (one axis per basis of directions, always inserted leftmost) and
    broadcast against each other; ``batch`` is the largest number of batch axes any value
    has. In Monte Carlo mode (``noise`` set) the innermost batch axis is the *slot* axis of
    size ``_SLOTS``: slot 0 holds the clean value, the others randomly perturbed twins.
    """

    d: int
    vectors: dict[str, np.ndarray]
    scalars: dict[sympy.Symbol, np.ndarray]
    real: np.dtype
    batch: int = 0
    noise: np.random.Generator | None = None

    @staticmethod
    def of(point: Point, noise: np.random.Generator | None = None) -> _Env:
        vectors = dict(point.vectors)
        scalars = {s: np.asarray(v, dtype=point.dtype) for s, v in point.scalars.items()}
        if noise is None:
            return _Env(point.d, vectors, scalars, point.dtype)
        vectors = {name: np.stack([v] * _SLOTS) for name, v in vectors.items()}
        scalars = {sym: np.stack([v] * _SLOTS) for sym, v in scalars.items()}
        return _Env(point.d, vectors, scalars, point.dtype, 1, noise)

    def with_vector(self, name: str, value: np.ndarray) -> _Env:
        vectors = {**self.vectors, name: value}
        return replace(self, vectors=vectors, batch=max(self.batch, value.ndim - 1))

    def with_scalar(self, sym: sympy.Symbol, value: np.ndarray) -> _Env:
        scalars = {**self.scalars, sym: value}
        return replace(self, scalars=scalars, batch=max(self.batch, value.ndim))

    @property
    def unit_roundoff(self) -> float:
        return float(np.finfo(self.real).eps) / 2

    @property
    def noise_amplitude(self) -> float:
        return _NOISE_ULPS * self.unit_roundoff


def _slot_mask(kind: str, dtype: np.dtype) -> np.ndarray:
    """1 on the perturbed slot and 0 on the clean one, shaped to broadcast on a value."""
    mask = np.array([0] + [1] * (_SLOTS - 1), dtype=dtype)
    return mask[:, None] if kind == "vector" else mask


class _Evaluator:
    """Evaluates IR nodes in one environment, memoizing each node's value.

    In Monte Carlo mode (Monte Carlo arithmetic, as in CESTAC) every operation moves each
    perturbed slot by 16u·(noise of unit variance) times the magnitude the operation rounds
    at — Σ|terms| for a sum, so cancellation shows — and the spread of the slots estimates
    the rounding error.
    """

    def __init__(self, env: _Env) -> None:
        self.env = env
        self.cache: dict[ir.Expr, np.ndarray] = {}

    def value(self, e: ir.Expr) -> np.ndarray:
        cached = self.cache.get(e)
        if cached is None:
            out, magnitude = self._eval(e)
            if magnitude is not None and self.env.noise is not None:
                out = self._perturbed(out, magnitude(), e.kind)
            cached = self.cache[e] = out
        return cached

    def _eval(self, e: ir.Expr) -> tuple[np.ndarray, _Magnitude | None]:
        """The value of ``e`` and, for a rounded operation, the magnitude it rounds at."""
        env = self.env
        match e:
            case ir.VectorAtom(name=name):
                if name not in env.vectors:
                    raise DomainError(f"no value given for the vector {name}")
                return env.vectors[name], None
            case ir.Ones():
                return np.ones(env.d, env.real), None
            case ir.Const(value=v):
                out = self._const(v)
                return out, lambda: _mag(out)
            case ir.VectorSum(terms=terms) | ir.ScalarSum(terms=terms):
                values = [self.value(t) for t in terms]
                return reduce(np.add, values), lambda: reduce(np.add, map(_mag, values))
            case ir.Scaled(coefficient=c, vector=v):
                a, b = self.value(c)[..., None], self.value(v)
                return a * b, lambda: _mag_mul(_mag(a), _mag(b))
            case ir.Hadamard(left=left, right=right):
                a, b = self.value(left), self.value(right)
                return a * b, lambda: _mag_mul(_mag(a), _mag(b))
            case ir.ScalarProduct(factors=factors):
                values = [self.value(f) for f in factors]
                return reduce(np.multiply, values), lambda: reduce(_mag_mul, map(_mag, values))
            case ir.Dot(left=left, right=right):
                a, b = self.value(left), self.value(right)
                # Σ aᵢbᵢ without conjugation: the complex step needs the analytic product.
                return np.sum(a * b, axis=-1), lambda: _sum_mag(a, b)
            case ir.Power(base=base, exponent=n):
                out = self._power(self.value(base), n)
                return out, lambda: _mag(out)
            # Mean, centering and variance directly, the variance in two passes (see the
            # module docstring); the other defined nodes (core, layer, norm) build on them.
            case ir.Mean(arg=arg):
                x = self.value(arg)
                return np.sum(x, axis=-1) / env.d, lambda: _sum_mag(x) / env.d
            case ir.Center(arg=arg):
                x, m = self.value(arg), self.value(ir.Mean(arg))[..., None]
                return x - m, lambda: _mag(x) + _mag(m)
            case ir.Var(arg=arg):
                pc = self.value(ir.Center(arg))
                return np.sum(pc * pc, axis=-1) / env.d, lambda: _sum_mag(pc, pc) / env.d
            case ir.Defined():
                return self.value(e.definition()), None
            case ir.Substitution(expr=inner, target=ir.VectorAtom(name=name), value=v):
                return _Evaluator(env.with_vector(name, self.value(v))).value(inner), None
            case ir.Substitution(expr=inner, target=ir.Const(value=sym), value=v):
                return _Evaluator(env.with_scalar(sym, self.value(v))).value(inner), None
            case Jvp(expr=f, wrt=wrt, direction=h):
                return self.directional(f, wrt, self.value(h)), None
            case Grad(expr=f, wrt=wrt):
                return self.jacobian(f, wrt), None
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                # Jᵀg with g held fixed at the point (g may itself depend on wrt).
                jac, cot = self.jacobian(f, wrt), self.value(g)
                return np.einsum("...ij,...i->...j", jac, cot), None
            case OperatorNorm(expr=f, wrt=wrt):
                # σ_max² is the top eigenvalue of JᵀJ: as accurate as an SVD for the largest
                # singular value (relative error ~u) at half the cost; round at |σ|.
                jac = self.jacobian(f, wrt)
                top = np.linalg.eigvalsh(np.swapaxes(jac, -1, -2) @ jac)[..., -1]
                out = np.sqrt(np.maximum(top, 0))
                return out, lambda: out
        raise UnsupportedError(f"the numeric engine cannot interpret {type(e).__name__}")

    # -- leaves and powers ------------------------------------------------------------
    def _const(self, value: sympy.Expr) -> np.ndarray:
        symbols, fn = _lambdified(value)
        args: list[Any] = []
        for sym in symbols:
            if sym == ir.d:
                args.append(self.env.d)
            elif sym in self.env.scalars:
                args.append(self.env.scalars[sym])
            else:
                raise DomainError(f"no value given for the symbol {sym}")
        out = np.asarray(fn(*args))
        return out.astype(_complex(self.env.real) if np.iscomplexobj(out) else self.env.real)

    def _power(self, base: np.ndarray, n: sympy.Expr) -> np.ndarray:
        # In complex-step mode the real parts carry the value, so the domain is checked on
        # them: a power that is not analytic there would return a meaningless derivative.
        re, im = np.real(base), np.imag(base)
        if n.is_number and not n.is_real:
            raise UnsupportedError(f"complex exponent {n}")
        exponent: Any = int(n) if n.is_Integer else float(n) if n.is_number else self._const(n)
        if not n.is_Integer:
            self._check_domain(re < 0, f"power {n} of a negative number")
            self._check_domain((re == 0) & (im != 0), f"power {n} is not differentiable at 0")
        if np.any(np.asarray(exponent) < 0):
            self._check_domain(re == 0, f"division by zero (power {n} of 0)")
            self._check_pole(re)
        if n.is_Rational and n.q == 2:
            return np.sqrt(base) ** int(n.p)  # the principal root, accurate to the last bit
        return base**exponent

    def _check_domain(self, bad: np.ndarray, what: str) -> None:
        if not np.any(bad):
            return
        if self._slotted(bad) and not np.any(bad[..., 0]):
            raise _Indeterminate(f"{what} within rounding error")
        raise _Undefined(f"undefined at this point: {what}")

    def _check_pole(self, base: np.ndarray) -> None:
        """Refuse a negative power of a base whose rounding error is not small against it:
        its value is then undetermined and a first-order error estimate means nothing."""
        if self._slotted(base):
            clean, perturbed = base[..., :1], base[..., 1:]
            if np.any(np.abs(perturbed - clean) > _POLE_MARGIN * np.abs(clean)):
                raise _Indeterminate("the base of a negative power is lost in rounding")

    def _slotted(self, scalar: np.ndarray) -> bool:
        return self.env.noise is not None and scalar.ndim > 0 and scalar.shape[-1] == _SLOTS

    # -- Monte Carlo rounding -----------------------------------------------------------
    def _perturbed(self, x: np.ndarray, magnitude: np.ndarray, kind: str) -> np.ndarray:
        """``x`` with each perturbed slot moved by 16u·noise·magnitude."""
        mask = _slot_mask(kind, self.env.real)
        shape = np.broadcast_shapes(np.shape(x), mask.shape)
        mag = np.broadcast_to(magnitude, shape)
        a = self.env.noise_amplitude
        out = x + a * np.real(mag) * self._noise(shape) * mask
        if np.iscomplexobj(x):
            out = out + 1j * a * np.imag(mag) * self._noise(shape) * mask
        return out

    def _noise(self, shape: tuple[int, ...]) -> np.ndarray:
        """Uniform noise of unit variance: continuous (random signs cancel exactly too
        often) and several times cheaper to draw than normal noise."""
        assert self.env.noise is not None
        uniform = self.env.noise.random(shape, dtype=self.env.real)
        return (uniform - 0.5) * math.sqrt(12)

    # -- derivatives -------------------------------------------------------------------
    def directional(self, f: ir.Expr, wrt: ir.VectorAtom, h: np.ndarray) -> np.ndarray:
        """D_wrt f along ``h`` (which may carry batch axes) at this point."""
        x = self.value(wrt)
        scale = _maxabs(h)
        if not _has_derivative(f):
            tau = _COMPLEX_STEP[self.env.real] / scale if scale > 0 else 1.0
            moved = _Evaluator(self.env.with_vector(wrt.name, x + 1j * tau * h))
            return (np.imag(moved.value(f)) / tau).astype(self.env.real)
        return self._ridders(f, wrt.name, x, h, scale)

    def _ridders(
        self, f: ir.Expr, name: str, x: np.ndarray, h: np.ndarray, scale: float
    ) -> np.ndarray:
        """Ridders' extrapolated central differences (Numerical Recipes, dfridr).

        Raises:
            _Indeterminate: when the extrapolation does not settle down to the rounding
                level, so that no digit of the derivative can be trusted.
        """
        noise = 0.0  # the largest Monte Carlo rounding spread of a difference quotient

        def central(step: float) -> np.ndarray:
            nonlocal noise
            values = []
            for moved in (x + step * h, x - step * h):
                if self.env.noise is not None:  # x ± step·h is rounded too
                    moved = self._perturbed(moved, _mag(x) + _mag(step * h), "vector")
                values.append(_Evaluator(self.env.with_vector(name, moved)).value(f))
            quotient = (values[0] - values[1]) / (2 * step)
            noise = max(noise, _slot_spread(quotient, f.kind))
            return quotient

        step = self._first_step(f, name, h, 0.1 * max(1.0, _maxabs(x)) / (scale or 1.0))
        previous: list[np.ndarray] = []
        for _ in range(_RIDDERS_STEPS):  # large first steps may leave the domain: shrink
            try:
                previous = [central(step)]
                break
            except _UNDEFINED:
                step /= _RIDDERS_SHRINK
        if not previous:
            raise _Undefined("no central difference step stays in the domain")
        best, error = previous[0], math.inf
        for i in range(1, _RIDDERS_STEPS):
            step /= _RIDDERS_SHRINK
            row = [central(step)]
            factor = _RIDDERS_SHRINK**2
            for j in range(1, i + 1):
                row.append((row[j - 1] * factor - previous[j - 1]) / (factor - 1))
                factor *= _RIDDERS_SHRINK**2
                estimate = max(_maxabs(row[j] - row[j - 1]), _maxabs(row[j] - previous[j - 1]))
                if estimate <= error:
                    best, error = row[j], estimate
            if _maxabs(row[i] - previous[i - 1]) >= 2 * error:
                break  # higher orders only add rounding noise now
            previous = row
        # The Monte Carlo slot carries the rounding error; the truncation error must not
        # be far above it, or the slots would understate the uncertainty of the result.
        if self.env.noise is not None and error > _RIDDERS_TRUST * max(
            noise, self.env.unit_roundoff * _maxabs(best)
        ):
            raise _Indeterminate(f"central differences did not converge (error {error:.1e})")
        return best

    def _first_step(self, f: ir.Expr, name: str, h: np.ndarray, largest: float) -> float:
        """A first step that moves no power's base by more than 1%.

        The nonlinearity of an IR expression lives in its powers; the rate |D B(h)/B| of
        each derivative-free base B (by complex step) sets the length scale — about σ for
        the core, however large the offset of the input.
        """
        rate = 0.0
        for base in _power_bases(f, name):
            try:
                value = np.real(self.value(base))
                change = self.directional(base, ir.VectorAtom(name), h)
            except _UNDEFINED:
                continue  # e.g. a base that is only defined after a substitution
            nonzero = value != 0
            if np.any(nonzero):
                rate = max(
                    rate, _maxabs(np.broadcast_to(change, value.shape)[nonzero] / value[nonzero])
                )
        return min(largest, 0.01 / rate) if rate > 0 else largest

    def jacobian(self, f: ir.Expr, wrt: ir.VectorAtom) -> np.ndarray:
        """The Jacobian (*batch, d_out, d) of a vector ``f``, or the gradient (*batch, d)."""
        env, d = self.env, self.env.d
        pad = (1,) * env.batch
        shapes = [np.shape(v)[:-1] for v in env.vectors.values()]
        shapes += [np.shape(s) for s in env.scalars.values()]
        entries_per_row = math.prod(np.broadcast_shapes(*shapes, ())) * d
        chunk = max(1, _MAX_BATCH_ENTRIES // entries_per_row)
        parts = []
        for start in range(0, d, chunk):
            rows = np.eye(d, dtype=env.real)[start : start + chunk]
            part = self.directional(f, wrt, rows.reshape((len(rows),) + pad + (d,)))
            target = (len(rows),) + pad + ((d,) if f.kind == "vector" else ())
            parts.append(np.broadcast_to(part, np.broadcast_shapes(part.shape, target)))
        # The basis axis leads; move it last so that J[..., i, j] = ∂fᵢ/∂wrtⱼ.
        return np.moveaxis(np.concatenate(parts, axis=0), 0, -1)


def _complex(real: np.dtype) -> np.dtype:
    return np.result_type(real, np.complex64)


def _mag(x: np.ndarray) -> np.ndarray:
    """|x|, with separate magnitudes for the real and imaginary parts of a complex x."""
    x = np.asarray(x)
    if np.iscomplexobj(x):
        return np.abs(x.real) + 1j * np.abs(x.imag)
    return np.abs(x)


def _mag_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The magnitudes of a product's real and imaginary parts from those of its factors."""
    if np.iscomplexobj(a) or np.iscomplexobj(b):
        ar, ai, br, bi = np.real(a), np.imag(a), np.real(b), np.imag(b)
        return (ar * br + ai * bi) + 1j * (ai * br + ar * bi)
    return a * b


def _slot_spread(x: np.ndarray, kind: str) -> float:
    """max |perturbed − clean| over a Monte Carlo value (0 without a slot axis)."""
    axis = -2 if kind == "vector" else -1
    if x.ndim < -axis or x.shape[axis] != _SLOTS:
        return 0.0
    clean = np.take(x, [0], axis=axis)
    return _maxabs(np.take(x, range(1, _SLOTS), axis=axis) - clean)


def _sum_mag(a: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """The magnitude Σ|aᵢ| or Σ|aᵢbᵢ| that a sum over the coordinates rounds at."""
    terms = _mag(a) if b is None else _mag_mul(_mag(a), _mag(b))
    return np.sum(terms, axis=-1)


def _maxabs(x: Any) -> float:
    return float(np.max(np.abs(x))) if np.size(x) else 0.0


@lru_cache(maxsize=4096)
def _lambdified(value: sympy.Expr) -> tuple[tuple[sympy.Symbol, ...], Callable[..., Any]]:
    """The free symbols of a constant and a numpy function of them (built once per value)."""
    if not isinstance(value, sympy.Expr):
        raise UnsupportedError(f"not a scalar constant: {value!r}")
    undefined = value.atoms(AppliedUndef)
    if undefined:
        name = sorted(str(f.func) for f in undefined)[0]
        raise UnsupportedError(f"the constant {value} uses the undefined function {name}")
    if not value.free_symbols:
        try:
            number = float(value)
        except TypeError as exc:  # e.g. the imaginary unit
            raise UnsupportedError(f"the constant {value} is not a real number") from exc
        return (), lambda: number
    symbols = tuple(sorted(value.free_symbols, key=default_sort_key))
    return symbols, sympy.lambdify(symbols, value, modules="numpy")


def _nodes(e: ir.Expr) -> Iterator[ir.Expr]:
    """Every node of ``e``, looking inside the definitions of defined nodes too."""
    for node in ir.walk(e):
        yield node
        if isinstance(node, ir.Defined):
            yield from _nodes(node.definition())


@lru_cache(maxsize=4096)
def _has_derivative(e: ir.Expr) -> bool:
    return any(isinstance(node, _DERIVATIVES) for node in _nodes(e))


@lru_cache(maxsize=1024)
def _power_bases(e: ir.Expr, atom: str) -> tuple[ir.Expr, ...]:
    """The derivative-free bases of non-polynomial powers in ``e`` that involve ``atom``."""
    bases = {
        node.base
        for node in _nodes(e)
        if isinstance(node, ir.Power)
        and not (node.exponent.is_Integer and node.exponent >= 0)
        and not _has_derivative(node.base)
        and atom in ir.vector_atoms(node.base)
    }
    return tuple(sorted(bases, key=repr))


# ---------------------------------------------------------------------------------------
# Sampling points that respect a claim's assumptions

_SMALL_DIMENSIONS = (1, 2, 3, 4, 5, 8, 16, 64)
_LARGE_DIMENSION = 768
_LARGE_EVERY = 100  # one sample in 100 uses d = 768, which costs d² per gradient
_KINDS = ("normal", "offset", "near_constant", "constant", "normal", "spiky")
_SCALAR_KINDS = ("normal", "wide", "huge", "tiny", "zero")
_EPS_RANGE = (-12.0, 2.0)  # log10 of the smallest and largest ε


@dataclass(frozen=True)
class _Sample:
    point: Point
    lhs: np.ndarray
    rhs: np.ndarray
    error: float


class _Sampler:
    """Deterministic sample points for one claim: kinds, dimensions and ε cycle with the
    sample index, values come from one seeded generator."""

    def __init__(self, claim: Claim, seed: int, dtype: np.dtype) -> None:
        statement = claim.statement
        nodes = [*_nodes(statement.lhs), *_nodes(statement.rhs)]
        self.atoms = sorted({n.name for n in nodes if isinstance(n, ir.VectorAtom)})
        symbols = {s for n in nodes if isinstance(n, ir.Const) for s in n.value.free_symbols}
        for n in nodes:
            if isinstance(n, ir.Power):
                symbols |= n.exponent.free_symbols
        self.symbols = sorted(symbols - {ir.d}, key=default_sort_key)
        self.assumptions = claim.assumptions
        self.nonconstant = {a.atom.name for a in self.assumptions if isinstance(a, ir.Nonconstant)}
        self.rng = np.random.default_rng(seed)
        self.dtype = dtype
        self.small, self.large = self._dimensions()

    def _dimensions(self) -> tuple[list[int], int | None]:
        """The dimensions to cycle through, and 768 if the assumptions allow it."""
        low = 2 if self.nonconstant & set(self.atoms) else 1  # nonconstant needs d ≥ 2
        limits = (*self.assumptions, ir.MinDimension(low))
        floor = max(a.value for a in limits if isinstance(a, ir.MinDimension))
        fixed = [a.value for a in limits if isinstance(a, ir.FixedDimension)]
        candidates = sorted({*_SMALL_DIMENSIONS, _LARGE_DIMENSION, floor, *fixed})
        allowed = set(ir.dimensions(limits, candidates[-1]))
        valid = [k for k in candidates if k in allowed]
        if not valid:
            raise DomainError("the dimension assumptions cannot all hold")
        large = _LARGE_DIMENSION if _LARGE_DIMENSION in valid else None
        return [k for k in valid if k != _LARGE_DIMENSION] or valid, large

    def point(self, k: int) -> Point | None:
        """The k-th sample, or None when the projections left a nonconstant atom constant."""
        rng = self.rng
        if self.large is not None and k % _LARGE_EVERY == _LARGE_EVERY - 1:
            d = self.large
        else:
            d = self.small[k % len(self.small)]
        vectors: dict[str, np.ndarray] = {}
        for j, name in enumerate(self.atoms):
            kind = _KINDS[(k + 2 * j) % len(_KINDS)]
            if kind == "constant" and name in self.nonconstant:
                kind = "near_constant"
            vectors[name] = self._constrained(name, _vector(kind, d, rng), vectors)
            if name in self.nonconstant and _is_constant(vectors[name]):
                return None
        scalars = {s: _scalar(s, k, j, rng) for j, s in enumerate(self.symbols)}
        return Point(d, vectors, scalars, self.dtype)

    def _constrained(self, name: str, v: np.ndarray, done: dict[str, np.ndarray]) -> np.ndarray:
        """Project v onto the complement of 1 (if centered) and of earlier orthogonal atoms."""
        constraints: list[np.ndarray] = []
        for a in self.assumptions:
            if isinstance(a, ir.Centered) and a.atom.name == name:
                constraints.append(np.ones_like(v))
            elif isinstance(a, ir.Orthogonal) and name in (a.left.name, a.right.name):
                other = a.right.name if a.left.name == name else a.left.name
                if other in done:
                    constraints.append(done[other])
        if not constraints:
            return v
        q, _ = np.linalg.qr(np.stack(constraints, axis=1))
        projected = v
        for _ in range(2):  # project twice: the second pass removes the first one's rounding
            projected = projected - q @ (q.T @ projected)
        # What is left of a vector inside the constrained span is rounding, not a direction.
        if np.linalg.norm(projected) <= 1e-12 * np.linalg.norm(v):
            return np.zeros_like(v)
        return projected


def _vector(kind: str, d: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "normal":
        return rng.standard_normal(d) * 10.0 ** rng.uniform(-3, 3)
    if kind == "offset":
        return rng.choice((-1e8, 1e8)) + rng.standard_normal(d)
    if kind == "near_constant":
        return rng.normal(0, 10) + 1e-6 * rng.standard_normal(d)
    if kind == "constant":
        # A multiple of 1/256, so that sums of its copies and its mean are exact.
        return np.full(d, np.round(rng.normal(0, 10) * 256) / 256)
    v = rng.standard_normal(d)  # "spiky": one coordinate dominates
    v[rng.integers(d)] *= 1e4
    return v


def _is_constant(v: np.ndarray) -> bool:
    return bool(np.ptp(v) <= 1e-12 * max(1.0, float(np.max(np.abs(v)))))


def _scalar(sym: sympy.Symbol, k: int, j: int, rng: np.random.Generator) -> float:
    if sym == ir.eps:
        if k % 9 == 0:
            return 10.0 ** _EPS_RANGE[0]
        if k % 9 == 4:
            return 10.0 ** _EPS_RANGE[1]
        return 10.0 ** rng.uniform(*_EPS_RANGE)
    match _SCALAR_KINDS[(k + j) % len(_SCALAR_KINDS)]:
        case "normal":
            value = rng.standard_normal()
        case "wide":
            value = rng.choice((-1, 1)) * 10.0 ** rng.uniform(-3, 3)
        case "huge":  # shifts of the size of the vectors' offsets
            value = rng.choice((-1, 1)) * 1e8 * rng.uniform(1, 2)
        case "tiny":
            value = rng.choice((-1, 1)) * 1e-6 * rng.uniform(1, 10)
        case _:
            value = 0.0
    if sym.is_integer:
        value = float(round(value)) if abs(value) < 1e8 else float(rng.integers(-5, 6))
    if (sym.is_positive or sym.is_negative) and value == 0:
        value = float(rng.integers(1, 10)) if sym.is_integer else 10.0 ** rng.uniform(-3, 3)
    if sym.is_nonnegative:
        value = abs(value)
    if sym.is_nonpositive:
        value = -abs(value)
    return float(value)


# ---------------------------------------------------------------------------------------
# Evidence for a claim


def evidence(
    claim: Claim, *, samples: int = 200, seed: int = 0, dtype: Any = np.float64
) -> Evidence:
    """Check a claim numerically on sampled points that respect its assumptions.

    Samples cycle through d = 1, 2, 3, 4, 5, 8, 16, 64 (and 768 once in 100 samples), vector
    kinds (normal at scales 1e-3 to 1e3, offsets of ±1e8, constants plus 1e-6 noise, exact
    constants, one dominant coordinate) and ε from 1e-12 to 1e2. ``centered`` and
    ``orthogonal`` atoms are projected, ``nonconstant`` ones never constant, positive
    symbols positive.

    Tolerance: both sides are evaluated in Monte Carlo arithmetic — beside the clean value
    (exactly what :func:`evaluate` computes) run four twins in which every operation is
    perturbed by 16u·(uniform noise of unit variance)·(the magnitude it rounds at, e.g.
    Σ|terms| for a sum), u the unit roundoff. The RMS deviation of the twins' lhs − rhs,
    divided by 16, estimates the rounding error ρ at that point; it grows with cancellation
    (offsets of 1e8), with conditioning (derivatives scale like 1/√ε, 1/ε, …) and with the
    rounding of central differences. With τ = √u (1.05e-8 in float64, 2.4e-4 in float32) a
    sample's relative error is ‖lhs − rhs‖∞ / max(‖lhs‖∞, ‖rhs‖∞, 10⁴·ρ/τ) — for ≤, the
    excess lhs − rhs over the same scale — and the claim is consistent when every relative
    error is at most τ: the sides may differ by τ relative to their size or by 10⁴ times
    the estimated rounding error (over the catalog, the worst actual error was ~40ρ).

    Samples are skipped and counted when the expression is undefined there (e.g. 0/0 in
    the idealized core at a constant input) or indeterminate in this precision (a negative
    power of a base lost in rounding, central differences that do not converge).

    Args:
        claim: the claim to check.
        samples: how many points to draw.
        seed: the seed; the same seed gives the same points and the same evidence.
        dtype: ``numpy.float64`` or ``numpy.float32``.

    Returns:
        Evidence with outcome ``"consistent"`` or ``"counterexample"`` (never exact: the
        reported sample is the violating one of smallest d, then largest error).

    Raises:
        DomainError: when the assumptions cannot hold or no sample is in the domain.
        UnsupportedError: for a node the engine cannot interpret.

    >>> from lnsym import Claim, Eq, vector, mean, center
    >>> z = vector("z")
    >>> evidence(Claim("c", Eq(mean(center(z)), 0)), samples=20).outcome
    'consistent'
    """
    from lnsym.claims import Evidence

    start = time.perf_counter()
    real = _real_dtype(dtype)
    tolerance = math.sqrt(float(np.finfo(real).eps) / 2)
    statement = claim.statement
    sampler = _Sampler(claim, seed, real)
    checked: list[_Sample] = []
    skipped = {"undefined": 0, "indeterminate": 0, "inadmissible": 0}
    reason = ""
    drawn: list[Point] = []
    for k in range(samples):
        point = sampler.point(k)
        if point is None:
            skipped["inadmissible"] += 1
            continue
        drawn.append(point)
        try:
            checked.append(_compare(statement, point, np.random.default_rng((seed, k))))
        except _UNDEFINED as exc:
            skipped["indeterminate" if isinstance(exc, _Indeterminate) else "undefined"] += 1
            reason = str(exc)
    if not checked:
        why = reason or "the assumptions leave no admissible sample"
        raise DomainError(f"no sample is in the domain of the claim ({why})")

    # The detail line must read the same on every machine (reports quote it): it names
    # the drawn samples and the tolerance; the rounding-dependent numbers (worst error,
    # skipped counts) are in ``data`` only.
    dims = sorted({s.point.d for s in checked})
    eps_drawn = [p.scalars[ir.eps] for p in drawn if ir.eps in p.scalars]
    where = "d = " + ", ".join(map(str, sorted({p.d for p in drawn})))
    if eps_drawn:
        where += f"; ε from {min(eps_drawn):.0e} to {max(eps_drawn):.0e}"
    measure = "relative error" if isinstance(statement, ir.Eq) else "relative excess of lhs"
    data: dict[str, Any] = {
        "exact": False,
        "samples": len(checked),
        "skipped": {what: n for what, n in skipped.items() if n},
        "tolerance": tolerance,
        "dimensions": dims,
        "dtype": str(real),
        "method": _method(statement),
    }
    violations = [s for s in checked if s.error > tolerance]
    if violations:
        worst = min(violations, key=lambda s: (s.point.d, -s.error))
        data["sample"] = _describe(worst)
        data["violations"] = len(violations)
        data["worst_violation"] = worst.error
        detail = (
            f"violated beyond tolerance {tolerance:.1g}, first at d = {worst.point.d} "
            f"(samples drawn at {where})"
        )
        return Evidence("numeric", "counterexample", detail, time.perf_counter() - start, data)
    worst_error = max(s.error for s in checked)
    data["worst_error"] = worst_error
    data["measure"] = measure
    detail = (
        f"{samples} samples drawn ({where}): every evaluable one agrees within "
        f"tolerance {tolerance:.1g} (max(√u·scale, 10⁴·estimated rounding error))"
    )
    return Evidence("numeric", "consistent", detail, time.perf_counter() - start, data)


def _compare(statement: ir.Relation, point: Point, noise: np.random.Generator) -> _Sample:
    """Evaluate both sides in Monte Carlo mode and score the discrepancy of the clean slot."""
    evaluator = _Evaluator(_Env.of(point, noise))
    sides = _run(lambda: [evaluator.value(statement.lhs), evaluator.value(statement.rhs)])
    mask = _slot_mask(statement.lhs.kind, point.dtype)
    lhs, rhs = (np.broadcast_to(v, np.broadcast_shapes(v.shape, mask.shape)) for v in sides)
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs))):
        raise _Undefined("a side is not finite")
    gaps = (lhs - rhs).reshape(_SLOTS, -1)
    twins = np.max(np.abs(gaps[1:] - gaps[:1]), axis=1).astype(float)
    rounding = float(np.sqrt(np.mean(twins**2))) / _NOISE_ULPS  # estimated rounding error
    tolerance = math.sqrt(float(np.finfo(point.dtype).eps) / 2)
    scale = max(
        _maxabs(lhs[0]),
        _maxabs(rhs[0]),
        _MARGIN * rounding / tolerance,
        float(np.finfo(point.dtype).tiny),
    )
    gap = gaps[0]
    excess = _maxabs(gap) if isinstance(statement, ir.Eq) else max(float(gap[0]), 0.0)
    return _Sample(point, lhs[0], rhs[0], excess / scale)


def _method(statement: ir.Relation) -> str:
    derivatives = [
        n
        for side in (statement.lhs, statement.rhs)
        for n in _nodes(side)
        if isinstance(n, _DERIVATIVES)
    ]
    if not derivatives:
        return "direct evaluation"
    if any(_has_derivative(n.expr) for n in derivatives):
        return "complex step; Ridders central differences for nested derivatives"
    return "complex step"


def _describe(sample: _Sample) -> dict[str, Any]:
    point = sample.point
    return {
        "d": point.d,
        "vectors": {name: v.astype(float).tolist() for name, v in sorted(point.vectors.items())},
        "scalars": {str(s): v for s, v in sorted(point.scalars.items(), key=lambda i: str(i[0]))},
        "lhs": sample.lhs.astype(float).tolist(),
        "rhs": sample.rhs.astype(float).tolist(),
        "error": sample.error,
    }
