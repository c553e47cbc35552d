"""pytest plugin: collect the claims and derivations of derivation modules as test items.

Off unless configured, so installing lnsym never changes another project's test run:
set ``lnsym_paths`` in the pytest ini options (``[tool.pytest.ini_options]`` in
pyproject.toml) or pass ``--lnsym PATH`` (repeatable). Each Claim and Derivation becomes an
item ``path::id``; an item fails when its verdict differs from its expectation, with the
statement, verdict, evidence and any counterexample in the report. ``-p no:lnsym``
disables the plugin entirely. Only this module is imported at pytest start-up — it lives
outside the ``lnsym`` package, whose ``__init__`` loads SymPy and every engine (≈ 0.8 s) —
and lnsym loads when something is configured.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_CHECKER = pytest.StashKey[Any]()
_ROOTS = pytest.StashKey[list[Path]]()
_TIMEOUT = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lnsym", "lnsym claim checking")
    group.addoption(
        "--lnsym",
        action="append",
        default=[],
        metavar="PATH",
        help="check the claims of these derivation modules or directories (repeatable)",
    )
    group.addoption(
        "--lnsym-timeout",
        default=None,
        metavar="SECONDS",
        help="time budget per claim (default: lnsym_timeout ini option, else 60)",
    )
    parser.addini("lnsym_paths", "derivation modules or directories to check", type="paths")
    parser.addini("lnsym_timeout", "time budget per claim in seconds", default="60")


def pytest_configure(config: pytest.Config) -> None:
    explicit = [Path(p).resolve() for p in config.getoption("lnsym")]
    from_ini = [Path(p).resolve() for p in config.getini("lnsym_paths")]
    config.stash[_ROOTS] = explicit + from_ini
    if not explicit + from_ini:
        return
    from lnsym.errors import UserInputError
    from lnsym.parse import parse_seconds

    raw = config.getoption("lnsym_timeout") or config.getini("lnsym_timeout")
    try:
        config.stash[_TIMEOUT] = parse_seconds(str(raw))
    except UserInputError as exc:
        raise pytest.UsageError(f"lnsym timeout: {exc}") from None
    _check_paths("--lnsym", explicit)
    _check_paths("lnsym_paths", from_ini)
    # Visit the configured paths even when they lie outside pytest's arguments — but when
    # the user named tests on the command line, add only what --lnsym asked for.
    named_on_command_line = config.args_source == pytest.Config.ArgsSource.ARGS
    wanted = explicit if named_on_command_line else explicit + from_ini
    args = [Path(a.split("::")[0]).resolve() for a in config.args]
    for root in wanted:
        if not any(root == a or a in root.parents for a in args):
            config.args.append(str(root))
            args.append(root)


def _check_paths(source: str, paths: list[Path]) -> None:
    """Stop the session when a configured path holds no derivation module to check.

    Checked even when the paths are not collected (tests named on the command line), so
    a typo in ``lnsym_paths`` never turns into a run that silently checks nothing.

    Raises:
        pytest.UsageError: for a missing path, a file that is not ``.py``, or a directory
            without derivation modules.
    """
    from lnsym.checking.catalog import module_files
    from lnsym.errors import CatalogError

    for path in paths:
        try:
            found = module_files([path])
        except CatalogError as exc:
            raise pytest.UsageError(f"{source}: {exc}") from None
        if not found:
            raise pytest.UsageError(f"{source}: no derivation modules found in {path}")


def _configured(config: pytest.Config, path: Path) -> bool:
    path = path.resolve()
    for root in config.stash.get(_ROOTS, []):
        if path == root or (root.is_dir() and root in path.parents and path.parent == root):
            return not path.name.startswith("_")
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".py" and _configured(parent.config, file_path):
        return DerivationModule.from_parent(parent, path=file_path)
    return None


def _checker(config: pytest.Config) -> Any:
    if _CHECKER not in config.stash:
        from lnsym.checking.checker import Checker, Options

        # A failing item shows each engine's detail, never the general engine's residual.
        config.stash[_CHECKER] = Checker(Options(timeout=config.stash[_TIMEOUT], residuals=False))
    return config.stash[_CHECKER]


class DerivationModule(pytest.File):
    """A derivation module: one item per Claim and per Derivation."""

    def collect(self) -> Iterator[pytest.Item]:
        from lnsym.checking.catalog import load
        from lnsym.errors import CatalogError

        try:
            (section,) = load([self.path])
        except CatalogError as exc:
            raise self.CollectError(str(exc)) from None
        for claim in section.claims:
            yield ClaimItem.from_parent(self, name=claim.id, subject=claim)
        for derivation in section.derivations:
            yield ClaimItem.from_parent(self, name=derivation.id, subject=derivation)


class ClaimFailed(Exception):
    """Raised by a claim item whose verdict does not match its expectation."""


class ClaimItem(pytest.Item):
    """One claim or derivation, checked when the item runs."""

    def __init__(self, *, subject: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.subject = subject

    def runtest(self) -> None:
        from lnsym.checking.claims import Claim
        from lnsym.junit import describe_failure

        checker = _checker(self.config)
        if isinstance(self.subject, Claim):
            result = checker.check(self.subject)
        else:
            result = checker.check_derivation(self.subject)
        self.user_properties.append(("verdict", result.verdict))
        if not result.passed:
            raise ClaimFailed(describe_failure(result))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ClaimFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"lnsym: {self.name}"
