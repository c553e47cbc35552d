"""An exercise sheet as format-neutral data: prose, worked steps, parts, exercises.

The report templates (:mod:`lnsym.report.sheets`) render a :class:`Sheet` as Markdown and
LaTeX; nothing here knows either format. Prose is a sequence of :class:`Segment`, plain text
or LaTeX math, so that each renderer escapes the text its own way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias

from lnsym.exact.closed_form import Mat, Vec
from lnsym.printing.printer import Math

#: A parameter or an answer of an exercise: a rational number, a vector or a matrix (Fractions).
ExerciseValue: TypeAlias = Fraction | Vec | Mat

#: The difficulty levels, in the order a sheet presents them.
LEVELS = ("warm-up", "core", "challenge")
#: What an exercise asks for: numbers, a derivation step by step, a proof for every d, an
#: explanation, or code that is tested.
CATEGORIES = ("computation", "derivation", "proof", "concept", "coding")


@dataclass(frozen=True)
class KindInfo:
    """What a kind of exercise is: its title, difficulty level and category."""

    title: str
    level: str
    category: str


#: Every kind of exercise, in the order a sheet presents them (level by level).
KIND_INFO: dict[str, KindInfo] = {
    "statistics": KindInfo("Mean, variance and the normalized core", "warm-up", "computation"),
    "shift-scale": KindInfo("Shifting versus scaling the input", "warm-up", "computation"),
    "true-or-false": KindInfo("True or false?", "warm-up", "concept"),
    "code-forward": KindInfo("Coding the forward pass", "warm-up", "coding"),
    "epsilon": KindInfo("What ε does in practice", "core", "concept"),
    "gain-bias": KindInfo("What gain and bias do to the output", "core", "computation"),
    "derive-shift": KindInfo("Why a common shift changes nothing", "core", "derivation"),
    "proof-core": KindInfo("The mean and variance of the core", "core", "proof"),
    "jacobian": KindInfo("The Jacobian of the core and of the layer", "core", "computation"),
    "inverse-variance": KindInfo("An input for a target core variance", "core", "computation"),
    "code-variance": KindInfo("A variance that survives large offsets", "core", "coding"),
    "gradients": KindInfo("Gradients for a given upstream gradient", "challenge", "computation"),
    "derive-jacobian": KindInfo(
        "Deriving the Jacobian and its properties", "challenge", "derivation"
    ),
    "proof-gradients": KindInfo("Backpropagation through the layer", "challenge", "proof"),
    "sensitivity": KindInfo("Sensitivity at a constant input", "challenge", "computation"),
    "code-backward": KindInfo("Coding the backward pass", "challenge", "coding"),
}
KINDS = tuple(KIND_INFO)


@dataclass(frozen=True)
class Segment:
    """A piece of prose: plain text (escaped by the renderer) or LaTeX math."""

    text: str
    math: bool


Prose: TypeAlias = tuple[Segment, ...]


@dataclass(frozen=True)
class AnswerLine:
    """One line of a worked answer, ``lhs = rhs`` (LaTeX), aligned at the relation; ``why``
    (LaTeX, may be empty) justifies the line, ``relation`` is ``=`` or ``\\le``."""

    lhs: Math
    rhs: Math
    why: Math = Math("")
    relation: Math = Math("=")


@dataclass(frozen=True)
class Part:
    """A question (a), (b), … with its worked steps and concluding sentence for the key, a
    hint for the sheet, and (for coding) the reference code the key prints."""

    question: Prose
    steps: tuple[AnswerLine, ...]
    conclusion: Prose
    hint: Prose = ()
    code: str = ""


@dataclass(frozen=True)
class Exercise:
    """One exercise: its data (``params``) and its checked exact answers (``answers``).

    Vectors are tuples of ``Fraction``, matrices tuples of rows; the names of ``params``
    (z, eps, gamma, …) and ``answers`` (core, grad_z, …) mean the same in every kind.
    ``proved`` maps the id of every claim the engines checked for it (the steps of a
    derivation or proof, the statements of a concept exercise) to the verdict; ``note``
    says in the key why ε has its value.
    """

    number: int
    kind: str
    title: str
    d: int
    setting: Prose
    parts: tuple[Part, ...]
    params: dict[str, ExerciseValue]
    answers: dict[str, ExerciseValue]
    level: str = "core"
    category: str = "computation"
    proved: dict[str, str] = field(default_factory=dict)
    note: Prose = ()


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
TITLES = {kind: info.title for kind, info in KIND_INFO.items()}
