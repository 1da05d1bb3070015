"""Likelihood-based social bias of a language model on sentence-pair benchmarks (section 5 and
Table 3 of Zhou, Kaneko & Bollegala 2022).

A scorer (:func:`wordlens.models.scoring.load_scorer`) gives every sentence a log-likelihood
score: AUL (all tokens unmasked, eq. 5), AULA, PLL (one token masked at a time) for masked LMs,
the sum or mean token log-probability for causal LMs. For each benchmark (SSSB, CrowS-Pairs,
StereoSet intrasentence: :mod:`wordlens.resources.bias_benchmarks`) and method, the bias score of
eq. 6 (:func:`wordlens.stats.pairs.pair_bias_score`) is the share of pairs whose stereotypical
sentence scores higher, times 100, minus 50, with a percentile bootstrap interval over pairs and
the ties counted apart. It is reported over the whole benchmark, per bias category, and for SSSB
per sense type (race, colour, nationality, language, noun, verb), the rows of the paper's Table 3.

Every distinct sentence is scored once per method, however many pairs it is in (an SSSB sentence
is in up to 25 pairs).

Figure 3 of the paper splits SSSB's gender category by occupation: the bias score of eq. 6 of
each occupation's noun-sense pairs and of its verb-sense pairs (:func:`occupation_bias`, table
``sssb_occupations``).

References
----------
.. [1] Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased – Evaluating
   Social Biases in Static and Contextualised Sense Embeddings. *ACL 2022*.
.. [2] Kaneko, M. & Bollegala, D. (2022). Unmasking the Mask – Evaluating Social Biases in Masked
   Language Models. *AAAI 2022*.
.. [3] Salazar, J., Liang, D., Nguyen, T. Q. & Kirchhoff, K. (2020). Masked Language Model Scoring.
   *ACL 2020*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.likelihood_bias.config import NAME, LikelihoodBiasConfig
from wordlens.models.scoring import LMScorer, ScoringMethod, pass_groups
from wordlens.resources.bias_benchmarks import COLUMNS, RESOURCES, load_bias_pairs
from wordlens.resources.registry import get_resource
from wordlens.results import Run
from wordlens.stages import Timings, keep_tables
from wordlens.stats.pairs import pair_bias_table

METHOD = "Zhou, Kaneko & Bollegala (2022), likelihood bias score (eq. 6) on sentence pairs"
BENCHMARK_TITLES = {"crows": "CrowS-Pairs", "stereoset": "StereoSet", "sssb": "SSSB"}
OCCUPATION_SENSES = ("noun", "verb")
"""SSSB sense types of the occupations (gender category), Figure 3's two bars."""
LEVELS = ("all", "category", "sense_type")
"""Grouping levels of the ``bias_scores`` table: the whole benchmark, per bias category, per
SSSB sense type."""

_REQUIRED = ("item_id", "category", "sentence_stereo", "sentence_anti")
_PAIR_COLUMNS = [column for column in COLUMNS if column not in ("direction", "sentence_unrelated")]


