r"""Exercise sheets on layer normalization with exact answers, each checked through the IR.

:func:`generate_sheet` draws ``count`` exercises from a seed. There are seven kinds
(:data:`KINDS`): the forward statistics; shifting versus scaling the input; the effect of
gain and bias on the output; the Jacobians; the gradients for an upstream g; choosing an
input for a target core variance; and the sensitivity at a constant input. Each exercise
comes with worked steps for the answer key.

Numbers are chosen "nice": inputs, gains, biases and upstream gradients are small integers,
and ε is chosen so that q + ε is the square of a rational, so s = √(q + ε) and every answer
is rational. Every answer is computed twice — from its closed form in exact ``Fraction``
arithmetic, and from the IR expression of the asked quantity (``core(z)``,
``vjp(layer_norm(z, gamma, beta), z, g)``, …) evaluated by the concrete engine
(:mod:`lnsym.engines.concrete.engine`, SymPy's own calculus) — and a disagreement raises
:class:`~lnsym.errors.CrossCheckError` before anything is printed.

This module draws the kinds and assembles the sheet (:func:`generate_sheet`); the parts are
:mod:`~lnsym.exact.exercise_options` (count, seed and range of d),
:mod:`~lnsym.exact.exercise_model` (the sheet as data), :mod:`~lnsym.exact.exercise_draft`
(an exercise being built, each answer checked through the IR),
:mod:`~lnsym.exact.exercise_writing` (its mathematics as LaTeX), and the kinds in
:mod:`~lnsym.exact.exercise_forward` and :mod:`~lnsym.exact.exercise_derivatives`, whose
answers come from :mod:`~lnsym.exact.closed_form` and data from :mod:`~lnsym.exact.nice_data`.

>>> sheet = generate_sheet(count=3, seed=1)
>>> [(e.number, e.kind, e.d) for e in sheet.exercises]
[(1, 'jacobian', 3), (2, 'inverse-variance', 3), (3, 'sensitivity', 2)]
>>> jacobian = sheet.exercises[0]
>>> [str(x) for x in jacobian.params["z"]], jacobian.params["eps"], jacobian.answers["scale"]
(['0', '2', '0'], Fraction(1, 9), Fraction(1, 1))
>>> [str(x) for x in jacobian.answers["core"]]
['-2/3', '4/3', '-2/3']
"""

from __future__ import annotations

import random
from collections.abc import Callable

import lnsym.exact.exercise_derivatives as exercise_derivatives
import lnsym.exact.exercise_forward as exercise_forward
from lnsym.exact.exercise_draft import Draft
from lnsym.exact.exercise_model import KINDS as KINDS
from lnsym.exact.exercise_model import TITLES as TITLES
from lnsym.exact.exercise_model import AnswerLine as AnswerLine
from lnsym.exact.exercise_model import Exercise as Exercise
from lnsym.exact.exercise_model import ExerciseValue as ExerciseValue
from lnsym.exact.exercise_model import Part as Part
from lnsym.exact.exercise_model import Prose as Prose
from lnsym.exact.exercise_model import Segment as Segment
from lnsym.exact.exercise_model import Sheet as Sheet
from lnsym.exact.exercise_options import DEFAULT_DIMENSIONS as DEFAULT_DIMENSIONS
from lnsym.exact.exercise_options import MAX_COUNT as MAX_COUNT
from lnsym.exact.exercise_options import MAX_D as MAX_D
from lnsym.exact.exercise_options import MAX_SEED as MAX_SEED
from lnsym.exact.exercise_options import check_options
from lnsym.exact.exercise_options import parse_count as parse_count
from lnsym.exact.exercise_options import parse_dimensions as parse_dimensions
from lnsym.exact.exercise_options import parse_seed as parse_seed
from lnsym.exact.nice_data import Novelty

#: How each kind is built.
_BUILDERS: dict[str, Callable[[Draft], None]] = {
    "statistics": exercise_forward.statistics,
    "shift-scale": exercise_forward.shift_scale,
    "gain-bias": exercise_forward.gain_bias,
    "jacobian": exercise_derivatives.jacobian_kind,
    "gradients": exercise_derivatives.gradients,
    "inverse-variance": exercise_forward.inverse_variance,
    "sensitivity": exercise_derivatives.sensitivity,
}


def _kinds(rng: random.Random, count: int) -> list[str]:
    """``count`` kinds: shuffled rounds of all kinds (so each appears once per 7), presented
    in the order of :data:`KINDS`, from the basics to the sensitivity."""
    drawn: list[str] = []
    while len(drawn) < count:
        round_ = list(KINDS)
        rng.shuffle(round_)
        drawn += round_
    return sorted(drawn[:count], key=KINDS.index)


def generate_sheet(
    count: int = 12, seed: int = 0, dimensions: tuple[int, int] = DEFAULT_DIMENSIONS
) -> Sheet:
    """Draw an exercise sheet; the same arguments always give the same sheet.

    Args:
        count: the number of exercises, 1 to :data:`MAX_COUNT`.
        seed: the seed, 0 to :data:`MAX_SEED`.
        dimensions: the range (low, high) of d, within 1..:data:`MAX_D`; d = 1 is skipped.

    Returns:
        The sheet, every answer checked through the IR.

    Raises:
        UserInputError: for a count, seed or range out of bounds.
        CrossCheckError: if a closed form disagrees with the IR (a bug in lnsym).
    """
    check_options(count, seed, dimensions)
    rng = random.Random(seed)
    low, high = max(dimensions[0], 2), dimensions[1]
    exercises = []
    novelty = Novelty()  # no two exercises of the sheet share an input
    for number, kind in enumerate(_kinds(rng, count), start=1):
        draft = Draft(number, kind, rng.randint(low, high), rng, novelty)
        _BUILDERS[kind](draft)
        exercises.append(draft.done())
    return Sheet(seed, dimensions, tuple(exercises))
