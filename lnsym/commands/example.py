"""``lnsym example``: layer normalization at a given z, exactly, with every intermediate step
(:func:`lnsym.exact.examples.worked_example`), as text, Markdown, LaTeX or JSON; or, for a
batch (rows of ``--z`` separated by ``;``) or another ``--layer``, layer, RMS, batch or group
normalization of the batch (:func:`lnsym.exact.batch_example.batch_example`)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any

from lnsym.errors import UserInputError

#: lnsym.exact.examples.MAX_DIMENSION, repeated so that building the parser does not load SymPy.
_EXAMPLE_MAX_D = 64
#: lnsym.exact.batch_example.LAYERS, repeated for the same reason.
_LAYERS = ("layer_norm", "rms_norm", "batch_norm", "group_norm")


def add_parser(sub: Any) -> None:
    """The ``example`` subcommand: an exact worked example at a point."""
    example = sub.add_parser(
        "example",
        help="print an exact worked example at a given z",
        description="Compute layer normalization at z exactly, with every intermediate step, "
        f"for d = 1 to {_EXAMPLE_MAX_D}; or a layer on a batch Z (rows separated by ';', up to "
        f"{_EXAMPLE_MAX_D} × {_EXAMPLE_MAX_D}): layer, RMS, batch (training mode) or group "
        "normalization, with the statistics on the layer's axis and the gradients.",
    )
    # Values are parsed in run, so that bad numbers give "lnsym: error: ...".
    example.add_argument(
        "--z",
        required=True,
        metavar="VECTOR",
        help=f"input, e.g. 1,2,3 (at most {_EXAMPLE_MAX_D} entries), or a batch with rows "
        "separated by ';', e.g. '1,2,3;4,5,7'",
    )
    example.add_argument(
        "--layer",
        metavar="NAME",
        help=f"{' | '.join(_LAYERS)} (default layer_norm); the statistics run over each row's "
        "features, each feature over the batch (batch_norm), or each group of a row",
    )
    example.add_argument(
        "--groups", metavar="G", help="group_norm: G groups of d/G features (G divides d)"
    )
    example.add_argument("--eps", metavar="NUMBER", help="ε > 0, e.g. 1/3 or 1e-5")
    example.add_argument("--gamma", metavar="VECTOR", help="gain γ (default: all ones)")
    example.add_argument("--beta", metavar="VECTOR", help="bias β (default: zero)")
    example.add_argument(
        "--upstream",
        metavar="VECTOR",
        help="upstream gradient g = ∂ℓ/∂y (for a batch: rows separated by ';', Z's shape)",
    )
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
    from lnsym.exact.examples import worked_example
    from lnsym.parse import parse_vector

    if _is_batch(args):
        return _run_batch(args)
    eps = _epsilon(args)

    def vector(name: str) -> list[Any] | None:
        return _option(args, name, lambda text: list(parse_vector(text)))

    return _print_example(
        lambda: worked_example(
            vector("z") or [],
            eps,
            gamma=vector("gamma"),
            beta=vector("beta"),
            upstream=vector("upstream"),
            loss=args.loss,
            perturbation=vector("perturbation"),
            idealized=args.idealized,
        ),
        args.format,
    )


def _option(args: argparse.Namespace, name: str, parse: Callable[[str], Any]) -> Any:
    """The option ``--name`` read by ``parse`` (None if absent); errors name the option."""
    text = getattr(args, name)
    if text is None:
        return None
    try:
        return parse(text)
    except UserInputError as exc:
        raise UserInputError(f"--{name}: {exc}") from None


def _print_example(build: Callable[[], Any], form: str) -> int:
    """Build the example and print it in the format ``form``. A disagreement between the
    two computations of a value is a bug, not bad input: exit 1, one line."""
    from lnsym.errors import LnsymError

    try:
        example = build()
    except UserInputError:
        raise
    except LnsymError as exc:
        print(f"lnsym: internal error: {exc}", file=sys.stderr)
        return 1
    render = {
        "text": example.to_text,
        "md": example.to_markdown,
        "tex": example.to_latex,
        "json": example.to_json,
    }[form]
    sys.stdout.write(render())
    return 0


def _epsilon(args: argparse.Namespace) -> Any:
    """ε from ``--eps`` and ``--idealized``, after the checks both kinds of example share."""
    from lnsym.parse import parse_number

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
    return eps


def _is_batch(args: argparse.Namespace) -> bool:
    """Whether the options ask for a batch example rather than the single-vector one."""
    rows = ";" in args.z or ";" in (args.upstream or "")
    return rows or args.layer not in (None, "layer_norm") or args.groups is not None


def _run_batch(args: argparse.Namespace) -> int:
    """``lnsym example`` for a batch or another layer (:func:`batch_example`)."""
    from lnsym.exact.batch_example import LAYERS, batch_example
    from lnsym.exact.batch_inputs import parse_batch
    from lnsym.parse import parse_vector

    layer = args.layer or "layer_norm"
    if layer not in LAYERS:
        raise UserInputError(f"--layer: unknown layer {layer!r}; known: {', '.join(LAYERS)}")
    if args.groups is not None and layer != "group_norm":
        raise UserInputError("--groups is for --layer group_norm only")
    if layer == "group_norm" and args.groups is None:
        raise UserInputError("--layer group_norm needs --groups G (G groups of d/G features)")
    groups = None
    if args.groups is not None:
        if not re.fullmatch(r"[0-9]{1,4}", args.groups.strip()):
            raise UserInputError(f"--groups: expected a positive integer, got {args.groups!r}")
        groups = int(args.groups)
        if groups < 1:
            raise UserInputError("--groups: G must be at least 1")
    if args.perturbation is not None:
        raise UserInputError(
            "--perturbation is for the single-vector layer_norm example (no ';' in --z)"
        )
    eps = _epsilon(args)
    if layer == "rms_norm" and args.beta is not None:
        raise UserInputError("--beta: rms_norm has no bias β (it is y = γ ⊙ z/rms(z))")
    return _print_example(
        lambda: batch_example(
            _option(args, "z", parse_batch),
            eps,
            layer=layer,
            groups=groups,
            gamma=_option(args, "gamma", parse_vector),
            beta=_option(args, "beta", parse_vector),
            upstream=_option(args, "upstream", parse_batch),
            loss=args.loss,
            idealized=args.idealized,
        ),
        args.format,
    )
