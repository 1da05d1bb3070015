"""The edge-probing report: Table 2, the layer-wise curve, Figure 3 and the scalar-mix weights of
Tenney et al. (2019) for one model and task, in one HTML page."""

from __future__ import annotations

import pandas as pd

from wordlens._plural import counted
from wordlens.report.bias_figures import grouped_bars
from wordlens.report.figures import Panel, line_figure
from wordlens.report.html import Report
from wordlens.results import Run

_LABELS_SHOWN = 25
"""Labels of the per-label table (most frequent first)."""


def build_probing_report(run: Run) -> Report:
    """The sections of one run, with its configuration, counts and timings."""
    meta = run.metadata
    model, config, task = meta["model"], meta["config"], meta["task"]
    report = Report(f"Edge probing — {task['name']} — {model['name']}", metadata=meta)
    report.definitions(
        {
            "model": f"{model['name']} ({model['kind']}, "
            f"{counted(model['n_layers'], 'hidden state')})",
            "fingerprint": model["fingerprint"],
            "task": f"{task['name']}: {task['description']}",
            "labels": len(meta["labels"]),
            "sentences (train / dev / test)": " / ".join(
                f"{meta['counts'][split]['sentences']:,}" for split in ("train", "dev", "test")
            ),
            "targets (train / dev / test)": " / ".join(
                f"{meta['counts'][split]['targets']:,}" for split in ("train", "dev", "test")
            ),
            "validation every": f"{meta['train']['validate_every']} steps",
            "seed": config["seed"],
        }
    )
    tables = run.tables
    _scores_section(report, tables["scores"])
    _layer_section(report, tables["scores"])
    _distance_section(report, tables["by_distance"])
    if "mix_weights" in tables:
        _mix_section(report, tables["mix_weights"])
    _labels_section(report, tables["per_label"])
    return report


def _scores_section(report: Report, scores: pd.DataFrame) -> None:
    report.heading("Table 2 — test micro-F1 per representation")
    report.paragraph(
        "Micro-averaged F1 over labels on the test split of the probe with the best dev "
        "micro-F1 (Appendix C schedule). majority: every target gets the train split's most "
        "frequent label set. expected_layer: sum_l l * w_l of the learned mix weights."
    )
    report.figure(
        grouped_bars(
            scores, "representation", {"test_micro_f1": "test micro-F1"}, ylabel="micro-F1"
        ),
        "test micro-F1 per representation",
    )
    report.table(scores, float_format="{:.4g}")


def _layer_section(report: Report, scores: pd.DataFrame) -> None:
    single = scores[scores["representation"].str.match(r"^(random-)?layer:\d+$")].copy()
    if len(single) < 2:
        return
    single["layer"] = single["representation"].str.extract(r"(\d+)$")[0].astype(int)
    single["encoder"] = (
        single["representation"]
        .str.startswith("random-")
        .map({True: "randomized", False: "trained"})
    )
    report.heading("Layer-wise curve")
    report.figure(
        line_figure(
            [Panel("test micro-F1 by layer", single, "layer", "test_micro_f1", "encoder")],
            columns=1,
        ),
        "test micro-F1 of a probe on each single layer",
    )


def _distance_section(report: Report, by_distance: pd.DataFrame) -> None:
    report.heading("Figure 3 — F1 by span distance")
    report.paragraph(
        "Test micro-F1 of the targets whose spans start this many source tokens apart (for "
        "dependencies: a word and its head), binned; single-span tasks have distance 0."
    )
    if by_distance["bin"].nunique() > 1:
        by_distance = by_distance.dropna(subset=["micro_f1"])
        report.figure(
            line_figure(
                [
                    Panel(
                        "F1 by distance",
                        by_distance,
                        "distance_low",
                        "micro_f1",
                        "representation",
                        xlabel="distance (tokens, bin start)",
                    )
                ],
                columns=1,
            ),
            "test micro-F1 by span distance",
        )
    report.table(by_distance, float_format="{:.3g}")


def _mix_section(report: Report, mix: pd.DataFrame) -> None:
    report.heading("Scalar-mix weights")
    report.paragraph(
        "softmax(s)_l of each mix probe (Peters et al. 2018, eq. 1): how much each hidden state "
        "(0 = the embedding output) contributes."
    )
    report.figure(
        line_figure([Panel("mix weights", mix, "layer", "weight", "representation")], columns=1),
        "scalar-mix weights per layer",
    )
    report.table(
        mix.pivot_table(index="layer", columns="representation", values="weight").reset_index()
    )


def _labels_section(report: Report, per_label: pd.DataFrame) -> None:
    report.heading("Per-label F1 (test)")
    wide = per_label.pivot_table(
        index=["label", "support"], columns="representation", values="f1"
    ).reset_index()
    wide = wide.sort_values("support", ascending=False).head(_LABELS_SHOWN)
    report.table(wide, float_format="{:.3f}")
