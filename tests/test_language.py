"""The expression language (docs/language.md): text → the IR that lnsym's constructors build.

Every construct is compared with ``==`` to the expression built directly in Python; errors
are compared by message and column; random text only ever gives an expression or a
LanguageError, with ``eval``, ``exec`` and SymPy's parser replaced by tripwires.
"""

from __future__ import annotations

import ast
import builtins
import pickle
import re
import sys
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import expressions

from lnsym import (
    center,
    core,
    d,
    dot,
    eps,
    grad,
    hadamard,
    ir,
    jvp,
    layer_norm,
    mean,
    norm,
    ones,
    scalar,
    sqrt,
    var,
    vector,
    vjp,
)
from lnsym.errors import LanguageError, UserInputError
from lnsym.ir.calculus import Grad, Jvp, Vjp
from lnsym.ir.layers import Core, LayerNorm
from lnsym.language import MAX_DEPTH, MAX_LENGTH, parse_expression

REPO = Path(__file__).resolve().parents[1]
DOC = (REPO / "docs" / "language.md").read_text(encoding="utf-8")

z, h, k, g, a, b = (vector(n) for n in ("z", "h", "k", "g", "a", "b"))
gamma, beta = vector("gamma"), vector("beta")
s, t, c = scalar("s"), scalar("t"), scalar("c")
p = scalar("p", positive=True)
R = sympy.Rational


def parse(text: str) -> ir.Expr:
    return parse_expression(text, scalars=["s", "t", "c"], positive=["p"])


def const(value: object) -> ir.Expr:
    return ir.as_scalar(value)


# ---------------------------------------------------------------------------------------
# Every construct


CONSTRUCTS = [
    # atoms and names
    ("z", z),
    ("gamma", gamma),
    ("ones", ones),
    ("d", const(d)),
    ("eps", const(eps)),
    ("epsilon", const(eps)),
    ("ε", const(eps)),
    ("ϵ", const(eps)),
    ("γ", gamma),
    ("β", beta),
    ("s", const(s)),
    ("p", const(p)),
    ("z_2", vector("z_2")),
    ("x" * 32, vector("x" * 32)),
    # numbers
    ("3", const(3)),
    ("1/3", const(R(1, 3))),
    # operators
    ("z + h", z + h),
    ("z - h", z - h),
    ("s + t", s + const(t)),
    ("s - t", const(s) - t),
    ("-z", -z),
    ("+z", z),
    ("-s", -const(s)),
    ("2*z", 2 * z),
    ("z*2", z * 2),
    ("s*z", s * z),
    ("z*s", z * s),
    ("z*h", z * h),
    ("z*h", hadamard(z, h)),
    ("s*t", const(s) * t),
    ("z/s", z / s),
    ("z/2", z / 2),
    ("s/t", const(s) / t),
    ("s^2", const(s) ** 2),
    ("s**2", const(s) ** 2),
    ("s^(1/2)", const(s) ** R(1, 2)),
    ("s^0.5", sqrt(s)),
    ("s^-1", const(s) ** -1),
    ("mean(z)^2", mean(z) ** 2),
    ("(var(z) + eps)^(-1/2) * center(z)", (var(z) + eps) ** R(-1, 2) * center(z)),
    ("2^(1+1)", const(4)),
    # functions
    ("mean(z)", mean(z)),
    ("var(z)", var(z)),
    ("center(z)", center(z)),
    ("norm(z)", norm(z)),
    ("core(z)", core(z)),
    ("core(z, eps)", core(z)),
    ("core(z, 0)", core(z, 0)),
    ("core(z, eps/2)", core(z, eps / 2)),
    ("layer_norm(z, gamma, beta)", layer_norm(z, gamma, beta)),
    ("layer_norm(z, γ, β, 1e-5)", layer_norm(z, gamma, beta, R(1, 100000))),
    ("hadamard(a, b)", hadamard(a, b)),
    ("dot(a, b)", dot(a, b)),
    ("sqrt(var(z) + eps)", sqrt(var(z) + eps)),
    ("sqrt(4)", const(2)),
    ("jvp(core(z), z, h)", jvp(core(z), z, h)),
    ("jvp(var(z), z, h)", jvp(var(z), z, h)),
    ("vjp(layer_norm(z, gamma, beta), z, g)", vjp(layer_norm(z, gamma, beta), z, g)),
    ("grad(var(z), z)", grad(var(z), z)),
    ("grad(dot(g, core(z)), z)", grad(dot(g, core(z)), z)),
    # layout
    ("  mean( z )\n\t+ 1 ", mean(z) + 1),
    ("mean(z)+1", mean(z) + 1),
]


