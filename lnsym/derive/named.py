"""Normal forms over named intermediates: each layer's core stays one atom 𝐮, its root one s.

The general engine expands every layer into power sums of the input, which is what makes
its equality test complete and what makes its forms unreadable. Here a core u_ε(a) is kept
as a vector atom 𝐮 with a positive symbol s = √(q(a) + ε), and derivatives use the layer's
own rules instead of expanding it:

    D𝐮[v] = (Pv − 𝐮⟨𝐮, v⟩/d)/s,    Ds[v] = ⟨𝐮, v⟩/d,    v = Da[h],

with the identities ⟨𝐮, 𝟏⟩ = 0 and ⟨𝐮, 𝐮⟩ = d(1 − ε/s²) applied as rewrites. Everything else
(sums, Hadamard products, inner products, powers) is the general engine's interpretation.
These rules are not trusted: :func:`lnsym.derive.derive` proves every result equal to the
expression asked for with the checker before it returns it.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy
from sympy.core.sorting import default_sort_key

from lnsym import ir
from lnsym.engines.general import GeneralEngine, VectorForm, mentions_vectors
from lnsym.engines.general.derivatives import PROBE, _read_gradient
from lnsym.engines.general.substitution import Rewriter
from lnsym.engines.general.symbols import Monomial, monomial_of, radicand_of
from lnsym.engines.general.vector_form import Form
from lnsym.errors import UnsupportedError
from lnsym.ir.calculus import Diff, Grad, Jvp, Vjp
from lnsym.ir.layers import Core

ZERO = sympy.Integer(0)


@dataclass(frozen=True)
class Layer:
    """One core u_ε(a) kept as the atom ``atom`` with the root symbol ``root`` = s."""

    node: Core
    atom: str
    root: sympy.Symbol
    arg: VectorForm  # the form of a
    eps: sympy.Expr  # the form of ε (free of vectors)


@dataclass(frozen=True)
class NamedRoot:
    """A square root √(base) kept as the positive symbol ``symbol``."""

    base: ir.Expr
    symbol: sympy.Symbol
    radicand: sympy.Expr  # the form of base


class NamedForms(GeneralEngine):
    """The general engine's interpretation, with each core kept as a named atom."""

    def __init__(self) -> None:
        super().__init__()
        self.layers: dict[str, Layer] = {}
        self.roots: dict[ir.Expr, NamedRoot] = {}
        self._by_node: dict[Core, Layer] = {}
        self._derivatives: dict[tuple[str, Variation], VectorForm] = {}

    # -- interpretation ---------------------------------------------------------------

    def _form(self, e: ir.Expr) -> Form:
        match e:
            case Core(arg=a, eps=eps):
                return VectorForm.atom(self._layer(e, a, eps).atom)
            case ir.Power(base=ir.ScalarSum(terms=(ir.Var(arg=a), eps)), exponent=n) if (
                2 * n
            ).is_Integer and not n.is_Integer:
                # (q(a) + ε)^(k/2) is s^k for the core of a, named even if 𝐮 is not used.
                return self._layer(Core(a, eps), a, eps).root ** (2 * n)
            case ir.Power(base=base, exponent=n) if (2 * n).is_Integer and not n.is_Integer:
                # Any other root (a user layer's √(t + ε), a norm) is named too.
                return self._root(base) ** (2 * n)
            case Jvp(expr=f, wrt=wrt, direction=h):
                return self.relations(self.derivative(self.form(f), wrt.name, self.vector(h)))
            case Vjp() | Grad() if PROBE in ir.vector_atoms(e):
                raise UnsupportedError(f"the atom name {PROBE} is reserved for lnsym")
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                moved = self.derivative(self.vector(f), wrt.name, VectorForm.atom(PROBE))
                pairing = self.relations(moved.hadamard(self.vector(g)).total())
                return self.relations(_read_gradient(sympy.expand(pairing)))
            case Diff(expr=f, wrt=ir.Const(value=symbol)):
                return self.relations(self.vary(self.form(f), Variation(None, symbol=symbol)))
            case Grad(expr=f, wrt=wrt):
                moved = self.derivative(self.scalar(f), wrt.name, VectorForm.atom(PROBE))
                return self.relations(_read_gradient(sympy.expand(self.relations(moved))))
            case ir.Substitution():
                # A substitution would have to reach inside the named atoms: not attempted.
                raise UnsupportedError("substitutions are not derived over named intermediates")
        return super()._form(e)

    def _layer(self, node: Core, a: ir.Expr, eps: ir.Expr) -> Layer:
        known = self._by_node.get(node)
        if known is not None:
            return known
        eps_form = self.scalar(eps)
        if mentions_vectors(eps_form):
            raise UnsupportedError("a stabilizer that depends on a vector is not named")
        arg = self.vector(a)  # first: inner layers take the lower numbers
        k = len(self.layers) + 1
        layer = Layer(node, f"_u{k}", sympy.Symbol(f"_s{k}", positive=True), arg, eps_form)
        self.layers[layer.atom] = self._by_node[node] = layer
        return layer

    def _root(self, base: ir.Expr) -> sympy.Symbol:
        if base not in self.roots:
            radicand = self.scalar(base)
            symbol = sympy.Symbol(f"_r{len(self.roots) + 1}", positive=True)
            self.roots[base] = NamedRoot(base, symbol, radicand)
        return self.roots[base].symbol

    def relations(self, f: Form) -> Form:
        """⟨𝐮, 𝟏⟩ = 0 and ⟨𝐮, 𝐮⟩ = d(1 − ε/s²) for every named core."""
        return _LayerRelations(self.layers).form(f)

    # -- derivatives ------------------------------------------------------------------

    def derivative(self, f: Form, wrt: str, direction: VectorForm) -> Form:
        """d/dt f(wrt + t·direction) at t = 0, with the layers' rules for their atoms."""
        return self.vary(f, Variation(wrt, direction))

    def vary(self, f: Form, by: Variation) -> Form:
        """The derivative of f under the variation ``by`` (of an atom, or of a scalar)."""
        if isinstance(f, VectorForm):
            out = VectorForm(())
            for m, c in f.terms:
                out = out + VectorForm.monomial(m).scale(self._d_scalar(c, by))
                out = out + self._d_monomial(m, by).scale(c)
            return out
        return self._d_scalar(f, by)

    def _d_monomial(self, m: Monomial, by: Variation) -> VectorForm:
        out = VectorForm(())
        for i, a in enumerate(m):
            da = self._d_atom(a, by)
            if da.terms:
                out = out + VectorForm.monomial(m[:i] + m[i + 1 :]).hadamard(da)
        return out

    def _d_atom(self, a: str, by: Variation) -> VectorForm:
        if by.atom is not None and a == by.atom:
            return by.direction
        layer = self.layers.get(a)
        if layer is None:
            return VectorForm(())
        key = (a, by)
        if key not in self._derivatives:
            # D𝐮 = (P Da − 𝐮⟨𝐮, Da⟩/d)/s − 𝐮·Dε/(2s²)
            v = self.vary(layer.arg, by)
            assert isinstance(v, VectorForm)
            u, s = VectorForm.atom(a), layer.root
            centered_v = v + VectorForm.monomial(()).scale(-v.total() / ir.d)
            du = centered_v + u.scale(-self._inner(a, v) / ir.d)
            de = self._d_scalar(layer.eps, by)
            self._derivatives[key] = du.scale(1 / s) + u.scale(-de / (2 * s**2))
        return self._derivatives[key]

    def _inner(self, atom: str, v: VectorForm) -> sympy.Expr:
        return _LayerRelations(self.layers).scalar(VectorForm.atom(atom).hadamard(v).total())

    def _d_scalar(self, f: sympy.Expr, by: Variation) -> sympy.Expr:
        total = ZERO
        for sym in sorted(f.free_symbols, key=default_sort_key):
            ds = self._d_symbol(sym, by)
            if ds != 0:
                total += sympy.diff(f, sym) * ds
        return total

    def _d_symbol(self, sym: sympy.Symbol, by: Variation) -> sympy.Expr:
        if sym == by.symbol:
            return sympy.Integer(1)
        m = monomial_of(sym)
        if m is not None:
            return self._d_monomial(m, by).total()
        for layer in self.layers.values():
            if sym == layer.root:  # Ds = ⟨𝐮, Da⟩/d + Dε/(2s)
                v = self.vary(layer.arg, by)
                assert isinstance(v, VectorForm)
                de = self._d_scalar(layer.eps, by)
                return self._inner(layer.atom, v) / ir.d + de / (2 * sym)
        for named in self.roots.values():
            if sym == named.symbol:
                dr = self._d_scalar(named.radicand, by)
                return dr / (2 * sym) if dr != 0 else ZERO
        radicand = radicand_of(sym)
        if radicand is not None:
            dr = self._d_scalar(radicand, by)
            return dr / (2 * sym) if dr != 0 else ZERO
        return ZERO


@dataclass(frozen=True)
class Variation:
    """What varies: the atom ``atom`` along ``direction``, or else the scalar ``symbol``."""

    atom: str | None
    direction: VectorForm = VectorForm(())
    symbol: sympy.Symbol | None = None


class _LayerRelations(Rewriter):
    """Power sums of named cores: S[𝐮] = 0, S[𝐮·𝐮] = d(1 − ε/s²)."""

    def __init__(self, layers: dict[str, Layer]) -> None:
        super().__init__()
        self.layers = layers

    def power_sum(self, m: Monomial) -> sympy.Expr | None:
        if len(m) == 1 and m[0] in self.layers:
            return ZERO
        if len(m) == 2 and m[0] == m[1] and m[0] in self.layers:
            layer = self.layers[m[0]]
            return ir.d * (1 - layer.eps / layer.root**2)
        return None
