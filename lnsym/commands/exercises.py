"""``lnsym exercises``: an exercise sheet with nice exact answers, every answer checked
through the IR, and a separate answer key; the same seed always gives the same files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lnsym.commands.options import output_dir
from lnsym.commands.output import check_output_dir, write_rendered
from lnsym.errors import UserInputError


def add_parser(sub: Any) -> None:
    """The ``exercises`` subcommand: an exercise sheet and its answer key, exact and checked."""
    exercises = sub.add_parser(
        "exercises",
        help="write an exercise sheet with exact answers and a separate answer key",
        description="Draw exercises on layer normalization with nice exact answers, check every "
        "answer through the IR, and write exercises.md/.tex/.pdf and answers.md/.tex/.pdf "
        "into DIR. The same seed always gives the same files.",
    )
    # Values are parsed in run, so that bad ones give one "lnsym: error: ..." line.
    exercises.add_argument("--count", default="12", metavar="N", help="exercises (default: 12)")
    exercises.add_argument("--seed", default="0", metavar="S", help="seed (default: 0)")
    exercises.add_argument(
        "--d", default="2..4", metavar="A..B", help="range of the dimension d (default: 2..4)"
    )
    exercises.add_argument(
        "--format",
        default="md,tex,pdf",
        metavar="LIST",
        help="comma-separated formats among md, tex, pdf (default: md,tex,pdf)",
    )
    exercises.add_argument(
        "--out",
        type=output_dir,
        default=Path("exercises"),
        metavar="DIR",
        help="default: exercises",
    )
    exercises.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Draw the sheet, render it and write it into ``--out``."""
    from lnsym.errors import LnsymError
    from lnsym.exact.exercises import generate_sheet, parse_count, parse_dimensions, parse_seed
    from lnsym.report.build import parse_formats
    from lnsym.report.pdf import PdfBuildError
    from lnsym.report.sheets import render_sheet

    count, seed = parse_count(args.count), parse_seed(args.seed)
    dimensions, formats = parse_dimensions(args.d), parse_formats(args.format)
    check_output_dir(args.out)
    try:
        rendered = render_sheet(generate_sheet(count, seed, dimensions), formats)
    except UserInputError:
        raise
    except PdfBuildError as exc:
        print(f"lnsym: error: {exc}", file=sys.stderr)
        return 1
    except LnsymError as exc:  # a closed form that disagrees with the IR is a bug
        print(f"lnsym: internal error: {exc}", file=sys.stderr)
        return 1
    write_rendered(rendered, args.out)
    return 0
