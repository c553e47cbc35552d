"""The results cache: reused only while the claim, the options and the code are the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest
import sympy

import lnsym.checking.cache as cache_module
from lnsym import Eq, core, mean, ones, scalar, vector
from lnsym.checking.cache import ResultCache, content_key
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim, Evidence, Result
from lnsym.checking.lemmas import SPECTRAL_NORM
from lnsym.checking.proof import Lemma, by_lemma
from lnsym.checking.verdicts import Verdict
from lnsym.engines.base import Outcome

z, c = vector("z"), scalar("c")
SHIFT = Claim("cache.shift", Eq(core(z + c * ones), core(z)))
WRONG = Claim("cache.scale", Eq(core(2 * z + ones), core(z)), expect="refuted")


def _words(result: Result) -> tuple:
    return (
        result.verdict,
        result.reason,
        [(e.engine, e.outcome, e.detail) for e in result.evidence],
    )


def _checker(tmp_path, **options) -> Checker:
    return Checker(Options(cache_dir=tmp_path, **options))


def _no_checking(monkeypatch) -> None:
    def refuse(self, claim):
        raise AssertionError(f"{claim.id} was checked again instead of read from the cache")

    monkeypatch.setattr(Checker, "_check", refuse)


def test_a_second_checker_reads_what_the_first_found(tmp_path, monkeypatch):
    first = [_checker(tmp_path).check(claim) for claim in (SHIFT, WRONG)]
    assert [r.verdict for r in first] == [Verdict.PROVED, Verdict.REFUTED]
    _no_checking(monkeypatch)
    again = [_checker(tmp_path).check(claim) for claim in (SHIFT, WRONG)]
    assert [_words(r) for r in again] == [_words(r) for r in first]
    assert again[1].counterexample == first[1].counterexample
    # The claim object is the one asked about (its title may have changed nothing else).
    renamed = replace(SHIFT, title="a new title")
    assert content_key(renamed) != content_key(SHIFT)


@pytest.mark.parametrize(
    "changed",
    [
        {"engines": ("general", "concrete")},
        {"max_d": 5},
        {"samples": 50},
        {"seed": 1},
        {"residuals": False},
    ],
)
def test_other_options_are_checked_afresh(tmp_path, changed):
    _checker(tmp_path).check(SHIFT)
    other = ResultCache(tmp_path, Options(**changed).evidence_settings())
    assert other.get(SHIFT) is None
    assert ResultCache(tmp_path, Options(timeout=5).evidence_settings()).get(SHIFT) is not None


def test_the_key_sees_every_difference_of_structure_and_assumption():
    positive = scalar("c", positive=True)
    variants = [
        Eq(core(z + c * ones), core(z)),
        Eq(core(z + positive * ones), core(z)),  # the same name, another assumption
        Eq(core(z + c * ones), core(vector("w"))),
        Eq(mean(z + c * ones), mean(z) + c),
        Eq(core(z + sympy.Rational(1, 3) * ones), core(z)),
        Eq(core(z + sympy.Rational(1, 2) * ones), core(z)),
    ]
    keys = {content_key(Claim("k", v)) for v in variants}
    assert len(keys) == len(variants)
    # Equal claims built separately share a key: the key is the content, not the object.
    assert content_key(Claim("k", Eq(core(z + c * ones), core(z)))) == content_key(
        Claim("k", variants[0])
    )


def test_a_claim_built_with_much_sharing_is_keyed_by_its_distinct_parts():
    x = z
    for _ in range(100):  # a tree of 2^100 leaves, 200 distinct parts
        x = core(x + x)
    assert content_key(Claim("k", Eq(mean(x), mean(x)))) is not None


def test_code_from_outside_lnsym_is_never_keyed(tmp_path):
    def schema(statement, assumptions, application, engine):  # a user's own lemma
        raise AssertionError("not run here")

    mine = Lemma("mine", "a fact", "nowhere", schema)
    premise = Claim("cache.premise", Eq(core(z + c * ones), core(z)))
    claim = Claim("cache.by_mine", Eq(core(z), core(z)), proof=by_lemma(mine, premise))
    assert content_key(claim) is None
    cited = Claim("cache.by_spectral", Eq(core(z), core(z)), proof=by_lemma(SPECTRAL_NORM, premise))
    assert content_key(cited) is not None
    cache = ResultCache(tmp_path, Options().evidence_settings())
    cache.put(claim, Result(claim, Verdict.PROVED, (), 0.0))
    assert cache.get(claim) is None
    assert not any(p.suffix == ".pickle" for p in tmp_path.rglob("*"))


@pytest.mark.parametrize(
    ("verdict", "evidence"),
    [
        (
            Verdict.TIMEOUT,
            Evidence("concrete", Outcome.TIMEOUT, "the wall-clock safety net ran out", 1.0),
        ),
        (Verdict.ERROR, Evidence("concrete", Outcome.ERROR, "internal MemoryError: ", 1.0)),
    ],
    ids=["cut by the clock", "engine crash"],
)
def test_a_result_cut_by_the_clock_or_an_engine_crash_is_not_kept(tmp_path, verdict, evidence):
    cache = ResultCache(tmp_path, Options().evidence_settings())
    cache.put(SHIFT, Result(SHIFT, verdict, (evidence,), 1.0))
    assert cache.get(SHIFT) is None


def test_a_damaged_entry_is_a_miss(tmp_path):
    _checker(tmp_path).check(SHIFT)
    (entry,) = tmp_path.rglob("*.pickle")
    entry.write_bytes(b"not a pickle")
    assert ResultCache(tmp_path, Options().evidence_settings()).get(SHIFT) is None
    assert _checker(tmp_path).check(SHIFT).verdict == Verdict.PROVED


def test_a_change_to_the_lnsym_source_starts_a_new_cache(tmp_path, monkeypatch):
    package = tmp_path / "package"
    package.mkdir()
    (package / "engine.py").write_text("RULE = 1\n")
    monkeypatch.setattr(cache_module, "_PACKAGE", package)
    before = cache_module._environment.__wrapped__()
    (package / "engine.py").write_text("RULE = 2\n")
    assert cache_module._environment.__wrapped__() != before


@pytest.mark.parametrize(
    ("module", "attribute"),
    [("flint", "__version__"), ("sympy.external.gmpy", "GROUND_TYPES"), ("numpy", "__version__")],
)
def test_another_version_of_what_decides_a_verdict_starts_a_new_cache(
    module, attribute, monkeypatch
):
    # python-flint multiplies the concrete engine's polynomials and is SymPy's ground type.
    import importlib

    before = cache_module._environment.__wrapped__()
    monkeypatch.setattr(importlib.import_module(module), attribute, "0.0.0-other")
    assert cache_module._environment.__wrapped__() != before


def _verify(tmp_path, *options: str) -> subprocess.CompletedProcess[str]:
    module = tmp_path / "claims.py"
    module.write_text(
        "from lnsym import Claim, Eq, core, ones, scalar, vector\n"
        "z, c = vector('z'), scalar('c')\n"
        "CLAIMS = [Claim('mine.shift', Eq(core(z + c * ones), core(z))),\n"
        "          Claim('mine.scale', Eq(core(2 * z + ones), core(z)), expect='refuted')]\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "LNSYM_CACHE"}
    env["LNSYM_CACHE_DIR"] = str(tmp_path / "cache")
    return subprocess.run(
        [sys.executable, "-m", "lnsym", "verify", str(module), "-j", "1", *options],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def _without_times(document: str) -> object:
    def strip(o: object) -> object:
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items() if k != "seconds"}
        if isinstance(o, list):
            return [strip(x) for x in o]
        return o

    return strip(json.loads(document))


def test_the_command_line_keeps_results_unless_told_not_to(tmp_path):
    cold = _verify(tmp_path, "--no-cache", "--json", "-")
    assert cold.returncode == 0, cold.stderr
    assert not (tmp_path / "cache").exists()
    first = _verify(tmp_path, "--json", "-")
    entries = sorted((tmp_path / "cache").rglob("*.pickle"))
    assert len(entries) == 2
    stamps = [p.stat().st_mtime_ns for p in entries]
    warm = _verify(tmp_path, "--json", "-")
    assert [p.stat().st_mtime_ns for p in entries] == stamps  # read, not rewritten
    assert (
        _without_times(cold.stdout) == _without_times(first.stdout) == _without_times(warm.stdout)
    )


def test_only_results_of_other_lnsym_versions_are_removed(tmp_path, monkeypatch):
    results = tmp_path / f"results-{cache_module.FORMAT}"
    stale = results / ("0" * 32)
    (stale / "ab").mkdir(parents=True)
    (stale / "ab" / "old.pickle").write_bytes(b"old")
    mine = tmp_path / ("1" * 32)  # not in lnsym's own folder: never touched
    mine.mkdir()
    monkeypatch.setattr(cache_module, "_TIDIED", set())
    _checker(tmp_path).check(SHIFT)
    assert not stale.exists() and mine.is_dir()
    assert len(list(results.rglob("*.pickle"))) == 1


def test_a_result_that_cannot_be_stored_is_only_not_kept(tmp_path):
    cache = ResultCache(tmp_path, Options().evidence_settings())
    odd = Evidence("numeric", Outcome.CONSISTENT, "fine", 0.0, {"handle": lambda: None})
    cache.put(SHIFT, Result(SHIFT, Verdict.CONSISTENT, (odd,), 0.0))  # lambdas do not pickle
    assert cache.get(SHIFT) is None
    assert not any(p.is_file() for p in tmp_path.rglob("*"))