@pytest.mark.parametrize(("text", "expected"), CONSTRUCTS, ids=[x for x, _ in CONSTRUCTS])
def test_every_construct_is_the_ir_its_constructor_builds(text: str, expected: ir.Expr):
    assert parse(text) == expected


def test_the_node_types_are_the_constructors_own():
    assert isinstance(parse("jvp(core(z), z, h)"), Jvp)
    assert isinstance(parse("vjp(layer_norm(z, gamma, beta), z, g)"), Vjp)
    assert isinstance(parse("grad(var(z), z)"), Grad)
    assert isinstance(parse("core(z)"), Core) and isinstance(parse("layer_norm(z,a,b)"), LayerNorm)
    assert isinstance(parse("z*h"), ir.Hadamard) and isinstance(parse("2*z"), ir.Scaled)


def test_names_follow_the_rule():
    # A vector unless it is d, eps/epsilon, ones, or declared; positive wins over real.
    assert parse_expression("c") == vector("c")
    assert parse_expression("c", scalars=["c"]) == const(scalar("c"))
    assert parse_expression("c", positive=["c"]) == const(scalar("c", positive=True))
    assert parse_expression("c", scalars=["c"], positive=["c"]) == const(scalar("c", positive=True))
    assert parse_expression("γ", scalars=["gamma"]) == const(scalar("gamma"))
    assert parse_expression("scalars", scalars=iter(["scalars"])) == const(scalar("scalars"))


@pytest.mark.parametrize(
    ("scalars", "message"),
    [
        (["_x"], "invalid scalar name '_x'"),
        (["2x"], "invalid scalar name '2x'"),
        (["x y"], "invalid scalar name 'x y'"),
        (["d"], "the name 'd' is reserved"),
        (["eps"], "the name 'eps' is reserved"),
        (["epsilon"], "the name 'epsilon' is reserved"),
        (["ones"], "the name 'ones' is reserved"),
        (["mean"], "the name 'mean' is reserved"),
        (["x" * 33], "invalid scalar name"),
        ("ab", "give scalar names as a list"),
    ],
)
def test_bad_scalar_declarations_are_user_input_errors(scalars, message):
    with pytest.raises(UserInputError, match=re.escape(message)) as caught:
        parse_expression("z", scalars=scalars)
    assert not isinstance(caught.value, LanguageError)


# ---------------------------------------------------------------------------------------
# Precedence and associativity


PRECEDENCE = [
    ("a + b*h", a + b * h),
    ("(a + b)*h", (a + b) * h),
    ("a - b - h", (a - b) - h),
    ("a - (b - h)", a - (b - h)),
    ("s/t/c", (const(s) / t) / c),
    ("s/(t/c)", const(s) / (const(t) / c)),
    ("s*t/c", (const(s) * t) / c),
    ("a*b*h", (a * b) * h),
    ("2^3^2", const(512)),
    ("(2^3)^2", const(64)),
    ("s^2^3", const(s) ** 8),
    ("-s^2", -(const(s) ** 2)),
    ("-2^2", const(-4)),
    ("(-2)^2", const(4)),
    ("2^-1", const(R(1, 2))),
    ("2^-1^2", const(R(1, 2))),
    ("s*t^2", const(s) * const(t) ** 2),
    ("-s*t", (-const(s)) * t),
    ("- - z", ir.negate(-z)),
    ("-+-z", ir.negate(-z)),
    ("z + -h", z + (-h)),
    ("s^2*z + h", (const(s) ** 2) * z + h),
    ("mean(z) - mean(h) + 1", (mean(z) - mean(h)) + 1),
]


