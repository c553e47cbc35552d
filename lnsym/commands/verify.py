"""``lnsym verify``: check claims and derivations, one line per item, and a summary.

Exits 0 when every item gets its expected verdict, 1 otherwise; ``--json`` and
``--junit-xml`` write the results for machines as well.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from lnsym.commands.options import (
    add_check_options,
    add_paths,
    checker_options,
    freeze_loaded,
    jobs,
    output_file,
)
from lnsym.commands.output import check_output_file
from lnsym.errors import UserInputError


def add_parser(sub: Any) -> None:
    """The ``verify`` subcommand."""
    verify = sub.add_parser(
        "verify",
        help="check claims and derivations",
        description="Check every claim and derivation; exit 0 when each verdict matches its "
        "expectation, 1 otherwise, 2 on bad usage.",
    )
    add_paths(verify)
    verify.add_argument(
        "--json",
        type=output_file,
        metavar="FILE",
        help="write results as JSON to FILE ('-' for stdout)",
    )
    verify.add_argument(
        "--junit-xml", type=output_file, metavar="FILE", help="write JUnit XML to FILE"
    )
    verify.add_argument(
        "-k",
        metavar="PATTERN",
        dest="pattern",
        help="only ids containing PATTERN (or matching it, if it has * ? [)",
    )
    add_check_options(verify)
    verify.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the selected items; print one line each (on stderr with ``--json -``)."""
    from lnsym.checking import runner
    from lnsym.checking.catalog import load
    from lnsym.files import atomic_write
    from lnsym.junit import junit_xml

    check_output_file("--json", args.json, args.paths)
    check_output_file("--junit-xml", args.junit_xml, args.paths)
    items = runner.select(load(list(args.paths)), args.pattern)
    if not items:
        raise UserInputError(f"no claim or derivation id matches {args.pattern!r}")
    freeze_loaded(args)
    out = sys.stderr if args.json == "-" else sys.stdout
    processes = jobs(args.jobs)
    # Residuals appear only in the JSON: without it they are not computed.
    options = checker_options(args, residuals=args.json is not None)
    outcomes = runner.run(items, options, jobs=processes, total_timeout=args.total_timeout)
    for item, outcome in zip(items, outcomes, strict=True):
        note = "" if outcome.passed else f"  <- expected {_expectation(outcome)}"
        mark = "ok  " if outcome.passed else "FAIL"
        print(f"{mark} {outcome.verdict:<10} {outcome.seconds:7.3f}s  {item.id}{note}", file=out)
    passed = sum(1 for o in outcomes if o.passed)
    failed = len(outcomes) - passed
    print(f"{passed} passed, {failed} failed", file=out)
    if args.junit_xml is not None:
        pairs = [(item.section.name, o) for item, o in zip(items, outcomes, strict=True)]
        atomic_write(Path(args.junit_xml), junit_xml(pairs))
    if args.json is not None:
        payload = json.dumps(runner.to_json(items, outcomes), indent=2, ensure_ascii=False) + "\n"
        if args.json == "-":
            sys.stdout.write(payload)
        else:
            atomic_write(Path(args.json), payload)
    return 0 if failed == 0 else 1


def _expectation(result: Any) -> str:
    claim = getattr(result, "claim", None)
    if claim is None:
        return "every step to pass"
    from lnsym.checking.verdicts import expectation

    return expectation(claim.expect, claim.require)
