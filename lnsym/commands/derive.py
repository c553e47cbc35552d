"""``lnsym derive``: a readable closed form of an expression, with its steps and its proof.

The expression is read by :func:`lnsym.language.parse_expression` (docs/language.md), a
hand-written parser: nothing the user types is evaluated. ``--wrt`` differentiates first:
a scalar expression by its gradient, a vector one along ``--along`` (default h), and with
respect to a scalar by ``diff``. Exit codes: 0 derived and proved, 1 what derive cannot do
(one line: ``lnsym: cannot derive …``), 2 bad input (one line: ``lnsym: error: …``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from lnsym.errors import UserInputError

FORMATS = ("text", "md", "tex", "json")


def add_parser(sub: Any) -> None:
    """The ``derive`` subcommand."""
    derive = sub.add_parser(
        "derive",
        help="derive a readable closed form of an expression, proved equal to it",
        description="Read EXPRESSION in lnsym's expression language (docs/language.md), find a "
        "closed form written with the named intermediates u, s, P, ⟨·,·⟩ and mean, and prove "
        "it equal to EXPRESSION for every dimension d with every engine.",
        epilog='example: lnsym derive "vjp(layer_norm(z, gamma, beta), z, g)"',
    )
    derive.add_argument("expression", metavar="EXPRESSION", help="e.g. 'jvp(core(z), z, h)'")
    derive.add_argument(
        "--wrt",
        metavar="NAME",
        help="differentiate first with respect to NAME: a vector (gradient of a scalar "
        "expression, derivative of a vector one along --along) or a scalar (eps, or one given "
        "with --scalar/--positive)",
    )
    derive.add_argument(
        "--along", default="h", metavar="NAME", help="the direction for --wrt (default: h)"
    )
    derive.add_argument(
        "--scalar", default="", metavar="NAMES", help="comma-separated names of real scalars"
    )
    derive.add_argument(
        "--positive",
        default="",
        metavar="NAMES",
        help="comma-separated names of positive scalars",
    )
    derive.add_argument("--format", default="text", metavar="FORMAT", help="text, md, tex or json")
    derive.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Parse, derive, print. Bad input raises :class:`UserInputError` (exit 2, from the
    CLI); what derive cannot do — a derivative through a kink, an unsupported node, a form not
    proved — is :class:`~lnsym.errors.DerivationFailed`: its one line on stderr, exit 1."""
    from lnsym.derive import derive
    from lnsym.errors import DerivationFailed

    if args.format not in FORMATS:
        raise UserInputError(f"--format {args.format!r}: choose one of {', '.join(FORMATS)}")
    asked = _asked(args)
    try:
        found = derive(asked)
    except DerivationFailed as exc:
        print(f"lnsym: {exc}", file=sys.stderr)
        return 1
    print(_FORMATTERS[args.format](found), end="")
    return 0


def _asked(args: argparse.Namespace) -> Any:
    from lnsym import ir
    from lnsym.ir.calculus import diff, grad, jvp
    from lnsym.language import parse_expression

    scalars, positive = _names(args.scalar, "--scalar"), _names(args.positive, "--positive")
    expr = parse_expression(args.expression, scalars=scalars, positive=positive)
    if args.wrt is None:
        return expr
    wrt = parse_expression(args.wrt, scalars=scalars, positive=positive)
    if isinstance(wrt, ir.VectorAtom):
        if expr.kind == "scalar":
            return grad(expr, wrt)
        along = parse_expression(args.along, scalars=scalars, positive=positive)
        if not isinstance(along, ir.VectorAtom):
            raise UserInputError(f"--along {args.along!r}: give the name of a vector, such as h")
        return jvp(expr, wrt, along)
    if isinstance(wrt, ir.Const) and wrt.value != ir.d and wrt.value.is_Symbol:
        return diff(expr, wrt)
    raise UserInputError(
        f"--wrt {args.wrt!r}: give the name of a vector (such as z) or of a scalar "
        "(eps, or one given with --scalar/--positive)"
    )


def _names(value: str, option: str) -> list[str]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    for name in names:
        if not name.isidentifier():
            raise UserInputError(f"{option} {value!r}: {name!r} is not a name")
    return names


# ---------------------------------------------------------------------------------------
# Output


def _text(found: Any) -> str:
    from lnsym.printing.printer import abbreviations_for, text

    short = abbreviations_for(found.asked, found.expr)
    asked = text(found.asked, short, readable=True)
    lines = [f"asked:   {asked}", f"derived: {found}", ""]
    lines += [f"  {i}. {step.why}" for i, step in enumerate(found.steps[1:], 1)]
    lines += ["", _verdict(found)]
    lines += _where(short, found)
    return "\n".join(lines) + "\n"


def _markdown(found: Any) -> str:
    from lnsym.printing.printer import abbreviations_for, latex

    short = abbreviations_for(found.asked, found.expr)
    lines = [f"$$\n{latex(found.asked, short)} = {found.latex}\n$$", ""]
    lines += [f"{i}. {step.why}" for i, step in enumerate(found.steps[1:], 1)]
    lines += ["", f"**{found.result.verdict}**: {found.result.reason}", ""]
    return "\n".join(lines)


def _tex(found: Any) -> str:
    from lnsym.printing.printer import abbreviations_for, latex

    short = abbreviations_for(found.asked, found.expr)
    return f"\\[\n{latex(found.asked, short)} = {found.latex}\n\\]\n"


def _json(found: Any) -> str:
    from lnsym.printing.printer import latex, text

    record = {
        "asked": text(found.asked),
        "asked_latex": latex(found.asked),
        "derived": text(found.expr),
        "derived_latex": found.latex,
        "size": found.size,
        "steps": [
            {"why": step.why, "text": text(step.expr), "latex": latex(step.expr)}
            for step in found.steps
        ],
        "verdict": found.result.verdict,
        "reason": found.result.reason,
    }
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def _where(short: frozenset[str], found: Any) -> list[str]:
    """What the abbreviations in the output stand for."""
    from lnsym.printing.printer import text

    used = text(found.asked, short, readable=True) + " " + str(found)
    meanings = {
        "u": "u = core(z) = Pz/s",
        "s": "s = √(var(z) + ε)",
        "q": "q = var(z)",
        "y": "y = LN(z; γ, β) = γ ⊙ u + β",
    }
    shown = [m for name, m in meanings.items() if name in short and _mentions(used, name)]
    return ["where " + "; ".join(shown)] if shown else []


def _mentions(line: str, name: str) -> bool:
    import re

    return re.search(rf"(?<![A-Za-z_]){name}(?![A-Za-z_(])", line) is not None


def _verdict(found: Any) -> str:
    return f"{found.result.verdict}: {found.result.reason} (derived = asked, every d)"


_FORMATTERS = {"text": _text, "md": _markdown, "tex": _tex, "json": _json}
