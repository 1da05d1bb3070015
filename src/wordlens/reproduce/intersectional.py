"""Reproducing Omrani Sabbaghi, Wolfe & Caliskan (2023), "Evaluating Biased Attitude
Associations of Language Models in an Intersectional Context" (``intersectional``).

Three experiments of the ``intersectional`` method, each with the paper's conventions
(``conventions: paper``: a causal model's words and phrases follow the BOS token, as the
authors' ``ADD_BOS`` for GPT-Neo and XLNet, shivaomrani/LLM-Bias ``src/experiment1_valnorm.py:
28-33, 42-47`` and ``src/embedding_collector.py:54-57``; last-subtoken pooling and the SVC
settings are the method's defaults, already the authors'):

- ``valnorm`` (section 5.1, Figure 2): projection and cosine ValNorm on Bellezza's lexicon at
  every layer;
- ``differential`` (section 5.2, Table 2, Figure 3): the 4,096 combination phrases "a {12
  categories} person", the projection SC-WEAT per bias at the top layer;
- ``strongest`` (section 5.3, Figure 4): the 3,840 permutation phrases of race, sex, religion,
  gender and sexual orientation; the categories of the 10% most and least pleasant.

**Measured here.** Figure 2 (ValNorm r by layer): the paper's layer ``L`` of its model's
``N`` layers (GPT-Neo 1.3B: 24; ALBERT, T5, RoBERTa, XLNet: 12; the authors' ``LAYERS`` of 25
and 13 hidden states, ``experiment1_valnorm.py:14-47``) is measured at this model's layer
``round(L * top / N)`` (halves rounded up), the same relative depth; a one-layer (static) model
has only the paper's layer 0 (the input embeddings). Figure 3 (mean projection of "person" over
the phrases with each category, at the top layer): ``mean_a``/``mean_b`` of the differential
table. Figure 4: ``pct_top``/``pct_bottom`` of the strongest-bias categories.

**Where the paper's numbers depart from its method.** Figure 3's "male" and "literate" are the
mean over all 4,096 phrases: the authors' figure script selects the phrases of a category by
substring (``tup[0] in i``, ``experiment2_generate_image.py:52-53``), so "male" also takes every
"female" phrase and "literate" every "illiterate" one (the two print the same value,
-0.9454...). wordlens selects by exact token; the note of those two items gives this run's mean
over all phrases, the number the authors' script would print. Table 2's p-values (lost in the
extraction) come from the authors' normal fit to 1,000 permutations with replacement; wordlens
counts over 10,000 distinct swaps within twin pairs
(:mod:`wordlens.methods.intersectional.experiments`), so
the significance in the findings' checks is wordlens's one-sided p < .05.

Table 2 and the text's numbers are lost in the extraction (the YAML's ``lost``): no items.

**Findings.** Those on Figures 2-4 (ValNorm by layer; the shares and mean projections of
sections 6.1 and 6.3) rest on the plotted values the YAML transcribes from the figures' source:
each is a :class:`~wordlens.reproduce.base.TableCheck` over those cells, evaluated on the
published values and on this run's, with the run's uncertainty on Figure 2 (Fisher-z interval
on r), Figure 3 (1.96 SE of the mean) and Figure 4 (the Wilson interval on a share of the
group's phrases: 38 at smoke scale, 384 in the paper). Those on Table 2 (section 6.2:
significance, signs of d, counts) rest on numbers the extraction lost: functions of the runs
(:meth:`IntersectionalReproduction.basis`), noise-aware through the normal interval of Cohen's
d (:func:`d_half_width`). A significance is ``holds`` only with p < .05 beyond the Monte-Carlo
(Clopper-Pearson) error of the sampled permutation p (:func:`p_half_width`), ``does not hold``
only when significant the other way, and otherwise ``inconclusive`` with d's interval: a p
above .05 on a few dozen phrases is not evidence that there is no effect (:func:`_significant`).
Findings about GPT-Neo or T5 are judged on this run's model and marked so
(:data:`~wordlens.reproduce.base.NAMED_MODEL_RULE`,
:meth:`IntersectionalReproduction.named_models`). Each check quotes the paper's words that set
its threshold; "roughly equally" (male and female), for which the paper gives none, is
:data:`BALANCE_TOLERANCE`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens._plural import counted
from wordlens.report import format_p
from wordlens.reproduce.base import (
    Z95,
    Cells,
    Check,
    Experiment,
    FindingCheck,
    Measured,
    NotMeasured,
    PaperReproduction,
    Runs,
    Scale,
    TableCheck,
    all_hold,
    clopper_pearson_interval,
    combined_uncertainty,
    interval_half_width,
    judge,
    missing,
    not_measurable,
    proportion_half_width,
    same_depth,
)
from wordlens.reproduce.published import PublishedItem, load_published

METHOD = "intersectional"
VALNORM, DIFFERENTIAL, STRONGEST = "valnorm", "differential", "strongest"
ALPHA = 0.05
"""Significance level of the findings' checks (one-sided permutation p)."""
PAPER_LAYERS = {
    "EleutherAI/gpt-neo-1.3B": 24,
    "albert-base-v2": 12,
    "t5-base": 12,
    "roberta-base": 12,
    "xlnet-base-cased": 12,
}
"""Transformer layers of the paper's models (hidden states minus the input embeddings: the
authors' ``LAYERS`` = 25 and 13, ``experiment1_valnorm.py:14-47``)."""
VALNORM_SERIES = {"svc projection": "projection", "cosine sc-weat": "cosine"}
"""Figure 2's two series (the items' ``setting.method``) → wordlens's column prefix."""
SUBSTRING_CATEGORIES = {"male": "female", "literate": "illiterate"}
"""Categories that are substrings of their opposite: the authors' Figure 3 script counts the
opposite's phrases too (``experiment2_generate_image.py:52-53``)."""
PAPER_GROUP = 384
"""Phrases in each of Figure 4's groups: 10% of the 3,840 five-category permutations (section
5.3; the figure's percentages are multiples of 1/384)."""
BALANCE_TOLERANCE = 100 * Z95 * math.sqrt(2 * 0.5 * 0.5 / PAPER_GROUP)
"""Percentage points (7.07) within which a category counts as occurring 'roughly equally'
among the most pleasant and the most unpleasant contexts: the 95% range of the difference
between a share of ~50% in two independent groups of :data:`PAPER_GROUP` phrases, i.e. the gap
a category unrelated to valence shows by chance. It lies between the gap the paper calls
'roughly equal' (male and female: 4.42 points) and the smallest it calls 'more frequently'
(Muslim: 15.89 points; white: 18.49)."""
SMOKE_STUDY = Path(__file__).with_name("studies") / "intersectional-smoke.yaml"
"""The study of the smoke scale: six of the paper's biases combined, four permuted."""
SMOKE_DEPARTURES = {
    DIFFERENTIAL: "experiment 2 combines 6 of the paper's 12 biases (social class, race, sexual "
    "orientation, religion, gender, sex): 64 phrases instead of 4,096; the other six biases' "
    "Figure 3 items are not measured",
    STRONGEST: "experiment 3 permutes 4 of the paper's 5 biases (race, religion, gender, sexual "
    "orientation; not sex): 384 four-category phrases instead of 3,840 five-category ones; "
    "Figure 4's 'male' and 'female' are not measured",
}

