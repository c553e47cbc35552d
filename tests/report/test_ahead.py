"""Figures drawn in a process of their own while the catalog is checked (lnsym.report.ahead)."""

from __future__ import annotations

import pytest

from lnsym.report import figures
from lnsym.report.ahead import figures_drawn_meanwhile
from lnsym.report.figures import FigureSpec


def _line(fig) -> None:  # noqa: ANN001
    fig.add_subplot().plot([0, 1], [0, 2])


def _broken(fig) -> None:  # noqa: ANN001
    raise RuntimeError("this figure cannot be drawn")


LINE = FigureSpec("line", "A line", "A line.", (), _line, size=(2.0, 1.5))
BROKEN = FigureSpec("broken", "Broken", "Never drawn.", (), _broken, size=(2.0, 1.5))


@pytest.fixture
def drawn_elsewhere(monkeypatch):
    kept: dict = {}
    monkeypatch.setattr(figures, "_DRAWN_ELSEWHERE", kept)
    return kept


def test_the_other_process_draws_the_bytes_this_one_would(drawn_elsewhere):
    with figures_drawn_meanwhile([LINE], ["svg", "pdf"]):
        pass
    assert set(drawn_elsewhere) == {(LINE, "svg"), (LINE, "pdf")}
    for fmt in ("svg", "pdf"):
        assert drawn_elsewhere[(LINE, fmt)] == figures._rendered(LINE, (fmt,))[0]
        assert figures.render_figure(LINE, fmt) is drawn_elsewhere[(LINE, fmt)]


def test_a_figure_that_fails_there_is_drawn_here_and_its_error_reported(drawn_elsewhere):
    with figures_drawn_meanwhile([LINE, BROKEN], ["svg"]):
        pass
    assert drawn_elsewhere == {}  # nothing kept: every figure is drawn in this process
    with pytest.raises(RuntimeError, match="cannot be drawn"):
        figures.render_figure(BROKEN, "svg")


def test_an_interrupted_body_stops_the_drawing_and_keeps_nothing(drawn_elsewhere):
    import multiprocessing

    with pytest.raises(KeyboardInterrupt), figures_drawn_meanwhile([LINE], ["pdf"]):
        raise KeyboardInterrupt
    assert drawn_elsewhere == {}
    assert not [p for p in multiprocessing.active_children() if p.daemon]  # none left running


def test_nothing_to_draw_starts_no_process(drawn_elsewhere, monkeypatch):
    import multiprocessing

    def no_process(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise AssertionError("a process was started")

    monkeypatch.setattr(multiprocessing, "get_context", no_process)
    with figures_drawn_meanwhile([], ["svg"]), figures_drawn_meanwhile([LINE], []):
        pass
    assert drawn_elsewhere == {}


@pytest.mark.parametrize("spec", [LINE, *figures.FIGURES], ids=lambda spec: spec.name)
def test_a_figure_drawn_once_for_every_format_is_the_figure_drawn_for_each(spec, drawn_elsewhere):
    # Saving a figure in one format leaves it as it was: in either order, each format's
    # bytes are those of the figure drawn for that format alone.
    alone = {fmt: figures._rendered(spec, (fmt,))[0] for fmt in ("svg", "pdf")}
    for order in (("svg", "pdf"), ("pdf", "svg")):
        figures._rendered.cache_clear()
        assert figures.render_figures(spec, order) == alone
    with pytest.raises(ValueError, match="unknown figure format 'png'"):
        figures.render_figures(spec, ("svg", "png"))
