"""The VAST report: the paper's figures and tables for one model, in one HTML page."""

from __future__ import annotations

from typing import Any

import pandas as pd

from wordlens.report.figures import Panel, bar_figure, line_figure
from wordlens.report.html import Report, listed_by_reason, model_lines
from wordlens.results import Run
from wordlens.stats import P_VALUE_RULE

_R = "Pearson's r"

REPRESENTATIONS = {"nullified": "top k PCs nullified", "top": "top k PCs only"}
"""Legend entries of the nullification curves, by the table's ``representation``."""


def build_vast_report(run: Run) -> Report:
    """Figures 1-5 and Table 1 of Wolfe & Caliskan (2022) for the run's model."""
    meta = run.metadata
    model = meta["model"]
    report = Report(f"VAST — {model['name']}", metadata=meta)
    report.definitions(headline(meta))
    tables = run.tables
    _layers_section(report, tables["layers"])
    if "tokenization" in tables:
        _tokenization_section(report, tables["tokenization"], meta)
    _nullification_section(report, tables["nullification"])
    if "similarity" in tables:
        _similarity_section(report, tables["similarity"])
    if "weat" in tables:
        _weat_section(report, tables["weat"], int(meta["k_best"]))
    if "cola" in tables or "pos" in tables:
        report.heading("What the top PCs encode (CoLA and POS probes)")
        for name in ("cola", "pos"):
            if name in tables:
                report.table(tables[name])
    if "multilingual" in tables:
        report.heading("Multilingual VAST (bleached setting)")
        report.figure(
            line_figure(
                [
                    Panel(
                        "VAST by layer",
                        tables["multilingual"],
                        "layer",
                        "r",
                        "lexicon",
                        ("ci_low", "ci_high"),
                        ylabel=_R,
                    )
                ],
                columns=1,
            ),
            "multilingual VAST by layer",
            "Pearson's r between SC-WEAT valence association and human valence rating by layer, "
            "one line per non-English lexicon (bleached setting, each with its own polar words); "
            "shaded: 95% CI of r.",
        )
    _random_section(report, meta.get("contexts", {}))
    _left_out_section(report, meta.get("lexicon_words", {}))
    return report


def _random_section(report: Report, contexts: dict[str, Any]) -> None:
    """Coverage of the random setting, and every word that had no corpus sentence."""
    drawn_sets = [
        (key, contexts[key])
        for key in ("random_contexts", "random_contexts_pc_population")
        if key in contexts
    ]
    if not drawn_sets:
        return
    report.heading("Random setting: corpus coverage")
    for key, drawn in drawn_sets:
        which = "scored words" if key == "random_contexts" else "words of the PC population"
        missing = drawn["without_corpus_context"]
        report.paragraph(
            f"{which}: {drawn['coverage']:.1%} of {drawn['n_words']:,} words got a corpus "
            f"sentence; {len(missing):,} got the bleached context instead ({drawn['policy']})"
            + (f": {', '.join(missing)}." if missing else ".")
        )


def headline(meta: dict[str, Any]) -> dict[str, object]:
    """The report's first lines: model, conventions (BOS, PC population, random setting), layers."""
    conventions = meta["conventions"]
    lines: dict[str, object] = {
        **model_lines(meta),
        "PCs fitted on": _population_line(meta["pc_population"]),
    }
    left_out = _left_out_line(meta.get("lexicon_words", {}))
    if left_out:
        lines["lexicon words left out"] = left_out
    if conventions["random_setting"]:
        lines["random setting"] = conventions["random_setting"]
    lines |= {
        "settings": ", ".join(meta["settings_run"]),
        "poolings": ", ".join(meta["poolings_run"]),
        "top layer": meta["top_layer"],
        "best bleached layer": meta["best_bleached_layer"],
        "PCs nullified for 'after'": meta["k_best"],
        "seed": meta["config"]["seed"],
    }
    return lines


def _population_line(population: dict[str, Any]) -> str:
    """The PC population's description, with the words the model lacks counted and listed."""
    line = str(population["description"])
    missing = population.get("missing") or []
    if missing:
        line += (
            f"; {len(missing):,} the model lacks or cannot tell apart, left out: "
            f"{listed_by_reason(missing, population.get('why', {}))}"
        )
    return line


def _left_out_parts(coverage: dict[str, Any], limit: int | None) -> list[str]:
    """Per lexicon the model lacks words of: how many of its words and which (at most
    ``limit``; None: all)."""
    return [
        f"{name}: {counts['n_missing']:,} of {counts['n_words']:,} words the model lacks or "
        f"cannot tell apart ({listed_by_reason(counts['missing'], counts.get('why', {}), limit)})"
        for name, counts in coverage.items()
        if counts["n_missing"]
    ]


