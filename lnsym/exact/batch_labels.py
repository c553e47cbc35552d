"""How a batch example shows its quantities: sections, symbols and formulas for each layer.

Entries are indexed t (row: a case of the batch) and j (column: a feature), groups of group
norm k; a statistic carries the index of the block it is taken over (μₜ per row, μⱼ per
column, μₜₖ per row and group), so each formula names its axis. :func:`batch_labels` gives
each key its section, symbol and formula in text and in LaTeX (matrices and vectors bold as
the IR's LaTeX printer writes them).

>>> labels = batch_labels("batch_norm")
>>> labels["mean"][1:3], labels["grad_gamma"][1:3]
(('μⱼ', 'meanₜ zₜⱼ'), ('∂ℓ/∂γⱼ', 'Σₜ gₜⱼ·uₜⱼ'))
"""

from __future__ import annotations

from lnsym import ir
from lnsym.ir.matrices import matrix
from lnsym.ir.names import d, n
from lnsym.printing.printer import latex as _ir_latex

#: The sections of a batch example, in order: key → heading.
SECTIONS = {"input": "Input", "forward": "Forward pass", "backward": "Gradients"}

#: The layers' names in titles.
LAYER_NAMES = {
    "layer_norm": "layer normalization",
    "rms_norm": "RMS normalization",
    "batch_norm": "batch normalization (training mode)",
    "group_norm": "group normalization",
}

Label = tuple[str, str, str, str, str]


def _axis(layer: str) -> tuple[str, str, str, str, str, str]:
    """(text index of a statistic, text mean operator, LaTeX index, LaTeX mean, text scale
    symbol, LaTeX scale symbol) of ``layer``."""
    if layer == "batch_norm":
        return "ⱼ", "meanₜ", "j", r"\frac{1}{n} \sum_{t}", "sⱼ", "s_{j}"
    if layer == "group_norm":
        return "ₜₖ", "meanₖ", "tk", r"\frac{G}{d} \sum_{j \in k}", "sₜₖ", "s_{tk}"
    if layer == "rms_norm":
        return "ₜ", "meanⱼ", "t", r"\frac{1}{d} \sum_{j}", "rₜ", "r_{t}"
    return "ₜ", "meanⱼ", "t", r"\frac{1}{d} \sum_{j}", "sₜ", "s_{t}"


