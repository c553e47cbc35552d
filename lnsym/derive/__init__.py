"""Automatic derivation: readable closed forms, each proved equal to what was asked.

- :mod:`~lnsym.derive.named` — normal forms with each layer core kept as a named atom, and
  the layers' derivative rules;
- :mod:`~lnsym.derive.readable` — those forms back to IR, in named vocabulary, and the size
  measure;
- :mod:`~lnsym.derive.derived` — :func:`derive` (the strategy, the candidates, the proof)
  and :class:`Derived`.
"""

from __future__ import annotations

from lnsym.derive.derived import (
    DerivationFailed,
    Derived,
    RewriteStep,
    derive,
    derived_step,
    derived_steps,
)

__all__ = ["DerivationFailed", "Derived", "RewriteStep", "derive", "derived_step", "derived_steps"]
