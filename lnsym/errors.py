"""The one exception hierarchy of lnsym.

``UserInputError`` and its subclasses mean the caller asked for something malformed; the CLI
turns them into one line on stderr and exit code 2. The other classes are failures of a check
that the verdict reports (ERROR or TIMEOUT), never tracebacks for users.
"""

from __future__ import annotations

from functools import partial
from typing import Any


class LnsymError(Exception):
    """Base class of every error lnsym raises on purpose."""


class UserInputError(LnsymError, ValueError):
    """Malformed input from a user: a bad number, vector, name, path or option."""


class ExpressionError(UserInputError, TypeError):
    """An IR expression that does not type-check (vector + scalar, float literals, ...)."""


class CatalogError(UserInputError):
    """A derivation module that cannot be loaded or does not define valid claims."""


class LanguageError(UserInputError):
    """Text in lnsym's expression language (docs/language.md) that does not parse or type-check.

    The message is one line that names the column, e.g. ``column 7: expected ")" after the
    arguments of mean, found "," in "mean(z, h"``.

    Attributes:
        column: where the problem is, 1-based (one past the end for a missing token).
        text: the whole text that was parsed.
    """

    def __init__(self, message: str, *, column: int, text: str) -> None:
        super().__init__(message)
        self.column = column
        self.text = text

    def __reduce__(self) -> tuple[Any, ...]:
        # The keyword-only fields survive pickling (e.g. across worker processes).
        return (partial(type(self), column=self.column, text=self.text), self.args)


class UnsupportedError(LnsymError):
    """An engine met a construct it cannot interpret; other engines may still decide."""


class DomainError(LnsymError):
    """An expression left its domain at the point asked for (e.g. division by zero)."""


class CrossCheckError(LnsymError):
    """Two independent computations of the same value disagree (a bug in lnsym)."""


class ExactArithmeticError(LnsymError):
    """SymPy could not carry out exact arithmetic that is needed (a SymPy bug)."""


class BudgetExceeded(LnsymError):
    """A check ran out of its time budget."""


class DerivationFailed(LnsymError):
    """``derive`` could not give a closed form proved equal to what was asked: the expression
    is beyond what it handles (a derivative through a kink, an operator norm, roots nested
    past the engines' limit, ...), or the form it found was not PROVED. The message is one
    line, naming the expression and why; the cause is chained. ``lnsym derive`` prints it
    and exits with code 1."""