def run_likelihood_bias(
    scorer: LMScorer,
    config: LikelihoodBiasConfig | None = None,
    *,
    pairs: Mapping[str, pd.DataFrame] | None = None,
    confidence: float = 0.95,
    progress: bool = False,
    limit: int | None = None,
) -> Run:
    """Score the pairs of each benchmark with each method and compute the bias scores (eq. 6).

    Parameters
    ----------
    scorer
        A masked or causal LM scorer.
    config
        [the defaults] Benchmarks, scoring methods (None: every method the scorer supports),
        pairs sampled per benchmark, bootstrap resamples and seed
        (:class:`~wordlens.methods.likelihood_bias.config.LikelihoodBiasConfig`).
    pairs
        Name → pairs table instead of ``config.benchmarks``, with at least the columns
        ``item_id``, ``category``, ``sentence_stereo`` and ``sentence_anti`` (e.g. constructed
        pairs; other :data:`~wordlens.resources.bias_benchmarks.COLUMNS` are optional).
    confidence
        Confidence level of the intervals.
    progress
        Show the scorer's progress bars.
    limit
        Quick mode (``--limit``): only the first ``limit`` pairs (items) of each benchmark,
        before ``config.sample``; None: all.

    Returns
    -------
    Run
        ``pair_scores``: benchmark, item_id, category, sense_type, sense_key, target,
        sentence_stereo, sentence_anti, method, score_stereo, score_anti, n_tokens_stereo,
        n_tokens_anti, stereo_higher, tie.
        ``bias_scores``: benchmark, method, level (:data:`LEVELS`), group, then the fields of
        :class:`~wordlens.stats.pairs.PairBiasScore` (bias_score, ci_low, ci_high, n,
        n_stereo_higher, n_anti_higher, n_ties, n_missing, ...). ``table3`` (the paper's Table 3
        layout): see :func:`table3`. ``sssb_occupations`` (Figure 3): see
        :func:`occupation_bias` (only when SSSB noun or verb pairs were scored).
        Metadata: the model, configuration, pair counts,
        sentence count, timings and sentences/s per method.

    Raises
    ------
    WordlensError
        An unknown benchmark or method, a method the model does not support, a pairs table
        without the required columns, or a scorer returning the wrong number of scores.
    EmptyInputError
        No benchmark, no method, or a benchmark without pairs.
    """
    config = config or LikelihoodBiasConfig()
    sample, n_resamples, seed = config.sample, config.bootstrap, config.seed
    chosen_methods = _check_methods(scorer, config.methods)
    timings = Timings()
    with timings.stage("load"):
        loaded = _load_benchmarks(config.benchmarks if pairs is None else pairs)
    if limit is not None:  # quick mode: the first pairs (items) of each benchmark
        loaded = {name: frame.head(limit) for name, frame in loaded.items()}
    kept = pd.concat(
        [_subsample(frame, sample, seed) for frame in loaded.values()], ignore_index=True
    )
    sentences = list(dict.fromkeys([*kept["sentence_stereo"], *kept["sentence_anti"]]))
    position = {sentence: index for index, sentence in enumerate(sentences)}
    stereo_rows = kept["sentence_stereo"].map(position).to_numpy(dtype=np.int64)
    anti_rows = kept["sentence_anti"].map(position).to_numpy(dtype=np.int64)
    scored: dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]] = {}
    sentences_per_second: dict[str, float] = {}
    for group in pass_groups(chosen_methods):
        label = "+".join(group)
        with timings.stage(f"score_{label}"):
            scored.update(_score(scorer, sentences, group, progress))
        sentences_per_second[label] = len(sentences) / timings.seconds[f"score_{label}"]
    pair_scores = pd.concat(
        [
            _pair_scores(kept, method, *scored[method], stereo_rows, anti_rows)
            for method in chosen_methods
        ],
        ignore_index=True,
    )
    tables = keep_tables({"pair_scores": pair_scores})
    with timings.stage("bias_scores"):
        bias_scores = _bias_scores(pair_scores, n_resamples, confidence, seed)
    metadata = {
        "method": METHOD,
        "model": scorer.info.as_dict(),
        "config": {
            "benchmarks": list(loaded),
            "methods": list(chosen_methods),
            "sample": sample,
            "limit": limit,
            "n_resamples": n_resamples,
            "confidence": confidence,
            "seed": seed,
        },
        "benchmarks": _benchmark_summary(loaded, kept, given=pairs is not None),
        "n_sentences": len(sentences),
        "timings_s": dict(timings.seconds),
        "sentences_per_second": sentences_per_second,
        "tie_rule": "ties (exactly equal scores) stay in N and do not count as stereo > anti",
        "interval": f"percentile bootstrap over pairs, {n_resamples} resamples, seed {seed}",
    }
    tables |= {"bias_scores": bias_scores, "table3": table3(bias_scores, chosen_methods)}
    occupations = occupation_bias(pair_scores, n_resamples, confidence, seed)
    if not occupations.empty:
        tables["sssb_occupations"] = occupations
    return Run(NAME, tables, metadata)


