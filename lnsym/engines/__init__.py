"""The three interpreters of the IR, independent of each other, and their contract.

- :mod:`~lnsym.engines.base` — :class:`~lnsym.engines.base.Evidence` and what an engine
  checks (:class:`~lnsym.engines.base.Checkable`).
- :mod:`~lnsym.engines.general` — proofs for every d (normal forms over power sums).
- :mod:`~lnsym.engines.concrete` — exact checks at d = 1..K with SymPy's own derivatives.
- :mod:`~lnsym.engines.numeric` — numpy samples, batched.

None of them imports another: each one cross-checks the others (docs/architecture.md).
"""
