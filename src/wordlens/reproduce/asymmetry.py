"""Reproducing Zhang et al. (2021), *Circles are like Ellipses, or Ellipses are like Circles?*
(the ``asymmetry`` method) on one model.

Experiments
    ``evocation``: the asymmetry experiment with EAT and USF (the paper's "FA") on the model:
    the data side (Tables 1 and 5: per ConceptNet relation each data set's count and ALAR, and
    their CAM), the model's CAM per data set and relation (Tables 2 and 6), its ALAR beside the
    data's (Figure 1), direction accuracy (Appendix G), the Figure 2 factors (language models)
    and word similarity on the seven sets of Tables 4 and 8. ``swow``: the same with SWOW added,
    which needs the user's SWOW-EN file (``--swow-file``; the data may not be redistributed, so
    it is not available offline): it fails cleanly and every SWOW item says so.

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
    A claim that compares models (BERT vs static embeddings, sizes, RoBERTa vs BERT, ...) is not
    measurable on one model's run; the evidence gives this model's numbers to set beside the
    paper's. A claim with several parts is "does not hold" as soon as one part measurable here
    fails, "holds" only when every part is measured and holds, else "not measurable". Claims
    about the model against SWOW (Figures 1 and 2) are checked against EAT and USF, each data
    set on its own, and the evidence says so.

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

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from wordlens.methods.asymmetry.experiment import ALL_PAIRS
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
from wordlens.resources.conceptnet import CONCEPTNET_5, CONCEPTNET_100K
from wordlens.results import Run
from wordlens.stats.correlation import spearman

EVOCATION = "evocation"
"""The experiment on EAT and USF (offline)."""
SWOW_EXPERIMENT = "swow"
"""The experiment with SWOW added (needs the user's file; fails offline)."""
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
_ONE_MODEL = "a reproduction runs one model: run it on each model and compare"
_CONCEPTNET5 = (
    "give ConceptNet 5.7 on a data root (`wordlens data show conceptnet5`): the paper-scale "
    "experiment then annotates with it"
)


class AsymmetryReproduction(PaperReproduction):
    """Zhang et al. (2021) on one model (see the module notes)."""

    paper = "asymmetry"

    def experiments(self, scale: Scale) -> list[Experiment]:
        """``evocation`` (EAT and USF) and ``swow`` (fails without the user's file)."""
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
            Experiment(SWOW_EXPERIMENT, "asymmetry", {**options, "norms": ["eat", "usf", "swow"]}),
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

    def checks(self) -> Mapping[str, CheckFunction]:
        """Every finding of the paper (see the module notes)."""
        across = {
            "bert-beats-static-on-cam": "BERT with the static embeddings",
            "glove-best-static": "GloVe with the other static embeddings",
            "cxt-beats-w2v": "word2vec's context vectors with its word vectors",
            "bert-large-beats-base": "BERT-large with BERT-base",
            "cam-grows-with-size-except-electra": "models of four families and two sizes",
            "roberta-beats-bert": "RoBERTa with BERT",
        }
        checks: dict[str, CheckFunction] = {
            name: _across_models(what) for name, what in across.items()
        }
        return checks | {
            "swow-is-the-ground-truth": _needs_swow,
            "swow-fa-correlate-most": _needs_swow,
            "polarized-relations": check_polarized_relations,
            "hard-relations": check_hard_relations,
            "more-contexts-help-up-to-5000": check_more_contexts,
            "distance-matters-little": check_distance,
            "bert-beats-ke19-on-two-of-three": _no_ke19,
            "similarity-favours-static": _similarity_across_models,
            "contextual-rel-above-sim": check_relatedness_above_similarity,
            "antonym-hardest-direction": check_antonym_hardest,
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
    return Measured(float(row["cam_eat_usf"]), f"{n} common EAT-USF pairs (table1)")


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
        "this model's vocabularies (eq. 9)",
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
        + (" (x100 as printed)" if scale != 1.0 else ""),
    )


# --- checks --------------------------------------------------------------------------------------


def _needs_swow(runs: Runs) -> Check:
    return Check("not measurable", f"compares SWOW with EAT and FA: {_SWOW}")


def _overall_cam(runs: Runs) -> str:
    """This run's CAM over every distinct pair of each data set."""
    cam = runs[EVOCATION].tables["cam"]
    rows = cam[cam["relation"] == ALL_PAIRS]
    return ", ".join(f"{r.norm} {r.cam:.2f} ({r.n} pairs)" for r in rows.itertuples())


def _across_models(what: str) -> CheckFunction:
    """A claim comparing ``what``: not measurable on one model's run."""

    def check(runs: Runs) -> Check:
        absent = not_measurable(runs, EVOCATION)
        if absent is not None:
            return absent
        return Check(
            "not measurable",
            f"compares {what}; {_ONE_MODEL}. This model's CAM over all pairs: "
            + _overall_cam(runs),
        )

    return check


def _similarity_text(runs: Runs) -> str:
    table = runs[EVOCATION].tables.get("similarity")
    if table is None:
        return "no similarity"
    return ", ".join(f"{r.set} {r.measure} {r.spearman:.2f}" for r in table.itertuples())


def _no_ke19(runs: Runs) -> Check:
    absent = not_measurable(runs, EVOCATION)
    if absent is not None:
        return absent
    return Check(
        "not measurable",
        "Ethayarajh (2019)'s first-principal-component embeddings are not in wordlens; this "
        f"model's similarity: {_similarity_text(runs)}",
    )


def _similarity_across_models(runs: Runs) -> Check:
    absent = not_measurable(runs, EVOCATION)
    if absent is not None:
        return absent
    return Check(
        "not measurable",
        f"compares static with contextual embeddings; {_ONE_MODEL}. This model's similarity: "
        + _similarity_text(runs),
    )


def _parts(failed: Sequence[str], passed: Sequence[str], unmeasured: Sequence[str]) -> Check:
    """A claim of several parts: does not hold if one fails, holds if all are measured and
    hold, else not measurable."""
    evidence = "; ".join(
        text
        for text in (
            "fails: " + ", ".join(failed) if failed else "",
            "holds: " + ", ".join(passed) if passed else "",
            "not measured: " + ", ".join(unmeasured) if unmeasured else "",
        )
        if text
    )
    if failed:
        return Check("does not hold", evidence)
    return Check("not measurable" if unmeasured else "holds", evidence)


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


def check_polarized_relations(runs: Runs) -> Check:
    """Tables 1 and 5: on each data set, every polarized relation's |ALAR| exceeds every
    near-neutral relation's (isA, partOf, atLocation, hasContext vs antonym, distinctFrom;
    relations with at least :data:`MIN_PAIRS` pairs)."""
    absent = not_measurable(runs, EVOCATION)
    if absent is not None:
        return absent
    run = runs[EVOCATION]
    failed: list[str] = []
    passed: list[str] = []
    unmeasured: list[str] = []
    values = []
    for norm in run.tables["data_alar"]["norm"].unique():
        found, left_out = _relation_sides(
            run, "data_alar", str(norm), (*POLARIZED, *NEUTRAL), ["alar"]
        )
        unmeasured += left_out
        alar = {relation: abs(100 * value[0]) for relation, value in found.items()}
        values += [f"{norm} {relation} {100 * value[0]:.2f}" for relation, value in found.items()]
        for high in (r for r in POLARIZED if r in alar):
            for low in (r for r in NEUTRAL if r in alar):
                text = f"{norm} |{high}| {alar[high]:.2f} > |{low}| {alar[low]:.2f}"
                (passed if alar[high] > alar[low] else failed).append(text)
    check = _parts(failed, passed, unmeasured)
    return Check(check.verdict, f"{check.evidence} (100 x ALAR: {'; '.join(values) or 'none'})")


def check_hard_relations(runs: Runs) -> Check:
    """Figure 1, against EAT and USF (SWOW is not here): the model's ALAR points the other way
    than the data's on hasProperty, capableOf and hasA, and the same way on hasContext
    (relations with at least :data:`MIN_PAIRS` pairs)."""
    absent = not_measurable(runs, EVOCATION)
    if absent is not None:
        return absent
    run = runs[EVOCATION]
    failed: list[str] = []
    passed: list[str] = []
    unmeasured: list[str] = []
    for norm in run.tables["alar"]["norm"].unique():
        found, left_out = _relation_sides(
            run, "alar", str(norm), (*HARD, ALIGNED), ["alar_data", "alar_model", "n_pairs"]
        )
        unmeasured += left_out
        for relation, (data, model, n) in found.items():
            agree = bool(np.sign(data) == np.sign(model))
            text = f"{norm} {relation} ALAR data {100 * data:.2f}, model {100 * model:.2f}"
            (passed if agree == (relation == ALIGNED) else failed).append(f"{text} ({n:.0f})")
    check = _parts(failed, passed, unmeasured)
    note = "hard: the model's ALAR has the other sign; against EAT and USF, not SWOW"
    return Check(check.verdict, f"{check.evidence} ({note})")


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


def _factor_correlation(pairs: pd.DataFrame, column: str) -> tuple[float, str]:
    """Spearman of ``column`` with getting the direction right, and its text."""
    if len(pairs) < MIN_PAIRS or pairs[column].nunique() < 2 or pairs["correct"].nunique() < 2:
        distinct = pairs[column].nunique()
        return math.nan, f"{len(pairs)} pairs (at least {MIN_PAIRS}), {distinct} distinct values"
    result = spearman(pairs[column], pairs["correct"])
    return float(result.r), f"rho {result.r:.2f} (p {result.p_value:.2g}, {len(pairs)} pairs)"


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
    """Figure 2 (upper), against EAT and USF: direction accuracy rises with the number of a
    pair's contexts (Spearman of contexts and a right direction > 0, pairs up to 5000
    contexts), and pairs beyond 5000 contexts do no better than those up to 5000."""
    refused = _contextual(runs, "a language model's contexts")
    if refused is not None:
        return refused
    run = runs[EVOCATION]
    failed: list[str] = []
    passed: list[str] = []
    unmeasured: list[str] = []
    for norm in _norms(run):
        pairs = _decided_pairs(run, norm)
        below = pairs[pairs["pair_contexts"] <= MORE_CONTEXTS]
        r, text = _factor_correlation(below, "pair_contexts")
        text = f"{norm} contexts vs right direction: {text}"
        if math.isnan(r):
            unmeasured.append(text)
        else:
            (passed if r > 0 else failed).append(text)
        beyond = pairs[pairs["pair_contexts"] > MORE_CONTEXTS]
        if beyond.empty:
            unmeasured.append(
                f"{norm}: no pair beyond {MORE_CONTEXTS} contexts "
                f"(most {int(pairs['pair_contexts'].max()) if len(pairs) else 0})"
            )
            continue
        after, before = float(beyond["correct"].mean()), float(below["correct"].mean())
        text = f"{norm} accuracy beyond {MORE_CONTEXTS} contexts {after:.2f} vs {before:.2f}"
        (passed if after <= before else failed).append(text)
    check = _parts(failed, passed, unmeasured)
    cap = run.metadata.get("config", {}).get("max_contexts")
    note = f"; contexts per pair capped at {cap}" if cap else ""
    return Check(check.verdict, f"{check.evidence} (against EAT and USF, not SWOW{note})")


def check_distance(runs: Runs) -> Check:
    """Figure 2 (lower), against EAT and USF: the mean distance of the two words in context
    correlates weakly with a right direction (|Spearman| < :data:`WEAK`; distance in words,
    the paper's in characters)."""
    refused = _contextual(runs, "a language model's contexts")
    if refused is not None:
        return refused
    run = runs[EVOCATION]
    failed: list[str] = []
    passed: list[str] = []
    unmeasured: list[str] = []
    for norm in _norms(run):
        r, text = _factor_correlation(_decided_pairs(run, norm), "mean_distance")
        text = f"{norm} word distance vs right direction: {text}"
        if math.isnan(r):
            unmeasured.append(text)
        else:
            (passed if abs(r) < WEAK else failed).append(text)
    check = _parts(failed, passed, unmeasured)
    return Check(check.verdict, f"{check.evidence} (weak: |rho| < {WEAK}; EAT and USF, not SWOW)")


def _geometric_mean(run: Run, name: str) -> tuple[float, int]:
    table = run.tables.get("similarity")
    if table is None:
        return math.nan, 0
    rows = table[(table["set"] == name) & (table["measure"] == "geometric_mean")]
    if rows.empty:
        return math.nan, 0
    return float(rows.iloc[0]["spearman"]), int(rows.iloc[0]["n_used"])


def check_relatedness_above_similarity(runs: Runs) -> Check:
    """Table 4: a contextual model's geometric-mean similarity correlates more with WS353's
    relatedness subset than with its similarity subset."""
    refused = _contextual(runs, "contextual embeddings")
    if refused is not None:
        return refused
    run = runs[EVOCATION]
    (rel, n_rel), (sim, n_sim) = (
        _geometric_mean(run, "ws353-rel"),
        _geometric_mean(run, "ws353-sim"),
    )
    evidence = f"ws353-rel rho {rel:.2f} ({n_rel} pairs) vs ws353-sim {sim:.2f} ({n_sim} pairs)"
    if math.isnan(rel) or math.isnan(sim):
        return Check("not measurable", evidence)
    return Check("holds" if rel > sim else "does not hold", evidence)


def check_antonym_hardest(runs: Runs) -> Check:
    """Appendix G: at every threshold and on each data set, antonym has the lowest direction
    accuracy of the relations with at least :data:`MIN_PAIRS` decided pairs (not the ``all``
    rows)."""
    absent = not_measurable(runs, EVOCATION)
    if absent is not None:
        return absent
    if _lacks(runs[EVOCATION], "antonym"):
        return Check("not measurable", _lacking(runs[EVOCATION], "antonym"))
    accuracy = runs[EVOCATION].tables["direction_accuracy"]
    accuracy = accuracy[(accuracy["relation"] != ALL_PAIRS) & (accuracy["n"] >= MIN_PAIRS)]
    failed: list[str] = []
    passed: list[str] = []
    unmeasured: list[str] = []
    for (norm, theta), rows in accuracy.groupby(["norm", "threshold"], sort=False):
        shares = dict(zip(rows["relation"], rows["accuracy"], strict=True))
        where = f"{norm} theta {theta:g}"
        if "antonym" not in shares:
            unmeasured.append(f"{where}: fewer than {MIN_PAIRS} antonym pairs")
            continue
        lowest = min(shares, key=lambda relation: (shares[relation], relation != "antonym"))
        text = f"{where}: antonym {shares['antonym']:.2f}, lowest {lowest} {shares[lowest]:.2f}"
        (passed if lowest == "antonym" else failed).append(text)
    if accuracy.empty:
        unmeasured.append(f"no relation with {MIN_PAIRS} decided pairs")
    return _parts(failed, passed, unmeasured)
