"""The results cache: reused only while the claim, the options and the code are the same;
records are JSON bound to their claim, and anything else found in their place is a miss."""

from __future__ import annotations

import ast
import json
import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sympy

import lnsym.checking.cache as cache_module
from lnsym import Eq, core, mean, ones, scalar, vector
from lnsym.checking.cache import ResultCache
from lnsym.checking.catalog import load
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim, Evidence, Result
from lnsym.checking.fingerprint import content_key
from lnsym.checking.lemmas import SPECTRAL_NORM
from lnsym.checking.proof import Lemma, by_lemma
from lnsym.checking.verdicts import Verdict
from lnsym.engines.base import Outcome
from tests.records_support import same

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
    assert again[0].claim is SHIFT and again[1].claim is WRONG
    records = sorted(tmp_path.rglob("*.json"))
    assert len(records) == 2 and not any(p.suffix == ".pickle" for p in tmp_path.rglob("*"))
    assert {json.loads(p.read_bytes())["claim"] for p in records} == {
        content_key(SHIFT),
        content_key(WRONG),
    }
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
    for _ in range(40):  # a tree of 2^40 leaves, 80 distinct parts
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
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


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
    entries = sorted((tmp_path / "cache").rglob("*.json"))
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
    (stale / "ab" / "old.json").write_bytes(b"old")
    old_format = tmp_path / "results-1" / ("2" * 32) / "ab"  # format 1: pickles
    old_format.mkdir(parents=True)
    (old_format / "old.pickle").write_bytes(b"old")
    mine = tmp_path / ("1" * 32)  # not in lnsym's own folders: never touched
    mine.mkdir()
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "keep").mkdir(parents=True)
    (results / ("3" * 32)).symlink_to(elsewhere)  # a link: never followed
    (tmp_path / "results-7").symlink_to(elsewhere)
    monkeypatch.setattr(cache_module, "_TIDIED", set())
    _checker(tmp_path).check(SHIFT)
    assert not stale.exists() and not (tmp_path / "results-1").exists() and mine.is_dir()
    assert (elsewhere / "keep").is_dir()
    assert len(list(results.rglob("*.json"))) == 1


def test_a_result_that_cannot_be_stored_is_only_not_kept(tmp_path):
    cache = ResultCache(tmp_path, Options().evidence_settings())
    odd = Evidence("numeric", Outcome.CONSISTENT, "fine", 0.0, {"handle": lambda: None})
    cache.put(SHIFT, Result(SHIFT, Verdict.CONSISTENT, (odd,), 0.0))  # no record holds a lambda
    assert cache.get(SHIFT) is None
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_a_result_is_kept_only_under_its_own_claim(tmp_path):
    cache = ResultCache(tmp_path, Options().evidence_settings())
    cache.put(WRONG, Result(SHIFT, Verdict.PROVED, (), 0.0))  # another claim's result
    assert cache.get(WRONG) is None and cache.get(SHIFT) is None
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


# --- Records read back exactly ---------------------------------------------------------------

#: Catalog claims whose results have the shapes a record must hold: a counterexample with
#: surds (a sum of them, too), a matrix counterexample with its sizes and entry.
SHAPES = (
    "jacobian.norm_every_dimension",
    "layer.output_zero_mean",
    "invariance.batch_norm.single_case_rescaling",
)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> tuple[Path, dict[str, Result]]:
    """Results checked once with the cache on: the folder they were kept in, and them."""
    root = tmp_path_factory.mktemp("cache")
    catalog = {claim.id: claim for section in load() for claim in section.claims}
    checker = _checker(root)
    results = {claim.id: checker.check(claim) for claim in (SHIFT, WRONG)}
    results |= {name: checker.check(catalog[name]) for name in SHAPES}
    return root, results


@pytest.mark.parametrize("name", [SHIFT.id, WRONG.id, *SHAPES])
def test_a_kept_result_is_the_fresh_one_in_everything_shown(fresh, name):
    root, results = fresh
    result = results[name]
    kept = ResultCache(root, Options().evidence_settings()).get(result.claim)
    assert kept is not None and kept is not result
    assert kept.claim is result.claim
    assert kept == result
    assert kept.to_json() == result.to_json()  # seconds included
    assert kept.seconds == result.seconds and kept.reason == result.reason
    assert kept.evidence == result.evidence
    for mine, theirs in zip(kept.evidence, result.evidence, strict=True):
        assert same(mine.data, theirs.data)  # not compared by Evidence's ==
        assert same(mine, theirs)
    assert same(kept.counterexample, result.counterexample)


