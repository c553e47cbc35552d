"""The checker: which engines run on a claim, in what order, and the verdict they give.

:class:`Checker` runs the engines of :data:`ENGINES` on a claim (each with the wall-clock
safety net afresh), stops at decisive evidence, re-checks an exact counterexample in a
second engine (:func:`_confirm`), and combines the evidence into a verdict
(:func:`combine`). Claims whose assumptions contradict each other are refused first
(:func:`inconsistency`).

>>> from lnsym import vector, core, ones, scalar, Eq, Claim
>>> z, c = vector("z"), scalar("c")
>>> check(Claim("core.shift", Eq(core(z + c * ones), core(z)))).verdict
<Verdict.PROVED: 'PROVED'>
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from lnsym import ir
from lnsym.checking.budget import time_budget
from lnsym.checking.cache import ResultCache
from lnsym.checking.claims import Claim, DerivationResult, Result, derivation_claims
from lnsym.checking.proof import Derivation, prove_inequality
from lnsym.checking.verdicts import Verdict
from lnsym.engines.base import Counterexample, Evidence, Outcome
from lnsym.engines.general import Decision, GeneralEngine, Obligation
from lnsym.errors import BudgetExceeded, DomainError, ExpressionError, UnsupportedError
from lnsym.ir.kinks import kink_under_derivative
from lnsym.ir.matrices import has_matrices
from lnsym.printing.evidence import counterexample_text
from lnsym.printing.printer import latex, text


@dataclass
class Options:
    """How claims are checked.

    Args:
        timeout: seconds per claim over all engines (None: unlimited).
        engines: which engines run, in order.
        max_d: the concrete engine checks d = 1..max_d exactly.
        samples: how many points the numeric engine tries.
        seed: the seed of every random choice, so runs are reproducible.
        cache_dir: where results are kept between runs and reused while nothing that
            decides them changes (:mod:`lnsym.checking.cache`); None: not kept.
        residuals: whether the general engine's evidence of an equality it does not prove
            gives what is left of lhs − rhs (``residual``, ``residual_latex``), in canonical
            form. The verdict is the same without; the canonical form can cost more than
            the proof attempt, and only ``lnsym verify --json`` and this API show it.
        validation: whether a proof must pass translation validation
            (:mod:`lnsym.checking.validation`) to make a claim PROVED. Switched off, the
            general engine's word alone makes it PROVED: for tests of the engine's own rules
            and for measuring it, never for a verdict anyone relies on.
    """

    timeout: float | None = 60.0
    engines: tuple[str, ...] = ("general", "concrete", "numeric")
    max_d: int = 8
    samples: int = 200
    seed: int = 0
    cache_dir: Path | None = None
    residuals: bool = True
    validation: bool = True

    def evidence_settings(self) -> tuple[Any, ...]:
        """The options that choose the evidence (not the safety net, not where it is kept)."""
        return (
            self.engines, self.max_d, self.samples, self.seed, self.residuals, self.validation
        )  # fmt: skip


Engine = Callable[[Claim, "Checker"], Evidence]


def _general(claim: Claim, checker: Checker) -> Evidence:
    start = time.perf_counter()
    statement = claim.statement
    outcome: Decision
    shown = checker.options.residuals
    if isinstance(statement, ir.Le):
        outcome = prove_inequality(statement, claim.assumptions, checker.general, shown=shown)
    else:
        assert isinstance(statement, ir.Eq)  # a Claim holds an Eq or a Le
        outcome = checker.general.decide(statement, claim.assumptions, shown=shown)
    data: dict[str, Any] = {"dimension": "symbolic d"}
    if outcome.residual is not None:
        data["residual"] = text(outcome.residual)
        data["residual_latex"] = latex(outcome.residual)
    return Evidence(
        "general",
        Outcome.PROVED if outcome.proved else Outcome.NOT_PROVED,
        outcome.detail,
        time.perf_counter() - start,
        data,
    )


def _lemma(claim: Claim, checker: Checker) -> Evidence:
    """Prove a claim from a cited lemma: every premise PROVED, and the lemma's schema
    matching the claim (its conclusion is the statement, its side conditions hold)."""
    start = time.perf_counter()
    application = claim.proof
    assert application is not None
    results = [checker.check(premise) for premise in application.premises]
    ids = [r.claim.id for r in results]
    lemma = application.lemma
    data = {"lemma": lemma.id, "citation": lemma.citation, "premises": ids}
    weak = [f"{r.claim.id} is {r.verdict}" for r in results if r.verdict != Verdict.PROVED]
    if weak:
        detail = f"{lemma.id} not applicable: premise " + ", ".join(weak)
        return Evidence("lemma", Outcome.NOT_PROVED, detail, time.perf_counter() - start, data)
    applied = lemma.schema(claim.statement, claim.assumptions, application, checker.general)
    if not applied.proved:
        detail = f"{lemma.id}: {applied.detail}"
        return Evidence("lemma", Outcome.NOT_PROVED, detail, time.perf_counter() - start, data)
    detail = (
        f"by {lemma.id} ({lemma.citation}) from the proved premises "
        + ", ".join(ids)
        + f"; {applied.detail}"
        + (f": {application.how}" if application.how else "")
    )
    return Evidence("lemma", Outcome.PROVED, detail, time.perf_counter() - start, data)


def _validation(claim: Claim, checker: Checker) -> Evidence:
    """Translation validation of the proof just found (:mod:`lnsym.checking.validation`)."""
    from lnsym.checking.validation import validate

    obligations = checker._obligations.get(claim, [])
    return validate(claim, obligations, checker.general, seed=checker.options.seed)


def _concrete(claim: Claim, checker: Checker) -> Evidence:
    if has_matrices(claim.statement):
        from lnsym.engines.concrete import matrices

        return matrices.evidence(claim, seed=checker.options.seed)
    from lnsym.engines.concrete.engine import (
        evidence,  # imported when first used: start-up stays light
    )

    return evidence(claim, max_d=checker.options.max_d, seed=checker.options.seed)


def _numeric(claim: Claim, checker: Checker) -> Evidence:
    if has_matrices(claim.statement):
        from lnsym.engines.numeric import matrices

        return matrices.evidence(claim, samples=checker.options.samples, seed=checker.options.seed)
    from lnsym.engines.numeric.engine import evidence

    return evidence(claim, samples=checker.options.samples, seed=checker.options.seed)


#: The engines by name; other modules may register theirs here.
ENGINES: dict[str, Engine] = {
    "general": _general,
    "lemma": _lemma,
    "validation": _validation,
    "concrete": _concrete,
    "numeric": _numeric,
}


class Checker:
    """Checks claims and derivations, sharing engine caches across them."""

    def __init__(self, options: Options | None = None) -> None:
        self.options = options or Options()
        if "validation" in self.options.engines:
            raise ExpressionError(
                "validation is not an engine to choose: it runs after every proof "
                "(Options(validation=...))"
            )
        self.general = GeneralEngine()
        self._results: dict[Claim, Result] = {}
        #: The equalities the general engine decided for each claim's proof (what
        #: translation validation checks), kept until the claim's result is made.
        self._obligations: dict[Claim, list[Obligation]] = {}
        cache_dir = self.options.cache_dir
        settings = self.options.evidence_settings()
        self._cache = None if cache_dir is None else ResultCache(cache_dir, settings)

    def check(self, claim: Claim) -> Result:
        """Run every configured engine on ``claim`` within its budget and give a verdict.

        Results are remembered, so a claim used as a premise is checked once per checker.
        """
        if claim not in self._results:
            result = None if self._cache is None else self._cache.get(claim)
            if result is None:
                result = self._check(claim)
                if self._cache is not None:
                    self._cache.put(claim, result)
            self._results[claim] = result
        return self._results[claim]

    def _check(self, claim: Claim) -> Result:
        start = time.perf_counter()
        contradiction = inconsistency(claim.assumptions)
        if contradiction is not None:
            # Anything follows from contradictory hypotheses: no engine may run on them.
            reason = f"assumptions are inconsistent: {contradiction}"
            evidence = (Evidence("assumptions", Outcome.ERROR, reason, 0.0),)
            return Result(claim, Verdict.ERROR, evidence, time.perf_counter() - start, reason)
        try:
            kink = kink_under_derivative(claim.statement, claim.assumptions)
        except Exception as exc:  # noqa: BLE001 — this claim's error, never the run's crash
            kink = f"internal {type(exc).__name__} in the differentiability check: {exc}"
        if kink is not None:
            # SymPy's d|x| = sign(x) with sign(0) = 0: every engine would agree on a
            # derivative that does not exist (lnsym.ir.kinks).
            evidence = (Evidence("differentiability", Outcome.ERROR, kink, 0.0),)
            return Result(claim, Verdict.ERROR, evidence, time.perf_counter() - start, kink)
        evidence_list: list[Evidence] = []
        names = self._schedule(claim)
        for name in names:
            evidence_list.append(self._run(name, claim))
            if name in ("general", "lemma") and evidence_list[-1].outcome == Outcome.PROVED:
                if self.options.validation:
                    names.insert(names.index(name) + 1, "validation")
            if evidence_list[-1].outcome == Outcome.COUNTEREXAMPLE:
                deadline = _deadline(self.options.timeout)
                evidence_list = _confirm(claim, evidence_list, deadline)
                # (Validation's point is a random one at a large d: the concrete engine's,
                # the smallest, reads better, so the schedule goes on to find it.)
                if any(e.data.get("rechecked") and e.engine != "validation"
                       for e in evidence_list):  # fmt: skip
                    break  # an exact, re-checked counterexample decides: REFUTED
        self._obligations.pop(claim, None)
        verdict, reason, counterexample = combine(evidence_list)
        return Result(
            claim,
            verdict,
            tuple(evidence_list),
            time.perf_counter() - start,
            reason,
            counterexample,
        )

    def _schedule(self, claim: Claim) -> list[str]:
        """The engines to run, in order: the proof first, then the exact checks, then the
        numeric samples. Identical sides need only the general engine (which still checks
        that they are defined)."""
        names = ["lemma" if n == "general" and claim.proof is not None else n
                 for n in self.options.engines]  # fmt: skip
        if claim.statement.lhs == claim.statement.rhs and "general" in names:
            return ["general"]
        return names

    def _run(self, name: str, claim: Claim) -> Evidence:
        """One engine on one claim. Each engine decides within deterministic limits of its
        own; the wall-clock budget is only a safety net, given afresh to every engine so
        that one engine's cost never takes another's turn."""
        engine = ENGINES[name]
        start = time.perf_counter()
        try:
            with time_budget(self.options.timeout), self.general.recording() as obligations:
                found = engine(claim, self)
            if name in ("general", "lemma"):
                self._obligations[claim] = obligations
            return found
        except BudgetExceeded:
            spent = time.perf_counter() - start
            detail = (
                f"the wall-clock safety net of {self.options.timeout:g} s ran out before the "
                "engine reached a deterministic limit"
            )
            return Evidence(
                name, Outcome.TIMEOUT, detail, spent, {"stopped_after": round(spent, 3)}
            )
        except (UnsupportedError, DomainError, ExpressionError) as exc:
            return Evidence(
                name, Outcome.ERROR, f"{type(exc).__name__}: {exc}", time.perf_counter() - start
            )
        except Exception as exc:  # noqa: BLE001 — any engine failure, never Ctrl-C or exit
            # An engine failure is this engine's ERROR evidence for this claim only, not a
            # crash of the run that would lose every other result.
            return Evidence(
                name,
                Outcome.ERROR,
                f"internal {type(exc).__name__}: {exc}",
                time.perf_counter() - start,
            )

    def check_derivation(self, derivation: Derivation) -> DerivationResult:
        """Check every link of ``derivation`` as a claim. Its seconds are those of its links
        (a link's result reused from the cache reports the seconds it cost when checked, so a
        derivation reads the same from the cache as checked afresh)."""
        results = tuple(self.check(claim) for claim in derivation_claims(derivation))
        return DerivationResult(derivation, results, sum(r.seconds for r in results))


def combine(evidence: Sequence[Evidence]) -> tuple[Verdict, str, Counterexample | None]:
    """The verdict, its reason, and any exact counterexample, from the engines' evidence.

    Precedence: an exact counterexample refutes (re-checked, even against a proof, which
    then had a bug; not re-checked, against a proof: ERROR); an engine stopped by the
    wall-clock safety net makes the claim TIMEOUT, since any other verdict would depend on
    the load; a proof needs every other engine to agree and, where it ran, translation
    validation to confirm it (an engine disagreement there is an ERROR; a proof it could not
    confirm counts for nothing); then exact checks for listed d; then numeric consistency.
    """
    by_outcome: dict[str, list[Evidence]] = {}
    for e in evidence:
        if e.engine == "validation" and e.outcome in (Outcome.HOLDS, Outcome.NOT_PROVED):
            continue  # one random point: it confirms a proof, it is no exact check of its own
        by_outcome.setdefault(e.outcome, []).append(e)
    proved = by_outcome.get(Outcome.PROVED, [])
    refuting = by_outcome.get(Outcome.COUNTEREXAMPLE, [])
    exact_refutations = [e for e in refuting if e.counterexample is not None]
    # Translation validation's random point last: another engine's is smaller.
    exact_refutations.sort(key=lambda e: e.engine == "validation")
    if exact_refutations:
        first = exact_refutations[0]
        counterexample = first.counterexample
        assert counterexample is not None
        if proved and not any(e.data.get("rechecked") for e in exact_refutations):
            return (
                Verdict.ERROR,
                "engines disagree: proved symbolically, refuted exactly",
                counterexample,
            )
        where = counterexample_text(counterexample)
        if proved:
            # The claim was evaluated exactly at the point: it is false, so the proof is not.
            provers = ", ".join(e.engine for e in proved)
            return (
                Verdict.REFUTED,
                f"{where} (engines disagree: the {provers} engine's proof is contradicted "
                "by this exactly re-checked counterexample — a bug in that engine)",
                counterexample,
            )
        return Verdict.REFUTED, where, counterexample
    if by_outcome.get(Outcome.TIMEOUT):
        # Any weaker verdict would depend on how far the stopped engine got, i.e. on the load.
        return Verdict.TIMEOUT, by_outcome[Outcome.TIMEOUT][0].detail, None
    if refuting:
        return (
            Verdict.ERROR,
            "numeric evidence contradicts the claim but no exact counterexample was found",
            None,
        )
    validation = [e for e in evidence if e.engine == "validation"]
    if proved and validation and validation[0].outcome == Outcome.ERROR:
        return Verdict.ERROR, validation[0].detail, None
    if proved and (not validation or validation[0].outcome == Outcome.HOLDS):
        return Verdict.PROVED, proved[0].detail, None
    # A proof that translation validation could not confirm proves nothing by itself.
    if by_outcome.get(Outcome.HOLDS):
        return Verdict.VERIFIED, by_outcome[Outcome.HOLDS][0].detail, None
    if by_outcome.get(Outcome.CONSISTENT):
        return Verdict.CONSISTENT, by_outcome[Outcome.CONSISTENT][0].detail, None
    reasons = "; ".join(f"{e.engine}: {e.detail}" for e in evidence) or "no engine ran"
    return Verdict.ERROR, "undecided — " + reasons, None


def inconsistency(assumptions: Sequence[ir.Assumption]) -> str | None:
    """Why ``assumptions`` cannot all hold, or None when no contradiction is found.

    Decided here: two different fixed dimensions; a fixed dimension below a lower bound; a
    non-constant vector where the dimension is fixed to 1 (every vector of ℝ¹ is constant).
    Centered, orthogonal and non-constant atoms can always be realized together once d
    exceeds the number of atoms (mutually orthogonal vectors ⊥ 1), so with no fixed
    dimension nothing else can contradict; at a small fixed d some combinations do
    (e.g. d = 2 with two centered, orthogonal, non-constant atoms) and are not detected.

    >>> from lnsym import dimension, dimension_at_least, nonconstant, vector
    >>> inconsistency([dimension(2), dimension_at_least(3)])
    'dimension(2) contradicts dimension_at_least(3)'
    >>> inconsistency([nonconstant(vector("z")), dimension(1)])
    'nonconstant(z) needs d ≥ 2, but dimension(1) fixes d = 1'
    >>> inconsistency([dimension(3), dimension_at_least(2)]) is None
    True
    """
    fixed = sorted({a.value for a in assumptions if isinstance(a, ir.FixedDimension)})
    if len(fixed) > 1:
        return f"dimension({fixed[0]}) contradicts dimension({fixed[1]})"
    if not fixed:
        return None
    low = max((a.value for a in assumptions if isinstance(a, ir.MinDimension)), default=1)
    if fixed[0] < low:
        return f"dimension({fixed[0]}) contradicts dimension_at_least({low})"
    nonconstant = sorted(a.atom.name for a in assumptions if isinstance(a, ir.Nonconstant))
    if nonconstant and fixed[0] < 2:
        return f"nonconstant({nonconstant[0]}) needs d ≥ 2, but dimension(1) fixes d = 1"
    return None


def _confirm(claim: Claim, evidence: list[Evidence], deadline: float | None) -> list[Evidence]:
    """Re-check every exact counterexample before it may refute the claim.

    The claim is evaluated afresh, exactly, at the reported point (assumptions included);
    a counterexample that does not survive becomes its engine's error evidence. If none
    survives, a numeric engine's violating sample is evaluated exactly too, and added as
    an exact counterexample when the violation is real there.
    """
    from lnsym.engines.concrete.engine import promote as promote_vectors
    from lnsym.engines.concrete.engine import recheck as recheck_vectors
    from lnsym.engines.concrete.matrices import promote as promote_matrices
    from lnsym.engines.concrete.matrices import recheck as recheck_matrices

    # Matrices are re-checked entry by entry, written out afresh at the point's sizes.
    matrices = has_matrices(claim.statement)
    recheck: Callable[..., tuple[Any, str]] = recheck_matrices if matrices else recheck_vectors
    promote: Callable[..., tuple[Any, str]] = promote_matrices if matrices else promote_vectors

    out: list[Evidence] = []
    confirmed = False
    for e in evidence:
        if e.outcome == Outcome.COUNTEREXAMPLE and e.counterexample is not None:
            start = time.perf_counter()
            found, how, clocked = _within(deadline, recheck, claim, e.counterexample)
            spent = time.perf_counter() - start
            if found is None:
                data = {**e.data, "exact": False, "recheck_failed": how}
                detail = (
                    f"its counterexample did not survive the exact re-check ({how}): "
                    f"{counterexample_text(e.counterexample)}"
                )
                # Stopped by the clock, the re-check decided nothing: TIMEOUT, as any engine.
                outcome = Outcome.TIMEOUT if clocked else Outcome.ERROR
                e = Evidence(e.engine, outcome, detail, e.seconds + spent, data)
            else:
                e = replace(e, data={**e.data, "rechecked": how}, seconds=e.seconds + spent)
                confirmed = True
        out.append(e)
    if confirmed:
        return out
    for e in evidence:
        sample = e.data.get("sample")
        if e.outcome == Outcome.COUNTEREXAMPLE and e.counterexample is None and sample:
            start = time.perf_counter()
            found, how, clocked = _within(deadline, promote, claim, sample)
            seconds = time.perf_counter() - start
            if found is not None:
                detail = f"the {e.engine} engine's sample made exact at d = {found.d} ({how})"
                data = {"exact": True, "rechecked": how, "from": e.engine}
                out.append(Evidence("exact", Outcome.COUNTEREXAMPLE, detail, seconds, data, found))
                break
            if clocked:  # what the sample shows was not decided: the clock stopped it
                detail = f"the {e.engine} engine's sample was not made exact: {how}"
                out.append(Evidence("exact", Outcome.TIMEOUT, detail, seconds))
                break
    return out


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.perf_counter() + timeout


def _within(
    deadline: float | None, check_point: Callable[..., tuple[Any, str]], *args: Any
) -> tuple[Any, str, bool]:
    """Run an exact re-check within what is left of the claim's budget; never raise. The
    third value says whether the wall clock stopped it (then nothing was decided)."""
    remaining = None if deadline is None else deadline - time.perf_counter()
    if remaining is not None and remaining <= 0:
        return None, "the claim's budget was used up", True
    try:
        with time_budget(remaining):
            return (*check_point(*args), False)
    except BudgetExceeded:
        return None, "the claim's budget ran out during the re-check", True
    except Exception as exc:  # noqa: BLE001 — a failed re-check confirms nothing
        return None, f"internal {type(exc).__name__}: {exc}", False


def check(
    claim: Claim, *, timeout: float | None = 60.0, engines: Iterable[str] | None = None
) -> Result:
    """Check one claim; ``engines`` defaults to :attr:`Options.engines`.

    Raises:
        ExpressionError: for something that is not a Claim, or an unknown engine.
    """
    if not isinstance(claim, Claim):
        raise ExpressionError(
            f"check() takes a Claim, not {type(claim).__name__}: Claim('my.id', statement)"
        )
    options = Options(timeout=timeout)
    if engines is not None:
        if isinstance(engines, str) or not all(isinstance(e, str) for e in engines):
            raise ExpressionError("engines must be a list of engine names, e.g. ['general']")
        unknown = sorted(set(engines) - set(ENGINES) | set(engines) & {"validation"})
        if unknown:
            raise ExpressionError(
                f"unknown engine {unknown[0]!r}: the engines are {', '.join(sorted(ENGINES))}"
            )
        options.engines = tuple(engines)
    return Checker(options).check(claim)
