"""The report's figures, drawn with matplotlib from the closed-form formulas.

Every figure is computed with numpy directly from the formulas it illustrates (no engine
is involved) and saved reproducibly: matplotlib's built-in defaults instead of the user's
style, a fixed SVG hash salt, no dates or version strings in the metadata, and a fixed
figure size — so two runs, on any machine with the same matplotlib, give identical bytes.
SVG goes into the Markdown report, PDF into the LaTeX one.

>>> [f.name for f in FIGURES]
['core_variance', 'sensitivity', 'jacobian_eigenvalues']
>>> inverse_variance(Fraction(1, 25), Fraction(9, 10))
Fraction(9, 25)
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

#: Figure output formats, by report format that embeds them.
FORMATS = ("svg", "pdf")

_RC: dict[str, Any] = {
    "svg.hashsalt": "lnsym",  # element ids are derived from it instead of random
    "svg.fonttype": "path",  # glyphs as paths: identical on every viewer
    "pdf.fonttype": 42,
    "font.size": 9.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.figsize": (6.0, 3.4),
    "savefig.bbox": None,  # "tight" depends on font metrics; keep the fixed size
    "path.simplify": False,
}
_METADATA = {
    "svg": {"Date": None, "Creator": None, "Format": None, "Type": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Creator": None, "Producer": None},
}


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the report.

    Args:
        name: the file stem under ``figures/``.
        title: short alternative text.
        caption: the caption, plain Unicode text.
        near: claim ids; the figure is placed in the first section holding one of them
            (else in a closing section of its own).
        draw: fills a matplotlib ``Figure``.
    """

    name: str
    title: str
    caption: str
    near: tuple[str, ...]
    draw: Callable[[Any], None]


def inverse_variance(eps: Fraction, r: Fraction) -> Fraction:
    """The input variance q = εr/(1 − r) whose core has variance r (0 ≤ r < 1).

    >>> inverse_variance(Fraction(1, 4), Fraction(1, 2))
    Fraction(1, 4)
    """
    return eps * r / (1 - r)


def _core_variance(fig: Any) -> None:
    ax = fig.add_subplot()
    q = np.linspace(0.0, 2.0, 401)
    for eps in (0.01, 0.04, 0.25, 1.0):
        ax.plot(q, q / (q + eps), label=f"ε = {eps:g}")
    eps_mark, r_mark = Fraction(1, 25), Fraction(9, 10)
    q_mark = inverse_variance(eps_mark, r_mark)
    ax.plot([float(q_mark)] * 2, [0.0, float(r_mark)], ":", color="0.3")
    ax.plot([0.0, float(q_mark)], [float(r_mark)] * 2, ":", color="0.3")
    ax.plot([float(q_mark)], [float(r_mark)], "o", color="C1")
    ax.annotate(
        f"ε = {float(eps_mark):g}, r = {float(r_mark):g}\nq = εr/(1 − r) = {float(q_mark):g}",
        xy=(float(q_mark), float(r_mark)),
        xytext=(0.62, 0.52),
        arrowprops={"arrowstyle": "->", "color": "0.3"},
    )
    ax.axhline(1.0, color="0.5", linestyle="--", linewidth=0.8)
    ax.set_xlim(0.0, 2.0)
    ax.set_ylim(0.0, 1.05)
    ax.set_xlabel("input variance q = q(z)")
    ax.set_ylabel("core variance r = q/(q + ε)")
    ax.legend(loc="lower right")


