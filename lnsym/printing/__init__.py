"""Notation: the IR as text and as LaTeX, derivation chains, exact numbers.

- :mod:`~lnsym.printing.text_printer` and :mod:`~lnsym.printing.latex_printer` — text and
  LaTeX printers in SymPy's printer style (``_print_<Node>``) over the shared tree walk of
  :mod:`~lnsym.printing.base`; all mathematics shown anywhere comes from them.
- :mod:`~lnsym.printing.notation` — names of defined nodes and the report's abbreviations.
- :mod:`~lnsym.printing.formulas` — derivation chains, certificates, exact values and the
  notation block as LaTeX.
- :mod:`~lnsym.printing.printer` — all of the above's public names in one place.
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
from lnsym.printing.latex_printer import Math, latex
from lnsym.printing.text_printer import text

_nodes.PRINTERS.update(text=text, latex=latex)

__all__ = ["Math", "latex", "text"]