def occupation_bias(
    pair_scores: pd.DataFrame, n_resamples: int, confidence: float, seed: int
) -> pd.DataFrame:
    """Figure 3's bars: eq. 6 over the SSSB pairs of each occupation's noun and verb sense.

    Parameters
    ----------
    pair_scores
        The ``pair_scores`` table of :func:`run_likelihood_bias`.
    n_resamples, confidence, seed
        Of the bootstrap interval over each group's pairs.

    Returns
    -------
    pandas.DataFrame
        ``method``, ``occupation`` (the sense key's lemma), ``sense_type`` (``noun``, ``verb``),
        then the fields of :class:`~wordlens.stats.pairs.PairBiasScore`; one row per method,
        occupation and sense type, occupations in first-appearance order. Empty when no SSSB
        noun or verb pair was scored.
    """
    gendered = pair_scores[
        (pair_scores["benchmark"] == "sssb") & pair_scores["sense_type"].isin(OCCUPATION_SENSES)
    ]
    if gendered.empty:
        return pd.DataFrame(columns=["method", "occupation", "sense_type"])
    table = pair_bias_table(
        gendered.rename(columns={"target": "occupation"}),
        ["method", "occupation", "sense_type"],
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
    return table.astype({"occupation": str, "sense_type": str})


def table3(bias_scores: pd.DataFrame, methods: Sequence[str]) -> pd.DataFrame:
    """The paper's Table 3 layout: CrowS-Pairs and StereoSet overall, SSSB per sense type.

    Parameters
    ----------
    bias_scores
        The ``bias_scores`` table of :func:`run_likelihood_bias`.
    methods
        Methods to show, one column each (in this order).

    Returns
    -------
    pandas.DataFrame
        Columns ``benchmark`` (display name), ``group`` (``all`` or the SSSB sense), ``n`` (pairs
        in the group), then per method its bias score (column named after the method) and
        interval (``<method>_ci_low``, ``<method>_ci_high``). Benchmarks other than the three
        (constructed pairs) are listed overall, first.
    """
    sssb_senses = (bias_scores["benchmark"] == "sssb") & (bias_scores["level"] == "sense_type")
    others = (bias_scores["benchmark"] != "sssb") & (bias_scores["level"] == "all")
    chosen = bias_scores[sssb_senses | others]
    rank = {name: index for index, name in enumerate(("crows", "stereoset", "sssb"))}
    chosen = chosen.sort_values(
        "benchmark", key=lambda names: names.map(rank).fillna(-1), kind="stable"
    )
    suffixes = ("", "_ci_low", "_ci_high")
    columns = [f"{method}{suffix}" for method in methods for suffix in suffixes]
    rows = []
    for (benchmark, group), frame in chosen.groupby(["benchmark", "group"], sort=False):
        cells = frame[["method", "bias_score", "ci_low", "ci_high"]].itertuples(index=False)
        values = {
            f"{method}{suffix}": float(value)
            for method, *interval in cells
            if method in methods
            for suffix, value in zip(suffixes, interval, strict=True)
        }
        rows.append(
            {
                "benchmark": BENCHMARK_TITLES.get(str(benchmark), str(benchmark)),
                "group": group,
                "n": int((frame["n"] + frame["n_missing"]).max()),
                **values,
            }
        )
    return pd.DataFrame(rows, columns=["benchmark", "group", "n", *columns])


def _check_methods(scorer: LMScorer, methods: Sequence[str] | None) -> tuple[ScoringMethod, ...]:
    """The chosen methods (None: every method the scorer supports), each checked supported."""
    chosen = tuple(dict.fromkeys(scorer.methods if methods is None else methods))
    if not chosen:
        raise EmptyInputError("no scoring method chosen")
    unsupported = [method for method in chosen if method not in scorer.methods]
    if unsupported:
        raise WordlensError(
            f"{scorer.info.name} ({scorer.info.kind}) cannot score with "
            f"{', '.join(unsupported)}; it supports {', '.join(scorer.methods)}"
        )
    return cast(tuple[ScoringMethod, ...], chosen)


def _load_benchmarks(
    benchmarks: Sequence[str] | Mapping[str, pd.DataFrame],
) -> dict[str, pd.DataFrame]:
    """Benchmark name → pairs table with every column of ``COLUMNS``."""
    if isinstance(benchmarks, str):
        raise WordlensError("benchmarks must be a list of names, not one string")
    loaded = (
        {name: _given_pairs(name, frame) for name, frame in benchmarks.items()}
        if isinstance(benchmarks, Mapping)
        else {name: load_bias_pairs(name) for name in dict.fromkeys(benchmarks)}
    )
    if not loaded:
        raise EmptyInputError("no benchmark chosen")
    empty = [name for name, frame in loaded.items() if frame.empty]
    if empty:
        raise EmptyInputError(f"benchmark(s) without pairs: {', '.join(empty)}")
    return loaded


def _given_pairs(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    missing = [column for column in _REQUIRED if column not in frame.columns]
    if missing:
        raise WordlensError(f"pairs table {name!r} lacks column(s) {', '.join(missing)}")
    if frame[["sentence_stereo", "sentence_anti"]].isna().any(axis=None):
        raise WordlensError(f"pairs table {name!r} has a missing sentence")
    tidy = frame.reindex(columns=list(COLUMNS)).assign(benchmark=name)
    return tidy.astype("string").reset_index(drop=True)


def _subsample(frame: pd.DataFrame, sample: int | None, seed: int) -> pd.DataFrame:
    if sample is None or sample >= len(frame):
        return frame
    return frame.sample(n=sample, random_state=seed).sort_index()


def _score(
    scorer: LMScorer, sentences: list[str], methods: Sequence[ScoringMethod], progress: bool
) -> dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]]:
    """Scores and scored-token counts per method (methods sharing passes share them)."""
    scored: dict[str, tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]] = {}
    for method, result in scorer.score_methods(sentences, methods, progress=progress).items():
        if result.scores.shape != (len(sentences),) or result.n_tokens.shape != (len(sentences),):
            raise WordlensError(
                f"scorer returned {result.scores.shape} scores for {len(sentences)} sentences"
            )
        scored[method] = (result.scores.astype(np.float64), result.n_tokens.astype(np.int64))
    return scored


