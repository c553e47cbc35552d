"""The expression language of the command line: text → IR by a hand-written parser.

The grammar, the precedence table and the rule for names are in docs/language.md. The text
is split into tokens and read by recursive descent (one function per precedence level);
every node is built by lnsym's own constructors (:func:`~lnsym.ir.nodes.vector`,
:func:`~lnsym.ir.layers.core`, :func:`~lnsym.ir.calculus.jvp`, the operators of
:class:`~lnsym.ir.nodes.Expr`, …), and every number is an exact SymPy ``Integer`` or
``Rational`` made from ``int()`` of its digits. Nothing here evaluates text as code: no
``eval``, ``exec``, ``sympify`` or SymPy parser ever sees it.

- :mod:`~lnsym.language.tokens` — the tokenizer, :class:`~lnsym.language.tokens.Token` and
  the limits on the text (``MAX_LENGTH``, ``MAX_DEPTH``, …).
- :mod:`~lnsym.language.functions` — the functions (``FUNCTIONS``, with the kinds of their
  arguments) and the constants (``CONSTANTS``).
- :mod:`~lnsym.language.parser` — :func:`parse_expression`: the recursive descent and its
  type checks.
- :mod:`~lnsym.language.messages` — one-line error messages with the column.

A name is a vector unless it is ``d``, ``eps``/``epsilon`` (``ε``), ``ones`` or one of the
scalars the caller declares:

>>> from lnsym.errors import LanguageError
>>> parse_expression("jvp(core(z), z, h)")
D_z[core(z)](h)
>>> parse_expression("z / s + 0.5*ones", scalars=["s"])
1/s·z + 1/2·1
>>> try:
...     parse_expression("mean(z, h")
... except LanguageError as exc:
...     print(exc.column, exc)
7 column 7: expected ")" after the arguments of mean, found "," in "mean(z, h"
"""

from __future__ import annotations

from lnsym.language.functions import CONSTANTS as CONSTANTS
from lnsym.language.functions import FUNCTIONS as FUNCTIONS
from lnsym.language.parser import parse_expression as parse_expression
from lnsym.language.tokens import GREEK as GREEK
from lnsym.language.tokens import MAX_BITS as MAX_BITS
from lnsym.language.tokens import MAX_DECIMAL_EXPONENT as MAX_DECIMAL_EXPONENT
from lnsym.language.tokens import MAX_DEPTH as MAX_DEPTH
from lnsym.language.tokens import MAX_EXPONENT as MAX_EXPONENT
from lnsym.language.tokens import MAX_LENGTH as MAX_LENGTH
from lnsym.language.tokens import MAX_NAME as MAX_NAME
from lnsym.language.tokens import MAX_NUMBER as MAX_NUMBER
