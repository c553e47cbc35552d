"""The language: immutable vector and scalar expressions, relations and assumptions.

- :mod:`~lnsym.ir.nodes` — the nodes and their constructors (vector, scalar, dot, mean,
  var, …), relations (Eq, Le) and assumptions (centered, orthogonal, …).
- :mod:`~lnsym.ir.calculus` — jvp, vjp, grad and the operator norm.
- :mod:`~lnsym.ir.layers` — the normalizations: core and layer_norm.
- :mod:`~lnsym.ir.signs` — the sign rules (part of the trusted kernel, docs/trust.md).

Modules inside this package import each other by module, never through this file.
"""