def test_the_shapes_are_what_the_round_trips_claim_to_cover(fresh):
    _, results = fresh
    (concrete,) = [e for e in results[SHIFT.id].evidence if e.engine == "concrete"]
    assert concrete.data["methods"] and all(type(d) is int for d in concrete.data["methods"])
    surd = results["jacobian.norm_every_dimension"].counterexample
    assert surd is not None and not surd.lhs.is_Rational and surd.lhs.has(sympy.Pow)
    both = results["layer.output_zero_mean"].counterexample
    assert both is not None and isinstance(both.lhs, sympy.Add)
    matrix = results["invariance.batch_norm.single_case_rescaling"].counterexample
    assert matrix is not None and matrix.sizes and matrix.entry
    assert all(r.verdict == Verdict.REFUTED for n, r in results.items() if n != SHIFT.id)


# --- Anything else in a record's place is a miss, removed --------------------------------------


def _kept(tmp_path: Path, claim: Claim) -> Path:
    """Check ``claim`` with the cache on and return its record's path."""
    assert _checker(tmp_path).check(claim).passed
    path = ResultCache(tmp_path, Options().evidence_settings())._place(claim)[1]
    assert path is not None and path.is_file()
    return path


def _edited(change: Callable[[dict[str, Any]], object]) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        record = json.loads(data)
        change(record)
        return json.dumps(record).encode()

    return edit


def _set(path: str, value: object) -> Callable[[bytes], bytes]:
    """Set one field of the record, ``result.counterexample.d`` say (digits index lists)."""
    *parents, last = path.split(".")

    def change(record: dict[str, Any]) -> None:
        at: Any = record
        for part in parents:
            at = at[int(part)] if part.isdigit() else at[part]
        at[int(last) if last.isdigit() else last] = value

    return _edited(change)


def _delete(path: str) -> Callable[[bytes], bytes]:
    *parents, last = path.split(".")

    def change(record: dict[str, Any]) -> None:
        at: Any = record
        for part in parents:
            at = at[int(part)] if part.isdigit() else at[part]
        del at[last]

    return _edited(change)


DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    "empty": lambda data: b"",
    "truncated": lambda data: data[: len(data) // 2],
    "not UTF-8": lambda data: b"\xff\xfe" + data,
    "a JSON list": lambda data: b"[]",
    "JSON null": lambda data: b"null",
    "a later format": _set("format", cache_module.FORMAT + 1),
    "an earlier format": _set("format", 1),
    "the format as text": _set("format", str(cache_module.FORMAT)),
    "no claim": _delete("claim"),
    "an extra field": _set("result.extra", 1),
    "verdict unknown": _set("result.verdict", "PROVEN"),
    "verdict a number": _set("result.verdict", 3),
    "seconds as text": _set("result.seconds", "0.5"),
    "evidence not a list": _set("result.evidence", {"0": None}),
    "outcome unknown": _set("result.evidence.0.outcome", "maybe"),
    "detail missing": _delete("result.evidence.0.detail"),
    "data not a dict": _set("result.evidence.0.data", [1, 2]),
    "an unknown tag in data": _set("result.evidence.0.data", {"pickle": "gASVAAAAAAAAAAA="}),
    "d true": _set("result.counterexample.d", True),
    "relation unknown": _set("result.counterexample.relation", "ne"),
    "a symbol in a tree": _set("result.counterexample.lhs", {"number": ["Symbol", "x"]}),
    "a call in a tree": _set(
        "result.counterexample.lhs", {"number": ["Function", "os.system", ["Integer", 1]]}
    ),
    "text for a tree": _set("result.counterexample.rhs", {"number": "__import__('os')"}),
    "a rational not in lowest terms": _set(
        "result.counterexample.scalars", [["epsilon", ["Rational", 2, 4]]]
    ),
    "NaN seconds": lambda data: data.replace(b'"seconds":', b'"seconds":NaN,"x":', 1),
    "a repeated key": lambda data: data.replace(b'{"format":', b'{"format":0,"format":', 1),
    "nested too deeply": lambda data: b"[" * 100_000 + b"]" * 100_000,
}


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_record_is_a_miss_and_is_removed(tmp_path, damage):
    path = _kept(tmp_path, WRONG)
    data = path.read_bytes()
    assert damage(data) != data
    path.write_bytes(damage(data))
    assert ResultCache(tmp_path, Options().evidence_settings()).get(WRONG) is None
    assert not path.exists()
    # The next run checks afresh and keeps the result again.
    assert _checker(tmp_path).check(WRONG).verdict == Verdict.REFUTED
    kept = ResultCache(tmp_path, Options().evidence_settings()).get(WRONG)
    assert kept is not None and kept.verdict == Verdict.REFUTED


