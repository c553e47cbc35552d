"""Derivatives of batched values: directional derivatives (jvp), Jacobians, gradients and
derivatives with respect to a scalar symbol (diff).

- A vjp or a gradient of an expression free of derivatives and substitutions is taken in
  **reverse mode**: its adjoint expression (:mod:`~lnsym.engines.numeric.adjoint`) is
  evaluated like any other, with its own rounding bounds — O(d) per sample where a
  Jacobian costs O(d²).
- Any other Jacobian (behind vjp, grad and operator norms) of an expression free of
  other derivatives and of substituted scalars is taken in **forward mode**: the atom
  becomes a :class:`~lnsym.engines.numeric.dual.Dual` whose tangents are the d basis
  directions, so the primal value and its bound are computed once, not once per direction.
  Its rules are those of the complex step below with the products of two imaginary parts
  exactly 0 and τ = 1. So are the derivatives (diff) of an expression in its scalars, with
  plain constants: all at once, each scalar a Dual along its own direction (the entries of a
  gradient of a matrix statement), unless a sample would be flagged along some of the
  directions only.

The other derivatives are finite-difference based:

- A first derivative (jvp, or diff, or a Jacobian not taken in forward mode) of an
  expression free of other derivatives uses the **complex step** f'(x)·h ≈ Im f(x + iτh)/τ
  with τ·max|h| ≤ 1e-100 (1e-15 in float32), τ a power of 2 (for diff, x is the scalar and
  h = 1). It has no subtractive cancellation, so any τ this small is exact to machine
  precision; it needs only that every operation be analytic (sums of products, never
  ``vdot``/``conj``; principal square roots; real parts kept in the domain of each power).
  Products, powers and functions of complex values are taken to first order in τ
  (:func:`~lnsym.engines.numeric.arrays.jet_product`), as a Dual takes them: NumPy's
  complex arithmetic would keep O(τ²) terms, which survive wherever a real part is exactly
  0 — ∂_c[c³·mean(z)] at c = 0 came out as −τ²·mean(z) ≈ 1e-200 with a bound of 0, a
  relative error of 1 against the exact 0. So the result does not depend on τ.
- A derivative of an expression that contains derivatives (or an operator norm, which is
  not analytic; or a constant such as |a| that is not analytic in a scalar that moves — the
  one of diff, or one substituted with a value that moves) uses **Ridders' central
  differences**: steps shrinking by 2 with Richardson extrapolation, starting where no
  power's base changes by more than 1% (about 0.005σ of the input for the core, whatever
  its offset).

Jacobians push the d basis directions through at once, as a leading axis, in chunks of
about 64k entries (small enough for the CPU caches). A vjp not taken in reverse mode and an
operator norm are built on the Jacobian by the :class:`~lnsym.engines.numeric.batch.Evaluator`.

:class:`Derivatives` holds these rules; the Evaluator inherits them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

import numpy as np
import sympy

from lnsym import ir
from lnsym.engines.numeric.adjoint import adjoint
from lnsym.engines.numeric.arrays import (
    bound_sum,
    bound_times,
    expand_samples,
    is_exact,
    per_sample,
    select_samples,
)
from lnsym.engines.numeric.dual import Dual
from lnsym.engines.numeric.environment import (
    COMPLEX_STEP,
    INDETERMINATE,
    UNDEFINED,
    DirectionDependent,
    Env,
    Pair,
    Status,
)
from lnsym.engines.numeric.forms import (
    has_forward_tangents,
    kinks,
    needs_central_differences,
    power_bases,
    scalar_symbols,
    takes_scalars_together,
)
from lnsym.errors import DomainError

_RIDDERS_SHRINK = 2.0
_RIDDERS_STEPS = 20
#: Ridders' error estimate may exceed the rounding bound of its differences by this much.
_RIDDERS_TRUST = 1e3
#: Basis directions of a batched Jacobian are chunked to keep arrays below this many entries.
_MAX_BATCH_ENTRIES = 1 << 16
#: Take vjp and gradients in reverse mode where they can be (else from the Jacobian in
#: forward mode; the benchmarks compare the two, the tests that both bound the same value).
REVERSE_MODE = True


class Derivatives:
    """Directional derivatives and Jacobians, evaluated by child Evaluators at moved points."""

    # Provided by the Evaluator (annotations only: no attribute here may shadow theirs).
    env: Env
    status: Status
    u: float
    get: Callable[[ir.Expr], Pair]
    _child: Callable[..., Any]
    _const: Callable[[Any], Pair]
    scalar_tangents: dict[ir.Expr, Any]
    nbytes: int

    def directional(self, f: ir.Expr, wrt: ir.VectorAtom, h: Pair) -> Pair:
        """D_wrt f along ``h`` (which may carry basis axes) at this point."""
        (x, bx), (direction, bh) = self.get(wrt), h
        scale = per_sample(np.abs(direction), self.env.n, 2, np.max)
        if needs_central_differences(f, wrt.name):
            return self._ridders(f, wrt.name, (x, bx), h, scale)
        # τ a power of 2: τh and the division by τ are exact.
        tau = np.exp2(
            np.floor(np.log2(COMPLEX_STEP[self.env.real] / np.where(scale > 0, scale, 1)))
        )
        tau = tau.astype(self.env.real)
        moved = x + 1j * (tau[:, None] * direction)
        bound = 0.0
        if self.env.track:  # errors in x and h move along
            bound = bound_sum(bx, bound_times(1j * tau[:, None], bh))
        return self._imaginary_part(f, self.env.with_vector(wrt.name, (moved, bound)), tau)

    def scalar_derivative(self, f: ir.Expr, sym: sympy.Symbol) -> Pair:
        """∂f/∂sym at this point: in forward mode, with f's other scalars if it has any
        (:meth:`_scalar_tangents`), or by the complex step in the scalar (sym + iτ), or by
        Ridders' central differences for an expression with derivatives inside, or with a
        constant that is not analytic in ``sym`` (|a|, whose complex step would vanish)."""
        if sym not in self.env.scalars:
            raise DomainError(f"no value given for the symbol {sym}")
        x, bx = self.env.scalars[sym]
        ones = np.ones(self.env.n)
        for argument in kinks(f, sym):  # |x| has no derivative where x = 0
            try:
                at = np.asarray(self._const(argument)[0])
            except DomainError:  # a symbol that only a substitution inside f gives a value
                continue
            what = f"undefined at this point: the derivative of |{argument}| at 0"
            self.status.flag(per_sample(at == 0, self.env.n, 1, np.any), UNDEFINED, what)
        if needs_central_differences(f, sym):
            return self._ridders(f, sym, (np.asarray(x), bx), (np.asarray(1.0), 0.0), ones)
        together = self._scalar_tangents(f)
        if together is not None and sym in together[0]:
            index, (value, bound), flags = together
            self.status.replay(flags)  # (as its own complex step would raise them)
            k = index[sym]
            return value[k], (bound if is_exact(bound) else bound[k])
        # τ a power of 2 (the direction is 1): τ and the division by τ are exact.
        tau = np.full(self.env.n, np.exp2(np.floor(np.log2(COMPLEX_STEP[self.env.real]))))
        tau = tau.astype(self.env.real)
        moved = x + 1j * tau  # the error of x moves along; iτ is exact
        return self._imaginary_part(f, self.env.with_scalar(sym, (moved, bx)), tau)

    def _scalar_tangents(self, f: ir.Expr) -> Any:
        """∂f/∂a for every scalar a of f at once, in forward mode — each scalar a Dual whose
        tangent is its own direction — where f has scalars, no derivative and plain
        constants: (scalar → index, (derivatives, bounds) along a leading axis, the
        flags raised), computed once per f; None where this does not apply, or where a
        sample would be flagged along some directions only (a root at 0 that one scalar
        moves and another does not): each derivative is then its own complex step.

        The entries of a gradient of a matrix statement are the derivatives of one
        expression in every entry of a matrix: one pass instead of one per entry.
        """
        if f in self.scalar_tangents:
            return self.scalar_tangents[f]
        found = None
        symbols = sorted(scalar_symbols(f) & self.env.scalars.keys(), key=str)
        moved = any(np.iscomplexobj(self.env.scalars[sym][0]) for sym in symbols)
        if takes_scalars_together(f) and not moved:
            env = replace(self.env, separate_directions=True)
            for k, sym in enumerate(symbols):
                x, bx = self.env.scalars[sym]
                # The directions' axis left of every axis of the batch (a scalar given a
                # constant value by a substitution has none: it must not meet the samples).
                width = max(np.ndim(x), self.env.batch)
                direction = np.zeros((len(symbols),) + (1,) * width, self.env.real)
                direction[k] = 1
                env = env.with_scalar(sym, (cast(np.ndarray, Dual(x, direction)), bx))
            status = Status(self.env.n)
            try:
                value, bound = self._child(env, status).get(f)
            except DirectionDependent:
                pass
            else:
                per_direction = np.shape(np.imag(value))[1:] if isinstance(value, Dual) else ()
                primal = np.shape(np.real(value))
                shape = (len(symbols),) + np.broadcast_shapes(primal, per_direction)
                tangents = np.broadcast_to(np.imag(value), shape)
                if self.env.track and not is_exact(bound):
                    bound = np.broadcast_to(np.imag(bound), shape)
                else:
                    bound = 0.0
                index = {sym: k for k, sym in enumerate(symbols)}
                found = (index, (tangents, bound), tuple(status.log))
                self.nbytes += tangents.nbytes + np.asarray(bound).nbytes
        self.scalar_tangents[f] = found
        return found

    def _imaginary_part(self, f: ir.Expr, env: Env, tau: np.ndarray) -> Pair:
        """Im f / τ in ``env`` (moved by iτ), with the imaginary part of f's bound over τ."""
        value, vbound = self._child(env).get(f)
        tau_out = tau[:, None] if f.kind == "vector" else tau
        out = (np.imag(value) / tau_out).astype(self.env.real)
        if not self.env.track or is_exact(vbound):
            return out, 0.0
        return out, np.imag(vbound) / tau_out

    def _moved(self, target: str | sympy.Symbol, pair: Pair, status: Status | None) -> Any:
        """A child evaluator with the vector atom (a name) or scalar symbol at ``pair``."""
        if isinstance(target, str):
            return self._child(self.env.with_vector(target, pair), status)
        return self._child(self.env.with_scalar(target, pair), status)

    def _ridders(
        self, f: ir.Expr, target: str | sympy.Symbol, x: Pair, h: Pair, scale: np.ndarray
    ) -> Pair:
        """Ridders' extrapolated central differences (Numerical Recipes, dfridr), with the
        steps, the extrapolation and its stopping chosen per sample. ``target`` is the
        name of the vector atom moved along h, or the scalar symbol moved along h = 1.

        Flags as indeterminate the samples where the extrapolation does not settle down to
        the rounding level, so that no digit of the derivative can be trusted.
        """
        env, n, u = self.env, self.env.n, self.u
        axis = 2 if f.kind == "vector" else 1
        vector = isinstance(target, str)
        (xv, bx), (hv, bh) = x, h

        def central(step: np.ndarray, status: Status) -> tuple[np.ndarray, Any]:
            along = step[:, None] if vector else step  # a step per sample
            values = []
            for sign in (1, -1):
                delta = sign * along * hv
                moved = xv + delta
                bound = 0.0
                if env.track:  # x ± step·h is rounded too
                    bound = bound_sum(bx, bound_times(along, bh), u * (np.abs(xv) + np.abs(delta)))
                values.append(self._moved(target, (moved, bound), status).get(f))
            (plus, bplus), (minus, bminus) = values
            width = 2 * expand_samples(step, axis)
            quotient = (plus - minus) / width
            if not env.track:
                return quotient, 0.0
            return quotient, bound_sum(bplus, bminus) / width + 2 * u * np.abs(quotient)

        largest = 0.1 * np.maximum(1.0, per_sample(np.abs(xv), n, 2 if vector else 1, np.max))
        step = self._first_step(f, target, h, largest / np.where(scale > 0, scale, 1.0))
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
        done, noise = np.zeros(n, bool), per_sample(previous[0][1], n, axis, np.max)
        for i in range(1, _RIDDERS_STEPS):
            step = step / _RIDDERS_SHRINK
            trial = Status(n)
            row = [central(step, trial)]
            self.status.merge(trial, ~done)
            noise = np.where(done, noise, np.maximum(noise, per_sample(row[0][1], n, axis, np.max)))
            factor = _RIDDERS_SHRINK**2
            for j in range(1, i + 1):
                (a, ba), (b, bb) = row[j - 1], previous[j - 1]
                value = (a * factor - b) / (factor - 1)
                bound = 0.0
                if env.track:
                    bound = bound_sum(bound_times(factor, ba), bb) / (factor - 1) + 2 * u * (
                        np.abs(a) * factor + np.abs(b)
                    ) / (factor - 1)
                row.append((value, bound))
                factor *= _RIDDERS_SHRINK**2
                estimate = np.maximum(
                    per_sample(np.abs(value - a), n, axis, np.max),
                    per_sample(np.abs(value - b), n, axis, np.max),
                )
                better = (estimate <= error) & ~done
                best = (
                    select_samples(better, value, best[0], axis),
                    select_samples(better, bound, best[1], axis),
                )
                error = np.where(better, estimate, error)
            drift = per_sample(np.abs(row[i][0] - previous[i - 1][0]), n, axis, np.max)
            done |= drift >= 2 * error  # higher orders only add rounding noise now
            if np.all(done):
                break
            previous = row
        if not env.track:
            return best
        # The bound carries the rounding error; the truncation error (Ridders' estimate)
        # must not be far above it, or the estimate itself is rounding noise.
        size = per_sample(np.abs(best[0]), n, axis, np.max)
        trust = _RIDDERS_TRUST * np.maximum(noise, u * size)
        what = "central differences did not converge within rounding error"
        self.status.flag(~(error <= trust), INDETERMINATE, what)
        return best[0], bound_sum(
            best[1], expand_samples(np.where(error <= trust, error, 0.0), axis)
        )

    def _first_step(
        self, f: ir.Expr, target: str | sympy.Symbol, h: Pair, largest: np.ndarray
    ) -> np.ndarray:
        """Per sample, a first step that moves no power's base by more than 1%.

        The nonlinearity of an IR expression lives in its powers; the rate |D B(h)/B| of
        each derivative-free base B (by complex step) sets the length scale — about σ for
        the core, however large the offset of the input; about q + ε for ε.
        """
        rate = np.zeros(self.env.n)
        for base in power_bases(f, target):
            # A scratch evaluator: a base may be undefined where f is not (e.g. a base
            # that is only defined after a substitution).
            scratch = self._child(replace(self.env, track=False), Status(self.env.n))
            try:
                value = np.real(scratch.value(base))
                if isinstance(target, str):
                    change, _ = scratch.directional(base, ir.VectorAtom(target), (h[0], 0.0))
                else:
                    change, _ = scratch.scalar_derivative(base, target)
            except DomainError:
                continue
            ratio = np.abs(np.broadcast_to(change, np.broadcast_shapes(change.shape, value.shape)))
            ratio = np.where(value != 0, ratio / np.abs(np.where(value != 0, value, 1)), 0)
            ratio = per_sample(ratio, self.env.n, 1, np.max)
            rate = np.fmax(rate, np.where(scratch.status.code > 0, 0, ratio))
        return np.where(rate > 0, np.minimum(largest, 0.01 / np.where(rate > 0, rate, 1)), largest)

    def pulled_back(
        self, f: ir.Expr, wrt: ir.VectorAtom, cotangent: ir.Expr | None = None
    ) -> Pair | None:
        """J_f(wrt)ᵀ·cotangent (without one, the gradient of f) in reverse mode: the adjoint
        expression of :mod:`~lnsym.engines.numeric.adjoint`, evaluated like any other (O(d)
        per sample, not the d directions of a Jacobian). None where f has no adjoint there (a
        derivative or a substitution inside) or a value is complex or a Dual (a step passing
        through)."""
        values = itertools.chain(self.env.vectors.values(), self.env.scalars.values())
        if not REVERSE_MODE or any(np.iscomplexobj(value) for value, _ in values):
            return None
        found = adjoint(f, wrt, cotangent)
        return None if found is None else self.get(found)

    def _tangents(self, f: ir.Expr, wrt: ir.VectorAtom, basis: np.ndarray) -> Pair:
        """D_wrt f along each direction of ``basis`` (leading axes), in forward mode: ``wrt``
        becomes a :class:`~lnsym.engines.numeric.dual.Dual` whose tangents are the
        directions, and f's tangents are the derivatives, with their bounds."""
        x, bx = self.get(wrt)
        moved = cast(np.ndarray, Dual(x, basis))  # (it stands in for a complex array)
        value, bound = self._child(self.env.with_vector(wrt.name, (moved, bx))).get(f)
        if not self.env.track or is_exact(bound):
            return np.imag(value), 0.0
        return np.imag(value), np.imag(bound)

    def jacobian(self, f: ir.Expr, wrt: ir.VectorAtom, transposed: bool = False) -> Pair:
        """The Jacobian (*batch, d_out, d) of a vector ``f`` (its transpose if asked), or the
        gradient (*batch, d), C-ordered."""
        env, d = self.env, self.env.d
        pad = (1,) * env.batch
        shapes = [np.shape(v)[:-1] for v, _ in env.vectors.values()]
        shapes += [np.shape(s) for s, _ in env.scalars.values()]
        entries_per_row = math.prod(np.broadcast_shapes(*shapes, ())) * d
        chunk = max(1, _MAX_BATCH_ENTRIES // entries_per_row)
        forward = has_forward_tangents(f) and not np.iscomplexobj(self.get(wrt)[0])
        # The basis axis of each chunk leads; it goes last in the result, so that
        # J[..., i, j] = ∂fᵢ/∂wrtⱼ: each chunk is written into its place, one copy.
        axis = -2 if transposed and f.kind == "vector" else -1
        out = bounds = None
        for start in range(0, d, chunk):
            rows = np.zeros((min(chunk, d - start), d), env.real)
            rows[range(len(rows)), range(start, start + len(rows))] = 1
            basis = rows.reshape((len(rows),) + pad + (d,))
            if forward:
                part, bound = self._tangents(f, wrt, basis)
            else:
                part, bound = self.directional(f, wrt, (basis, 0.0))
            target = (len(rows),) + pad + ((d,) if f.kind == "vector" else ())
            # (the bound too: a linear f has the same tangents at every sample, not bounds)
            shape = np.broadcast_shapes(part.shape, np.shape(bound), target)
            if out is None:
                out = _basis_last(shape[1:], d, axis, np.result_type(part))
                if env.track:
                    bounds = _basis_last(shape[1:], d, axis, np.result_type(bound))
            place = (Ellipsis, slice(start, start + len(rows))) + (slice(None),) * (-1 - axis)
            out[place] = np.moveaxis(np.broadcast_to(part, shape), 0, axis)
            if bounds is not None:
                bounds[place] = np.moveaxis(np.broadcast_to(bound, shape), 0, axis)
        assert out is not None
        return out, (0.0 if bounds is None else bounds)


def _basis_last(shape: tuple[int, ...], d: int, axis: int, dtype: np.dtype) -> np.ndarray:
    """An empty C-ordered array for a Jacobian whose chunks have the trailing ``shape``
    without their basis axis, with the d basis directions at ``axis`` (−1 or −2)."""
    full = list(shape)
    full.insert(len(full) + axis + 1, d)
    return np.empty(full, dtype)
