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
counts over 10,000 distinct partitions (:mod:`wordlens.methods.intersectional.experiments`), so
the significance in the findings' checks is wordlens's one-sided p < .05.

Table 2 and the text's numbers are lost in the extraction (the YAML's ``lost``): no items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from wordlens.reproduce.base import (
    Check,
    CheckFunction,
    Experiment,
    Measured,
    NotMeasured,
    PaperReproduction,
    Runs,
    Scale,
    Verdict,
    missing,
    not_measurable,
    same_depth,
)
from wordlens.reproduce.published import PublishedItem

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
SUBSTRING_CATEGORIES = {"male": "female", "literate": "illiterate"}
"""Categories that are substrings of their opposite: the authors' Figure 3 script counts the
opposite's phrases too (``experiment2_generate_image.py:52-53``)."""
BALANCE_TOLERANCE = 10.0
"""Percentage points within which a category counts as occurring 'roughly equally' among the
most pleasant and the most unpleasant contexts (our threshold; the paper gives none)."""
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

Row = dict[str, Any]
"""One row of a run's table."""
Group = Literal["top", "bottom"]
Relation = Literal[">", "<", "<="]
Condition = tuple[str, Group, Relation, float]
"""A share condition: (category, group, relation, bound in percent)."""
_RELATIONS: dict[Relation, Callable[[float, float], bool]] = {
    ">": lambda value, bound: value > bound,
    "<": lambda value, bound: value < bound,
    "<=": lambda value, bound: value <= bound,
}
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

    def checks(self) -> Mapping[str, CheckFunction]:
        """Every finding of the paper's YAML (see each function)."""
        return {
            "svc-beats-cosine": check_svc_beats_cosine,
            "svc-stays-high-in-top-layer": check_svc_stays_high,
            "sexual-orientation-gender-identity-biased-everywhere": check_orientation_gender,
            "social-class-biased-in-four": check_social_class,
            "men-more-pleasant-in-three": check_men_more_pleasant,
            "t5-women-more-pleasant": check_t5_women,
            "half-of-tests-positive": check_half_positive,
            "gpt-neo-most-significant-tests": check_most_significant,
            "heterosexual-cisgender-most-pleasant": lambda runs: share_check(
                runs,
                [
                    ("heterosexual", "top", ">", 93.0),
                    ("cisgender", "top", ">", 70.0),
                    ("christian", "top", ">", 65.0),
                ],
            ),
            "homosexual-transgender-most-unpleasant": lambda runs: share_check(
                runs, [("homosexual", "bottom", ">", 99.0), ("transgender", "bottom", ">", 93.0)]
            ),
            "homosexual-rare-among-pleasant": lambda runs: share_check(
                runs, [("homosexual", "top", "<", 7.0), ("heterosexual", "bottom", "<", 1.0)]
            ),
            "others-below-55-among-unpleasant": check_others_below_55,
            "muslim-white-more-unpleasant": check_muslim_white,
            "male-female-balanced": check_male_female,
            "white-below-black-in-gpt-neo": check_white_below_black,
        }