def _pair_scores(
    pairs: pd.DataFrame,
    method: str,
    scores: npt.NDArray[np.float64],
    n_tokens: npt.NDArray[np.int64],
    stereo_rows: npt.NDArray[np.int64],
    anti_rows: npt.NDArray[np.int64],
) -> pd.DataFrame:
    stereo, anti = scores[stereo_rows], scores[anti_rows]
    return pairs[_PAIR_COLUMNS].assign(
        method=method,
        score_stereo=stereo,
        score_anti=anti,
        n_tokens_stereo=n_tokens[stereo_rows],
        n_tokens_anti=n_tokens[anti_rows],
        stereo_higher=stereo > anti,
        tie=stereo == anti,
    )


def _bias_scores(
    pair_scores: pd.DataFrame, n_resamples: int, confidence: float, seed: int
) -> pd.DataFrame:
    """Eq. 6 per benchmark and method: overall, per category, per sense type (where present)."""
    frames = []
    for _, scored in pair_scores.groupby("benchmark", sort=False):
        for level in LEVELS:
            grouped = scored if level == "all" else scored[scored[level].notna()]
            if grouped.empty:
                continue
            by = ["benchmark", "method"] if level == "all" else ["benchmark", "method", level]
            table = pair_bias_table(
                grouped, by, n_resamples=n_resamples, confidence=confidence, seed=seed
            )
            group = "all" if level == "all" else table.pop(level).astype(str)
            frames.append(table.assign(level=level, group=group))
    combined = pd.concat(frames, ignore_index=True)
    leading = ["benchmark", "method", "level", "group"]
    return combined[[*leading, *(c for c in combined.columns if c not in leading)]]


def _benchmark_summary(
    loaded: Mapping[str, pd.DataFrame], kept: pd.DataFrame, *, given: bool
) -> dict[str, dict[str, Any]]:
    """Per benchmark: its pairs, those scored (after ``sample``) and its source (``given``:
    tables passed by the caller)."""
    counts = kept["benchmark"].value_counts()
    summary: dict[str, dict[str, Any]] = {}
    for name, frame in loaded.items():
        source = (
            "pairs table given by the caller" if given else get_resource(RESOURCES[name]).source
        )
        summary[name] = {"n_pairs": len(frame), "n_scored": int(counts[name]), "source": source}
    return summary
