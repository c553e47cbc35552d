"""The ``lnsym`` command line.

Bad usage and bad input give one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from lnsym.errors import UserInputError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="lnsym", description="Derive and verify the mathematics of layer normalization."
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    verify = sub.add_parser("verify", help="check claims and derivations")
    verify.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="derivation modules or directories (default: the built-in catalog)",
    )
    verify.add_argument(
        "--json", metavar="FILE", help="write results as JSON to FILE ('-' for stdout)"
    )
    verify.add_argument(
        "-k",
        metavar="PATTERN",
        dest="pattern",
        help="only ids containing PATTERN (or matching it, if it has * ? [)",
    )
    verify.add_argument(
        "--timeout",
        type=_positive_float,
        default=60.0,
        metavar="SECONDS",
        help="time budget per claim (default: 60)",
    )
    verify.set_defaults(run=_verify)
    return parser


def _positive_float(value: str) -> float:
    from lnsym.parse import parse_positive_float

    try:
        return parse_positive_float(value)
    except UserInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _matches(item_id: str, pattern: str | None) -> bool:
    if pattern is None:
        return True
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(item_id, pattern)
    return pattern in item_id


def _verify(args: argparse.Namespace) -> int:
    from lnsym.catalog import load
    from lnsym.claims import Checker, Options
    from lnsym.files import atomic_write

    sections = load(list(args.paths))
    checker = Checker(Options(timeout=args.timeout))
    out = sys.stderr if args.json == "-" else sys.stdout
    passed = failed = 0
    records: list[dict[str, Any]] = []
    for section in sections:
        items = [c for c in section.claims if _matches(c.id, args.pattern)]
        derivations = [dv for dv in section.derivations if _matches(dv.id, args.pattern)]
        for result in [checker.check(c) for c in items] + [
            checker.check_derivation(dv) for dv in derivations
        ]:
            item_id = result.claim.id if hasattr(result, "claim") else result.derivation.id
            ok = result.passed
            passed += ok
            failed += not ok
            note = "" if ok else f"  <- expected {_expectation(result)}"
            mark = "ok  " if ok else "FAIL"
            print(
                f"{mark} {result.verdict:<10} {result.seconds:7.3f}s  {item_id}{note}",
                file=out,
                flush=True,
            )
            records.append({"section": section.name, **result.to_json()})
    if passed + failed == 0:
        raise UserInputError(f"no claim or derivation id matches {args.pattern!r}")
    print(f"{passed} passed, {failed} failed", file=out)
    if args.json is not None:
        payload = (
            json.dumps(
                {"schema_version": 1, "passed": passed, "failed": failed, "results": records},
                indent=2,
                ensure_ascii=False,
            )
            + "\n"
        )
        if args.json == "-":
            sys.stdout.write(payload)
        else:
            atomic_write(Path(args.json), payload)
    return 0 if failed == 0 else 1


def _expectation(result: Any) -> str:
    claim = getattr(result, "claim", None)
    if claim is None:
        return "every step to pass"
    return "REFUTED" if claim.expect == "refuted" else f"{claim.require} or stronger"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except UserInputError as exc:
        print(f"lnsym: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lnsym: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        print(f"lnsym: error: {exc.filename or ''}: {exc.strerror or exc}", file=sys.stderr)
        return 2
