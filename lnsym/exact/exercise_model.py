"""An exercise sheet as format-neutral data: prose, worked steps, parts, exercises.

The report templates (:mod:`lnsym.report.sheets`) render a :class:`Sheet` as Markdown and
LaTeX; nothing here knows either format. Prose is a sequence of :class:`Segment`, plain text
or LaTeX math, so that each renderer escapes the text its own way.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

from lnsym.exact.closed_form import Mat, Vec
from lnsym.printing.printer import Math

#: A parameter or an answer of an exercise: a rational number, a vector or a matrix (Fractions).
ExerciseValue: TypeAlias = Fraction | Vec | Mat

#: The exercise kinds, in the order a sheet presents them.
KINDS = (
    "statistics",
    "shift-scale",
    "gain-bias",
    "jacobian",
    "gradients",
    "inverse-variance",
    "sensitivity",
)


@dataclass(frozen=True)
class Segment:
    """A piece of prose: plain text (escaped by the renderer) or LaTeX math."""

    text: str
    math: bool


Prose: TypeAlias = tuple[Segment, ...]


@dataclass(frozen=True)
class AnswerLine:
    """One line of a worked answer, ``lhs = rhs`` (LaTeX), aligned at the equals sign."""

    lhs: Math
    rhs: Math


@dataclass(frozen=True)
class Part:
    """A question (a), (b), … with its worked steps and concluding sentence for the key."""

    question: Prose
    steps: tuple[AnswerLine, ...]
    conclusion: Prose


@dataclass(frozen=True)
class Exercise:
    """One exercise: its data (``params``) and its checked exact answers (``answers``).

    Vectors are tuples of ``Fraction``, matrices tuples of rows; the names of ``params``
    (z, eps, gamma, …) and ``answers`` (core, grad_z, …) mean the same in every kind.
    """

    number: int
    kind: str
    title: str
    d: int
    setting: Prose
    parts: tuple[Part, ...]
    params: dict[str, ExerciseValue]
    answers: dict[str, ExerciseValue]


@dataclass(frozen=True)
class Sheet:
    """A generated exercise sheet (its answer key is in the same data)."""

    seed: int
    dimensions: tuple[int, int]
    exercises: tuple[Exercise, ...]

    @property
    def count(self) -> int:
        """The number of exercises."""
        return len(self.exercises)

    @property
    def command(self) -> str:
        """The command line that generates this sheet again.

        >>> from lnsym.exact.exercises import generate_sheet
        >>> generate_sheet(count=1, seed=5).command
        'lnsym exercises --seed 5 --count 1 --d 2..4'
        """
        low, high = self.dimensions
        return f"lnsym exercises --seed {self.seed} --count {self.count} --d {low}..{high}"


#: The title of each kind of exercise.
TITLES = {
    "statistics": "Mean, variance and the normalized core",
    "shift-scale": "Shifting versus scaling the input",
    "gain-bias": "What gain and bias do to the output",
    "jacobian": "The Jacobian of the core and of the layer",
    "gradients": "Gradients for a given upstream gradient",
    "inverse-variance": "An input for a target core variance",
    "sensitivity": "Sensitivity at a constant input",
}
