"""JSON records of results: exact round trips of values and SymPy numbers, nothing else read."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym import Eq, core, ones, scalar, vector
from lnsym.checking.claims import Claim, Evidence, Result
from lnsym.checking.records import (
    FORMAT,
    BadRecord,
    NotRecordable,
    decode_number,
    decode_value,
    encode_number,
    encode_value,
    read_record,
    write_record,
)
from lnsym.checking.verdicts import Verdict
from lnsym.engines.base import Counterexample, Outcome
from tests.records_support import same

z, c = vector("z"), scalar("c")
CLAIM = Claim("records.shift", Eq(core(z + c * ones), core(z)))


def _through_json(obj: Any) -> Any:
    return json.loads(json.dumps(obj, allow_nan=False))


rationals = st.one_of(
    st.builds(sympy.Rational, st.integers(-9, 9), st.integers(1, 9)),
    st.builds(sympy.Rational, st.integers(-(10**30), 10**30), st.integers(1, 10**6)),
)
positive = st.builds(sympy.Rational, st.integers(1, 50), st.integers(1, 9))


@st.composite
def algebraic(draw: st.DrawFn) -> sympy.Expr:
    """A real algebraic number: rationals and square roots combined by +, ·, powers and
    roots of positive radicands, 1 to 5 levels deep (so roots nest)."""
    x: sympy.Expr = draw(st.one_of(rationals, st.builds(sympy.sqrt, positive)))
    for _ in range(draw(st.integers(1, 5))):
        other = draw(st.one_of(rationals, st.builds(sympy.sqrt, positive)))
        step = draw(st.sampled_from(["add", "mul", "root", "inverse", "power"]))
        if step == "add":
            x = x + other
        elif step == "mul":
            x = x * other
        elif step == "root":
            x = sympy.sqrt(x**2 + draw(positive))
        elif step == "inverse":
            x = 1 / (x**2 + 1)
        else:
            x = x ** draw(st.integers(0, 3))
    return x


@settings(max_examples=150, deadline=None)
@given(algebraic())
def test_an_algebraic_number_comes_back_exactly(x):
    back = decode_number(_through_json(encode_number(x)))
    assert same(back, x)
    assert same(decode_value(_through_json(encode_value(x))), x)


@pytest.mark.parametrize(
    "x",
    [
        4 * sympy.sqrt(5) / 25,
        sympy.sqrt(5) / 10 + sympy.Rational(1, 2),
        sympy.sqrt(2 + sympy.sqrt(3)),
        sympy.Integer(0),
        sympy.Integer(-1),
        sympy.Rational(1, 2),
        sympy.Integer(10) ** 40,
        sympy.Add(sympy.Integer(1), sympy.Integer(1), evaluate=False),  # kept as written
    ],
    ids=str,
)
def test_sympy_numbers_come_back_with_their_classes(x):
    tree = encode_number(x)
    assert tree[0] in {"Integer", "Rational", "Add", "Mul", "Pow"}
    assert same(decode_number(_through_json(tree)), x)


def test_a_tree_is_what_the_docs_say():
    assert encode_number(4 * sympy.sqrt(5) / 25) == [
        "Mul",
        [["Rational", 4, 25], ["Pow", ["Integer", 5], ["Rational", 1, 2]]],
    ]
    assert type(decode_number(["Integer", 0])) is type(sympy.Integer(0))  # Zero, a singleton


@pytest.mark.parametrize(
    "x",
    [sympy.Symbol("x"), sympy.Float(0.5), sympy.I, sympy.pi, sympy.zoo, sympy.sin(1)],
    ids=str,
)
def test_other_sympy_objects_are_not_recordable(x):
    with pytest.raises(NotRecordable):
        encode_number(x)


@pytest.mark.parametrize(
    "tree",
    [
        ["Symbol", "x"],
        ["Function", "os.system", ["Integer", 1]],
        ["sympify", "__import__('os')"],
        ["Integer", "5"],
        ["Integer", True],
        ["Integer", 1.5],
        ["Integer"],
        ["Rational", 2, 4],
        ["Rational", 1, 1],
        ["Rational", 1, 0],
        ["Rational", 1, -2],
        ["Add", [["Integer", 1]]],
        ["Mul", ["Integer", 1], ["Integer", 2]],
        ["Pow", ["Integer", 2]],
        ["Pow", ["Integer", 2], ["Symbol", "x"]],
        [],
        "Integer",
        {"Integer": 1},
        None,
    ],
    ids=repr,
)
def test_a_tree_of_anything_else_is_refused(tree):
    with pytest.raises(BadRecord):
        decode_number(tree)


def test_values_keep_their_types():
    value = {
        "methods": {2: "polynomial ring", 8: "random-rational"},
        "entry": (1, 2),
        "dimensions": [1, 2],
        "flags": {"on": None, 3: 0.1},
        "worst": math.inf,
        "below": -math.inf,
        "tiny": 5e-324,
        "exact": sympy.sqrt(2) / 2,
    }
    encoded = _through_json(encode_value(value))
    back = decode_value(encoded)
    assert same(back, value)
    assert list(back["methods"]) == [2, 8]
    assert math.isnan(decode_value(_through_json(encode_value(math.nan))))


def test_a_key_json_cannot_show_and_a_power_never_evaluated_are_refused():
    """A tuple key crashed `--json` later; 3^(10¹²) hung the run that read it."""
    with pytest.raises(NotRecordable):
        encode_value({(1, 2): 0})
    with pytest.raises(BadRecord):
        decode_value({"dict": [[{"tuple": [1, 2]}, 1]]})
    with pytest.raises(BadRecord):
        decode_number(["Pow", ["Integer", 3], ["Integer", 10**12]])
    assert decode_number(["Pow", ["Integer", 5], ["Rational", 1, 2]]) == sympy.sqrt(5)


@pytest.mark.parametrize(
    "value",
    [
        object(),
        {1, 2},
        Outcome.PROVED,  # a str subclass: it would come back as a plain str
        Verdict.PROVED,
        True.__class__.__mro__,  # a tuple of classes
        b"bytes",
        lambda: None,
    ],
    ids=repr,
)
def test_values_of_other_types_are_not_recordable(value):
    with pytest.raises(NotRecordable):
        encode_value(value)


@pytest.mark.parametrize(
    "obj",
    [
        {"tuple": [1], "dict": []},  # two tags
        {"pickle": "gASV"},
        {"float": "1.5"},  # only non-finite floats are tagged
        {"dict": [[1, 2, 3]]},
        {"dict": [[1, 2], [1, 3]]},  # a repeated key
        {"tuple": "ab"},
        1e400,  # what json makes of an overlong number: infinity
    ],
    ids=repr,
)
def test_a_value_encode_value_does_not_write_is_refused(obj):
    with pytest.raises(BadRecord):
        decode_value(obj)


def _result() -> Result:
    found = Counterexample(
        2,
        {"z": (sympy.Integer(0), sympy.Integer(1))},
        {"epsilon": sympy.Integer(1)},
        (-sympy.sqrt(2) / 2, sympy.sqrt(2) / 2),
        (-sympy.sqrt(5) / 5, sympy.sqrt(5) / 5),
        "eq",
        {"n": 2, "d": 2, "m": 1},
        (1, 1),
    )
    evidence = (
        Evidence("general", Outcome.NOT_PROVED, "not proved", 0.25, {"dimension": "symbolic d"}),
        Evidence(
            "concrete",
            Outcome.COUNTEREXAMPLE,
            "violated",
            1.5,
            {"exact": True, "methods": {1: "symbolic"}, "rechecked": "exactly"},
            found,
        ),
    )
    return Result(CLAIM, Verdict.REFUTED, evidence, 1.75, "a counterexample", found)


def test_a_record_brings_back_the_whole_result():
    result = _result()
    data = write_record(result, claim="c" * 64, settings="s" * 64)
    back = read_record(data, CLAIM, claim="c" * 64, settings="s" * 64)
    assert back.claim is CLAIM
    assert back == result and same(back, result)
    assert back.to_json() == result.to_json()
    record = json.loads(data)
    assert (record["format"], record["claim"], record["settings"]) == (FORMAT, "c" * 64, "s" * 64)


@pytest.mark.parametrize(
    ("claim", "settings"), [("d" * 64, "s" * 64), ("c" * 64, "t" * 64)], ids=["claim", "settings"]
)
def test_a_record_is_read_only_for_the_claim_and_settings_it_names(claim, settings):
    data = write_record(_result(), claim="c" * 64, settings="s" * 64)
    with pytest.raises(BadRecord):
        read_record(data, CLAIM, claim=claim, settings=settings)


def test_a_result_holding_what_a_record_cannot_hold_is_not_recordable():
    odd = Evidence("numeric", Outcome.CONSISTENT, "fine", 0.0, {"handle": lambda: None})
    with pytest.raises(NotRecordable):
        write_record(Result(CLAIM, Verdict.CONSISTENT, (odd,), 0.0), claim="c", settings="s")
    nan = Result(CLAIM, Verdict.CONSISTENT, (), math.nan)
    with pytest.raises(NotRecordable):
        write_record(nan, claim="c", settings="s")


def test_what_json_cannot_carry_is_not_recordable_and_text_comes_back_exactly():
    deep = sympy.Integer(1)
    for _ in range(5000):  # deeper than the interpreter recurses
        deep = sympy.Add(sympy.Integer(1), deep, evaluate=False)
    with pytest.raises(NotRecordable):
        write_record(_refuted_at(deep), claim="c", settings="s")
    huge = sympy.Integer(10) ** 5000  # more digits than Python converts to text by default
    with pytest.raises(NotRecordable):
        write_record(_refuted_at(huge), claim="c", settings="s")
    odd = 'ε \ud800 \x00 "quoted" \\'
    result = Result(CLAIM, Verdict.ERROR, (), 0.0, odd)
    data = write_record(result, claim="c", settings="s")
    assert data.isascii()
    assert read_record(data, CLAIM, claim="c", settings="s").reason == odd


def _refuted_at(lhs: sympy.Expr) -> Result:
    found = Counterexample(1, {}, {}, lhs, sympy.Integer(0), "eq")
    return Result(CLAIM, Verdict.REFUTED, (), 0.0, "", found)


def test_what_python_cannot_read_back_is_a_bad_record():
    too_long = b'{"format":2,"claim":"c","settings":"s","result":' + b"1" * 5000 + b"}"
    with pytest.raises(BadRecord):
        read_record(too_long, CLAIM, claim="c", settings="s")
    with pytest.raises(BadRecord):
        decode_value({"dict": [[[1], 2]]})  # a list as a key