def test_a_record_copied_under_another_claims_key_is_not_served(tmp_path):
    refuted, proved = _kept(tmp_path, WRONG), _kept(tmp_path, SHIFT)
    shutil.copyfile(refuted, proved)  # the REFUTED record where SHIFT's should be
    assert ResultCache(tmp_path, Options().evidence_settings()).get(SHIFT) is None
    assert not proved.exists()
    result = _checker(tmp_path).check(SHIFT)
    assert result.verdict == Verdict.PROVED and result.claim is SHIFT
    # The same for a record made under other settings, copied to these settings' place.
    other = ResultCache(tmp_path, Options(seed=1).evidence_settings())
    elsewhere = other._place(SHIFT)[1]
    assert elsewhere is not None
    elsewhere.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(proved, elsewhere)
    assert other.get(SHIFT) is None and not elsewhere.exists()


class _Marker:
    """Unpickling this creates ``path``: proof that a pickle was loaded."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (str(self.path), "w"))


def test_a_planted_pickle_is_never_unpickled(tmp_path, monkeypatch):
    marker = tmp_path / "unpickled"
    planted = pickle.dumps(_Marker(marker))
    pickle.loads(planted)  # the bait works: loading it creates the marker
    assert marker.exists()
    marker.unlink()
    path = _kept(tmp_path, SHIFT)
    path.write_bytes(planted)
    old = tmp_path / "results-1" / path.parent.parent.name / path.parent.name
    old.mkdir(parents=True)
    (old / path.with_suffix(".pickle").name).write_bytes(planted)  # where format 1 kept it
    monkeypatch.setattr(cache_module, "_TIDIED", set())
    assert _checker(tmp_path).check(SHIFT).verdict == Verdict.PROVED
    assert not marker.exists()
    assert not (tmp_path / "results-1").exists()
    assert json.loads(path.read_bytes())["claim"] == content_key(SHIFT)


@pytest.mark.parametrize("module", ["cache", "records"])
def test_reading_a_record_can_run_no_code(module):
    """No unpickler, no parser of expressions: the modules that read records use none."""
    source = Path(cache_module.__file__).with_name(f"{module}.py").read_text(encoding="utf-8")
    nodes = list(ast.walk(ast.parse(source)))
    imported = {a.name for n in nodes if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in nodes if isinstance(n, ast.ImportFrom)}
    assert {m.split(".")[0] for m in imported}.isdisjoint(
        {"pickle", "marshal", "shelve", "dill", "cloudpickle", "yaml"}
    )
    names = {n.id for n in nodes if isinstance(n, ast.Name)}
    names |= {n.attr for n in nodes if isinstance(n, ast.Attribute)}
    names |= {a.name for n in nodes if isinstance(n, ast.ImportFrom) for a in n.names}
    assert names.isdisjoint({"eval", "exec", "sympify", "parse_expr", "S", "pickle"})


def test_a_claim_with_a_users_sympy_function_is_never_cached():
    """Its meaning is its code (an eval of its own), which no fingerprint sees: an edited
    module kept serving the old verdict."""
    import sympy as sp

    from lnsym import ir as lnsym_ir

    class act(sp.Function):  # noqa: N801 — SymPy's style for functions
        @classmethod
        def eval(cls, x):
            return None

    c = sp.Symbol("c", real=True)
    assert content_key(Claim("f", Eq(lnsym_ir.Const(act(c)), lnsym_ir.Const(c**2)))) is None
    assert content_key(Claim("g", Eq(lnsym_ir.Const(sp.sin(c)), lnsym_ir.Const(c)))) is not None


def test_a_users_folder_named_like_a_format_is_never_removed(tmp_path, monkeypatch):
    notes = tmp_path / "results-2024" / "experiment"
    notes.mkdir(parents=True)
    (notes / "notes.txt").write_text("mine")
    monkeypatch.setattr(cache_module, "_TIDIED", set())
    _checker(tmp_path).check(SHIFT)
    assert (notes / "notes.txt").read_text() == "mine"


def test_a_result_the_clock_decided_is_not_kept(tmp_path, monkeypatch):
    """A counterexample's re-check stopped by the wall clock decided nothing: the claim is
    TIMEOUT and no record is written (it was an ERROR, served to later runs)."""
    import time as clock

    import lnsym.engines.concrete.engine as concrete

    def slow(claim, point):
        clock.sleep(3)
        return None, "never"

    monkeypatch.setattr(concrete, "recheck", slow)
    options = Options(cache_dir=tmp_path, timeout=1, engines=("concrete",))
    result = Checker(options).check(WRONG)
    assert result.verdict == "TIMEOUT", result.reason
    assert not list(tmp_path.rglob("*.json"))
