"""Time the report job: checking the catalog, then rendering each output.

Run: python benchmarks/render_report.py [PATH ...]   (default: the built-in catalog)

Rendering must stay a few seconds at most on top of the checks; the PDF is timed only when
pdflatex is installed.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from lnsym.checking.catalog import load
from lnsym.checking.checker import Options
from lnsym.report.build import FORMATS, check_catalog, render_report
from lnsym.report.figures import FIGURES, render_figure
from lnsym.report.model import build_model
from lnsym.report.pdf import missing_tools
from lnsym.report.render import render

T = TypeVar("T")


def _timed(label: str, action: Callable[[], T], rows: list[tuple[str, float]]) -> T:
    """Run ``action``, append (label, seconds) to ``rows`` and return its value."""
    start = time.perf_counter()
    value = action()
    rows.append((label, time.perf_counter() - start))
    return value


def main(argv: list[str]) -> int:
    """Print the timings for the catalog at ``argv`` (default: built in); returns 0."""
    paths = [Path(p) for p in argv]
    rows: list[tuple[str, float]] = []
    sections = _timed("load the catalog", lambda: load(paths or None), rows)
    results = _timed(
        "check every claim and derivation",
        lambda: check_catalog(sections, Options()),
        rows,
    )
    checking = sum(seconds for _, seconds in rows)
    model = _timed("build the report model", lambda: build_model(sections, results), rows)
    _timed("import matplotlib, first figure", lambda: render_figure(FIGURES[0], "svg"), rows)
    for fmt in ("svg", "pdf"):
        _timed(
            f"figures ({fmt}, {len(FIGURES)})",
            lambda fmt=fmt: [render_figure(spec, fmt) for spec in FIGURES],
            rows,
        )
    _timed("render layernorm.md", lambda: render(model, "md"), rows)
    _timed("render layernorm.tex", lambda: render(model, "tex"), rows)
    formats = FORMATS if not missing_tools() else ("md", "tex")
    _timed(
        f"whole render ({','.join(formats)}, figures included)",
        lambda: render_report(model, formats),
        rows,
    )
    width = max(len(label) for label, _ in rows)
    for label, seconds in rows:
        print(f"{label:<{width}}  {seconds:8.3f} s")
    rendering = rows[-1][1]
    items = len(results)
    print(f"\n{items} items: checking {checking:.2f} s, rendering {rendering:.2f} s on top")
    if missing_tools():
        print(f"(PDF not timed: {', '.join(missing_tools())} missing)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
