"""lnsym's own node, relation and assumption types cannot be subclassed (lnsym.ir.sealing).

The engines, the sign rules and the kink check read a node by its type: a subclass of
``Var`` whose definition is 0 was read as a positive variance and let a false operator
norm through SPECTRAL_NORM (red team, round 3). The class of problem is every sealed type,
so the tests run over all of them.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import ClassVar

import pytest

import lnsym
from lnsym import ir
from lnsym.cli import main
from lnsym.errors import ExpressionError
from lnsym.ir import sealing
from lnsym.ir.assumptions import Assumption
from lnsym.ir.batch_layers import MatrixNormalization
from lnsym.ir.layers import Normalization
from lnsym.ir.matrices import MatrixNode
from lnsym.ir.relations import Relation

EXTENSION_POINTS = (
    ir.Expr,
    ir.VectorNode,
    ir.ScalarNode,
    MatrixNode,
    ir.Defined,
    Normalization,
    MatrixNormalization,
    Relation,
    Assumption,
)


def lnsym_types() -> set[type]:
    """Every node, relation and assumption type lnsym's own modules define."""
    for module in pkgutil.walk_packages(lnsym.__path__, "lnsym."):
        if module.name != "lnsym.__main__":
            importlib.import_module(module.name)
    found: set[type] = set()
    stack: list[type] = [ir.Expr, Relation, Assumption]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__.startswith("lnsym."):
            found.add(cls)
    return found


def test_every_lnsym_type_is_sealed_or_an_extension_point() -> None:
    types = lnsym_types()
    assert len(types) > 60
    unsealed = {c.__qualname__ for c in types if not sealing.sealed(c)}
    assert unsealed == {c.__qualname__ for c in EXTENSION_POINTS}


@pytest.mark.parametrize(
    "base",
    sorted((c for c in lnsym_types() if sealing.sealed(c)), key=lambda c: c.__qualname__),
    ids=lambda c: c.__qualname__,
)
def test_a_sealed_type_refuses_a_subclass(base: type) -> None:
    with pytest.raises(ExpressionError, match=f"lnsym's {base.__name__}, which cannot be"):
        type("Mine", (base,), {"__slots__": ()})


@pytest.mark.parametrize("base", EXTENSION_POINTS, ids=lambda c: c.__qualname__)
def test_an_extension_point_takes_a_subclass(base: type) -> None:
    mine = type("Mine", (base,), {"__slots__": ()})
    # and the user's own class may be subclassed in turn: lnsym never reads it by type
    type("Yours", (mine,), {"__slots__": ()})


def test_a_variance_defined_as_zero_cannot_pass_for_a_variance() -> None:
    """The red team's node: read as var(x) > 0 by the sign rules, meaning 0."""
    with pytest.raises(ExpressionError, match="Var"):

        @dataclass(frozen=True, slots=True, repr=False)
        class ZeroVar(ir.Var):
            symbol: ClassVar[str] = "zvar"

            def definition(self) -> ir.Expr:
                return ir.Const(0)


def test_a_module_subclassing_a_sealed_type_is_one_line(tmp_path, capsys) -> None:
    path = tmp_path / "sealed.py"
    path.write_text("from lnsym import ir\n\nclass TwoMean(ir.Mean):\n    pass\n")
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lnsym: error:") and err.count("\n") == 1
    assert "Mean, which cannot be subclassed" in err
