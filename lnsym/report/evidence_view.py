"""Engine evidence as a report shows it: one line per engine, and exact counterexamples.

Only content that is identical on every machine goes in. No timings: keys such as
``seconds`` or ``elapsed_time`` are dropped. Of the evidence data only exact values,
counts, strings and tolerances remain: a float is taken for a measurement (and left out)
unless its key names a tolerance. An engine that reports a measurement usually quotes it in
its ``detail`` text as well, so that text is left out for it, as it is for a timeout (which
states how long it ran). Engines that want their detail shown keep it free of measurements.

:func:`evidence_views` gives the engines' conclusions, :func:`counterexample_entries` a
counterexample's point and sides, :func:`evidence_entries` the data of an evidence record,
all as :class:`EvidenceView` and :class:`Entry` values for the templates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from lnsym import ir
from lnsym.checking.claims import Evidence
from lnsym.engines.base import Counterexample
from lnsym.errors import UserInputError
from lnsym.parse import parse_number
from lnsym.printing.evidence import value_decimal, value_latex
from lnsym.printing.printer import Math, latex, latex_value

# Evidence data that describes a run rather than the mathematics: never shown.
_VOLATILE_KEY = re.compile(r"(^|_)(seconds|time|times|elapsed|duration|wall|cpu|cost)($|_)")
_TOLERANCE_KEY = re.compile(r"tol")
# Keys already shown elsewhere: the counterexample block, and the general engine's residual
# (LaTeX source in data; the detail line states it in words).
_SHOWN_ELSEWHERE = {"counterexample", "exact", "residual"}
#: Engine details longer than this are cut (a residual can run to pages); the full text is
#: in ``lnsym verify --json``.
MAX_DETAIL = 300
_SYMBOL_KEYS = {"eps": ir.eps, "epsilon": ir.eps, "d": ir.d}
_NAME = re.compile(r"(?:[A-Za-z]|alpha|beta|gamma|delta|lambda|mu|sigma|theta)\Z")


@dataclass(frozen=True)
class Entry:
    """One line of evidence: ``label: value`` or ``label: $name = value$``.

    ``label`` is text (possibly empty); ``label_math`` names a variable; the value is
    ``math`` when exact, else ``text``.
    """

    label: str = ""
    label_math: Math | None = None
    text: str = ""
    math: Math | None = None


@dataclass(frozen=True)
class EvidenceView:
    """What one engine concluded, as shown in a report."""

    engine: str
    outcome: str
    detail: str


def _entry_value(value: Any) -> tuple[str, Math | None]:
    """(text, math) for one evidence value; exactly one of them is set."""
    if isinstance(value, bool):
        return ("yes" if value else "no"), None
    if isinstance(value, str):
        return value, None
    if isinstance(value, int):
        return str(value), None  # a count reads best as plain text
    if isinstance(value, float):
        return f"{value:g}", None
    try:
        return "", Math(latex_value(value))
    except TypeError:
        pass
    if isinstance(value, list | tuple):
        return ", ".join(_entry_value(v)[0] or str(v) for v in value), None
    return str(value), None


def _label(key: str, value: Any) -> tuple[str, Math | None]:
    """A math label (𝐳, ε, d) for keys that name a variable, else readable text."""
    if key in _SYMBOL_KEYS:
        return "", Math(latex(_SYMBOL_KEYS[key]))
    if _NAME.match(key):
        if isinstance(value, list | tuple):
            return "", Math(latex(ir.VectorAtom(key)))
        return "", Math(latex(sympy.Symbol(key)))
    return key.replace("_", " "), None


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, Mapping):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_float(v) for v in value)
    return False


def _keep(key: str, value: Any) -> bool:
    if _VOLATILE_KEY.search(key) or key in _SHOWN_ELSEWHERE or value is None:
        return False
    # Floats are measurements (machine-dependent) unless the key names a tolerance; a
    # mapping is kept for its float-free entries.
    if isinstance(value, Mapping) or _TOLERANCE_KEY.search(key):
        return True
    return not _has_float(value)


def _exact(value: Any) -> Any:
    """Numbers written as text ("1/3", ["1", "-2"]) as exact Fractions; else unchanged."""
    try:
        if isinstance(value, str):
            return parse_number(value)
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return [parse_number(v) for v in value]
    except UserInputError:
        pass
    return value


def evidence_entries(data: Mapping[str, Any], prefix: str = "") -> tuple[Entry, ...]:
    """The machine-independent part of an evidence record's data, in insertion order.

    Nested mappings are flattened into ``outer inner`` labels. Keys naming a variable
    (``d``, ``z``, ``epsilon``) become math labels, and their values exact numbers where
    the text is one. A key ``<name>_latex`` holds LaTeX made by an lnsym engine for
    ``<name>``, which it replaces.

    >>> [e.text for e in evidence_entries({"samples": "200", "max_error": 1e-16, "rtol": 1e-9})]
    ['200', '1e-09']
    >>> [entry] = evidence_entries({"vectors": {"z": ["1", "1/2"]}})
    >>> print(entry.label_math, "=", entry.math)
    \\mathbf{z} = \\left( 1, \\frac{1}{2} \\right)
    """
    out: list[Entry] = []
    for key, value in data.items():
        key = str(key)
        if not _keep(key, value) or f"{key}_latex" in data:
            continue
        if isinstance(value, Mapping):
            out.extend(evidence_entries(value, f"{prefix}{key.replace('_', ' ')} "))
            continue
        if key.endswith("_latex") and key[: -len("_latex")] in data and isinstance(value, str):
            label = prefix + key[: -len("_latex")].replace("_", " ")
            out.append(Entry(label, None, "", Math(value)))
            continue
        label, label_math = _label(key, value)
        if label_math is None:
            label = prefix + label
        else:
            label, value = prefix.strip(), _exact(value)
        text, math = _entry_value(value)
        out.append(Entry(label, label_math, text, math))
    return tuple(out)


def shorten(text: str, limit: int = MAX_DETAIL) -> str:
    """``text`` cut to about ``limit`` characters at a space, marked when cut.

    >>> shorten("a b c d", 4)
    'a b … (cut; the full text is in lnsym verify --json)'
    """
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    kept = text[: cut if cut > 0 else limit].rstrip()
    return kept + " … (cut; the full text is in lnsym verify --json)"


def evidence_views(evidence: Sequence[Evidence]) -> tuple[EvidenceView, ...]:
    """What each engine concluded: its outcome and its detail line, shortened."""
    # Engines keep their detail line free of measurements (see lnsym.checking.claims.Evidence), so
    # it is what the report shows; the raw data (timings, worst errors, per-d methods)
    # stays in lnsym verify --json. A timeout's detail quotes how long it ran: left out.
    return tuple(
        EvidenceView(e.engine, *_readable(e.outcome, e.detail))
        if e.outcome == "error"
        else EvidenceView(e.engine, e.outcome, "" if e.outcome == "timeout" else shorten(e.detail))
        for e in evidence
    )


#: An engine's error as the checker words it: ``UnsupportedError: <message>``.
_ERROR = re.compile(r"(UnsupportedError|DomainError|ExpressionError): (.*)", re.DOTALL)
_UNINTERPRETED = re.compile(r"the \w+ engine cannot interpret (\w+)")


def _readable(outcome: str, detail: str) -> tuple[str, str]:
    """An engine error in words, without the exception's class name.

    An engine without a rule for a construct does not apply to the claim (the others
    decide); a claim outside an engine's domain keeps its message. Anything else (an
    internal error, a bug) is shown as it is.

    >>> _readable("error", "UnsupportedError: the general engine cannot interpret OperatorNorm")
    ('does not apply', 'it has no rule for the operator norm')
    """
    found = _ERROR.fullmatch(detail)
    if found is None:
        return outcome, shorten(detail)
    kind, message = found.groups()
    node = _UNINTERPRETED.fullmatch(message)
    if kind == "UnsupportedError" and node is not None:
        words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", node.group(1)).lower()
        return "does not apply", f"it has no rule for the {words}"
    return outcome, shorten(message)


def counterexample_entries(found: Counterexample | None) -> tuple[Entry, ...]:
    """The point as plain assignments (z = (0, 1); ε = 1), then both sides exactly and in
    decimals."""
    if found is None:
        return ()
    if found.sizes:  # a matrix claim: its sizes, and the entry whose sides differ
        entries = [Entry("", Math(latex(sympy.Symbol(k))), str(v)) for k, v in found.sizes.items()]
        entries.append(Entry("entry", text="(" + ", ".join(map(str, found.entry)) + ")"))
    else:
        entries = [Entry("", Math(latex(ir.d)), str(found.d))]
    entries += [
        Entry("", Math(latex(ir.VectorAtom(a))), math=Math(latex_value([_fraction(x) for x in v])))
        for a, v in found.vectors.items()
    ]
    entries += [
        Entry("", Math(latex(sympy.Symbol(s))), math=Math(latex_value(_fraction(v))))
        for s, v in found.scalars.items()
    ]
    sides = {"lhs": found.lhs, "rhs": found.rhs}
    entries += [Entry(side, math=Math(value_latex(v))) for side, v in sides.items()]
    entries += [Entry(f"{side} decimal", text=value_decimal(v)) for side, v in sides.items()]
    return tuple(entries)


def _fraction(x: sympy.Expr) -> Fraction:
    assert isinstance(x, sympy.Rational)  # a counterexample's point is rational
    return Fraction(int(x.p), int(x.q))


def badge(verdict: str, evidence: Sequence[Evidence], found: Counterexample | None) -> str:
    """The strongest evidence for ``verdict`` in a few words, shown beside it in the body.

    >>> badge("REFUTED", (), Counterexample(2, {}, {}, 0, 1, "eq"))
    'exact counterexample at d = 2'
    """
    if verdict == "REFUTED" and found is not None:
        sizes = ", ".join(f"{k} = {v}" for k, v in found.sizes.items()) or f"d = {found.d}"
        return f"exact counterexample at {sizes}"
    if verdict == "PROVED":
        proof = next((e for e in evidence if e.outcome == "proved"), None)
        if proof is None:
            return "proved"
        every = "all n, d, m" if "n, d and m" in proof.detail else "all d"
        return every if proof.engine == "general" else f"{every}, by a cited lemma"
    if verdict == "VERIFIED":
        exact = next((e for e in evidence if e.outcome == "holds"), None)
        return exact.detail.split(" (")[0] if exact is not None else "exact checks"
    if verdict == "CONSISTENT":
        return "numeric samples only"
    return "undecided"
