"""``derive``: a readable closed form of an expression, proved equal to it.

The strategy, in four stages, each a step of :attr:`Derived.steps`:

1. **Named normal form** — the expression is interpreted with each layer core kept as one
   atom 𝐮 and its root as s, and derivatives taken by the layers' own rules
   (:mod:`lnsym.derive.named`): no power sums of the input appear.
2. **Centered directions** — candidate forms write some vector atoms a as P a + mean(a)𝟏;
   where the result depends on a only through P a (every derivative of a core along a
   direction does), the means cancel.
3. **Centering collected** — c·m − c·mean(m)𝟏 becomes c·P m.
4. **Common factor** — the factor shared by every coefficient is pulled out in front.

Of the candidates (every subset of at most two atoms centered, with and without stage 3),
the smallest by :func:`lnsym.derive.readable.size` (nodes of the IR tree) is kept, ties
going to the earlier candidate. The result is then checked as a claim ``derived = asked``
by every engine; unless the verdict is PROVED (for every d), :func:`derive` raises
:class:`~lnsym.errors.DerivationFailed` — as it does for anything else it cannot do.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

from lnsym import ir
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim, Result
from lnsym.checking.proof import Step
from lnsym.checking.verdicts import Verdict
from lnsym.derive.named import NamedForms
from lnsym.derive.readable import Reader, center_atoms, inputs_by_cores, pull_centering, size
from lnsym.engines.general import GeneralEngine, VectorForm
from lnsym.engines.general.symbols import monomial_of
from lnsym.engines.general.vector_form import Form
from lnsym.errors import DerivationFailed, LnsymError, UnsupportedError, UserInputError
from lnsym.ir.kinks import kink_under_derivative
from lnsym.printing.printer import abbreviations_for, latex, text


@dataclass(frozen=True)
class RewriteStep:
    """One stage of a derivation: what was done, and the expression after it."""

    why: str
    expr: ir.Expr


@dataclass(frozen=True)
class Derived:
    """A derived closed form, the steps that led to it, and the proof that it is right.

    ``expr`` equals ``asked`` for every d: ``result`` is the checked claim
    ``expr = asked``, with the verdict PROVED.
    """

    asked: ir.Expr
    expr: ir.Expr
    steps: tuple[RewriteStep, ...]
    result: Result

    @property
    def size(self) -> int:
        """Nodes of the IR tree of ``expr`` (the measure candidates are compared by)."""
        return size(self.expr)

    @property
    def latex(self) -> str:
        """``expr`` in LaTeX, with the report's abbreviations (𝐮, s, q) where they apply."""
        return latex(self.expr, abbreviations_for(self.expr, self.asked))

    def __str__(self) -> str:
        """``expr`` as one readable line, with the abbreviations of :attr:`latex`."""
        return text(self.expr, abbreviations_for(self.expr, self.asked), readable=True)

    def _repr_latex_(self) -> str:
        return f"${self.latex}$"


def derive(expr: ir.Expr, *, options: Options | None = None) -> Derived:
    """A readable closed form of ``expr``, proved equal to it for every d.

    ``expr`` may contain derivatives (``jvp``, ``vjp``, ``grad``, nested), layers and their
    compositions; the result is written with named intermediates (𝐮, s, P, ⟨·,·⟩, mean, ⊙).

    Args:
        expr: an IR expression.
        options: how the equality is checked (default: every engine, as ``lnsym verify``).

    Raises:
        DerivationFailed: for anything it cannot do — ``expr`` not an IR expression, an
            expression beyond the engines (an unsupported node, a derivative through a kink,
            a domain error, an internal failure: the cause is chained), or a closed form not
            PROVED equal to ``expr``; its message is one line.
        UserInputError: when ``expr`` itself is malformed input (passed on as it is: the
            CLI's exit code 2).

    >>> from lnsym import core, eps, jvp, scalar, sqrt, var, vector
    >>> z, h = vector("z"), vector("h")
    >>> found = derive(jvp(core(z), z, h), options=Options(engines=("general",)))
    >>> print(found.result.verdict, found.size)
    PROVED 22
    >>> from lnsym.ir.calculus import diff
    >>> c = scalar("c")
    >>> derive(diff(sqrt(c**2), c))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    lnsym.errors.DerivationFailed: cannot derive ∂_c[Abs(c)]: ...
    """
    if not isinstance(expr, ir.Expr):
        raise DerivationFailed(f"derive takes an lnsym expression, not {type(expr).__name__}")
    try:
        return _derive(expr, options)
    except (DerivationFailed, UserInputError):
        raise
    except LnsymError as exc:
        raise DerivationFailed(_one_line(f"cannot derive {_shown(expr)}: {exc}")) from exc
    except Exception as exc:  # noqa: BLE001 — as the checker's engines: never a traceback
        why = f"internal {type(exc).__name__}: {exc}"
        raise DerivationFailed(_one_line(f"cannot derive {_shown(expr)}: {why}")) from exc


#: Expressions in a failure's message are cut to this many characters (it stays one line).
_SHOWN = 160


def _shown(expr: ir.Expr) -> str:
    """``expr`` as text, cut to :data:`_SHOWN` characters (its node's name if a printer of a
    user's node fails: a failure's message must not fail)."""
    try:
        written = text(expr)
    except Exception:  # noqa: BLE001
        written = type(expr).__name__
    return written if len(written) <= _SHOWN else written[: _SHOWN - 1] + "…"


