"""Reproducing Zhang et al. (2021), *Circles are like Ellipses, or Ellipses are like Circles?*
(the ``asymmetry`` method) on one model.

Experiments
    ``evocation``: the asymmetry experiment with EAT and USF (the paper's "FA") on the model:
    the data side (Tables 1 and 5: per ConceptNet relation each data set's count and ALAR, and
    their CAM), the model's CAM per data set and relation (Tables 2 and 6), its ALAR beside the
    data's (Figure 1), direction accuracy (Appendix G), the Figure 2 factors (language models)
    and word similarity on the seven sets of Tables 4 and 8. ``swow``: the same with SWOW added,
    which needs the user's SWOW-EN file (``--swow-file``; the data may not be redistributed, so
    it is not available offline): without it the experiment is skipped (not failed) and every
    SWOW item says why.

Matching a published cell
    Each item is matched by its data set (``fa`` is wordlens's ``usf``), its relation (Table 6's
    ``DistinctFrom`` and ``hasPrereq.`` are ``distinctFrom`` and ``hasPrerequisite``) and its
    quantity; every model column of Tables 2-4, 6 and 8 gets this run's value of the same cell
    (the runner marks the rows of another model).

    - ALAR: the method computes eq. 2 in natural logarithms; the paper prints 100 x ALAR
      (:func:`wordlens.stats.asymmetry.inter_dataset_table`; e.g. EAT isA 43.56 printed, 0.349
      measured with ConceptNet-100K), so the value is 100 x ALAR.
    - Table 2's rows ``SA`` and ``SR`` are not defined in the paper: not measured (the reason
      gives this run's CAM over every distinct pair, the method's ``all`` rows).
    - Table 4's static columns are the cosine (Appendix E; RQ 4 says dot product) and need
      static vectors; its contextual columns and Table 8 are the geometric mean of the two
      conditionals (eq. 12): eq. 6 for a language model, eq. 8 for static vectors (said in the
      note). Ethayarajh (2019)'s first-principal-component columns (``KEl1``, ``KEl12``) are not
      in wordlens.
    - Pair counts: Table 6's header and the text's "12K, 8K pairs" are the pairs this run
      evaluates (the CAM over every distinct pair); the paper intersects the vocabularies of all
      its embeddings, this run ConceptNet's and this model's.
    - Not measured: every SWOW number (Table 3 entirely, the SWOW columns, Appendix C and I),
      Table 3's parameter counts (a property of the paper's models) and relations the
      ConceptNet in use lacks (ConceptNet-100K has no ``antonym``, ``synonym``,
      ``distinctFrom``, ``similarTo``, ``hasContext``, ``formOf``, ``derivedFrom``: give
      ConceptNet 5.7 on a data root, see ``wordlens data show conceptnet5``; the paper-scale
      experiment then uses it).

Findings
    The findings on printed numbers (Tables 1-5) are :class:`~wordlens.reproduce.base.TableCheck`
    s over their cells, evaluated on the published values and on this run's: the data side of
    RQ 1 (Tables 1, 5: polarized relations, SWOW and FA's ties, SWOW as ground truth), the
    comparisons of RQ 2 and RQ 4 (Tables 2-4). A comparison of the paper's models (BERT vs static
    embeddings, sizes, RoBERTa vs BERT, BERT vs KE19, static vs contextual) is not measurable on
    this run's column (one model); WS353 REL vs SIM is a comparison within a model and is
    measured. Every SWOW cell is not measured here, so a finding on SWOW is not measurable on this
    run. The findings on Figures 1, 2, 11 and 12 are checks of the runs (:meth:`basis`), against
    EAT and USF, each data set on its own (the paper's are against SWOW). Each check's threshold
    quotes the paper's words (in its docstring and evidence); where the words set no number
    ("polarized", "in general", "almost all", "weakly", "mild") the docstring says how it is
    read. Margins are in the deciding quantity's units; uncertainties are Fisher-z intervals
    (CAM, similarity, the Figure 2 correlations), the standard error of a mean (a model's ALAR)
    or Wald intervals (direction accuracy); a data set's ALAR and the pair counts have none.

Scales
    ``paper``: every pair (eq. 9), every pair of each similarity set, every context of a pair
    (the paper's "roughly 1K contexts" per pair), ConceptNet 5.7 when a data root has it.
    ``smoke``: :data:`SMOKE_PAIRS` pairs, :data:`SMOKE_SIMILARITY_PAIRS` pairs per similarity
    set (language models) and :data:`SMOKE_CONTEXTS` contexts per pair, ConceptNet-100K.

References
----------
.. [1] Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or
   Ellipses are like Circles? *AAAI 2021*: section 5 (Tables 1-4, Figures 1-2), Appendices
   E-G (Tables 5-8).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from wordlens.methods.asymmetry.experiment import ALL_PAIRS
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
    combined_uncertainty,
    every_part,
    interval_half_width,
    judge,
    missing,
    not_measurable,
    proportion_half_width,
)
from wordlens.reproduce.published import PublishedItem
from wordlens.resources.conceptnet import CONCEPTNET_5, CONCEPTNET_100K
from wordlens.results import Run
from wordlens.stats.correlation import CorrelationResult, fisher_interval, spearman

EVOCATION = "evocation"
"""The experiment on EAT and USF (offline)."""
SWOW_EXPERIMENT = "swow"
"""The experiment with SWOW added (needs the user's file; skipped without it)."""
NORMS = {"eat": "eat", "fa": "usf"}
"""The paper's evocation data set names -> wordlens's."""
SIMILARITY_SETS = {
    "men": "men",
    "simlex999": "simlex999",
    "ws353": "ws353",
    "ws353-sim": "ws353-sim",
    "ws353-rel": "ws353-rel",
    "mturk-771": "mturk771",
    "mturk-287": "mturk287",
}
"""The similarity sets of Tables 4 and 8 (the YAML's data names) -> wordlens's resources."""
RELATION_NAMES = {"DistinctFrom": "distinctFrom", "hasPrereq.": "hasPrerequisite"}
"""Relation names as Table 6 prints them -> ConceptNet's."""
ALAR_PRINTED_SCALE = 100.0
"""The paper prints 100 x ALAR (natural logarithms)."""
SMOKE_PAIRS = 24
SMOKE_SIMILARITY_PAIRS = 4
SMOKE_CONTEXTS = 2
WEAK = 0.3
"""|Spearman rho| below which a correlation is called weak (Cohen's medium effect, 0.3)."""
MIN_PAIRS = 10
"""Relations with fewer decided pairs are left out of the direction-accuracy ranking."""
MORE_CONTEXTS = 5000
"""Figure 2: the trend of direction accuracy with contexts "discontinues beyond 5000"."""
CONTEXT_BIN = 200
"""Section 5, RQ 3: Figure 2 groups "word pairs into bins of size 200 by the number of
contexts"; the top bin up to :data:`MORE_CONTEXTS` is where the trend ends."""
POLARIZED = ("isA", "partOf", "atLocation", "hasContext")
NEUTRAL = ("antonym", "distinctFrom")
HARD = ("hasProperty", "capableOf", "hasA")
ALIGNED = "hasContext"

_SWOW = (
    "SWOW-EN is not available offline (it may not be redistributed): the experiment 'swow' "
    "needs your SWOW-EN file (from https://smallworldofwords.org/en/project/research): "
    "`wordlens reproduce asymmetry -m MODEL --set swow_file=strength.SWOW-EN.R123.csv`"
)
_SETUP = "a property of the paper's setup, not measured"
_CONCEPTNET5 = (
    "give ConceptNet 5.7 on a data root (`wordlens data show conceptnet5`): the paper-scale "
    "experiment then annotates with it"
)


class AsymmetryReproduction(PaperReproduction):
    """Zhang et al. (2021) on one model (see the module notes)."""

    paper = "asymmetry"

    def experiments(self, scale: Scale) -> list[Experiment]:
        """``evocation`` (EAT and USF) and ``swow`` (skipped without the user's file)."""
        conceptnet = _conceptnet(scale)
        options: dict[str, Any] = {
            "norms": ["eat", "usf"],
            "similarity": list(SIMILARITY_SETS.values()),
            "conceptnet": conceptnet,
        }
        if scale == "paper":
            options |= {"pairs": "all", "similarity_pairs": "all", "max_contexts": 0}
        else:
            options |= {
                "pairs": str(SMOKE_PAIRS),
                "similarity_pairs": str(SMOKE_SIMILARITY_PAIRS),
                "max_contexts": SMOKE_CONTEXTS,
            }
        return [
            Experiment(EVOCATION, "asymmetry", options, _departure(scale, conceptnet)),
            Experiment(
                SWOW_EXPERIMENT,
                "asymmetry",
                {**options, "norms": ["eat", "usf", "swow"]},
                requires=("swow_file",),
                unavailable=_SWOW,
            ),
        ]

    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        """This run's value of the item's cell (see the module notes)."""
        if item.quantity == "n_params_millions":
            return NotMeasured(_SETUP)
        if "swow" in item.data.lower():
            return NotMeasured(_SWOW)
        absent = missing(runs, EVOCATION)
        if absent is not None:
            return absent
        run = runs[EVOCATION]
        between_data = item.location.number in (1, 5)
        if item.quantity == "n_pairs":
            return _data_count(run, item) if between_data else _evaluated_pairs(run, item)
        if item.quantity == "alar":
            return _data_alar(run, item)
        if item.quantity == "cam":
            return _data_cam(run, item) if between_data else _model_cam(run, item)
        if item.quantity in ("similarity_spearman", "similarity_spearman_x100"):
            return _similarity(run, item)
        return NotMeasured(f"the asymmetry method does not compute {item.quantity!r}")

    def checks(self) -> Mapping[str, FindingCheck]:
        """Every finding of the paper: those on Tables 1-5's numbers over their cells
        (:class:`~wordlens.reproduce.base.TableCheck`), those on Figures 1, 2, 11 and 12 over
        the runs (see :meth:`basis`)."""
        return {
            "swow-is-the-ground-truth": TableCheck(
                _GROUND_TRUTH_ITEMS, check_swow_is_the_ground_truth
            ),
            "polarized-relations": TableCheck(_polarized_items(), check_polarized_relations),
            "swow-fa-correlate-most": TableCheck(_TIES_ITEMS, check_swow_fa_correlate_most),
            "bert-beats-static-on-cam": TableCheck(_TABLE2_ITEMS, check_bert_beats_static),
            "glove-best-static": TableCheck(_TABLE2_ITEMS, check_glove_best_static),
            "cxt-beats-w2v": TableCheck(_TABLE2_ITEMS, check_cxt_beats_w2v),
            "bert-large-beats-base": TableCheck(_TABLE2_ITEMS, check_bert_large_beats_base),
            "cam-grows-with-size-except-electra": TableCheck(
                _TABLE3_ITEMS, check_cam_grows_with_size
            ),
            "roberta-beats-bert": TableCheck(_TABLE3_ITEMS, check_roberta_beats_bert),
            "hard-relations": check_hard_relations,
            "more-contexts-help-up-to-5000": check_more_contexts,
            "distance-matters-little": check_distance,
            "bert-beats-ke19-on-two-of-three": TableCheck(_KE19_ITEMS, check_bert_beats_ke19),
            "similarity-favours-static": TableCheck(
                _STATIC_VS_CONTEXTUAL_ITEMS, check_similarity_favours_static
            ),
            "contextual-rel-above-sim": TableCheck(
                _REL_SIM_ITEMS, check_relatedness_above_similarity
            ),
            "antonym-hardest-direction": check_antonym_hardest,
        }

    def named_models(self) -> Mapping[str, tuple[str, ...]]:
        """The findings about BERT alone (its contextual conditionals: Figure 2, Appendix G,
        Table 4's geometric mean against Ethayarajh 2019), judged on this run's model and
        marked when it is another (:data:`~wordlens.reproduce.base.NAMED_MODEL_RULE`); the
        comparisons of the paper's models are left out."""
        bert = ("bert-base-uncased",)
        return dict.fromkeys(
            (
                "more-contexts-help-up-to-5000",
                "distance-matters-little",
                "antonym-hardest-direction",
                "bert-beats-ke19-on-two-of-three",
            ),
            bert,
        )

    def basis(self) -> Mapping[str, str]:
        """The findings that rest on figures (the paper prints no number for them)."""
        return {
            "hard-relations": "Figure 1",
            "more-contexts-help-up-to-5000": "Figure 2 (upper)",
            "distance-matters-little": "Figure 2 (lower)",
            "antonym-hardest-direction": "Figures 11, 12",
        }


REPRODUCTION = AsymmetryReproduction()


# --- experiments ---------------------------------------------------------------------------------


def _conceptnet(scale: Scale) -> str:
    """ConceptNet 5.7 at paper scale when a data root has it, else ConceptNet-100K."""
    if scale == "paper":
        from wordlens.resources.registry import get_resource

        if all(where is not None for where in get_resource(CONCEPTNET_5).locate()):
            return CONCEPTNET_5
    return CONCEPTNET_100K


def _departure(scale: Scale, conceptnet: str) -> str:
    parts = []
    if scale == "smoke":
        parts.append(
            f"smoke: a seeded sample of {SMOKE_PAIRS} pairs of the union of EAT's and USF's, "
            f"{SMOKE_SIMILARITY_PAIRS} pairs per similarity set and at most {SMOKE_CONTEXTS} "
            "contexts per pair (language models)"
        )
    if conceptnet == CONCEPTNET_100K:
        parts.append(
            "relations annotated with ConceptNet-100K, not ConceptNet 5.7 (it lacks antonym, "
            "synonym, distinctFrom, similarTo, hasContext, formOf, derivedFrom)"
        )
    parts += [
        "EAT and USF only (SWOW: experiment 'swow')",
        "eq. 9 with ConceptNet's and this model's vocabularies, not those of all the paper's "
        "embeddings",
        "language models: contexts from wordlens's paragraph index, not the October 2019 "
        "Wikipedia dump",
    ]
    return "; ".join(parts)


# --- measuring an item ---------------------------------------------------------------------------


def _norm(name: str) -> str:
    """wordlens's name of the paper's data set ``name`` (``fa`` -> ``usf``)."""
    return NORMS[name.split()[0].lower()]


def _relation(item: PublishedItem) -> str | None:
    relation = item.setting.get("relation")
    return None if relation is None else RELATION_NAMES.get(str(relation), str(relation))


def _conceptnet_name(run: Run) -> str:
    """The ConceptNet of the run as its option names it (``conceptnet-100k``, ...)."""
    return str(run.metadata.get("config", {}).get("conceptnet", "ConceptNet"))


def _table1_row(run: Run, relation: str) -> pd.Series | None:
    table = run.tables.get("table1")
    if table is None:
        return None
    rows = table[table["relation"] == relation]
    return None if rows.empty else rows.iloc[0]


def _lacks(run: Run, relation: str) -> bool:
    """Whether the run's ConceptNet has no single-word assertion of one of the paper's
    relations (the method's ``relations`` table)."""
    source = run.tables["relations"]
    rows = source[source["relation"] == relation]
    return not rows.empty and not bool(rows["in_source"].any())


def _lacking(run: Run, relation: str) -> str:
    return f"{_conceptnet_name(run)} has no single-word {relation!r} assertion; {_CONCEPTNET5}"


def _without_pairs(run: Run, norm: str, relation: str) -> NotMeasured:
    """Why a relation has no pair of ``norm``: the ConceptNet in use lacks it, or no pair."""
    if _lacks(run, relation):
        return NotMeasured(_lacking(run, relation))
    return NotMeasured(f"no {norm} pair is annotated {relation!r} by {_conceptnet_name(run)}")


def _data_count(run: Run, item: PublishedItem) -> Measured | NotMeasured:
    """Tables 1 and 5, ``count``: the data set's pairs of the relation."""
    norm, relation = _norm(str(item.setting["resources"])), _relation(item)
    assert relation is not None
    row = _table1_row(run, relation)
    if row is None or pd.isna(row[f"count_{norm}"]):
        return _without_pairs(run, norm, relation)
    return Measured(
        float(row[f"count_{norm}"]),
        f"{norm} pairs annotated {relation!r} by {_conceptnet_name(run)} (table1)",
    )


def _data_alar(run: Run, item: PublishedItem) -> Measured | NotMeasured:
    """Tables 1 and 5, ``ALAR``: 100 x eq. 2 of the data set over the relation's pairs."""
    norm, relation = _norm(str(item.setting["resources"])), _relation(item)
    assert relation is not None
    row = _table1_row(run, relation)
    if row is None or pd.isna(row[f"alar_{norm}"]):
        return _without_pairs(run, norm, relation)
    return Measured(
        ALAR_PRINTED_SCALE * float(row[f"alar_{norm}"]),
        f"100 x ALAR (natural log, as the paper prints it) of {int(row[f'count_{norm}'])} "
        f"{norm} pairs (table1)",
    )


def _data_cam(run: Run, item: PublishedItem) -> Measured | NotMeasured:
    """Tables 1 and 5, ``CAM EAT-FA``: Spearman of EAT's and USF's LARs on common pairs."""
    relation = _relation(item)
    assert relation is not None
    row = _table1_row(run, relation)
    if row is None:
        return _without_pairs(run, "eat", relation)
    n = int(row["n_eat_usf"])
    if pd.isna(row["cam_eat_usf"]):
        return NotMeasured(f"{n} common EAT-USF {relation!r} pair(s): no correlation")
    cam = float(row["cam_eat_usf"])
    return Measured(
        cam, f"{n} common EAT-USF pairs (table1); Fisher-z interval", fisher_half_width(cam, n)
    )


def _cam_row(run: Run, norm: str, relation: str) -> pd.Series | None:
    cam = run.tables["cam"]
    rows = cam[(cam["norm"] == norm) & (cam["relation"] == relation)]
    return None if rows.empty else rows.iloc[0]


def _model_cam(run: Run, item: PublishedItem) -> Measured | NotMeasured:
    """Tables 2 and 6: the CAM of this model and the data set on the relation's pairs."""
    norm, relation = _norm(str(item.setting["evocation"])), _relation(item)
    assert relation is not None
    if relation in ("SA", "SR"):
        row = _cam_row(run, norm, ALL_PAIRS)
        overall = "no pair" if row is None else f"{row['cam']:.3f} over {int(row['n'])} pairs"
        return NotMeasured(
            f"the paper does not define the row {relation!r}; this run's CAM over every "
            f"distinct {norm} pair (relation 'all' of the cam table) is {overall}"
        )
    row = _cam_row(run, norm, relation)
    if row is None and _lacks(run, relation):
        return NotMeasured(_lacking(run, relation))
    if row is None:
        return NotMeasured(
            f"none of the {norm} pairs this run evaluates (eq. 9, and the sample if any) is "
            f"annotated {relation!r} by {_conceptnet_name(run)}"
        )
    if pd.isna(row["cam"]):
        return NotMeasured(f"{norm} {relation!r}: {row['reason']}")
    return Measured(
        float(row["cam"]),
        f"CAM of {int(row['n'])} {norm} {relation!r} pairs in {_conceptnet_name(run)}'s and "
        "this model's vocabularies (eq. 9); Fisher-z interval",
        interval_half_width(float(row["ci_low"]), float(row["ci_high"])),
    )


def _evaluated_pairs(run: Run, item: PublishedItem) -> Measured | NotMeasured:
    """Table 6's header and the text's pair counts: the pairs this run evaluates."""
    norm = _norm(item.data)
    row = _cam_row(run, norm, ALL_PAIRS)
    if row is None:
        return NotMeasured(f"no {norm} pair was evaluated")
    return Measured(
        float(row["n"]),
        f"distinct {norm} pairs with both LARs defined (relation 'all' of the cam table), in "
        f"{_conceptnet_name(run)}'s and this model's vocabularies; the paper intersects all "
        "its embeddings' vocabularies",
    )


def _is_static(run: Run) -> bool:
    return bool(run.metadata.get("model", {}).get("kind") == "static")


def _similarity(run: Run, item: PublishedItem) -> Measured | NotMeasured:
    """Tables 4 and 8: Spearman of the model's similarity and the human scores."""
    method = str(item.setting.get("method"))
    if method.startswith("first principal component"):
        return NotMeasured(
            "Ethayarajh (2019)'s first-principal-component embeddings are not in wordlens"
        )
    static = _is_static(run)
    if method == "static" and not static:
        return NotMeasured(
            "the static columns' similarity (cosine, Appendix E) needs static vectors; this "
            "language model's geometric mean of its conditionals is in the contextual columns"
        )
    measure = "cosine" if method == "static" else "geometric_mean"
    name = SIMILARITY_SETS[item.data]
    table = run.tables.get("similarity")
    rows = (
        pd.DataFrame()
        if table is None
        else table[(table["set"] == name) & (table["measure"] == measure)]
    )
    if rows.empty or pd.isna(rows.iloc[0]["spearman"]):
        used = 0 if rows.empty else int(rows.iloc[0]["n_used"])
        return NotMeasured(f"{name}: {used} scored pair(s), no correlation")
    row = rows.iloc[0]
    scale = 100.0 if item.quantity.endswith("_x100") else 1.0
    how = {
        ("cosine", True): "cosine",
        ("geometric_mean", True): "geometric mean of the eq. 8 conditionals of static vectors",
        ("geometric_mean", False): "geometric mean of the eq. 6 conditionals",
    }[(measure, static)]
    return Measured(
        scale * float(row["spearman"]),
        f"{how}, {int(row['n_used'])} of {int(row['n_pairs'])} {name} pairs"
        + (" (x100 as printed)" if scale != 1.0 else "")
        + "; Fisher-z interval",
        scale * interval_half_width(float(row["ci_low"]), float(row["ci_high"])),
    )


# --- helpers of the checks -----------------------------------------------------------------------


def fisher_half_width(r: float, n: int) -> float:
    """Half the width of the 95% Fisher-z interval on Spearman's ``r`` over ``n`` pairs
    (:func:`wordlens.stats.correlation.fisher_interval`; NaN for ``n <= 3`` or a NaN ``r``)."""
    return interval_half_width(*fisher_interval(r, n, method="spearman"))


def _toward_zero(result: CorrelationResult) -> float:
    """The distance from ``r`` to the end of its 95% interval on the side of 0: ``|r|`` is
    within it (:func:`judge` says inconclusive) exactly when the interval holds 0."""
    return result.r - result.ci_low if result.r >= 0 else result.ci_high - result.r


def _any_nan(*values: float) -> bool:
    return any(math.isnan(value) for value in values)


def _lowest(values: Mapping[str, float]) -> str:
    """The key of the lowest value (NaN values are not compared: callers check them first)."""
    return min(values, key=lambda key: values[key])


def _mean(cells: Cells, ids: Sequence[str]) -> tuple[float, float]:
    """The mean of the items and the half-width of its interval (the items' half-widths added
    in quadrature, divided by their number)."""
    values = [cells.value(id) for id in ids]
    spread = combined_uncertainty(*(cells.uncertainty(id) for id in ids)) / len(ids)
    return float(np.mean(values)), spread


def _beyond(
    cells: Cells, what: str, high: tuple[float, float], low: tuple[float, float], unit: str = ""
) -> Check:
    """The check that ``high`` (value, half-width) exceeds ``low``: margin ``high - low``."""
    margin = high[0] - low[0]
    return judge(margin, combined_uncertainty(high[1], low[1]), f"{what} ({margin:+.3f}{unit})")


def _item(table: int, *parts: str) -> str:
    """A published item's id: ``_item(1, "isA", "eat", "alar")`` is ``table1-isa-eat-alar``."""
    return "-".join([f"table{table}", *(part.lower() for part in parts)])


# --- checks over printed cells (Tables 1-5) ------------------------------------------------------

NORMS_PRINTED = ("eat", "fa", "swow")
"""The evocation data sets of Tables 1, 2 and 5 as their item ids name them."""
TABLE1_RELATIONS = ("relatedTo", "antonym", "synonym", "isA", "atLocation", "distinctFrom")
"""The relation rows of Table 1 and of Table 2 (whose rows SA and SR the paper does not define)."""
STATIC_COLUMNS = ("w2v", "cxt", "glv", "fxt")
"""Table 2's static embeddings."""
TABLE3_MODELS = {
    "BERT": ("bert-base", "bert-large"),
    "RoBERTa": ("roberta-base", "roberta-large"),
    "ALBERT": ("albert-base", "albert-large", "albert-xl", "albert-xxl"),
    "ELECTRA": ("electra-base", "electra-large"),
}
"""Table 3's model families and their rows, as the item ids name them."""
TABLE4_SETS = ("men", "simlex", "ws353", "sim", "rel")
"""Table 4's rows as its item ids name them (``sim`` and ``rel``: WS353's subsets)."""
TABLE4_CONTEXTUAL = ("brt", "brtl", "rbt", "rbtl", "abt", "abtl", "abtxl", "abtxxl", "elt", "eltl")
"""Table 4's contextual columns (the geometric mean of the two conditionals, eq. 12)."""
TABLE4_KE19 = ("kel1", "kel12")
"""Table 4's columns of Ethayarajh (2019)'s first-principal-component BERT embeddings."""
TABLE4_KE19_SETS = ("men", "simlex", "ws353")
"""The three sets on which Table 4 prints Ethayarajh (2019)'s columns."""

_GROUND_TRUTH_ITEMS = (
    *(_item(1, r, "cam", pair) for r in TABLE1_RELATIONS for pair in ("eat-fa", "sw-fa", "sw-eat")),
    *(_item(1, r, norm, "count") for r in TABLE1_RELATIONS for norm in NORMS_PRINTED),
    *(_item(1, "antonym", norm, "alar") for norm in NORMS_PRINTED),
)


def check_swow_is_the_ground_truth(cells: Cells) -> Check:
    """Section 5, "Answering RQ 1" (Table 1): "in general, SWOW correlates to all other datasets
    the best" (its two CAMs above EAT-FA's in more than half of Table 1's relations), "e.g., on
    ... relatedTo, SWOW has the top two CAM scores, 0.68 and 0.64" (there too), "it is the
    largest" dataset (the most pairs in every row of Table 1) and it "made almost symmetric ALAR
    estimation on ... antonym", as well as, if not better than, the others (its antonym
    ``|ALAR|`` the smallest of the three)."""
    parts = [
        _swow_top_two(cells, "relatedTo"),
        _in_general(
            [_swow_top_two(cells, relation) for relation in TABLE1_RELATIONS],
            "'in general, SWOW correlates to all other datasets the best'",
        ),
    ]
    for relation in TABLE1_RELATIONS:
        counts = {norm: _item(1, relation, norm, "count") for norm in NORMS_PRINTED}
        other = max(("eat", "fa"), key=lambda norm: cells.value(counts[norm]))
        parts.append(
            _beyond(
                cells,
                f"{relation} pairs SWOW {cells.value(counts['swow']):.0f} vs {other.upper()} "
                f"{cells.value(counts[other]):.0f}",
                (cells.value(counts["swow"]), cells.uncertainty(counts["swow"])),
                (cells.value(counts[other]), cells.uncertainty(counts[other])),
                " pairs",
            )
        )
    antonym = {norm: _item(1, "antonym", norm, "alar") for norm in NORMS_PRINTED}
    other = min(("eat", "fa"), key=lambda norm: abs(cells.value(antonym[norm])))
    parts.append(
        _beyond(
            cells,
            f"antonym |100 x ALAR| {other.upper()} {abs(cells.value(antonym[other])):.2f} vs "
            f"SWOW {abs(cells.value(antonym['swow'])):.2f}",
            (abs(cells.value(antonym[other])), cells.uncertainty(antonym[other])),
            (abs(cells.value(antonym["swow"])), cells.uncertainty(antonym["swow"])),
        )
    )
    return all_hold(
        parts,
        "SWOW against EAT and FA (Table 1); the paper: 'in general, SWOW correlates to all other "
        "datasets the best', 'SWOW has the top two CAM scores', 'it is the largest', 'almost "
        "symmetric ALAR estimation on ... antonym'",
    )


def _swow_top_two(cells: Cells, relation: str) -> Check:
    """SWOW's two CAMs of ``relation`` (SW-FA, SW-EAT) above EAT-FA's: margin the lower of them
    minus EAT-FA."""
    cam = {pair: _item(1, relation, "cam", pair) for pair in ("eat-fa", "sw-fa", "sw-eat")}
    top = min(("sw-fa", "sw-eat"), key=lambda pair: cells.value(cam[pair]))
    return _beyond(
        cells,
        f"{relation} CAM SW-FA {cells.value(cam['sw-fa']):.2f}, SW-EAT "
        f"{cells.value(cam['sw-eat']):.2f} vs EAT-FA {cells.value(cam['eat-fa']):.2f}",
        (cells.value(cam[top]), cells.uncertainty(cam[top])),
        (cells.value(cam["eat-fa"]), cells.uncertainty(cam["eat-fa"])),
    )


_POLARIZED_ITEMS = {
    "isA": 1,
    "atLocation": 1,
    "partOf": 5,
    "hasContext": 5,
    "antonym": 1,
    "distinctFrom": 1,
}
"""The table that prints each relation's ALAR (partOf and hasContext only in Table 5)."""


def _polarized_items() -> tuple[str, ...]:
    return tuple(
        _item(table, relation, norm, "alar")
        for norm in NORMS_PRINTED
        for relation, table in _POLARIZED_ITEMS.items()
    )


def check_polarized_relations(cells: Cells) -> Check:
    """Section 5, RQ 1.1 (Tables 1 and 5): "isA, partOf, atLocation, hasContext exhibit
    polarized ALAR; whereas antonym and distinctFrom are comparably neutral". The paper sets no
    number: on each data set the smallest ``|ALAR|`` of the polarized relations must exceed the
    largest of the neutral ones (margin in printed units, 100 x ALAR)."""
    parts = []
    for norm in NORMS_PRINTED:
        ids = {r: _item(table, r, norm, "alar") for r, table in _POLARIZED_ITEMS.items()}
        size = {r: abs(cells.value(id)) for r, id in ids.items()}
        text = ", ".join(f"{r} {cells.value(id):.2f}" for r, id in ids.items())
        if _any_nan(*size.values()):
            parts.append(Check("not measurable", f"{norm.upper()}: {text}"))
            continue
        low = _lowest({r: size[r] for r in POLARIZED})
        high = max(NEUTRAL, key=lambda r: size[r])
        parts.append(
            _beyond(
                cells,
                f"{norm.upper()} |{low}| {size[low]:.2f} > |{high}| {size[high]:.2f} ({text})",
                (size[low], cells.uncertainty(ids[low])),
                (size[high], cells.uncertainty(ids[high])),
            )
        )
    return all_hold(
        parts,
        "100 x ALAR; the paper: 'isA, partOf, atLocation, hasContext exhibit polarized ALAR; "
        "whereas antonym and distinctFrom are comparably neutral'",
    )


_CAM_PAIRS = ("eat-fa", "sw-fa", "sw-eat")
_TIES_ITEMS = tuple(_item(1, r, "cam", pair) for r in TABLE1_RELATIONS for pair in _CAM_PAIRS)


def _in_general(parts: Sequence[Check], what: str) -> Check:
    """ "In general": more than half of ``parts`` hold. The deciding part is the one that
    makes the majority: the ``n // 2 + 1``-th largest margin (NaN if a part is NaN)."""
    texts = "; ".join(part.evidence for part in parts)
    if any(math.isnan(part.margin) for part in parts):
        return Check("not measurable", f"{what}: a cell is not measured ({texts})")
    ranked = sorted(parts, key=lambda part: part.margin, reverse=True)
    deciding = ranked[len(parts) // 2]
    held = sum(part.margin > 0 for part in parts)
    return judge(
        deciding.margin,
        deciding.uncertainty,
        f"{what}: {held} of {len(parts)} hold, more than half needed ({texts})",
    )


def check_swow_fa_correlate_most(cells: Cells) -> Check:
    """Section 5, RQ 1.2 (Table 1): "In general, SWOW and FA show stronger ties": CAM SW-FA
    above both CAM EAT-FA and CAM SW-EAT in more than half of Table 1's relations ("in
    general"; margin: the CAM difference of the relation that makes the majority)."""
    parts = []
    for relation in TABLE1_RELATIONS:
        cam = {pair: _item(1, relation, "cam", pair) for pair in _CAM_PAIRS}
        other = max(("eat-fa", "sw-eat"), key=lambda pair: cells.value(cam[pair]))
        parts.append(
            _beyond(
                cells,
                f"{relation} SW-FA {cells.value(cam['sw-fa']):.2f} vs {other.upper()} "
                f"{cells.value(cam[other]):.2f}",
                (cells.value(cam["sw-fa"]), cells.uncertainty(cam["sw-fa"])),
                (cells.value(cam[other]), cells.uncertainty(cam[other])),
            )
        )
    return _in_general(parts, "the paper: 'In general, SWOW and FA show stronger ties'")


def _table2(relation: str, norm: str, column: str) -> str:
    return _item(2, relation, norm, column)


_TABLE2_ITEMS = tuple(
    _table2(r, norm, column)
    for norm in NORMS_PRINTED
    for r in TABLE1_RELATIONS
    for column in (*STATIC_COLUMNS, "bert", "bertl")
)


def _table2_mean(cells: Cells, norm: str, column: str) -> tuple[float, float]:
    """A Table 2 column's mean CAM over the six relations of a data set (the data set as a
    whole; the rows SA and SR are not defined in the paper)."""
    return _mean(cells, [_table2(r, norm, column) for r in TABLE1_RELATIONS])


def check_bert_beats_static(cells: Cells) -> Check:
    """Section 5, RQ 2 (Table 2): "BERT, especially BERT-large, has a stronger correlation with
    the three datasets than any other static embedding": on each data set the mean CAM over the
    six relations of BERT-base and of BERT-large exceeds every static embedding's (the subject
    is BERT, both sizes; "especially" stresses BERT-large, it does not leave out BERT-base).

    Table 2 itself prints BERT-base below GloVe on FA (mean .362 vs .403; below it on five of
    the six relations): on the paper's own numbers the words do not hold."""
    refused = cells.across_models("BERT with the static embeddings")
    if refused is not None:
        return refused
    parts = []
    for norm in NORMS_PRINTED:
        means = {column: _table2_mean(cells, norm, column) for column in STATIC_COLUMNS}
        best = max(STATIC_COLUMNS, key=lambda column: means[column][0])
        for bert in ("bert", "bertl"):
            parts.append(
                _beyond(
                    cells,
                    f"{norm.upper()} mean CAM {_table2_column(cells, norm, bert)} vs best "
                    f"static {_table2_column(cells, norm, best)}",
                    _table2_mean(cells, norm, bert),
                    means[best],
                )
            )
    return every_part(
        parts,
        "Table 2, mean CAM over the six relations; the paper: 'BERT, especially BERT-large, "
        "has a stronger correlation with the three datasets than any other static embedding'",
    )


def _table2_column(cells: Cells, norm: str, column: str) -> str:
    """``bert .362 (.44 .30 .33 .43 .33 .34)``: a Table 2 column's mean CAM over the six
    relations, and its cells in the order of :data:`TABLE1_RELATIONS`."""
    values = [cells.value(_table2(r, norm, column)) for r in TABLE1_RELATIONS]
    return f"{column} {_table2_mean(cells, norm, column)[0]:.3f} ({_printed(values)})"


def _printed(values: Sequence[float]) -> str:
    """``.44 .30 -.12``: values as the tables print them (two decimals, no leading zero)."""
    return " ".join(re.sub(r"^(-?)0\.", r"\1.", f"{value:.2f}") for value in values)


def check_glove_best_static(cells: Cells) -> Check:
    """Section 5, RQ 2 (Table 2): "GLoVe is the most competitive among static embeddings": on
    each data set GloVe's mean CAM over the six relations exceeds every other static
    embedding's."""
    refused = cells.across_models("GloVe with the other static embeddings")
    if refused is not None:
        return refused
    parts = []
    for norm in NORMS_PRINTED:
        means = {column: _table2_mean(cells, norm, column) for column in STATIC_COLUMNS}
        rival = max(("w2v", "cxt", "fxt"), key=lambda column: means[column][0])
        parts.append(
            _beyond(
                cells,
                f"{norm.upper()} mean CAM glv {means['glv'][0]:.3f} vs {rival} "
                f"{means[rival][0]:.3f}",
                means["glv"],
                means[rival],
            )
        )
    return all_hold(parts, "the paper: 'the most competitive among static embeddings'")


def check_cxt_beats_w2v(cells: Cells) -> Check:
    """Section 5, RQ 2 (Table 2): cxt "consistently outperforms word2vec on almost all relation
    types". "Almost all" is read as all but at most one of the six relation types per data set:
    the second-smallest difference cxt - w2v of each data set must be positive."""
    refused = cells.across_models("word2vec's context vectors with its word vectors")
    if refused is not None:
        return refused
    parts = []
    for norm in NORMS_PRINTED:
        rows = [
            _beyond(
                cells,
                f"{relation} {cells.value(_table2(relation, norm, 'cxt')):.2f} vs "
                f"{cells.value(_table2(relation, norm, 'w2v')):.2f}",
                (
                    cells.value(_table2(relation, norm, "cxt")),
                    cells.uncertainty(_table2(relation, norm, "cxt")),
                ),
                (
                    cells.value(_table2(relation, norm, "w2v")),
                    cells.uncertainty(_table2(relation, norm, "w2v")),
                ),
            )
            for relation in TABLE1_RELATIONS
        ]
        if any(math.isnan(row.margin) for row in rows):
            parts.append(Check("not measurable", f"{norm.upper()}: a cell is not measured"))
            continue
        deciding = sorted(rows, key=lambda row: row.margin)[1]
        held = sum(row.margin > 0 for row in rows)
        texts = "; ".join(row.evidence for row in rows)
        parts.append(
            judge(
                deciding.margin,
                deciding.uncertainty,
                f"{norm.upper()} cxt above w2v on {held} of 6 ({texts})",
            )
        )
    return all_hold(
        parts, "the paper: 'almost all relation types' (all but at most one per data set)"
    )


def check_bert_large_beats_base(cells: Cells) -> Check:
    """Section 5, RQ 2 (Table 2): "it is not surprising that BERT-large outperforms BERT-base":
    on each data set BERT-large's mean CAM over the six relations exceeds BERT-base's."""
    refused = cells.across_models("BERT-large with BERT-base")
    if refused is not None:
        return refused
    parts = []
    for norm in NORMS_PRINTED:
        large, base = _table2_mean(cells, norm, "bertl"), _table2_mean(cells, norm, "bert")
        parts.append(
            _beyond(
                cells, f"{norm.upper()} bertl {large[0]:.3f} vs bert {base[0]:.3f}", large, base
            )
        )
    return all_hold(parts, "mean CAM over six relations; the paper: 'BERT-large outperforms'")


def _table3_items(model: str) -> list[str]:
    return [_item(3, model, relation) for relation in TABLE1_RELATIONS]


_TABLE3_ITEMS = tuple(
    id
    for models in TABLE3_MODELS.values()
    for model in models
    for id in (*_table3_items(model), _item(3, model, "params"))
)


def check_cam_grows_with_size(cells: Cells) -> Check:
    """Section 5, "Comparing Contextual Embeddings" (Table 3): "CAM of BERT, roBERTa and ALBERT
    grow with the number of parameters, yet ELECTRA does not show the same trend". A model's
    CAM is its mean over the six relations; a family grows when each model has a higher mean
    than the next smaller one (ALBERT's four sizes step by step, not only its smallest against
    its largest); ELECTRA's larger model must not be above its smaller one.

    Table 3 itself prints ALBERT-xl (58M) and ALBERT-xxl (223M) with the same mean, .357: on
    the paper's own numbers ALBERT does not grow from xl to xxl."""
    refused = cells.across_models("models of four families and sizes")
    if refused is not None:
        return refused
    parts = []
    for family, models in TABLE3_MODELS.items():
        size = {model: cells.value(_item(3, model, "params")) for model in models}
        ordered = sorted(models, key=lambda model: size[model])
        for small, big in itertools.pairwise(ordered):
            means = {model: _mean(cells, _table3_items(model)) for model in (small, big)}
            grows = "grows" if means[big][0] > means[small][0] else "does not grow"
            text = f"{family} {_table3_row(cells, small)} -> {_table3_row(cells, big)}: {grows}"
            if family == "ELECTRA":
                parts.append(_beyond(cells, text, means[small], means[big]))
            else:
                parts.append(_beyond(cells, text, means[big], means[small]))
    return every_part(
        parts,
        "Table 3, mean CAM over the six relations; the paper: 'CAM of BERT ..., roBERTa ... and "
        "ALBERT ... grow with the number of parameters, yet ELECTRA ... does not show the same "
        "trend'",
    )


def _table3_row(cells: Cells, model: str) -> str:
    """``albert-xl (58M) .357 (.39 .26 .37 .45 .43 .24)``: a Table 3 row's mean and cells."""
    values = [cells.value(id) for id in _table3_items(model)]
    mean = _mean(cells, _table3_items(model))[0]
    params = cells.value(_item(3, model, "params"))
    return f"{model} ({params:.0f}M) {mean:.3f} ({_printed(values)})"


def check_roberta_beats_bert(cells: Cells) -> Check:
    """Section 5, "Comparing Contextual Embeddings" (Table 3): "RoBERTa outperform BERT": at
    each size (base, large) RoBERTa's mean CAM over the six relations exceeds BERT's (per
    relation they tie on synonym and atLocation at large)."""
    refused = cells.across_models("RoBERTa with BERT")
    if refused is not None:
        return refused
    parts = []
    for size in ("base", "large"):
        roberta = _mean(cells, _table3_items(f"roberta-{size}"))
        bert = _mean(cells, _table3_items(f"bert-{size}"))
        parts.append(
            _beyond(cells, f"{size}: RoBERTa {roberta[0]:.3f} vs BERT {bert[0]:.3f}", roberta, bert)
        )
    return all_hold(parts, "mean CAM over six relations; the paper: 'RoBERTa outperform BERT'")


_KE19_ITEMS = tuple(
    _item(4, name, column) for name in TABLE4_KE19_SETS for column in ("brt", *TABLE4_KE19)
)


def check_bert_beats_ke19(cells: Cells) -> Check:
    """Section 5, RQ 4 (Table 4): the geometric mean "helps BERT performs better on 2 out of 3
    datasets than PCA" (Ethayarajh 2019): BERT-base's rho above both first-PC columns (KEl1,
    KEl12) on at least two of MEN, SIMLEX and WS353 (margin: the second-largest difference)."""
    refused = cells.across_models("BERT with Ethayarajh (2019)'s first-PC embeddings")
    if refused is not None:
        return refused
    parts = []
    for name in TABLE4_KE19_SETS:
        best = max(TABLE4_KE19, key=lambda column: cells.value(_item(4, name, column)))
        brt, ke = _item(4, name, "brt"), _item(4, name, best)
        parts.append(
            _beyond(
                cells,
                f"{name} brt {cells.value(brt):.2f} vs {best} {cells.value(ke):.2f}",
                (cells.value(brt), cells.uncertainty(brt)),
                (cells.value(ke), cells.uncertainty(ke)),
            )
        )
    if any(math.isnan(part.margin) for part in parts):
        return all_hold([*parts, Check("not measurable", "")], "a cell is not measured")
    ranked = sorted(parts, key=lambda part: part.margin, reverse=True)
    held = sum(part.margin > 0 for part in parts)
    return judge(
        ranked[1].margin,
        ranked[1].uncertainty,
        f"the paper: 'better on 2 out of 3 datasets': {held} of 3 ("
        + "; ".join(part.evidence for part in parts)
        + ")",
    )


_STATIC_VS_CONTEXTUAL_ITEMS = tuple(
    _item(4, name, column)
    for name in TABLE4_SETS
    for column in (*STATIC_COLUMNS, *TABLE4_CONTEXTUAL)
)


def check_similarity_favours_static(cells: Cells) -> Check:
    """Section 5, RQ 4 (Table 4): "the result on other contextual embeddings looks extremely
    arbitrary compared to static embeddings": on every set of Table 4 the static embeddings'
    mean rho exceeds the contextual ones' (how "arbitrary" they look is not a number)."""
    refused = cells.across_models("static with contextual embeddings")
    if refused is not None:
        return refused
    parts = []
    for name in TABLE4_SETS:
        static = _mean(cells, [_item(4, name, column) for column in STATIC_COLUMNS])
        contextual = _mean(cells, [_item(4, name, column) for column in TABLE4_CONTEXTUAL])
        parts.append(
            _beyond(
                cells,
                f"{name} static {static[0]:.3f} vs contextual {contextual[0]:.3f}",
                static,
                contextual,
            )
        )
    return all_hold(
        parts,
        "mean Spearman rho per set (Table 4); the paper: 'looks extremely arbitrary compared to "
        "static embeddings'",
    )


_REL_SIM_ITEMS = tuple(
    _item(4, name, column) for column in TABLE4_CONTEXTUAL for name in ("rel", "sim")
)


def check_relatedness_above_similarity(cells: Cells) -> Check:
    """Section 5, RQ 4 (Table 4): "contextual embeddings being superior on WS353 REL than
    SIM": each contextual column's rho on WS353-REL exceeds its rho on WS353-SIM. On this run's
    column every model column holds this model's value, so one is checked (a static model's
    contextual cells are the geometric mean of its eq. 8 conditionals: see its notes)."""
    columns = TABLE4_CONTEXTUAL[:1] if cells.one_model else TABLE4_CONTEXTUAL
    parts = []
    for column in columns:
        rel, sim = _item(4, "rel", column), _item(4, "sim", column)
        parts.append(
            _beyond(
                cells,
                f"{column} REL {cells.value(rel):.2f} vs SIM {cells.value(sim):.2f}",
                (cells.value(rel), cells.uncertainty(rel)),
                (cells.value(sim), cells.uncertainty(sim)),
            )
        )
    note = (
        " (this run's model in every column: a language model's eq. 6 geometric mean, static "
        "vectors' eq. 8)"
        if cells.one_model
        else ""
    )
    return all_hold(parts, f"the paper: 'superior on WS353 REL than SIM'{note}")


# --- checks over the runs (Figures 1, 2, 11, 12) -------------------------------------------------


def _relation_sides(
    run: Run, table: str, norm: str, relations: Sequence[str], columns: Sequence[str]
) -> tuple[dict[str, tuple[float, ...]], list[str]]:
    """Per relation of ``relations`` with at least :data:`MIN_PAIRS` pairs of ``norm`` in
    ``run``'s ``table``, the values of ``columns``; and why each other relation is left out."""
    rows = run.tables[table]
    rows = rows[rows["norm"] == norm]
    records = {str(row["relation"]): row for row in rows.to_dict("records")}
    found: dict[str, tuple[float, ...]] = {}
    left_out = []
    for relation in relations:
        n = int(records[relation]["n_pairs"]) if relation in records else 0
        if n >= MIN_PAIRS:
            found[relation] = tuple(float(records[relation][c]) for c in columns)
        elif _lacks(run, relation):
            left_out.append(f"{norm} {relation} (not in {_conceptnet_name(run)})")
        else:
            left_out.append(f"{norm} {relation} ({n} pairs, fewer than {MIN_PAIRS})")
    return found, left_out


def _model_alar_half_width(run: Run, norm: str, relation: str) -> float:
    """Half the width of the 95% interval on the model's ALAR (x100) of a relation: the mean's
    standard error over the pairs with both LARs defined (Figure 1's pairs)."""
    pairs = run.tables["pairs"]
    rows = pairs[(pairs["norm"] == norm) & (pairs["relation"] == relation)]
    lar = rows.loc[rows["lar_data"].notna() & rows["lar_model"].notna(), "lar_model"]
    if len(lar) < 2:
        return math.nan
    return ALAR_PRINTED_SCALE * Z95 * float(lar.std(ddof=1)) / math.sqrt(len(lar))


def check_hard_relations(runs: Runs) -> Check:
    """Figure 1 (section 5, "What about LAR Directions?"), against EAT and USF (SWOW is not
    here): "words with relations hasProperty, capableOf, hasA is hard for all text
    embeddings" (the model's ALAR has the other sign than the data's) and "hasContext aligns
    with SWOW data generally well" (the same sign); relations with at least :data:`MIN_PAIRS`
    pairs. Margin: the model's 100 x ALAR on the side the finding expects."""
    absent = not_measurable(runs, EVOCATION)
    if absent is not None:
        return absent
    run = runs[EVOCATION]
    parts: list[Check] = []
    for norm in run.tables["alar"]["norm"].unique():
        found, left_out = _relation_sides(
            run, "alar", str(norm), (*HARD, ALIGNED), ["alar_data", "alar_model", "n_pairs"]
        )
        parts += [Check("not measurable", text) for text in left_out]
        for relation, (data, model, n) in found.items():
            expected = 1.0 if relation == ALIGNED else -1.0
            margin = expected * float(np.sign(data)) * ALAR_PRINTED_SCALE * model
            text = (
                f"{norm} {relation} 100 x ALAR data {100 * data:.2f}, model {100 * model:.2f} "
                f"({n:.0f} pairs; {'same' if expected > 0 else 'other'} sign expected)"
            )
            parts.append(judge(margin, _model_alar_half_width(run, str(norm), relation), text))
    return all_hold(
        parts,
        "the paper: 'hasProperty, capableOf, hasA is hard for all text embeddings', "
        "'hasContext aligns ... generally well'; against EAT and USF, not SWOW",
    )


def _decided_pairs(run: Run, norm: str) -> pd.DataFrame:
    """``norm``'s distinct pairs with both LARs defined and a data direction (theta = 0),
    with ``correct`` (the model's LAR has the data's sign)."""
    pairs = run.tables["pairs"]
    pairs = pairs[(pairs["norm"] == norm) & pairs["lar_data"].notna()]
    pairs = pairs[pairs["lar_model"].notna() & (pairs["lar_data"] != 0)]
    forward = (pairs["a"] <= pairs["b"]).to_numpy()
    low = np.where(forward, pairs["a"], pairs["b"])
    high = np.where(forward, pairs["b"], pairs["a"])
    pairs = pairs.assign(low=low, high=high).drop_duplicates(["low", "high"])
    correct = np.sign(pairs["lar_model"]) == np.sign(pairs["lar_data"])
    return pairs.assign(correct=correct.astype(float))


def _factor_correlation(pairs: pd.DataFrame, column: str) -> CorrelationResult | str:
    """Spearman of ``column`` with getting the direction right, or why there is none."""
    if len(pairs) < MIN_PAIRS or pairs[column].nunique() < 2 or pairs["correct"].nunique() < 2:
        distinct = pairs[column].nunique()
        return f"{len(pairs)} pairs (at least {MIN_PAIRS}), {distinct} distinct values"
    return spearman(pairs[column], pairs["correct"])


def _rho_text(result: CorrelationResult) -> str:
    return (
        f"rho {result.r:.3f} [{result.ci_low:.3f}, {result.ci_high:.3f}] "
        f"(p {result.p_value:.2g}, {result.n} pairs)"
    )


def _contextual(runs: Runs, claim: str) -> Check | None:
    """'not measurable' unless the experiment ran on a language model (``claim``: what the
    finding is about)."""
    absent = not_measurable(runs, EVOCATION)
    if absent is not None:
        return absent
    if "pair_contexts" not in runs[EVOCATION].tables["pairs"].columns:
        return Check("not measurable", f"a claim about {claim}; this run's model is static")
    return None


def _norms(run: Run) -> list[str]:
    return [str(norm) for norm in run.tables["pairs"]["norm"].unique()]


def check_more_contexts(runs: Runs) -> Check:
    """Figure 2 (upper; section 5, RQ 3 and Appendix H), against EAT and USF: "a mild trend
    where pairs with more contexts have higher direction accuracy, which discontinues beyond
    5000 contexts".

    - The trend: Spearman's rho of a pair's number of contexts with a right direction, over
      the pairs up to 5000 contexts. A trend, even a mild one, is a positive rho that the run
      tells from none: margin rho, uncertainty the distance from rho to its 95% Fisher-z
      interval's lower end (inconclusive when the interval holds 0, p >= 0.05). "Mild" bounds
      how steep the paper's binned curve looks, not the sign: a larger rho is not against it
      (the evidence says when |rho| >= :data:`WEAK`).
    - The discontinuation: the trend does not go on, so the direction accuracy of the pairs
      beyond 5000 contexts is not above where the trend ends, the accuracy of the top bin up
      to 5000 (the :data:`CONTEXT_BIN` pairs with the most contexts up to 5000, Figure 2's
      bin size). Margin the top bin's accuracy minus the accuracy beyond, uncertainty the 95%
      Wald half-width of a difference of proportions: an accuracy that falls beyond 5000 (the
      paper's "towards random") holds, one that keeps rising does not, and one that stays on
      the plateau it rose to ("does not improve further") has a margin near 0: inconclusive
      within the run's uncertainty, not a failure. A run whose contexts per pair are capped
      at 5000 or fewer has no pair beyond 5000: this part is not measurable.
    """
    refused = _contextual(runs, "a language model's contexts")
    if refused is not None:
        return refused
    run = runs[EVOCATION]
    cap = run.metadata.get("config", {}).get("max_contexts")
    parts: list[Check] = []
    for norm in _norms(run):
        pairs = _decided_pairs(run, norm)
        below = pairs[pairs["pair_contexts"] <= MORE_CONTEXTS]
        result = _factor_correlation(below, "pair_contexts")
        where = f"{norm} contexts (up to {MORE_CONTEXTS}) vs right direction"
        if isinstance(result, str):
            parts.append(Check("not measurable", f"{where}: {result}"))
        else:
            strong = f" (|rho| >= {WEAK}: steeper than 'mild')" if abs(result.r) >= WEAK else ""
            text = f"{where}: {_rho_text(result)}{strong}"
            parts.append(judge(result.r, _toward_zero(result), text))
        parts.append(_discontinues(norm, pairs, cap))
    note = f"; contexts per pair capped at {cap}" if cap else ""
    return all_hold(
        parts,
        "the paper: 'a mild trend where pairs with more contexts have higher direction "
        f"accuracy, which discontinues beyond 5000 contexts' (against EAT and USF, not SWOW{note})",
    )


def _discontinues(norm: str, pairs: pd.DataFrame, cap: int | None) -> Check:
    """The second part of :func:`check_more_contexts` on ``norm``'s decided pairs (``cap``: the
    run's contexts per pair, 0 or None for all)."""
    where = f"{norm} beyond {MORE_CONTEXTS} contexts"
    if cap and cap <= MORE_CONTEXTS:
        return Check(
            "not measurable", f"{where}: contexts per pair capped at {cap}, none can be beyond"
        )
    below = pairs[pairs["pair_contexts"] <= MORE_CONTEXTS]
    beyond = pairs[pairs["pair_contexts"] > MORE_CONTEXTS]
    if beyond.empty or below.empty:
        most = int(pairs["pair_contexts"].max()) if len(pairs) else 0
        return Check("not measurable", f"{where}: no pair (most {most}) or none up to it")
    top = below.nlargest(CONTEXT_BIN, "pair_contexts")
    after, end = float(beyond["correct"].mean()), float(top["correct"].mean())
    spread = combined_uncertainty(
        proportion_half_width(after, len(beyond)), proportion_half_width(end, len(top))
    )
    text = (
        f"{where}: accuracy {after:.3f} ({len(beyond)} pairs) vs the top bin up to it "
        f"{end:.3f} ({len(top)} pairs, {int(top['pair_contexts'].min())}-"
        f"{int(top['pair_contexts'].max())} contexts), not above it"
    )
    return judge(end - after, spread, text)


def check_distance(runs: Runs) -> Check:
    """Figure 2 (lower; section 5, RQ 3), against EAT and USF: "word distance correlates
    weakly to direction accuracy": |Spearman rho| of the mean distance of the two words in
    context and a right direction below :data:`WEAK` (the paper gives no number; 0.3 is
    Cohen's medium effect), margin ``WEAK - |rho|``, uncertainty the half-width of rho's 95%
    Fisher-z interval (distance in words, the paper's in characters)."""
    refused = _contextual(runs, "a language model's contexts")
    if refused is not None:
        return refused
    run = runs[EVOCATION]
    parts: list[Check] = []
    for norm in _norms(run):
        result = _factor_correlation(_decided_pairs(run, norm), "mean_distance")
        where = f"{norm} word distance vs right direction"
        if isinstance(result, str):
            parts.append(Check("not measurable", f"{where}: {result}"))
            continue
        spread = interval_half_width(result.ci_low, result.ci_high)
        parts.append(judge(WEAK - abs(result.r), spread, f"{where}: {_rho_text(result)}"))
    return all_hold(
        parts,
        f"the paper: 'correlates weakly' (|rho| < {WEAK}; EAT and USF, not SWOW)",
    )


def check_antonym_hardest(runs: Runs) -> Check:
    """Appendix G (Figures 11, 12): "the relation of 'antonym' is generally harder than
    others, under all settings": at every threshold and on each data set, antonym has the
    lowest direction accuracy of the relations with at least :data:`MIN_PAIRS` decided pairs
    (not the ``all`` rows). Margin: the lowest other relation's accuracy minus antonym's,
    uncertainty the 95% Wilson half-widths of the two proportions, in quadrature."""
    absent = not_measurable(runs, EVOCATION)
    if absent is not None:
        return absent
    if _lacks(runs[EVOCATION], "antonym"):
        return Check("not measurable", _lacking(runs[EVOCATION], "antonym"))
    accuracy = runs[EVOCATION].tables["direction_accuracy"]
    accuracy = accuracy[(accuracy["relation"] != ALL_PAIRS) & (accuracy["n"] >= MIN_PAIRS)]
    parts: list[Check] = []
    for (norm, theta), rows in accuracy.groupby(["norm", "threshold"], sort=False):
        shares = dict(zip(rows["relation"], rows["accuracy"], strict=True))
        counts = dict(zip(rows["relation"], rows["n"], strict=True))
        where = f"{norm} theta {theta:g}"
        if "antonym" not in shares:
            parts.append(Check("not measurable", f"{where}: fewer than {MIN_PAIRS} antonym pairs"))
            continue
        others = {r: float(share) for r, share in shares.items() if r != "antonym"}
        if not others:
            parts.append(Check("not measurable", f"{where}: no other relation"))
            continue
        lowest, antonym = _lowest(others), float(shares["antonym"])
        spread = combined_uncertainty(
            proportion_half_width(antonym, int(counts["antonym"])),
            proportion_half_width(others[lowest], int(counts[lowest])),
        )
        text = f"{where}: antonym {antonym:.3f}, lowest other {lowest} {others[lowest]:.3f}"
        parts.append(judge(others[lowest] - antonym, spread, text))
    if accuracy.empty:
        parts.append(Check("not measurable", f"no relation with {MIN_PAIRS} decided pairs"))
    return all_hold(
        parts, "the paper: 'antonym ... generally harder than others, under all settings'"
    )
