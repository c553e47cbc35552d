"""The parser of the expression language: recursive descent over the tokens, type checks
and error messages with the column.

One method per precedence level (sum → product → unary → power → primary); every node is
built by lnsym's own constructors (:func:`~lnsym.ir.nodes.vector`, the functions of
:data:`~lnsym.language.functions.FUNCTIONS`, the operators of :class:`~lnsym.ir.nodes.Expr`,
…), and each one's type error becomes a LanguageError at the column of the operator or call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

import sympy

from lnsym.errors import ExpressionError, LanguageError, UserInputError
from lnsym.ir.names import d, eps, scalar
from lnsym.ir.nodes import (
    Const,
    Expr,
    ScalarProduct,
    ScalarSum,
    VectorAtom,
    negate,
    ones,
    vector,
)
from lnsym.language.functions import ATOM, CONSTANTS, FUNCTIONS, SCALAR, SYMBOL, VECTOR
from lnsym.language.messages import language_error, one_line, quote
from lnsym.language.tokens import (
    MAX_BITS,
    MAX_DEPTH,
    MAX_EXPONENT,
    MAX_LENGTH,
    NAME,
    Token,
    tokenize,
)


def parse_expression(
    text: str, *, scalars: Iterable[str] = (), positive: Iterable[str] = ()
) -> Expr:
    """The IR expression that ``text`` writes in lnsym's expression language.

    Args:
        text: e.g. ``"jvp(core(z), z, h)"`` (docs/language.md has the grammar).
        scalars: names that stand for real scalars (``lnsym.scalar(name)``); a list or other
            iterable of names, not one string.
        positive: names that stand for positive scalars (``lnsym.scalar(name,
            positive=True)``); a name in both lists is positive.

    Every other name is a vector (``lnsym.vector(name)``), except ``d``, ``eps``/``epsilon``
    and ``ones``.

    Raises:
        LanguageError: for text that does not parse or does not type-check, with the column.
        UserInputError: for a declared scalar whose name is invalid or reserved, or a
            ``text`` that is not a string.
    """
    names = _declared(scalars, positive)
    if not isinstance(text, str):
        raise UserInputError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise language_error(
            text, MAX_LENGTH, f"the text is too long ({len(text)} characters; at most {MAX_LENGTH})"
        )
    parser = _Parser(text, tokenize(text), names)
    try:
        return parser.parse()
    except RecursionError:  # pragma: no cover - the limits above are meant to prevent it
        raise language_error(text, 0, "the expression nests too deeply") from None


def _declared(scalars: Iterable[str], positive: Iterable[str]) -> dict[str, Expr]:
    """The declared scalar names and their constants (positive wins over real)."""
    names: dict[str, Expr] = {}
    for group, is_positive in ((scalars, False), (positive, True)):
        if isinstance(group, str):
            raise UserInputError(f"give scalar names as a list, not the string {group!r}")
        for name in group:
            if not isinstance(name, str) or not NAME.fullmatch(name) or name.startswith("_"):
                raise UserInputError(
                    f"invalid scalar name {name!r}: use an ASCII letter followed by letters, "
                    "digits or _"
                )
            if name in CONSTANTS or name in FUNCTIONS:
                raise UserInputError(f"the name {name!r} is reserved and cannot be a scalar")
            try:
                names[name] = Const(scalar(name, positive=is_positive))
            except ExpressionError as exc:
                raise UserInputError(f"invalid scalar name {name!r}: {exc}") from None
    return names


def _found(token: Token) -> str:
    return "the end of the input" if token.kind == "end" else quote(token.text)


def _constant(expr: Expr) -> sympy.Expr | None:
    """The value of a constant, or of a sum or product of constants (``1+1``), else None.

    The IR keeps ``1 + 1`` as a sum of two constants; an exponent needs the number. Powers
    are not folded (a constant to a power is already a constant), so no value grows large.
    """
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, ScalarSum | ScalarProduct):
        parts = expr.terms if isinstance(expr, ScalarSum) else expr.factors
        values = [_constant(part) for part in parts]
        if any(v is None for v in values):
            return None
        return sympy.Add(*values) if isinstance(expr, ScalarSum) else sympy.Mul(*values)
    return None


@dataclass(frozen=True, slots=True)
class _Parsed:
    """An IR expression and the span ``text[start:end]`` it was read from."""

    expr: Expr
    start: int
    end: int


class _Parser:
    """Recursive descent over the tokens: sum → product → unary → power → primary."""

    def __init__(self, text: str, tokens: list[Token], names: dict[str, Expr]) -> None:
        self.text = text
        self.tokens = tokens
        self.names = names
        self.position = 0
        self.nesting = 0
        # IR depth of every node built so far, by id (the node is kept alive beside it).
        self.depths: dict[int, tuple[Expr, int]] = {}

    # -- helpers --------------------------------------------------------------------
    def peek(self) -> Token:
        return self.tokens[self.position]

    def advance(self) -> Token:
        token = self.tokens[self.position]
        if token.kind != "end":
            self.position += 1
        return token

    def at(self, *ops: str) -> bool:
        token = self.peek()
        return token.kind == "op" and token.text in ops

    def error(self, index: int, reason: str) -> LanguageError:
        return language_error(self.text, index, reason)

    def source(self, node: _Parsed) -> str:
        return quote(self.text[node.start : node.end].strip(), limit=40)

    @contextmanager
    def nested(self, token: Token) -> Iterator[None]:
        """One level deeper (parentheses, a call, an exponent), refused beyond MAX_DEPTH."""
        self.nesting += 1
        try:
            if self.nesting > MAX_DEPTH:
                raise self.error(
                    token.start,
                    f"the expression nests too deeply (more than {MAX_DEPTH} levels of "
                    "parentheses, calls and powers)",
                )
            yield
        finally:
            self.nesting -= 1

    def built(self, build: Callable[[], Expr], index: int, start: int, end: int) -> _Parsed:
        """Run an IR constructor; its type errors and a too-deep result get ``index``."""
        try:
            expr = build()
        except ExpressionError as exc:
            raise self.error(index, one_line(str(exc))) from None
        if self.depth(expr) > MAX_DEPTH:
            raise self.error(
                index,
                f"the expression nests too deeply (its tree has more than {MAX_DEPTH} levels)",
            )
        return _Parsed(expr, start, end)

    def depth(self, root: Expr) -> int:
        """The height of the IR tree ``root``, without recursion (memoized by node)."""
        depths = self.depths
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if id(node) in depths:
                continue
            children = node.children()
            if ready:
                below = max((depths[id(c)][1] for c in children), default=0)
                depths[id(node)] = (node, below + 1)
            else:
                stack.append((node, True))
                stack.extend((c, False) for c in children if id(c) not in depths)
        return depths[id(root)][1]

    # -- grammar --------------------------------------------------------------------
    def parse(self) -> Expr:
        node = self.sum()
        token = self.peek()
        if token.kind != "end":
            if token.kind == "op" and token.text == ")":
                raise self.error(token.start, 'found ")" without a matching "("')
            if token.kind == "op" and token.text == ",":
                raise self.error(token.start, 'found "," outside the arguments of a function')
            hint = (
                " (a product needs *, as in 2*z)" if token.kind != "op" or token.text == "(" else ""
            )
            raise self.error(
                token.start,
                f"expected an operator or the end of the input, found {_found(token)}{hint}",
            )
        return node.expr

    def sum(self) -> _Parsed:
        left = self.product()
        while self.at("+", "-"):
            op = self.advance()
            right = self.product()
            left = self.binary(op, left, right)
        return left

    def product(self) -> _Parsed:
        left = self.unary()
        while self.at("*", "/"):
            op = self.advance()
            right = self.unary()
            left = self.binary(op, left, right)
        return left

    def unary(self) -> _Parsed:
        signs: list[Token] = []
        while self.at("+", "-"):
            signs.append(self.advance())
        node = self.power()
        for sign in reversed(signs):
            if sign.text == "-":
                node = self.built(partial(negate, node.expr), sign.start, sign.start, node.end)
            else:
                node = _Parsed(node.expr, sign.start, node.end)
        return node

    def power(self) -> _Parsed:
        base = self.primary()
        if not self.at("^", "**"):
            return base
        op = self.advance()
        with self.nested(op):
            exponent = self.unary()  # right-associative, and 2^-1 is allowed
        if base.expr.kind != "scalar":
            raise self.error(
                op.start,
                f"cannot raise the vector {self.source(base)} to a power (only scalars have "
                "powers; a*a is the coordinatewise square of a vector a)",
            )
        value = _constant(exponent.expr)
        if not isinstance(value, sympy.Rational):
            raise self.error(
                exponent.start,
                "the exponent must be a number such as 2, -1 or 1/2, found "
                + self.source(exponent),
            )
        if abs(value.p) > MAX_EXPONENT or value.q > MAX_EXPONENT:
            raise self.error(
                exponent.start,
                f"the exponent {self.source(exponent)} is too large (numerator and denominator "
                f"at most {MAX_EXPONENT})",
            )
        if value < 0 and _constant(base.expr) == 0:
            raise self.error(op.start, "division by zero (0 to a negative power)")
        if isinstance(base.expr, Const):
            numbers = base.expr.value.atoms(sympy.Rational)
            bits = max((max(abs(r.p).bit_length(), r.q.bit_length()) for r in numbers), default=1)
            if bits * abs(value.p) > MAX_BITS:
                raise self.error(
                    op.start, f"the power is too large a number (more than {MAX_BITS} bits)"
                )
        b = base.expr
        return self.built(lambda: b**value, op.start, base.start, exponent.end)

    def primary(self) -> _Parsed:
        token = self.advance()
        if token.kind == "number":
            value = token.value
            return self.built(
                lambda: Const(value), token.start, token.start, token.start + len(token.text)
            )
        if token.kind == "name":
            if self.at("("):
                return self.call(token)
            return self.name(token)
        if token.kind == "op" and token.text == "(":
            with self.nested(token):
                inner = self.sum()
            closing = self.peek()
            if not self.at(")"):
                raise self.error(
                    closing.start,
                    f'expected ")" to close the "(" at column {token.start + 1}, found '
                    f"{_found(closing)}",
                )
            self.advance()
            return _Parsed(inner.expr, token.start, closing.start + 1)
        raise self.error(token.start, f"expected an expression, found {_found(token)}")

    def name(self, token: Token) -> _Parsed:
        name = token.value
        end = token.start + len(token.text)
        if name in FUNCTIONS:
            raise self.error(
                token.start, f"{name} is a function: write {FUNCTIONS[name].signature(name)}"
            )
        if name == "ones":
            expr: Expr = ones
        elif name == "d":
            expr = Const(d)
        elif name in ("eps", "epsilon"):
            expr = Const(eps)
        elif name in self.names:
            expr = self.names[name]
        else:
            return self.built(lambda: vector(name), token.start, token.start, end)
        return _Parsed(expr, token.start, end)

    def call(self, token: Token) -> _Parsed:
        name = token.value
        function = FUNCTIONS.get(name)
        if function is None:
            if name in CONSTANTS:
                what = "the ones vector" if name == "ones" else "a constant"
                raise self.error(token.start, f"{token.text} is {what}, not a function")
            known = ", ".join(FUNCTIONS)
            raise self.error(
                token.start, f"unknown function {quote(token.text)} (the functions are {known})"
            )
        opening = self.advance()
        most = len(function.params)
        args: list[_Parsed] = []
        with self.nested(opening):
            if not self.at(")"):
                while True:
                    args.append(self.sum())
                    if len(args) == most or not self.at(","):
                        break
                    self.advance()
        closing = self.peek()
        if not self.at(")"):
            if len(args) == most:
                expected = f'expected ")" after the arguments of {name}'
            else:
                expected = f'expected "," or ")" after argument {len(args)} of {name}'
            raise self.error(closing.start, f"{expected}, found {_found(closing)}")
        self.advance()
        if len(args) < function.required:
            count = str(function.required)
            if most > function.required:
                count = (
                    f"{function.required} or {most}"
                    if most == function.required + 1
                    else (f"{function.required} to {most}")
                )
            raise self.error(
                closing.start,
                f"too few arguments: {function.signature(name)} takes {count}, found {len(args)}",
            )
        for (label, kind), arg in zip(function.params, args, strict=False):
            self.check_argument(name, label, kind, arg)
        values = [a.expr for a in args]
        return self.built(
            lambda: function.build(*values), token.start, token.start, closing.start + 1
        )

    def check_argument(self, name: str, label: str, kind: str, arg: _Parsed) -> None:
        have = arg.expr.kind
        if kind == ATOM and not isinstance(arg.expr, VectorAtom):
            raise self.error(
                arg.start,
                f"the argument {label} of {name} must be the name of a vector (such as z), "
                f"found the {have} {self.source(arg)}",
            )
        if kind == SYMBOL and not (
            isinstance(arg.expr, Const) and isinstance(arg.expr.value, sympy.Symbol)
        ):
            raise self.error(
                arg.start,
                f"the argument {label} of {name} must be the name of a scalar (eps, or one "
                f"declared with --scalar), found the {have} {self.source(arg)}",
            )
        if kind in (VECTOR, SCALAR) and have != kind:
            hint = ""
            if name == "grad":
                hint = " (for a vector use jvp or vjp)"
            elif name == "vjp":
                hint = " (for a scalar use grad)"
            raise self.error(
                arg.start,
                f"the argument {label} of {name} must be a {kind}, found the {have} "
                f"{self.source(arg)}{hint}",
            )

    def binary(self, op: Token, left: _Parsed, right: _Parsed) -> _Parsed:
        a, b = left.expr, right.expr
        if op.text in "+-" and a.kind != b.kind:
            verb = (
                f"add the {a.kind} {self.source(left)} and the {b.kind} {self.source(right)}"
                if op.text == "+"
                else f"subtract the {b.kind} {self.source(right)} from the {a.kind} "
                f"{self.source(left)}"
            )
            raise self.error(op.start, f"cannot {verb} (c*ones is the vector with every entry c)")
        if op.text == "/" and _constant(b) == 0:
            raise self.error(op.start, "division by zero")
        if op.text == "/" and b.kind == "vector":
            raise self.error(
                op.start, f"cannot divide by the vector {self.source(right)} (only by a scalar)"
            )
        build: Callable[[], Expr] = {
            "+": lambda: a + b,
            "-": lambda: a - b,
            "*": lambda: a * b,
            "/": lambda: a / b,
        }[op.text]
        return self.built(build, op.start, left.start, right.end)