def _left_out_line(coverage: dict[str, Any]) -> str | None:
    """The headline's line of lexicon words left out (the first 20 of each); None if none."""
    parts = _left_out_parts(coverage, 20)
    return "; ".join(parts) if parts else None


def _left_out_section(report: Report, coverage: dict[str, Any]) -> None:
    """Every lexicon word left out of the scores because the model lacks it."""
    parts = _left_out_parts(coverage, None)
    if not parts:
        return
    report.heading("Lexicon words left out")
    for part in parts:
        report.paragraph(part + ".")


def _layers_section(report: Report, layers: pd.DataFrame) -> None:
    report.heading("Figure 1 — VAST by layer in each contextual setting")
    if layers["layer"].nunique() <= 1:
        _static_layers(report, layers)
        return
    report.paragraph(
        "Pearson's r between each word's SC-WEAT association with the polar words (same layer, "
        "same setting; aligned polar words for the misaligned setting) and its human rating; "
        "shaded: 95% CI."
    )
    panels = [
        Panel(
            f"{lexicon} {dimension} ({pooling})",
            rows,
            "layer",
            "r",
            "setting",
            ("ci_low", "ci_high"),
            ylabel=_R,
        )
        for (lexicon, dimension, pooling), rows in layers.groupby(
            ["lexicon", "dimension", "pooling"], sort=False
        )
    ]
    report.figure(
        line_figure(panels),
        "VAST by layer per setting",
        "Pearson's r between each word's SC-WEAT association with the pleasant and unpleasant "
        "polar words and its human rating, by layer; one panel per lexicon, dimension and "
        "pooling, one line per contextual setting; shaded: 95% CI of r.",
    )
    best = layers.loc[layers.groupby(["lexicon", "dimension", "setting", "pooling"])["r"].idxmax()]
    report.table(
        best[["lexicon", "dimension", "setting", "pooling", "layer", "r", "ci_low", "ci_high", "n"]]
    )


def _static_layers(report: Report, layers: pd.DataFrame) -> None:
    """Figure 1 of a one-layer (static) model: a bar of r per lexicon and dimension (and
    pooling, and setting where there are several), with its 95% CI."""
    report.paragraph(
        "A static model has one layer: Pearson's r between each word's SC-WEAT association with "
        "the polar words and its human rating, per lexicon; error bars: 95% CI."
    )
    poolings = layers["pooling"].nunique() > 1
    settings = layers["setting"].nunique() > 1
    bars = layers.assign(
        bar=[
            f"{lexicon} {dimension}" + (f" ({pooling})" if poolings else "")
            for lexicon, dimension, pooling in zip(
                layers["lexicon"], layers["dimension"], layers["pooling"], strict=True
            )
        ]
    )
    figure = bar_figure(
        bars, "bar", "r", series="setting" if settings else None,
        band=("ci_low", "ci_high"), ylabel=_R,
    )  # fmt: skip
    report.figure(
        figure,
        "VAST per lexicon",
        "Pearson's r between each word's SC-WEAT association with the pleasant and unpleasant "
        "polar words and its human rating, one bar per lexicon and dimension"
        + (" and pooling" if poolings else "")
        + (", grouped by contextual setting" if settings else "")
        + " (static vectors, one layer); error bars: 95% CI of r.",
    )
    report.table(
        layers[["lexicon", "dimension", "setting", "pooling", "r", "ci_low", "ci_high", "n"]]
    )


def _tokenization_section(report: Report, table: pd.DataFrame, meta: dict[str, object]) -> None:
    report.heading("Figure 2 — singly vs multiply tokenized Warriner words")
    panels = [
        Panel(f"{pooling} pooling", rows, "layer", "r", "words", ("ci_low", "ci_high"), ylabel=_R)
        for pooling, rows in table.groupby("pooling", sort=False)
    ]
    report.figure(
        line_figure(panels),
        "VAST by layer for singly and multiply tokenized words",
        "Pearson's r of VAST by layer for Warriner words the tokenizer keeps whole and those it "
        "splits, one panel per pooling; shaded: 95% CI of r.",
    )
    polar = meta.get("contexts", {})
    if isinstance(polar, dict) and "tokenization_polar_words" in polar:
        info = polar["tokenization_polar_words"]
        report.paragraph(
            f"Polar words: {len(info['pleasant'])} pleasant and {len(info['unpleasant'])} "
            f"unpleasant singly tokenized words (removed as multiply tokenized: "
            f"{', '.join(info['multiply_tokenized_removed']) or 'none'}; balanced out: "
            f"{', '.join(info['balanced_out']) or 'none'}). Lexicon: {info['n_single_lexicon']} "
            f"singly and {info['n_multi_lexicon']} multiply tokenized words.",
            note=True,
        )


