"""``lnsym example``: layer normalization at a given z, exactly, with every intermediate step
(:func:`lnsym.exact.examples.worked_example`), as text, Markdown, LaTeX or JSON."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from lnsym.errors import UserInputError

#: lnsym.exact.examples.MAX_DIMENSION, repeated so that building the parser does not load SymPy.
_EXAMPLE_MAX_D = 64


def add_parser(sub: Any) -> None:
    """The ``example`` subcommand: an exact worked example at a point."""
    example = sub.add_parser(
        "example",
        help="print an exact worked example at a given z",
        description="Compute layer normalization at z exactly, with every intermediate step, "
        f"for d = 1 to {_EXAMPLE_MAX_D}.",
    )
    # Values are parsed in run, so that bad numbers give "lnsym: error: ...".
    example.add_argument(
        "--z",
        required=True,
        metavar="VECTOR",
        help=f"input, e.g. 1,2,3 (at most {_EXAMPLE_MAX_D} entries)",
    )
    example.add_argument("--eps", metavar="NUMBER", help="ε > 0, e.g. 1/3 or 1e-5")
    example.add_argument("--gamma", metavar="VECTOR", help="gain γ (default: all ones)")
    example.add_argument("--beta", metavar="VECTOR", help="bias β (default: zero)")
    example.add_argument("--upstream", metavar="VECTOR", help="upstream gradient g = ∂ℓ/∂y")
    example.add_argument(
        "--loss", metavar="NAME", help="named loss instead of --upstream: half-squared-norm"
    )
    example.add_argument(
        "--perturbation", metavar="VECTOR", help="h for the finite ratio ‖y(z+h) − y(z)‖/‖h‖"
    )
    example.add_argument(
        "--idealized", action="store_true", help="use ε = 0 (needs a non-constant z)"
    )
    example.add_argument(
        "--format", choices=("text", "md", "tex", "json"), default="text", help="output format"
    )
    # Let values such as "-1,1" or "-1/2" start with a minus sign: argparse would otherwise
    # take them for options (its own test only knows plain negative numbers like -1 or -.5).
    example._negative_number_matcher = re.compile(r"^-\.?\d")
    example.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Compute the example and print it in ``--format``."""
    from lnsym.errors import LnsymError
    from lnsym.exact.examples import worked_example
    from lnsym.parse import parse_number, parse_vector

    def vector_option(name: str) -> list[Any] | None:
        text = getattr(args, name)
        if text is None:
            return None
        try:
            return list(parse_vector(text))
        except UserInputError as exc:
            raise UserInputError(f"--{name}: {exc}") from None

    if args.upstream is not None and args.loss is not None:
        raise UserInputError("give either --upstream or --loss, not both")
    if args.eps is None and not args.idealized:
        raise UserInputError("give --eps (ε > 0), or --idealized for ε = 0")
    try:
        eps = parse_number(args.eps) if args.eps is not None else 0
    except UserInputError as exc:
        raise UserInputError(f"--eps: {exc}") from None
    if args.idealized and eps != 0:
        raise UserInputError("--idealized means ε = 0; drop --eps or give --eps 0")
    try:
        example = worked_example(
            vector_option("z") or [],
            eps,
            gamma=vector_option("gamma"),
            beta=vector_option("beta"),
            upstream=vector_option("upstream"),
            loss=args.loss,
            perturbation=vector_option("perturbation"),
            idealized=args.idealized,
        )
    except UserInputError:
        raise
    except LnsymError as exc:  # a disagreement between engines is a bug, not bad input
        print(f"lnsym: internal error: {exc}", file=sys.stderr)
        return 1
    render = {
        "text": example.to_text,
        "md": example.to_markdown,
        "tex": example.to_latex,
        "json": example.to_json,
    }[args.format]
    sys.stdout.write(render())
    return 0
