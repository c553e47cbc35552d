"""An exercise being built: its data, its answers checked against the IR, its parts.

A kind (:mod:`lnsym.exact.exercise_forward`, :mod:`lnsym.exact.exercise_derivatives`) fills
a :class:`Draft`: it records the data (:meth:`Draft.given`), then each answer with
:meth:`Draft.answer`, which evaluates the IR expression of the asked quantity with the
concrete engine (:mod:`lnsym.engines.concrete.engine`, SymPy's own calculus) and refuses a
closed form that differs from it by raising :class:`~lnsym.errors.CrossCheckError` — so a
sheet is never printed with an answer the IR does not confirm. Derivations, proofs and true
or false statements go through the engines instead (:meth:`Draft.derive`,
:meth:`Draft.statement`, :mod:`lnsym.exact.exercise_proving`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, TypeVar

import sympy

from lnsym import ir
from lnsym.checking.claims import Claim, Result
from lnsym.engines.concrete import engine as concrete
from lnsym.errors import CrossCheckError
from lnsym.exact.closed_form import Vec
from lnsym.exact.exercise_model import KIND_INFO, AnswerLine, Exercise, ExerciseValue, Part, Prose
from lnsym.exact.exercise_proving import Link, check_chain, check_statement
from lnsym.exact.exercise_writing import listing, prose, slash, tex
from lnsym.exact.nice_data import Novelty
from lnsym.ir.layers import core, layer_norm
from lnsym.printing.numbers import latex_number
from lnsym.printing.printer import Math

_X = sympy.Dummy("x")
_T = TypeVar("_T")
# The IR atoms an exercise's data bind, by the names of its params; and the core and layer.
Z, GAMMA, BETA = ir.vector("z"), ir.vector("gamma"), ir.vector("beta")
G, H, V = ir.vector("g"), ir.vector("h"), ir.vector("v")
_ATOMS = {"z": Z, "gamma": GAMMA, "beta": BETA, "g": G, "h": H, "v": V}
#: The IR scalars an exercise's data bind, by the names of its params.
_SCALARS = {"eps": ir.eps, "c": ir.scalar("c")}
U = core(Z)
Y = layer_norm(Z, GAMMA, BETA)
#: s = √(q + ε) as an IR expression.
SCALE = (ir.var(Z) + ir.eps) ** sympy.Rational(1, 2)


def _exactly(got: sympy.Expr, want: Fraction) -> bool:
    """Whether the algebraic number ``got`` equals the rational ``want``, decided exactly."""
    target = sympy.Rational(want.numerator, want.denominator)
    diff = sympy.expand(got - target)
    if diff.is_Rational:
        return bool(diff == 0)
    if diff.free_symbols:
        return False
    return sympy.minimal_polynomial(diff, _X) == _X


def _entries(value: ExerciseValue) -> list[Fraction]:
    if isinstance(value, Fraction):
        return [value]
    if value and isinstance(value[0], tuple):
        return [x for row in value for x in row]
    return list(value)  # type: ignore[arg-type]


def _vector(value: ExerciseValue) -> list[Fraction | Vec]:
    """The entries of a datum bound to an IR vector atom (always a tuple, never a number)."""
    assert isinstance(value, tuple), value
    return list(value)


class Draft:
    """An exercise being built: its data, its checked answers and its parts."""

    def __init__(
        self, number: int, kind: str, d: int, rng: random.Random, novelty: Novelty
    ) -> None:
        self.number, self.kind, self.d, self.rng, self.novelty = number, kind, d, rng, novelty
        self.params: dict[str, ExerciseValue] = {}
        self.answers: dict[str, ExerciseValue] = {}
        self.parts: list[Part] = []
        self.setting: Prose = ()
        self.note: Prose = ()
        self.proved: dict[str, str] = {}

    def pick(self, *choices: _T) -> _T:
        """One of several phrasings (or values), chosen by the sheet's seed."""
        return self.rng.choice(choices)

    def explain_eps(self, q: Fraction, eps: Fraction, s: Fraction) -> None:
        """Say in the key why ε has its value: q + ε is a square, so s and the answers are
        exact fractions."""
        root = slash(s) if s.denominator == 1 else f"({slash(s)})"
        self.note = prose(
            f"Why $@eps = {latex_number(eps)}$: with $q = {latex_number(q)}$ it makes "
            f"$q + @eps = {latex_number(q + eps)} = {root}^2$ a square, so "
            f"$s = {latex_number(s)}$ and every answer is an exact fraction."
        )

    def describe(self, *items: str) -> None:
        """Set the setting: "Let d = …, " and the items (prose with ``$...$`` math)."""
        self.setting = prose("Let $d = " + str(self.d) + "$, " + listing(list(items)) + ".")

    def given(self, **values: ExerciseValue) -> None:
        """Record the data of the exercise (vectors named like IR atoms are bound to them)."""
        self.params.update(values)

    def _binding(self) -> dict[Any, Any]:
        binding: dict[Any, Any] = {
            _ATOMS[k]: _vector(v) for k, v in self.params.items() if k in _ATOMS
        }
        binding.update({_SCALARS[k]: v for k, v in self.params.items() if k in _SCALARS})
        return binding

    def answer(
        self,
        name: str,
        closed: ExerciseValue,
        expr: ir.Expr,
        *,
        wrt: ir.VectorAtom | None = None,
        at: dict[str, Vec] | None = None,
    ) -> Any:
        """Record an answer after checking its closed form against the IR.

        Args:
            name: the answer's name (the same meaning in every kind).
            closed: the value from the closed form.
            expr: the IR expression of the asked quantity, evaluated by the concrete engine
                at the exercise's data (or its Jacobian with respect to ``wrt``).
            at: values of further vector atoms (e.g. an input found by the student).

        Returns:
            ``closed``.

        Raises:
            CrossCheckError: when the concrete engine's value differs.
        """
        binding = self._binding()
        binding.update({_ATOMS[k]: list(v) for k, v in (at or {}).items()})
        if wrt is None:
            got = concrete.instantiate(expr, self.d, binding)
        else:
            got = concrete.jacobian(expr, wrt, self.d, binding)
        values = list(got) if isinstance(got, sympy.MatrixBase) else [got]
        want = _entries(closed)
        where = f"exercise {self.number} ({self.kind}), {name}"
        if len(values) != len(want):
            raise CrossCheckError(f"{where}: {len(values)} entries from the IR, {len(want)} closed")
        for i, (a, b) in enumerate(zip(values, want, strict=True)):
            if not _exactly(a, b):
                raise CrossCheckError(
                    f"{where}[{i}]: the IR gives {sympy.sstr(a)} but the closed form gives {b}"
                )
        self.answers[name] = closed
        return closed

    def derive(
        self,
        chain_id: str,
        start: ir.Expr,
        links: Sequence[Link],
        assumptions: Sequence[ir.Assumption] = (),
    ) -> list[tuple[str, ...]]:
        """A chain of links proved by the engines, as worked lines for :meth:`part`.

        Raises:
            CrossCheckError: when a link is not PROVED.
        """
        lines, verdicts = check_chain(f"exercise.{chain_id}", start, links, assumptions)
        self.proved.update(verdicts)
        return list(lines)

    def statement(self, claim: Claim) -> Result:
        """A statement checked by the engines (PROVED, or REFUTED when it is false).

        Raises:
            CrossCheckError: when the verdict is not the expected one.
        """
        result = check_statement(claim)
        self.proved[claim.id] = result.verdict.value
        return result

    def part(
        self,
        question: str,
        steps: Sequence[tuple[str, ...]],
        conclusion: str = "",
        *,
        hint: str = "",
        code: str = "",
    ) -> None:
        """Add a part; prose uses ``$...$`` for math.

        Args:
            question: the question.
            steps: worked lines (lhs, rhs) or (lhs, rhs, why, relation), LaTeX with @-names.
            conclusion: the key's closing sentence.
            hint: a hint printed on the sheet.
            code: reference code printed in the key (and run by the tests).
        """
        lines = []
        for step in steps:
            lhs, rhs, why, relation = (*step, "", "=") if len(step) == 2 else step
            lines.append(AnswerLine(Math(tex(lhs)), Math(tex(rhs)), Math(tex(why)), Math(relation)))
        self.parts.append(Part(prose(question), tuple(lines), prose(conclusion), prose(hint), code))

    def done(self) -> Exercise:
        """The finished exercise."""
        info = KIND_INFO[self.kind]
        return Exercise(
            self.number,
            self.kind,
            info.title,
            self.d,
            self.setting,
            tuple(self.parts),
            dict(self.params),
            dict(self.answers),
            info.level,
            info.category,
            dict(self.proved),
            self.note,
        )