GPT_NEO_FINDINGS = (
    "heterosexual-cisgender-most-pleasant",
    "homosexual-transgender-most-unpleasant",
    "homosexual-rare-among-pleasant",
    "others-below-55-among-unpleasant",
    "muslim-white-more-unpleasant",
    "male-female-balanced",
    "white-below-black-in-gpt-neo",
)
"""The findings on GPT-Neo alone (Figure 4, and Figure 3's white and black)."""
Row = dict[str, Any]
"""One row of a run's table."""
FloatArray = npt.NDArray[np.float64]
Group = Literal["top", "bottom"]
Relation = Literal[">", "<", "<="]
Condition = tuple[str, Group, Relation, float]
"""A share condition: (category, group, relation, bound in percent)."""
_GROUP_NAMES: dict[Group, str] = {"top": "most pleasant", "bottom": "most unpleasant"}


class IntersectionalReproduction(PaperReproduction):
    """The intersectional paper's reproduction (see the module notes)."""

    paper = "intersectional"

    def experiments(self, scale: Scale) -> list[Experiment]:
        """ValNorm, differential and strongest biases as three runs with the paper's
        conventions; at smoke scale experiments 2 and 3 read :data:`SMOKE_STUDY` (six biases
        combined, four permuted: see :data:`SMOKE_DEPARTURES`)."""
        smoke = scale == "smoke"
        study = {"study": str(SMOKE_STUDY)} if smoke else {}
        return [
            Experiment(VALNORM, METHOD, _options(VALNORM)),
            *(
                Experiment(
                    name,
                    METHOD,
                    _options(name) | study,
                    SMOKE_DEPARTURES[name] if smoke else "",
                )
                for name in (DIFFERENTIAL, STRONGEST)
            ),
        ]

    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        """Figure 2 from the ValNorm table at the same relative depth, Figure 3 from the
        differential table's group means, Figure 4 from the category shares."""
        measures = {2: _measure_valnorm, 3: _measure_mean_projection, 4: _measure_share}
        number = item.location.number
        if item.location.kind != "figure" or number not in measures:
            return NotMeasured("a property of the paper's setup, not measured")
        return measures[number](item, runs)

    def checks(self) -> Mapping[str, FindingCheck]:
        """Every finding of the paper's YAML: those on Figures 2-4 (whose plotted values the
        YAML transcribes from the figures' source) over their cells, those on Table 2 (lost in
        the extraction) over the runs (see each function)."""
        figure2 = _figure2_items()
        return {
            "svc-beats-cosine": TableCheck(figure2, check_svc_beats_cosine),
            "svc-stays-high-in-top-layer": TableCheck(figure2, check_svc_stays_high),
            "sexual-orientation-gender-identity-biased-everywhere": check_orientation_gender,
            "social-class-biased-in-four": check_social_class,
            "men-more-pleasant-in-three": check_men_more_pleasant,
            "t5-women-more-pleasant": check_t5_women,
            "half-of-tests-positive": check_half_positive,
            "gpt-neo-most-significant-tests": check_most_significant,
            "heterosexual-cisgender-most-pleasant": share_check(
                [
                    ("heterosexual", "top", ">", 93.0),
                    ("cisgender", "top", ">", 70.0),
                    ("christian", "top", ">", 65.0),
                ],
                "the paper: 'more than 93% of the most pleasant phrases containing the word "
                '"heterosexual," and more than 70% ... "cisgender"\', \'more than 65% of the '
                "most pleasant phrases containing the word' (Christian)",
            ),
            "homosexual-transgender-most-unpleasant": share_check(
                [("homosexual", "bottom", ">", 99.0), ("transgender", "bottom", ">", 93.0)],
                "the paper: 'more than 99% of the most negative phrases containing the word "
                '"homosexual," and more than 93% ... "transgender"\'',
            ),
            "homosexual-rare-among-pleasant": share_check(
                [("homosexual", "top", "<", 7.0), ("heterosexual", "bottom", "<", 1.0)],
                'the paper: \'"homosexual" occurs in the most positively valenced phrases less '
                "than 7% of the time', '\"heterosexual\" occurs less than 1% of the time in the "
                "most negatively valenced phrases'",
            ),
            "others-below-55-among-unpleasant": share_check(
                [(category, "bottom", "<=", 55.0) for category in OTHERS],
                "the paper: 'None of the eight other words assessed occurs in more than 55% of "
                "the most negative phrases'",
            ),
            "muslim-white-more-unpleasant": TableCheck(
                _pairs(("muslim", "white")), check_muslim_white
            ),
            "male-female-balanced": TableCheck(_pairs(("male", "female")), check_male_female),
            "white-below-black-in-gpt-neo": TableCheck(
                ("figure3-white", "figure3-black", *_pairs(("white", "black"))),
                check_white_below_black,
            ),
        }

    def basis(self) -> Mapping[str, str]:
        """The findings on Table 2, whose numbers the extraction lost: checked on the runs only
        (their published verdict is ``not measurable``)."""
        return dict.fromkeys(TABLE2_FINDINGS, TABLE2_LOST)

    def named_models(self) -> Mapping[str, tuple[str, ...]]:
        """The paper's models each finding is about (:data:`PAPER_LAYERS`; Figure 4 and the
        white/black finding are GPT-Neo's), judged on this run's model and marked when it is
        another (:data:`~wordlens.reproduce.base.NAMED_MODEL_RULE`)."""
        five = tuple(PAPER_LAYERS)
        gpt_neo = ("EleutherAI/gpt-neo-1.3B",)
        about: dict[str, tuple[str, ...]] = dict.fromkeys(
            (
                "svc-beats-cosine",
                "svc-stays-high-in-top-layer",
                "sexual-orientation-gender-identity-biased-everywhere",
                "social-class-biased-in-four",
                "half-of-tests-positive",
            ),
            five,
        )
        about["men-more-pleasant-in-three"] = tuple(m for m in five if "xlnet" not in m)
        about["t5-women-more-pleasant"] = ("t5-base",)
        about |= dict.fromkeys(GPT_NEO_FINDINGS, gpt_neo)
        return about


