"""Building the PDF from the LaTeX report with latexmk, safely and reproducibly.

latexmk runs in a private temporary directory with ``-no-shell-escape``, no rc files
(``-norc``: a user's ``.latexmkrc`` is Perl), ``openin_any=p`` (TeX may read only files
below the working directory) and a fixed ``SOURCE_DATE_EPOCH``; the template itself omits
the PDF's dates and trailer id, so the same TeX installation builds the same bytes.

latexmk decides whether another pass is needed partly from file times, and under load it
was seen to stop one pass early (a table of contents with a stale page number). So after
it finishes, the build is forced through further passes until the auxiliary files (.aux,
.toc, .out) stop changing: the PDF then comes from a pass that read its own final state.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lnsym.errors import LnsymError

#: The command that builds the PDF (the file name is appended).
LATEXMK = [
    "latexmk",
    "-norc",
    "-pdf",
    "-no-shell-escape",
    "-halt-on-error",
    "-interaction=nonstopmode",
    "-file-line-error",
]
#: The Debian packages that provide it.
TEX_PACKAGES = (
    "texlive-latex-base",
    "texlive-latex-recommended",
    "texlive-fonts-recommended",
    "latexmk",
)


class PdfBuildError(LnsymError):
    """latexmk failed; the message holds the first error of the log."""


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
    return [tool for tool in ("latexmk", "pdflatex") if shutil.which(tool) is None]


def build_pdf(
    tex: str, files: Mapping[str, bytes], name: str = "layernorm", timeout: float = 300.0
) -> PdfBuild:
    """Compile ``tex`` (with ``files`` beside it, e.g. figures) into a PDF.

    Args:
        tex: the LaTeX source.
        files: relative path → bytes of the files the source includes.
        name: the job name.
        timeout: seconds before latexmk is stopped.

    Raises:
        PdfBuildError: when latexmk fails or takes too long.
    """
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
        proc = _latexmk(root, name, env, timeout, [])
        for _ in range(_EXTRA_PASSES):
            if proc.returncode != 0:
                break
            before = _auxiliary_state(root, name)
            proc = _latexmk(root, name, env, timeout, ["-g"])
            if _auxiliary_state(root, name) == before:
                break
        log_path = root / f"{name}.log"
        log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
        pdf_path = root / f"{name}.pdf"
        if proc.returncode != 0 or not pdf_path.exists():
            raise PdfBuildError(f"latexmk failed: {_first_error(log, proc.stderr)}")
        return PdfBuild(pdf_path.read_bytes(), log)


_EXTRA_PASSES = 3
_AUXILIARY = (".aux", ".toc", ".out")


def _latexmk(
    root: Path, name: str, env: dict[str, str], timeout: float, extra: list[str]
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            [*LATEXMK, *extra, f"{name}.tex"],
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise PdfBuildError(f"latexmk did not finish within {timeout:g} s") from exc


def _auxiliary_state(root: Path, name: str) -> list[bytes | None]:
    """The contents of the files one pass hands to the next."""
    paths = [root / f"{name}{suffix}" for suffix in _AUXILIARY]
    return [p.read_bytes() if p.exists() else None for p in paths]


def _first_error(log: str, stderr: bytes) -> str:
    """The first TeX error of the log, in one line."""
    match = re.search(r"^(?:!|.*:\d+:) (.*)$", log, flags=re.MULTILINE)
    if match:
        return match.group(1).strip()
    tail = stderr.decode("utf-8", errors="replace").strip().splitlines()
    return tail[-1] if tail else "no log"