def _nullification_section(report: Report, table: pd.DataFrame) -> None:
    report.heading("Figure 3 and Table 1 — VAST by principal components nullified")
    valence = table[table["dimension"] == "valence"]
    panels = [
        Panel(
            f"{lexicon}, {role} layer {layer} ({setting})",
            rows.assign(curve=rows["representation"].map(REPRESENTATIONS)),
            "k",
            "r",
            "curve",
            ("ci_low", "ci_high"),
            xlabel="principal components",
            ylabel=_R,
        )
        for (lexicon, role, layer, setting), rows in valence.groupby(
            ["lexicon", "layer_role", "layer", "setting"], sort=False
        )
    ]
    report.figure(
        line_figure(panels, columns=4),
        "VAST by PCs nullified",
        "Pearson's r of VAST (valence) against k, the number of top principal components: "
        "'top k PCs nullified' removes them from the vectors, 'top k PCs only' keeps only them; "
        "one panel per lexicon, layer (top or best) and setting; shaded: 95% CI of r.",
    )
    nullified = valence[valence["representation"] == "nullified"]
    keys = ["lexicon", "layer_role", "layer", "setting"]
    at_zero = nullified[nullified["k"] == 0].set_index(keys)["r"].rename("r at k = 0")
    best = nullified.loc[nullified.groupby(keys)["r"].idxmax()].set_index(keys)[["k", "r"]]
    best = best.rename(columns={"k": "best k", "r": "r at best k"})
    summary = pd.concat([at_zero, best], axis=1).reset_index()
    report.table(summary)


def _similarity_section(report: Report, table: pd.DataFrame) -> None:
    report.heading("Figure 4 — word similarity by layer (Spearman, bleached context)")
    frame = table.assign(
        version=table["k_nullified"].map(
            lambda k: (
                "raw vectors"
                if pd.isna(k)
                else "mean subtracted"
                if k == 0
                else f"top {int(k)} PCs nullified"
            )
        )
    )
    panels = [
        Panel(
            str(name),
            rows,
            "layer",
            "spearman",
            "version",
            ("ci_low", "ci_high"),
            ylabel="Spearman's rho",
        )
        for name, rows in frame.groupby("set", sort=False)
    ]
    report.figure(
        line_figure(panels),
        "similarity tasks by layer",
        "Spearman's rho between the model's cosine similarities and human similarity ratings "
        "by layer (bleached context), raw vectors and with top PCs nullified; one panel per "
        "similarity set; shaded: 95% CI.",
    )


def _weat_section(report: Report, table: pd.DataFrame, k_after: int) -> None:
    report.heading("Figure 5 — WEAT effect sizes by PCs nullified, and by layer")
    report.paragraph(
        "Effect size d of the ten WEAT tests in the bleached setting after mean subtraction and "
        "nullification of k top PCs (fitted on the same population as Figure 3; k = 0: mean "
        "subtracted only), at the top and best layers (VAST.py:476-513); then the raw vectors "
        "at every layer."
    )
    from wordlens.methods.weat.figures import test_labels

    labels = test_labels(dict(zip(table["test"], table["title"], strict=False)))
    nullified = table[table["representation"] == "nullified"]
    panels = [
        Panel(
            labels[test],
            rows.assign(curve=rows["layer"].map(lambda layer: f"layer {layer}")),
            "k_nullified",
            "effect_size",
            "curve",
            xlabel="principal components",
            ylabel="effect size d",
        )
        for test, rows in nullified.groupby("test", sort=False)
    ]
    report.figure(
        line_figure(panels, columns=5),
        "WEAT by PCs nullified",
        "WEAT effect size d of each test against k, the number of top principal components "
        "nullified (k = 0: mean subtracted only), one line per layer (top and best).",
    )
    raw = table[table["representation"] == "raw"]
    if raw["layer"].nunique() > 1:  # a static model's one layer: d by k above shows it
        panels = [
            Panel(
                labels[test],
                rows.assign(curve="raw vectors"),
                "layer",
                "effect_size",
                "curve",
                ylabel="effect size d",
            )
            for test, rows in raw.groupby("test", sort=False)
        ]
        report.figure(
            line_figure(panels, columns=5),
            "WEAT by layer, raw vectors",
            "WEAT effect size d of each test by layer, raw vectors (nothing nullified).",
        )
    top = table["layer"].max()
    before_after = table[
        (table["layer"] == top)
        & (
            (table["representation"] == "raw")
            | ((table["representation"] == "nullified") & (table["k_nullified"] == k_after))
        )
    ]
    report.paragraph(
        f"Top layer {top}: raw vectors and {k_after} PCs nullified (the best k for VAST)."
    )
    columns = ["test", "title", "representation", "k_nullified", "effect_size"]
    report.table(before_after[[*columns, "p_one_sided", "p_two_sided"]])
    report.paragraph(P_VALUE_RULE, note=True)
