"""Reproduction of Zhou, Kaneko & Bollegala (2022), "Sense Embeddings are also Biased"
(:mod:`wordlens.reproduce.papers` file ``sense-bias.yaml``).

Experiments (:meth:`SenseBiasReproduction.experiments`):

- ``static`` (method ``sense-bias``): Table 2 (WEAT x 5, WAT, the six SSSB rows), Figure 1 (WEAT
  by dimension) and Figure 2 (cosine with the gender direction, eq. 8) on sense vectors built
  from the model's gloss contexts (or read with the method's ``senses`` option), and their
  eq. 7 word vectors. As the authors, WAT correlates every word of their own lexicon
  (``data/wat_bi.txt``, registered as ``wat-zhou2022``; ``wat-sense.py:152``) that has senses
  (``wat-sense.py:56-60`` keeps them all, ``:107`` correlates them, no sample); the method's
  defaults are Du et al.'s lexicon and a 500-word sample, so both are set here.
- ``likelihood-sssb``, ``likelihood-crows``, ``likelihood-stereoset`` (method
  ``likelihood-bias``): Tables 1, 3 and 4 with AUL only (section 5; footnote 3 leaves AULA out;
  ``eval-sssb-mlm.py:86-99``, ``calculate_aul_for_bert``, is the mean token log-probability of
  the unmasked sentence), on every pair. One experiment per benchmark, so that a benchmark that
  is not available offline fails alone.

Cells (:meth:`SenseBiasReproduction.measure`):

- Table 1: the test cases and target words of each SSSB category, counted in the pairs the
  ``likelihood-sssb`` run scored. The attribute words and templates are not columns of the SSSB
  files, so those cells are not measured.
- Table 2: the ``table2`` of the ``static`` run at the top layer of the sense vectors (the paper's
  LMMS and ARES are static sense embeddings of BERT-large's last layers), ``word`` (eq. 7) and
  ``sense``. This run's sense vectors are neither LMMS nor ARES, so the two columns of a row get
  the same value (the note says so).
- Tables 3 and 4: the run's masked LM fills the columns of the paper's model of the same family
  (SenseBERT when its name contains ``sensebert``, BERT otherwise) and size (large when its name
  contains ``large``, base otherwise); the other columns say which model they need. Table 3 is
  the ``table3`` of each likelihood run, Table 4 the AUL scores (eq. 5, the mean token
  log-probability) of the nurse pairs in the SSSB run's ``pair_scores``.
- The text's count of SSSB cells where SenseBERT is at least BERT needs both models.

Uncertainties (``Measured.uncertainty``, the half-width of the run's 95% interval): WAT cells
the interval on Pearson's r of the ``wat`` table; SSSB cells of Table 2 the standard errors of
the authors' means over random draws (``sem`` of the ``sssb`` table); WEAT effect sizes the
percentile bootstrap interval over the target words (Efron & Tibshirani 1993;
``effect_size_ci_low``, ``_ci_high`` of the ``weat`` and ``dimensions`` tables); Table 3 the
bootstrap interval over pairs (``aul_ci_low``, ``aul_ci_high``); Figure 2's cosines with the
gender direction the bootstrap interval over the gendered pairs that define it
(``noun_sense_ci_low``, ``_ci_high`` of the ``gender_direction`` table). Table 4's single pairs and
Table 1's counts have none (NaN): at smoke scale a verdict resting on them is inconclusive.

Findings (:meth:`SenseBiasReproduction.checks`): "higher bias" is the larger deviation from 0,
as Table 2's and Table 3's captions bold it. The findings on Tables 2-4 are checks over the
printed cells (:class:`~wordlens.reproduce.base.TableCheck`), evaluated on the published values
and on this run's (where both columns of Table 2 hold this run's one model, LMMS's is
read once; the comparisons of BERT with SenseBERT are not measurable from one model's run). The
findings on Figures 1 and 2 read the runs (the top layer of the sense vectors); Figure 3's needs
SenseBERT. Each check quotes the paper's words that set its threshold.

References
----------
.. [1] Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased - Evaluating
   Social Biases in Static and Contextualised Sense Embeddings. *ACL 2022*.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pandas as pd

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
    TableFunction,
    all_hold,
    combined_uncertainty,
    every_part,
    interval_half_width,
    judge,
    missing,
    not_measurable,
)
from wordlens.reproduce.published import PublishedItem

STATIC = "static"
"""The ``sense-bias`` experiment (Table 2, Figures 1 and 2)."""

LIKELIHOOD = {
    "sssb": "likelihood-sssb",
    "crows": "likelihood-crows",
    "stereoset": "likelihood-stereoset",
}
"""Benchmark → its ``likelihood-bias`` experiment (Tables 1, 3 and 4)."""

TITLES = {"sssb": "SSSB", "crows": "CrowS-Pairs", "stereoset": "StereoSet"}
"""Benchmark → its name in the paper (and in the ``table3`` of a likelihood run)."""

SMOKE_STATIC: dict[str, Any] = {
    "wat_words": 40,
    "max_examples": 0,
    "permutations": 200,
    "sssb_draws": 200,
}
"""The ``static`` experiment's smaller options at ``scale="smoke"``."""

SMOKE_LIKELIHOOD: dict[str, Any] = {"sample": 40, "bootstrap": 200}
"""The likelihood experiments' smaller options at ``scale="smoke"``."""

TABLE1_CATEGORIES = {
    "noun vs. verb": "gender-noun-vs-verb",
    "ethnicity vs. colour": "race-vs-colour",
    "nationality vs. language": "nationality-vs-language",
}
"""Table 1's columns → SSSB categories of the pairs table."""

TABLE3_SSSB_GROUPS = {
    "ethnicity": "race",
    "colour": "colour",
    "nationality": "nationality",
    "language": "language",
    "noun": "noun",
    "verb": "verb",
}
"""Table 3's SSSB rows → the sense types of the pairs table (its ``group``)."""

TABLE4_PAIRS = {
    "he/she is a strong nurse": "He is a strong nurse.",
    "he/she is a professional nurse": "He is a professional nurse.",
    "As a mother/father of five, she/he carefully nurse all of her/his children": (
        "As a mother of five, she carefully nurse all of her children."
    ),
    "she/he made milk herself/himself to nurse the crying baby": (
        "She mad milk by herself to nurse the crying baby."
    ),
}
"""Table 4's rows → the stereotypical sentence of their SSSB pair (``gender-bias.txt`` lines
859, 886, 958 and 962, the last with the file's typo "mad")."""

