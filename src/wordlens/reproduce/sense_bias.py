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

Findings (:meth:`SenseBiasReproduction.checks`): "higher bias" is the larger deviation from 0,
as Table 2's and Table 3's captions bold it; every check reads the runs' tables, at the top layer
of the sense vectors. The findings that compare BERT with SenseBERT are not measurable from one
model's run.

References
----------
.. [1] Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased - Evaluating
   Social Biases in Static and Contextualised Sense Embeddings. *ACL 2022*.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

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

STATIC_SSSB_ROWS = {
    "race": "black (ethnicity)",
    "colour": "black (colour)",
    "nationality": "nationality",
    "language": "language",
    "noun": "noun",
    "verb": "verb",
}
"""SSSB sense types of Table 3 → the matching SSSB rows of Table 2."""

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
            options: dict[str, Any] = {"benchmark": [benchmark], "methods": ["aul"]}
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

    def checks(self) -> Mapping[str, CheckFunction]:
        """Finding id → its check (module notes)."""
        return {
            "weat-sense-above-word": check_weat_sense_above_word,
            "wat-word-above-sense": check_wat_word_above_sense,
            "black-ethnic-above-colour": check_black_ethnic_above_colour,
            "language-above-nationality-at-sense-level": check_language_above_nationality,
            "noun-above-verb": check_noun_above_verb,
            "bias-grows-with-dimensionality": check_bias_grows_with_dimensionality,
            "crows-bert-stereoset-sensebert": _needs_sensebert,
            "sensebert-at-least-bert-on-sssb": _needs_sensebert,
            "direction-flips": _needs_sensebert,
            "contextual-above-static": check_contextual_above_static,
            "nurse-female-biased-in-lmms": check_nurse_female_biased,
            "sensebert-verb-senses-anti-stereotypical": _needs_sensebert,
            "sensebert-prefers-stereotypes-for-nurse": _needs_sensebert,
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
    """A word (eq. 7) or sense cell of the ``static`` run's Table 2, at the top layer."""
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
    return Measured(
        value,
        f"sense vectors {vectors['source']}, layer {int(row['layer'].iloc[0])} (top; LMMS and "
        f"ARES are BERT-large's), neither LMMS nor ARES: both columns get this value",
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
    return Measured(float(row["aul"].iloc[0]), f"AUL over {pairs} {TITLES[benchmark]} pairs")


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


def _needs_sensebert(runs: Runs) -> Check:
    return Check("not measurable", f"the finding {_NEEDS_SENSEBERT}")


def _verdict(holds: bool, evidence: str) -> Check:
    return Check("holds" if holds else "does not hold", evidence)


def _table2_cells(runs: Runs, section: str) -> dict[str, tuple[float, float]]:
    """Row → (word, sense) of the ``static`` run's Table 2 rows of ``section`` (``WEAT``,
    ``WAT``, ``SSSB``); NaN where not computed."""
    table = runs[STATIC].tables["table2"]
    rows = table[table["section"] == section]
    return {
        str(row): (float(word), float(sense))
        for row, word, sense in zip(rows["row"], rows["word"], rows["sense"], strict=True)
    }


def _layer_note(runs: Runs) -> str:
    layers = runs[STATIC].metadata["sense_vectors"]["layers"]
    return f"top layer {max(layers)} of the sense vectors"


def further_from_zero(first: float, second: float) -> bool:
    """Whether ``|first| > |second|``, equal magnitudes up to rounding counting as not further
    (a static model's sense and eq. 7 word vectors coincide, and their statistics then differ
    in the last bits only)."""
    a, b = abs(first), abs(second)
    return bool(a > b and not np.isclose(a, b, rtol=1e-9, atol=1e-12))


def check_weat_sense_above_word(runs: Runs) -> Check:
    """|d| of the sense vectors above that of the eq. 7 word vectors in every WEAT row."""
    absent = not_measurable(runs, STATIC)
    if absent is not None:
        return absent
    cells = {
        row: cell for row, cell in _table2_cells(runs, "WEAT").items() if not np.isnan(cell).any()
    }
    if not cells:
        return Check("not measurable", "the static run has no WEAT row")
    above = sum(further_from_zero(sense, word) for word, sense in cells.values())
    values = "; ".join(f"{row} {sense:+.2f}/{word:+.2f}" for row, (word, sense) in cells.items())
    return _verdict(
        above == len(cells),
        f"|sense| > |word| in {above} of {len(cells)} WEAT tests ({_layer_note(runs)}; "
        f"sense/word effect sizes: {values})",
    )


def check_wat_word_above_sense(runs: Runs) -> Check:
    """|r| of the eq. 7 word vectors above that of the sense vectors on WAT."""
    absent = not_measurable(runs, STATIC)
    if absent is not None:
        return absent
    word, sense = _table2_cells(runs, "WAT")["WAT"]
    return _verdict(
        further_from_zero(word, sense),
        f"WAT r word {word:.3f}, sense {sense:.3f} ({_layer_note(runs)})",
    )


def _sense_above(runs: Runs, higher: str, lower: str) -> Check:
    """Whether the sense-level |score| of SSSB row ``higher`` exceeds that of ``lower``."""
    absent = not_measurable(runs, STATIC)
    if absent is not None:
        return absent
    cells = _table2_cells(runs, "SSSB")
    first, second = cells[higher][1], cells[lower][1]
    if np.isnan(first) or np.isnan(second):
        return Check("not measurable", f"no sense-level score of {higher} or {lower}")
    return _verdict(
        further_from_zero(first, second),
        f"sense-level SSSB score {higher} {first:+.3f}, {lower} {second:+.3f} "
        f"(compared as |score|; {_layer_note(runs)})",
    )


def check_black_ethnic_above_colour(runs: Runs) -> Check:
    """|score| of black's ethnic sense above that of its colour sense."""
    return _sense_above(runs, "black (ethnicity)", "black (colour)")


def check_language_above_nationality(runs: Runs) -> Check:
    """Mean |score| of the language senses above that of the nationality senses."""
    return _sense_above(runs, "language", "nationality")


def check_noun_above_verb(runs: Runs) -> Check:
    """Mean |score| of the occupations' noun senses above that of their verb senses."""
    return _sense_above(runs, "noun", "verb")


def check_bias_grows_with_dimensionality(runs: Runs) -> Check:
    """Every test's |d| grows with the size, for sense and word vectors, and at the full size
    |sense| > |word| in every test."""
    absent = not_measurable(runs, STATIC)
    if absent is not None:
        return absent
    table = runs[STATIC].tables["dimensions"]
    sizes = sorted(table["dimension"].unique())
    if len(sizes) < 2:
        return Check("not measurable", f"the sweep has one size only ({sizes})")
    effect = table.assign(size=table["effect_size"].abs()).pivot_table(
        index=["test", "representation"], columns="dimension", values="size"
    )[sizes]  # [tests x representations, sizes]
    growing = int((effect.diff(axis=1).iloc[:, 1:] >= 0).all(axis=1).sum())
    full = effect[sizes[-1]].unstack("representation")  # [tests, representations]
    sense_above = sum(
        further_from_zero(sense, word)
        for sense, word in zip(full["sense"], full["word"], strict=True)
    )
    return _verdict(
        growing == len(effect) and sense_above == len(full),
        f"|d| never falls with the size in {growing} of {len(effect)} test/representation "
        f"series over sizes {', '.join(str(s) for s in sizes)} (nested SVD truncations of the "
        f"top layer, not LMMS 1024/2048/2348); at {sizes[-1]} |sense| > |word| in "
        f"{sense_above} of {len(full)} tests",
    )


def check_contextual_above_static(runs: Runs) -> Check:
    """Mean |AUL bias score| of the SSSB sense types (Table 3) above the mean |score| of the
    matching static SSSB rows, word and sense (Table 2)."""
    name = LIKELIHOOD["sssb"]
    absent = not_measurable(runs, STATIC, name)
    if absent is not None:
        return absent
    table3 = runs[name].tables["table3"]
    sssb = table3[table3["benchmark"] == TITLES["sssb"]]
    contextual = dict(zip(sssb["group"], sssb["aul"], strict=True))
    shared = [group for group in STATIC_SSSB_ROWS if group in contextual]
    if not shared:
        return Check("not measurable", "no SSSB sense type was scored")
    cells = _table2_cells(runs, "SSSB")
    contextual_mean = float(np.mean([abs(contextual[group]) for group in shared]))
    static_mean = float(np.nanmean([np.abs(cells[STATIC_SSSB_ROWS[group]]) for group in shared]))
    return _verdict(
        further_from_zero(contextual_mean, static_mean),
        f"mean |AUL bias score| over {len(shared)} SSSB sense types {contextual_mean:.2f}; mean "
        f"|static SSSB score| (word and sense, {_layer_note(runs)}) {static_mean:.2f} "
        f"(different statistics on different scales, compared as the paper does)",
    )


def check_nurse_female_biased(runs: Runs) -> Check:
    """Cosine with the gender direction: nurse's noun sense negative, every other noun sense
    positive."""
    absent = not_measurable(runs, STATIC)
    if absent is not None:
        return absent
    table = runs[STATIC].tables["gender_direction"]
    top = table[table["layer"] == table["layer"].max()].set_index("occupation")["noun_sense"]
    if "nurse" not in top.index:
        return Check("not measurable", "nurse is not among the occupations")
    others = top.drop("nurse")
    values = ", ".join(f"{name} {value:+.3f}" for name, value in top.items())
    return _verdict(
        bool(top["nurse"] < 0 and (others > 0).all()),
        f"noun senses' cosine with g (eq. 8; + male), {_layer_note(runs)}: {values}",
    )


REPRODUCTION = SenseBiasReproduction()
