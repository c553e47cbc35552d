"""The concrete engine: claims checked exactly at d = 1..K (see :mod:`.engine`).

- :mod:`~lnsym.engines.concrete.engine` — the check of a claim at each d, its evidence,
  and re-checking counterexamples.
- :mod:`~lnsym.engines.concrete.values` — IR nodes as SymPy values at a fixed d.
- :mod:`~lnsym.engines.concrete.ring` — the symbolic zero test over a polynomial ring.
- :mod:`~lnsym.engines.concrete.points` — the exact points tried.
- :mod:`~lnsym.engines.concrete.exact` — exact arithmetic over rationals with square roots.
"""
