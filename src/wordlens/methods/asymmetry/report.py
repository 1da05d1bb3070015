"""The asymmetry report: Tables 1-4 and Figures 1, 2 and 4 of Zhang et al. (2021) for one model,
in one HTML page."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from wordlens.methods.asymmetry.experiment import ALL_PAIRS
from wordlens.report.bias_figures import grouped_bars
from wordlens.report.figures import Panel, line_figure
from wordlens.report.html import Report
from wordlens.results import Run

_TOP_RELATIONS = 12
"""Relations shown in figures and wide tables (most pairs first)."""


def build_asymmetry_report(run: Run) -> Report:
    """The sections of the tables the run holds, with its configuration, coverage and timings."""
    meta = run.metadata
    model = meta["model"]
    config = meta["config"]
    report = Report(f"Asymmetry judgment with evocation data — {model['name']}", metadata=meta)
    report.definitions(
        {
            "model": f"{model['name']} ({model['kind']})",
            "fingerprint": model["fingerprint"],
            "evocation data": ", ".join(config["norms"]),
            "ConceptNet": meta["conceptnet"]["source"] if "conceptnet" in meta else "not recorded",
            "pairs": config["pairs"] if config["pairs"] is not None else "model default",
            "contexts per pair": config["max_contexts"] or "all",
            "thresholds": ", ".join(str(t) for t in config["thresholds"]),
            "seed": config["seed"],
        }
    )
    tables = run.tables
    if "relations" in tables:
        _relations_section(report, tables["relations"], tables.get("alar"), meta.get("conceptnet"))
    if "table1" in tables:
        _table1_section(report, tables["table1"], config["norms"])
    if "alar" in tables:
        _alar_section(report, tables["alar"])
        _cam_section(report, tables["cam"])
        _accuracy_section(report, tables["direction_accuracy"])
    if "factors" in tables:
        _factors_section(report, tables["factors"])
    if "similarity" in tables:
        _similarity_section(report, tables["similarity"])
    _coverage_section(report, tables, meta)
    return report


def _top(table: pd.DataFrame, count: str) -> list[str]:
    """The relations with the most pairs in ``table`` (``count`` summed over data sets)."""
    totals = table[table["relation"] != ALL_PAIRS].groupby("relation")[count].sum()
    return list(totals.sort_values(ascending=False).index[:_TOP_RELATIONS])


def _relations_section(
    report: Report,
    relations: pd.DataFrame,
    alar: pd.DataFrame | None,
    conceptnet: dict[str, Any] | None,
) -> None:
    """The paper's Table 5 relations: which the ConceptNet source lacks and which have no pair."""
    report.heading("ConceptNet relations of the paper (Table 5)")
    if conceptnet is not None:
        skipped = "; ".join(f"{k}: {v:,}" for k, v in conceptnet["skipped"].items()) or "none"
        report.paragraph(
            f"Relations annotated with {conceptnet['source']} ({conceptnet['n_assertions']:,} "
            f"assertions). Left out on reading: {skipped}."
        )
    absent = list(relations.loc[~relations["in_source"], "relation"].drop_duplicates())
    report.paragraph(
        f"Of the paper's {relations['relation'].nunique()} relations, {len(absent)} have no "
        f"single-word assertion in this source{': ' + ', '.join(absent) if absent else ''}."
    )
    for norm, group in relations.groupby("norm", sort=False):
        empty = list(group.loc[~group["has_pairs"], "relation"])
        found = f"no pair under {', '.join(empty)}" if empty else "pairs under every relation"
        report.paragraph(f"{norm}: {found}.")
    report.paragraph(
        "n_assertions: the source's distinct single-word assertions; pairs_<data>: the data "
        "set's annotated bidirectional pairs (relatedTo also holds the pairs found under no "
        "relation); alar_pairs_<data>: the pairs of the model's ALAR (eq. 9, LAR defined on "
        "both sides). A relation with 0 pairs has no ALAR row.",
        note=True,
    )
    report.table(_relations_wide(relations, alar))


def _relations_wide(relations: pd.DataFrame, alar: pd.DataFrame | None) -> pd.DataFrame:
    """One row per relation: ``n_assertions``, then ``pairs_<norm>`` and ``alar_pairs_<norm>``."""
    counts = [("pairs_", relations)] + ([("alar_pairs_", alar)] if alar is not None else [])
    wide = pd.concat(
        [
            table.pivot_table(
                index="relation", columns="norm", values="n_pairs", aggfunc="first", sort=False
            ).add_prefix(prefix)
            for prefix, table in counts
        ],
        axis=1,
    )
    assertions = relations.drop_duplicates("relation").set_index("relation")["n_assertions"]
    wide = wide.reindex(assertions.index).fillna(0).astype(int)
    return pd.concat([assertions, wide], axis=1).reset_index()


def _table1_section(report: Report, table: pd.DataFrame, norms: list[str]) -> None:
    report.heading("Table 1 — evocation data sets compared")
    report.paragraph(
        "Per ConceptNet relation: each data set's number of bidirectional pairs with a defined "
        "LAR and its ALAR (eq. 2, natural log; the paper prints 100 x ALAR), and the CAM (eq. 4, "
        "Spearman) of every two data sets on their common pairs."
    )
    report.table(table.head(_TOP_RELATIONS * 2), float_format="{:.3g}")


