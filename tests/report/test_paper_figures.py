"""Figures worth pasting into a paper (issue 30): a figure for every run that fits its model
(lines by layer, bars for a one-layer model), captions, spelled-out legends, and PNG, SVG and
PDF files in one style, one or two columns wide."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure as MplFigure
from matplotlib.patches import Rectangle

import wordlens
from wordlens.methods.weat.figures import ALPHA
from wordlens.report.figures import ONE_COLUMN, TWO_COLUMN, Panel, line_figure
from wordlens.results import Figure, Run


@pytest.fixture(scope="module")
def layered() -> Run:
    return wordlens.weat("minilm-l6", tests=[1, 6, 8], layers=[0, 3, 6], permutations=200)


@pytest.fixture(scope="module")
def static_weat() -> Run:
    return wordlens.weat("glove-6b-50d", tests=[1, 6, 7, 8], permutations=500)


@pytest.fixture(scope="module")
def static_vast() -> Run:
    return wordlens.vast(
        "glove-6b-50d", lexica=["bellezza", "anew"], settings=["bleached"], tokenization=False,
        similarity=[], weat=False, probes=False, max_pcs=2,
    )  # fmt: skip


def _bars(figure: Figure) -> list[Rectangle]:
    axis = figure.drawing.axes[0]
    return [patch for patch in axis.patches if isinstance(patch, Rectangle)]


def _legends(figure: Figure) -> list[str]:
    """The texts of the figure's legends: one above its panels, or one in each panel."""
    legends = [
        *figure.drawing.legends,
        *(axis.get_legend() for axis in figure.drawing.axes if axis.get_legend() is not None),
    ]
    return [text.get_text() for legend in legends for text in legend.get_texts()]


def test_weat_by_layer_draws_one_line_per_test_with_significant_layers_filled(
    layered: Run,
) -> None:
    (figure,) = layered.figures()
    table = layered.tables["weat"]
    axis = figure.drawing.axes[0]
    lines = axis.get_lines()
    curves = [line for line in lines if len(line.get_xdata()) == 3]
    assert len(curves) == 3 and _legends(figure) == [
        *(f"WEAT {test}: {str(title).split(',')[0]}" for test, title in
          table.drop_duplicates("test")[["test", "title"]].itertuples(index=False)),
        f"p < {ALPHA}", f"p ≥ {ALPHA}",
    ]  # fmt: skip
    markers = [c for c in axis.collections if isinstance(c, PathCollection)]
    assert len(markers) == 3
    for (_, rows), dots, line in zip(
        table.groupby("test", sort=False), markers, curves, strict=True
    ):
        rows = rows.sort_values("layer")
        np.testing.assert_allclose(line.get_ydata(), rows["effect_size"])
        filled = [face[3] > 0 and tuple(face) != to_rgba("white") for face in dots.get_facecolors()]
        assert filled == list(rows["p_one_sided"] < ALPHA)
    assert "filled markers" in figure.caption.lower() and "open markers" in figure.caption


def test_weat_on_a_static_model_draws_bars_of_the_tables_effect_sizes(static_weat: Run) -> None:
    (figure,) = static_weat.figures()
    table = static_weat.tables["weat"]
    # horizontal bars (the titles written out beside them), the first test at the top
    lengths = [bar.get_width() for bar in _bars(figure)]
    np.testing.assert_allclose(lengths, table["effect_size"])
    axis = figure.drawing.axes[0]
    assert axis.get_yticklabels()[0].get_text().startswith("WEAT 1: ")
    assert axis.yaxis_inverted()
    open_bars = [tuple(bar.get_facecolor()) == to_rgba("white") for bar in _bars(figure)]
    assert open_bars == list(~(table["p_one_sided"] < ALPHA))
    assert figure.drawing.get_size_inches()[0] == ONE_COLUMN


def test_vast_on_a_static_model_draws_bars_of_r_with_their_ci(static_vast: Run) -> None:
    figure = static_vast.figures()[0]
    layers = static_vast.tables["layers"]
    assert layers["layer"].nunique() == 1
    # bars across (lexicon and dimension written out beside them) or upright
    horizontal = figure.drawing.axes[0].yaxis_inverted()
    values = sorted(bar.get_width() if horizontal else bar.get_height() for bar in _bars(figure))
    np.testing.assert_allclose(values, sorted(layers["r"]))
    assert "95% CI" in figure.caption
    assert figure.drawing.get_size_inches()[0] in (ONE_COLUMN, TWO_COLUMN)


