"""The committed reports/ is what the current code renders (run `lnsym report` after changes).

Only the Markdown and the LaTeX are compared here: the figures' bytes (and so the
fingerprint line of the LaTeX) depend on the installed matplotlib, and the PDF on the TeX
installation. `lnsym report --check` compares everything.
"""

from __future__ import annotations

import re
from pathlib import Path

from report_support import catalog_model

from lnsym.report.render import render

REPORTS = Path(__file__).resolve().parents[2] / "reports"
_FINGERPRINT = re.compile(r"lnsym-fingerprint-(?:[0-9a-f]{64}|LNSYMFINGERPRINTPLACEHOLDER)")
HINT = "reports/ is stale: run `lnsym report` and commit reports/"


def test_committed_markdown_is_current():
    committed = (REPORTS / "layernorm.md").read_text(encoding="utf-8")
    assert committed == render(catalog_model(), "md"), HINT


def test_committed_latex_is_current_up_to_the_figure_fingerprint():
    committed = (REPORTS / "layernorm.tex").read_text(encoding="utf-8")
    assert _FINGERPRINT.search(committed)
    current = render(catalog_model(), "tex")
    assert _FINGERPRINT.sub("FINGERPRINT", committed) == _FINGERPRINT.sub("FINGERPRINT", current), (
        HINT
    )
