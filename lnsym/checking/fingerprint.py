"""Fingerprints: a SHA-256 of an object's structure, never of a printed form.

A claim's fingerprint is the digest of a canonical encoding of every field — IR nodes,
assumptions, premises and lemmas, and SymPy objects down to their atoms (a symbol's name
*and* assumptions, a rational's numerator and denominator, a float's binary mantissa,
exponent and precision). Two objects get the same fingerprint exactly when they are equal
part by part: a real ``c`` and a positive ``c``, or 0.1 and 0.10000000000000002, which print
alike, differ here. Equal parts met twice are written once and referred back to, so a claim
built with much sharing costs its number of distinct parts, and the encoding does not depend
on which parts happen to be the same Python object.

The result cache keys and binds its records with :func:`content_key` (code must be lnsym's,
whose source the cache keys separately); translation validation derives its sizes from
:func:`digest`, which names any other class by its module and qualified name.

>>> from lnsym import vector, mean, Eq, scalar
>>> z = vector("z")
>>> digest(Eq(mean(z), 0)) == digest(Eq(mean(vector("z")), 0))
True
>>> digest(scalar("c") + 1) == digest(scalar("c", positive=True) + 1)
False
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import types
from fractions import Fraction
from typing import Any

import sympy


class NotKeyable(Exception):
    """The object holds something whose meaning its structure does not show (a function of
    a user's module, an object of an unknown type)."""


def content_key(obj: Any) -> str | None:
    """The fingerprint of ``obj`` with lnsym's own code only, or None when it holds code
    from elsewhere or an object of an unknown type (such a claim is never cached)."""
    try:
        return _Encoder(strict=True).hexdigest(obj)
    except NotKeyable:
        return None


def digest(obj: Any) -> str:
    """The fingerprint of ``obj``, classes and functions from anywhere named by their module
    and qualified name.

    Raises:
        NotKeyable: for an object of a type that has no structural encoding.
    """
    return _Encoder(strict=False).hexdigest(obj)


class _Encoder:
    def __init__(self, *, strict: bool) -> None:
        self.strict = strict
        self.out: list[str] = []
        self.seen: dict[Any, int] = {}  # part → its number (equal parts share one)

    def hexdigest(self, obj: Any) -> str:
        self.encode(obj)
        return hashlib.sha256("\x00".join(self.out).encode("utf-8")).hexdigest()

    def encode(self, obj: Any) -> None:
        out = self.out
        if obj is None or isinstance(obj, bool | int | str | Fraction):
            out.append(f"{type(obj).__name__}:{obj!r}")
            return
        if isinstance(obj, float):
            out.append(f"float:{obj.hex()}")
            return
        # Only SymPy objects and dataclasses (IR nodes) are numbered: their equality is
        # structural, class included (a tuple of ints equals one of SymPy integers). Not a
        # dataclass with a field its equality ignores (a lemma's schema): two such objects
        # can be equal and still differ in what the fingerprint must see.
        numbered = isinstance(obj, sympy.Basic) or (
            dataclasses.is_dataclass(obj)
            and not isinstance(obj, type)
            and all(field.compare for field in dataclasses.fields(obj))
        )
        if numbered:
            try:
                known = self.seen.get(obj)
            except TypeError:  # a dataclass holding a dict: written out every time
                known, numbered = None, False
            if known is not None:
                out.append(f"ref:{known}")
                return
            if numbered:
                self.seen[obj] = len(self.seen)
        if isinstance(obj, sympy.Basic):
            self.sympy(obj)
        elif isinstance(obj, enum.Enum):
            out.append(f"enum:{self.name(type(obj))}.{obj.name}")
        elif isinstance(obj, tuple | list):
            out.append(f"{type(obj).__name__}:{len(obj)}")
            for item in obj:
                self.encode(item)
        elif isinstance(obj, frozenset | set):
            parts = sorted(_Encoder(strict=self.strict).hexdigest(item) for item in obj)
            out.append(f"set:{len(parts)}")
            out.extend(parts)
        elif isinstance(obj, dict):
            items = sorted(
                (_Encoder(strict=self.strict).hexdigest(k), v) for k, v in obj.items()
            )
            out.append(f"dict:{len(items)}")
            for key, value in items:
                out.append(key)
                self.encode(value)
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            out.append(f"dataclass:{self.name(type(obj))}")
            for field in dataclasses.fields(obj):  # every field: a schema decides verdicts
                out.append(field.name)
                self.encode(getattr(obj, field.name))
        elif isinstance(obj, type) or (
            isinstance(obj, types.FunctionType) and obj.__closure__ is None
        ):
            # Named code; a closure or a bound method would carry state its name hides.
            out.append(f"code:{self.name(obj)}")
        else:
            raise NotKeyable(type(obj).__name__)

    def sympy(self, e: sympy.Basic) -> None:
        """A SymPy object as its class and, for an atom, its hashable content (a symbol's
        name and assumptions, a number's exact parts), else its arguments."""
        out = self.out
        cls = type(e)
        if self.strict and not (cls.__module__ or "").startswith(("sympy.", "lnsym.")):
            # A user's SymPy class (a Function with its own eval): its meaning is its code,
            # which a fingerprint cannot see, as for any code from outside lnsym.
            raise NotKeyable(f"{cls.__module__}.{cls.__qualname__}")
        out.append(f"sympy:{cls.__module__}.{cls.__qualname__}:{len(e.args)}")
        if isinstance(e, sympy.Float):
            out.append(f"{e._mpf_!r}:{e._prec}")
        elif e.args:
            for arg in e.args:
                self.encode(arg)
        else:
            # Symbols (name, sorted assumptions), Integer (p,), Rational (p, q), singletons
            # (()), and lnsym's own symbols, whose content holds what they stand for.
            content = e._hashable_content()
            out.append(f"atom:{len(content)}")
            for part in content:
                self.encode(part)

    def name(self, obj: Any) -> str:
        module = getattr(obj, "__module__", "") or ""
        qualified = f"{module}.{getattr(obj, '__qualname__', '?')}"
        if self.strict and module != "lnsym" and not module.startswith("lnsym."):
            raise NotKeyable(qualified)
        return qualified
