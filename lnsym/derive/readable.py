"""Named normal forms back to IR, in the vocabulary a person writes.

A form over named atoms (:mod:`lnsym.derive.named`) is read back as an IR expression:

- a named core is 𝐮 = u_ε(a), its root s = √(q(a) + ε);
- a power sum of two atoms is an inner product ⟨a, b⟩, of one or of three and more a mean
  times d (so S[h]/d reads mean(h) and S[γ·g·𝐮]/d reads mean(γ⊙g⊙𝐮));
- a centered atom P·a (see :func:`center_atoms`) is P a, and ⟨𝐮, Pa⟩ reads ⟨𝐮, a⟩, since 𝐮 ⊥ 𝟏;
- scalar coefficients are written in the smallest of a few equivalent SymPy shapes.

:func:`pull_centering` rewrites c·m − c·mean(m)·𝟏 as c·P m, and :func:`read` pulls the
common factor of all coefficients out in front. :func:`size` is the measure by which the
candidates are compared: the number of nodes of the IR tree.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

import sympy

from lnsym import ir
from lnsym.derive.named import Layer, NamedRoot
from lnsym.engines.general import VectorForm, power_sum
from lnsym.engines.general.substitution import AtomSubstitution, Hypotheses
from lnsym.engines.general.symbols import Monomial, PowerSum, Root, monomial_of
from lnsym.engines.general.vector_form import Form
from lnsym.errors import UnsupportedError

ONE: Monomial = ()
#: Atoms written first in a product, as the notation ĝ = γ ⊙ g does.
_PARAMETERS = ("gamma", "beta")
_CENTERED_PREFIX = "_P_"


def size(e: ir.Expr) -> int:
    """The size of an expression: how many nodes its tree has."""
    return len(ir.walk(e))


# ---------------------------------------------------------------------------------------
# Rewrites of forms


def center_atoms(f: Form, atoms: Iterable[str]) -> Form:
    """Write each atom a as P·a + mean(a)𝟏, with P·a a new atom whose coordinates sum to 0.

    Where f depends on a only through P a (as every derivative of a core does on its
    direction), the means cancel and the result is written in P a alone.
    """
    for a in atoms:
        name = _CENTERED_PREFIX + a
        mean = VectorForm.monomial(ONE).scale(power_sum((a,)) / ir.d)
        f = AtomSubstitution(a, VectorForm.atom(name) + mean).form(f)
        f = Hypotheses([ir.Centered(ir.VectorAtom(name))]).form(f)  # S[P·a] = 0
    return f


def inputs_by_cores(f: Form, layers: Iterable[Layer]) -> Form:
    """Write the input a of each core as a = mean(a)𝟏 + s·𝐮 (so Pa = s𝐮), where a is an atom."""
    for layer in layers:
        if len(layer.arg.terms) == 1 and layer.arg.terms[0][1] == 1:
            ((m, _),) = layer.arg.terms
            if len(m) == 1:
                value = VectorForm.atom(layer.atom).scale(layer.root)
                value = value + VectorForm.monomial(ONE).scale(power_sum(m) / ir.d)
                f = AtomSubstitution(m[0], value).form(f)
    return f


def pull_centering(v: VectorForm) -> VectorForm:
    """c·m + … − c·(S[m]/d)·𝟏 → c·P m wherever that makes the 𝟏 coefficient smaller."""
    terms = dict(v.terms)
    ones = terms.pop(ONE, sympy.Integer(0))
    out: dict[Monomial, sympy.Expr] = {}
    for m, c in sorted(terms.items()):
        if len(m) == 1 and m[0].startswith(_CENTERED_PREFIX):
            out[m] = c  # already centered
            continue
        rest = sympy.expand(ones + c * power_sum(m) / ir.d)
        if sympy.count_ops(rest) < sympy.count_ops(sympy.expand(ones)):
            ones = rest
            out[_centered_monomial(m)] = c
        else:
            out[m] = c
    if ones != 0:
        out[ONE] = ones
    return VectorForm.of(out)


def _centered_monomial(m: Monomial) -> Monomial:
    # A product a⊙b centered as a whole is one new atom, P(a⊙b).
    return (_CENTERED_PREFIX + "⊙".join(m),)


# ---------------------------------------------------------------------------------------
# Reading back


class Reader:
    """Turns named forms into IR expressions (see the module docstring)."""

    def __init__(self, layers: Mapping[str, Layer], roots: Iterable[NamedRoot] = ()) -> None:
        self.layers = layers
        self._names: dict[sympy.Symbol, ir.Expr] = {}
        for layer in layers.values():
            self._names[layer.root] = ir.sqrt(layer.node.radicand())
        self._bases: dict[sympy.Symbol, ir.Expr] = {}
        for named in roots:
            base = named.base  # √⟨v, v⟩ reads ‖v‖
            if isinstance(base, ir.Dot) and base.left == base.right:
                self._names[named.symbol] = ir.norm(base.left)
            else:
                self._names[named.symbol] = ir.sqrt(base)
            self._bases[named.symbol] = named.base

    # -- vectors ----------------------------------------------------------------------

    def read(self, f: Form) -> ir.Expr:
        if not isinstance(f, VectorForm):
            return self.scalar(f)
        if not f.terms:
            return ir.Scaled(ir.Const(sympy.Integer(0)), ir.Ones())
        coefficients = [self._named(c) for _, c in f.terms]
        common = _common_factor(tuple(coefficients))
        parts = [
            (self._tidy(sympy.cancel(c / common)), m)
            for c, (m, _) in zip(coefficients, f.terms, strict=True)
        ]
        # Positive terms first, then the simpler coefficients, 𝟏 last: Ph − 𝐮⟨𝐮, h⟩/d.
        parts.sort(
            key=lambda p: (_leading_sign(p[0]) < 0, sympy.count_ops(p[0]), p[1] == ONE, p[1])
        )
        body: ir.Expr | None = None
        for c, m in parts:
            body = self._add_term(body, c, self.monomial(m))
        assert body is not None
        if common == 1:
            return body
        return ir.multiply(self._scalar_of(common), body)

    def _add_term(self, body: ir.Expr | None, c: sympy.Expr, vector: ir.Expr) -> ir.Expr:
        # A sum is subtracted only when all its terms are negative: + (⟨Ph, k⟩ − 3ab/d)·𝐮.
        terms = sympy.Add.make_args(c)
        negative = all(t.could_extract_minus_sign() for t in terms)
        magnitude = -c if negative else c
        term = vector if magnitude == 1 else ir.multiply(self._scalar_of(magnitude), vector)
        if body is None:
            return ir.negate(term) if negative else term
        return ir.add(body, ir.negate(term)) if negative else ir.add(body, term)

    def monomial(self, m: Monomial) -> ir.Expr:
        if not m:
            return ir.Ones()
        factors = [self.atom(a) for a in sorted(m, key=self._order)]
        out = factors[0]
        for x in factors[1:]:
            out = ir.Hadamard(out, x)
        return out

    def atom(self, a: str) -> ir.Expr:
        if a in self.layers:
            return self.layers[a].node
        if a.startswith(_CENTERED_PREFIX):
            return ir.center(self._uncentered(a))
        return ir.VectorAtom(a)

    # -- scalars ----------------------------------------------------------------------

    def scalar(self, f: sympy.Expr) -> ir.Expr:
        return self._scalar_of(self._tidy(self._named(f)))

    def _named(self, f: sympy.Expr) -> sympy.Expr:
        """Power sums replaced by symbols that stand for inner products and means."""
        rep: dict[sympy.Symbol, sympy.Expr] = {}
        # In a fixed order: the names made here order SymPy's terms (whatever the hash seed).
        for sym in sorted(f.free_symbols, key=sympy.default_sort_key):
            m = monomial_of(sym)
            if m is None:
                continue
            if len(m) == 2:
                a, b = sorted(m, key=lambda x: -self._order(x)[0])  # ⟨𝐮, h⟩: the core first
                rep[sym] = self._symbol_for(ir.dot(self._dot_side(a, b), self._dot_side(b, a)))
            else:
                rep[sym] = ir.d * self._symbol_for(ir.mean(self.monomial(m)))
        return f.xreplace(rep) if rep else f

    def _order(self, a: str) -> tuple[int, str]:
        # In a product the gain comes first and the cores last: γ ⊙ g ⊙ 𝐮 (= ĝ ⊙ 𝐮).
        name = a.removeprefix(_CENTERED_PREFIX)
        rank = 2 if a in self.layers else 0 if name in _PARAMETERS else 1
        return (rank, name)

    def _dot_side(self, a: str, other: str) -> ir.Expr:
        # ⟨𝐮, P h⟩ = ⟨𝐮, h⟩: the P is dropped next to a core, whose coordinates sum to 0.
        if a.startswith(_CENTERED_PREFIX) and other in self.layers:
            return self._uncentered(a)
        return self.atom(a)

    def _uncentered(self, a: str) -> ir.Expr:
        return self.monomial(tuple(a[len(_CENTERED_PREFIX) :].split("⊙")))

    def _symbol_for(self, e: ir.Expr) -> sympy.Symbol:
        for sym, node in self._names.items():
            if node == e:
                return sym
        sym = sympy.Symbol(f"_n{len(self._names)}", real=True)
        self._names[sym] = e
        return sym

    def _tidy(self, c: sympy.Expr) -> sympy.Expr:
        return _smallest_shape(c)

    def _scalar_of(self, f: sympy.Expr) -> ir.Expr:
        """A SymPy scalar over the named symbols as IR, numerator over denominator."""
        if f.is_Add:
            terms = sorted(f.as_ordered_terms(), key=lambda t: t.could_extract_minus_sign())
            out = self._scalar_of(terms[0])
            for t in terms[1:]:
                if t.could_extract_minus_sign():
                    out = ir.add(out, ir.negate(self._scalar_of(-t)))
                else:
                    out = ir.add(out, self._scalar_of(t))
            return out
        if f.could_extract_minus_sign() and f != -1:
            return ir.negate(self._scalar_of(-f))
        numerator, denominator = sympy.fraction(f)
        if denominator != 1:
            return ir.multiply(
                self._scalar_of(numerator), ir.power(self._scalar_of(denominator), -1)
            )
        if f.is_Mul:
            number, rest = f.as_coeff_Mul()
            factors = [self._scalar_of(x) for x in sympy.Mul.make_args(rest)]
            out = factors[0]
            for x in factors[1:]:
                out = ir.multiply(out, x)
            return out if number == 1 else ir.multiply(ir.Const(number), out)
        if f.is_Pow:
            if f.base in self._bases and f.exp.is_Integer and f.exp % 2 == 0:
                return ir.power(self._bases[f.base], f.exp / 2)  # r² = its radicand
            return ir.power(self._scalar_of(f.base), f.exp)
        if f.is_Symbol:
            if f in self._names:
                return self._names[f]
            if isinstance(f, Root):
                return ir.sqrt(self._scalar_of(self._named(f.radicand)))
            if isinstance(f, PowerSum):
                return self._scalar_of(self._named(f))
            return ir.Const(f)
        if f.is_number:
            return ir.Const(f)
        raise UnsupportedError(f"cannot read {f} back as an expression")


@functools.lru_cache(maxsize=4096)
def _smallest_shape(c: sympy.Expr) -> sympy.Expr:
    """The smallest of SymPy's shapes of ``c`` (candidates share many coefficients: cached)."""
    candidates = [c, sympy.factor(c), sympy.together(c), sympy.expand(c), sympy.cancel(c)]
    return min(candidates, key=lambda x: (sympy.count_ops(x), sympy.default_sort_key(x)))


