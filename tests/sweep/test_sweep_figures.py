"""The sweep report's figures and page: a heat map of a layered quantity by layer and training
step, its curves over training with the run's interval, the headline numbers, and the page that
links each checkpoint's own report."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection

from wordlens.report.figures import TWO_COLUMN
from wordlens.results import Figure
from wordlens.sweep.figures import MOST_TICKS, heat_map, step_lines
from wordlens.sweep.report import HEADLINES, sweep_report

STEPS = [3000, 0, 1000, 2000]
"""Steps of the hand-made sweep, out of order: the figures put them in order."""
LAYERS = 3


def _value(step: int, layer: int) -> float:
    return (step / 1000 - 1.5) * (layer + 1) / 10


def _table(steps: list[int | None] = STEPS) -> pd.DataFrame:
    """4 revisions × 3 layers of ``vast_r`` (signed; layer 1 at step 2000 missing), its
    interval for layer 0 at every step and layer 2 at steps 0 and 1000 only, and one scalar,
    ``vast_best_r``, with its interval."""
    rows = []
    for step in steps:
        revision = f"step-{step}" if step is not None else "main"
        number = 4000 if step is None else step
        for layer in range(LAYERS):
            value = np.nan if (number, layer) == (2000, 1) else _value(number, layer)
            banded = layer == 0 or (layer == 2 and number < 2000)
            spread = 0.05 if banded else np.nan
            rows.append((revision, step, layer, layer / 2, "vast_r", value, value - spread,
                         value + spread))  # fmt: skip
        best = number / 10_000
        rows.append((revision, step, None, np.nan, "vast_best_r", best, best - 0.1, best + 0.1))
    table = pd.DataFrame(
        rows, columns=["revision", "step", "layer", "depth", "quantity", "value", "low", "high"]
    ).astype({"step": "Int64", "layer": "Int64"})
    return table.sort_values(["step", "quantity", "layer"], kind="stable", ignore_index=True)


def _tick_labels(axis: object, which: str = "x") -> list[str]:
    labels = getattr(axis, f"get_{which}ticklabels")()
    return [label.get_text() for label in labels]


def test_heat_map_holds_the_pivot_in_step_order_with_missing_cells_masked() -> None:
    shown = heat_map(_table(), "vast_r", "how well the words' valence is predicted.")
    assert isinstance(shown, Figure)
    axis = shown.drawing.axes[0]
    image = axis.images[0].get_array()
    expected = np.array(
        [[_value(step, layer) for step in sorted(STEPS)] for layer in range(LAYERS)]
    )  # (layers, steps), layer 0 in row 0 (drawn at the bottom)
    expected[1, 2] = np.nan
    assert image.shape == (LAYERS, len(STEPS))
    assert np.ma.getmaskarray(image).tolist() == np.isnan(expected).tolist()
    np.testing.assert_allclose(image.filled(np.nan), expected)
    assert axis.images[0].origin == "lower"
    low, high = axis.images[0].get_clim()
    assert low == pytest.approx(-high) and high == pytest.approx(0.45)
    assert _tick_labels(axis) == ["0", "1,000", "2,000", "3,000"]
    assert _tick_labels(axis, "y") == ["0", "1", "2"]
    title = "how well the words' valence is predicted by layer and training step"
    assert axis.get_title().replace("\n", " ") == title  # named for a reader, not vast_r
    # the colour bar
    assert shown.drawing.axes[1].get_ylabel().replace("\n", " ") == (
        "how well the words' valence is predicted"
    )
    assert "valence is predicted" in shown.caption
    assert "one checkpoint's run" in shown.caption and "grey" in shown.caption


def test_an_unsigned_quantity_uses_a_sequential_scale_from_its_values() -> None:
    table = _table().replace({"quantity": {"vast_r": "ner_f1"}})
    table["value"] = table["value"].abs() + 1
    axis = heat_map(table, "ner_f1").drawing.axes[0]
    low, high = axis.images[0].get_clim()
    assert low == pytest.approx(table.loc[table["quantity"] == "ner_f1", "value"].min())
    assert high == pytest.approx(table["value"].max())
    assert axis.images[0].get_cmap().name.startswith("viridis")


@pytest.mark.parametrize("quantity", ["vast_r", "weat1_d", "rnd_career", "semaxis_all_sets"])
def test_a_signed_quantity_of_one_sign_still_uses_the_diverging_scale(quantity: str) -> None:
    """WEAT's d was coloured viridis where every d was positive, RND's red-blue: one rule now,
    a diverging scale centred at 0 for every signed quantity."""
    table = _table().replace({"quantity": {"vast_r": quantity}})
    table["value"] = table["value"].abs() + 1
    axis = heat_map(table, quantity).drawing.axes[0]
    low, high = axis.images[0].get_clim()
    assert low == pytest.approx(-high) and high == pytest.approx(table["value"].max())
    assert axis.images[0].get_cmap().name.startswith("RdBu")


def test_names_and_captions_read_without_repeats() -> None:
    table = _table().replace({"quantity": {"vast_r": "rnd_career"}})
    heat = heat_map(table, "rnd_career", "rnd (career) by layer")
    lines = step_lines(table, "rnd_career", "rnd (career) by layer")
    assert heat.title == "rnd (career) by layer and training step"
    assert heat.caption.count("by layer") == 1 and heat.caption.count("rnd (career)") == 1
    assert heat.caption.startswith("rnd (career) by layer (layer 0 at the bottom)")
    assert lines.caption.startswith("rnd (career) across training steps")
    assert lines.drawing.axes[0].get_ylabel() == "rnd (career)"
    definition = "WEAT 1 (Flowers vs. insects, pleasant vs. unpleasant): effect size d"
    weat = heat_map(table.replace({"quantity": {"rnd_career": "weat1_d"}}), "weat1_d", definition)
    assert weat.title == "WEAT 1: effect size d by layer and training step"  # short, not weat1_d
    assert weat.caption.startswith(f"{definition} by layer")  # the caption names the test
    assert weat.drawing.axes[1].get_ylabel() == "WEAT 1: effect size d"  # short on the axis
    assert _tick_labels(weat.drawing.axes[0], "y") == ["0", "1", "2"]  # whole layers


def test_step_lines_draw_each_layer_over_steps_with_bands_only_where_intervals_are() -> None:
    shown = step_lines(_table(), "vast_r")
    axis = shown.drawing.axes[0]
    lines = {line.get_label(): line for line in axis.get_lines() if line.get_label()[0] != "_"}
    assert sorted(lines) == ["layer 0", "layer 1", "layer 2"]
    for layer in range(LAYERS):
        x, y = lines[f"layer {layer}"].get_data()
        assert list(x) == sorted(STEPS)
        expected = [_value(step, layer) for step in sorted(STEPS)]
        if layer == 1:
            expected[2] = np.nan
        np.testing.assert_allclose(np.asarray(y, dtype=float), expected)
    bands = [item for item in axis.collections if isinstance(item, PolyCollection)]
    assert len(bands) == 2  # layer 0 and layer 2; layer 1 has no interval
    spans = sorted(
        (vertices[:, 0].min(), vertices[:, 0].max())
        for band in bands
        for vertices in (path.vertices for path in band.get_paths())
    )
    assert spans == [(0, 1000), (0, 3000)]  # layer 2's band stops where its interval does
    assert shown.drawing.axes[1].get_ylabel() == "layer"  # a colour bar, not a legend
    assert "the run's interval" in shown.caption


def test_a_scalar_is_one_line_with_its_band() -> None:
    shown = step_lines(_table(), "vast_best_r", "the best layer's r")
    axis = shown.drawing.axes[0]
    (line,) = [line for line in axis.get_lines() if line.get_label() == "vast_best_r"]
    np.testing.assert_allclose(line.get_data()[1], [step / 10_000 for step in sorted(STEPS)])
    assert len(axis.collections) == 1
    assert "the best layer's r" in shown.caption and "the run's interval" in shown.caption


def test_unknown_steps_place_revisions_in_order_named() -> None:
    table = _table([0, 1000, None])
    heat = heat_map(table, "vast_r").drawing.axes[0]
    assert _tick_labels(heat) == ["0", "1,000", "main"]
    lines = step_lines(table, "vast_r").drawing.axes[0]
    assert _tick_labels(lines) == ["0", "1,000", "main"]
    assert list(lines.get_lines()[0].get_xdata()) == [0, 1, 2]
    assert lines.get_xlabel() == "checkpoint"


def test_figures_save_as_png_svg_and_pdf(tmp_path: Path) -> None:
    for shown in (heat_map(_table(), "vast_r"), step_lines(_table(), "vast_r")):
        written = shown.save_all(tmp_path / shown.title.replace(" ", "_"))
        assert [path.suffix for path in written] == [".png", ".svg", ".pdf"]
        assert all(path.stat().st_size > 1000 for path in written)
        assert written[0].read_bytes()[:4] == b"\x89PNG"


def _revisions(table: pd.DataFrame) -> pd.DataFrame:
    names = list(dict.fromkeys(table["revision"]))
    revisions = pd.DataFrame(
        {
            "revision": [*names, "step-4000"],
            "step": pd.array([*dict.fromkeys(table["step"]), 4000], dtype="Int64"),
            "status": ["done"] * len(names) + ["failed"],
            "seconds": [12.5] * len(names) + [1.0],
            "peak_memory_mib": [2048.0] * len(names) + [np.nan],
            "peak_gpu_memory_mib": np.nan,
            "out_dir": [f"revisions/{name}" for name in [*names, "step-4000"]],
            "error": [None] * len(names) + ["<script>alert('x')</script> out of memory"],
        }
    )
    return revisions


def test_the_report_shows_each_quantity_and_links_each_checkpoint() -> None:
    table = _table()
    metadata = {
        "method": "vast",
        "method_title": "VAST",
        "model": "EleutherAI/pythia-70m",
        "revisions": list(dict.fromkeys(table["revision"])),
    }
    definitions = {"vast_r": "valence predicted <well>", "vast_best_r": "best layer's r"}
    report = sweep_report(table, _revisions(table), definitions, metadata)
    page = report.render()
    assert "<title>VAST across training checkpoints: EleutherAI/pythia-70m</title>" in page
    assert "5 checkpoints: 4 ran, 1 failed; training steps 0 to 4,000." in page
    assert "<h2>valence predicted &lt;well&gt;</h2>" in page and f"<h2>{HEADLINES}</h2>" in page
    assert [figure.title for figure in report.figures] == [
        "valence predicted <well> by layer and training step",
        "valence predicted <well> across training steps",
    ]  # the headline numbers, read off the curves, in a table only
    scalars_only = sweep_report(
        table[table["layer"].isna()], _revisions(table), definitions, metadata
    )
    [headlines] = scalars_only.figures  # a method without curves (AUL, CAM): their figure
    assert headlines.title == "Headline numbers across training steps"
    assert [axis.get_title() for axis in headlines.drawing.axes] == ["best layer's r"]
    for step in STEPS:  # the checkpoints that ran link to their reports
        assert f'<a href="revisions/step-{step}/report.html">step-{step}</a>' in page
    assert "step-4000/report.html" not in page  # it failed: it has none
    assert "<script>" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; out of memory" in page
    assert "valence predicted &lt;well&gt;" in page
    assert "sweep_table.csv" in page and "sweep_table.parquet" in page
    assert "<th>step-0</th>" in page  # the headline table: one column per revision
    assert "0.300" in page  # vast_best_r at step 3000


def test_154_checkpoints_by_31_layers_draw_quickly_with_thinned_ticks() -> None:
    steps = [0, *(2**power for power in range(10)), *range(1000, 144_000, 1000)]
    assert len(steps) == 154
    grid = pd.MultiIndex.from_product([steps, range(31)], names=["step", "layer"]).to_frame(
        index=False
    )
    rng = np.random.default_rng(0)
    table = grid.assign(
        revision=[f"step{step}" for step in grid["step"]],
        depth=grid["layer"] / 30,
        quantity="vast_r",
        value=rng.uniform(-1, 1, len(grid)),
        low=np.nan,
        high=np.nan,
    )[["revision", "step", "layer", "depth", "quantity", "value", "low", "high"]]
    table = table.astype({"step": "Int64", "layer": "Int64"})
    began = time.perf_counter()
    heat = heat_map(table, "vast_r")
    lines = step_lines(table, "vast_r")
    assert time.perf_counter() - began < 5
    axis = heat.drawing.axes[0]
    assert axis.images[0].get_array().shape == (31, 154)
    assert 2 <= len(_tick_labels(axis)) <= MOST_TICKS
    assert 2 <= len(_tick_labels(axis, "y")) <= MOST_TICKS
    assert heat.drawing.get_figwidth() == TWO_COLUMN
    renderer = FigureCanvasAgg(heat.drawing).get_renderer()
    boxes = [label.get_window_extent(renderer) for label in axis.get_xticklabels()]
    assert not any(left.overlaps(right) for left, right in itertools.pairwise(boxes))
    assert (
        len([line for line in lines.drawing.axes[0].get_lines() if line.get_label()[0] != "_"])
        == 31
    )
    assert lines.drawing.axes[1].get_ylabel() == "layer"


def test_the_headline_table_prints_layers_as_whole_numbers_and_names_quantities() -> None:
    table = _table()
    layer_rows = table[table["quantity"] == "vast_best_r"].assign(
        quantity="vast_best_layer", value=5.0, low=np.nan, high=np.nan
    )
    table = pd.concat([table, layer_rows], ignore_index=True)
    metadata = {"method": "vast", "method_title": "VAST", "model": "m"}
    definitions = {"vast_best_r": "r at the best layer", "vast_best_layer": "the best layer"}
    page = sweep_report(table, _revisions(table), definitions, metadata).render()
    assert "5.000" not in page and "<td>5</td>" in page
    assert ">r at the best layer</td>" in page and ">the best layer</td>" in page


def test_seven_layers_intervals_are_dotted_edges_not_one_filled_area() -> None:
    """Seven layers' shaded intervals filled one another into one area; over more than three
    layers each interval is drawn as its two edges, dotted in its layer's colour."""
    rows = [
        (f"step-{step}", step, layer, layer / 6, "rnd_career", v, v - 0.3, v + 0.3)
        for step in (0, 1000, 2000)
        for layer in range(7)
        for v in [0.1 * layer - step / 4000]
    ]
    table = pd.DataFrame(
        rows, columns=["revision", "step", "layer", "depth", "quantity", "value", "low", "high"]
    ).astype({"step": "Int64", "layer": "Int64"})
    shown = step_lines(table, "rnd_career", "rnd (career) by layer")
    axis = shown.drawing.axes[0]
    assert not [item for item in axis.collections if isinstance(item, PolyCollection)]
    edges = [line for line in axis.get_lines() if line.get_linestyle() == ":"]
    assert len(edges) == 14
    assert "dotted: the run's interval" in shown.caption