@pytest.mark.parametrize(("text", "expected"), PRECEDENCE, ids=[x for x, _ in PRECEDENCE])
def test_precedence_and_associativity(text: str, expected: ir.Expr):
    assert parse(text) == expected


def test_grouping_changes_the_tree():
    assert parse("a - b - h") != parse("a - (b - h)")
    assert parse("s/t/c") != parse("s/(t/c)")


# ---------------------------------------------------------------------------------------
# Exact numbers


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.5", R(1, 2)),
        ("1e-5", R(1, 100000)),
        ("1E-5", R(1, 100000)),
        ("0.1", R(1, 10)),
        ("2.50", R(5, 2)),
        (".25", R(1, 4)),
        ("5.", sympy.Integer(5)),
        ("1.5e3", sympy.Integer(1500)),
        ("1.5e+3", sympy.Integer(1500)),
        ("1.5e-3", R(3, 2000)),
        ("007", sympy.Integer(7)),
        ("0.000", sympy.Integer(0)),
        ("3.14159", R(314159, 100000)),
        ("1e400", sympy.Integer(10) ** 400),
        ("1e-400", R(1, 10**400)),
        ("123456789012345678901234567890", sympy.Integer(123456789012345678901234567890)),
    ],
)
def test_decimals_are_read_exactly(text: str, value: sympy.Rational):
    parsed = parse(text)
    assert parsed == ir.Const(value)
    assert isinstance(parsed, ir.Const) and isinstance(parsed.value, sympy.Rational)
    assert not parsed.value.atoms(sympy.Float)


def test_a_decimal_inside_an_expression_stays_exact():
    assert parse("0.1*z + 0.2*h") == R(1, 10) * z + R(1, 5) * h
    assert parse("layer_norm(z, gamma, beta, 1e-5)").eps == ir.Const(R(1, 100000))


# ---------------------------------------------------------------------------------------
# Errors: one line, the message and the column


