"""The reproduction framework: how a measured value is compared with a published one, how a
location reads, and which papers `wordlens reproduce` accepts."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from wordlens.errors import WordlensError
from wordlens.models.options import ModelOptions
from wordlens.reproduce.published import PAPERS, load_published
from wordlens.reproduce.runner import ReproduceOptions, _agrees, location_text, reproduce


def test_agreement_follows_the_printed_precision_and_the_relation() -> None:
    vast = load_published("vast")
    cell = vast.item("table1-before-bleached")  # printed ".32": agrees within ±.005
    assert cell.printed == ".32" and cell.relation == "eq"
    assert _agrees(cell, 0.324) and _agrees(cell, 0.3150)
    assert not _agrees(cell, 0.326) and not _agrees(cell, math.nan)
    bounded = [item for paper in PAPERS for item in load_published(paper).items
               if item.relation in ("gt", "ge", "lt", "le")]  # fmt: skip
    assert bounded, "the papers state some numbers as bounds"
    for item in bounded:
        above, below = (
            item.value + 10 * max(item.resolution, 1e-6),
            item.value - 10 * max(item.resolution, 1e-6),
        )
        assert _agrees(item, above) is (item.relation in ("gt", "ge")), item.id
        assert _agrees(item, below) is (item.relation in ("lt", "le")), item.id


def test_locations_read_as_the_paper_names_them() -> None:
    vast = load_published("vast")
    assert location_text(vast.item("table1-before-random")) == "Table 1, row Before, column Random"
    texts = [item for item in vast.items if item.location.kind == "text"]
    assert location_text(texts[0]).startswith("text, section ")


def test_papers_to_reproduce() -> None:
    assert ReproduceOptions(("all",)).chosen() == PAPERS
    assert ReproduceOptions(("probing", "vast", "probing")).chosen() == ("probing", "vast")
    with pytest.raises(WordlensError, match="name a paper to reproduce"):
        ReproduceOptions().check()
    with pytest.raises(WordlensError, match="unknown paper 'glue'"):
        ReproduceOptions(("glue",)).check()


def test_a_corrected_value_agrees_to_its_own_precision() -> None:
    item = load_published("asymmetry").item("table4-simlex-cxt")  # printed "34", read as .34
    assert item.correction is not None and item.value == 0.34
    assert _agrees(item, 0.343) and not _agrees(item, 0.26)


def test_set_passes_user_data_to_the_experiments_that_take_it(tmp_path: Path) -> None:
    options = ReproduceOptions(("asymmetry",), set=("swow_file = my swow.csv",))
    assert options.overrides() == {"swow_file": "my swow.csv"}
    with pytest.raises(WordlensError, match="OPTION=VALUE"):
        ReproduceOptions(("vast",), set=("swow_file",)).check()
    missing = tmp_path / "strength.SWOW-EN.csv"
    result = reproduce(
        "asymmetry",
        ModelOptions("glove-6b-50d"),
        tmp_path / "out",
        scale="smoke",
        overrides={"swow_file": str(missing), "colour": "ignored: no method has it"},
    )
    assert str(missing) in result.failures["swow"]  # the file reached the SWOW experiment
    assert "evocation" in result.runs  # and the other experiment ran without it
