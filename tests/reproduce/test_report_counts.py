"""The reproduction's headline counts result numbers, numbers about the data and bounds apart;
the report says "not measured" where this run has no value; the console names experiments in
words. A synthetic reproduction table of the VAST paper's items: no model runs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from wordlens.reproduce.base import Measured, NotMeasured, Reproduction
from wordlens.reproduce.published import load_published
from wordlens.reproduce.report import (
    agreement_counts,
    console_summary,
    experiment_announcer,
    item_kinds,
    reproduction_report,
)
from wordlens.reproduce.runner import _findings, _row, reproduction_of

SIZES = ("text-bellezza-size", "text-anew-size", "text-warriner-size", "text-ws353-size")
BOUND = "text-layer8-settings-within-01-bellezza"
RESULT = "table1-before-bleached"


def synthetic() -> Reproduction:
    """VAST's items, each data-set size and one bound and one result number measured at the
    published value; every other item not measured."""
    paper = load_published("vast")
    chosen = {*SIZES, BOUND, RESULT}
    rows = [
        _row(
            "vast",
            item,
            Measured(item.value) if item.id in chosen else NotMeasured("not run"),
            "gpt2",
            {},
            "",
        )
        for item in paper.items
    ]
    table = pd.DataFrame(rows)
    definition = reproduction_of("vast")
    findings = _findings(paper, definition, {}, table)
    experiments = definition.experiments("paper")
    return Reproduction(paper, "gpt2", "paper", experiments, {}, {}, table, findings)


def test_headline_counts_results_sizes_and_bounds_apart(tmp_path: Path) -> None:
    reproduction = synthetic()
    table = reproduction.table
    kinds = dict(zip(table["item"], item_kinds(table), strict=True))
    assert all(kinds[size] == "data" for size in SIZES)
    assert kinds[BOUND] == "bound" and kinds[RESULT] == "result"
    assert kinds["text-valnorm-static-best"] == "bound"  # "up to .88": a bound, not a size
    counts = agreement_counts(table)
    published = item_kinds(table).value_counts()
    result, data, bound = counts.values()
    assert result == f"1 of 1 measured ({published['result']} published)"
    assert data.startswith(f"{len(SIZES)} of {len(SIZES)} measured")
    assert bound == f"1 of 1 measured ({published['bound']} published)"
    summary = console_summary(reproduction, tmp_path / "report.html")
    assert f"{len(SIZES) + 2} of {len(table)} published numbers measured" in summary
    assert "result numbers that agree to the printed precision: 1 of 1" in summary
    html = reproduction_report(reproduction).render()
    assert "not measured" in html and ">None<" not in html
    assert "bounds (less than, more than) that hold" in html


def test_experiments_are_announced_in_words() -> None:
    said: list[str] = []
    announce = experiment_announcer(said.append)
    for experiment in synthetic().experiments:
        announce(experiment)
    assert said[0].startswith("experiment 1: ") and "vast" not in said[0].split(":")[0]
    assert said[1].startswith("experiment 2 (tokenization): ")
    assert not any("(vast)" in line for line in said)