ERRORS = [
    # (text, column, the whole message)
    (
        "mean(z, h",
        7,
        'column 7: expected ")" after the arguments of mean, found "," in "mean(z, h"',
    ),
    (
        "mean(z",
        7,
        'column 7: expected ")" after the arguments of mean, found the end of the input '
        'in "mean(z"',
    ),
    (
        "(z + h",
        7,
        'column 7: expected ")" to close the "(" at column 1, found the end of the input '
        'in "(z + h"',
    ),
    ("z)", 2, 'column 2: found ")" without a matching "(" in "z)"'),
    ("z, h", 2, 'column 2: found "," outside the arguments of a function in "z, h"'),
    (
        "2 z",
        3,
        'column 3: expected an operator or the end of the input, found "z" (a product needs *, '
        'as in 2*z) in "2 z"',
    ),
    (
        "2z",
        1,
        'column 1: malformed number "2z" (numbers look like 3, 0.25 or 1e-5; a product needs *) '
        'in "2z"',
    ),
    ("", 1, 'column 1: expected an expression, found the end of the input in ""'),
    ("z + * h", 5, 'column 5: expected an expression, found "*" in "z + * h"'),
    ("z $ h", 3, 'column 3: unexpected character "$" in "z $ h"'),
    (
        "z + mean(z)",
        3,
        'column 3: cannot add the vector "z" and the scalar "mean(z)" (c*ones is the vector '
        'with every entry c) in "z + mean(z)"',
    ),
    (
        "var(z) - h",
        8,
        'column 8: cannot subtract the vector "h" from the scalar "var(z)" (c*ones is the '
        'vector with every entry c) in "var(z) - h"',
    ),
    (
        "z^2",
        2,
        'column 2: cannot raise the vector "z" to a power (only scalars have powers; a*a is the '
        'coordinatewise square of a vector a) in "z^2"',
    ),
    (
        "s^z",
        3,
        'column 3: the exponent must be a number such as 2, -1 or 1/2, found "z" in "s^z"',
    ),
    (
        "s^t",
        3,
        'column 3: the exponent must be a number such as 2, -1 or 1/2, found "t" in "s^t"',
    ),
    ("1 / z", 3, 'column 3: cannot divide by the vector "z" (only by a scalar) in "1 / z"'),
    ("z / (1 - 1)", 3, 'column 3: division by zero in "z / (1 - 1)"'),
    ("0^-1", 2, 'column 2: division by zero (0 to a negative power) in "0^-1"'),
    (
        "jvp(core(z), 2*z, h)",
        14,
        "column 14: the argument wrt of jvp must be the name of a vector (such as z), found the "
        'vector "2*z" in "jvp(core(z), 2*z, h)"',
    ),
    (
        "grad(var(z), s)",
        14,
        "column 14: the argument wrt of grad must be the name of a vector (such as z), found the "
        'scalar "s" in "grad(var(z), s)"',
    ),
    (
        "grad(z, z)",
        6,
        'column 6: the argument f of grad must be a scalar, found the vector "z" (for a vector '
        'use jvp or vjp) in "grad(z, z)"',
    ),
    (
        "mean(var(z))",
        6,
        'column 6: the argument v of mean must be a vector, found the scalar "var(z)" in '
        '"mean(var(z))"',
    ),
    (
        "core(z, h)",
        9,
        'column 9: the argument e of core must be a scalar, found the vector "h" in "core(z, h)"',
    ),
    (
        "layer_norm(z, gamma)",
        20,
        "column 20: too few arguments: layer_norm(v, gamma, beta[, e]) takes 3 or 4, found 2 in "
        '"layer_norm(z, gamma)"',
    ),
    ("mean()", 6, 'column 6: too few arguments: mean(v) takes 1, found 0 in "mean()"'),
    (
        "dot(a, b, h)",
        9,
        'column 9: expected ")" after the arguments of dot, found "," in "dot(a, b, h)"',
    ),
    (
        "core(z h)",
        8,
        'column 8: expected "," or ")" after argument 1 of core, found "h" in "core(z h)"',
    ),
    ("core(z,)", 8, 'column 8: expected an expression, found ")" in "core(z,)"'),
    (
        "foo(z)",
        1,
        'column 1: unknown function "foo" (the functions are mean, var, center, norm, core, '
        'layer_norm, hadamard, dot, sqrt, jvp, vjp, grad, diff) in "foo(z)"',
    ),
    ("ones(3)", 1, 'column 1: ones is the ones vector, not a function in "ones(3)"'),
    ("2*d(z)", 3, 'column 3: d is a constant, not a function in "2*d(z)"'),
    ("mean + z", 1, 'column 1: mean is a function: write mean(v) in "mean + z"'),
    (
        "jvp(core(z), core, h)",
        14,
        'column 14: core is a function: write core(v[, e]) in "jvp(core(z), core, h)"',
    ),
    (
        "_x + z",
        1,
        'column 1: names starting with "_" are reserved for lnsym ("_x") in "_x + z"',
    ),
    (
        "z + " + "y" * 33,
        5,
        f'column 5: the name "{"y" * 33}" is too long (at most 32 characters) in "z + {"y" * 33}"',
    ),
    (
        "1e401",
        1,
        'column 1: the exponent of "1e401" is out of range (at most ±400) in "1e401"',
    ),
    (
        "2^1001",
        3,
        'column 3: the exponent "1001" is too large (numerator and denominator at most 1000) '
        'in "2^1001"',
    ),
    (
        "(10^400)^300",
        9,
        'column 9: the power is too large a number (more than 100000 bits) in "(10^400)^300"',
    ),
    (
        "sqrt(-1)",
        1,
        "column 1: the constant I is not real (SymPy takes principal complex roots; the IR is "
        'real) in "sqrt(-1)"',
    ),
    (
        "z\n+ mean(z)",
        3,
        'column 3: cannot add the vector "z" and the scalar "mean(z)" (c*ones is the vector '
        'with every entry c) in "z\\n+ mean(z)"',
    ),
]


