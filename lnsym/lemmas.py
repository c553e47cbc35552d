"""Standard facts that lnsym cites instead of proving, for use with :func:`lnsym.proof.by_lemma`.

Each is textbook material; a claim proved "by lemma" is PROVED only when every premise it
names is itself PROVED by the engines.
"""

from __future__ import annotations

from lnsym.proof import Lemma

SPECTRAL_NORM = Lemma(
    "spectral-norm",
    "A symmetric matrix whose eigenvectors span ℝ^d has operator 2-norm equal to the "
    "largest absolute value of its eigenvalues.",
    "spectral theorem; e.g. Horn & Johnson, Matrix Analysis, 2nd ed., Thm. 4.1.5 and §5.6",
)

MEAN_VALUE_INEQUALITY = Lemma(
    "mean-value-inequality",
    "If a differentiable map on ℝ^d satisfies ‖Df(x)h‖ ≤ L‖h‖ for all x and h, then "
    "‖f(x + h) − f(x)‖ ≤ L‖h‖ for all x and h.",
    "mean value inequality; e.g. Rudin, Principles of Mathematical Analysis, Thm. 9.19",
)
