"""``lnsym report``: check the catalog and render it as Markdown, LaTeX and PDF, with the
review of the source documents when the catalog holds every item it cites.

``--check`` writes nothing and names the stale files instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from lnsym.commands.options import (
    add_check_options,
    add_paths,
    checker_options,
    freeze_loaded,
    jobs,
    output_dir,
)
from lnsym.commands.output import check_output_dir, write_rendered


def add_parser(sub: Any) -> None:
    """The ``report`` subcommand: check the catalog and render it as Markdown, LaTeX and PDF."""
    report = sub.add_parser(
        "report",
        help="render the checked derivations as Markdown, LaTeX and PDF",
        description="Check every claim and derivation and render reports into DIR: "
        "NAME.md, NAME.tex, NAME.pdf (when pdflatex is installed) and "
        "figures/, and, when the catalog holds every item it cites, the review of the "
        "source documents as source-review.md, .tex and .pdf. NAME is layernorm for the "
        "built-in catalog, else the name of the module file (or directory) given, or "
        "report for several; the title is the modules' TITLE or first docstring line, the "
        "figures those listed in their FIGURES. Exits 1 if an item does not get its "
        "expected verdict.",
    )
    add_paths(report)
    report.add_argument(
        "--out", type=output_dir, default=Path("reports"), metavar="DIR", help="default: reports"
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
    add_check_options(report)
    report.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check, render, then write the reports or (``--check``) compare them with DIR."""
    from lnsym.checking.catalog import load
    from lnsym.report.ahead import figures_drawn_meanwhile
    from lnsym.report.build import (
        check_catalog,
        figure_formats,
        parse_formats,
        render_report,
        stale_files,
        timed_out,
    )
    from lnsym.report.document import BUILTIN, document_for, is_builtin
    from lnsym.report.model import build_model
    from lnsym.report.pdf import PdfBuildError
    from lnsym.report.review import SOURCES
    from lnsym.report.review_examples import compute_examples
    from lnsym.report.review_model import DIFFERS, build_review

    formats = parse_formats(args.format)
    check_output_dir(args.out)
    # The figures and the source review's worked examples depend on nothing the check
    # finds: the figures are drawn meanwhile in a process of their own — the built-in
    # report's from the start, while this process loads the catalog — and the examples
    # computed in this one while workers check (the review is of the built-in catalog).
    builtin = is_builtin(list(args.paths))
    drawn = figure_formats(formats)
    with figures_drawn_meanwhile(BUILTIN.figures if builtin else (), drawn):
        sections = load(list(args.paths))
        document = document_for(sections, list(args.paths))  # before the long check
        freeze_loaded(args)
        examples = (lambda: compute_examples(SOURCES)) if builtin else None
        with figures_drawn_meanwhile(() if builtin else document.figures, drawn):
            results = check_catalog(
                sections,
                checker_options(args),
                jobs=jobs(args.jobs),
                total_timeout=args.total_timeout,
                meanwhile=examples,
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
    model = build_model(sections, results, document)
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
        rendered = render_report(
            model, formats, build=not args.check, review=review, reuse=args.out
        )
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
    write_rendered(rendered, args.out)
    print(summary)
    return status