@pytest.mark.parametrize(("text", "column", "message"), ERRORS, ids=[e[0][:30] for e in ERRORS])
def test_errors_name_the_column(text: str, column: int, message: str):
    with pytest.raises(LanguageError) as caught:
        parse(text)
    error = caught.value
    assert str(error) == message
    assert error.column == column and error.text == text
    assert isinstance(error, UserInputError)  # the CLI prints one line and exits 2


def test_too_long_and_too_deep_texts_are_refused_cleanly():
    with pytest.raises(LanguageError, match=r"^column 2001: the text is too long \(2001 "):
        parse("z" * (MAX_LENGTH + 1))
    deep = "(" * MAX_DEPTH + "z" + ")" * MAX_DEPTH
    assert parse(deep) == z
    with pytest.raises(LanguageError) as caught:
        parse("(" + deep + ")")
    assert caught.value.column == MAX_DEPTH + 1
    assert "nests too deeply (more than 100 levels of parentheses" in str(caught.value)
    # Calls and exponents count as nesting too, and none of it recurses out of the stack.
    for text in ("core(" * 300 + "z" + ")" * 300, "2^" * 900 + "2", "-(" * 600 + "z" + ")" * 600):
        with pytest.raises(LanguageError, match="nests too deeply"):
            parse(text)
    # A flat text can still build a deep tree: z*z*…*z nests one Hadamard per factor.
    assert parse("*".join(["z"] * MAX_DEPTH))  # a tree of height 100 (99 products + leaf)
    with pytest.raises(LanguageError, match="its tree has more than 100 levels") as caught:
        parse("*".join(["z"] * (MAX_DEPTH + 1)))
    assert caught.value.column == 2 * MAX_DEPTH  # the last "*"
    many_signs = "-" * 1500 + "z"  # a flat chain of signs is fine: -(-(…z))
    assert parse(many_signs) == z.__neg__().__neg__()


def test_a_long_text_is_quoted_around_the_column_on_one_line():
    text = "z + " * 100 + "mean(z)"
    with pytest.raises(LanguageError) as caught:
        parse(text)
    message = str(caught.value)
    assert message.startswith(f"column {len(text) - 8}: cannot add the vector")
    assert "\n" not in message and len(message) < 300 and "…" in message


def test_the_error_pickles_with_its_column():
    with pytest.raises(LanguageError) as caught:
        parse("mean(z, h")
    copy = pickle.loads(pickle.dumps(caught.value))
    assert (str(copy), copy.column, copy.text) == (str(caught.value), 7, "mean(z, h")


# ---------------------------------------------------------------------------------------
# The documentation


