"""Operator norms: ‖J‖₂ of batched Jacobians by Lanczos, with a bound on its error.

An operator norm is √λ_max(JᵀJ) by Lanczos with full reorthogonalization, applying J and Jᵀ
as matrix-vector products without BLAS: the Jacobians of the catalog have two or three
distinct singular values, so the Krylov space is invariant after as many steps. LAPACK's
O(d³) ``eigvalsh`` of JᵀJ — slow at d = 768, and slower still under load with BLAS threads,
which a library cannot pin without a dependency — is left for Jacobians whose Krylov space
is not invariant within 24 steps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lnsym.engines.numeric.arrays import bound_sum, is_exact
from lnsym.engines.numeric.environment import Pair

#: Lanczos steps before an operator norm falls back to LAPACK's eigvalsh.
_LANCZOS_STEPS = 24


def operator_norm(jac: np.ndarray, bound: Any, u: float, track: bool) -> Pair:
    """‖J‖₂ = √λ_max(JᵀJ) of a real Jacobian (*batch, d_out, d) (see the module
    docstring), with the bound ‖B_J‖_F (Weyl) plus the eigensolver's error; ``u`` is the
    unit roundoff, and without ``track`` the bound is 0.0."""
    lead, (rows, cols) = jac.shape[:-2], jac.shape[-2:]
    flat = jac.reshape(-1, rows, cols)
    finite = np.all(np.isfinite(flat), axis=(1, 2))
    flat = np.where(finite[:, None, None], flat, 0)  # flagged samples: no LAPACK on NaN
    top, residual = top_eigenvalue(flat)
    sigma = np.sqrt(np.maximum(top, 0))
    out = np.where(finite, sigma, np.nan).reshape(lead)
    if not track:
        return out, 0.0
    # Forming JᵀJ and the eigensolver's backward error: (d + 8)·u·‖J‖_F² at most.
    spread = residual + (cols + 8) * u * np.sum(flat * flat, axis=(1, 2))
    change = spread / np.where(spread > 0, sigma + np.sqrt(sigma * sigma + spread), 1)
    own = 0.0 if is_exact(bound) else np.sqrt(np.sum(np.real(bound) ** 2, axis=(-1, -2)))
    return out, bound_sum((change + u * sigma).reshape(lead), own)


def top_eigenvalue(jac: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