def _alar_section(report: Report, alar: pd.DataFrame) -> None:
    report.heading("Figure 1 — ALAR by relation, model vs data")
    report.paragraph(
        "Mean LAR (eq. 2) of each relation's pairs, oriented head -> tail by ConceptNet, over "
        "the pairs with a defined LAR in both the data and the model."
    )
    for norm, group in alar.groupby("norm", sort=False):
        shown = group[group["relation"].isin(_top(group, "n_pairs"))]
        report.figure(
            grouped_bars(
                shown,
                "relation",
                {"alar_data": f"{norm} (data)", "alar_model": "model"},
                title=f"ALAR per relation: model vs {norm}",
                ylabel="ALAR (natural log)",
            ),
            f"ALAR per relation, model vs {norm}",
        )
    report.table(alar, float_format="{:.3f}")


def _cam_section(report: Report, cam: pd.DataFrame) -> None:
    report.heading("Tables 2-3 — CAM of the model with each data set")
    report.paragraph(
        f"Spearman's rho between the model's and the data's LAR per relation (eq. 4); "
        f"'{ALL_PAIRS}': every distinct pair once (lexicographic orientation). Cells: rho "
        "[95% Fisher-z interval] (n)."
    )
    cells = cam.assign(
        cell=[
            _cam_cell(float(rho), float(low), float(high), int(n))
            for rho, low, high, n in zip(
                cam["cam"], cam["ci_low"], cam["ci_high"], cam["n"], strict=True
            )
        ]
    )
    relations = [ALL_PAIRS, *_top(cam, "n")]
    wide = cells.pivot_table(index="relation", columns="norm", values="cell", aggfunc="first")
    report.table(wide.reindex([r for r in relations if r in wide.index]).reset_index())


def _cam_cell(rho: float, low: float, high: float, n: int) -> str:
    """``rho [low, high] (n)``, or ``– (n)`` when rho is undefined."""
    return f"– ({n})" if np.isnan(rho) else f"{rho:.2f} [{low:.2f}, {high:.2f}] ({n})"


def _accuracy_section(report: Report, accuracy: pd.DataFrame) -> None:
    report.heading("Figure 4 — direction accuracy vs threshold (Appendix G)")
    report.paragraph(
        "Share of pairs with |LAR_data| > theta whose model LAR has the data's sign (eqs. 13-14)."
    )
    relations = [ALL_PAIRS, *_top(accuracy, "n")[:5]]
    panels = [
        Panel(
            str(norm),
            group[group["relation"].isin(relations)],
            "threshold",
            "accuracy",
            "relation",
            xlabel="theta",
            ylabel="direction accuracy",
        )
        for norm, group in accuracy.groupby("norm", sort=False)
    ]
    report.figure(line_figure(panels), "direction accuracy vs threshold")
    shown = accuracy[accuracy["relation"].isin(relations)]
    report.table(
        shown.pivot_table(
            index=["norm", "relation"], columns="threshold", values="accuracy"
        ).reset_index()
    )


def _factors_section(report: Report, factors: pd.DataFrame) -> None:
    report.heading("Figure 2 — number of contexts and word distance")
    report.paragraph(
        "Pairs with a defined LAR on both sides, cut into quantile bins of the number of "
        "paragraphs holding both words |C(a, b)| and of the mean distance in words between them; "
        "per bin the direction accuracy (theta = 0) and the CAM. x: the bin's median."
    )
    long = factors.melt(
        id_vars=["norm", "factor", "median", "n"],
        value_vars=["accuracy", "cam"],
        var_name="measure",
    )
    panels = [
        Panel(
            f"{norm}: {factor}",
            group,
            "median",
            "value",
            "measure",
            xlabel="contexts |C(a, b)|" if factor == "contexts" else "mean distance (words)",
        )
        for (norm, factor), group in long.groupby(["norm", "factor"], sort=False)
    ]
    report.figure(line_figure(panels), "direction accuracy and CAM by factor bin")
    report.table(factors, float_format="{:.3g}")


def _similarity_section(report: Report, similarity: pd.DataFrame) -> None:
    report.heading("Table 4 — similarity from the conditionals (Appendix F)")
    report.paragraph(
        "Spearman's rho of the pair scores against human similarity: geometric_mean = "
        "sqrt(P(b|a) P(a|b)); cosine (static vectors) = the geometric mean of the two eq. 7 "
        "projection proportions. n_used: pairs scored of n_pairs in the set."
    )
    report.table(similarity, float_format="{:.3g}")


def _coverage_section(
    report: Report, tables: dict[str, pd.DataFrame], meta: dict[str, Any]
) -> None:
    report.heading("Coverage — pairs kept by each step")
    if "coverage" in tables:
        report.table(tables["coverage"])
    elif "coverage" in meta:
        report.table(pd.DataFrame(meta["coverage"]))
    contextual = meta.get("contextual")
    if contextual:
        report.paragraph(
            f"Language model: {contextual['n_work_pairs']} pairs in the work list, "
            f"{contextual['n_contexts']} contexts, {contextual['n_passes']} distinct masked "
            f"passes over {contextual['paragraphs']:,} indexed paragraphs; work list "
            f"{'reused' if contextual['worklist_reused'] else 'built'} in {contextual['workdir']}.",
            note=True,
        )
