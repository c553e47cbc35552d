"""The ``lnsym`` command line.

Bad usage and bad input give one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from lnsym.errors import UserInputError
from lnsym.parse import MAX_SECONDS, parse_seconds


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="lnsym", description="Derive and verify the mathematics of layer normalization."
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    verify = sub.add_parser(
        "verify",
        help="check claims and derivations",
        description="Check every claim and derivation; exit 0 when each verdict matches its "
        "expectation, 1 otherwise, 2 on bad usage.",
    )
    _add_paths(verify)
    verify.add_argument(
        "--json",
        type=_output_file,
        metavar="FILE",
        help="write results as JSON to FILE ('-' for stdout)",
    )
    verify.add_argument(
        "--junit-xml", type=_output_file, metavar="FILE", help="write JUnit XML to FILE"
    )
    verify.add_argument(
        "-k",
        metavar="PATTERN",
        dest="pattern",
        help="only ids containing PATTERN (or matching it, if it has * ? [)",
    )
    _add_check_options(verify)
    verify.set_defaults(run=_verify)
    _add_example_parser(sub)
    _add_report_parser(sub)
    _add_exercises_parser(sub)
    return parser


def _add_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="derivation modules or directories (default: the built-in catalog)",
    )


def _add_check_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that checks claims."""
    group = parser.add_argument_group("checking")
    group.add_argument(
        "--timeout",
        type=_seconds,
        default=60.0,
        metavar="SECONDS",
        help=f"time budget per claim, at most {MAX_SECONDS} (default: 60)",
    )
    group.add_argument(
        "--total-timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="time budget for the whole run; items not started in time become TIMEOUT",
    )
    group.add_argument(
        "-j",
        "--jobs",
        type=_positive_int,
        default=None,
        metavar="N",
        help="check claims in N processes, at most one per usable CPU (default: one per "
        "usable CPU; the results are those of a serial run)",
    )
    group.add_argument(
        "--engines",
        type=_engine_list,
        default=("general", "concrete", "numeric"),
        metavar="LIST",
        help="comma-separated engines among general, concrete, numeric (default: all three)",
    )
    group.add_argument(
        "--max-d",
        type=_positive_int,
        default=8,
        metavar="N",
        help="the concrete engine checks d = 1..N exactly (default: 8)",
    )
    group.add_argument(
        "--samples",
        type=_positive_int,
        default=200,
        metavar="N",
        help="points the numeric engine tries per claim (default: 200)",
    )
    group.add_argument(
        "--seed", type=_natural, default=0, metavar="N", help="seed of every random choice"
    )


def _options(args: argparse.Namespace) -> Any:
    from lnsym.checking.checker import Options

    return Options(
        timeout=args.timeout,
        engines=args.engines,
        max_d=args.max_d,
        samples=args.samples,
        seed=args.seed,
    )


def _integer(value: str, low: int, what: str) -> int:
    if not value.strip().isascii() or not value.strip().lstrip("+").isdigit():
        raise argparse.ArgumentTypeError(f"not {what}: {value!r}")
    number = int(value)
    if number < low or number > 1_000_000:
        raise argparse.ArgumentTypeError(f"not {what}: {value!r}")
    return number


def _positive_int(value: str) -> int:
    return _integer(value, 1, "a positive integer")


def _natural(value: str) -> int:
    return _integer(value, 0, "a nonnegative integer")


def _engine_list(value: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in value.split(",") if part.strip())
    unknown = [n for n in names if n not in ("general", "concrete", "numeric")]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown engine {', '.join(unknown) or repr(value)}: choose from "
            "general, concrete, numeric"
        )
    return names


def _seconds(value: str) -> float:
    try:
        return parse_seconds(value)
    except UserInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _output_file(value: str) -> str:
    if not value.strip():
        raise argparse.ArgumentTypeError("empty file name")
    return value


def _output_dir(value: str) -> Path:
    if not value.strip():
        raise argparse.ArgumentTypeError("empty directory name")
    return Path(value)


def _check_output_file(option: str, value: str | None) -> None:
    """Refuse, before any work, an output FILE that exists and is not a regular file."""
    from lnsym.files import check_output_path

    if value is None or (option == "--json" and value == "-"):
        return
    try:
        check_output_path(Path(value))
    except UserInputError as exc:
        raise UserInputError(f"{option} {exc}") from None


def _check_output_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UserInputError(f"--out {out}: not a directory")


def _jobs(requested: int | None) -> int:
    """``-j N`` capped at the usable CPUs, with one note on stderr when it is capped;
    without ``-j``, one process per usable CPU."""
    from lnsym.checking.runner import usable_cpus

    cpus = usable_cpus()
    if requested is None:
        return cpus
    if requested <= cpus:
        return requested
    print(
        f"lnsym: note: -j {requested} is more than the {cpus} usable CPUs; using -j {cpus}",
        file=sys.stderr,
    )
    return cpus


def _verify(args: argparse.Namespace) -> int:
    from lnsym.checking.catalog import load
    from lnsym.checking.runner import run, select, to_json
    from lnsym.files import atomic_write
    from lnsym.junit import junit_xml

    _check_output_file("--json", args.json)
    _check_output_file("--junit-xml", args.junit_xml)
    items = select(load(list(args.paths)), args.pattern)
    if not items:
        raise UserInputError(f"no claim or derivation id matches {args.pattern!r}")
    out = sys.stderr if args.json == "-" else sys.stdout
    jobs = _jobs(args.jobs)
    outcomes = run(items, _options(args), jobs=jobs, total_timeout=args.total_timeout)
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
        payload = json.dumps(to_json(items, outcomes), indent=2, ensure_ascii=False) + "\n"
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


#: lnsym.exact.examples.MAX_DIMENSION, repeated so that building the parser does not load SymPy.
_EXAMPLE_MAX_D = 64


