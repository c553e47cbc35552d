"""The concrete engine: claims checked exactly at d = 1..K (see :mod:`.engine`).

Checking a claim, top down:

- :mod:`~lnsym.engines.concrete.engine` — the entry points: ``evidence`` for a claim at every
  d (and what its evidence says), ``check_dimension``, the switches of the routes, and the
  names other parts of lnsym import.
- :mod:`~lnsym.engines.concrete.dimension` — the check at one d: the symbolic reduction, random
  rational points with their bound, the search for the smallest violation.
- :mod:`~lnsym.engines.concrete.recheck` — re-checking a counterexample, promoting a numeric
  sample to an exact one.
- :mod:`~lnsym.engines.concrete.examine` — one exact point: evaluated, decided, confirmed by
  SymPy.
- :mod:`~lnsym.engines.concrete.formatting` — the typed counterexample (exact values), and
  a point named in error messages.

What is compared and where:

- :mod:`~lnsym.engines.concrete.problem` — both sides, the variables, the assumptions and the
  linear constraints they impose.
- :mod:`~lnsym.engines.concrete.degrees` — degree bounds and independent roots for
  Schwartz–Zippel.
- :mod:`~lnsym.engines.concrete.points` — the exact points tried.
- :mod:`~lnsym.engines.concrete.ring` — the symbolic zero test over a polynomial ring, of
  SymPy values converted to it.
- :mod:`~lnsym.engines.concrete.ring_values` — the same test with the values built in the
  ring directly (the exact evaluator over polynomial fractions); SymPy's values only where
  these cannot be written.

Values:

- :mod:`~lnsym.engines.concrete.values` — IR nodes as SymPy values at a fixed d.
- :mod:`~lnsym.engines.concrete.shared` — names for inner products, symbolic values shared
  between checks.
- :mod:`~lnsym.engines.concrete.sympy_numbers` — the value type; realness, sign and agreement
  of exact SymPy numbers.
- :mod:`~lnsym.engines.concrete.instantiate` — ``instantiate`` and ``jacobian`` in readable
  coordinates.
- :mod:`~lnsym.engines.concrete.exact` — exact evaluation of the IR at rational points.
- :mod:`~lnsym.engines.concrete.arithmetic` — its numbers (rationals with square roots) and
  jets.
- :mod:`~lnsym.engines.concrete.interning` — interned IR nodes for the exact evaluator.
"""
