"""The sense-bias report: Table 2 (WEAT and WAT, word vs sense) and Figure 2 (gender directions of
occupations' noun and verb senses) of Zhou, Kaneko & Bollegala (2022), in one HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from wordlens.evals.sense_bias import SenseBiasRun
from wordlens.report.bias_figures import grouped_bars
from wordlens.report.figures import Panel, line_panels
from wordlens.report.html import Report
from wordlens.results import Result
from wordlens.stats import P_VALUE_RULE

_REPRESENTATIONS = {
    "word": "word (eq. 7: mean of senses)",
    "sense": "sense",
    "baseline": "baseline word vectors",
}


def build_sense_report(run: SenseBiasRun) -> Report:
    """The sections of the experiments the run holds, with its provenance and timings."""
    meta = run.metadata
    vectors = meta["sense_vectors"]
    top = vectors["layers"][-1]
    report = Report("Social bias in sense embeddings")
    report.definitions(
        {
            "sense vectors": vectors["source"],
            "senses": vectors["n_senses"],
            "layers": ", ".join(map(str, vectors["layers"])),
            "gloss context": vectors.get("gloss_template", "(from file)"),
            "pooling": vectors.get("pooling", "(from file)"),
            "baseline": meta["baseline"]["name"] if meta["baseline"] else "none",
            "WordNet": meta["wordnet"],
            "seed": meta["config"]["seed"],
        }
    )
    report.paragraph(
        "Zhou, Kaneko & Bollegala (2022), Sense Embeddings are also Biased. Word vectors are the "
        "mean of a word's sense vectors (eq. 7); tables show the top layer "
        f"({top}), figures every layer."
    )
    tables = run.tables
    if "weat" in tables:
        _weat_section(report, tables["weat"], top)
    if "wat" in tables:
        _wat_section(report, tables["wat"], meta["experiments"]["wat"], top)
    if "gender_direction" in tables:
        _direction_section(report, tables["gender_direction"], top)
    report.heading("Timings (seconds)")
    report.table(pd.DataFrame(sorted(meta["timings_s"].items()), columns=["stage", "seconds"]))
    return report


def write_sense_bias(run: SenseBiasRun, out_dir: Path) -> list[Path]:
    """Write every table (parquet/csv/json, see :class:`wordlens.results.Result`) and
    ``report.html`` into ``out_dir``."""
    written: list[Path] = []
    for name, table in run.tables.items():
        written += Result(f"sense_bias_{name}", table, run.metadata).write(out_dir)
    written.append(build_sense_report(run).write(out_dir / "report.html"))
    return written


def _at_layer(table: pd.DataFrame, layer: int) -> pd.DataFrame:
    """Rows of the sense vectors' ``layer``, and the baseline's rows (its own single layer)."""
    baseline = table["representation"] == "baseline"
    return table[baseline | (table["layer"] == layer)]


def _weat_section(report: Report, table: pd.DataFrame, top: int) -> None:
    report.heading("Table 2 — WEAT effect sizes: word vs sense")
    report.paragraph(
        "Effect size (eq. 3, sample standard deviation) of each WEAT test with the sense ids of "
        "section 3, on the assigned sense vectors and on the eq. 7 word vectors of the same "
        "words; one-sided permutation p beside it."
    )
    chosen = _at_layer(table, top)
    wide = pd.concat(
        [
            _by_representation(chosen, value, label)
            for value, label in (("effect_size", "d"), ("p_one_sided", "p (one-sided)"))
        ],
        axis=1,
    )
    sizes = chosen[chosen["representation"] == "sense"].set_index(["test", "title"])
    wide["words X/Y/A/B"] = sizes[["n_x", "n_y", "n_a", "n_b"]].astype(str).agg("/".join, axis=1)
    report.table(wide.rename_axis(columns=None).reset_index())
    report.paragraph(P_VALUE_RULE, note=True)
    layered = table[table["representation"] != "baseline"]
    if layered["layer"].nunique() > 1:
        panels = [
            Panel(
                f"WEAT {test}: {rows['title'].iloc[0]}",
                rows.assign(representation=rows["representation"].map(_REPRESENTATIONS)),
                "layer",
                "effect_size",
                series="representation",
                ylabel="effect size",
            )
            for test, rows in layered.groupby("test", sort=True)
        ]
        report.figure(line_panels(panels, columns=3), "WEAT effect size by layer")


def _by_representation(table: pd.DataFrame, value: str, label: str) -> pd.DataFrame:
    """One column of ``value`` per representation, per test."""
    wide = table.pivot_table(index=["test", "title"], columns="representation", values=value)
    return wide.rename(columns={rep: f"{name} {label}" for rep, name in _REPRESENTATIONS.items()})


def _wat_section(report: Report, table: pd.DataFrame, meta: dict[str, Any], top: int) -> None:
    report.heading("Table 2 — WAT: Pearson's r with the association-graph gender scores")
    reference = meta["reference"]
    agreement = meta.get("pearson_with_wat_du2019")
    checked = (
        f" Its scores correlate at r = {agreement:.3f} with Du et al.'s SWOW lexicon over "
        f"{meta['n_shared']} shared words."
        if agreement is not None
        else ""
    )
    report.paragraph(
        f"Reference: {reference}.{checked} Eq. 4 over the seed pairs "
        f"{', '.join('/'.join(pair) for pair in meta['pairs'])} (pairs without senses dropped: "
        f"{meta['dropped_pairs'] or 'none'}); at the sense level cos is the maximum over sense "
        f"pairs. {meta['n_words']} words (a seeded sample of {meta['n_candidates']})."
    )
    chosen = _at_layer(table, top).assign(
        representation=lambda rows: rows["representation"].map(_REPRESENTATIONS)
    )
    report.table(chosen[["representation", "layer", "r", "ci_low", "ci_high", "p_value", "n"]])
    layered = table[table["representation"] != "baseline"]
    if layered["layer"].nunique() > 1:
        panel = Panel(
            "WAT Pearson's r by layer",
            layered.assign(representation=layered["representation"].map(_REPRESENTATIONS)),
            "layer",
            "r",
            series="representation",
            band=("ci_low", "ci_high"),
            ylabel="Pearson's r",
        )
        report.figure(line_panels([panel], columns=1), "WAT correlation by layer")


def _direction_section(report: Report, table: pd.DataFrame, top: int) -> None:
    report.heading("Figure 2 — occupations and the gender direction")
    report.paragraph(
        "Cosine of each occupation's noun sense, verb sense and eq. 7 word vector with the "
        "gender direction of eq. 8 (mean of male minus female word vectors); positive: male."
    )
    chosen = table[table["layer"] == top]
    columns = {"noun_sense": "noun sense", "verb_sense": "verb sense", "word": "word (eq. 7)"}
    if chosen["baseline"].notna().any():
        columns["baseline"] = "baseline word"
    report.figure(
        grouped_bars(
            chosen,
            "occupation",
            columns,
            title=f"Cosine with the gender direction (layer {top})",
            ylabel="cosine (positive: male)",
        ),
        "gender direction cosines",
    )
    report.table(chosen[["occupation", "layer", *columns]])