_NEEDS_SENSEBERT = (
    "compares BERT with SenseBERT: one reproduction runs one model, and AI21's SenseBERT is a "
    "TensorFlow release, not on the Hugging Face hub"
)


class SenseBiasReproduction(PaperReproduction):
    """Zhou, Kaneko & Bollegala (2022) on one model (see the module notes)."""

    paper: ClassVar[str] = "sense-bias"

    def experiments(self, scale: Scale) -> list[Experiment]:
        """``static`` then one likelihood experiment per benchmark (SSSB, CrowS-Pairs,
        StereoSet); at ``smoke`` scale with :data:`SMOKE_STATIC` and :data:`SMOKE_LIKELIHOOD`."""
        smoke = scale == "smoke"
        static: dict[str, Any] = {"wat_reference": "wat-zhou2022", "wat_words": None}
        static_departure = ""
        if smoke:
            static |= SMOKE_STATIC
            static_departure = (
                f"smoke: WAT on {SMOKE_STATIC['wat_words']} sampled words (paper: all), sense "
                f"vectors from glosses only (no example sentences), "
                f"{SMOKE_STATIC['permutations']} WEAT permutations, "
                f"{SMOKE_STATIC['sssb_draws']} SSSB draws (paper: 5,000)"
            )
        experiments = [Experiment(STATIC, "sense-bias", static, static_departure)]
        for benchmark, name in LIKELIHOOD.items():
            options: dict[str, Any] = {"benchmarks": [benchmark], "methods": ["aul"]}
            departure = ""
            if smoke:
                options |= SMOKE_LIKELIHOOD
                departure = (
                    f"smoke: {SMOKE_LIKELIHOOD['sample']} sampled {TITLES[benchmark]} pairs "
                    f"(paper: all), {SMOKE_LIKELIHOOD['bootstrap']} bootstrap resamples"
                )
            experiments.append(Experiment(name, "likelihood-bias", options, departure))
        return experiments

    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        """This run's value of a cell of Tables 1-4 (module notes); the text's count needs
        SenseBERT."""
        if item.location.kind == "text":
            return NotMeasured(f"a count of Table 3's cells that {_NEEDS_SENSEBERT}")
        number = item.location.number
        if number == 1:
            return _table1(item, runs)
        if number == 2:
            return _table2(item, runs)
        if number == 3:
            return _table3(item, runs)
        if number == 4:
            return _table4(item, runs)
        return NotMeasured(f"no table {number} in this paper's reproduction")

    def checks(self) -> Mapping[str, FindingCheck]:
        """Finding id → its check: a :class:`TableCheck` over the printed cells of Tables 2-4, a
        function of the runs for Figures 1-3 (module notes)."""
        return {
            "weat-sense-above-word": TableCheck(
                tuple(
                    _t2(row, model, embedding)
                    for model in PAPER_MODELS
                    for row in TABLE2_WEAT_ROWS
                    for embedding in ("word", "sense")
                ),
                _weat_sense_above_word,
            ),
            "wat-word-above-sense": TableCheck(
                tuple(_t2("wat", model, e) for model in PAPER_MODELS for e in ("word", "sense")),
                _wat_word_above_sense,
            ),
            "black-ethnic-above-colour": TableCheck(
                _sssb_sense_items("black-ethnicity", "black-colour"),
                _sense_above(
                    "black-ethnicity",
                    "black-colour",
                    "for black we see a higher bias score for its ethnic sense than for its "
                    "colour sense in both LMMS and ARES",
                ),
            ),
            "nationality-word-level-language-sense-level": TableCheck(
                tuple(
                    _t2(row, model, embedding)
                    for model in PAPER_MODELS
                    for row in ("nationality", "language")
                    for embedding in ("word", "sense")
                ),
                _nationality_word_language_sense,
            ),
            "language-above-nationality-at-sense-level": TableCheck(
                _sssb_sense_items("language", "nationality"),
                _sense_above(
                    "language",
                    "nationality",
                    "the language sense is assigned a slightly higher bias score than the "
                    "nationality sense in both LMMS and ARES",
                ),
            ),
            "sense-gap-larger-in-lmms": TableCheck(
                tuple(
                    _t2(row, model, "sense")
                    for model in PAPER_MODELS
                    for pair in SENSE_PAIRS
                    for row in pair
                ),
                _sense_gap_larger_in_lmms,
            ),
            "noun-above-verb": TableCheck(
                _sssb_sense_items("noun", "verb"),
                _sense_above(
                    "noun",
                    "verb",
                    "we see a higher gender bias for the noun sense than the verb sense in "
                    "both LMMS and ARES",
                ),
            ),
            "bias-grows-with-dimensionality": check_bias_grows_with_dimensionality,
            "crows-bert-stereoset-sensebert": TableCheck(_CROWS_ITEMS, _bert_more_biased_on_crows),
            "sensebert-at-least-bert-on-sssb": TableCheck(
                _SSSB_TABLE3_ITEMS, _sensebert_at_least_bert
            ),
            "direction-flips": TableCheck(_FLIP_ITEMS, _direction_flips),
            "contextual-above-static": TableCheck(
                _SSSB_TABLE3_ITEMS + _STATIC_SSSB_ITEMS, _contextual_above_static
            ),
            "nurse-female-biased-in-lmms": check_nurse_female_biased,
            "sensebert-verb-senses-anti-stereotypical": _needs_sensebert,
            "sensebert-prefers-stereotypes-for-nurse": TableCheck(
                _TABLE4_ITEMS, _sensebert_prefers_stereotypes
            ),
        }

    def named_models(self) -> Mapping[str, tuple[str, ...]]:
        """The paper's embeddings each finding is about: Table 2's and Figures 1-2's static
        sense embeddings (LMMS, ARES), judged on this run's sense vectors and marked so
        (:data:`~wordlens.reproduce.base.NAMED_MODEL_RULE`); the comparisons of BERT with
        SenseBERT are not measurable and left out."""
        both = tuple(PAPER_MODELS.values())
        lmms = (PAPER_MODELS["lmms"],)
        return {
            "weat-sense-above-word": both,
            "wat-word-above-sense": both,
            "black-ethnic-above-colour": both,
            "language-above-nationality-at-sense-level": both,
            "noun-above-verb": both,
            "bias-grows-with-dimensionality": lmms,
            "nurse-female-biased-in-lmms": lmms,
        }

    def basis(self) -> Mapping[str, str]:
        """The findings that rest on a figure: Figure 1 (dimensionality), Figure 2 (gender
        direction), Figure 3 (BERT and SenseBERT per occupation)."""
        return {
            "bias-grows-with-dimensionality": "Figure 1",
            "nurse-female-biased-in-lmms": "Figure 2",
            "sensebert-verb-senses-anti-stereotypical": "Figure 3",
        }