def _options(experiment: str) -> dict[str, Any]:
    """The method's options for one of its experiments, with the paper's conventions."""
    return {"conventions": "paper", "experiments": [experiment]}


# ---------------------------------------------------------------- measuring items


def _measure_valnorm(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    absent = missing(runs, VALNORM)
    if absent is not None:
        return absent
    run = runs[VALNORM]
    table = run.tables["valnorm"]  # one row per layer
    prefix = VALNORM_SERIES[str(item.setting["method"])]
    paper_layer = int(str(item.setting["layer"]))
    paper_layers = PAPER_LAYERS[str(item.model)]
    top = int(table["layer"].max())
    if top == 0 and paper_layer > 0:
        return NotMeasured(
            f"this model has one layer (static vectors); the paper's layer {paper_layer} of "
            f"{paper_layers} has no counterpart (only layer 0, the input embeddings)"
        )
    layer = same_depth(paper_layer, paper_layers, top)
    where = (
        f"layer {layer} of {top} (depth {layer / top:.2f})"
        if top
        else "the static vectors (one layer)"
    )
    section = run.metadata["experiments"][VALNORM]
    row = table.loc[table["layer"] == layer].iloc[0]
    return Measured(
        float(row[f"{prefix}_r"]),
        f"{where} for the paper's layer {paper_layer} of {paper_layers} (depth "
        f"{paper_layer / paper_layers:.2f}); {section['n_lexicon_words']} of "
        f"{section['n_lexicon_words_given']} {section['lexicon']} words (the missing ones are "
        "listed in the run's metadata); uncertainty: the Fisher-z 95% interval on r",
        interval_half_width(float(row[f"{prefix}_ci_low"]), float(row[f"{prefix}_ci_high"])),
    )


def _measure_mean_projection(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    absent = missing(runs, DIFFERENTIAL)
    if absent is not None:
        return absent
    run = runs[DIFFERENTIAL]
    table = run.tables["differential"]  # one row per bias
    category = str(item.setting["category"])
    firsts, seconds = table[table["first"] == category], table[table["second"] == category]
    if firsts.empty and seconds.empty:
        study = run.metadata["config"]["study"]["name"]
        return NotMeasured(f"the differential run's study ({study}) has no category {category!r}")
    row, column = (firsts.iloc[0], "mean_a") if not firsts.empty else (seconds.iloc[0], "mean_b")
    count = int(row["n_a"] if column == "mean_a" else row["n_b"])
    note = (
        f"mean projection of 'person' at the top layer {int(row['layer'])} over the {count:,} "
        f"phrases containing {category!r}"
    )
    if category in SUBSTRING_CATEGORIES:
        overall = float(run.tables["combination_projections"]["projection"].mean())
        note += (
            f" (by exact token); the paper's value is the mean over all phrases, since the "
            f"authors' substring match also counts every {SUBSTRING_CATEGORIES[category]!r} "
            f"phrase (experiment2_generate_image.py:52-53): here {overall:.4f}"
        )
    spread = Z95 * float(row["std"]) / count**0.5
    note += (
        f"; uncertainty: 1.96 SE of the mean, with the bias's pooled std {float(row['std']):.4f}"
    )
    return Measured(float(row[column]), note, spread)


def _measure_share(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    absent = missing(runs, STRONGEST)
    if absent is not None:
        return absent
    run = runs[STRONGEST]
    table = run.tables["strongest_categories"]  # one row per category
    category = str(item.setting["category"])
    rows = table[table["category"] == category]
    if rows.empty:
        permuted = ", ".join(run.metadata["experiments"][STRONGEST]["permuted_biases"])
        return NotMeasured(f"{category!r} is not among the permuted biases ({permuted})")
    group: Group = "top" if "unpleasant" not in str(item.setting["subset"]) else "bottom"
    section = run.metadata["experiments"][STRONGEST]
    share, n = float(rows.iloc[0][f"pct_{group}"]), int(section["n_per_group"])
    return Measured(
        share,
        f"of the {n:,} {_GROUP_NAMES[group]} of {section['n_phrases']:,} phrases, at the top "
        f"layer {section['layer']}; uncertainty: the 95% Wilson interval on a share of {n:,} "
        "phrases",
        100 * proportion_half_width(share / 100, n),
    )


# ---------------------------------------------------------------- findings: ValNorm (Figure 2)


@functools.cache
def figure2_ids() -> dict[str, dict[str, tuple[str, ...]]]:
    """Figure 2's items: paper model → series (:data:`VALNORM_SERIES`) → item ids by layer
    (0 to the model's :data:`PAPER_LAYERS`)."""
    panels: dict[str, dict[str, dict[int, str]]] = {}
    for item in load_published("intersectional").items:
        if item.location.kind == "figure" and item.location.number == 2:
            series = panels.setdefault(str(item.model), {}).setdefault(
                VALNORM_SERIES[str(item.setting["method"])], {}
            )
            series[int(str(item.setting["layer"]))] = item.id
    return {
        model: {name: tuple(ids[layer] for layer in sorted(ids)) for name, ids in series.items()}
        for model, series in panels.items()
    }


def _figure2_items() -> tuple[str, ...]:
    return tuple(id for series in figure2_ids().values() for ids in series.values() for id in ids)


def _panel(cells: Cells, model: str) -> tuple[FloatArray, FloatArray, FloatArray] | Check:
    """One panel of Figure 2: projection r, cosine r and the half-width of the interval on
    their difference, by the paper's layer; or why it is not measurable (a layer without a
    value: a static model has only layer 0)."""
    ids = figure2_ids()[model]
    values = {
        name: np.array([cells.value(id) for id in ids[name]]) for name in ("projection", "cosine")
    }  # [n_layers] each
    if any(np.isnan(series).any() for series in values.values()):
        return Check(
            "not measurable",
            f"{_short(model)}: not every layer has a value (a one-layer model has layer 0 only)",
        )
    spread = np.array(
        [
            combined_uncertainty(cells.uncertainty(projection), cells.uncertainty(cosine))
            for projection, cosine in zip(ids["projection"], ids["cosine"], strict=True)
        ]
    )  # [n_layers]
    return values["projection"], values["cosine"], spread


def _short(model: str) -> str:
    return model.rsplit("/", 1)[-1]


def _panels_note(cells: Cells) -> str:
    if cells.one_model:
        return (
            "measured: each panel holds this run's model at the paper model's relative depths, "
            "so the five panels are one model sampled five ways"
        )
    return "published: Figure 2's five panels"


def check_svc_beats_cosine(cells: Cells) -> Check:
    """Figure 2 (section 6.1): in every panel the projection r exceeds the cosine r on average
    over the layers, and by more in the upper half of the layers than in the lower half.

    The paper: 'learning an affective dimension in the embedding space outperforms cosine
    similarity on the ValNorm intrinsic evaluation task' and 'The effect is especially
    noticeable in the highly contextual upper layers of these models' (6.1), 'in the upper
    layers of every model' (section 1). Two parts per panel: the mean gap (projection r minus
    cosine r, over all layers) > 0, and the mean gap over the upper layers (layer > N / 2) minus
    that over the lower ones (the middle layer counts as lower) > 0. Uncertainty: the mean over
    the layers of the Fisher-z half-widths on each layer's difference (in quadrature), not
    divided by the square root of the layer count, since neighbouring layers are correlated.
    """
    parts = []
    for model, layers in PAPER_LAYERS.items():
        panel = _panel(cells, model)
        if isinstance(panel, Check):
            parts.append(panel)
            continue
        projection, cosine, spread = panel
        gap = projection - cosine  # [n_layers]
        upper = np.arange(layers + 1) > layers / 2  # [n_layers]
        overall, high, low = float(gap.mean()), float(gap[upper].mean()), float(gap[~upper].mean())
        name = _short(model)
        parts.append(
            judge(
                overall,
                float(spread.mean()),
                f"{name}: projection r above cosine r at {int((gap > 0).sum())} of "
                f"{counted(len(gap), 'layer')}, mean gap {overall:+.3f}",
            )
        )
        parts.append(
            judge(
                high - low,
                combined_uncertainty(float(spread[upper].mean()), float(spread[~upper].mean())),
                f"{name}: upper-half gap {high:+.3f} vs. lower-half {low:+.3f} (layers > "
                f"{layers / 2:g} of {layers})",
            )
        )
    return all_hold(
        parts,
        "the paper: 'outperforms cosine similarity', 'especially noticeable in the highly "
        "contextual upper layers', in all five models (mean gap > 0, upper-half gap > "
        f"lower-half gap; {_panels_note(cells)})",
    )


def check_svc_stays_high(cells: Cells) -> Check:
    """Figure 2 (section 6.1): in every panel, at the top layer, the projection r exceeds the
    cosine r, and the cosine r has dropped more below its own peak (over the layers) than the
    projection r has.

    The paper: 'the ValNorm score ... drops to [lost] in the top layer of GPT-Neo 1.3B when
    using cosine similarity, but stays high ... when using the projection product', and 'a
    similar effect occurs in all five of the language models'. Margins: the top-layer gap, and
    the cosine's drop minus the projection's drop; uncertainties: the Fisher-z half-widths of
    the cells involved, in quadrature.
    """
    parts = []
    for model in PAPER_LAYERS:
        panel = _panel(cells, model)
        if isinstance(panel, Check):
            parts.append(panel)
            continue
        projection, cosine, _ = panel
        ids = figure2_ids()[model]
        name, top = _short(model), len(projection) - 1
        tops, drops, widths, text = {}, {}, {}, []
        for series, values in (("projection", projection), ("cosine", cosine)):
            peak = int(np.argmax(values))
            tops[series], drops[series] = float(values[top]), float(values[peak] - values[top])
            widths[series] = (
                cells.uncertainty(ids[series][top]),
                cells.uncertainty(ids[series][peak]),
            )
            text.append(
                f"{series} r {values[top]:.3f} (peak {values[peak]:.3f} at layer {peak}, drop "
                f"{drops[series]:.3f})"
            )
        evidence = f"{name} top layer {top}: " + ", ".join(text)
        parts.append(
            judge(
                tops["projection"] - tops["cosine"],
                combined_uncertainty(widths["projection"][0], widths["cosine"][0]),
                evidence,
            )
        )
        parts.append(
            judge(
                drops["cosine"] - drops["projection"],
                combined_uncertainty(*widths["projection"], *widths["cosine"]),
                "",
            )
        )
    return all_hold(
        parts,
        "the paper: 'drops to [lost] in the top layer ... when using cosine similarity, but stays "
        "high ... when using the projection product', 'a similar effect occurs in all five' "
        "(top-layer projection r > cosine r, and the cosine's drop from its peak > the "
        f"projection's; {_panels_note(cells)})",
    )


# ---------------------------------------------------------------- findings: Table 2 (runs)

TABLE2_LOST = "Table 2 (its effect sizes and p-values are lost in the extraction)"
"""What the differential findings rest on: numbers the paper prints but the text lost."""
TABLE2_FINDINGS = (
    "sexual-orientation-gender-identity-biased-everywhere",
    "social-class-biased-in-four",
    "men-more-pleasant-in-three",
    "t5-women-more-pleasant",
    "half-of-tests-positive",
    "gpt-neo-most-significant-tests",
)
"""The findings on Table 2: functions of the runs (:meth:`IntersectionalReproduction.basis`)."""


def _differential(runs: Runs) -> pd.DataFrame | Check:
    absent = not_measurable(runs, DIFFERENTIAL)
    return absent if absent is not None else runs[DIFFERENTIAL].tables["differential"]


def _test(table: pd.DataFrame, first: str, second: str) -> Row:
    """The differential row of ``first`` vs. ``second``.

    Raises
    ------
    KeyError
        If the run has no such test.
    """
    for row in _records(table):
        if row["first"] == first and row["second"] == second:
            return row
    raise KeyError(f"no differential test {first} vs. {second}")


def _records(table: pd.DataFrame) -> list[Row]:
    return [{str(key): value for key, value in row.items()} for row in table.to_dict("records")]


def _described(row: Row) -> str:
    p = format_p(row["p_one_sided"], row.get("n_partitions"), digits=4)
    return f"{row['test']} d = {row['effect_size']:+.3f}, p {p if p.startswith('<') else '= ' + p}"


def p_half_width(row: Row) -> float:
    """The half-width of the 95% Clopper-Pearson interval on a sampled permutation p-value
    (its Monte-Carlo error: ``p N`` of ``N`` random partitions as extreme as the observed one;
    Clopper & Pearson 1934), 0 for an exact (enumerated) test. It says how well the partitions
    pin down p, not how likely the test was to detect an effect (its power)."""
    if bool(row["exact"]):
        return 0.0
    return interval_half_width(*clopper_pearson_interval(row["p_one_sided"], row["n_permutations"]))


def d_half_width(row: Row) -> float:
    """The half-width of the 95% normal interval on Cohen's d of groups of ``n_a`` and
    ``n_b``: ``1.96 sqrt((n_a + n_b) / (n_a n_b) + d^2 / (2 (n_a + n_b)))`` (Hedges & Olkin
    1985, eq. 5.14)."""
    n_a, n_b, d = int(row["n_a"]), int(row["n_b"]), float(row["effect_size"])
    return Z95 * math.sqrt((n_a + n_b) / (n_a * n_b) + d * d / (2 * (n_a + n_b)))


def _significant(row: Row) -> Check:
    """A significantly positive effect (the first category more pleasant):

    - ``holds`` when the one-sided p is below :data:`ALPHA` beyond its Monte-Carlo error
      (margin ``ALPHA - p``, uncertainty :func:`p_half_width`);
    - ``does not hold`` when the effect is significantly the other way (one-sided p above
      ``1 - ALPHA`` beyond its error: the second category more pleasant);
    - else ``inconclusive``: a p of .19 on 64 phrases says the run did not detect the effect,
      not that there is none (absence of significance is not evidence of absence, and the test's
      power at this size is unknown). Its margin and uncertainty are then those of d and its
      95% interval (:func:`d_half_width`), the size of effect the run cannot exclude.
    """
    p, p_error = float(row["p_one_sided"]), p_half_width(row)
    if ALPHA - p > p_error:
        return Check("holds", _described(row), ALPHA - p, p_error)
    if p - (1 - ALPHA) > p_error:
        return Check(
            "does not hold", f"{_described(row)}: significant the other way", ALPHA - p, p_error
        )
    d, half = float(row["effect_size"]), d_half_width(row)
    return Check(
        "inconclusive",
        f"{_described(row)}: not significant at {ALPHA} on this run, which is not evidence of no "
        f"effect (d's 95% interval [{d - half:+.3f}, {d + half:+.3f}])",
        d,
        half,
    )


def _significance_checks(runs: Runs, pairs: Sequence[tuple[str, str]], words: str) -> Check:
    """Every test of ``pairs`` significant and positive (one-sided p < .05)."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    return all_hold(
        [_significant(_test(table, first, second)) for first, second in pairs],
        f"{words} (one-sided permutation p < {ALPHA}, the first category more pleasant, on "
        "this model)",
    )


def check_orientation_gender(runs: Runs) -> Check:
    """Table 2 (section 6.2): heterosexual vs. homosexual and cisgender vs. transgender both
    significantly positive on this model. The paper: 'A statistically significant positive
    effect size is obtained for the heterosexual vs. homosexual and cisgender vs. transgender
    test for all five of the models'."""
    return _significance_checks(
        runs,
        [("heterosexual", "homosexual"), ("cisgender", "transgender")],
        "the paper: 'A statistically significant positive effect size ... for all five of the "
        "models'",
    )


def check_social_class(runs: Runs) -> Check:
    """Table 2 (section 6.2): affluent vs. destitute significantly positive on this model. The
    paper: 'Statistically significant valence bias effect sizes are also obtained for four
    language models for the affluent vs. destitute test' (one model decides only whether it
    would be among the four)."""
    return _significance_checks(
        runs,
        [("affluent", "destitute")],
        "the paper: 'Statistically significant ... for four language models' (one model: "
        "whether it joins the four)",
    )


def _is_t5(runs: Runs) -> bool:
    return any("t5" in str(run.metadata["model"]["name"]).lower() for run in runs.values())


def _direction(row: Row, sign: int, words: str) -> Check:
    """``sign * d > 0``, within the interval of :func:`d_half_width`."""
    return judge(
        sign * float(row["effect_size"]),
        d_half_width(row),
        f"{_described(row)} (95% interval ±{d_half_width(row):.3f}); {words}",
    )


def check_men_more_pleasant(runs: Runs) -> Check:
    """Table 2 (section 6.2): male vs. female positive on this model, as ALBERT, GPT-Neo and
    RoBERTa; negative on a T5 model (the paper's exception). The paper: 'three of five language
    models (ALBERT, GPT-Neo, and RoBERTa) differentially associate men with pleasantness over
    women. While effect sizes are small ...': the sign of d, beyond its 95% interval."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    row = _test(table, "male", "female")
    if _is_t5(runs):
        return _direction(
            row,
            -1,
            "the paper: 'The association of women with pleasantness "
            "is, however, observed in T5' (d < 0 expected)",
        )
    return _direction(
        row,
        1,
        "the paper: 'differentially associate men with pleasantness "
        "over women' (d > 0 expected, as ALBERT, GPT-Neo, RoBERTa)",
    )


def check_t5_women(runs: Runs) -> Check:
    """Table 2 (section 6.2): male vs. female d < 0 (women more pleasant), a claim about T5,
    judged on this run's model as every finding about a named model
    (:data:`~wordlens.reproduce.base.NAMED_MODEL_RULE`; the runner marks it when the model is
    not T5). The paper: 'The association of women with pleasantness is, however, observed in
    T5.'"""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    return _direction(
        _test(table, "male", "female"),
        -1,
        "the paper: 'The association of women with pleasantness is, however, observed in T5' "
        "(d < 0 expected)",
    )


def check_half_positive(runs: Runs) -> Check:
    """Table 2 (section 6.2): at least half of this model's differential tests have a positive
    effect size. The paper: 'in every model at least half of the bias tests yield positive
    effect sizes'.

    The margin is in tests: the count of positive effects minus ``k - 0.5``, ``k`` = half the
    tests rounded up (the threshold between ``k - 1`` and ``k``). Its uncertainty is the number
    of tests whose sign the run cannot tell (0 within the 95% interval of
    :func:`d_half_width`) that could move the count across the threshold: the uncertain
    positives when the count is above it, the uncertain negatives when below.
    """
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    rows = _records(table)
    needed = math.ceil(len(rows) / 2)
    positive = sum(row["effect_size"] > 0 for row in rows)
    sure = sum(row["effect_size"] - d_half_width(row) > 0 for row in rows)
    possible = sum(row["effect_size"] + d_half_width(row) > 0 for row in rows)
    margin = positive - needed + 0.5
    negative = ", ".join(
        f"{row['test']} {row['effect_size']:+.2f}" for row in rows if row["effect_size"] <= 0
    )
    return judge(
        margin,
        float(positive - sure if margin > 0 else possible - positive),
        f"{positive} of {len(rows)} tests positive ({sure} beyond their 95% interval, "
        f"{possible} possibly); negative: {negative or 'none'}; the paper: 'in every model at "
        f"least half of the bias tests yield positive effect sizes' (at least {needed})",
    )


def check_most_significant(runs: Runs) -> Check:
    """Table 2 (section 6.2): not measurable: a comparison of the paper's five models ('the
    most of any of the models studied herein') with an effect-size threshold lost in the
    extraction ('a statistically significant bias effect size of at least [lost]')."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    significant = sum(_significant(row).verdict == "holds" for row in _records(table))
    return Check(
        "not measurable",
        "compares the paper's five models ('the most of any of the models studied herein'), "
        f"and its effect-size threshold is lost in the extraction; this model has {significant} "
        f"of {len(table)} tests with one-sided p < {ALPHA} (run the other models and compare "
        "their differential tables)",
    )


# ---------------------------------------------------------------- findings: Figures 3 and 4


def _pct(value: float) -> str:
    """A share as evidence shows it: ``52.86%``, or ``(not measured)``."""
    return "(not measured)" if math.isnan(value) else f"{value:.2f}%"


def _share_id(category: str, group: Group) -> str:
    return f"figure4-{'pleasant' if group == 'top' else 'unpleasant'}-{category}"


def _pairs(categories: Sequence[str]) -> tuple[str, ...]:
    """Figure 4's items of ``categories``, most pleasant then most unpleasant."""
    groups: tuple[Group, ...] = ("top", "bottom")
    return tuple(_share_id(category, group) for group in groups for category in categories)


def _share_part(cells: Cells, condition: Condition) -> Check:
    """One share condition: margin ``value - bound`` for ``>``, ``bound - value`` otherwise
    (a share equal to a ``<=`` bound counts as not holding: Figure 4's shares are multiples of
    1/384, which 55% is not)."""
    category, group, relation, bound = condition
    id = _share_id(category, group)
    value = cells.value(id)
    margin = value - bound if relation == ">" else bound - value
    return judge(
        margin,
        cells.uncertainty(id),
        f"{category} {_pct(value)} of the {_GROUP_NAMES[group]} ({relation} {bound:g})",
    )


def share_check(conditions: Sequence[Condition], words: str) -> TableCheck:
    """A finding on Figure 4's shares: every condition (category, group, relation, bound in
    percent) holds. ``words`` quotes the paper's sentence that sets the bounds."""

    def check(cells: Cells) -> Check:
        return all_hold([_share_part(cells, condition) for condition in conditions], words)

    return TableCheck(
        tuple(_share_id(category, group) for category, group, *_ in conditions), check
    )


OTHERS = ("heterosexual", "cisgender", "christian", "black", "female", "male", "white", "muslim")
"""Figure 4's eight categories other than 'homosexual' and 'transgender'."""


def check_muslim_white(cells: Cells) -> Check:
    """Figure 4 (section 6.3): 'muslim' and 'white' each have a larger share of the most
    unpleasant contexts than of the most pleasant. The paper: 'The word "Muslim" occurs more
    frequently in the most negatively valenced phrases than it does in the most positively
    valenced phrases, as does the word "white."' Margin: the unpleasant share minus the
    pleasant share, in percentage points."""
    parts = []
    for category in ("muslim", "white"):
        bottom, top = _share_id(category, "bottom"), _share_id(category, "top")
        low, high = cells.value(bottom), cells.value(top)
        parts.append(
            judge(
                low - high,
                combined_uncertainty(cells.uncertainty(bottom), cells.uncertainty(top)),
                f"{category} {_pct(low)} of the most unpleasant, {_pct(high)} of the most pleasant",
            )
        )
    return all_hold(
        parts, "the paper: 'occurs more frequently in the most negatively valenced phrases'"
    )


def check_male_female(cells: Cells) -> Check:
    """Figure 4 (section 6.3): 'male' and 'female' each differ by at most
    :data:`BALANCE_TOLERANCE` (7.07) percentage points between the most pleasant and the most
    unpleasant contexts. The paper: 'The words "male" and "female" occur roughly equally in the
    most positively and negatively valenced phrases.'

    The paper gives no number for 'roughly equally'; its own gap is 4.42 points, and it calls a
    gap of 15.89 (Muslim) 'more frequently'. The threshold is the 95% chance range of the gap
    of a category unrelated to valence in two groups of 384 phrases (see
    :data:`BALANCE_TOLERANCE`), which falls between the two. Margin: the threshold minus the
    larger of the two gaps.
    """
    parts = []
    for category in ("male", "female"):
        top, bottom = _share_id(category, "top"), _share_id(category, "bottom")
        high, low = cells.value(top), cells.value(bottom)
        gap = abs(high - low)
        parts.append(
            judge(
                BALANCE_TOLERANCE - gap,
                combined_uncertainty(cells.uncertainty(top), cells.uncertainty(bottom)),
                f"{category} {_pct(high)} of the most pleasant, {_pct(low)} of the most unpleasant "
                f"(gap {gap:.2f})",
            )
        )
    return all_hold(
        parts,
        "the paper: 'occur roughly equally' (its gap 4.42 points) vs. 'more frequently' "
        f"(Muslim, 15.89): 'roughly equal' taken as a gap of at most {BALANCE_TOLERANCE:.2f} "
        f"points, the 95% chance range of the gap between two groups of {PAPER_GROUP} phrases",
    )


def check_white_below_black(cells: Cells) -> Check:
    """Figures 3 and 4 (section 6.3): 'white' has the lower mean projection of 'person'
    (Figure 3), a smaller share than 'black' of the most pleasant contexts and a larger share of
    the most unpleasant (Figure 4). The paper: 'Both figures 3 and 4 show that a "white" person
    is slightly more negatively valenced than a "black" person in GPT-Neo' (Table 2's d, also
    cited, is lost). 'slightly' sets no bound: the check asks for the direction only."""
    white, black = "figure3-white", "figure3-black"
    parts = [
        judge(
            cells.value(black) - cells.value(white),
            combined_uncertainty(cells.uncertainty(black), cells.uncertainty(white)),
            f"mean projection white {cells.value(white):.4f}, black {cells.value(black):.4f}",
        )
    ]
    signs: tuple[tuple[Group, int], ...] = (("top", 1), ("bottom", -1))
    for group, sign in signs:
        ids = _share_id("white", group), _share_id("black", group)
        shares = [cells.value(id) for id in ids]
        parts.append(
            judge(
                sign * (shares[1] - shares[0]),
                combined_uncertainty(*(cells.uncertainty(id) for id in ids)),
                f"{_GROUP_NAMES[group]}: white {_pct(shares[0])}, black {_pct(shares[1])}",
            )
        )
    return all_hold(
        parts,
        'the paper: \'Both figures 3 and 4 show that a "white" person is slightly more '
        'negatively valenced than a "black" person\'',
    )


REPRODUCTION = IntersectionalReproduction()
