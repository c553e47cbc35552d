"""Error messages of the expression language: one line, with the column and the text.

>>> print(language_error("mean(z", 6, 'expected ")"'))
column 7: expected ")" in "mean(z"
"""

from __future__ import annotations

from lnsym.errors import LanguageError


def language_error(text: str, index: int, reason: str) -> LanguageError:
    """A one-line error at the 0-based ``index`` of ``text``."""
    column = index + 1
    message = f"column {column}: {reason} in {_snippet(text, index)}"
    return LanguageError(message, column=column, text=text)


def _snippet(text: str, index: int, width: int = 60) -> str:
    """``text`` quoted, or a window of it around ``index`` when it is long."""
    if len(text) <= width:
        return quote(text)
    start = max(0, min(index - width // 2, len(text) - width))
    piece = text[start : start + width]
    return quote(("…" if start > 0 else "") + piece + ("…" if start + width < len(text) else ""))


def quote(text: str, limit: int = 60) -> str:
    """``text`` in double quotes on one line: control and separator characters escaped."""
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif not ch.isprintable():
            out.append(repr(ch)[1:-1])
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def one_line(message: str) -> str:
    """``message`` with its line breaks and runs of spaces made single spaces."""
    return " ".join(message.split())
