"""Loading derivation modules."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_support import GOOD, REQUIRED_PROVED

from lnsym.checking.catalog import builtin_dir, load, module_files
from lnsym.checking.checker import Checker, Options
from lnsym.errors import CatalogError


def test_builtin_catalog_loads_in_order():
    sections = load()
    names = [s.name for s in sections]
    assert names == sorted(names)
    assert all(s.title and s.description for s in sections)
    assert builtin_dir().is_dir()


def test_required_claims_are_present_with_sources_and_proved():
    claims = {c.id: c for s in load() for c in s.claims}
    assert REQUIRED_PROVED <= set(claims)
    checker = Checker()
    for claim_id in sorted(REQUIRED_PROVED):
        claim = claims[claim_id]
        assert claim.source, claim_id
        general = checker._run("general", claim)
        assert general.outcome == "proved", (claim_id, general.detail)


def test_builtin_derivations_are_proved_step_by_step():
    checker = Checker(Options(engines=("general",)))
    derivations = [dv for s in load() for dv in s.derivations]
    assert len(derivations) >= 5
    for derivation in derivations:
        result = checker.check_derivation(derivation)
        assert result.passed, (derivation.id, [r.reason for r in result.steps])


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_user_module_and_directory(tmp_path):
    write(tmp_path / "a.py", GOOD)
    write(tmp_path / "_private.py", "raise RuntimeError('never loaded')")
    (section,) = load([tmp_path])
    assert section.title == "My section"
    assert section.description == "Some words."
    assert [c.id for c in section.claims] == ["mine.shift"]
    assert module_files([tmp_path / "a.py"]) == [tmp_path / "a.py"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x = (", ":1: SyntaxError"),
        ("import lnsym\n\nraise ValueError('nope')", ":3: ValueError: nope"),
        ("X = 1", "defines no CLAIMS list"),
        ("CLAIMS = [1]", "which is not a Claim"),
        ("CLAIMS = []\nDERIVATIONS = 3", "DERIVATIONS must be a list"),
    ],
)
def test_bad_modules_give_one_line_errors(tmp_path, source, message):
    path = write(tmp_path / "bad.py", source)
    with pytest.raises(CatalogError) as info:
        load([path])
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_duplicate_ids_are_refused(tmp_path):
    write(tmp_path / "a.py", GOOD)
    write(tmp_path / "b.py", GOOD)
    with pytest.raises(CatalogError, match="already used"):
        load([tmp_path])


def test_missing_paths_and_wrong_files(tmp_path):
    with pytest.raises(CatalogError, match="no such file"):
        load([tmp_path / "missing.py"])
    with pytest.raises(CatalogError, match="not a Python file"):
        load([write(tmp_path / "notes.txt", "hi")])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CatalogError, match="no derivation modules"):
        load([empty])


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("import sys\n\nsys.exit(3)\n", "bad.py:3: SystemExit: 3 (a derivation module"),
        ("import sys\nsys.exit('bye')\n", "bad.py:2: SystemExit: bye (a derivation module"),
        ("raise SystemExit\n", "bad.py:1: SystemExit (a derivation module must not exit"),
        ("raise KeyError('a\\nb')\n", "bad.py:1: KeyError: 'a\\nb'"),
        ("raise RuntimeError('two\\nlines')\n", "bad.py:1: RuntimeError: two lines"),
    ],
)
def test_a_module_that_exits_or_raises_at_import_is_named(tmp_path, source, message):
    import sys

    path = write(tmp_path / "bad.py", source)
    modules = set(sys.modules)
    with pytest.raises(CatalogError) as info:
        load([path])
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert set(sys.modules) == modules  # the half-imported module is not left behind
