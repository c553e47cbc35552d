"""The report's figures, drawn with matplotlib from the closed-form formulas.

Every figure is computed with numpy directly from the formulas it illustrates (no engine
is involved) and saved reproducibly: matplotlib's built-in defaults instead of the user's
style, a fixed SVG hash salt, no dates or version strings in the metadata, and a fixed
figure size — so two runs, on any machine with the same matplotlib, give identical bytes.
SVG goes into the Markdown report, PDF into the LaTeX one.

>>> [f.name for f in FIGURES]
['geometry', 'sensitivity', 'jacobian_eigenvalues']
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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
        size: width and height in inches.
    """

    name: str
    title: str
    caption: str
    near: tuple[str, ...]
    draw: Callable[[Any], None]
    size: tuple[float, float] = (6.0, 3.4)


#: The d = 3 geometry figure: ε, and the inputs as (‖Pz‖, angle in 1⊥, offset along 1).
GEOMETRY_EPS = 0.5
GEOMETRY_INPUTS = ((0.45, 2.2, 0.3), (0.9, 0.5, 1.2), (2.4, 4.6, -0.6))


def _plane_basis() -> tuple[np.ndarray, np.ndarray]:
    """An orthonormal basis of the plane 1⊥ in ℝ³."""
    return np.array([1.0, -1.0, 0.0]) / np.sqrt(2.0), np.array([1.0, 1.0, -2.0]) / np.sqrt(6.0)


def _geometry(fig: Any) -> None:
    e1, e2 = _plane_basis()
    ones = np.ones(3) / np.sqrt(3.0)
    d, eps = 3, GEOMETRY_EPS
    angle = np.linspace(0.0, 2.0 * np.pi, 241)
    rim = np.sqrt(d)  # the radius √d that ‖u‖ approaches as ε → 0

    ax = fig.add_subplot(1, 2, 1, projection="3d")
    ax.set_title("inputs z and their centered parts Pz")
    grid = np.linspace(-2.6, 2.6, 2)
    a, b = np.meshgrid(grid, grid)
    plane = a[..., None] * e1 + b[..., None] * e2
    ax.plot_surface(plane[..., 0], plane[..., 1], plane[..., 2], alpha=0.15, color="C0")
    ring = rim * (np.cos(angle)[:, None] * e1 + np.sin(angle)[:, None] * e2)
    ax.plot(ring[:, 0], ring[:, 1], ring[:, 2], "--", color="0.4", linewidth=0.8)
    ax.plot(*np.array([-2.0 * ones, 2.0 * ones]).T, color="0.2", linewidth=0.8)
    ax.text(*(2.1 * ones), r"$\mathbf{1}$", color="0.2")
    for k, (rho, theta, offset) in enumerate(GEOMETRY_INPUTS):
        pz = rho * (np.cos(theta) * e1 + np.sin(theta) * e2)
        z = pz + offset * np.sqrt(3.0) * ones
        ax.plot(*np.array([z, pz]).T, ":", color=f"C{k + 1}")
        ax.scatter(*z, color=f"C{k + 1}", marker="o", s=14)
        ax.scatter(*pz, facecolors="none", edgecolors=f"C{k + 1}", s=18)
    ax.set_xlabel("z₁")
    ax.set_ylabel("z₂")
    ax.view_init(elev=30.0, azim=-20.0)  # 1⊥ seen at an angle, neither flat nor edge-on

    ax = fig.add_subplot(1, 2, 2)
    ax.set_title(rf"the plane $\mathbf{{1}}^\perp$, ε = {eps:g}")
    ax.plot(rim * np.cos(angle), rim * np.sin(angle), "--", color="0.4", linewidth=0.8,
            label="radius √d (ε → 0)")  # fmt: skip
    for k, (rho, theta, _) in enumerate(GEOMETRY_INPUTS):
        q = rho**2 / d
        s = np.sqrt(q + eps)
        radius = np.sqrt(d * q / (q + eps))  # = ‖u‖ = ρ/s
        direction = np.array([np.cos(theta), np.sin(theta)])
        color = f"C{k + 1}"
        ax.plot(radius * np.cos(angle), radius * np.sin(angle), ":", color=color, linewidth=0.8)
        ax.scatter(*(rho * direction), facecolors="none", edgecolors=color, s=18)
        ax.scatter(*(radius * direction), color=color, s=18)
        if k == 1:  # J at this u: tangent steps scaled by 1/s, radial ones by ε/((q + ε)s)
            u = radius * direction
            tangent = np.array([-direction[1], direction[0]])
            for h, gain in ((0.8 * tangent, 1.0 / s), (0.8 * direction, eps / ((q + eps) * s))):
                ax.annotate("", u + h, u, arrowprops={"arrowstyle": "->", "color": "0.6"})
                ax.annotate("", u + gain * h, u, arrowprops={"arrowstyle": "->", "color": "k"})
    ax.scatter([], [], facecolors="none", edgecolors="0.3", s=18, label="Pz")
    ax.scatter([], [], color="0.3", s=18, label="u = Pz/s")
    ax.plot([], [], color="0.6", label="step h")
    ax.plot([], [], color="k", label="J h")
    ax.set_aspect("equal")
    ax.set_xlim(-2.7, 2.7)
    ax.set_ylim(-2.7, 2.7)
    ax.set_xlabel("along (1, −1, 0)/√2")
    ax.set_ylabel("along (1, 1, −2)/√6")
    ax.legend(loc="upper left", fontsize=7.0)


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
        "geometry",
        "The geometry of the core for d = 3",
        "Left: three inputs z (dots) and their centered parts Pz (rings), reached by moving "
        "along 𝟏 onto the plane 𝟏⊥ of vectors with mean zero. Right: the same plane seen from "
        "above, with ε = 0.5. Each core u = Pz/s lies on the circle of radius "
        "√(dq/(q + ε)) (dotted), inside the circle of radius √d that it approaches as "
        "ε → 0 (dashed). At the middle input, the Jacobian keeps a step h along the circle, "
        "scaled by 1/s, and shrinks a step along u by ε/(q + ε) more (grey: h, black: J h).",
        ("jacobian.eigen_core", "jacobian.eigen_orthogonal"),
        _geometry,
        size=(7.0, 3.6),
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
    return render_figures(spec, (fmt,))[fmt]


