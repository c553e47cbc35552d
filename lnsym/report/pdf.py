"""Building the PDF from the LaTeX report with pdflatex, safely and reproducibly.

pdflatex runs in a private temporary directory with ``-no-shell-escape``,
``openin_any=p`` (TeX may read only files below the working directory) and a fixed
``SOURCE_DATE_EPOCH``; the template itself omits the PDF's dates and trailer id, so the same
TeX installation builds the same bytes.

A pass reads what the previous one wrote (.aux, .toc, .out: references, the table of
contents, the PDF's outline). So passes run until those files stop changing: the PDF then
comes from a pass that read its own final state. That is decided by the files' contents
alone — latexmk, used before, decided partly from file times; under load it was seen to stop
a pass early, and the extra pass that made sure of it cost a whole pass on every build.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lnsym.errors import LnsymError

#: One pass of TeX (the file name is appended).
PDFLATEX = [
    "pdflatex",
    "-no-shell-escape",
    "-halt-on-error",
    "-interaction=nonstopmode",
    "-file-line-error",
]
#: The Debian packages that provide it and what the template uses.
TEX_PACKAGES = (
    "texlive-latex-base",
    "texlive-latex-recommended",
    "texlive-fonts-recommended",
)
#: Passes before a document whose auxiliary files still change is given up on.
MAX_PASSES = 6


class PdfBuildError(LnsymError):
    """pdflatex failed; the message holds the first error of the log."""


@dataclass(frozen=True)
class PdfBuild:
    """A built PDF with its log."""

    pdf: bytes
    log: str

    @property
    def overfull(self) -> list[str]:
        """The "Overfull \\hbox" warnings of the log (lines running into the margin)."""
        return re.findall(r"^Overfull \\hbox.*$", self.log, flags=re.MULTILINE)


def missing_tools() -> list[str]:
    """The programs needed for the PDF that are not on the PATH."""
    return [tool for tool in ("pdflatex",) if shutil.which(tool) is None]


def build_pdf(
    tex: str, files: Mapping[str, bytes], name: str = "layernorm", timeout: float = 300.0
) -> PdfBuild:
    """Compile ``tex`` (with ``files`` beside it, e.g. figures) into a PDF.

    Args:
        tex: the LaTeX source.
        files: relative path → bytes of the files the source includes.
        name: the job name.
        timeout: seconds before the build is stopped (a safety net: it fails loudly).

    Raises:
        PdfBuildError: when pdflatex fails, takes too long, or its auxiliary files never
            settle.
    """
    deadline = time.monotonic() + timeout
    with tempfile.TemporaryDirectory(prefix="lnsym-pdf-") as tmp:
        root = Path(tmp)
        for rel, data in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (root / f"{name}.tex").write_text(tex, encoding="utf-8")
        env: dict[str, str] = {
            **os.environ,
            "openin_any": "p",
            "openout_any": "p",
            "shell_escape": "f",
            "SOURCE_DATE_EPOCH": "0",
            "FORCE_SOURCE_DATE": "1",
        }
        state = _auxiliary_state(root, name)
        for _ in range(MAX_PASSES):
            proc = _pdflatex(root, name, env, deadline, timeout)
            if proc.returncode != 0:
                break
            read, state = state, _auxiliary_state(root, name)
            if state == read:  # this pass read what it wrote: the final state
                break
        else:
            raise PdfBuildError(
                f"the cross-references did not settle in {MAX_PASSES} passes of pdflatex"
            )
        log_path = root / f"{name}.log"
        log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
        pdf_path = root / f"{name}.pdf"
        if proc.returncode != 0 or not pdf_path.exists():
            raise PdfBuildError(f"pdflatex failed: {_first_error(log, proc.stdout)}")
        return PdfBuild(pdf_path.read_bytes(), log)


_AUXILIARY = (".aux", ".toc", ".out")


def _pdflatex(
    root: Path, name: str, env: dict[str, str], deadline: float, timeout: float
) -> subprocess.CompletedProcess[bytes]:
    left = deadline - time.monotonic()
    try:
        if left <= 0:
            raise subprocess.TimeoutExpired(PDFLATEX, timeout)
        return subprocess.run(
            [*PDFLATEX, f"{name}.tex"],
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=left,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise PdfBuildError(f"pdflatex did not finish within {timeout:g} s") from exc


def _auxiliary_state(root: Path, name: str) -> list[bytes | None]:
    """The contents of the files one pass hands to the next."""
    paths = [root / f"{name}{suffix}" for suffix in _AUXILIARY]
    return [p.read_bytes() if p.exists() else None for p in paths]


def _first_error(log: str, output: bytes) -> str:
    """The first TeX error of the log, in one line (else the last line TeX printed)."""
    match = re.search(r"^(?:!|.*:\d+:) (.*)$", log, flags=re.MULTILINE)
    if match:
        return match.group(1).strip()
    tail = output.decode("utf-8", errors="replace").strip().splitlines()
    return tail[-1] if tail else "no log"