def test_figures_have_captions_and_spelled_out_legends(
    layered: Run, static_weat: Run, static_vast: Run
) -> None:
    figures = [*layered.figures(), *static_weat.figures(), *static_vast.figures()]
    assert len(figures) >= 4
    for figure in figures:
        assert figure.caption.strip() and figure.caption != figure.title
        assert not {"nullified", "top", "raw"} & set(_legends(figure))
        assert figure.drawing.get_size_inches()[0] in (ONE_COLUMN, TWO_COLUMN)
    assert "top k PCs nullified" in _legends(static_vast.figures()[1])


def test_a_written_run_has_every_figure_as_png_svg_and_pdf(
    static_vast: Run, tmp_path: Path
) -> None:
    written = static_vast.write(tmp_path)
    figures = static_vast.figures()
    for stem in {path.stem for path in written if path.stem.startswith("figure_")}:
        for suffix, magic in ((".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")):
            assert (tmp_path / f"{stem}{suffix}").read_bytes().startswith(magic)
    assert len([path for path in written if path.suffix == ".pdf"]) == len(figures)
    assert (tmp_path / "figure_1_vast_per_lexicon.svg").exists()


def _panels(titles: list[str], series: list[str]) -> list[Panel]:
    rows = pd.DataFrame(
        [{"layer": layer, "d": 0.1 * layer, "kind": kind} for kind in series for layer in range(7)]
    )
    return [Panel(title, rows, "layer", "d", series="kind") for title in titles]


def test_panel_titles_wrap_instead_of_overlapping() -> None:
    """Five panels in a row with WEAT's long titles (they ran into each other in VAST's
    Figure 5): drawn, no two titles overlap and none is wider than its panel's share."""
    titles = [f"WEAT {n}: European- vs. African-American names (Bertrand 2004)" for n in range(5)]
    figure = line_figure(_panels(titles, ["raw"]), columns=5)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = [axis.title.get_window_extent(renderer) for axis in figure.axes]
    for left, right in itertools.pairwise(boxes):
        assert left.x1 < right.x0, (left, right)
    assert all("\n" in axis.get_title() for axis in figure.axes)


