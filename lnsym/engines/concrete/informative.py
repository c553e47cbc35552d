"""An informative counterexample in place of a degenerate one.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). The
first violation in order of size is often degenerate — d = 1, z = (0), γ = 0 — and tells a
reader little: at d = 1 the core is 0 whatever z is. Once a claim is refuted there,
:func:`informative_counterexample` looks for a violation that says more: at the smallest
d ≥ 2, no vector zero and no scalar zero (:func:`~lnsym.engines.concrete.points.informative`),
among the first :data:`INFORMATIVE_POINTS` such points in order of size. Only the choice of
the point changes: it is examined exactly like any other (exact arithmetic, confirmed by
SymPy), and the checker re-checks it before it refutes; without one the degenerate
counterexample stands. The search is deterministic.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from lnsym.engines.concrete.dimension import DimensionCheck, Routes
from lnsym.engines.concrete.examine import _examine
from lnsym.engines.concrete.points import _informative_grid, informative
from lnsym.engines.concrete.problem import _Problem

#: Informative points examined per dimension.
INFORMATIVE_POINTS = 120
#: Dimensions tried beyond the one of the degenerate counterexample (and beyond 2).
EXTRA_DIMENSIONS = 1


def informative_counterexample(
    problem: _Problem, found: DimensionCheck, dims: Sequence[int], routes: Routes
) -> DimensionCheck:
    """``found``, or a violation at an informative point at the smallest d ≥ 2 of ``dims``
    (up to ``max(found.d, 2) + EXTRA_DIMENSIONS``) if ``found``'s point is degenerate."""
    if found.point is None or informative(found.point):
        return found
    last = max(found.d, 2) + EXTRA_DIMENSIONS
    for d in (d for d in dims if 2 <= d <= last):
        for point in itertools.islice(_informative_grid(problem, d), INFORMATIVE_POINTS):
            look = _examine(problem, point, exact_points=routes.exact_points)
            if look.violation is not None:
                return DimensionCheck(
                    d, "counterexample", "samples", found.samples, 0.0, point, look.violation
                )
    return found