@functools.lru_cache(maxsize=4096)
def _common_factor(coefficients: tuple[sympy.Expr, ...]) -> sympy.Expr:
    """The largest factor shared by every coefficient (a monomial over a monomial)."""
    common = sympy.factor_terms(sympy.together(coefficients[0]))
    for c in coefficients[1:]:
        common = sympy.gcd_terms(sympy.gcd(common, sympy.together(c)))
    if common == 0:
        return sympy.Integer(1)
    numerator, denominator = sympy.fraction(sympy.factor_terms(common))
    keep = sympy.Mul(*(x for x in sympy.Mul.make_args(numerator) if not x.is_number))
    common = keep / denominator
    # The minus goes in front when most terms are negative, unless a term is then −1·m:
    # (Ph − …)/s reads better than −(… − Ph)/s.
    ratios = [sympy.cancel(c / common) for c in coefficients]
    if any(r == 1 for r in ratios):
        return common
    if any(r == -1 for r in ratios):
        return -common
    negative = sum(1 for c in coefficients if _leading_sign(c) < 0)
    return -common if 2 * negative > len(coefficients) else common


def _leading_sign(c: sympy.Expr) -> int:
    """The sign a reader sees first: that of the first term of the expanded numerator."""
    numerator = sympy.fraction(sympy.together(c))[0]
    first = sympy.expand(numerator).as_ordered_terms()[0]
    return -1 if first.could_extract_minus_sign() else 1
