"""SymPy values of the IR at a fixed dimension d: the concrete engine's instantiation.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). A vector
atom becomes d coordinates — Dummy symbols inside checks, readable symbols z_1, …, z_d for
:func:`instantiate` and :func:`jacobian` — or d numbers at a point; derivatives are ``sympy.diff``
in a perturbation t. Inner products get names (:class:`_Names`) so that SymPy differentiates short
expressions, and the symbolic values of a node are shared by the checks of all claims
(:class:`_Shared`). :func:`_sign` and :func:`_real` decide exact SymPy numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import sympy
from sympy.core.evalf import PrecisionExhausted
from sympy.core.function import AppliedUndef

from lnsym.engines.concrete.exact import Undefined as _Undefined
from lnsym.errors import ExpressionError, UnsupportedError
from lnsym.ir import nodes as ir
from lnsym.ir.calculus import Grad, Jvp, OperatorNorm, Vjp

#: A vector value is a tuple of d SymPy expressions, a scalar value one SymPy expression.
Value: TypeAlias = sympy.Expr | tuple[sympy.Expr, ...]

_ZERO, _ONE = sympy.Integer(0), sympy.Integer(1)
#: Digits to which a cross-checked value must agree with SymPy's (:func:`_agree`).
AGREEMENT_DIGITS = 100


# ---------------------------------------------------------------------------------------
# Names and shared values


class _Names:
    """Names for inner products, so that SymPy differentiates short expressions.

    A sum Σᵢ aᵢbᵢ over d coordinates is the bulk of every symbolic expression. It is written
    as a polynomial in the symbols that must stay visible — the perturbations t, the F(t) of
    :meth:`_Evaluator._abbreviate` and a generic direction w — and each coefficient, free of
    them, gets a name K: d/dt then treats K as the constant it is. The polynomial reduction
    (:class:`_Fractions`) expands every name again, once.

    A name's label is a digest of what it stands for, not a counter: the symbolic values are
    shared by the checks of every claim (:data:`_SHARED`), and SymPy orders the terms of a
    sum by the names of its symbols, so a label that depended on which claims came first
    would make a check depend on them too.
    """

    def __init__(self) -> None:
        self.definitions: dict[sympy.Symbol, sympy.Expr] = {}
        #: The names that occur in each definition (to collect those a check needs).
        self.uses: dict[sympy.Symbol, frozenset[sympy.Symbol]] = {}
        self._names: dict[sympy.Expr, sympy.Symbol] = {}
        self._digests: dict[sympy.Basic, bytes] = {}

    def group(self, terms: Sequence[sympy.Expr], keep: set[sympy.Expr]) -> sympy.Expr:
        """The sum of ``terms`` grouped by their monomials in ``keep``, coefficients named."""
        groups: dict[sympy.Expr, list[sympy.Expr]] = {}
        for term in terms:
            coefficient, monomial = term.as_independent(*keep, as_Add=False)
            groups.setdefault(monomial, []).append(coefficient)
        return sympy.Add(*(self.name(sympy.Add(*c)) * m for m, c in groups.items()))

    def name(self, e: sympy.Expr) -> sympy.Expr:
        """A name for ``e`` (small expressions stand for themselves)."""
        if e.is_Atom or (e.is_Mul and len(e.args) == 2 and e.args[0].is_Number):
            return e
        name = self._names.get(e)
        if name is None:
            name = sympy.Dummy("K" + self._digest(e).hex()[:20])
            # In this order, so that an interrupted check leaves no name without a meaning.
            self.uses[name] = frozenset(v for v in e.free_symbols if v in self.definitions)
            self.definitions[name] = e
            self._names[e] = name
        return name

    def _digest(self, e: sympy.Basic) -> bytes:
        """A digest of the structure of ``e`` that depends on the names of its symbols, never
        on the creation order of Dummy symbols (which SymPy's own hash includes)."""
        found = self._digests.get(e)
        if found is None:
            if e.is_Symbol:
                content = f"{type(e).__name__}:{e.name}".encode()
            elif e.is_Atom:
                content = f"{type(e).__name__}:{e}".encode()
            else:
                parts = [self._digest(a) for a in e.args]
                if e.is_Add or e.is_Mul:
                    parts.sort()
                content = type(e).__name__.encode() + b"(" + b",".join(parts) + b")"
            found = self._digests[e] = hashlib.blake2b(content, digest_size=16).digest()
        return found

    def needed(self, exprs: Sequence[sympy.Expr]) -> dict[sympy.Symbol, sympy.Expr]:
        """The definitions of the names that ``exprs`` use, directly or through other names."""
        out: dict[sympy.Symbol, sympy.Expr] = {}
        stack = [v for x in exprs for v in x.free_symbols if v in self.definitions]
        while stack:
            name = stack.pop()
            if name not in out:
                out[name] = self.definitions[name]
                stack.extend(self.uses[name])
        return out


class _Shared:
    """Symbolic values shared by the checks of every claim in this process.

    A node's value depends only on the node, d and the coordinates bound to its vector
    atoms (symbolic checks bind no scalar), so ``jvp(core(z), z, h)`` at d = 8 is computed
    once for all the claims that use it. Coordinates are fixed per atom and d, and names are
    labelled by content (:class:`_Names`), so a check gives the same result whichever checks
    ran before it.
    """

    #: Entries kept before the store starts afresh (at the start of a check).
    LIMIT = 200_000

    def __init__(self) -> None:
        self.coordinates: dict[tuple[str, int], tuple[sympy.Symbol, ...]] = {}
        self.names = _Names()
        self.values: dict[tuple[Any, ...], Value] = {}
        self.atoms: dict[ir.Expr, tuple[str, ...]] = {}

    def coordinates_of(self, name: str, d: int) -> tuple[sympy.Symbol, ...]:
        found = self.coordinates.get((name, d))
        if found is None:
            found = self.coordinates[(name, d)] = _coordinates(name, d)
        return found

    def trim(self) -> None:
        if len(self.values) + len(self.names.definitions) > self.LIMIT:
            self.names = _Names()
            self.values = {}
            self.atoms = {}

    def free_atoms(self, e: ir.Expr) -> tuple[str, ...]:
        """The vector atoms ``e`` depends on (not bound by a substitution inside it)."""
        found = self.atoms.get(e)
        if found is None:
            if isinstance(e, ir.VectorAtom):
                names = {e.name}
            elif isinstance(e, ir.Substitution) and isinstance(e.target, ir.VectorAtom):
                inner = set(self.free_atoms(e.expr)) - {e.target.name}
                names = inner | set(self.free_atoms(e.value))
            else:
                names = {a for child in e.children() for a in self.free_atoms(child)}
            found = self.atoms[e] = tuple(sorted(names))
        return found


_SHARED = _Shared()


class _Evaluator:
    """Values of IR nodes for one binding of the vector atoms and scalar symbols (memoized).

    Args:
        d: the dimension.
        vectors: the value (d SymPy expressions) of each vector atom.
        scalars: values of scalar symbols (others stay symbols).
        expand: expand inner products (at numeric points, where a scalar of f(z + t·h) is
            then a short polynomial in t).
        names: name inner products (symbolic checks); without ``expand`` or ``names`` they
            are kept as they are (:func:`instantiate`).
        perturbations: the symbols t of the directional derivatives being taken, innermost
            last.
        generic: the symbols of generic directions whose coefficients are read off.
        level: where powers depending on the innermost t are recorded as F(t).
        radicands: where the radicand of every square root is recorded (at t = 0).
    """

    def __init__(
        self,
        d: int,
        vectors: Mapping[str, tuple[sympy.Expr, ...]],
        scalars: Mapping[sympy.Symbol, sympy.Expr],
        *,
        expand: bool = False,
        names: _Names | None = None,
        perturbations: tuple[sympy.Symbol, ...] = (),
        generic: tuple[sympy.Symbol, ...] = (),
        level: list[tuple[sympy.Expr, sympy.Expr]] | None = None,
        radicands: list[sympy.Expr] | None = None,
        shared: _Shared | None = None,
    ) -> None:
        self.d = d
        self.vectors = dict(vectors)
        self.scalars = {**scalars, ir.d: sympy.Integer(d)}
        self.expand = expand
        self.names = names
        self.perturbations = perturbations
        self.generic = generic
        self.level = level
        self.radicands = radicands
        self.shared = shared
        self._memo: dict[ir.Expr, Value] = {}

    def value(self, e: ir.Expr) -> Value:
        """The value of ``e``: a tuple of d expressions for a vector, else one expression."""
        found = self._memo.get(e)
        if found is None:
            if self.shared is None:
                found = self._memo[e] = self._value(e)
                return found
            # Shared between checks: the same node with the same coordinates for its atoms.
            key = (e, self.d, *((a, self.vectors.get(a)) for a in self.shared.free_atoms(e)))
            found = self.shared.values.get(key)
            if found is None:
                found = self.shared.values[key] = self._value(e)
            self._memo[e] = found
        return found

    def _rebind(
        self,
        vectors: Mapping[str, tuple[sympy.Expr, ...]] | None = None,
        scalars: Mapping[sympy.Symbol, sympy.Expr] | None = None,
        perturbation: sympy.Symbol | None = None,
        generic: tuple[sympy.Symbol, ...] = (),
    ) -> _Evaluator:
        return _Evaluator(
            self.d,
            {**self.vectors, **(vectors or {})},
            {**self.scalars, **(scalars or {})},
            expand=self.expand,
            names=self.names,
            perturbations=self.perturbations + ((perturbation,) if perturbation else ()),
            generic=self.generic + generic,
            level=[] if perturbation else self.level,
            radicands=self.radicands,
        )

    def _value(self, e: ir.Expr) -> Value:
        match e:
            case ir.VectorAtom(name=name):
                if name not in self.vectors:
                    raise UnsupportedError(f"the vector {name} has no value")
                return self.vectors[name]
            case ir.Ones():
                return (_ONE,) * self.d
            case ir.Const(value=v):
                return v.xreplace(self.scalars)
            case ir.VectorSum(terms=terms):
                return tuple(
                    sympy.Add(*xs) for xs in zip(*(self._vec(t) for t in terms), strict=True)
                )
            case ir.Scaled(coefficient=c, vector=v):
                k = self._sca(c)
                return tuple(k * x for x in self._vec(v))
            case ir.Hadamard(left=a, right=b):
                return tuple(x * y for x, y in zip(self._vec(a), self._vec(b), strict=True))
            case ir.Dot(left=a, right=b):
                return self._collect(
                    sympy.Add(*(x * y for x, y in zip(self._vec(a), self._vec(b), strict=True)))
                )
            case ir.ScalarSum(terms=terms):
                return sympy.Add(*(self._sca(t) for t in terms))
            case ir.ScalarProduct(factors=factors):
                return sympy.Mul(*(self._sca(f) for f in factors))
            case ir.Power(base=base, exponent=exponent):
                value = self._sca(base)
                n = exponent.xreplace(self.scalars)
                if not n.is_Integer:
                    at_zero = {t: _ZERO for t in self.perturbations + self.generic}
                    self._check_real_power(value.xreplace(at_zero), n)
                    if self.radicands is not None and n.is_Rational and n.q == 2:
                        self.radicands.append(value.xreplace(at_zero))
                return self._abbreviate(value**n)
            case ir.Substitution(expr=inner, target=target, value=bound):
                if isinstance(target, ir.VectorAtom):
                    return self._rebind(vectors={target.name: self._vec(bound)}).value(inner)
                assert isinstance(target, ir.Const)
                return self._rebind(scalars={target.value: self._sca(bound)}).value(inner)
            case Jvp(expr=f, wrt=wrt, direction=h):
                return self._directional(f, wrt, self._vec(h))
            case Grad(expr=f, wrt=wrt):
                return self._linear_form(f, wrt)
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                # Jᵀg = ∇⟨g, f⟩ with g held fixed: g is evaluated before wrt moves.
                return self._linear_form(f, wrt, self._vec(g))
            case OperatorNorm(expr=f, wrt=wrt):
                return self._operator_norm(f, wrt)
            case ir.Defined():
                return self.value(e.definition())
        raise UnsupportedError(f"the concrete engine cannot evaluate {type(e).__name__}")

    @staticmethod
    def _check_real_power(base: sympy.Expr, n: sympy.Expr) -> None:
        """Refuse a non-integer power of a negative (or non-real) number: the IR is real, and
        SymPy's principal root of a negative number is not (√−1, (−8)^(1/3) = 1 + √3·i).

        Raises:
            _Undefined: at such a point (symbolic bases are left alone).
        """
        if base.free_symbols or not base.is_number:
            return
        if not n.is_real:
            raise _Undefined(f"the exponent {n} is not real")
        if _sign(base) < 0:
            raise _Undefined(f"the power {n} of the negative number {base}")

    def _vec(self, e: ir.Expr) -> tuple[sympy.Expr, ...]:
        return self.value(e)

    def _sca(self, e: ir.Expr) -> sympy.Expr:
        return self.value(e)

    def _collect(self, total: sympy.Expr) -> sympy.Expr:
        """A sum over coordinates, kept short: expanded at numbers, named when symbolic."""
        keep = {t for t in self.perturbations + self.generic if total.has(t)}
        if self.names is not None and not keep:
            return self.names.name(total)
        if self.names is None and not self.expand:
            return total
        terms = sympy.Add.make_args(sympy.expand(total))
        if self.perturbations:
            # Terms of order t² cannot change d/dt at t = 0, the only use of this value.
            t = self.perturbations[-1]
            terms = tuple(x for x in terms if x.as_powers_dict().get(t, 0) < 2)
        if self.names is None:
            return sympy.Add(*terms)
        return self.names.group(terms, keep | total.atoms(AppliedUndef))

    def _abbreviate(self, value: sympy.Expr) -> sympy.Expr:
        """Write a power that depends on the innermost t as F(t), so SymPy differentiates it
        once (in :meth:`_directional`) instead of once in every coordinate that holds it."""
        if self.level is None or value.is_Atom or not value.has(self.perturbations[-1]):
            return value
        if any(value.has(t) for t in self.perturbations[:-1]):
            return value
        function = sympy.Function(f"F{len(self.level)}")(self.perturbations[-1])
        self.level.append((function, value))
        return function

    def _directional(
        self,
        f: ir.Expr,
        wrt: ir.VectorAtom,
        direction: tuple[sympy.Expr, ...],
        cotangent: tuple[sympy.Expr, ...] | None = None,
        generic: tuple[sympy.Symbol, ...] = (),
    ) -> Value:
        """d/dt at t = 0 of f (or of ⟨cotangent, f⟩) with wrt moved to wrt + t·direction."""
        t = sympy.Dummy("t")
        moved = tuple(x + t * h for x, h in zip(self._vec(wrt), direction, strict=True))
        child = self._rebind(vectors={wrt.name: moved}, perturbation=t, generic=generic)
        value = child.value(f)
        if cotangent is not None:
            value = child._collect(
                sympy.Add(*(g * x for g, x in zip(cotangent, value, strict=True)))
            )
        # F(t) and F'(t) at t = 0, from SymPy's derivative of each definition, in order.
        at_zero: dict[sympy.Expr, sympy.Expr] = {t: _ZERO}
        for function, definition in child.level or ():
            at_zero[sympy.Derivative(function, t)] = sympy.diff(definition, t).xreplace(at_zero)
            at_zero[function] = definition.xreplace(at_zero)
        if isinstance(value, tuple):
            return tuple(sympy.diff(x, t).xreplace(at_zero) for x in value)
        return sympy.diff(value, t).xreplace(at_zero)

    def _linear_form(
        self, f: ir.Expr, wrt: ir.VectorAtom, cotangent: tuple[sympy.Expr, ...] | None = None
    ) -> Any:
        """The coefficients of D_w f (or of D_w⟨cotangent, f⟩) in a generic direction w.

        D_w f = J·w is linear in w, so its coefficients are the columns of J: for a scalar
        they form the gradient (⟨∇f, w⟩ = D_w f), for a vector the rows of the Jacobian.
        """
        w = tuple(sympy.Dummy(f"w{i}") for i in range(self.d))
        value = self._directional(f, wrt, w, cotangent, generic=w)

        def coefficients(x: sympy.Expr) -> tuple[sympy.Expr, ...]:
            found = sympy.expand(x).as_coefficients_dict(*w)
            return tuple(found.get(wi, _ZERO) for wi in w)

        if isinstance(value, tuple):
            return tuple(coefficients(x) for x in value)
        return coefficients(value)

    def _operator_norm(self, f: ir.Expr, wrt: ir.VectorAtom) -> sympy.Expr:
        """‖J‖₂ = √(largest eigenvalue of JᵀJ), exactly, at a point where J is numeric."""
        jac = sympy.Matrix(self._linear_form(f, wrt))
        if jac.free_symbols:  # a symbolic point: the maximum has no closed form
            raise UnsupportedError("an operator norm is evaluated only at exact numeric points")
        found = sympy.roots((jac.T * jac).charpoly())
        if sum(found.values()) != self.d:
            raise UnsupportedError("the eigenvalues of JᵀJ have no closed form here")
        return sympy.sqrt(max(found, key=lambda lam: sympy.re(lam.evalf(50))))


def _coordinates(name: str, d: int) -> tuple[sympy.Symbol, ...]:
    """The coordinates of the atom ``name`` inside a check: Dummy symbols, which no user
    scalar can equal (a user scalar named ``z_1`` stays distinct from the first coordinate
    of z; the IR refuses Dummy symbols in constants)."""
    return tuple(sympy.Dummy(f"{name}_{i}", real=True) for i in range(1, d + 1))


def _named_coordinates(name: str, d: int, taken: set[str]) -> tuple[sympy.Symbol, ...]:
    """Readable coordinates z_1, …, z_d for :func:`instantiate` and :func:`jacobian`.

    Raises:
        ExpressionError: when a scalar of the expression has one of these names, which
            would silently make it that coordinate.
    """
    symbols = tuple(sympy.Symbol(f"{name}_{i}", real=True) for i in range(1, d + 1))
    clash = sorted(s.name for s in symbols if s.name in taken)
    if clash:
        raise ExpressionError(
            f"the scalar {clash[0]} has the name of a coordinate of the vector {name}: "
            f"give {name} a value or rename the scalar"
        )
    return symbols


def _number(x: Any) -> sympy.Expr:
    value = ir.as_scalar(x)  # refuses floats and strings
    if not isinstance(value, ir.Const):
        raise ExpressionError(f"{x!r} is not a number")
    return value.value


def _bind(
    values: Mapping[Any, Any] | None, d: int
) -> tuple[dict[str, tuple[sympy.Expr, ...]], dict[sympy.Symbol, sympy.Expr]]:
    vectors: dict[str, tuple[sympy.Expr, ...]] = {}
    scalars: dict[sympy.Symbol, sympy.Expr] = {}
    for key, val in (values or {}).items():
        if isinstance(key, ir.VectorAtom | str):
            name = key.name if isinstance(key, ir.VectorAtom) else key
            entries = tuple(_number(x) for x in val)
            if len(entries) != d:
                raise ExpressionError(f"{name} needs {d} entries, got {len(entries)}")
            vectors[name] = entries
        elif isinstance(key, sympy.Symbol) and key != ir.d:
            scalars[key] = _number(val)
        else:
            raise ExpressionError(f"cannot assign a value to {key!r}")
    return vectors, scalars


def instantiate(
    e: ir.Expr, d: int, values: Mapping[Any, Any] | None = None
) -> sympy.Expr | sympy.Matrix:
    """The expression at dimension ``d``: a column Matrix for a vector, else a SymPy scalar.

    Args:
        e: an IR expression.
        d: the dimension.
        values: optional values: a vector atom (or its name) to d numbers, a scalar symbol
            (such as ``lnsym.eps``) to a number. Unassigned atoms become symbols z_1, …, z_d.

    Returns:
        The exact value (nothing is simplified beyond SymPy's automatic evaluation).

    Raises:
        ExpressionError: for malformed values (floats and strings are refused).

    >>> from lnsym import vector, mean
    >>> instantiate(mean(vector("z")), 2)
    z_1/2 + z_2/2
    """
    vectors, scalars = _bind(values, d)
    atoms, symbols = _free_variables(e)
    taken = {s.name for s in symbols}
    for name in sorted(atoms):
        if name not in vectors:
            vectors[name] = _named_coordinates(name, d, taken)
    value = _Evaluator(d, vectors, scalars).value(e)
    return sympy.Matrix(value) if isinstance(value, tuple) else value


def jacobian(
    e: ir.Expr, wrt: ir.VectorAtom, d: int, values: Mapping[Any, Any] | None = None
) -> sympy.Matrix:
    """The Jacobian of ``e`` with respect to ``wrt`` by ``Matrix.jacobian``, at ``values``.

    >>> from lnsym import vector, core, eps
    >>> z = vector("z")
    >>> jacobian(core(z), z, 2, {z: [-1, 1], eps: 3})
    Matrix([
    [ 3/16, -3/16],
    [-3/16,  3/16]])
    """
    vectors, scalars = _bind(values, d)
    point = vectors.pop(wrt.name, None)
    atoms, symbols = _free_variables(e)
    taken = {s.name for s in symbols}
    # At a point the coordinates of wrt are only differentiated in: Dummy symbols.
    coords = _named_coordinates(wrt.name, d, taken) if point is None else _coordinates(wrt.name, d)
    vectors[wrt.name] = coords
    for name in sorted(atoms):
        if name not in vectors:
            vectors[name] = _named_coordinates(name, d, taken)
    value = _Evaluator(d, vectors, scalars).value(e)
    column = sympy.Matrix(value if isinstance(value, tuple) else [value])
    jac = column.jacobian(sympy.Matrix(coords))
    return jac if point is None else jac.xreplace(dict(zip(coords, point, strict=True)))


# ---------------------------------------------------------------------------------------
# Free variables


def _free_variables(
    e: ir.Expr,
    bound_atoms: frozenset[str] = frozenset(),
    bound_symbols: frozenset[sympy.Symbol] = frozenset(),
) -> tuple[set[str], set[sympy.Symbol]]:
    """The vector atoms and scalar symbols that ``e`` depends on (not bound by a substitution)."""
    atoms: set[str] = set()
    symbols: set[sympy.Symbol] = set()
    match e:
        case ir.VectorAtom(name=name):
            if name not in bound_atoms:
                atoms.add(name)
        case ir.Const(value=v):
            symbols |= {s for s in v.free_symbols if s != ir.d} - bound_symbols
        case ir.Power(base=base, exponent=n):
            atoms, symbols = _free_variables(base, bound_atoms, bound_symbols)
            symbols |= {s for s in n.free_symbols if s != ir.d} - bound_symbols
        case ir.Substitution(expr=inner, target=target, value=bound):
            a, s = _free_variables(bound, bound_atoms, bound_symbols)
            if isinstance(target, ir.VectorAtom):
                b = _free_variables(inner, bound_atoms | {target.name}, bound_symbols)
            else:
                assert isinstance(target, ir.Const)
                b = _free_variables(inner, bound_atoms, bound_symbols | {target.value})
            atoms, symbols = a | b[0], s | b[1]
        case _:
            for child in e.children():
                a, s = _free_variables(child, bound_atoms, bound_symbols)
                atoms |= a
                symbols |= s
    return atoms, symbols


# ---------------------------------------------------------------------------------------
# Exact SymPy numbers


def _entries(value: Value) -> tuple[sympy.Expr, ...]:
    return value if isinstance(value, tuple) else (value,)


def _real(x: sympy.Expr) -> bool:
    """Whether an exact number is real and finite (False also for ∞ and NaN).

    Raises:
        UnsupportedError: for something that is not a number at all.
    """
    if x.is_Rational:
        return True
    if x.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return False
    if x.free_symbols or not x.is_number:
        raise UnsupportedError(f"{x} has no numeric value at a point")
    return not (x.has(sympy.I) or x.is_extended_real is False)


def _agree(x: sympy.Expr, y: sympy.Expr) -> bool:
    """Whether two exact numbers from independent routes agree (the cross-check's test).

    Rationals are compared exactly. Otherwise the difference is evaluated with certified
    digits: a nonzero result proves disagreement, and none found within SymPy's working
    precision counts as agreement. (A minimal polynomial would prove equality but costs
    tens of seconds for nested roots; an arithmetic slip does not hide below 100 digits.)
    """
    difference = x - y
    if difference.is_Rational:
        return bool(difference == 0)
    try:
        approx = difference.evalf(AGREEMENT_DIGITS, strict=True)
    except PrecisionExhausted:
        return True
    return bool(approx == 0)


def _sign(x: sympy.Expr) -> int:
    """The sign of an exact real number (nonzero values by certified evalf, zero exactly).

    Raises:
        _Undefined: if ``x`` is not real.
    """
    if x.is_Rational:
        return (x.p > 0) - (x.p < 0)
    try:
        approx = x.evalf(30, strict=True)
    except PrecisionExhausted:
        approx = _ZERO
    if not approx.is_real:
        real, imaginary = approx.as_real_imag()
        if imaginary != 0:
            raise _Undefined(f"{x} is not real")
        approx = real
    if approx != 0:
        return 1 if approx > 0 else -1
    t = sympy.Dummy("x")
    if sympy.minimal_polynomial(x, t) == t:
        return 0
    approx = x.evalf(300, strict=True)
    if not approx.is_real:
        raise _Undefined(f"{x} is not real")
    return 1 if approx > 0 else -1