def _one_line(message: str) -> str:
    """``message`` with every run of whitespace (newlines included) as one space."""
    return " ".join(message.split())


def _derive(expr: ir.Expr, options: Options | None) -> Derived:
    """:func:`derive` of an IR expression; raises whatever its stages raise."""
    if (kink := kink_under_derivative(expr)) is not None:
        raise UnsupportedError(kink)
    steps, best = _closed_form(expr)
    derived = best.expr
    checker = Checker(options or Options())
    result = checker.check(Claim("derive", ir.Eq(derived, expr), title="derived = asked"))
    if result.verdict != Verdict.PROVED:
        raise DerivationFailed(
            _one_line(
                f"cannot derive {_shown(expr)}: the derived form {_shown(derived)} was not "
                f"proved equal to it: {result.verdict} ({result.reason})"
            )
        )
    chain = steps if best is steps[-1] else [*steps, best]
    return Derived(expr, derived, tuple(chain), result)


def derived_steps(previous: ir.Expr) -> list[Step]:
    """The rewriting chain of :func:`derive` as derivation steps: the named normal form
    (when it differs from the result), then the closed form, each with its reason.

    The chain is found with the general engine alone and, unlike :func:`derive`'s result,
    not proved here: its steps are links of their derivation, checked with the rest of it,
    by every engine, like any other step (a wrong one fails there).
    """
    found, final = _catalog_closed_form(previous)
    named = found[1]
    steps = [Step(final.expr, f"derived automatically: {final.why}")]
    if named.expr != final.expr and named is not final:
        steps.insert(0, Step(named.expr, f"derived automatically: {named.why}"))
    return steps


def derived_step(previous: ir.Expr) -> Step:
    """A derivation step whose right-hand side is :func:`derive`'s closed form of ``previous``.

    The closed form is found with the general engine alone; the step is then checked with
    the rest of its derivation, by every engine, like any other step.

    >>> from lnsym import core, jvp, vector
    >>> z, h = vector("z"), vector("h")
    >>> step = derived_step(jvp(core(z), z, h))
    >>> step.why.startswith("derived automatically")
    True
    """
    return derived_steps(previous)[-1]


def _closed_form(expr: ir.Expr) -> tuple[list[RewriteStep], RewriteStep]:
    """The rewriting steps of ``expr`` (as asked, then its named normal form) and the
    smallest candidate, not yet proved."""
    named = NamedForms()
    try:
        form = named.relations(named.form(expr))
    except UnsupportedError:
        named = NamedForms()  # no layer kept by name: the general engine's forms
        form = GeneralEngine().form(expr)
    return _candidates(form, named, expr)


#: Derivation modules derive when they are imported: once per process, not per load.
_catalog_closed_form = functools.lru_cache(maxsize=256)(_closed_form)


def _candidates(
    form: Form, named: NamedForms, asked: ir.Expr
) -> tuple[list[RewriteStep], RewriteStep]:
    def reader() -> Reader:
        return Reader(named.layers, named.roots.values())

    read: dict[Form, ir.Expr] = {}  # many rewritings give the same form: read it once

    def shown(f: Form) -> ir.Expr:
        if f not in read:
            read[f] = reader().read(f)
        return read[f]

    first = RewriteStep(_named_why(named), shown(form))
    atoms = sorted(_plain_atoms(form))
    best = first
    for by_cores in (False, True):
        start = named.relations(inputs_by_cores(form, named.layers.values())) if by_cores else form
        if by_cores and start == form:
            continue
        for k in range(min(2, len(atoms)) + 1):
            for chosen in itertools.combinations(atoms, k):
                centered = named.relations(center_atoms(start, chosen))
                for pulled in (False, True):
                    shaped: Form = centered
                    if pulled and isinstance(centered, VectorForm):
                        shaped = pull_centering(centered)
                    expr = shown(shaped)
                    if size(expr) < size(best.expr):
                        best = RewriteStep(_why(by_cores, chosen, pulled), expr)
    return [RewriteStep("as asked", asked), first], best


def _named_why(named: NamedForms) -> str:
    parts = []
    if named.layers:
        parts.append("each core kept as 𝐮 with s = √(q + ε), differentiated by its own rule")
    if named.roots:
        other = "other " if named.layers else ""
        parts.append(f"each {other}square root kept as one quantity")
    return "named normal form: " + ("; ".join(parts) if parts else "sums of ⊙-products")


def _why(by_cores: bool, centered: tuple[str, ...], pulled: bool) -> str:
    parts = []
    if by_cores:
        parts.append("each core's input a written as mean(a)𝟏 + s·𝐮")
    if centered:
        written = " and ".join(f"{a} = P{a} + mean({a})𝟏" for a in centered)
        parts.append(f"{written} (the means cancel)")
    if pulled:
        parts.append("c·m − c·mean(m)𝟏 collected as c·P m")
    parts.append("common factor pulled out")
    return "; ".join(parts)


def _plain_atoms(f: Form) -> set[str]:
    names: set[str] = set()
    if isinstance(f, VectorForm):
        for m, c in f.terms:
            names.update(m)
            names.update(a for s in c.free_symbols for a in monomial_of(s) or ())
    else:
        names.update(a for s in f.free_symbols for a in monomial_of(s) or ())
    return {a for a in names if not a.startswith("_")}
