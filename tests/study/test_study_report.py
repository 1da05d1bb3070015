"""The study report on a real small study (WEAT and VAST on GloVe and MiniLM), opened in a real
headless chromium: no console errors, every link resolves, every image renders, the numbers."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from wordlens.errors import EmptyInputError
from wordlens.methods.base import Summary
from wordlens.methods.registry import UnknownMethodError, get_method
from wordlens.methods.vast import VastConfig
from wordlens.methods.vast.experiments import run_vast
from wordlens.methods.weat import WeatConfig
from wordlens.methods.weat.layers import run_weat
from wordlens.models.base import WordEmbedder
from wordlens.resources import load_weat_tests
from wordlens.results import Run
from wordlens.study.records import CellRecord, CellRecordError, read_cell_record, write_cell_record
from wordlens.study.report import write_study_report
from wordlens.study.summary import CellOutputError, summarize_cell

WEAT_TESTS = (1, 2, 7)
# Bleached setting only; two poolings so the headline must pick "last" (the paper's), not the
# first listed. GloVe (static) runs the first pooling alone.
VAST_CONFIG = VastConfig(
    lexica=("bellezza",),
    settings=("bleached",),
    pooling=("mean", "last"),
    tokenization=False,
    similarity=(),
    weat=False,
    probes=False,
    max_pcs=2,
)
FAILURE = "ResourceNotFoundError: <script>alert('ud-ewt')</script> is not available offline"


@dataclass
class Study:
    root: Path
    records: list[CellRecord]
    summaries: dict[tuple[str, str], Summary]
    written: list[Path]


def _done(root: Path, model: str, method: str) -> tuple[CellRecord, Summary]:
    out_dir = f"cells/{model}/{method}"
    summary = summarize_cell(method, root / out_dir)
    record = CellRecord(model, model, method, "done", out_dir, summary.headline, seconds=1.5)
    return record, summary


@pytest.fixture(scope="module")
def study(
    glove: WordEmbedder, minilm: WordEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Study:
    root = tmp_path_factory.mktemp("study")
    tests = load_weat_tests(list(WEAT_TESTS))
    records, summaries = [], {}
    for model in (glove, minilm):
        name = model.info.name
        runs = {
            "weat": run_weat(model, tests, WeatConfig(permutations=500)),
            "vast": run_vast(model, VAST_CONFIG),
        }
        for method, run in runs.items():
            cell = root / "cells" / name / method
            run.write(cell, get_method(method).prefix)  # report.html too
            if method == "weat":  # WEAT's report is left out: the index links its directory
                (cell / "report.html").unlink()
            record, summary = _done(root, name, method)
            records.append(record)
            summaries[(name, method)] = summary
    records.append(
        CellRecord("glove-6b-50d", "glove-6b-50d", "probe", "failed", "cells/x", error=FAILURE)
    )
    records.append(CellRecord("minilm-l6", "minilm-l6", "probe", "pending", "cells/y"))
    stored = []
    for record in records:
        path = root / record.out_dir / "cell.json"
        stored.append(read_cell_record(write_cell_record(path, record)))
    assert stored == records
    return Study(root, stored, summaries, write_study_report(root, stored))


def test_weat_headlines_and_curves_match_the_table(study: Study) -> None:
    table = pd.read_parquet(study.root / "cells/minilm-l6/weat/weat.parquet")
    summary = study.summaries[("minilm-l6", "weat")]
    assert len(summary.headline) == 2 * len(WEAT_TESTS)
    for test_id, rows in table.groupby("test"):
        sizes = rows.set_index("layer")["effect_size"]
        assert summary.headline[f"weat{test_id}_d_top"] == sizes[6]
        assert summary.headline[f"weat{test_id}_d_max"] == sizes[sizes.abs().idxmax()]
    curves = summary.curves
    assert curves is not None and len(curves) == 7 * len(WEAT_TESTS)
    seven = curves[curves["metric"] == "weat7_d"]
    assert list(seven["layer"]) == list(range(7))
    np.testing.assert_allclose(seven["depth"], np.arange(7) / 6)
    np.testing.assert_array_equal(seven["value"], table[table["test"] == 7]["effect_size"])
    glove = study.summaries[("glove-6b-50d", "weat")]
    assert glove.headline["weat7_d_top"] == glove.headline["weat7_d_max"]
    assert glove.curves is not None and glove.curves["depth"].isna().all()


def test_vast_headline_is_the_papers_series(study: Study) -> None:
    root = study.root / "cells/minilm-l6/vast"
    layers = pd.read_parquet(root / "vast_layers.parquet")
    summary = study.summaries[("minilm-l6", "vast")]
    last = layers[layers["pooling"] == "last"].set_index("layer")["r"]
    assert summary.headline["vast_best_r"] == last.max()
    assert summary.headline["vast_best_layer"] == last.idxmax()
    assert summary.headline["vast_top_r"] == last[6]
    mean_best = layers.loc[layers["pooling"] == "mean", "r"].max()
    assert summary.headline["vast_best_r"] != mean_best  # so the pooling choice is tested
    metadata = pd.read_json(root / "vast_layers.json", typ="series")
    assert summary.headline["vast_best_layer"] == metadata["best_bleached_layer"]
    assert "bellezza valence, bleached setting, last pooling" in summary.definitions["vast_best_r"]
    assert summary.curves is not None
    np.testing.assert_array_equal(summary.curves["value"], last.sort_index().to_numpy())
    glove = study.summaries[("glove-6b-50d", "vast")]
    assert glove.definitions["vast_best_r"].endswith("(bellezza valence, bleached setting)")
    assert glove.headline["vast_best_r"] == glove.headline["vast_top_r"]


def test_nan_effect_sizes_and_ties(study: Study, tmp_path: Path) -> None:
    """A test undefined at every layer gives NaN headlines, shown as a dash; NaN layers are
    skipped; of two layers with the same |d| the lower one is the peak."""
    result = Run.read(study.root / "cells/minilm-l6/weat")
    table = result.tables["weat"].copy()
    seven, two = table["test"] == 7, table["test"] == 2
    table.loc[seven, "effect_size"] = np.nan
    table.loc[two & (table["layer"] == 0), "effect_size"] = np.nan
    table.loc[two & (table["layer"] == 2), "effect_size"] = -1.9
    table.loc[two & (table["layer"] == 4), "effect_size"] = 1.9
    Run("weat", {"weat": table}, result.metadata).write(tmp_path / "cells/minilm-l6/weat")
    record, summary = _done(tmp_path, "minilm-l6", "weat")
    assert np.isnan(record.headline["weat7_d_top"]) and np.isnan(record.headline["weat7_d_max"])
    assert record.headline["weat2_d_max"] == -1.9
    assert summary.curves is not None
    assert summary.curves.loc[summary.curves["metric"] == "weat7_d", "value"].isna().all()
    write_study_report(tmp_path, [record])
    page = (tmp_path / "index.html").read_text()
    assert "weat7_d_top<span>–</span>" in page and "weat2_d_max<span>-1.900</span>" in page
    headlines = pd.read_csv(tmp_path / "study_headlines.csv").set_index("headline")
    assert np.isnan(headlines.loc["weat7_d_max", "value"])


def test_unknown_methods_and_missing_tables_are_named(study: Study) -> None:
    with pytest.raises(
        UnknownMethodError, match="unknown method 'wat'; known: weat, vast, intersectional,"
    ):
        summarize_cell("wat", study.root)
    with pytest.raises(CellOutputError, match="holds a weat run, not vast"):
        summarize_cell("vast", study.root / "cells/minilm-l6/weat")
    with pytest.raises(CellOutputError, match=r"cells/x: cannot read the run .*run\.json"):
        summarize_cell("vast", study.root / "cells/x")


def test_csv_files_hold_every_number(study: Study) -> None:
    headlines = pd.read_csv(study.root / "study_headlines.csv")
    done = [record for record in study.records if record.status == "done"]
    assert len(headlines) == sum(len(record.headline) for record in done) + 2
    for record in done:
        rows = headlines[
            (headlines["model"] == record.model) & (headlines["method"] == record.method)
        ]
        assert dict(zip(rows["headline"], rows["value"], strict=True)) == record.headline
        assert rows["definition"].notna().all()
    failed = headlines[headlines["status"] == "failed"]
    assert failed["headline"].isna().all() and failed["value"].isna().all()
    curves = pd.read_csv(study.root / "study_curves.csv")
    expected = pd.concat(
        summary.curves.assign(model=model, method=method)
        for (model, method), summary in study.summaries.items()
        if summary.curves is not None
    )
    assert len(curves) == len(expected) == (7 + 1) * len(WEAT_TESTS) + 7 + 1
    np.testing.assert_array_equal(curves["value"], expected["value"])


def test_figures_are_saved_as_png_svg_and_pdf(study: Study) -> None:
    figures = sorted(path.name for path in (study.root / "figures").iterdir())
    stems = [f"weat-weat{test_id}_d" for test_id in WEAT_TESTS] + ["vast-vast_r"]
    suffixes = ("png", "svg", "pdf")
    assert figures == sorted(f"{stem}.{suffix}" for stem in stems for suffix in suffixes)
    for stem in stems:
        assert (study.root / "figures" / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in (study.root / "figures" / f"{stem}.svg").read_text()[:2000]
        assert (study.root / "figures" / f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"
    assert {path.name for path in study.written} >= {"index.html", "study_curves.csv"}


def test_the_page_needs_nothing_from_outside(study: Study) -> None:
    page = (study.root / "index.html").read_text()
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert page.count('src="data:image/png;base64,') == len(WEAT_TESTS) + 1
    assert "&lt;script&gt;alert(&#x27;ud-ewt&#x27;)&lt;/script&gt;" in page


def test_bad_record_lists_are_refused(study: Study) -> None:
    with pytest.raises(EmptyInputError, match="no cell records"):
        write_study_report(study.root, [])
    with pytest.raises(CellRecordError, match=r"two records for the cell \(minilm-l6, weat\)"):
        write_study_report(study.root, [*study.records, study.records[2]])


def test_a_study_with_nothing_finished_yet(study: Study, tmp_path: Path) -> None:
    written = write_study_report(tmp_path, study.records[-2:])
    assert [path.name for path in written] == [
        "index.html",
        *(
            f"study_{name}.{suffix}"
            for name in ("headlines", "curves")
            for suffix in ("parquet", "csv", "json")
        ),
    ]
    page = (tmp_path / "index.html").read_text()
    assert "1 failed, 1 pending" in page and "<img" not in page and "Per-layer" not in page
    assert pd.read_csv(tmp_path / "study_curves.csv").empty


def test_depth_axis_on_request(study: Study, tmp_path: Path) -> None:
    shutil.copytree(study.root / "cells", tmp_path / "cells")
    write_study_report(tmp_path, study.records, x_axis="depth", title="depth")
    page = (tmp_path / "index.html").read_text()
    assert 'alt="vast vast_r by depth"' in page and "<title>depth</title>" in page
    assert 'alt="vast vast_r by layer"' in (study.root / "index.html").read_text()


def _chromium() -> str:
    path = os.environ.get("WORDLENS_CHROMIUM", "/usr/bin/chromium")
    if not os.access(path, os.X_OK):
        pytest.fail(
            f"no chromium at {path}: the study report's browser test needs Debian's chromium "
            "(`make install` installs it) or WORDLENS_CHROMIUM pointing at one"
        )
    return path


def test_the_page_in_a_headless_browser(study: Study, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("requestfailed", lambda request: problems.append(f"failed: {request.url}"))
        index = study.root / "index.html"
        page.goto(index.as_uri(), wait_until="load")
        _check_images(page)
        _check_numbers(page, study.records)
        page.screenshot(path=str(tmp_path / "study_report.png"), full_page=True)
        hrefs = page.eval_on_selector_all(
            "a[href]", "links => links.map(a => a.getAttribute('href'))"
        )
        _check_links(page, study.root, hrefs)
        browser.close()
    assert problems == []
    shot = tmp_path / "study_report.png"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("WORDLENS_SCREENSHOT_DIR"):
        target = Path(os.environ["WORDLENS_SCREENSHOT_DIR"])
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, target / shot.name)


def _check_images(page: Any) -> None:
    images = page.eval_on_selector_all(
        "img", "images => images.map(i => [i.complete, i.naturalWidth, i.naturalHeight])"
    )
    assert len(images) == len(WEAT_TESTS) + 1
    assert all(done and width > 100 and height > 100 for done, width, height in images)


def _check_numbers(page: Any, records: list[CellRecord]) -> None:
    for record in records:
        cell = f'td[data-model="{record.model}"][data-method="{record.method}"]'
        if record.status != "done":
            text = page.inner_text(cell)
            assert text.startswith(record.status)
            if record.error:
                assert record.error in text  # shown as text, not run
            continue
        shown = dict(
            page.eval_on_selector_all(
                f"{cell} li",
                "items => items.map(li => [li.firstChild.textContent, li.lastChild.textContent])",
            )
        )
        expected = {
            name: f"{value:.0f}" if name.endswith("_layer") else f"{value:.3f}"
            for name, value in record.headline.items()
        }
        assert list(shown.items()) == list(expected.items())  # in the summary's order


def _check_links(page: Any, root: Path, hrefs: list[str]) -> None:
    """Every link is a relative path that exists and loads: cell reports (or, for a cell without
    report.html, here WEAT's, the cell's directory), the CSV files and each figure's PNG, SVG and
    PDF (a browser downloads a PDF instead of showing it: its bytes are checked)."""
    kinds = {".html": 0, ".csv": 0, ".png": 0, ".svg": 0, ".pdf": 0, "/": 0}
    for href in hrefs:
        target = root / href
        assert target.exists(), href
        kind = "/" if href.endswith("/") else target.suffix
        kinds[kind] += 1
        if kind == ".csv":
            assert not pd.read_csv(target).empty
            continue
        if kind == ".pdf":
            assert target.read_bytes()[:5] == b"%PDF-"
            continue
        page.goto(target.as_uri(), wait_until="load")
        if kind == ".html":
            assert "VAST" in page.title()
        elif kind == "/":
            assert "weat.csv" in page.inner_text("body")
        elif kind == ".svg":
            width = page.evaluate("document.documentElement.getBoundingClientRect().width")
            assert page.evaluate("document.documentElement.tagName") == "svg" and width > 100
        else:
            assert page.evaluate("document.images[0].naturalWidth") > 100
    figures = len(WEAT_TESTS) + 1
    assert kinds == {
        ".html": 2,
        ".csv": 2,
        ".png": figures,
        ".svg": figures,
        ".pdf": figures,
        "/": 2,
    }
