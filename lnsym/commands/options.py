"""What the subcommands share: option types, the path and checking options, and what is
made of them (the checker's options, the number of processes).

The option types raise ``argparse.ArgumentTypeError``, so a bad value gives argparse's
one-line usage error (exit code 2).
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path
from typing import Any

from lnsym.errors import UserInputError
from lnsym.parse import MAX_SECONDS, parse_seconds

#: The engines ``--engines`` chooses from (all of them by default).
ENGINES = ("general", "concrete", "numeric")

# ---------------------------------------------------------------------------------------
# Option types


def integer(value: str, low: int, what: str) -> int:
    """``value`` as an integer from ``low`` to 1 000 000 (``what`` names it in the error)."""
    if not value.strip().isascii() or not value.strip().lstrip("+").isdigit():
        raise argparse.ArgumentTypeError(f"not {what}: {value!r}")
    number = int(value)
    if number < low or number > 1_000_000:
        raise argparse.ArgumentTypeError(f"not {what}: {value!r}")
    return number


def positive_int(value: str) -> int:
    return integer(value, 1, "a positive integer")


def natural(value: str) -> int:
    return integer(value, 0, "a nonnegative integer")


def engine_list(value: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in value.split(",") if part.strip())
    unknown = [n for n in names if n not in ENGINES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown engine {', '.join(unknown) or repr(value)}: choose from "
            "general, concrete, numeric"
        )
    return names


def seconds(value: str) -> float:
    try:
        return parse_seconds(value)
    except UserInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def output_file(value: str) -> str:
    if not value.strip():
        raise argparse.ArgumentTypeError("empty file name")
    return value


def output_dir(value: str) -> Path:
    if not value.strip():
        raise argparse.ArgumentTypeError("empty directory name")
    return Path(value)


# ---------------------------------------------------------------------------------------
# Options of several commands


def add_paths(parser: argparse.ArgumentParser) -> None:
    """The derivation modules to load (positional)."""
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="derivation modules or directories (default: the built-in catalog)",
    )


def add_check_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by every command that checks claims."""
    group = parser.add_argument_group("checking")
    group.add_argument(
        "--timeout",
        type=seconds,
        default=60.0,
        metavar="SECONDS",
        help=f"time budget per claim, at most {MAX_SECONDS} (default: 60)",
    )
    group.add_argument(
        "--total-timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="time budget for the whole run; items not started in time become TIMEOUT",
    )
    group.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=None,
        metavar="N",
        help="check claims in N processes, at most one per usable CPU (default: one per "
        "usable CPU; the results are those of a serial run)",
    )
    group.add_argument(
        "--engines",
        type=engine_list,
        default=ENGINES,
        metavar="LIST",
        help="comma-separated engines among general, concrete, numeric (default: all three)",
    )
    group.add_argument(
        "--max-d",
        type=positive_int,
        default=8,
        metavar="N",
        help="the concrete engine checks d = 1..N exactly (default: 8)",
    )
    group.add_argument(
        "--samples",
        type=positive_int,
        default=200,
        metavar="N",
        help="points the numeric engine tries per claim (default: 200)",
    )
    group.add_argument(
        "--seed", type=natural, default=0, metavar="N", help="seed of every random choice"
    )
    group.add_argument(
        "--no-cache",
        action="store_true",
        help="check every claim afresh instead of reusing results kept by earlier runs of "
        "the same lnsym (kept in $LNSYM_CACHE_DIR or ~/.cache/lnsym; LNSYM_CACHE=off also "
        "turns it off)",
    )


# ---------------------------------------------------------------------------------------
# What the checking options make


def freeze_loaded(args: argparse.Namespace) -> None:
    """Take what the command has loaded so far — modules, the catalog — out of the sight of
    the cyclic garbage collector (:func:`gc.freeze`): it lives as long as the command, and
    every full collection would walk it again, about 50 ms each, several times in a
    whole-catalog check (with what those walks do to the CPU's caches, checking the catalog
    took about 10 % less CPU, the median of 6 runs in turn). Before worker processes are
    forked it also keeps their memory shared, as the Python documentation advises.

    Only when the command owns its process (run as ``lnsym``, not :func:`lnsym.cli.main`
    called with arguments from other code): a library must leave the collector of the
    process it runs in alone.
    """
    if getattr(args, "owns_process", False):
        gc.freeze()


def checker_options(args: argparse.Namespace, *, residuals: bool = False) -> Any:
    """The :class:`~lnsym.checking.checker.Options` of :func:`add_check_options`' values;
    ``residuals`` for an output that shows the general engine's residuals (``--json``)."""
    from lnsym.checking.cache import default_dir
    from lnsym.checking.checker import Options

    return Options(
        timeout=args.timeout,
        engines=args.engines,
        max_d=args.max_d,
        samples=args.samples,
        seed=args.seed,
        cache_dir=None if args.no_cache else default_dir(),
        residuals=residuals,
    )


def jobs(requested: int | None) -> int:
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
