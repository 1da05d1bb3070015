"""The sense-bias report: Table 2 (WEAT, WAT and SSSB, word vs sense), Figure 1 (bias by
dimension) and Figure 2 (gender directions of occupations' noun and verb senses) of Zhou, Kaneko &
Bollegala (2022), in one HTML page; the figures also as PNG, SVG and PDF files
(:func:`write_paper_figures`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure as MplFigure

from wordlens.report.bias_figures import grouped_bars, write_figures
from wordlens.report.figures import Panel, line_figure
from wordlens.report.html import Report
from wordlens.results import Run
from wordlens.stats import P_VALUE_RULE

_REPRESENTATIONS = {
    "word": "word (eq. 7: mean of senses)",
    "sense": "sense",
    "baseline": "baseline word vectors",
}


def build_sense_report(run: Run, figures: Mapping[str, MplFigure] | None = None) -> Report:
    """The sections of the experiments the run holds, with its provenance and timings.

    ``figures`` are the paper's figures of :func:`paper_figures` (drawn here if None).
    """
    figures = paper_figures(run) if figures is None else figures
    meta = run.metadata
    vectors = meta["sense_vectors"]
    top = vectors["layers"][-1]
    report = Report("Social bias in sense embeddings", metadata=meta)
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
    if "table2" in tables:
        _table2_section(report, tables["table2"])
    if "weat" in tables:
        _weat_section(report, tables["weat"], top)
    if "wat" in tables:
        _wat_section(report, tables["wat"], meta["experiments"]["wat"], top)
    if "sssb" in tables:
        _sssb_section(report, tables["sssb"], meta["experiments"]["sssb"], top)
    if "dimensions" in tables:
        _dimensions_section(
            report, tables["dimensions"], meta["experiments"]["dimensions"], figures
        )
    if "gender_direction" in tables:
        _direction_section(report, tables["gender_direction"], top, figures)
    return report


def write_paper_figures(run: Run, out_dir: Path) -> list[Path]:
    """Write the paper's figures the run has (``figure_1_dimensions``,
    ``figure_2_gender_direction``) into ``out_dir`` as ``.png``, ``.svg`` and ``.pdf``; the paths
    written."""
    return write_figures(paper_figures(run), out_dir)


def paper_figures(run: Run) -> dict[str, MplFigure]:
    """Figure 1 (WEAT effect size by dimension) and Figure 2 (cosines with the gender direction
    at the top layer) as matplotlib figures, for the experiments the run holds."""
    figures: dict[str, MplFigure] = {}
    tables = run.tables
    if "dimensions" in tables:
        figures["figure_1_dimensions"] = _dimension_figure(tables["dimensions"])
    if "gender_direction" in tables:
        top = run.metadata["sense_vectors"]["layers"][-1]
        figures["figure_2_gender_direction"] = _direction_figure(tables["gender_direction"], top)
    return figures


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
        report.figure(line_figure(panels, columns=3), "WEAT effect size by layer")


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
        report.figure(line_figure([panel], columns=1), "WAT correlation by layer")


def _direction_columns(chosen: pd.DataFrame) -> dict[str, str]:
    columns = {"noun_sense": "noun sense", "verb_sense": "verb sense", "word": "word (eq. 7)"}
    if chosen["baseline"].notna().any():
        columns["baseline"] = "baseline word"
    return columns


def _direction_figure(table: pd.DataFrame, top: int) -> MplFigure:
    chosen = table[table["layer"] == top]
    return grouped_bars(
        chosen,
        "occupation",
        _direction_columns(chosen),
        title=f"Cosine with the gender direction (layer {top})",
        ylabel="cosine (positive: male)",
    )


def _direction_section(
    report: Report, table: pd.DataFrame, top: int, figures: Mapping[str, MplFigure]
) -> None:
    report.heading("Figure 2 — occupations and the gender direction")
    report.paragraph(
        "Cosine of each occupation's noun sense, verb sense and eq. 7 word vector with the "
        "gender direction of eq. 8 (mean of male minus female word vectors); positive: male."
    )
    report.figure(figures["figure_2_gender_direction"], "gender direction cosines")
    chosen = table[table["layer"] == top]
    report.table(chosen[["occupation", "layer", *_direction_columns(chosen)]])


def _table2_section(report: Report, table: pd.DataFrame) -> None:
    report.heading("Table 2 — word vs sense bias, every row")
    report.paragraph(
        "The rows of the paper's Table 2 at the top layer of the sense vectors: word (eq. 7, the "
        "mean of a word's sense vectors) beside sense, and the baseline word vectors at their "
        "own layer. WEAT: effect size; WAT: Pearson's r; SSSB: the authors' bootstrap score "
        "(mean over draws of mean/sd of cosines; black: one target, the others the mean |score| "
        "over their targets). A row not computed says why in its note."
    )
    report.table(table)


def _sssb_section(report: Report, table: pd.DataFrame, meta: dict[str, Any], top: int) -> None:
    report.heading("Table 2 — SSSB on static vectors, per target")
    sense = meta["sense"]
    report.paragraph(
        f"Attributes: the first head-adjective sense of each pleasant and unpleasant word, cut "
        f"to t = {sense['t']} each ({len(meta['no_key']['pleasant'])} distinct pleasant and "
        f"{len(meta['no_key']['unpleasant'])} unpleasant words have no such sense; "
        f"{len(sense['cut_to_t'])} cut to t; keys the store lacks: "
        f"{meta['not_in_store'] or 'none'}). Gender vectors: {sense['n_pairs']} pairs "
        f"({len(meta['no_key']['pairs'])} without synsets; list: {meta['pair_list']}). "
        f"{meta['n_draws']} draws, seed {meta['seed']}. Positive: nearer the pleasant words "
        "(black, nationality, language) or the male words (noun, verb)."
    )
    left_out = {
        f"{representation}: {target}": why
        for representation in ("sense", "word", "baseline")
        if representation in meta
        for target, why in meta[representation]["left_out_targets"].items()
    }
    if left_out:
        report.paragraph(
            "Targets left out: " + "; ".join(f"{k} ({v})" for k, v in left_out.items()), note=True
        )
    chosen = _at_layer(table, top)
    wide = chosen.pivot_table(
        index=["row", "target"], columns="representation", values="score", sort=False
    )
    report.table(wide.rename_axis(columns=None).reset_index())


def _dimension_figure(table: pd.DataFrame) -> MplFigure:
    panels = [
        Panel(
            f"WEAT {test}: {rows['title'].iloc[0]}",
            rows.assign(representation=rows["representation"].map(_REPRESENTATIONS)),
            "dimension",
            "effect_size",
            series="representation",
            xlabel="dimension",
            ylabel="effect size",
        )
        for test, rows in table.groupby("test", sort=True)
    ]
    return line_figure(panels, columns=3, title="WEAT effect size by dimension (Figure 1)")


def _dimensions_section(
    report: Report, table: pd.DataFrame, meta: dict[str, Any], figures: Mapping[str, MplFigure]
) -> None:
    report.heading("Figure 1 — bias and the dimension of the sense vectors")
    skipped = meta["skipped_dimensions"]
    report.paragraph(
        f"WEAT effect sizes of the sense vectors of layer {meta['layer']} and of their eq. 7 word "
        f"vectors, reduced to the top k right singular vectors of the {meta['n_senses']} x "
        f"{meta['full_dimension']} sense matrix (uncentred, so the full size reproduces Table 2)"
        + (f"; sizes skipped (above the full size): {skipped}." if skipped else ".")
    )
    report.figure(figures["figure_1_dimensions"], "WEAT effect size by dimension")
    wide = table.pivot_table(
        index=["dimension", "energy"], columns=["test", "representation"], values="effect_size"
    )
    wide.columns = [f"WEAT {column[0]} {column[1]}" for column in wide.columns.to_flat_index()]
    report.table(wide.reset_index())
