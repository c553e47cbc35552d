"""How a worked example shows its quantities: sections, symbols and formulas.

:data:`LABELS` gives each field of :class:`~lnsym.exact.examples.WorkedExample` its section,
its symbol and its formula, in plain text and in LaTeX (bold vectors as the IR's LaTeX
printer writes them); :class:`Row` is one quantity ready to be shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from lnsym import ir
from lnsym.exact.values import ExampleValue
from lnsym.printing.printer import latex as _ir_latex

#: The sections of a worked example, in order: key → heading.
SECTIONS = {
    "input": "Input",
    "forward": "Forward pass",
    "jacobian": "Jacobian with respect to z",
    "backward": "Gradients",
    "perturbation": "Finite perturbation",
}


@dataclass(frozen=True)
class Row:
    """One displayed quantity: its key, section, symbol and formula (text and LaTeX), value.

    ``formula`` and ``latex_formula`` are empty for inputs.
    """

    key: str
    section: str
    symbol: str
    formula: str
    latex_symbol: str
    latex_formula: str
    value: ExampleValue


def labelled_rows(
    labels: Mapping[str, tuple[str, str, str, str, str]],
    value_of: Callable[[str], ExampleValue | None],
    upstream_given: bool,
) -> list[Row]:
    """The rows of ``labels`` (key → section, symbols, formulas) whose value is computed,
    in order; a given upstream gradient is an input, without a formula."""
    out = []
    for key, (section, symbol, formula, latex_symbol, latex_formula) in labels.items():
        value = value_of(key)
        if value is None:
            continue
        if key == "upstream" and upstream_given:
            section, formula, latex_formula = "input", "", ""  # given, not computed
        out.append(Row(key, section, symbol, formula, latex_symbol, latex_formula, value))
    return out


def by_section(rows: Sequence[Row], sections: Mapping[str, str]) -> list[tuple[str, list[Row]]]:
    """(title, its rows) for every section of ``sections`` (key → title) that has rows, in
    the order of ``sections``."""
    return [
        (title, [r for r in rows if r.section == key])
        for key, title in sections.items()
        if any(r.section == key for r in rows)
    ]


def _labels() -> dict[str, tuple[str, str, str, str, str]]:
    """key → (section, text symbol, text formula, LaTeX symbol, LaTeX formula)."""
    # Bold vector names exactly as the IR's LaTeX printer writes them.
    z, gamma, beta, u, y, g, h = (
        _ir_latex(ir.vector(n)) for n in ("z", "gamma", "beta", "u", "y", "g", "h")
    )
    g_hat, one = rf"\hat{{{g}}}", r"\mathbf{1}"
    return {
        "z": ("input", "z", "", z, ""),
        "gamma": ("input", "γ", "", gamma, ""),
        "beta": ("input", "β", "", beta, ""),
        "perturbation": ("input", "h", "", h, ""),
        "mean": (
            "forward",
            "μ",
            "⟨1, z⟩/d",
            r"\mu",
            rf"\frac{{1}}{{d}} \langle {one}, {z} \rangle",
        ),
        "centered": ("forward", "Pz", "z - μ·1", f"P {z}", rf"{z} - \mu {one}"),
        "variance": ("forward", "q", "‖Pz‖²/d", "q", rf"\frac{{1}}{{d}} \lVert P {z} \rVert^{{2}}"),
        "variance_plus_eps": ("forward", "q + ε", "", r"q + \varepsilon", ""),
        "scale": ("forward", "s", "√(q + ε)", "s", r"\sqrt{q + \varepsilon}"),
        "core": ("forward", "u", "Pz/s", u, rf"u_{{\varepsilon}}({z}) = \frac{{P {z}}}{{s}}"),
        "core_mean": ("forward", "μ(u)", "", rf"\mu({u})", ""),
        "core_variance": ("forward", "q(u)", "q/(q + ε)", f"q({u})", r"\frac{q}{q + \varepsilon}"),
        "output": ("forward", "y", "γ ⊙ u + β", y, rf"{gamma} \odot {u} + {beta}"),
        "output_mean": ("forward", "μ(y)", "", rf"\mu({y})", ""),
        "output_variance": ("forward", "q(y)", "", f"q({y})", ""),
        "jacobian": (
            "jacobian",
            "J",
            "(P - u·uᵀ/d)/s",
            "J",
            rf"\frac{{1}}{{s}} \left(P - \frac{{{u} {u}^{{\mathsf{{T}}}}}}{{d}}\right)",
        ),
        "output_jacobian": ("jacobian", "diag(γ)·J", "", rf"\operatorname{{diag}}({gamma}) J", ""),
        "loss_value": (
            "backward",
            "ℓ",
            "½‖y‖²",
            r"\ell",
            rf"\frac{{1}}{{2}} \lVert {y} \rVert^{{2}}",
        ),
        "upstream": ("backward", "g", "∂ℓ/∂y = y", g, rf"\partial \ell / \partial {y} = {y}"),
        "grad_beta": ("backward", "∂ℓ/∂β", "g", rf"\partial \ell / \partial {beta}", g),
        "grad_gamma": (
            "backward",
            "∂ℓ/∂γ",
            "g ⊙ u",
            rf"\partial \ell / \partial {gamma}",
            rf"{g} \odot {u}",
        ),
        "scaled_upstream": ("backward", "ĝ", "γ ⊙ g", g_hat, rf"{gamma} \odot {g}"),
        "grad_z": (
            "backward",
            "∂ℓ/∂z",
            "(ĝ - μ(ĝ)·1 - μ(ĝ ⊙ u)·u)/s",
            rf"\partial \ell / \partial {z}",
            rf"\frac{{1}}{{s}} \left({g_hat} - \mu({g_hat}) {one}"
            rf" - \mu({g_hat} \odot {u}) {u}\right)",
        ),
        "perturbation_ratio": (
            "perturbation",
            "‖y(z + h) - y(z)‖/‖h‖",
            "",
            rf"\lVert {y}({z} + {h}) - {y}({z}) \rVert / \lVert {h} \rVert",
            "",
        ),
        "lipschitz_bound": (
            "perturbation",
            "L",
            "max|γᵢ|/√ε",
            "L",
            r"\max_i \lvert \gamma_i \rvert / \sqrt{\varepsilon}",
        ),
    }


#: How each quantity is shown, in the order shown (inputs first, then QUANTITIES and the bound).
LABELS = _labels()
