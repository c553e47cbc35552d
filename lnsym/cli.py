"""The ``lnsym`` command line: the parser, its subcommands, and :func:`main`.

Each subcommand is a module of :mod:`lnsym.commands` (its parser and its handler);
:data:`COMMANDS` lists them. Bad usage and bad input give one line on stderr and exit
code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn, Protocol

from lnsym.commands import derive, example, exercises, report, verify
from lnsym.errors import UserInputError


class Command(Protocol):
    """A module of :mod:`lnsym.commands`: ``add_parser(sub)`` adds the subcommand's parser to
    ``sub`` and sets its ``run`` default to the handler (arguments in, exit code out)."""

    def add_parser(self, sub: Any) -> None: ...


#: The subcommands, in the order ``lnsym --help`` lists them.
COMMANDS: tuple[Command, ...] = (verify, derive, example, report, exercises)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="lnsym", description="Derive and verify the mathematics of layer normalization."
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    args.owns_process = argv is None  # (as the console script calls it)
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
