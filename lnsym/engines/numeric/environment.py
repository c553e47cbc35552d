"""What a batch is evaluated in: the points, their values as arrays, and per-sample status.

- :class:`SamplePoint` — values for the atoms at one point (what a user or the sampler gives).
- :class:`Env` — the values of a batch of points, as arrays with a sample axis.
- :class:`Status` — per sample: evaluable (``OK``), ``INDETERMINATE`` or ``UNDEFINED``.
- :class:`Undefined` — raised where a single point is undefined.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import sympy

from lnsym import ir
from lnsym.errors import DomainError, UserInputError

#: The largest entry of τ·h in a complex step, per real dtype (see
#: :mod:`lnsym.engines.numeric.derivatives`). Its keys are the dtypes the engine supports:
#: a dtype without a safe complex step has no derivatives.
COMPLEX_STEP = {np.dtype(np.float64): 1e-100, np.dtype(np.float32): 1e-15}
#: Per-sample status codes, in increasing precedence.
OK, INDETERMINATE, UNDEFINED = 0, 1, 2

#: A value and its running error bound (the float 0.0 when the value is exact).
Pair = tuple[np.ndarray, Any]
#: A status flag: the samples, their new code, and the reason (or one reason per sample).
Flag = tuple[np.ndarray, int, str | tuple[str, ...]]


class DirectionDependent(Exception):
    """Raised in an environment with ``separate_directions`` where a sample would be flagged
    along some directions and not others: the derivatives are then taken one at a time."""


class Undefined(DomainError):
    """The expression is undefined at this point (e.g. 1/0 or the root of a negative)."""


@dataclass
class SamplePoint:
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
    if real not in COMPLEX_STEP:
        raise UserInputError(f"the numeric engine works in float64 or float32, not {real}")
    return real


class Status:
    """Per-sample outcome of a batch: evaluable, indeterminate or undefined, and why.

    A sample keeps the reason of its first failure of the highest precedence (undefined
    over indeterminate). Every flag is also logged, in order (:attr:`log`), so that an
    evaluator that keeps a value between batches of statements can replay the flags its
    evaluation raised (:meth:`replay`): applying a flag again changes nothing, since codes
    only rise, so a replayed status is the one a fresh evaluation would leave.
    """

    def __init__(self, n: int) -> None:
        self.code = np.zeros(n, np.int8)
        self.reason = [""] * n
        #: Every flag in order: (samples, code, reason or one reason per sample).
        self.log: list[Flag] = []

    def flag(self, bad: np.ndarray, code: int, what: str) -> None:
        self._apply((np.array(bad, dtype=bool), code, what))

    def merge(self, other: Status, where: np.ndarray) -> None:
        for code in (INDETERMINATE, UNDEFINED):
            mask = np.asarray(where & (other.code == code), dtype=bool)
            if np.any(mask):
                self._apply((mask, code, tuple(other.reason)))

    def replay(self, flags: tuple[Flag, ...]) -> None:
        """Apply ``flags`` (a slice of some status's :attr:`log`) again, in order."""
        for flag in flags:
            self._apply(flag)

    def _apply(self, flag: Flag) -> None:
        bad, code, what = flag
        self.log.append(flag)
        for i in np.flatnonzero(bad & (self.code < code)):
            self.code[i], self.reason[i] = code, what if isinstance(what, str) else what[i]


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
    vectors: dict[str, Pair]
    scalars: dict[sympy.Symbol, Pair]
    real: np.dtype
    track: bool
    batch: int = 1
    #: The tangents of its Duals are separate derivatives, one per scalar moved (see
    #: :meth:`~lnsym.engines.numeric.derivatives.Derivatives.scalar_derivative`): a flag
    #: that depends on the direction cannot be raised for all of them at once.
    separate_directions: bool = False

    @staticmethod
    def of(points: list[SamplePoint], track: bool) -> Env:
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

    def with_vector(self, name: str, pair: Pair) -> Env:
        vectors = {**self.vectors, name: pair}
        return replace(self, vectors=vectors, batch=max(self.batch, np.ndim(pair[0]) - 1))

    def with_scalar(self, sym: sympy.Symbol, pair: Pair) -> Env:
        scalars = {**self.scalars, sym: pair}
        return replace(self, scalars=scalars, batch=max(self.batch, np.ndim(pair[0])))
