"""The intersectional bias report: Figures 2-4 and Table 2 of Omrani Sabbaghi, Wolfe & Caliskan
(2023) for one model, in one HTML page."""

from __future__ import annotations

from typing import Any

import pandas as pd

from wordlens.report.bias_figures import PairedDots, grouped_bars, paired_dots
from wordlens.report.figures import Panel, line_figure
from wordlens.report.html import Report, listed, model_lines
from wordlens.results import Run

_METHODS = {"projection": "projection on the SVC direction", "cosine": "cosine SC-WEAT"}


def build_intersectional_report(run: Run) -> Report:
    """The sections of the experiments the run holds, with its configuration and timings."""
    meta = run.metadata
    report = Report(f"Intersectional valence bias — {meta['model']['name']}", metadata=meta)
    report.definitions(headline(meta))
    tables = run.tables
    if "valnorm" in tables:
        _valnorm_section(report, tables["valnorm"], meta["experiments"]["valnorm"])
    if "differential" in tables:
        _differential_section(
            report,
            tables["differential"],
            tables["combination_projections"]["phrase"],
            meta["experiments"]["differential"],
        )
    if "strongest_categories" in tables:
        _strongest_section(report, tables, meta["experiments"]["strongest"])
    return report


def headline(meta: dict[str, Any]) -> dict[str, object]:
    """The report's first lines: model, BOS convention, study, template and settings."""
    config = meta["config"]
    lines: dict[str, object] = {
        **model_lines(meta),
        "study": f"{config['study']['name']} ({config['study']['source']})",
        "template": config["study"]["template"],
        "pooling": config["pooling"],
        "direction": ", ".join(f"{k}={v}" for k, v in config["direction"].items()),
        "permutations": config.get(
            "permutations", config.get("n_samples")
        ),  # older runs: n_samples
        "seed": config["seed"],
    }
    left_out = _left_out_line(meta["experiments"].get("valnorm"))
    if left_out:
        lines["words left out"] = left_out
    return lines


def _left_out_line(valnorm: dict[str, Any] | None, limit: int | None = 20) -> str | None:
    """The ValNorm lexicon and polar words the model lacks, counted and listed (at most
    ``limit`` of each; None: all); None if it lacks none."""
    if valnorm is None:
        return None
    parts = []
    lexicon_missing = valnorm["missing_lexicon_words"]
    if lexicon_missing:
        given = valnorm.get("n_lexicon_words_given", valnorm["n_lexicon_words"])
        parts.append(
            f"{len(lexicon_missing):,} of the {given:,} {valnorm['lexicon']} words "
            f"({listed(lexicon_missing, limit)})"
        )
    if valnorm["missing_polar_words"]:
        parts.append(f"polar words {listed(valnorm['missing_polar_words'], limit)}")
    if not parts:
        return None
    return f"missing from the model (lacking or indistinct): {'; '.join(parts)}"


def _valnorm_section(report: Report, table: pd.DataFrame, meta: dict[str, Any]) -> None:
    report.heading("Figure 2 — ValNorm by layer: projection vs cosine")
    report.paragraph(
        f"Pearson's r between the {meta['lexicon']} valence of {meta['n_lexicon_words']} words "
        "(each embedded alone) and their valence association at each layer: the scalar "
        "projection on the direction learned by a linear SVC from the 25 pleasant and 25 "
        "unpleasant words (eq. 1), and the cosine SC-WEAT effect size. Shaded: 95% CI."
    )
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "layer": table["layer"],
                    "method": label,
                    "r": table[f"{method}_r"],
                    "ci_low": table[f"{method}_ci_low"],
                    "ci_high": table[f"{method}_ci_high"],
                }
            )
            for method, label in _METHODS.items()
        ]
    )
    panel = Panel(
        "ValNorm", long, "layer", "r", "method", ("ci_low", "ci_high"), ylabel="Pearson's r"
    )
    report.figure(line_figure([panel], columns=1), "ValNorm by layer")
    top = table.iloc[[-1]].assign(which="top layer")
    best = table.loc[[table["projection_r"].idxmax()]].assign(which="best projection layer")
    columns = ["which", "layer", "projection_r", "cosine_r", "n", "train_accuracy", "flipped"]
    report.table(pd.concat([top, best])[columns])
    left_out = _left_out_line(meta, limit=None)
    if left_out:
        report.paragraph(f"Left out, {left_out}.", note=True)


def _differential_section(
    report: Report, table: pd.DataFrame, phrases: pd.Series, meta: dict[str, Any]
) -> None:
    report.heading(f"Table 2 — differential bias at layer {meta['layer']} (projection SC-WEAT)")
    report.paragraph(
        f"{meta['n_phrases']:,} phrases with one category of each bias in the fixed order, from "
        f"“{phrases.iloc[0]}” to “{phrases.iloc[-1]}” (an “a”/“an” before the categories agrees "
        "with the first one, as in the authors' experiment2.txt); "
        f"group A: the '{meta['study']['target']}' vectors of the phrases with the first "
        "category, group B: the same phrases with the second (twin pairs). Effect size (eq. 2, "
        "ddof=1): "
        "positive means the first category is more pleasant. p: one-sided (first more "
        "pleasant) and two-sided."
    )
    report.paragraph(meta["p_value"], note=True)
    report.table(
        table[
            ["test", "n_a", "n_b", "mean_a", "mean_b", "effect_size", "p_one_sided", "p_two_sided"]
        ],
        float_format="{:.4g}",
    )
    report.heading("Figure 3 — mean projection per category")
    report.figure(
        paired_dots(
            PairedDots(
                table,
                "first",
                "second",
                "mean_a",
                "mean_b",
                name="bias",
                title=f"Mean projection of '{meta['study']['target']}' on the valence direction",
                ylabel="mean projection",
            )
        ),
        "mean projection per category pair",
    )


def _strongest_section(
    report: Report, tables: dict[str, pd.DataFrame], meta: dict[str, Any]
) -> None:
    percent = round(100 * meta["fraction"])
    report.heading(f"Figure 4 — categories in the {percent}% most and least pleasant phrases")
    report.paragraph(
        f"{meta['n_phrases']:,} phrases: one category of each of "
        f"{', '.join(meta['permuted_biases'])}, in every order. The {meta['n_per_group']} phrases "
        "with the highest and the lowest projection; bars: percentage of them containing each "
        "category (every category is in 50% of all phrases)."
    )
    shares = tables["strongest_categories"].sort_values("pct_top", ascending=False)
    report.figure(
        grouped_bars(
            shares,
            "category",
            {"pct_top": "most pleasant", "pct_bottom": "most unpleasant"},
            title=f"Occurrences in the {percent}% most pleasant and unpleasant phrases",
            ylabel="% of phrases",
        ),
        "category shares in the top and bottom phrases",
    )
    report.table(shares[["bias", "category", "pct_top", "pct_bottom", "n_top", "n_bottom"]])
