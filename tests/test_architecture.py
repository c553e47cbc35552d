"""The layout of docs/architecture.md holds: every import in lnsym/ runs down its floors.

Imports are read from the source (every ``import`` statement, also those inside functions
and under ``TYPE_CHECKING``), so a lazy import cannot hide a dependency that runs upward.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "lnsym"

#: Parts of lnsym, lowest floor first; a part may import only parts on its floor or below.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("lnsym.errors", "lnsym.parse", "lnsym.files", "lnsym.reference"),
    ("lnsym.ir",),
    ("lnsym.engines.base",),
    ("lnsym.printing",),
    ("lnsym.engines.general", "lnsym.engines.concrete", "lnsym.engines.numeric"),
    ("lnsym.checking",),
    ("lnsym.derive",),
    ("lnsym.exact",),
    ("lnsym.report",),
    (
        "lnsym.cli",
        "lnsym.commands",
        "lnsym.junit",
        "lnsym.language",
        "lnsym.__main__",
        "lnsym",
    ),
)
#: Parts on one floor that must not import each other: the three interpreters stay
#: independent, so that each one cross-checks the others.
INDEPENDENT = {"lnsym.engines.general", "lnsym.engines.concrete", "lnsym.engines.numeric"}
FLOOR = {part: k for k, parts in enumerate(FLOORS) for part in parts}
#: Parts that make no text for people: they return typed values and evidence, and only
#: printing/ and report/ write notation (the IR installs printers, it never imports them).
TEXT_FREE = ("lnsym.ir", "lnsym.engines")
TEXT_MAKERS = ("lnsym.printing", "lnsym.report")


def part_of(module: str) -> str:
    """The part a module belongs to: the longest listed prefix."""
    candidates = [p for p in FLOOR if module == p or module.startswith(p + ".")]
    if not candidates:
        raise AssertionError(f"{module} belongs to no part of docs/architecture.md")
    return max(candidates, key=len)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported lnsym module) for every import statement in ``path``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("lnsym")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "lnsym":  # a submodule by name, or the public API (top)
                for alias in node.names:
                    sub = PACKAGE / alias.name
                    is_module = sub.is_dir() or sub.with_suffix(".py").is_file()
                    found.append((node.lineno, f"lnsym.{alias.name}" if is_module else "lnsym"))
            elif node.module.startswith("lnsym."):
                found.append((node.lineno, node.module))
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_part():
    for path in SOURCES:
        part_of(module_name(path))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_imports_run_down(path: Path):
    source = module_name(path)
    here = part_of(source)
    wrong = []
    for line, target in imports(path):
        there = part_of(target)
        if FLOOR[there] > FLOOR[here]:
            wrong.append(f"{path.name}:{line} {source} imports {target} (a floor up)")
        elif there != here and {here, there} <= INDEPENDENT:
            wrong.append(f"{path.name}:{line} {source} imports {target} (independent engines)")
        elif here.startswith(TEXT_FREE) and there.startswith(TEXT_MAKERS):
            wrong.append(f"{path.name}:{line} {source} imports {target} (a printer)")
    assert not wrong, "\n".join(wrong)


def test_the_checker_finds_an_upward_import(tmp_path):
    # The test itself can fail: an IR module that imports the printer is caught.
    fake = PACKAGE / "ir" / "nodes.py"
    text = "def f():\n    from lnsym.printing.printer import text\n    from lnsym import check\n"
    probe = tmp_path / "probe.py"
    probe.write_text(text)
    found = imports(probe)
    assert [t for _, t in found] == ["lnsym.printing.printer", "lnsym"]
    assert FLOOR[part_of("lnsym.printing.printer")] > FLOOR[part_of(module_name(fake))]
    assert FLOOR[part_of("lnsym")] > FLOOR[part_of("lnsym.checking.claims")]


def test_no_module_imports_itself_in_a_circle():
    graph = {module_name(p): {t for _, t in imports(p)} for p in SOURCES}
    modules = set(graph)

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    edges = {m: {r for t in ts if (r := resolve(t)) and r != m} for m, ts in graph.items()}
    # Package __init__ files re-export their children; an edge child -> parent package is
    # an import of the package's public names, which is a circle only if the package's
    # __init__ imports the child back. Those are the circles this test looks for.
    seen: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        seen[m] = 1
        stack.append(m)
        for n in sorted(edges[m]):
            if seen.get(n) == 1:
                cycle = stack[stack.index(n) :] + [n]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if n not in seen:
                visit(n)
        stack.pop()
        seen[m] = 2

    for m in sorted(edges):
        if m not in seen:
            visit(m)


def test_the_public_api_exports_what_it_lists():
    import lnsym

    missing = [name for name in lnsym.__all__ if not hasattr(lnsym, name)]
    assert not missing
    assert {"Verdict", "Counterexample", "latex", "text", "check", "Claim", "Derivation"} <= set(
        lnsym.__all__
    )


def test_the_ir_prints_through_the_installed_printers():
    from lnsym import mean, vector
    from lnsym.ir import nodes

    assert set(nodes.PRINTERS) == {"text", "latex"}
    assert repr(mean(vector("z"))) == "mean(z)"
