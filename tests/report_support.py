"""Shared helpers for the report tests: the checked catalog, external tools, formula extraction."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from lnsym.checking.catalog import load
from lnsym.checking.checker import Options
from lnsym.report.build import check_catalog
from lnsym.report.model import ReportModel, build_model
from lnsym.report.review_model import ReviewModel, build_review

#: Set by .ci/run: a missing tool fails the test instead of skipping it.
REQUIRE_TOOLS = os.environ.get("LNSYM_REQUIRE_TOOLS") == "1"
KATEX_CHECK = Path(__file__).with_name("katex_check.js")


def need(available: bool, what: str) -> None:
    """Skip (or, under LNSYM_REQUIRE_TOOLS=1, fail) when a tool is missing."""
    if available:
        return
    message = f"{what} is not installed"
    if REQUIRE_TOOLS:
        pytest.fail(message + " (LNSYM_REQUIRE_TOOLS=1)")
    pytest.skip(message)


@lru_cache(maxsize=1)
def katex_available() -> bool:
    if shutil.which("node") is None:
        return False
    probe = subprocess.run(
        ["node", "-e", "require.resolve('katex')"], capture_output=True, check=False
    )
    return probe.returncode == 0


def tex_available() -> bool:
    return shutil.which("pdflatex") is not None


@lru_cache(maxsize=1)
def catalog_results() -> dict[str, Any]:
    """Every item of the built-in catalog checked with every engine, once per test session
    (the CLI tests reuse it through :func:`lnsym.checking.runner.run`)."""
    return check_catalog(load(), Options(), jobs=2)


@lru_cache(maxsize=1)
def catalog_model() -> ReportModel:
    """The built-in catalog's report model, from :func:`catalog_results`."""
    return build_model(load(), catalog_results())


@lru_cache(maxsize=1)
def review_model() -> ReviewModel:
    """The source review of the cached catalog."""
    review = build_review(catalog_model())
    assert review is not None, "the built-in catalog lacks an item the review cites"
    return review


_DISPLAY = re.compile(r"^\$\$\n(.*?)\n\$\$$", re.MULTILINE | re.DOTALL)
_CODE = re.compile(r"`[^`\n]*`")
_INLINE = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)")


def markdown_formulas(markdown: str) -> list[dict[str, object]]:
    """Every ``$$...$$`` display block and every inline ``$...$`` of a Markdown text."""
    formulas: list[dict[str, object]] = [
        {"tex": m.group(1), "display": True} for m in _DISPLAY.finditer(markdown)
    ]
    rest = _CODE.sub("", _DISPLAY.sub("", markdown))
    formulas += [{"tex": m.group(1), "display": False} for m in _INLINE.finditer(rest)]
    return formulas


def katex_errors(formulas: list[dict[str, object]]) -> dict[str, object]:
    """Check all formulas with KaTeX (strict, throwOnError) in one node process."""
    proc = subprocess.run(
        ["node", str(KATEX_CHECK)],
        input=json.dumps(formulas),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(proc.stdout)