def _sensitivity(fig: Any) -> None:
    ax = fig.add_subplot()
    z = np.array([7.0, 7.0])
    h = np.array([1e-3, -1e-3])
    eps = np.logspace(-10.0, 0.0, 201)

    def core(v: np.ndarray, e: np.ndarray) -> np.ndarray:
        centered = v - v.mean()  # two-pass: exact centering even at a large offset
        q = np.mean(centered**2)
        return centered[None, :] / np.sqrt(q + e)[:, None]

    ratio = np.linalg.norm(core(z + h, eps) - core(z, eps), axis=1) / np.linalg.norm(h)
    ax.loglog(eps, 1.0 / np.sqrt(eps), "--", color="0.4", label="bound 1/√ε")
    ax.loglog(eps, ratio, color="C0", label="‖u(z + h) − u(z)‖ / ‖h‖")
    ax.axvline(1e-6, color="C1", linestyle=":", label="ε = q(z + h) = 10⁻⁶")
    ax.set_xlabel("ε")
    ax.set_ylabel("amplification")
    ax.legend(loc="upper right")
    ax.set_title("z = (7, 7), h = (10⁻³, −10⁻³)")


def _jacobian_eigenvalues(fig: Any) -> None:
    ax = fig.add_subplot()
    eps = 0.25
    q = np.linspace(0.0, 3.0, 301)
    s = np.sqrt(q + eps)
    ax.plot(q, 1.0 / s, label="1/s  (centered directions ⊥ u)")
    ax.plot(q, eps / ((q + eps) * s), label="ε/((q + ε)s)  (along u)")
    ax.plot(q, np.zeros_like(q), label="0  (along 1)")
    ax.axhline(1.0 / np.sqrt(eps), color="0.4", linestyle="--", linewidth=0.8, label="1/√ε")
    ax.set_xlim(0.0, 3.0)
    ax.set_ylim(-0.1, 2.2)
    ax.set_xlabel("input variance q")
    ax.set_ylabel("eigenvalue of J")
    ax.set_title("ε = 0.25")
    ax.legend(loc="center right")


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        "core_variance",
        "Variance of the core against the input variance",
        "The variance of the core, r = q/(q + ε), against the variance q of the input, for "
        "four values of ε. It stays below 1 for every q. Read backwards, the curve gives the "
        "input variance q = εr/(1 − r): for ε = 0.04 and r = 0.9 it is q = 0.36 (marked).",
        ("core.variance", "derivation.core_variance"),
        _core_variance,
    ),
    FigureSpec(
        "sensitivity",
        "Amplification of a small change near a constant input",
        "How much the core amplifies the change h = (10⁻³, −10⁻³) of the constant input "
        "z = (7, 7), against ε, with the uniform bound 1/√ε. While ε is large compared with "
        "q(z + h) = 10⁻⁶ the bound is attained; for smaller ε the ratio levels off at "
        "1/√q(z + h) = 1000.",
        ("sensitivity.bound", "sensitivity.attained"),
        _sensitivity,
    ),
    FigureSpec(
        "jacobian_eigenvalues",
        "Eigenvalues of the Jacobian of the core",
        "The eigenvalues of J = (P − uuᵀ/d)/s against the input variance q for ε = 0.25: "
        "1/s on centered directions orthogonal to u (d − 2 of them), ε/((q + ε)s) along u, "
        "and 0 along 1. Both nonzero eigenvalues are at most 1/√ε, with equality only at "
        "q = 0 (a constant input).",
        ("jacobian.eigen_core", "jacobian.eigen_orthogonal", "jacobian.closed_form"),
        _jacobian_eigenvalues,
    ),
)


def render_figure(spec: FigureSpec, fmt: str) -> bytes:
    """The bytes of one figure in ``fmt`` (``"svg"`` or ``"pdf"``), reproducibly.

    Raises:
        ValueError: for another format.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r}")
    return _rendered(spec, fmt)


@lru_cache(maxsize=64)
def _rendered(spec: FigureSpec, fmt: str) -> bytes:
    # A figure is a pure function of its spec: rendering it again (a report and its
    # --check, in one process) would give the same bytes at the cost of matplotlib.
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context():
        matplotlib.rcdefaults()  # ignore the user's matplotlibrc and style
        matplotlib.rcParams.update(_RC)  # type: ignore[arg-type]  # the stubs want literal keys
        fig = Figure()
        spec.draw(fig)
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, metadata=_METADATA[fmt])
    return buffer.getvalue()
