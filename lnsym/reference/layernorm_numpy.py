"""Layer normalization of a batch of row vectors, written from the derived formulas.

Each row z of an (n, d) array is one token with d features, normalized over its own
features. The names in brackets are the claims of the catalog that prove each line.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.floating]


class Cache(NamedTuple):
    """What the backward pass needs from the forward pass."""

    u: Array  # the core, (n, d)
    s: Array  # √(q + ε) per row, (n, 1)
    gamma: Array  # the gain, (d,)


def row_mean(a: Array) -> Array:
    """The mean over the features (last axis), kept as a column for broadcasting."""
    return a.mean(axis=-1, keepdims=True)


def forward(z: Array, gamma: Array, beta: Array, eps: float) -> tuple[Array, Cache]:
    """y = γ ⊙ u + β for every row z of the (n, d) array z; returns y and the cache.

    >>> y, _ = forward(np.array([[1.0, 2.0, 4.0]]), np.ones(3), np.zeros(3), eps=1 / 3)
    >>> y * np.sqrt(17)  # u = (−4, −1, 5)/√17
    array([[-4., -1.,  5.]])
    """
    pz = z - row_mean(z)  # Pz = z − μ(z)1  [centering.subtracts_mean]
    # q = ‖Pz‖²/d from the centered values (two passes), so that a large common
    # offset cancels before squaring  [variance.shift_invariant]
    q = row_mean(pz * pz)
    s = np.sqrt(q + eps)  # s = √(q + ε)
    # u = Pz/s, with mean 0 and variance q/(q + ε)  [core.mean_zero, core.variance]
    u = pz / s
    y = gamma * u + beta  # y = γ ⊙ u + β  [source.layer_definition]
    return y, Cache(u, s, gamma)


def backward(g: Array, cache: Cache) -> tuple[Array, Array, Array]:
    """From g = ∂ℓ/∂y, shape (n, d): ∂ℓ/∂z (n, d), ∂ℓ/∂γ (d,) and ∂ℓ/∂β (d,)."""
    u, s, gamma = cache
    g_hat = gamma * g  # ĝ = γ ⊙ g  [source.normalized_input_gradient]
    # ∂ℓ/∂z = Jᵀĝ = (ĝ − mean(ĝ)1 − u·mean(ĝ ⊙ u))/s, row by row
    # [gradient.input, batch.backprop.input_layer_norm]
    dz = (g_hat - row_mean(g_hat) - u * row_mean(g_hat * u)) / s
    # Every row uses the same γ and β: their per-row gradients g ⊙ u and g add up
    # [gradient.gain, gradient.bias, batch.backprop.gamma, batch.backprop.beta]
    dgamma = (g * u).sum(axis=0)
    dbeta = g.sum(axis=0)
    return dz, dgamma, dbeta