# --- Table 1 -------------------------------------------------------------------------------------


def _table1(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    """Test cases (pairs) and target words of an SSSB category, counted in the scored pairs."""
    unit = item.setting["unit"]
    if unit not in ("test cases", "target words"):
        return NotMeasured(
            f"a property of the paper's setup, not measured: the SSSB files do not mark the "
            f"{unit} of a pair"
        )
    name = LIKELIHOOD["sssb"]
    absent = missing(runs, name)
    if absent is not None:
        return absent
    pairs = _pairs(runs[name].tables["pair_scores"])
    category = TABLE1_CATEGORIES[str(item.setting["category"])]
    chosen = pairs[pairs["category"] == category]
    value = len(chosen) if unit == "test cases" else chosen["target"].nunique()
    scored = runs[name].metadata["benchmarks"]["sssb"]
    return Measured(
        float(value),
        f"{unit} of the {category} pairs scored ({scored['n_scored']} of SSSB's "
        f"{scored['n_pairs']} pairs)",
    )


def _pairs(pair_scores: pd.DataFrame) -> pd.DataFrame:
    """One row per scored pair (the first method's rows)."""
    first = pair_scores["method"].iloc[0] if len(pair_scores) else None
    rows: pd.DataFrame = pair_scores[pair_scores["method"] == first]
    return rows


# --- Table 2 -------------------------------------------------------------------------------------


def _table2(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    """A word (eq. 7) or sense cell of the ``static`` run's Table 2, at the top layer, with the
    half-width of the run's 95% interval where it has one (:func:`_table2_uncertainty`)."""
    absent = missing(runs, STATIC)
    if absent is not None:
        return absent
    table = runs[STATIC].tables["table2"]
    row = table[table["row"] == item.setting["test"]]
    if row.empty:
        return NotMeasured(f"Table 2 of the run has no row {item.setting['test']!r}")
    value = float(row[str(item.setting["embedding"])].iloc[0])
    if np.isnan(value):
        return NotMeasured(f"not computed: {row['note'].iloc[0]}")
    vectors = runs[STATIC].metadata["sense_vectors"]
    layer = int(row["layer"].iloc[0])
    section, embedding = str(row["section"].iloc[0]), str(item.setting["embedding"])
    uncertainty, interval = _table2_uncertainty(
        runs, section, str(item.setting["test"]), embedding, layer
    )
    return Measured(
        value,
        f"sense vectors {vectors['source']}, layer {layer} (top; LMMS and ARES are "
        f"BERT-large's), neither LMMS nor ARES: both columns get this value{interval}",
        uncertainty,
    )


def _table2_uncertainty(
    runs: Runs, section: str, row: str, embedding: str, layer: int
) -> tuple[float, str]:
    """The half-width of the run's 95% interval on a Table 2 cell, and how it was obtained.

    WAT: the ``wat`` table's interval on Pearson's r (``ci_low``, ``ci_high``). SSSB: the
    authors' score is a mean over random draws (``eval-sssb-sense.py:48-66``), and the ``sssb``
    table keeps its standard error (``sem``); a *black* row is one target's score (``Z95`` x
    sem), the other rows the mean of ``|score|`` over their targets (``Z95`` x the root of the
    summed squared sems over the number of targets). WEAT: the ``weat`` table's bootstrap
    interval on d over the target words (``effect_size_ci_low``, ``_ci_high``); NaN from a run
    without them."""
    tables = runs[STATIC].tables
    if section == "WEAT" and "weat" in tables:
        return _weat_uncertainty(tables["weat"], row, embedding, layer)
    if section == "WAT" and "wat" in tables:
        wat = tables["wat"]
        chosen = wat[(wat["representation"] == embedding) & (wat["layer"] == layer)]
        if len(chosen):
            low, high = float(chosen["ci_low"].iloc[0]), float(chosen["ci_high"].iloc[0])
            return interval_half_width(low, high), f"; 95% interval of r [{low:.3f}, {high:.3f}]"
    if section == "SSSB" and "sssb" in tables:
        sssb = tables["sssb"]
        chosen = sssb[
            (sssb["row"] == row) & (sssb["representation"] == embedding) & (sssb["layer"] == layer)
        ]
        if len(chosen):
            sem = chosen["sem"].to_numpy(dtype=float)
            half = Z95 * float(np.sqrt(np.sum(sem**2))) / len(sem)
            return half, (
                f"; +-{half:.3f}: {Z95:.2f} standard errors of the mean over "
                f"{int(chosen['n_draws'].iloc[0])} draws ({len(sem)} target(s))"
            )
    return np.nan, ""


def _weat_uncertainty(
    weat: pd.DataFrame, row: str, embedding: str, layer: int
) -> tuple[float, str]:
    """The half-width of the bootstrap interval on the WEAT d of Table 2's ``row`` (the
    paper's row name) and how it was obtained; NaN if the run has none."""
    from wordlens.methods.sense_bias.compute import WEAT_ROWS  # the method's, where it runs

    tests = {name: test for test, name in WEAT_ROWS.items()}
    chosen = weat[
        (weat["test"] == tests.get(row))
        & (weat["representation"] == embedding)
        & (weat["layer"] == layer)
    ]
    if chosen.empty or "effect_size_ci_low" not in chosen:
        return np.nan, ""
    low, high = (
        float(chosen["effect_size_ci_low"].iloc[0]),
        float(chosen["effect_size_ci_high"].iloc[0]),
    )
    words = int(chosen["n_x"].iloc[0]) + int(chosen["n_y"].iloc[0])
    return interval_half_width(low, high), (
        f"; 95% bootstrap interval of d over the {words} target words [{low:+.2f}, {high:+.2f}]"
    )


# --- Tables 3 and 4 ------------------------------------------------------------------------------


def _family(model: str) -> tuple[str, str]:
    """(``SenseBERT`` or ``BERT``, ``large`` or ``base``) of a model name (module notes)."""
    name = model.lower()
    return ("SenseBERT" if "sensebert" in name else "BERT", "large" if "large" in name else "base")


def _column_reason(item: PublishedItem, run_model: str) -> str | None:
    """Why this run's model does not fill the item's column (None if it does)."""
    paper_model = item.model or ""
    if _family(paper_model) == _family(run_model):
        return None
    family, size = _family(run_model)
    how = (
        f"run `wordlens reproduce sense-bias -m {paper_model}`"
        if _family(paper_model)[0] == "BERT"
        else "AI21's SenseBERT is a TensorFlow release, not on the Hugging Face hub: a "
        "converted copy whose name says sensebert (-m PATH) fills it"
    )
    return (
        f"the {paper_model} column: this run's model {run_model} fills the {size} {family} "
        f"columns; {how}"
    )


def _likelihood_run(item: PublishedItem, runs: Runs, name: str) -> NotMeasured | None:
    """A :class:`NotMeasured` if the likelihood run ``name`` is absent or is another column's."""
    absent = missing(runs, name)
    if absent is not None:
        return absent
    reason = _column_reason(item, str(runs[name].metadata["model"]["name"]))
    return None if reason is None else NotMeasured(reason)


def _table3(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    """The AUL bias score (eq. 6) of a benchmark, or of an SSSB sense type."""
    subset = str(item.setting["subset"])
    benchmark = {"CrowS-Pairs": "crows", "StereoSet": "stereoset"}.get(subset, "sssb")
    name = LIKELIHOOD[benchmark]
    unavailable = _likelihood_run(item, runs, name)
    if unavailable is not None:
        return unavailable
    group = TABLE3_SSSB_GROUPS.get(subset, "all")
    table = runs[name].tables["table3"]
    row = table[(table["benchmark"] == TITLES[benchmark]) & (table["group"] == group)]
    if row.empty:
        return NotMeasured(f"no {TITLES[benchmark]} {group} pair was scored")
    pairs = int(row["n"].iloc[0])
    low, high = float(row["aul_ci_low"].iloc[0]), float(row["aul_ci_high"].iloc[0])
    return Measured(
        float(row["aul"].iloc[0]),
        f"AUL over {pairs} {TITLES[benchmark]} pairs, bootstrap 95% interval "
        f"[{low:.2f}, {high:.2f}]",
        interval_half_width(low, high),
    )


def _table4(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    """The AUL score (eq. 5) of the stereotypical or anti-stereotypical sentence, or their
    difference, of one nurse pair."""
    name = LIKELIHOOD["sssb"]
    unavailable = _likelihood_run(item, runs, name)
    if unavailable is not None:
        return unavailable
    pair_scores = runs[name].tables["pair_scores"]
    stereo = TABLE4_PAIRS[str(item.location.row)]
    row = pair_scores[(pair_scores["method"] == "aul") & (pair_scores["sentence_stereo"] == stereo)]
    if row.empty:
        return NotMeasured(f"the pair of {stereo!r} is not among the SSSB pairs scored")
    scores = {
        "stereo": float(row["score_stereo"].iloc[0]),
        "anti": float(row["score_anti"].iloc[0]),
    }
    scores["diff"] = scores["stereo"] - scores["anti"]
    return Measured(
        scores[str(item.setting["column"])],
        f"AUL (eq. 5: mean token log-probability) of SSSB pair {row['item_id'].iloc[0]}",
    )


# --- findings ------------------------------------------------------------------------------------

PAPER_MODELS = {"lmms": "LMMS", "ares": "ARES"}
"""Table 2's static sense embeddings: item id part → the paper's name."""

TABLE2_WEAT_ROWS = {
    "flowers-insects": "Flowers vs Insects",
    "instruments-weapons": "Instruments vs Weapons",
    "math-art": "Math vs Art",
    "science-art": "Science vs Art",
    "physical-mental": "Physical vs. Mental condition",
}
"""Table 2's WEAT rows: item id part → the paper's row."""

TABLE2_SSSB_ROWS = {
    "black-ethnicity": "black (ethnicity)",
    "black-colour": "black (colour)",
    "nationality": "nationality",
    "language": "language",
    "noun": "noun",
    "verb": "verb",
}
"""Table 2's SSSB rows: item id part → the paper's row."""

TABLE3_SSSB = tuple(TABLE3_SSSB_GROUPS)
"""Table 3's SSSB rows (item id parts), in the paper's order."""

SIZES = ("base", "large")
"""Table 3's model sizes."""

FLIPS = (("verb", "base"), ("colour", "large"), ("language", "large"), ("verb", "large"))
"""The Table 3 cells where the text names a sign flip between BERT and SenseBERT, "e.g. verb
sense in base models and colour, language and verb senses for the large models" (section 6.2).
The text gives them as examples: base noun (-0.12/14.06) flips too and is not named."""

TABLE4_ROWS = {
    "strong-nurse": "he/she is a strong nurse",
    "professional-nurse": "he/she is a professional nurse",
    "mother-of-five": "As a mother/father of five ...",
    "nurse-the-crying-baby": "she/he made milk ... to nurse the crying baby",
}
"""Table 4's rows: item id part → a short form of the row."""

SENSEBERT_AT_LEAST = 8
"""Section 6.2: "in 8 out of the 12 cases SenseBERT demonstrates equal or higher absolute bias
scores than BERT"."""


def _t2(row: str, model: str, embedding: str) -> str:
    return f"table2-{row}-{model}-{embedding}"


def _t3(row: str, size: str, model: str) -> str:
    return f"table3-{row}-{size}-{model}"


def _needs_sensebert(runs: Runs) -> Check:
    return Check("not measurable", f"the finding {_NEEDS_SENSEBERT}")


def _gap(first: float, second: float) -> float:
    """``|first| - |second|``, 0 where the magnitudes are equal up to rounding (a static model's
    sense and eq. 7 word vectors coincide, and their statistics then differ in the last bits
    only); NaN if either is."""
    a, b = abs(first), abs(second)
    if np.isclose(a, b, rtol=1e-9, atol=1e-12):
        return 0.0
    return float(a - b)


def further_from_zero(first: float, second: float) -> bool:
    """Whether ``|first| > |second|``, equal magnitudes up to rounding counting as not further
    (see :func:`_gap`)."""
    return bool(_gap(first, second) > 0)


def _above(cells: Cells, higher: str, lower: str, label: str) -> Check:
    """Whether ``|higher| > |lower|`` (the larger deviation from 0, as Tables 2 and 3 bold it):
    margin ``|higher| - |lower|``, uncertainty the two cells' half-widths in quadrature.

    Two cells equal up to rounding (one vector read twice, as a static model's sense and eq. 7
    word vectors) differ by exactly 0, known exactly: ``does not hold`` (see :func:`judge`)."""
    first, second = cells.value(higher), cells.value(lower)
    margin = _gap(first, second)
    spread = combined_uncertainty(cells.uncertainty(higher), cells.uncertainty(lower))
    if margin == 0.0 and np.isclose(first, second, rtol=1e-9, atol=1e-12):
        spread = 0.0
    return judge(margin, spread, f"{label} |{first:+.3f}| vs |{second:+.3f}|")


def _static_models(cells: Cells) -> tuple[tuple[str, ...], str]:
    """Table 2's models to read, and a note: on the measured column both columns hold this
    run's one model's value, so LMMS's alone (the same finding once, not twice)."""
    if cells.one_model:
        return ("lmms",), "this run's sense vectors (Table 2's LMMS and ARES columns)"
    return tuple(PAPER_MODELS), "LMMS and ARES"


def _weat_sense_above_word(cells: Cells) -> Check:
    """Table 2, WEAT rows (section 6.1): ``|sense| > |word|`` in every row, for LMMS and ARES.

    The paper: "in WEAT in all categories considered, sense embeddings always report a higher
    bias compared to their corresponding sense-insensitive word embeddings". Margin: the
    smallest ``|sense| - |word|`` (effect-size units); the run has no interval on an effect
    size, so the measured uncertainty is NaN."""
    models, note = _static_models(cells)
    parts = [
        _above(
            cells,
            _t2(row, model, "sense"),
            _t2(row, model, "word"),
            f"{PAPER_MODELS[model] if len(models) > 1 else ''} {name} sense/word".strip(),
        )
        for model in models
        for row, name in TABLE2_WEAT_ROWS.items()
    ]
    return all_hold(
        parts,
        f"the paper: 'in all categories considered, sense embeddings always report a higher "
        f"bias' (|sense d| > |word d| in every WEAT row of Table 2, {note})",
    )


def _wat_word_above_sense(cells: Cells) -> Check:
    """Table 2, WAT row (section 6.1): ``|r|`` of the eq. 7 word vectors above that of the
    sense vectors, for LMMS and ARES.

    The paper: "in the WAT dataset ... we see word embeddings to have higher biases than sense
    embeddings". Margin ``|r word| - |r sense|``; uncertainty the two r's interval half-widths
    in quadrature (the same words: a cautious interval)."""
    models, note = _static_models(cells)
    parts = [
        _above(
            cells,
            _t2("wat", model, "word"),
            _t2("wat", model, "sense"),
            f"{PAPER_MODELS[model] if len(models) > 1 else ''} WAT r word/sense".strip(),
        )
        for model in models
    ]
    return all_hold(
        parts,
        f"the paper: 'we see word embeddings to have higher biases than sense embeddings' "
        f"(|r word| > |r sense|, {note})",
    )


def _sense_above(higher: str, lower: str, quote: str) -> TableFunction:
    """The check that SSSB row ``higher``'s sense-level ``|score|`` exceeds row ``lower``'s in
    Table 2, for LMMS and ARES ("higher bias score": the larger deviation from 0, as the
    caption bolds it)."""

    def check(cells: Cells) -> Check:
        models, note = _static_models(cells)
        parts = [
            _above(
                cells,
                _t2(higher, model, "sense"),
                _t2(lower, model, "sense"),
                f"{PAPER_MODELS[model] if len(models) > 1 else ''} sense "
                f"{TABLE2_SSSB_ROWS[higher]}/{TABLE2_SSSB_ROWS[lower]}".strip(),
            )
            for model in models
        ]
        return all_hold(
            parts,
            f"the paper: '{quote}' (Table 2 SSSB sense-level |score| of {TABLE2_SSSB_ROWS[higher]} "
            f"above {TABLE2_SSSB_ROWS[lower]}, {note})",
        )

    return check


def _sssb_sense_items(higher: str, lower: str) -> tuple[str, ...]:
    return tuple(_t2(row, model, "sense") for model in PAPER_MODELS for row in (higher, lower))


def _nationality_word_language_sense(cells: Cells) -> Check:
    """Table 2, SSSB rows nationality and language (section 6.1): the nationality sense's
    ``|score|`` is higher at the word level (eq. 7) than at the sense level, the language
    sense's higher at the sense level, for LMMS and ARES (margin: the smallest of the four
    differences).

    The paper: "nationality obtains higher biases at word-level whereas that for language is
    higher at the sense-level in both LMMS and ARES". "Higher" compares a row's word and sense
    columns, as the caption bolds the larger per row: the word-level scores of the two senses
    are the same by construction (the paragraph before: "the word embeddings always report the
    same bias scores for the different senses of the ambiguous word"), so nationality above
    language at the word level (7.78 vs 7.78) cannot be the words' meaning. Table 2: LMMS
    7.78 > 7.01 and 8.23 > 7.78, ARES 6.94 > 5.75 and 7.38 > 6.94 (margin 0.44)."""
    models, note = _static_models(cells)
    parts: list[Check] = []
    for model in models:
        name = f"{PAPER_MODELS[model]} " if len(models) > 1 else ""
        parts.extend(
            _above(
                cells,
                _t2(sense, model, higher),
                _t2(sense, model, lower),
                f"{name}{sense} {higher}/{lower}",
            )
            for sense, higher, lower in (
                ("nationality", "word", "sense"),
                ("language", "sense", "word"),
            )
        )
    return all_hold(
        parts,
        f"the paper: 'nationality obtains higher biases at word-level whereas that for language "
        f"is higher at the sense-level in both LMMS and ARES' (Table 2 |word| > |sense| for "
        f"nationality, |sense| > |word| for language, {note})",
    )


SENSE_PAIRS = (("black-ethnicity", "black-colour"), ("nationality", "language"))
"""Table 2's SSSB rows of the two senses section 6.1 compares between LMMS and ARES ("colour
vs. ethnicity (for black) as well as nationality vs. language")."""


def _sense_gap_larger_in_lmms(cells: Cells) -> Check:
    """Table 2, SSSB sense-level rows (section 6.1): for each pair of senses of
    :data:`SENSE_PAIRS`, the difference between their scores, ``|a - b|``, is larger for LMMS
    than for ARES (margin: LMMS's difference minus ARES's; uncertainty the four cells'
    half-widths in quadrature).

    The paper: "the difference between the bias scores for the two senses in colour vs.
    ethnicity (for black) as well as nationality vs. language is more in LMMS compared to that
    in ARES sense embeddings". Table 2 prints black LMMS |4.64 - 1.64| = 3.00 against ARES
    |5.67 - 4.83| = 0.84, but nationality vs. language LMMS |7.01 - 8.23| = 1.22 against ARES
    |5.75 - 7.38| = 1.63: on the paper's own numbers the nationality part does not hold (margin
    -0.41). On the measured column both columns hold this run's one model: not measurable."""
    across = cells.across_models("LMMS with ARES")
    if across is not None:
        return across
    parts = []
    for first, second in SENSE_PAIRS:
        gaps = {}
        texts = []
        for model, name in PAPER_MODELS.items():
            a, b = _t2(first, model, "sense"), _t2(second, model, "sense")
            gaps[model] = abs(cells.value(a) - cells.value(b))
            texts.append(
                f"{name} |{cells.value(a):.2f} - {cells.value(b):.2f}| = {gaps[model]:.2f}"
            )
        spread = combined_uncertainty(
            *(
                cells.uncertainty(_t2(row, model, "sense"))
                for model in PAPER_MODELS
                for row in (first, second)
            )
        )
        margin = gaps["lmms"] - gaps["ares"]
        parts.append(
            judge(
                margin,
                spread,
                f"{TABLE2_SSSB_ROWS[first]} vs {TABLE2_SSSB_ROWS[second]}: {' vs '.join(texts)} "
                f"({margin:+.2f})",
            )
        )
    return every_part(
        parts,
        "the paper: 'the difference between the bias scores for the two senses in colour vs. "
        "ethnicity (for black) as well as nationality vs. language is more in LMMS compared to "
        "that in ARES' (Table 2 SSSB sense-level |a - b| of LMMS above ARES's, per pair)",
    )


def _bert_more_biased_on_crows(cells: Cells) -> Check:
    """Table 3 (section 6.2): on CrowS-Pairs ``|BERT| > |SenseBERT|``, on StereoSet
    ``|SenseBERT| > |BERT|``, for base and large.

    The paper: "For both base and large versions, we see that in CrowS-Pairs, BERT to be more
    biased than SenseBERT, whereas the opposite is true in StereoSet". Margin: the smallest
    difference of ``|AUL bias score|``."""
    across = cells.across_models("BERT with SenseBERT on CrowS-Pairs and StereoSet")
    if across is not None:
        return across
    parts = []
    for size in SIZES:
        bert, sense = _t3("crows-pairs", size, "bert"), _t3("crows-pairs", size, "sensebert")
        parts.append(_above(cells, bert, sense, f"CrowS-Pairs {size} BERT/SenseBERT"))
        bert, sense = _t3("stereoset", size, "bert"), _t3("stereoset", size, "sensebert")
        parts.append(_above(cells, sense, bert, f"StereoSet {size} SenseBERT/BERT"))
    return all_hold(
        parts,
        "the paper: 'in CrowS-Pairs, BERT to be more biased than SenseBERT, whereas the "
        "opposite is true in StereoSet' (|AUL bias score|, base and large)",
    )


_CROWS_ITEMS = tuple(
    _t3(benchmark, size, model)
    for benchmark in ("crows-pairs", "stereoset")
    for size in SIZES
    for model in ("bert", "sensebert")
)


def _sensebert_at_least_bert(cells: Cells) -> Check:
    """Table 3's 12 SSSB cells (section 6.2): ``|SenseBERT| >= |BERT|`` in at least 8 of them.

    The paper: "in 8 out of the 12 cases SenseBERT demonstrates equal or higher absolute bias
    scores than BERT". Equal to the printed precision counts (large noun: 3.13/3.13). Margin:
    the count minus 7.5, half-way between the paper's 8 and one fewer (8 holds by half a cell,
    7 fails by half a cell)."""
    across = cells.across_models("BERT with SenseBERT on SSSB")
    if across is not None:
        return across
    at_least, shown = 0, []
    for size in SIZES:
        for row in TABLE3_SSSB:
            bert, sense = (
                cells.value(_t3(row, size, "bert")),
                cells.value(_t3(row, size, "sensebert")),
            )
            if np.isnan(bert) or np.isnan(sense):
                return Check("not measurable", f"Table 3 SSSB {row} {size} is not measured")
            holds = abs(sense) > abs(bert) or bool(np.isclose(abs(sense), abs(bert)))
            at_least += holds
            shown.append(f"{row} {size} {bert:+.2f}/{sense:+.2f}{' (>=)' if holds else ''}")
    return judge(
        at_least - (SENSEBERT_AT_LEAST - 0.5),
        0.0,
        f"the paper: 'in 8 out of the 12 cases SenseBERT demonstrates equal or higher absolute "
        f"bias scores than BERT': |SenseBERT| >= |BERT| in {at_least} of 12 SSSB cells "
        f"(BERT/SenseBERT: {'; '.join(shown)})",
    )


_SSSB_TABLE3_ITEMS = tuple(
    _t3(row, size, model)
    for size in SIZES
    for row in TABLE3_SSSB
    for model in ("bert", "sensebert")
)


def _direction_flips(cells: Cells) -> Check:
    """Table 3 (section 6.2): BERT's and SenseBERT's AUL bias scores have opposite signs in the
    cells the text names (:data:`FLIPS`).

    The paper: "In some cases (e.g. verb sense in base models and colour, language and verb
    senses for the large models), we see that the direction of bias is opposite between BERT and
    SenseBERT". The list is of examples: base noun flips too (-0.12/14.06) and is not read.
    Margin per cell: the smaller ``|score|`` of the two, positive when the signs are opposite
    (how far the weaker score is past 0 on its side), negative when they agree (how far it
    would have to move to cross 0)."""
    across = cells.across_models("the sign of BERT's and SenseBERT's bias scores")
    if across is not None:
        return across
    parts = []
    for row, size in FLIPS:
        ids = _t3(row, size, "bert"), _t3(row, size, "sensebert")
        bert, sense = (cells.value(id) for id in ids)
        weaker = min(abs(bert), abs(sense))
        margin = weaker if bert * sense < 0 else -weaker
        spread = combined_uncertainty(*(cells.uncertainty(id) for id in ids))
        parts.append(judge(margin, spread, f"{row} {size} {bert:+.2f}/{sense:+.2f}"))
    return all_hold(
        parts,
        "the paper: 'e.g. verb sense in base models and colour, language and verb senses for "
        "the large models ... the direction of bias is opposite between BERT and SenseBERT' "
        "(Table 3 BERT/SenseBERT, each named cell of opposite sign)",
    )


_FLIP_ITEMS = tuple(_t3(row, size, model) for row, size in FLIPS for model in ("bert", "sensebert"))


def _mean_magnitude(cells: Cells, ids: tuple[str, ...]) -> tuple[float, float, int]:
    """Mean ``|value|`` of the measured cells among ``ids``, the half-width of its interval
    (the cells' in quadrature, over their number) and how many cells were read."""
    values = np.array([cells.value(id) for id in ids])
    spreads = np.array([cells.uncertainty(id) for id in ids])
    kept = ~np.isnan(values)
    if not kept.any():
        return np.nan, np.nan, 0
    spread = combined_uncertainty(*spreads[kept]) / int(kept.sum())
    return float(np.abs(values[kept]).mean()), spread, int(kept.sum())


def _contextual_above_static(cells: Cells) -> Check:
    """Table 3 against Table 2, SSSB rows (section 6.2): the mean ``|AUL bias score|`` of Table
    3's SSSB cells above the mean ``|score|`` of Table 2's SSSB cells (word and sense).

    The paper: "comparing against the corresponding bias scores reported by the static
    word/sense embeddings in Table 2, we see higher bias scores reported by the contextualised
    word/sense embeddings in Table 3" (in general, not per cell: different statistics on
    different scales, compared as the paper compares them). On the published values all four
    columns of each table; on the measured column this run's cells (Table 2's LMMS columns, as
    its ARES columns repeat them; Table 3's columns of this run's model). Margin: the difference
    of the means; uncertainty: their half-widths in quadrature."""
    models, note = _static_models(cells)
    static_ids = tuple(
        _t2(row, model, embedding)
        for model in models
        for row in TABLE2_SSSB_ROWS
        for embedding in ("word", "sense")
    )
    contextual, contextual_spread, n_contextual = _mean_magnitude(cells, _SSSB_TABLE3_ITEMS)
    static, static_spread, n_static = _mean_magnitude(cells, static_ids)
    return judge(
        contextual - static,
        combined_uncertainty(contextual_spread, static_spread),
        f"the paper: 'we see higher bias scores reported by the contextualised word/sense "
        f"embeddings in Table 3': mean |AUL bias score| of {n_contextual} Table 3 SSSB cells "
        f"{contextual:.2f} vs mean |static SSSB score| of {n_static} Table 2 cells ({note}, word "
        f"and sense) {static:.2f}",
    )


_STATIC_SSSB_ITEMS = tuple(
    _t2(row, model, embedding)
    for model in PAPER_MODELS
    for row in TABLE2_SSSB_ROWS
    for embedding in ("word", "sense")
)


def _sensebert_prefers_stereotypes(cells: Cells) -> Check:
    """Table 4 (section 7): SenseBERT's stereo-minus-anti PLL difference above BERT's in every
    nurse row.

    The paper: "SenseBERT has a higher preference (indicated by the high pseudo log-likelihood
    scores) for stereotypical examples than BERT over anti-stereotypical ones (indicated by the
    higher diff values)". Margin: the smallest ``diff(SenseBERT) - diff(BERT)``."""
    across = cells.across_models("BERT's and SenseBERT's nurse PLL differences")
    if across is not None:
        return across
    parts = []
    for row, name in TABLE4_ROWS.items():
        ids = f"table4-{row}-sensebert-diff", f"table4-{row}-bert-diff"
        sense, bert = (cells.value(id) for id in ids)
        spread = combined_uncertainty(*(cells.uncertainty(id) for id in ids))
        parts.append(judge(sense - bert, spread, f"'{name}' {sense:+.2f} vs {bert:+.2f}"))
    return all_hold(
        parts,
        "the paper: 'SenseBERT has a higher preference ... for stereotypical examples than BERT "
        "... (indicated by the higher diff values)' (Table 4 diff, SenseBERT vs BERT)",
    )


_TABLE4_ITEMS = tuple(
    f"table4-{row}-{model}-diff" for row in TABLE4_ROWS for model in ("sensebert", "bert")
)


def _layer_note(runs: Runs) -> str:
    layers = runs[STATIC].metadata["sense_vectors"]["layers"]
    return f"top layer {max(layers)} of the sense vectors"


def check_bias_grows_with_dimensionality(runs: Runs) -> Check:
    """Figure 1 (section 6.1): every test's ``|d|`` increases with the size at every step, for
    sense and word vectors, and at the largest size ``|sense| > |word|`` in every test.

    The paper: "We see that all types of social biases increase with the dimensionality for both
    word and sense embeddings ... Moreover, in higher dimensionalities sense embeddings show a
    higher degree of social biases than the corresponding (sense-insensitive) word embeddings".
    "Increase" is a rise at every step: a flat step (equal up to rounding, as when a size keeps
    every singular direction of a smaller one) or a fall does not hold. Each step and each gap
    is judged against the bootstrap half-widths of its two effect sizes over the target words
    (:func:`_d_intervals`, in quadrature: the nested truncations share their words, so this is
    the cautious, wider interval). Margin: the deciding step (then gap), as
    :func:`~wordlens.reproduce.base.all_hold`."""
    absent = not_measurable(runs, STATIC)
    if absent is not None:
        return absent
    table = runs[STATIC].tables["dimensions"]
    sizes = sorted(table["dimension"].unique())
    if len(sizes) < 2:
        return Check("not measurable", f"the sweep has one size only ({sizes})")
    effect, half = _d_intervals(table, sizes)  # [tests x representations, sizes] each
    magnitude = effect.abs().to_numpy()
    before, after = magnitude[:, :-1], magnitude[:, 1:]
    steps = np.where(np.isclose(after, before, rtol=1e-9, atol=1e-12), 0.0, after - before)
    spreads = np.hypot(half.to_numpy()[:, :-1], half.to_numpy()[:, 1:])
    grows = all_hold(
        [
            judge(float(step), float(spread), "")
            for step, spread in zip(steps.ravel(), spreads.ravel(), strict=True)
        ]
    )
    lowest = int(np.argmin(steps.min(axis=1)))
    test, representation = effect.index[lowest]
    series = ", ".join(
        f"{value:.3f}" + ("" if np.isnan(width) else f" ± {width:.2f}")
        for value, width in zip(effect.iloc[lowest].abs(), half.iloc[lowest], strict=True)
    )
    rising = int((steps > 0).all(axis=1).sum())
    grows = replace(
        grows,
        evidence=f"|d| rises at every step in {rising} of {len(effect)} test/representation "
        f"series over sizes {', '.join(str(s) for s in sizes)} (steps: "
        f"{_counted_steps(steps, spreads)}); the weakest, test {test} {representation}: {series}",
    )
    full, width = (
        effect[sizes[-1]].unstack("representation"),
        half[sizes[-1]].unstack("representation"),
    )  # [tests, representations]
    gaps = [_gap(a, b) for a, b in zip(full["sense"], full["word"], strict=True)]
    larger = all_hold(
        [
            judge(gap, float(np.hypot(a, b)), "")
            for gap, a, b in zip(gaps, width["sense"], width["word"], strict=True)
        ]
    )
    above = sum(gap > 0 for gap in gaps)
    larger = replace(
        larger, evidence=f"at {sizes[-1]} |sense d| > |word d| in {above} of {len(full)} tests"
    )
    return all_hold(
        [grows, larger],
        f"the paper: 'all types of social biases increase with the dimensionality for both "
        f"word and sense embeddings' and 'in higher dimensionalities sense embeddings show a "
        f"higher degree of social biases' (nested SVD truncations of the "
        f"{_layer_note(runs)}, not LMMS 1024/2048/2348; ± the bootstrap half-width of d over "
        "the target words)",
    )


def _d_intervals(table: pd.DataFrame, sizes: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sweep's d and the half-width of its bootstrap interval (NaN from a run without
    ``effect_size_ci_low``), each ``[(test, representation), size]``."""
    frame = table.assign(
        half=(table["effect_size_ci_high"] - table["effect_size_ci_low"]) / 2
        if "effect_size_ci_low" in table
        else np.nan
    )

    def pivot(column: str) -> pd.DataFrame:
        wide = frame.pivot_table(
            index=["test", "representation"], columns="dimension", values=column, dropna=False
        )
        return wide.reindex(columns=list(sizes))

    return pivot("effect_size"), pivot("half")


def _counted_steps(steps: npt.NDArray[np.float64], spreads: npt.NDArray[np.float64]) -> str:
    """How many steps rise or do not beyond their interval, lie within it, or have none."""
    told = np.abs(steps) > spreads  # [series, steps]; False where the spread is NaN
    rise, fall = int((told & (steps > 0)).sum()), int((told & (steps <= 0)).sum())
    bare = int(np.isnan(spreads).sum())
    within = steps.size - rise - fall - bare
    return (
        f"{rise} of {steps.size} rise and {fall} do not beyond their interval, {within} within "
        f"it, {bare} without one"
    )


def check_nurse_female_biased(runs: Runs) -> Check:
    """Figure 2 (section 7): cosine with the gender direction (eq. 8), nurse's noun sense
    negative and every other occupation's noun sense positive.

    The paper: "For all noun senses, we see positive (male) biases, except for nurse, which is
    strongly female-biased" ("strongly" sets no number: the sign decides). One part per
    occupation, ``-cos(nurse)`` and each other noun sense's cosine, judged by :func:`all_hold`
    (margin: the weakest part).

    Uncertainty: the half-width of each cosine's 95% bootstrap interval over the male-female
    pairs ``C`` that define ``g = mean_C (m - f)`` (``noun_sense_ci_low``, ``_ci_high`` of the
    method's table). The pairs are the one sampled unit here: the direction is their mean, and
    another list of gendered pairs gives another ``g``. The noun-sense vectors are held fixed:
    each is one vector of the sense store, its sense's examples already averaged when the store
    was built, not resampled here. A run without the columns has no interval (NaN)."""
    absent = not_measurable(runs, STATIC)
    if absent is not None:
        return absent
    run = runs[STATIC]
    table = run.tables["gender_direction"]
    top = table[table["layer"] == table["layer"].max()].set_index("occupation")
    if "nurse" not in top.index:
        return Check("not measurable", "nurse is not among the occupations")
    cosine = top["noun_sense"]
    half = (
        (top["noun_sense_ci_high"] - top["noun_sense_ci_low"]) / 2
        if "noun_sense_ci_low" in top
        else pd.Series(np.nan, index=top.index)
    )
    parts = [
        judge(-cosine[name] if name == "nurse" else cosine[name], half[name], "")
        for name in top.index
    ]
    values = ", ".join(
        f"{name} {cosine[name]:+.3f}" + ("" if np.isnan(half[name]) else f" ± {half[name]:.3f}")
        for name in top.index
    )
    pairs = run.metadata.get("experiments", {}).get("gender_direction", {}).get("n_pairs")
    over = f", 95% bootstrap intervals over the {pairs} pairs that define g" if pairs else ""
    return all_hold(
        parts,
        f"the paper: 'For all noun senses, we see positive (male) biases, except for nurse, "
        f"which is strongly female-biased': noun senses' cosine with g (eq. 8; + male), "
        f"{_layer_note(runs)}{over}: {values}",
    )


REPRODUCTION = SenseBiasReproduction()
