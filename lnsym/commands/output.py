"""Where the subcommands write: output paths refused before any work is done, and rendered
files written with the build's notices passed on."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from lnsym.errors import UserInputError


def check_output_file(option: str, value: str | None, inputs: Any = ()) -> None:
    """Refuse, before any work, an output FILE that exists and is not a regular file, or
    that is one of the ``inputs`` (a derivation module the run reads, or a module under a
    folder it reads): writing it would replace the user's own file."""
    from lnsym.files import check_output_path

    if value is None or (option == "--json" and value == "-"):
        return
    try:
        check_output_path(Path(value))
    except UserInputError as exc:
        raise UserInputError(f"{option} {exc}") from None
    target = Path(value).resolve()
    for given in inputs:
        source = Path(given).resolve()
        inside = source.is_dir() and source in target.parents and target.suffix == ".py"
        if target == source or inside:
            raise UserInputError(
                f"{option} {value}: that is an input of this run ({given}), not an output"
            )


def check_output_dir(out: Path) -> None:
    """Refuse an ``--out`` DIR that exists and is not a directory."""
    if out.exists() and not out.is_dir():
        raise UserInputError(f"--out {out}: not a directory")


def write_rendered(rendered: Any, out: Path) -> None:
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