def render_figures(spec: FigureSpec, formats: Sequence[str]) -> dict[str, bytes]:
    """The bytes of one figure in each of ``formats``, the figure drawn once for all of
    them (saving it in one format leaves it as it was: the bytes are those of a figure
    drawn for each format alone, which the tests compare).

    Raises:
        ValueError: for a format other than ``"svg"`` and ``"pdf"``.
    """
    unknown = [fmt for fmt in formats if fmt not in FORMATS]
    if unknown:
        raise ValueError(f"unknown figure format {unknown[0]!r}")
    out = {fmt: _DRAWN_ELSEWHERE[(spec, fmt)] for fmt in formats if (spec, fmt) in _DRAWN_ELSEWHERE}
    missing = tuple(fmt for fmt in dict.fromkeys(formats) if fmt not in out)
    if missing:
        out.update(zip(missing, _rendered(spec, missing), strict=True))
    return {fmt: out[fmt] for fmt in formats}


#: Bytes of figures drawn by another process of this run (:mod:`lnsym.report.ahead`): the
#: bytes :func:`_rendered` gives, a figure being a pure function of its spec.
_DRAWN_ELSEWHERE: dict[tuple[FigureSpec, str], bytes] = {}


def keep_drawn(spec: FigureSpec, fmt: str, data: bytes) -> None:
    """Remember the bytes of ``spec`` in ``fmt``, drawn by another process of this run."""
    _DRAWN_ELSEWHERE[(spec, fmt)] = data


@lru_cache(maxsize=64)
def _rendered(spec: FigureSpec, formats: tuple[str, ...]) -> tuple[bytes, ...]:
    # A figure is a pure function of its spec: rendering it again (a report and its
    # --check, in one process) would give the same bytes at the cost of matplotlib.
    import matplotlib
    from matplotlib.figure import Figure

    out = []
    with matplotlib.rc_context():
        matplotlib.rcdefaults()  # ignore the user's matplotlibrc and style
        matplotlib.rcParams.update(_RC)  # type: ignore[arg-type]  # the stubs want literal keys
        fig = Figure(figsize=spec.size)
        spec.draw(fig)
        fig.tight_layout()
        for fmt in formats:
            buffer = io.BytesIO()
            fig.savefig(buffer, format=fmt, metadata=_METADATA[fmt])
            out.append(buffer.getvalue())
    return tuple(out)
