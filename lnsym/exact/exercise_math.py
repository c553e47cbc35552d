"""Layer normalization in exact rational arithmetic, and draws of "nice" exercise data.

The exact arithmetic the exercises use, under the names it has always had here: the closed
forms — μ, Pz, q, s, u, J = (P − uuᵀ/d)/s, ∂ℓ/∂z — live in :mod:`lnsym.exact.closed_form`
(the one oracle of the worked examples and the exercises, independent of the IR and its
engines), and the draws of small integers and an ε that makes every square root rational in
:mod:`lnsym.exact.nice_data`. This module only re-exports them.

>>> z = vec([1, 2, 3])
>>> mean(z), variance(z), core(z, Fraction(1, 3))
(Fraction(2, 1), Fraction(2, 3), (Fraction(-1, 1), Fraction(0, 1), Fraction(1, 1)))
"""

from __future__ import annotations

from fractions import Fraction as Fraction

from lnsym.exact.closed_form import Mat as Mat
from lnsym.exact.closed_form import Vec as Vec
from lnsym.exact.closed_form import add as add
from lnsym.exact.closed_form import apply as apply
from lnsym.exact.closed_form import center as center
from lnsym.exact.closed_form import centering as centering
from lnsym.exact.closed_form import core as core
from lnsym.exact.closed_form import grad_z as grad_z
from lnsym.exact.closed_form import hadamard as hadamard
from lnsym.exact.closed_form import jacobian as jacobian
from lnsym.exact.closed_form import mean as mean
from lnsym.exact.closed_form import norm_ratio as norm_ratio
from lnsym.exact.closed_form import rational_sqrt as rational_sqrt
from lnsym.exact.closed_form import scale as scale
from lnsym.exact.closed_form import squared_norm as squared_norm
from lnsym.exact.closed_form import times as times
from lnsym.exact.closed_form import variance as variance
from lnsym.exact.closed_form import vec as vec
from lnsym.exact.nice_data import ATTEMPTS as ATTEMPTS
from lnsym.exact.nice_data import FACTORS as FACTORS
from lnsym.exact.nice_data import NOVEL_ATTEMPTS as NOVEL_ATTEMPTS
from lnsym.exact.nice_data import TARGETS as TARGETS
from lnsym.exact.nice_data import Novelty as Novelty
from lnsym.exact.nice_data import centered_direction as centered_direction
from lnsym.exact.nice_data import gain as gain
from lnsym.exact.nice_data import inverse_data as inverse_data
from lnsym.exact.nice_data import is_square as is_square
from lnsym.exact.nice_data import nice_input as nice_input
from lnsym.exact.nice_data import nonzero as nonzero
from lnsym.exact.nice_data import scalable_input as scalable_input
from lnsym.exact.nice_data import sensitivity_data as sensitivity_data
from lnsym.exact.nice_data import small_vector as small_vector
from lnsym.exact.nice_data import upstream as upstream
