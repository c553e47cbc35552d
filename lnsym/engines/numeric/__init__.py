"""The numeric engine: claims sampled with numpy (see :mod:`.engine`).

- :mod:`~lnsym.engines.numeric.engine` — :func:`evidence` for a claim; re-exports the
  public helpers.
- :mod:`~lnsym.engines.numeric.pointwise` — evaluate, jacobian, lipschitz_ratio at one point.
- :mod:`~lnsym.engines.numeric.sampling` — sample points that respect a claim's assumptions.
- :mod:`~lnsym.engines.numeric.comparison` — both sides at a batch of points, each judged
  within a tolerance built from its error bounds.
- :mod:`~lnsym.engines.numeric.batch` — the interpreter: every sample of one d evaluated in
  one array pass (the Evaluator, and the errors along 1 that centering removes).
- :mod:`~lnsym.engines.numeric.rounding` — arithmetic with running error bounds.
- :mod:`~lnsym.engines.numeric.constants` — SymPy constants in the sampled scalars.
- :mod:`~lnsym.engines.numeric.derivatives` — jvp, Jacobians, gradients (reverse mode,
  forward mode, complex step, Ridders' central differences).
- :mod:`~lnsym.engines.numeric.adjoint` — reverse mode: a vjp or gradient written as an
  expression.
- :mod:`~lnsym.engines.numeric.dual` — dual numbers, the values of forward mode.
- :mod:`~lnsym.engines.numeric.norms` — operator norms by Lanczos.
- :mod:`~lnsym.engines.numeric.environment` — points, a batch's values, per-sample status.
- :mod:`~lnsym.engines.numeric.forms` — facts read off an expression's form.
- :mod:`~lnsym.engines.numeric.arrays` — per-sample reductions and the algebra of bounds.
"""
