"""Results as JSON records: a data format that runs no code when read, bound to its claim.

A record is one JSON object (ASCII, read as UTF-8)::

    {"format": 2, "claim": <fingerprint>, "settings": <fingerprint>, "result": {...}}

``claim`` and ``settings`` are the fingerprints (:func:`lnsym.checking.fingerprint.content_key`)
of the claim checked and of the options that chose the evidence; a record is believed only
for the very claim and options it names, so one copied under another claim's key is refused.
``result`` holds everything a :class:`~lnsym.checking.claims.Result` shows — verdict, reason,
seconds, and each engine's evidence with its data and exact counterexample — so that a result
read back is indistinguishable from the one written.

Values are typed explicitly, because JSON alone would blur them: a tuple is
``{"tuple": [...]}``, a dict ``{"dict": [[key, value], ...]}`` (keys of any type, in order),
a non-finite float ``{"float": "inf"}``, and a SymPy number ``{"sympy": tree}``. A tree names
its class from a short list (``Integer``, ``Rational``, ``Add``, ``Mul``, ``Pow``) and is
rebuilt by calling those constructors on its parts, unevaluated so it comes back exactly as
written; no text is ever parsed as an expression. Anything else cannot be written
(:class:`NotRecordable`), and a record holding anything else is refused (:class:`BadRecord`).

>>> import sympy
>>> value = {"methods": {2: "polynomial ring"}, "lhs": 4 * sympy.sqrt(5) / 25}
>>> encode_value(value)["dict"][1]
['lhs', {'sympy': ['Mul', [['Rational', 4, 25], ['Pow', ['Integer', 5], ['Rational', 1, 2]]]]}]
>>> decode_value(encode_value(value)) == value
True
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sympy

from lnsym.checking.verdicts import Verdict
from lnsym.engines.base import Counterexample, Evidence, ExactValue, Outcome

if TYPE_CHECKING:
    from lnsym.checking.claims import Claim, Result

#: The version of the record format; bump when a record's layout or meaning changes, or how
#: the cache names it (the cache keeps records under ``results-<FORMAT>/``).
FORMAT = 2


class NotRecordable(Exception):
    """A result holds a value that a record cannot represent exactly; it is not kept."""


class BadRecord(Exception):
    """A record that does not parse, has the wrong shape, or belongs to another claim."""


# ---------------------------------------------------------------------------------------------
# Whole records


def write_record(result: Result, *, claim: str, settings: str) -> bytes:
    """The record of ``result`` for the claim and settings with these fingerprints.

    Raises:
        NotRecordable: when the result holds something a record cannot hold exactly.
    """
    try:
        record = {
            "format": FORMAT,
            "claim": claim,
            "settings": settings,
            "result": _encode_result(result),
        }
        # ASCII with escapes: any str comes back exactly, lone surrogates included.
        text = json.dumps(record, allow_nan=False, separators=(",", ":"))
    except (ValueError, TypeError, RecursionError) as exc:  # huge ints, deep trees
        raise NotRecordable(str(exc)) from exc
    return text.encode("ascii")


def read_record(data: bytes, owner: Claim, *, claim: str, settings: str) -> Result:
    """The result a record holds, for ``owner`` (whose fingerprint is ``claim``), checked
    under ``settings``.

    Raises:
        BadRecord: for anything but a well-formed record of this format naming exactly this
            claim and these settings.
    """
    try:
        record = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=_object,
            parse_constant=_refuse_constant,
        )
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise BadRecord(f"not JSON: {exc}") from exc
    fields = _fields(record, ("format", "claim", "settings", "result"))
    if _int(fields["format"]) != FORMAT:
        raise BadRecord(f"format {fields['format']!r}, not {FORMAT}")
    if _str(fields["claim"]) != claim or _str(fields["settings"]) != settings:
        raise BadRecord("the record belongs to another claim or other settings")
    try:
        return _decode_result(fields["result"], owner)
    except RecursionError as exc:
        raise BadRecord("nested too deeply") from exc


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing repeated keys (the encoder never writes them)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key is repeated")
    return out


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not written by lnsym")


# ---------------------------------------------------------------------------------------------
# Results, evidence, counterexamples


def _encode_result(result: Result) -> dict[str, Any]:
    return {
        "verdict": _verdict_word(result.verdict),
        "reason": _plain_str(result.reason),
        "seconds": _seconds(result.seconds),
        "evidence": [_encode_evidence(e) for e in result.evidence],
        "counterexample": _encode_counterexample(result.counterexample),
    }


def _decode_result(obj: object, owner: Claim) -> Result:
    from lnsym.checking.claims import Result

    fields = _fields(obj, ("verdict", "reason", "seconds", "evidence", "counterexample"))
    try:
        verdict = Verdict(_str(fields["verdict"]))
    except ValueError as exc:
        raise BadRecord(f"unknown verdict {fields['verdict']!r}") from exc
    evidence = tuple(_decode_evidence(e) for e in _list(fields["evidence"]))
    return Result(
        owner,
        verdict,
        evidence,
        _number(fields["seconds"]),
        _str(fields["reason"]),
        _decode_counterexample(fields["counterexample"]),
    )


def _encode_evidence(e: Evidence) -> dict[str, Any]:
    if not isinstance(e, Evidence) or not isinstance(e.data, dict):
        raise NotRecordable(f"evidence {type(e).__name__}")
    return {
        "engine": _plain_str(e.engine),
        "outcome": _outcome_word(e.outcome),
        "detail": _plain_str(e.detail),
        "seconds": _seconds(e.seconds),
        "data": encode_value(e.data),
        "counterexample": _encode_counterexample(e.counterexample),
    }


def _decode_evidence(obj: object) -> Evidence:
    fields = _fields(obj, ("engine", "outcome", "detail", "seconds", "data", "counterexample"))
    try:
        outcome = Outcome(_str(fields["outcome"]))
    except ValueError as exc:
        raise BadRecord(f"unknown outcome {fields['outcome']!r}") from exc
    data = decode_value(fields["data"])
    if not isinstance(data, dict):
        raise BadRecord("evidence data is not a dict")
    return Evidence(
        _str(fields["engine"]),
        outcome,
        _str(fields["detail"]),
        _number(fields["seconds"]),
        data,
        _decode_counterexample(fields["counterexample"]),
    )


_COUNTEREXAMPLE = ("d", "vectors", "scalars", "lhs", "rhs", "relation", "sizes", "entry")


def _encode_counterexample(found: Counterexample | None) -> dict[str, Any] | None:
    if found is None:
        return None
    if not isinstance(found, Counterexample) or found.relation not in ("eq", "le"):
        raise NotRecordable(f"counterexample {found!r}")
    return {
        "d": _plain_int(found.d),
        "vectors": [
            [_plain_str(name), [encode_number(x) for x in _tuple(entries)]]
            for name, entries in found.vectors.items()
        ],
        "scalars": [[_plain_str(name), encode_number(v)] for name, v in found.scalars.items()],
        "lhs": _encode_exact(found.lhs),
        "rhs": _encode_exact(found.rhs),
        "relation": found.relation,
        "sizes": [[_plain_str(name), _plain_int(n)] for name, n in found.sizes.items()],
        "entry": [_plain_int(k) for k in _tuple(found.entry)],
    }


def _decode_counterexample(obj: object) -> Counterexample | None:
    if obj is None:
        return None
    fields = _fields(obj, _COUNTEREXAMPLE)
    relation = _str(fields["relation"])
    if relation not in ("eq", "le"):
        raise BadRecord(f"unknown relation {relation!r}")
    vectors: dict[str, tuple[sympy.Expr, ...]] = {}
    for name, entries in _pairs(fields["vectors"]):
        vectors[_str(name)] = tuple(decode_number(x) for x in _list(entries))
    scalars = {_str(name): decode_number(v) for name, v in _pairs(fields["scalars"])}
    sizes = {_str(name): _int(n) for name, n in _pairs(fields["sizes"])}
    if len(vectors) != len(_list(fields["vectors"])) or len(scalars) != len(
        _list(fields["scalars"])
    ):
        raise BadRecord("a name is repeated")
    return Counterexample(
        _int(fields["d"]),
        vectors,
        scalars,
        _decode_exact(fields["lhs"]),
        _decode_exact(fields["rhs"]),
        "eq" if relation == "eq" else "le",
        sizes,
        tuple(_int(k) for k in _list(fields["entry"])),
    )


def _encode_exact(value: ExactValue) -> dict[str, Any]:
    if isinstance(value, tuple):
        return {"vector": [encode_number(x) for x in value]}
    return {"number": encode_number(value)}


def _decode_exact(obj: object) -> ExactValue:
    if isinstance(obj, dict) and set(obj) == {"vector"}:
        return tuple(decode_number(x) for x in _list(obj["vector"]))
    return decode_number(_fields(obj, ("number",))["number"])


# ---------------------------------------------------------------------------------------------
# Values: evidence data, with their types


def encode_value(value: object) -> Any:
    """``value`` as JSON with its types explicit: None, bool, int, str, finite floats as
    themselves; lists as arrays; tuples, dicts, other floats and SymPy numbers tagged.

    Raises:
        NotRecordable: for any other type (subclasses included: a record keeps exact types).
    """
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"float": float.hex(value)}
    if type(value) is list:
        return [encode_value(x) for x in value]
    if type(value) is tuple:
        return {"tuple": [encode_value(x) for x in value]}
    if type(value) is dict:
        if not all(type(k) in (str, int) for k in value):
            raise NotRecordable("a dict key that is not a str or an int")
        return {"dict": [[encode_value(k), encode_value(v)] for k, v in value.items()]}
    if isinstance(value, sympy.Basic):
        return {"sympy": encode_number(value)}
    raise NotRecordable(f"a value of type {type(value).__name__}")


def decode_value(obj: object) -> Any:
    """The value :func:`encode_value` wrote.

    Raises:
        BadRecord: for anything :func:`encode_value` does not write.
    """
    if obj is None or type(obj) in (bool, int, str):
        return obj
    if type(obj) is float:
        if not math.isfinite(obj):
            raise BadRecord("a non-finite float written as a number")
        return obj
    if type(obj) is list:
        return [decode_value(x) for x in obj]
    if type(obj) is not dict or len(obj) != 1:
        raise BadRecord(f"not a value: {_brief(obj)}")
    ((tag, inner),) = obj.items()
    if tag == "tuple":
        return tuple(decode_value(x) for x in _list(inner))
    if tag == "dict":
        out = {}
        for key, item in _pairs(inner):
            key = decode_value(key)
            if type(key) not in (str, int):  # what the encoder writes: JSON shows them
                raise BadRecord(f"the key {_brief(key)} is not a str or an int")
            try:
                repeated = key in out
            except TypeError as exc:  # a list as a key, say
                raise BadRecord(f"the key {_brief(key)} cannot be a key") from exc
            if repeated:
                raise BadRecord(f"the key {_brief(key)} is repeated")
            out[key] = decode_value(item)
        return out
    if tag == "float":
        if _str(inner) not in _NON_FINITE:
            raise BadRecord(f"not a non-finite float: {_brief(inner)}")
        return float.fromhex(inner)
    if tag == "sympy":
        return decode_number(inner)
    raise BadRecord(f"unknown tag {_brief(tag)}")


_NON_FINITE = {float.hex(x) for x in (math.inf, -math.inf, math.nan)}


# ---------------------------------------------------------------------------------------------
# SymPy numbers as trees


def encode_number(x: object) -> list[Any]:
    """A SymPy number as a tree of its class and parts: ``["Integer", p]``,
    ``["Rational", p, q]``, ``["Add", [...]]``, ``["Mul", [...]]``, ``["Pow", base, exp]``.

    Raises:
        NotRecordable: for any other class (a symbol, a float, a function, ...).
    """
    if isinstance(x, sympy.Rational) and type(x) in _INTEGERS:  # Integer(p) gives them back
        return ["Integer", int(x.p)]
    if isinstance(x, sympy.Rational) and type(x) in _RATIONALS:
        return ["Rational", int(x.p), int(x.q)]
    if type(x) in (sympy.Add, sympy.Mul):
        assert isinstance(x, sympy.Basic)
        return [type(x).__name__, [encode_number(a) for a in x.args]]
    if type(x) is sympy.Pow:
        assert isinstance(x, sympy.Basic)
        base, exp = x.args
        return ["Pow", encode_number(base), encode_number(exp)]
    raise NotRecordable(f"a SymPy {type(x).__name__}")


def decode_number(obj: object) -> sympy.Expr:
    """The SymPy number :func:`encode_number` wrote, rebuilt by its class's constructor.

    Raises:
        BadRecord: for a class outside the list, or parts of the wrong type or form.
    """
    node = _list(obj)
    if not node or type(node[0]) is not str:
        raise BadRecord(f"not a number: {_brief(obj)}")
    build = _BUILDERS.get(node[0])
    if build is None:
        raise BadRecord(f"the class {_brief(node[0])} is not one a record may hold")
    return build(node[1:])


def _integer(parts: list[Any]) -> sympy.Expr:
    (p,) = _arity(parts, 1)
    return sympy.Integer(_int(p))


def _rational(parts: list[Any]) -> sympy.Expr:
    p, q = (_int(k) for k in _arity(parts, 2))
    if q < 2 or math.gcd(p, q) != 1:  # a Rational's own form: lowest terms, q > 1
        raise BadRecord(f"not a rational in lowest terms: {p}/{q}")
    return sympy.Rational(p, q)


def _operation(cls: type[sympy.Add] | type[sympy.Mul]) -> Callable[[list[Any]], sympy.Expr]:
    def build(parts: list[Any]) -> sympy.Expr:
        (args,) = _arity(parts, 1)
        terms = [decode_number(a) for a in _list(args)]
        if len(terms) < 2:
            raise BadRecord(f"{cls.__name__} of {len(terms)} terms")
        return cls(*terms, evaluate=False)

    return build


def _power(parts: list[Any]) -> sympy.Expr:
    base, exp = _arity(parts, 2)
    exponent = decode_number(exp)
    # What counterexamples hold: roots and small powers. 3^(10¹²) would never be evaluated.
    if not (exponent.is_Rational and exponent.q in (1, 2) and abs(exponent.p) <= _LARGEST_POWER):
        raise BadRecord(f"the exponent {_brief(exp)} is not one a record holds")
    return sympy.Pow(decode_number(base), exponent, evaluate=False)


#: The largest power (numerator of the exponent) a record's numbers hold.
_LARGEST_POWER = 16


_INTEGERS = (sympy.Integer, *(type(sympy.Integer(k)) for k in (0, 1, -1)))  # Zero, One, ...
_RATIONALS = (sympy.Rational, type(sympy.Rational(1, 2)))  # Half
_BUILDERS: dict[str, Callable[[list[Any]], sympy.Expr]] = {
    "Integer": _integer,
    "Rational": _rational,
    "Add": _operation(sympy.Add),
    "Mul": _operation(sympy.Mul),
    "Pow": _power,
}


# ---------------------------------------------------------------------------------------------
# Shapes: what the encoder writes, checked exactly when read


def _fields(obj: object, names: tuple[str, ...]) -> dict[str, Any]:
    if type(obj) is not dict or set(obj) != set(names):
        raise BadRecord(f"expected an object with {', '.join(names)}: {_brief(obj)}")
    return obj


def _list(obj: object) -> list[Any]:
    if type(obj) is not list:
        raise BadRecord(f"expected a list: {_brief(obj)}")
    return obj


def _pairs(obj: object) -> list[tuple[Any, Any]]:
    pairs = []
    for pair in _list(obj):
        key, value = _arity(_list(pair), 2)
        pairs.append((key, value))
    return pairs


def _arity(parts: list[Any], n: int) -> list[Any]:
    if len(parts) != n:
        raise BadRecord(f"expected {n} parts: {_brief(parts)}")
    return parts


def _str(obj: object) -> str:
    if type(obj) is not str:
        raise BadRecord(f"expected a string: {_brief(obj)}")
    return obj


def _int(obj: object) -> int:
    if type(obj) is not int:  # not a bool
        raise BadRecord(f"expected an integer: {_brief(obj)}")
    return obj


def _number(obj: object) -> float:
    if (type(obj) is not int and type(obj) is not float) or not math.isfinite(obj):
        raise BadRecord(f"expected a number of seconds: {_brief(obj)}")
    return obj


def _brief(obj: object) -> str:
    shown = repr(obj)
    return shown if len(shown) <= 60 else shown[:59] + "…"


# What the encoder accepts: exact types, so that what is read back is what was written.


def _plain_str(obj: object) -> str:
    if type(obj) is not str:
        raise NotRecordable(f"{_brief(obj)} is not a str")
    return obj


def _plain_int(obj: object) -> int:
    if type(obj) is not int:
        raise NotRecordable(f"{_brief(obj)} is not an int")
    return obj


def _seconds(obj: object) -> float:
    if (type(obj) is not int and type(obj) is not float) or not math.isfinite(obj):
        raise NotRecordable(f"{_brief(obj)} is not a number of seconds")
    return obj


def _tuple(obj: object) -> tuple[Any, ...]:
    if type(obj) is not tuple:
        raise NotRecordable(f"{_brief(obj)} is not a tuple")
    return obj


def _verdict_word(verdict: object) -> str:
    if not isinstance(verdict, Verdict):
        raise NotRecordable(f"verdict {_brief(verdict)}")
    return verdict.value


def _outcome_word(outcome: object) -> str:
    if not isinstance(outcome, Outcome):
        raise NotRecordable(f"outcome {_brief(outcome)}")
    return outcome.value