def _add_example_parser(sub: Any) -> None:
    """The ``example`` subcommand: an exact worked example at a point."""
    import re

    example = sub.add_parser(
        "example",
        help="print an exact worked example at a given z",
        description="Compute layer normalization at z exactly, with every intermediate step, "
        f"for d = 1 to {_EXAMPLE_MAX_D}.",
    )
    # Values are parsed in _example, so that bad numbers give "lnsym: error: ...".
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
    example.set_defaults(run=_example)


def _example(args: argparse.Namespace) -> int:
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


def _add_report_parser(sub: Any) -> None:
    """The ``report`` subcommand: check the catalog and render it as Markdown, LaTeX and PDF."""
    report = sub.add_parser(
        "report",
        help="render the checked derivations as Markdown, LaTeX and PDF",
        description="Check every claim and derivation and render reports into DIR: "
        "layernorm.md, layernorm.tex, layernorm.pdf (when latexmk and pdflatex are "
        "installed) and figures/, and, when the catalog holds every item it cites, the "
        "review of the source documents as source-review.md, .tex and .pdf. Exits 1 if "
        "an item does not get its expected verdict.",
    )
    _add_paths(report)
    report.add_argument(
        "--out", type=_output_dir, default=Path("reports"), metavar="DIR", help="default: reports"
    )
    report.add_argument(
        "--format",
        default="md,tex,pdf",
        metavar="LIST",
        help="comma-separated formats among md, tex, pdf (default: md,tex,pdf)",
    )
    report.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 and name the stale files if DIR is not what would be "
        "rendered (the PDF is checked by the fingerprint of its LaTeX source)",
    )
    _add_check_options(report)
    report.set_defaults(run=_report)


def _report(args: argparse.Namespace) -> int:
    from lnsym.checking.catalog import load
    from lnsym.report.build import (
        check_catalog,
        parse_formats,
        render_report,
        stale_files,
        timed_out,
    )
    from lnsym.report.model import build_model
    from lnsym.report.pdf import PdfBuildError
    from lnsym.report.review_model import DIFFERS, build_review

    formats = parse_formats(args.format)
    _check_output_dir(args.out)
    sections = load(list(args.paths))
    results = check_catalog(
        sections, _options(args), jobs=_jobs(args.jobs), total_timeout=args.total_timeout
    )
    stopped = timed_out(results)
    if stopped:
        # A verdict cut by the clock would make the report depend on the machine's load.
        outcome = "could not check" if args.check else "nothing written"
        print(
            f"lnsym: error: the wall-clock safety net (--timeout {args.timeout:g}) stopped "
            f"{', '.join(stopped)}; {outcome}",
            file=sys.stderr,
        )
        return 1
    model = build_model(sections, results)
    for row in model.rows:
        if not row.passed:
            print(f"FAIL {row.verdict:<10} {row.id}  <- expected {row.expected}", file=sys.stderr)
    review = build_review(model)  # None for a catalog without the items the review cites
    if review is not None and review.count(DIFFERS):
        print(
            f"lnsym: note: {review.count(DIFFERS)} number(s) of the source documents differ "
            "from lnsym's exact values (see source-review.md)",
            file=sys.stderr,
        )
    try:
        rendered = render_report(model, formats, build=not args.check, review=review)
    except PdfBuildError as exc:
        print(f"lnsym: error: {exc}", file=sys.stderr)
        return 1
    status = 0 if model.failed == 0 else 1
    summary = f"{model.passed} passed, {model.failed} failed"
    if args.check:
        stale = stale_files(rendered, args.out, formats)
        for line in stale:
            print(f"stale: {line}")
        if stale:
            print(f"{summary}; {args.out} is out of date: run 'lnsym report' to regenerate it")
            return 1
        print(f"{summary}; {args.out} is up to date")
        return status
    _write_rendered(rendered, args.out)
    print(summary)
    return status


def _write_rendered(rendered: Any, out: Path) -> None:
    """Pass on the build's notices, then write the rendered files (all or nothing)."""
    from lnsym.report.build import write_report

    for notice in rendered.notices:
        print(f"lnsym: note: {notice}", file=sys.stderr)
    if rendered.overfull:
        print(
            f"lnsym: note: LaTeX reported {len(rendered.overfull)} overfull line(s) in the PDFs",
            file=sys.stderr,
        )
    for path in write_report(rendered, out):
        print(f"wrote {path}")


def _add_exercises_parser(sub: Any) -> None:
    """The ``exercises`` subcommand: an exercise sheet and its answer key, exact and checked."""
    exercises = sub.add_parser(
        "exercises",
        help="write an exercise sheet with exact answers and a separate answer key",
        description="Draw exercises on layer normalization with nice exact answers, check every "
        "answer through the IR, and write exercises.md/.tex/.pdf and answers.md/.tex/.pdf "
        "into DIR. The same seed always gives the same files.",
    )
    # Values are parsed in _exercises, so that bad ones give one "lnsym: error: ..." line.
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
        type=_output_dir,
        default=Path("exercises"),
        metavar="DIR",
        help="default: exercises",
    )
    exercises.set_defaults(run=_exercises)


def _exercises(args: argparse.Namespace) -> int:
    from lnsym.errors import LnsymError
    from lnsym.exact.exercises import generate_sheet, parse_count, parse_dimensions, parse_seed
    from lnsym.report.build import parse_formats
    from lnsym.report.pdf import PdfBuildError
    from lnsym.report.sheets import render_sheet

    count, seed = parse_count(args.count), parse_seed(args.seed)
    dimensions, formats = parse_dimensions(args.d), parse_formats(args.format)
    _check_output_dir(args.out)
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
    _write_rendered(rendered, args.out)
    return 0
