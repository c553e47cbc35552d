"""Printers for the IR: one-line Unicode text and LaTeX, as SymPy printer subclasses.

The public face of the printers, gathered from the modules that hold them:

- :mod:`~lnsym.printing.base` — the tree walk both printers share; a new node needs one
  ``_print_<Class>`` method per printer at most, and a defined node none.
- :mod:`~lnsym.printing.text_printer` — :class:`TextPrinter`, :class:`ReadableTextPrinter`
  and :func:`text`.
- :mod:`~lnsym.printing.latex_printer` — :class:`LatexPrinter`, :func:`latex`, :class:`Math`.
- :mod:`~lnsym.printing.notation` — names of defined nodes (:data:`LATEX_NAMES`) and the
  report's abbreviations (:data:`ABBREVIATIONS`, :func:`abbreviations_for`).
- :mod:`~lnsym.printing.formulas` — :func:`latex_value`, :func:`latex_chain`,
  :func:`latex_certificate` and the notation block :func:`notation`.

Vectors are bold in LaTeX, the ones vector is 𝟏, the Hadamard product ⊙, and ε is
``\\varepsilon``.

>>> from lnsym import vector, core, dot, ones, Eq
>>> z, h = vector("z"), vector("h")
>>> text(dot(core(z), h) - 1)
'⟨core(z), h⟩ - 1'
>>> print(latex(core(z + 3 * ones)))
u_{\\varepsilon}(\\mathbf{z} + 3 \\mathbf{1})

Reports abbreviate the quantities that the notation block defines for the input z:
q = q(z), s = √(q + ε), 𝐮 = u_ε(z), 𝐲 = LN_{γ,β}(z) and J = D u_ε(z). An abbreviation is
used only where it cannot be confused (see :func:`abbreviations_for`):

>>> from lnsym import jvp, norm, eps, var, Le
>>> bound = Le(norm(jvp(core(z), z, h)) ** 2, norm(h) ** 2 / eps)
>>> print(latex(bound, abbreviations=abbreviations_for(bound)))
\\lVert J \\mathbf{h} \\rVert^{2} \\le \\frac{\\lVert \\mathbf{h} \\rVert^{2}}{\\varepsilon}

The text printer takes the same abbreviations, and with ``readable=True`` writes a line the
way the LaTeX printer typesets it:

>>> text(bound, abbreviations_for(bound))
'‖J(h)‖^2 ≤ ‖h‖^2·1/ε'
>>> text(bound, abbreviations_for(bound), readable=True)
'‖Jh‖² ≤ ‖h‖²/ε'
"""

from __future__ import annotations

from lnsym.printing.formulas import latex_certificate as latex_certificate
from lnsym.printing.formulas import latex_chain as latex_chain
from lnsym.printing.formulas import latex_value as latex_value
from lnsym.printing.formulas import notation as notation
from lnsym.printing.latex_printer import LatexPrinter as LatexPrinter
from lnsym.printing.latex_printer import Math as Math
from lnsym.printing.latex_printer import latex as latex
from lnsym.printing.notation import ABBREVIATIONS as ABBREVIATIONS
from lnsym.printing.notation import BIAS as BIAS
from lnsym.printing.notation import GAIN as GAIN
from lnsym.printing.notation import INPUT as INPUT
from lnsym.printing.notation import LATEX_NAMES as LATEX_NAMES
from lnsym.printing.notation import abbreviations_for as abbreviations_for
from lnsym.printing.text_printer import ReadableTextPrinter as ReadableTextPrinter
from lnsym.printing.text_printer import TextPrinter as TextPrinter
from lnsym.printing.text_printer import text as text