def batch_labels(layer: str) -> dict[str, Label]:
    """key → (section, text symbol, text formula, LaTeX symbol, LaTeX formula)."""
    z, y, g = (_ir_latex(matrix(name, n, d)) for name in ("Z", "Y", "G"))
    gamma, beta = _ir_latex(ir.vector("gamma")), _ir_latex(ir.vector("beta"))
    i, mean, li, lmean, s, ls = _axis(layer)
    letter = {"batch_norm": "t", "group_norm": "k"}.get(layer, "j")  # what a mean runs over
    lmean_op = rf"\operatorname{{mean}}_{{{letter}}}"
    labels: dict[str, Label] = {
        "z": ("input", "Z", "", z, ""),
        "gamma": ("input", "γ", "", gamma, ""),
        "beta": ("input", "β", "", beta, ""),
    }
    if layer == "rms_norm":
        labels.update(
            {
                "mean_square": ("forward", "mₜ", "meanⱼ zₜⱼ²", "m_{t}", rf"{lmean} z_{{tj}}^{{2}}"),
                "mean_square_plus_eps": ("forward", "mₜ + ε", "", r"m_{t} + \varepsilon", ""),
                "rms": ("forward", "rₜ", "√(mₜ + ε)", "r_{t}", r"\sqrt{m_{t} + \varepsilon}"),
                "core": ("forward", "uₜⱼ", "zₜⱼ/rₜ", "u_{tj}", r"\frac{z_{tj}}{r_{t}}"),
                "core_mean_square": (
                    "forward",
                    "meanⱼ uₜⱼ²",
                    "mₜ/(mₜ + ε)",
                    r"\operatorname{mean}_{j} u_{tj}^{2}",
                    r"\frac{m_{t}}{m_{t} + \varepsilon}",
                ),
                "output": ("forward", "yₜⱼ", "γⱼ·uₜⱼ", "y_{tj}", r"\gamma_{j} u_{tj}"),
            }
        )
    else:
        labels.update(
            {
                "mean": ("forward", f"μ{i}", f"{mean} zₜⱼ", rf"\mu_{{{li}}}", f"{lmean} z_{{tj}}"),
                "centered": (
                    "forward",
                    "cₜⱼ",
                    f"zₜⱼ - μ{i}",
                    "c_{tj}",
                    rf"z_{{tj}} - \mu_{{{li}}}",
                ),
                "variance": (
                    "forward",
                    f"q{i}",
                    f"{mean} cₜⱼ²",
                    f"q_{{{li}}}",
                    f"{lmean} c_{{tj}}^{{2}}",
                ),
                "variance_plus_eps": (
                    "forward",
                    f"q{i} + ε",
                    "",
                    rf"q_{{{li}}} + \varepsilon",
                    "",
                ),
                "scale": ("forward", s, f"√(q{i} + ε)", ls, rf"\sqrt{{q_{{{li}}} + \varepsilon}}"),
                "core": ("forward", "uₜⱼ", f"cₜⱼ/{s}", "u_{tj}", rf"\frac{{c_{{tj}}}}{{{ls}}}"),
                "core_mean": ("forward", f"{mean} uₜⱼ", "", f"{lmean_op} u_{{tj}}", ""),
                "core_variance": (
                    "forward",
                    f"{mean} (uₜⱼ - {mean} uₜⱼ)²",
                    f"q{i}/(q{i} + ε)",
                    rf"\operatorname{{var}}_{{{letter}}} u_{{tj}}",
                    rf"\frac{{q_{{{li}}}}}{{q_{{{li}}} + \varepsilon}}",
                ),
                "output": (
                    "forward",
                    "yₜⱼ",
                    "γⱼ·uₜⱼ + βⱼ",
                    "y_{tj}",
                    r"\gamma_{j} u_{tj} + \beta_{j}",
                ),
            }
        )
    rms = layer == "rms_norm"
    grad_z_text = (
        f"(ĝₜⱼ - uₜⱼ·{mean}(ĝₜⱼ·uₜⱼ))/{s}"
        if rms
        else f"(ĝₜⱼ - {mean} ĝₜⱼ - uₜⱼ·{mean}(ĝₜⱼ·uₜⱼ))/{s}"
    )
    centering = "" if rms else rf" - {lmean_op} \hat{{g}}_{{tj}}"
    grad_z_latex = (
        rf"\frac{{1}}{{{ls}}} \left(\hat{{g}}_{{tj}}{centering}"
        rf" - u_{{tj}} {lmean_op} \left(\hat{{g}}_{{tj}} u_{{tj}}\right)\right)"
    )
    labels.update(
        {
            "loss_value": (
                "backward",
                "ℓ",
                "½·Σₜⱼ yₜⱼ²",
                r"\ell",
                r"\frac{1}{2} \sum_{t, j} y_{tj}^{2}",
            ),
            "upstream": ("backward", "G", "∂ℓ/∂Y = Y", g, rf"\partial \ell / \partial {y} = {y}"),
            "grad_beta": (
                "backward",
                "∂ℓ/∂βⱼ",
                "Σₜ gₜⱼ",
                r"\partial \ell / \partial \beta_{j}",
                r"\sum_{t} g_{tj}",
            ),
            "grad_gamma": (
                "backward",
                "∂ℓ/∂γⱼ",
                "Σₜ gₜⱼ·uₜⱼ",
                r"\partial \ell / \partial \gamma_{j}",
                r"\sum_{t} g_{tj} u_{tj}",
            ),
            "scaled_upstream": ("backward", "ĝₜⱼ", "γⱼ·gₜⱼ", r"\hat{g}_{tj}", r"\gamma_{j} g_{tj}"),
            "grad_z": (
                "backward",
                "∂ℓ/∂zₜⱼ",
                grad_z_text,
                r"\partial \ell / \partial z_{tj}",
                grad_z_latex,
            ),
        }
    )
    return labels


def axis_note(layer: str, n_rows: int, d_cols: int, groups: int | None) -> str:
    """One sentence naming the axis the statistics run over, with the sizes."""
    if layer == "batch_norm":
        return (
            f"Statistics over the batch for each feature: meanₜ averages the n = {n_rows} "
            "rows t of column j."
        )
    if layer == "group_norm":
        size = d_cols // (groups or 1)
        return (
            f"Statistics over each group of d/G = {size} features of each row: meanₖ "
            f"averages the features j of group k (k = 1..{groups}) in row t."
        )
    return (
        f"Statistics over the features of each row: meanⱼ averages the d = {d_cols} "
        "columns j of row t."
    )


def gradient_note(layer: str) -> str:
    """Which axis the parameters' gradients sum over."""
    which = "The gradient of γ sums" if layer == "rms_norm" else "The gradients of γ and β sum"
    return f"{which} over the rows t of the batch, never over features."
