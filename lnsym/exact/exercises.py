r"""Exercise sheets on layer normalization with exact answers, each checked through the IR.

:func:`generate_sheet` draws ``count`` exercises from a seed. There are sixteen kinds
(:data:`KINDS`, described in :data:`KIND_INFO`) in five categories — computation,
derivation, proof, concept and coding — and three levels, warm-up, core and challenge; a
sheet presents them level by level. The seed chooses the kinds (every category first, so a
sheet of five or more has each, and of eight or more each level too), the data and the
wording of each question.

Numbers are chosen "nice": inputs, gains, biases and upstream gradients are small integers,
and ε is usually chosen so that q + ε is the square of a rational, so s = √(q + ε) and every
answer is rational (the key says so for each exercise; the ε exercise uses realistic values).
Every computed answer is computed twice — from its closed form in exact ``Fraction``
arithmetic, and from the IR expression of the asked quantity (``core(z)``,
``vjp(layer_norm(z, gamma, beta), z, g)``, …) evaluated by the concrete engine
(:mod:`lnsym.engines.concrete.engine`, SymPy's own calculus) — and a disagreement raises
:class:`~lnsym.errors.CrossCheckError` before anything is printed. Every line of a
derivation or proof is a claim the engines must PROVE, and every true-or-false statement one
they must PROVE or REFUTE (:mod:`~lnsym.exact.exercise_proving`).

This module draws the kinds and assembles the sheet (:func:`generate_sheet`); the parts are
:mod:`~lnsym.exact.exercise_options` (count, seed and range of d),
:mod:`~lnsym.exact.exercise_model` (the sheet as data), :mod:`~lnsym.exact.exercise_draft`
(an exercise being built, each answer checked), :mod:`~lnsym.exact.exercise_writing` (its
mathematics as LaTeX), and the kinds: :mod:`~lnsym.exact.exercise_forward`,
:mod:`~lnsym.exact.exercise_derivatives` (computation), :mod:`~lnsym.exact.exercise_derivations`,
:mod:`~lnsym.exact.exercise_proofs`, :mod:`~lnsym.exact.exercise_concepts` and
:mod:`~lnsym.exact.exercise_coding`, whose answers come from :mod:`~lnsym.exact.closed_form`
and data from :mod:`~lnsym.exact.nice_data`.

>>> sheet = generate_sheet(count=5, seed=1)
>>> for e in sheet.exercises:
...     print(e.level, e.category, e.kind)
warm-up computation statistics
warm-up concept true-or-false
core derivation derive-shift
core proof proof-core
core coding code-variance
>>> statistics = sheet.exercises[0]
>>> [str(x) for x in statistics.params["z"]], statistics.params["eps"]
(['3', '0'], Fraction(4, 1))
>>> [str(x) for x in statistics.answers["core"]]
['3/5', '-3/5']
>>> sheet.exercises[2].proved["exercise.shift.core#3"]
'PROVED'
"""

from __future__ import annotations

import random
from collections.abc import Callable

import lnsym.exact.exercise_coding as exercise_coding
import lnsym.exact.exercise_concepts as exercise_concepts
import lnsym.exact.exercise_derivations as exercise_derivations
import lnsym.exact.exercise_derivatives as exercise_derivatives
import lnsym.exact.exercise_forward as exercise_forward
import lnsym.exact.exercise_proofs as exercise_proofs
from lnsym.exact.exercise_draft import Draft
from lnsym.exact.exercise_model import CATEGORIES as CATEGORIES
from lnsym.exact.exercise_model import KIND_INFO as KIND_INFO
from lnsym.exact.exercise_model import KINDS as KINDS
from lnsym.exact.exercise_model import LEVELS as LEVELS
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
    "true-or-false": exercise_concepts.true_or_false,
    "code-forward": exercise_coding.code_forward,
    "epsilon": exercise_concepts.epsilon,
    "gain-bias": exercise_forward.gain_bias,
    "derive-shift": exercise_derivations.derive_shift,
    "proof-core": exercise_proofs.proof_core,
    "jacobian": exercise_derivatives.jacobian_kind,
    "inverse-variance": exercise_forward.inverse_variance,
    "code-variance": exercise_coding.code_variance,
    "gradients": exercise_derivatives.gradients,
    "derive-jacobian": exercise_derivations.derive_jacobian,
    "proof-gradients": exercise_proofs.proof_gradients,
    "sensitivity": exercise_derivatives.sensitivity,
    "code-backward": exercise_coding.code_backward,
}


def _round(rng: random.Random) -> list[str]:
    """Every kind once: first one of each category, then one of each level not yet drawn,
    then the rest — so that even a short sheet mixes what it asks for."""
    rest = list(KINDS)
    rng.shuffle(rest)
    drawn: list[str] = []
    for group, of in ((CATEGORIES, "category"), (LEVELS, "level")):
        for value in group:
            if not any(getattr(KIND_INFO[k], of) == value for k in drawn):
                kind = next(k for k in rest if getattr(KIND_INFO[k], of) == value)
                drawn.append(kind)
                rest.remove(kind)
    return drawn + rest


def _kinds(rng: random.Random, count: int) -> list[str]:
    """``count`` kinds from rounds of all kinds, presented in the order of :data:`KINDS`:
    level by level, from warm-up to challenge."""
    drawn: list[str] = []
    while len(drawn) < count:
        drawn += _round(rng)
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