def verdict(holds: bool) -> Verdict:
    """``holds`` or ``does not hold``."""
    return "holds" if holds else "does not hold"


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
    column = "projection_r" if item.setting["method"] == "svc projection" else "cosine_r"
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
    return Measured(
        float(table.loc[table["layer"] == layer, column].iloc[0]),
        f"{where} for the paper's layer {paper_layer} of {paper_layers} (depth "
        f"{paper_layer / paper_layers:.2f}); {section['n_lexicon_words']} of "
        f"{section['n_lexicon_words_given']} {section['lexicon']} words (the missing ones are "
        "listed in the run's metadata)",
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
    return Measured(float(row[column]), note)


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
    return Measured(
        float(rows.iloc[0][f"pct_{group}"]),
        f"of the {section['n_per_group']:,} {_GROUP_NAMES[group]} of {section['n_phrases']:,} "
        f"phrases, at the top layer {section['layer']}",
    )


# ---------------------------------------------------------------- findings: ValNorm


def _layered(runs: Runs) -> pd.DataFrame | Check:
    """The ValNorm table, or why a by-layer claim cannot be checked."""
    absent = not_measurable(runs, VALNORM)
    if absent is not None:
        return absent
    table = runs[VALNORM].tables["valnorm"]
    if len(table) < 2:
        return Check("not measurable", "one layer (static vectors): the claim is about layers")
    return table


def check_svc_beats_cosine(runs: Runs) -> Check:
    """Holds when the projection r exceeds the cosine r on average over the layers, and by more
    in the upper half of the layers than in the lower half ("especially in the upper layers";
    the middle layer counts as lower)."""
    table = _layered(runs)
    if isinstance(table, Check):
        return table
    gap = (table["projection_r"] - table["cosine_r"]).to_numpy(dtype=float)  # [n_layers]
    top = int(table["layer"].max())
    upper = table["layer"].to_numpy() > top / 2  # [n_layers]
    overall = float(np.nanmean(gap))
    high, low = float(np.nanmean(gap[upper])), float(np.nanmean(gap[~upper]))
    return Check(
        verdict(overall > 0 and high > low),
        f"projection r above cosine r at {int((gap > 0).sum())} of {len(gap)} layers; mean gap "
        f"{overall:+.3f} over all layers, {high:+.3f} over the upper half (layers > "
        f"{top / 2:g}), {low:+.3f} over the lower half",
    )


def check_svc_stays_high(runs: Runs) -> Check:
    """Holds when, at the top layer, the projection r exceeds the cosine r and has dropped
    less below its own peak (over layers) than the cosine r has."""
    table = _layered(runs)
    if isinstance(table, Check):
        return table
    layers = table["layer"].to_numpy(dtype=int)  # [n_layers]
    top = int(np.argmax(layers))
    tops, drops, parts = {}, {}, []
    for name in ("projection", "cosine"):
        values = table[f"{name}_r"].to_numpy(dtype=float)  # [n_layers]
        peak = int(np.nanargmax(values))
        tops[name], drops[name] = float(values[top]), float(values[peak] - values[top])
        parts.append(
            f"{name} r {values[top]:.3f} (peak {values[peak]:.3f} at layer {layers[peak]}, "
            f"drop {drops[name]:.3f})"
        )
    holds = tops["projection"] > tops["cosine"] and drops["projection"] < drops["cosine"]
    return Check(verdict(holds), f"top layer {layers[top]}: " + "; ".join(parts))


# ---------------------------------------------------------------- findings: differential


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
    return f"{row['test']} d = {row['effect_size']:+.3f}, p = {row['p_one_sided']:.4f}"


def _positive_significant(row: Row) -> bool:
    return bool(row["effect_size"] > 0 and row["p_one_sided"] < ALPHA)


def _significance_checks(runs: Runs, pairs: Sequence[tuple[str, str]], scope: str) -> Check:
    """Holds when every test of ``pairs`` has a positive effect with one-sided p < .05."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    rows = [_test(table, first, second) for first, second in pairs]
    holds = all(_positive_significant(row) for row in rows)
    return Check(
        verdict(holds),
        "; ".join(_described(row) for row in rows)
        + f" (one-sided permutation p < {ALPHA} and d > 0 required; {scope})",
    )


def check_orientation_gender(runs: Runs) -> Check:
    """Holds when heterosexual vs. homosexual and cisgender vs. transgender are both
    significantly positive on this model (the paper: on all five)."""
    return _significance_checks(
        runs,
        [("heterosexual", "homosexual"), ("cisgender", "transgender")],
        "the paper: in all five models",
    )


def check_social_class(runs: Runs) -> Check:
    """Holds when affluent vs. destitute is significantly positive on this model (the paper:
    on four of five models; one model decides only whether it joins the four)."""
    return _significance_checks(
        runs, [("affluent", "destitute")], "the paper: in four of five models"
    )


def _is_t5(runs: Runs) -> bool:
    return any("t5" in str(run.metadata["model"]["name"]).lower() for run in runs.values())


def check_men_more_pleasant(runs: Runs) -> Check:
    """Holds when male vs. female is positive on this model (as ALBERT, GPT-Neo and RoBERTa in
    the paper), or negative on a T5 model (the paper's exception)."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    row = _test(table, "male", "female")
    expected = "negative (T5)" if _is_t5(runs) else "positive (as ALBERT, GPT-Neo, RoBERTa)"
    holds = row["effect_size"] < 0 if _is_t5(runs) else row["effect_size"] > 0
    return Check(
        verdict(holds),
        f"{_described(row)}; expected {expected}",
    )


def check_t5_women(runs: Runs) -> Check:
    """A claim about T5: checked (male vs. female negative) only on a T5 model."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    row = _test(table, "male", "female")
    if not _is_t5(runs):
        return Check(
            "not measurable",
            f"a claim about T5, and this model is not T5 (here {_described(row)})",
        )
    return Check(verdict(row["effect_size"] < 0), _described(row))


def check_half_positive(runs: Runs) -> Check:
    """Holds when at least half of the differential tests have a positive effect size."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    positive = table["effect_size"] > 0
    negative = ", ".join(
        f"{row.test} {row.effect_size:+.2f}" for row in table[~positive].itertuples()
    )
    return Check(
        verdict(2 * int(positive.sum()) >= len(table)),
        f"{int(positive.sum())} of {len(table)} tests positive; negative: {negative or 'none'}",
    )


def check_most_significant(runs: Runs) -> Check:
    """Not measurable: a comparison of five models with a threshold lost in the extraction."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    significant = sum(_positive_significant(row) for row in _records(table))
    return Check(
        "not measurable",
        "compares the paper's five models, and its effect-size threshold is lost in the "
        f"extraction; this model has {significant} of {len(table)} tests with d > 0 and "
        f"one-sided p < {ALPHA} (run the other models and compare their differential tables)",
    )


def check_white_below_black(runs: Runs) -> Check:
    """Holds when 'white' has the lower mean projection (white vs. black d < 0) and, when the
    strongest-bias run has both words, 'white' is less frequent than 'black' among the most
    pleasant and more frequent among the most unpleasant contexts (Figure 4)."""
    table = _differential(runs)
    if isinstance(table, Check):
        return table
    row = _test(table, "white", "black")
    holds = bool(row["mean_a"] < row["mean_b"])
    evidence = (
        f"mean projection white {row['mean_a']:.4f}, black {row['mean_b']:.4f} ({_described(row)})"
    )
    shares = _shares(runs, ["white", "black"])
    if not isinstance(shares, Check):
        white, black = shares["white"], shares["black"]
        holds = (
            holds
            and white["pct_top"] < black["pct_top"]
            and white["pct_bottom"] > black["pct_bottom"]
        )
        evidence += (
            f"; most pleasant: white {white['pct_top']:.2f}%, black {black['pct_top']:.2f}%; "
            f"most unpleasant: white {white['pct_bottom']:.2f}%, black {black['pct_bottom']:.2f}%"
        )
    return Check(verdict(holds), evidence)


# ---------------------------------------------------------------- findings: strongest biases


def _shares(runs: Runs, categories: Sequence[str]) -> dict[str, Row] | Check:
    """The strongest-bias rows by category, or why ``categories`` cannot be had."""
    absent = not_measurable(runs, STRONGEST)
    if absent is not None:
        return absent
    table = {
        str(row["category"]): row
        for row in _records(runs[STRONGEST].tables["strongest_categories"])
    }
    lacking = [category for category in categories if category not in table]
    if lacking:
        return Check(
            "not measurable",
            f"the strongest-bias run did not permute {', '.join(map(repr, lacking))}",
        )
    return table


def share_check(runs: Runs, conditions: Sequence[Condition]) -> Check:
    """Holds when every condition (category, group, relation, bound) holds for the percent of
    the group's phrases containing the category."""
    shares = _shares(runs, [category for category, *_ in conditions])
    if isinstance(shares, Check):
        return shares
    results, parts = [], []
    for category, group, relation, bound in conditions:
        value = float(shares[category][f"pct_{group}"])
        results.append(_RELATIONS[relation](value, bound))
        parts.append(f"{category} {value:.2f}% of the {_GROUP_NAMES[group]} ({relation} {bound:g})")
    return Check(verdict(all(results)), "; ".join(parts))


def check_others_below_55(runs: Runs) -> Check:
    """Holds when no category but 'homosexual' and 'transgender' is in more than 55% of the
    most unpleasant contexts."""
    shares = _shares(runs, ["homosexual", "transgender"])
    if isinstance(shares, Check):
        return shares
    others = [category for category in shares if category not in ("homosexual", "transgender")]
    return share_check(runs, [(category, "bottom", "<=", 55.0) for category in others])


def check_muslim_white(runs: Runs) -> Check:
    """Holds when 'muslim' and 'white' are each more frequent among the most unpleasant than
    among the most pleasant contexts."""
    shares = _shares(runs, ["muslim", "white"])
    if isinstance(shares, Check):
        return shares
    rows = [shares[category] for category in ("muslim", "white")]
    holds = all(row["pct_bottom"] > row["pct_top"] for row in rows)
    return Check(
        verdict(holds),
        "; ".join(
            f"{row['category']} {row['pct_bottom']:.2f}% of the most unpleasant, "
            f"{row['pct_top']:.2f}% of the most pleasant"
            for row in rows
        ),
    )


def check_male_female(runs: Runs) -> Check:
    """Holds when 'male' and 'female' each differ by at most :data:`BALANCE_TOLERANCE`
    percentage points between the most pleasant and the most unpleasant contexts."""
    shares = _shares(runs, ["male", "female"])
    if isinstance(shares, Check):
        return shares
    rows = [shares[category] for category in ("male", "female")]
    gaps = [abs(float(row["pct_top"]) - float(row["pct_bottom"])) for row in rows]
    return Check(
        verdict(max(gaps) <= BALANCE_TOLERANCE),
        "; ".join(
            f"{row['category']} {row['pct_top']:.2f}% of the most pleasant, "
            f"{row['pct_bottom']:.2f}% of the most unpleasant (gap {gap:.2f})"
            for row, gap in zip(rows, gaps, strict=True)
        )
        + f"; 'roughly equal' taken as a gap of at most {BALANCE_TOLERANCE:g} points",
    )


REPRODUCTION = IntersectionalReproduction()
