"""A report of a user's own modules: title, file name and figures come from the modules
(lnsym.report.document, lnsym report PATH)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lnsym.checking.catalog import builtin_dir, load
from lnsym.cli import main
from lnsym.report.document import BUILTIN, document_for, is_builtin

PLAIN = '''"""Shifts of the core

Checks that a common shift changes nothing.
"""
from lnsym import Claim, Eq, core, ones, scalar, vector

z, c = vector("z"), scalar("c")
CLAIMS = [Claim("mine.shift", Eq(core(z + c * ones), core(z)))]
'''

WITH_FIGURE = '''"""Means

Two facts about the mean.
"""
from lnsym import Claim, Eq, mean, ones, scalar, vector
from lnsym.report.figures import FigureSpec

TITLE = "My notes on the mean"
z, c = vector("z"), scalar("c")
CLAIMS = [
    Claim("mine.mean_shift", Eq(mean(z + c * ones), mean(z) + c)),
    Claim("mine.mean_ones", Eq(mean(ones), 1)),
]


def _draw(fig):
    fig.add_subplot().plot([0, 1], [0, 1])


FIGURES = [FigureSpec("my_line", "A line", "A straight line, drawn by my module.", (), _draw)]
'''


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_a_module_names_its_report_and_gets_no_layer_norm_material(tmp_path, capsys):
    module = tmp_path / "shift_notes.py"
    module.write_text(PLAIN)
    out = tmp_path / "out"
    assert main(["report", str(module), "--out", str(out), "--format", "md,tex"]) == 0
    assert _files(out) == {"shift_notes.md", "shift_notes.tex"}  # no figures asked for
    md = (out / "shift_notes.md").read_text()
    assert md.startswith("# Shifts of the core\n")
    assert "from 1 derivation module. Its one item — 1 claim and 0 step-by-step derivations" in md
    assert "Layer normalization" not in md and "figures/" not in md
    tex = (out / "shift_notes.tex").read_text()
    assert r"\title{Shifts of the core}" in tex and "includegraphics" not in tex
    assert "1 derivation module." in tex and "1 derivation modules" not in tex


def test_title_and_figures_come_from_the_module(tmp_path):
    module = tmp_path / "mean notes.py"  # a space is not kept in a file name
    module.write_text(WITH_FIGURE)
    out = tmp_path / "out"
    assert main(["report", str(module), "--out", str(out), "--format", "md,tex"]) == 0
    assert _files(out) == {
        "mean-notes.md",
        "mean-notes.tex",
        "figures/my_line.svg",
        "figures/my_line.pdf",
    }
    md = (out / "mean-notes.md").read_text()
    assert md.startswith("# My notes on the mean\n")
    assert "from 1 derivation module. Each of its 2 items — 2 claims and 0" in md
    # the figure sits in the section of the module that lists it, not in a closing one
    section = md.split("## 1. Means", 1)[1]
    assert "![A line](figures/my_line.svg)" in section and "## Figures" not in md
    tex = (out / "mean-notes.tex").read_text()
    assert r"\title{My notes on the mean}" in tex
    assert r"\includegraphics[width=0.92\linewidth]{figures/my_line.pdf}" in tex


def test_several_modules_make_one_report(tmp_path):
    (tmp_path / "a.py").write_text(PLAIN)
    (tmp_path / "b.py").write_text(WITH_FIGURE)
    sections = load([tmp_path / "a.py", tmp_path / "b.py"])
    document = document_for(sections, [tmp_path / "a.py", tmp_path / "b.py"])
    assert (document.name, document.title) == ("report", "My notes on the mean")
    assert [f.name for f in document.figures] == ["my_line"]
    untitled = document_for(sections[:1], [tmp_path])  # a directory: named after it
    assert (untitled.name, untitled.title) == (tmp_path.name, "Shifts of the core")
    assert not untitled.builtin


def test_the_builtin_catalog_keeps_its_report():
    assert is_builtin([]) and is_builtin([builtin_dir()])
    assert not is_builtin([builtin_dir() / "01_centering.py"])
    assert document_for([], []) is BUILTIN
    assert (BUILTIN.name, len(BUILTIN.figures)) == ("layernorm", 3)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('TITLE = "My notes on the mean"', "TITLE = 3", "TITLE must be a one-line string"),
        ("FIGURES = [FigureSpec(", "FIGURES = ['x', FigureSpec(", "which is not a"),
        ('FigureSpec("my_line"', 'FigureSpec("my line"', "figure name 'my line'"),
    ],
)
def test_bad_title_or_figures_are_one_line_and_exit_2(old, new, message, tmp_path, capsys):
    module = tmp_path / "bad.py"
    module.write_text(WITH_FIGURE.replace(old, new))
    out = tmp_path / "out"
    assert main(["report", str(module), "--out", str(out), "--format", "md"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and str(module) in err
    assert not out.exists()