def _outside(figure: MplFigure) -> None:
    """Every legend of ``figure`` lies outside every axes (it covers no band, no line)."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    assert figure.legends
    assert all(axis.get_legend() is None for axis in figure.axes)
    for legend in figure.legends:
        box = legend.get_window_extent(renderer)
        for axis in figure.axes:
            inside = axis.get_window_extent(renderer)
            assert not box.overlaps(inside), (box, inside)


def test_one_legend_below_the_panels_outside_them() -> None:
    shared = line_figure(_panels(["a", "b", "c"], ["bleached", "aligned"]), columns=3)
    assert [axis.get_legend() for axis in shared.axes] == [None, None, None]
    (legend,) = shared.legends
    assert [text.get_text() for text in legend.get_texts()] == ["bleached", "aligned"]
    _outside(shared)
    # panels drawing different series: one legend of them all, one colour per series name
    mixed = [*_panels(["a"], ["bleached"]), *_panels(["b"], ["aligned", "bleached"])]
    apart = line_figure(mixed, columns=2)
    (legend,) = apart.legends
    assert [text.get_text() for text in legend.get_texts()] == ["bleached", "aligned"]
    colours = {
        line.get_label(): line.get_color() for axis in apart.axes for line in axis.get_lines()
    }
    assert len(set(colours.values())) == 2
    assert [line.get_color() for line in apart.axes[1].get_lines()][1] == colours["bleached"]
    _outside(apart)


def test_significant_points_are_filled_and_the_legend_says_so() -> None:
    rows = pd.DataFrame(
        {"layer": range(4), "v": [0.1, 0.4, 0.2, 0.3], "part": "all", "p": [0.01, 0.2, 0.04, None]}
    )
    panel = Panel("m", rows.assign(sig=rows["p"] < ALPHA), "layer", "v", series="part",
                  significant="sig")  # fmt: skip
    figure = line_figure([panel], columns=1)
    (dots,) = [c for c in figure.axes[0].collections if isinstance(c, PathCollection)]
    filled = [tuple(face) != to_rgba("white") for face in dots.get_facecolors()]
    assert filled == [True, False, True, False]
    (legend,) = figure.legends
    texts = [text.get_text() for text in legend.get_texts()]
    assert texts == ["all", f"p < {ALPHA}", f"p ≥ {ALPHA} (or none)"]
    _outside(figure)


def test_whole_number_axes_have_whole_number_ticks() -> None:
    figure = line_figure(_panels(["a"], ["raw"]), columns=1)
    FigureCanvasAgg(figure).draw()
    ticks = figure.axes[0].get_xticks()
    assert np.all(ticks == np.round(ticks)), ticks  # layers 0..6: no 2.5


def test_report_tables_left_align_text_and_give_prose_room() -> None:
    from wordlens.report.html import Report

    frame = pd.DataFrame(
        {
            "finding": ["a", "b"],
            "verdict": ["holds", "does not hold"],
            "margin": [0.5, -0.25],
            "p_one_sided": [0.0001, 0.5],
            "claim": ["a claim long enough to be read as prose in its own column"] * 2,
        }
    )
    report = Report("t")
    report.table(frame)
    (table,) = report.parts
    header = table.split("</thead>")[0]
    assert '<th class="text">verdict</th>' in header and "<th>margin</th>" in header
    assert '<th class="text prose">claim</th>' in header
    assert '<td class="text">does not hold</td>' in table
    assert "<td>0.500</td>" in table and "<td>&lt; 0.001</td>" in table  # numbers stay right
    assert table.count('class="text prose"') == 3  # the header and both rows


def _weat_table(tests: list[object], layers: int = 1) -> pd.DataFrame:
    """A WEAT run's table of the packaged ``tests`` (their titles and set sizes), made up d."""
    rows = [
        {"test": test.id, "title": test.title, "layer": layer, "effect_size": 0.1 * test.id,
         "p_one_sided": 0.01 if test.id % 2 else 0.3, "n_partitions": 100}
        for test in tests for layer in range(layers)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_weat_4_and_5_have_distinct_labels_in_weat_and_vast_figures() -> None:
    from wordlens.methods.weat.figures import test_labels, weat_figure
    from wordlens.resources import load_weat_tests

    tests = load_weat_tests(None)
    labels = test_labels({test.id: test.title for test in tests})
    assert len(set(labels.values())) == 10
    assert labels[4] != labels[5] and "Nosek" in labels[5]
    assert labels[1] == "WEAT 1: Flowers vs. insects"  # short where the short one is distinct
    figure, _, _ = weat_figure(_weat_table(tests), "glove")
    ticks = [tick.get_text().replace("\n", " ") for tick in figure.axes[0].get_yticklabels()]
    assert ticks[3] != ticks[4] and ticks == [labels[test.id] for test in tests]


def test_a_query_is_named_by_its_sets() -> None:
    from wordlens.methods.weat.figures import test_labels

    query = {"test": 0, "title": "Gender and work",
             "targets": {"male": ["he"], "female": ["she"]},
             "attributes": {"career": ["job"], "family": ["home"]}}  # fmt: skip
    labels = test_labels({0: "Gender and work"}, query)
    assert labels == {0: "Gender and work: male vs. female × career vs. family"}
    # a title the sets already say is not said twice
    query["title"] = "Career vs. family"
    labels = test_labels({0: "Career vs. family"}, query)
    assert labels == {0: "male vs. female × career vs. family"}


def test_ten_weat_tests_on_one_layer_lay_out_without_a_constrained_layout_warning() -> None:
    """The ten tests' bars (WEAT 4 and 5 with their long titles) once warned that constrained
    layout collapsed the axes to zero; drawn and saved, no warning now."""
    import warnings

    from wordlens.methods.weat.figures import weat_figure
    from wordlens.report.figures import figure_bytes
    from wordlens.resources import load_weat_tests

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure, _, _ = weat_figure(_weat_table(load_weat_tests(None)), "glove")
        figure_bytes(figure)
        layered, _, _ = weat_figure(_weat_table(load_weat_tests(None), layers=3), "bert")
        figure_bytes(layered)
    _outside(layered)
    assert "effect size d" in figure.axes[0].get_xlabel()


def test_an_association_figure_names_its_quantity_and_the_way_of_more_association() -> None:
    from wordlens.methods.association.figures import scores_figure

    rows = pd.DataFrame(
        {"metric": "mac", "part": ["flowers", "insects"] * 3, "layer": [0, 0, 1, 1, 2, 2],
         "value": [0.5, 0.7, 0.6, 0.8, 0.4, 0.9], "ci_low": 0.3, "ci_high": 1.0,
         "p_value": [0.01, 0.5, 0.01, 0.5, 0.01, 0.5]}
    )  # fmt: skip
    figure, caption = scores_figure(rows, "MAC", "smaller")
    label = figure.axes[0].get_ylabel()
    assert label != "value" and label.startswith("MAC") and "lower" in label
    assert "more association" in label and "filled markers" in caption
    _outside(figure)
    bars, _ = scores_figure(rows[rows["layer"] == 0], "RND", "larger")
    assert "higher" in bars.axes[0].get_ylabel()
    (legend,) = bars.legends
    assert f"p < {ALPHA}" in [text.get_text() for text in legend.get_texts()]
