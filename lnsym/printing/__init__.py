"""Notation: the IR as text and as LaTeX, derivation chains, exact numbers.

- :mod:`~lnsym.printing.printer` — text and LaTeX printers in SymPy's printer style
  (``_print_<Node>``), with notation and abbreviations; all mathematics shown anywhere
  comes from here.
- :mod:`~lnsym.printing.display` — claims and derivations as Markdown chains (Jupyter).
- :mod:`~lnsym.printing.numbers` — exact rationals, vectors and matrices as LaTeX.

Importing this package installs :func:`text` and :func:`latex` as the IR's ``repr`` and
Jupyter LaTeX (:data:`lnsym.ir.nodes.PRINTERS`); the IR itself never imports a printer.

>>> from lnsym import vector, mean
>>> text(mean(vector("z"))), latex(mean(vector("z")))
('mean(z)', '\\\\mu(\\\\mathbf{z})')
"""

from __future__ import annotations

from lnsym.ir import nodes as _nodes
from lnsym.printing.printer import Math, latex, text

_nodes.PRINTERS.update(text=text, latex=latex)

__all__ = ["Math", "latex", "text"]