def _doc_examples() -> list[str]:
    section = DOC.split("## Examples", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [re.match(r"\| `([^`]*)`", row).group(1) for row in rows]  # type: ignore[union-attr]


DOC_EXAMPLES = {
    "jvp(core(z), z, h)": jvp(core(z), z, h),
    "vjp(layer_norm(z, gamma, beta), z, g)": vjp(layer_norm(z, gamma, beta), z, g),
    "grad(var(z), z)": grad(var(z), z),
    "jvp(jvp(core(z), z, h), z, k)": jvp(jvp(core(z), z, h), z, k),
    "core(hadamard(gamma, z) + beta)": core(hadamard(gamma, z) + beta),
    "layer_norm(layer_norm(z, gamma, beta), gamma, beta)": layer_norm(
        layer_norm(z, gamma, beta), gamma, beta
    ),
    "(center(h) - core(z)*dot(core(z), h)/d) / sqrt(var(z) + eps)": (
        (center(h) - core(z) * dot(core(z), h) / d) / sqrt(var(z) + eps)
    ),
    "core(z, 0)": core(z, 0),
    "layer_norm(z, γ, β, 1e-5)": layer_norm(z, gamma, beta, R(1, 100000)),
    "z / s + 0.5*ones": z / s + R(1, 2) * ones,
    "(var(z) + ε)^(-1/2) * center(z)": (var(z) + eps) ** R(-1, 2) * center(z),
}


def test_the_documented_examples_parse_to_the_documented_python():
    assert _doc_examples() == list(DOC_EXAMPLES)
    for text, expected in DOC_EXAMPLES.items():
        assert parse(text) == expected, text


def test_the_documented_errors_are_the_real_ones():
    block = DOC.split("## Errors", 1)[1].split("```", 2)[1]
    lines = [line for line in block.splitlines() if line.startswith("column ")]
    assert len(lines) == 4
    for line in lines:
        text = line.rsplit(' in "', 1)[1][:-1]
        with pytest.raises(LanguageError) as caught:
            parse(text)
        assert str(caught.value) == line


def test_the_docstring_example_of_the_error_class():
    with pytest.raises(LanguageError) as caught:
        parse_expression("mean(z, h")
    assert str(caught.value) == (
        'column 7: expected ")" after the arguments of mean, found "," in "mean(z, h"'
    )


# ---------------------------------------------------------------------------------------
# Round trip: IR → text of the language → the same IR
#
# lnsym's own text printer writes ⟨a, b⟩, a ⊙ b, D_z[f](h) and LN(z; γ, β), which are not
# in the language, so this writes the language itself, one node at a time, with parentheses.


def _written(e: ir.Expr) -> str:
    match e:
        case ir.VectorAtom(name=name):
            return name
        case ir.Ones():
            return "ones"
        case ir.Const(value=value):
            return f"({value})"  # SymPy's str: 2*c, -1/3, epsilon, c**2, sqrt(2)
        case ir.VectorSum(terms=terms) | ir.ScalarSum(terms=terms):
            return " + ".join(f"({_written(x)})" for x in terms)
        case ir.ScalarProduct(factors=factors):
            return "*".join(f"({_written(x)})" for x in factors)
        case ir.Scaled(coefficient=coefficient, vector=vec):
            return f"({_written(coefficient)})*({_written(vec)})"
        case ir.Hadamard(left=left, right=right):
            return f"hadamard({_written(left)}, {_written(right)})"
        case ir.Dot(left=left, right=right):
            return f"dot({_written(left)}, {_written(right)})"
        case ir.Power(base=base, exponent=exponent):
            return f"({_written(base)})^({exponent})"
        case Core(arg=arg, eps=stabilizer):
            return f"core({_written(arg)}, {_written(stabilizer)})"
        case LayerNorm(arg=arg, gain=gain, bias=bias, eps=stabilizer):
            parts = (arg, gain, bias, stabilizer)
            return f"layer_norm({', '.join(_written(x) for x in parts)})"
        case ir.Mean() | ir.Var() | ir.Center() | ir.Norm():
            return f"{e.symbol}({_written(e.arg)})"
        case Jvp(expr=f, wrt=wrt, direction=direction):
            return f"jvp({_written(f)}, {wrt.name}, {_written(direction)})"
        case Vjp(expr=f, wrt=wrt, cotangent=cotangent):
            return f"vjp({_written(f)}, {wrt.name}, {_written(cotangent)})"
        case Grad(expr=f, wrt=wrt):
            return f"grad({_written(f)}, {wrt.name})"
    raise AssertionError(f"no text for {type(e).__name__}")


@settings(max_examples=150, deadline=None)
@given(expressions, st.sampled_from(["jvp", "vjp", "grad", "none"]))
def test_written_ir_reads_back_as_the_same_ir(expr: ir.Expr, wrap: str):
    if wrap == "jvp":
        expr = jvp(expr, vector("z"), vector("h"))
    elif wrap == "vjp" and expr.kind == "vector":
        expr = vjp(expr, vector("z"), vector("a"))
    elif wrap == "grad" and expr.kind == "scalar":
        expr = grad(expr, vector("z"))
    assert parse_expression(_written(expr), scalars=["c"]) == expr


# ---------------------------------------------------------------------------------------
# Random text: an expression or a LanguageError, never anything else, never code


class _Tripwire(Exception):
    pass


def _tripwire(*args: object, **kwargs: object) -> object:
    raise _Tripwire(f"called with {args!r}")


def _text_tripwire(original):
    """``original`` (eval, exec, compile) that trips on source text but still runs code
    objects: Python's import machinery execs compiled modules (SymPy imports lazily)."""

    def guarded(source: object, *args: object, **kwargs: object) -> object:
        if isinstance(source, str | bytes):
            raise _Tripwire(f"{original.__name__} called on {source!r}")
        return original(source, *args, **kwargs)

    return guarded


def _parse_with_tripwires(text: str) -> ir.Expr | LanguageError:
    """parse_expression with eval, exec, compile (of text) and SymPy's string parser disarmed."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("eval", "exec", "compile"):
            patch.setattr(builtins, name, _text_tripwire(getattr(builtins, name)))
        patch.setattr("sympy.parsing.sympy_parser.parse_expr", _tripwire)
        try:
            return parse_expression(text, scalars=["s"], positive=["p"])
        except LanguageError as error:
            return error


def _check_outcome(text: str) -> None:
    outcome = _parse_with_tripwires(text)  # anything but LanguageError propagates and fails
    if isinstance(outcome, LanguageError):
        message = str(outcome)
        assert message.startswith(f"column {outcome.column}: ")
        assert 1 <= outcome.column <= len(text) + 1
        assert outcome.text == text
        assert len(message.splitlines()) == 1 and message.isprintable()
    else:
        assert isinstance(outcome, ir.Expr) and outcome.kind in ("vector", "scalar")


def test_the_tripwires_are_armed():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("sympy.parsing.sympy_parser.parse_expr", _tripwire)
        with pytest.raises(_Tripwire):
            getattr(sympy, "sympify")("x + 1")  # noqa: B009 - the banned name, on purpose
        patch.setattr(builtins, "exec", _text_tripwire(builtins.exec))
        with pytest.raises(_Tripwire):
            exec("x = 1", {})
        namespace: dict[str, object] = {}
        exec(compile("x = 1", "probe", "exec"), namespace)  # code objects still run
        assert namespace["x"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('x')",
        '__import__("os").system("x")',
        "().__class__.__bases__[0].__subclasses__()",
        "exec('import os')",
        "eval('1')",
        "open('/etc/passwd').read()",
        "lambda: 0",
        "import os",
        "z.__class__",
        "S('x')",
        "sympify('x')",
        "Symbol('x')",
        "z; print(1)",
        "z if z else h",
        "[z, h]",
        "{z}",
        "z @ h",
        "z % 2",
        "z // 2",
        "z == h",
        "mean(z)\x00",
        "f'{z}'",
    ],
)
def test_code_is_refused_not_run(text: str):
    outcome = _parse_with_tripwires(text)
    assert isinstance(outcome, LanguageError), text


def _evaluator_calls(source: str) -> list[str]:
    """The calls of an evaluator and the imports of a parser in ``source``."""
    banned_names = {"eval", "exec", "compile", "__import__", "getattr", "globals", "locals"}
    banned_anywhere = {"sympify", "parse_expr", "S", "literal_eval", "eval", "exec"}
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in banned_names | banned_anywhere:
                found.append(node.func.id)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in banned_anywhere:
                found.append(node.func.attr)
        if isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            modules += [alias.name for alias in node.names]
            found += [m for m in modules if m.startswith(("sympy.parsing", "ast"))]
            found += sorted({"sympify", "parse_expr", "S", "literal_eval"} & set(modules))
    return found


def test_the_package_calls_no_evaluator():
    # Every module of lnsym/language/, the parser's own module among them.
    sources = sorted((REPO / "lnsym" / "language").glob("*.py"))
    parser_file = Path(sys.modules[parse_expression.__module__].__file__ or "")
    assert parser_file in sources and len(sources) > 1, sources
    for path in sources:
        found = _evaluator_calls(path.read_text(encoding="utf-8"))
        assert not found, f"{path.name}: {found}"


@pytest.mark.parametrize(
    "line",
    [
        "eval(text)",
        "exec(text)",
        "sympy.sympify(text)",
        "builtins.eval(text)",
        "from sympy.parsing.sympy_parser import parse_expr",
        "from sympy import sympify",
        "import ast",
    ],
)
def test_the_evaluator_scan_finds_an_evaluator(line: str):
    # The scan itself can fail: an evaluator added to any module is caught.
    assert _evaluator_calls(f"def f(text):\n    {line}\n")


_WORDS = [
    "z", "h", "gamma", "beta", "ε", "γ", "β", "d", "eps", "epsilon", "ones", "s", "p", "foo",
    "mean", "var", "center", "norm", "core", "layer_norm", "hadamard", "dot", "sqrt", "jvp",
    "vjp", "grad",
]  # fmt: skip
_NUMBERS = ["0", "2", "0.5", ".5", "5.", "1e-5", "1/3", "1000", "1001", "1e400", "9" * 100]
_PUNCTUATION = ["+", "-", "*", "/", "^", "**", "(", ")", ",", "(", ")", ","]
_JUNK = [
    "_x", "__import__", "1e999", "9" * 120, "1.2.3", "2z", "'", '"', ".", "$", "@", "[", "]",
    "=", ";", ":", "\\", "\n", "\x00", "٣", "µ", "\u2028", "os.system",
]  # fmt: skip
_SEPARATORS = st.sampled_from(["", "", " ", "\t"])
# Mostly tokens of the language (so the parser and the type checks run), some junk.
_TOKEN = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(_NUMBERS),
    st.sampled_from(_PUNCTUATION),
    st.sampled_from(_PUNCTUATION),
    st.sampled_from(_JUNK),
)
token_soup = st.lists(st.tuples(_TOKEN, _SEPARATORS), max_size=40).map(
    lambda pairs: "".join(tok + sep for tok, sep in pairs)
)


def _grown(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    call = st.tuples(st.sampled_from(_WORDS), st.lists(inner, max_size=4)).map(
        lambda pair: f"{pair[0]}({', '.join(pair[1])})"
    )
    binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "^", "**"]), inner).map(
        lambda parts: f"{parts[0]} {parts[1]} {parts[2]}"
    )
    return st.one_of(call, binary, inner.map(lambda x: f"({x})"), inner.map(lambda x: "-" + x))


# Well-formed text with random names, functions, arities and types: it type-checks or not.
grammatical = st.recursive(st.sampled_from(_WORDS + _NUMBERS), _grown, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_random_text_gives_an_expression_or_a_language_error(text: str):
    _check_outcome(text)


@settings(max_examples=300, deadline=None)
@given(token_soup)
def test_random_tokens_give_an_expression_or_a_language_error(text: str):
    _check_outcome(text)


@settings(max_examples=300, deadline=None)
@given(grammatical)
def test_random_grammatical_text_gives_an_expression_or_a_language_error(text: str):
    _check_outcome(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["(", "-", "core(", "2^", "s*", "z*", "mean("]), max_size=300))
def test_deep_random_prefixes_never_overflow_the_stack(prefix: list[str]):
    text = "".join(prefix) + "z" + ")" * sum(p.count("(") for p in prefix)
    _check_outcome(text[:MAX_LENGTH])


def test_derivatives_with_respect_to_scalars():
    from lnsym import diff, layer_norm, ones

    a = scalar("a")
    assert parse_expression("diff(core(z), eps)") == diff(core(z), eps)
    assert parse_expression("diff(layer_norm(z, a*ones, beta), a)", scalars=["a"]) == diff(
        layer_norm(z, a * ones, vector("beta")), a
    )
    for bad, column in (("diff(core(z), z)", 15), ("diff(core(z), 2*eps)", 15)):
        with pytest.raises(LanguageError, match="must be the name of a scalar") as error:
            parse_expression(bad)
        assert error.value.column == column
