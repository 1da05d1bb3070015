r"""The asymmetry experiment of Zhang et al. (2021) on one model: evocation data against a static
embedding or a masked / causal language model.

The measures (LAR eq. 1, ALAR eq. 2, CAM eqs. 3-4, the eq. 9 filter, direction accuracy of
Appendix G) are in :mod:`wordlens.stats.asymmetry`; the conditionals in
:mod:`wordlens.resources.association_norms` (evocation data, eq. 5),
:mod:`wordlens.models.static_conditionals` (static vectors, eqs. 7-8) and
:mod:`wordlens.models.contextual_conditionals` (language models over corpus paragraphs, eq. 6).
:func:`run_asymmetry` puts them together:

1. **Data side** (RQ 1, Table 1): each chosen evocation data set's bidirectional pairs, annotated
   with their ConceptNet relations (head -> tail), their LAR and per-relation ALAR; with two or
   more data sets, the inter-dataset table (counts, ALAR per data set and the CAM of every two).
2. **Pairs of the model** (section 5, eq. 9): per data set, the pairs whose two words are in the
   vocabulary of ConceptNet and of the model (static: its vocabulary; language model: one token
   of its vocabulary *and* one word of the paragraph index). As in the paper's Table 2 ("12K,
   8K, and 30K pairs on EAT, FA, and SWOW"), each data set keeps its own pairs; with several
   data sets, the pairs are not further intersected. Optionally a seeded sample of ``pairs``
   distinct (unordered) pairs is drawn from the union of the data sets' pairs and each data set
   keeps the sampled pairs it holds. For language models the sample is drawn among the pairs
   that co-occur in at least one paragraph (a pair that never co-occurs has ``P(b|a) = P(a|b) =
   0`` and no LAR); the default is :data:`DEFAULT_LM_PAIRS` pairs for language models and all
   pairs for static models.
3. **Model conditionals**: eqs. 7-8 for static models (the softmax range of eq. 8 is each data
   set's own response range, so a static model's LAR is computed per data set); eq. 6 for
   language models, over a work list of distinct masked passes in a work directory
   (:func:`~wordlens.models.contextual_conditionals.build_worklist`) scored in ``shards``
   shards: an interrupted run resumes from its finished batches, ``shard=K`` runs one shard and
   stops (the :class:`~wordlens.results.Run` is not ``complete``), and a later run without
   ``shard`` merges.
4. **Measures**, per data set: the model's ALAR beside the data's per relation on the same pairs
   (Figure 1); the CAM of model and data per relation with Fisher-z intervals (Tables 2-3); the
   direction accuracy at each threshold theta (Appendix G, Figure 4); for language models the two
   factors of Figure 2 (direction accuracy at theta = 0 and CAM by bins of the number of shared
   contexts ``|C(a, b)|`` and of the mean word distance of ``a`` and ``b``); and word similarity
   from the conditionals (Appendix F, Table 4).

Reconstructions and decisions the paper leaves open
    - **All pairs** (the rows ``SA`` / ``SR`` of Table 2 are not defined in the text): the
      relation :data:`ALL_PAIRS` holds every distinct pair once, oriented lexicographically
      (``a < b``, LAR negated where the relation's orientation was the reverse: eq. 1 is
      antisymmetric, ``LAR(b, a) = -LAR(a, b)``, for every resource). CAM and direction accuracy
      are reported on it beside the relations.
    - **ALAR, model vs data** (Figure 1): both means are over the same pairs, those with a
      defined LAR on both sides, in natural logarithms (the paper prints x100 or x1000).
    - **Figure 2 bins**: the paper groups pairs into bins "of size 200" by the number of
      contexts and by the character distance of the two words, over Wikipedia. Over a small corpus
      and with a cap on contexts per pair such widths leave one bin, so the pairs are cut into
      ``n_bins`` quantile bins (equal counts; bins with equal edges merged) of ``|C(a, b)|`` and
      of the mean distance **in words** (the estimator's unit: per context the smallest distance
      between an occurrence of each word, then the mean over contexts).
    - **Similarity** (Appendix F, eqs. 10-12): for language models, the geometric mean
      :math:`\sqrt{P(b \mid a) P(a \mid b)}` of the two eq. 6 conditionals (measure
      ``geometric_mean``); pairs of a similarity set go into the same work list as the asymmetry
      pairs (a seeded sample of ``similarity_pairs`` per set), a pair that never
      co-occurs scores 0 and a word absent from the corpus leaves its pair out. For static models
      the cosine (measure ``cosine``, Appendix E: the geometric mean of the two eq. 7 projection
      proportions) and the geometric mean of the eq. 8 conditionals of the first data set
      (``geometric_mean``; 0 when the pair is outside the cue's response range, so mostly ties).
      Spearman's rho against the human scores, with the pairs used per set.
    - **Which ConceptNet** (``conceptnet``): the offline default is ConceptNet-100K, whose
      single-word vocabulary is much smaller than full ConceptNet's (GloVe 6B 50d keeps 7,696 of
      EAT's 20,091 bidirectional pairs; the paper: 12K EAT pairs for all its embeddings
      together) and which lacks 7 of the 27 relations of the paper's Table 5 (``antonym``,
      ``synonym``, ``distinctFrom``, ``similarTo``, ``hasContext``, ``formOf``,
      ``derivedFrom``). ``conceptnet="conceptnet5"`` or the path of the ConceptNet 5.7
      assertions file annotates with full ConceptNet
      (:func:`~wordlens.resources.conceptnet.read_conceptnet5`). The table ``relations`` lists
      the paper's 27 relations per data set with the source's single-word assertions and the
      data's pairs, so relations with no pair are shown, not silently missing.

Measured (2 CPU cores)
    GloVe 6B 50d on all 7,696 EAT pairs: CAM 0.329 [0.309, 0.350]; direction accuracy 0.605,
    0.650, 0.693 at theta = 0, 0.5, 1; ALAR of isA 0.349 (data) vs 0.168 (GloVe), hasA -0.573
    vs -0.148; on USF (4,915 pairs) CAM 0.334. Cosine similarity: MEN 0.652, SimLex-999 0.265.
    About 9 s for ``wordlens asymmetry -m glove-6b-50d``.

References
----------
.. [1] Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or
   Ellipses are like Circles? Measuring the Degree of Asymmetry of Static and Contextual Word
   Embeddings and the Implications to Representation Learning. *AAAI 2021*: section 3 (eqs.
   1-4), section 4 (eqs. 5-8), section 5 (eq. 9, Tables 1-4, Figures 1-2), Appendices E-G.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens._files import atomic_write_text
from wordlens.contexts.paragraphs import ParagraphIndex, index_word, load_paragraph_index
from wordlens.errors import EmptyInputError, TargetError, UntrainedHeadError, WordlensError
from wordlens.methods.asymmetry.config import AsymmetryConfig, SampleSize
from wordlens.models.base import WordEmbedder
from wordlens.models.contextual_conditionals import (
    CueCount,
    WorkList,
    build_worklist,
    estimate_conditionals,
    load_worklist,
    merge_shards,
    run_shard,
    single_token_words,
)
from wordlens.models.loading import load_model
from wordlens.models.options import ModelOptions
from wordlens.models.scoring import LMScorer, load_scorer
from wordlens.models.static import StaticEmbedder
from wordlens.models.static_conditionals import StaticConditionals
from wordlens.options import config_values
from wordlens.resources import load_similarity
from wordlens.resources.association_norms import SWOW, AssociationNorms, load_association_norms
from wordlens.resources.conceptnet import PAPER_RELATIONS, ConceptNet, open_conceptnet
from wordlens.results import Run
from wordlens.stages import Timings, keep_tables
from wordlens.stats.asymmetry import (
    ConditionalSource,
    alar_by_relation,
    asymmetry_table,
    cam_by_relation,
    common_vocabulary_pairs,
    direction_accuracy,
    direction_accuracy_by_relation,
    evocation_asymmetry,
    inter_dataset_table,
)
from wordlens.stats.correlation import spearman

FloatArray = npt.NDArray[np.float64]
AsymmetryModel = StaticEmbedder | LMScorer
"""A model the experiment accepts: static vectors or a language model with its head."""

METHOD = "Zhang, Campbell, Yu & Kumaravel (2021), asymmetry judgment with evocation data"
DEFAULT_LM_PAIRS = 100
"""Pairs sampled for a language model when no size is given (minutes on 2 CPU cores)."""
DEFAULT_LM_SIMILARITY_PAIRS = 25
"""Pairs of each similarity set sampled for a language model when no size is given."""
ALL_PAIRS = "all"
"""The relation label of the rows over every distinct pair (module notes)."""

_PAIR_KEY = ["a", "b"]


class NotLanguageModelError(WordlensError, ValueError):
    """A contextual model was given without its language-model head (load it with
    :func:`wordlens.models.scoring.load_scorer`)."""


@dataclass(frozen=True)
class AsymmetrySettings:
    """Settings of the experiment that are not options of ``wordlens asymmetry`` (the paper's
    choices, or this module's reconstructions; see the module notes).

    Attributes
    ----------
    cue_count
        How a word repeated in a paragraph counts in eq. 6 (``occurrences`` or ``paragraphs``).
    n_bins
        Quantile bins of each Figure 2 factor.
    confidence
        Level of the CAM and similarity intervals.
    include_negated
        Keep ConceptNet's negated relations (``notIsA``, ...) as relations of their own.
    """

    cue_count: CueCount = "occurrences"
    n_bins: int = 4
    confidence: float = 0.95
    include_negated: bool = True

    def check(self) -> None:
        """Raise :class:`~wordlens.errors.WordlensError` naming the first invalid setting."""
        if self.n_bins < 1:
            raise WordlensError(f"n_bins must be at least 1; got {self.n_bins}")
        if not 0 < self.confidence < 1:
            raise WordlensError(f"confidence must be in (0, 1); got {self.confidence}")


def _sample_size(size: SampleSize, default: int | None) -> int | None:
    """The number of pairs to sample (None: every pair)."""
    if size is None:
        return default
    return None if size == "all" else size


@dataclass(frozen=True)
class _ModelPairs:
    """The model side's inputs: per data set its eq. 9 pairs (after the sample), the coverage
    rows, and the similarity pairs per set."""

    pairs: dict[str, pd.DataFrame]
    coverage: list[dict[str, Any]]
    similarity: dict[str, pd.DataFrame] = field(default_factory=dict)


def load_norms(config: AsymmetryConfig) -> dict[str, AssociationNorms]:
    """The evocation data sets of ``config`` by name (SWOW from ``config.swow_file``)."""
    config.check()
    return {
        name: load_association_norms(name, config.swow_file if name == SWOW else None)
        for name in config.norms
    }


def read_asymmetry_inputs(config: AsymmetryConfig) -> dict[str, AssociationNorms]:
    """Read and check the inputs of ``config`` before any model loads: the evocation data sets
    (:func:`load_norms`, the user's SWOW file among them) and the similarity sets (registered
    names or files; read again by the run, they are small). The ConceptNet is only checked to
    exist (:meth:`AsymmetryConfig.check`): ConceptNet 5 takes minutes to read.

    Returns
    -------
    dict
        The evocation data sets by name, for :func:`run_asymmetry`'s ``norms``.

    Raises
    ------
    WordlensError
        If a file cannot be read or is malformed (naming the file and line), or a name is not
        registered.
    """
    norms = load_norms(config)
    for name in config.similarity:
        load_similarity(name)
    return norms


def load_asymmetry_model(options: ModelOptions) -> AsymmetryModel:
    """The model of ``options`` as the experiment needs it: a language model with its head
    (:func:`~wordlens.models.scoring.load_scorer`, which refuses a model whose head would be
    newly initialized), or static vectors (:func:`wordlens.load_model`) when the scorer refuses
    the spec because it is one. Of the options, it reads ``device``, ``dtype``,
    ``token_budget``, ``trust_remote_code``, ``bos`` and ``allow_pickle``. A model already loaded
    (:class:`~wordlens.models.options.LoadedModel`) is used as it is.

    Raises
    ------
    WordlensError
        As the loaders raise (no or unknown model, untrained head, encoder-decoder), or if a
        loaded model is a transformer's word vectors (no language-model head).
    """
    given = options.loaded()
    if given is not None:
        if isinstance(given, StaticEmbedder | LMScorer):
            return given
        raise WordlensError(
            f"{given.info.name} is loaded as a transformer's word vectors (load_model): the "
            "asymmetry experiment needs its language-model head; pass the model's name, or a "
            "model from wordlens.models.scoring.load_scorer"
        )
    spec = options.required_model()
    loading: dict[str, Any] = {
        "device": options.device,
        "dtype": options.dtype,
        "token_budget": options.token_budget,
        "trust_remote_code": options.trust_remote_code,
        "bos": options.bos,
        "allow_pickle": options.allow_pickle,
    }
    try:
        return load_scorer(spec, **loading)
    except UntrainedHeadError:
        raise
    except WordlensError:
        embedder = load_model(spec, **loading)
        if isinstance(embedder, StaticEmbedder):
            return embedder
        raise


def run_asymmetry(
    config: AsymmetryConfig,
    model: AsymmetryModel,
    *,
    settings: AsymmetrySettings | None = None,
    workdir: Path | None = None,
    index: ParagraphIndex | None = None,
    conceptnet: ConceptNet | None = None,
    norms: Mapping[str, AssociationNorms] | None = None,
    progress: bool = False,
    limit: int | None = None,
) -> Run:
    """Run the asymmetry experiment of ``config`` on ``model`` (see the module notes).

    Parameters
    ----------
    config
        What to run (the options of ``wordlens asymmetry``).
    model
        A static embedder (:func:`wordlens.load_model`, e.g. ``glove-6b-50d``) or a masked or
        causal language model (:func:`wordlens.models.scoring.load_scorer`).
    settings
        The settings that are not options [:class:`AsymmetrySettings` ()].
    workdir
        Language models: the directory of the work list and the pass scores (required for them;
        a rerun with the same directory resumes) [``config.workdir``].
    index
        Language models: the paragraph index (default: :func:`load_paragraph_index`).
    conceptnet
        The knowledge graph of the relation annotation, already loaded (default: the one
        ``config.conceptnet`` names).
    norms
        The evocation data sets already loaded, by the names of ``config.norms`` (default:
        :func:`load_norms`).
    progress
        Show progress bars while scoring.
    limit
        Quick mode (``--limit``): the model side runs on the first ``limit`` cue/target pairs
        of each data set (after eq. 9 and the sample) and the first ``limit`` pairs of each
        similarity set; None: all.

    Returns
    -------
    Run
        Tables (name -> tidy DataFrame): ``data_alar`` (per data set and relation, RQ 1.1),
        ``relations`` (the paper's relations per data set: the source's assertions and the
        data's pairs), ``table1`` (two or more data sets, Table 1), ``pairs`` (per data set and
        oriented pair: both data and model conditionals and LARs), ``alar`` (Figure 1), ``cam``
        (Tables 2-3), ``direction_accuracy`` (Appendix G), ``factors`` (language models, Figure
        2), ``similarity`` (Table 4), ``coverage`` (pairs kept by each step). A run of one shard
        (``complete`` False) holds the data-side tables only.

    Raises
    ------
    NotLanguageModelError
        If ``model`` is a contextual embedder rather than a language model.
    WordlensError
        For an invalid configuration, a missing work directory, or when no pair is left.
    """
    config.check()
    settings = settings or AsymmetrySettings()
    settings.check()
    workdir = workdir or config.workdir
    _check_model(model)
    if isinstance(model, LMScorer) and workdir is None:
        raise WordlensError("a language model needs a work directory (workdir) for its passes")
    timings = Timings()
    with timings.stage("data"):
        evocation = _chosen_norms(config, norms)
        graph = conceptnet or open_conceptnet(config.conceptnet, progress=progress)
        data_tables = {
            name: evocation_asymmetry(data, graph, include_negated=settings.include_negated)
            for name, data in evocation.items()
        }
    tables = keep_tables(
        {
            "data_alar": _data_alar(data_tables),
            "relations": paper_relations(graph, data_tables),
        }
    )
    if len(data_tables) >= 2:
        tables["table1"] = inter_dataset_table(data_tables)
    metadata: dict[str, Any] = {
        "method": METHOD,
        "model": model.info.as_dict(),
        "config": config_values(config) | asdict(settings),
        "conceptnet": graph.describe(),
        "n_bidirectional_pairs": {name: _n_distinct(t) for name, t in data_tables.items()},
    }
    if isinstance(model, StaticEmbedder):
        with timings.stage("sample"):
            chosen = _first_pairs(_static_pairs(config, model, graph, data_tables), limit)
        with timings.stage("conditionals"):
            model_tables = {
                name: _with_model_lar(
                    chosen.pairs[name], StaticConditionals.from_embedder(model, evocation[name])
                )
                for name in evocation
            }
            similarity = _static_similarity(config, settings, model, evocation[config.norms[0]])
    else:
        # run_asymmetry refused a language model without a work directory above.
        assert workdir is not None
        if index is None:
            with timings.stage("index"):
                index = load_paragraph_index()
        with timings.stage("sample"):
            chosen = _first_pairs(_lm_pairs(config, model, graph, data_tables, index), limit)
        contextual = _contextual_estimates(
            config, settings.cue_count, model, chosen, Path(workdir), index, timings, progress
        )
        metadata["contextual"] = contextual.metadata
        if contextual.estimates is None:
            metadata["coverage"] = chosen.coverage
            metadata["timings_s"] = timings.seconds
            return Run("asymmetry", tables, metadata, complete=False)
        source = EstimatedConditionals(contextual.estimates)
        with timings.stage("conditionals"):
            model_tables = {
                name: _with_factors(
                    _with_model_lar(chosen.pairs[name], source), contextual.estimates
                )
                for name in evocation
            }
            similarity = _lm_similarity(settings, chosen.similarity, source)
    with timings.stage("measures"):
        tables |= _measures(config, settings, model_tables, isinstance(model, LMScorer))
    if not similarity.empty:
        tables["similarity"] = similarity
    coverage = chosen.coverage + [
        {"norm": name, "step": "model LAR defined", "n_pairs": _n_defined(table)}
        for name, table in model_tables.items()
    ]
    tables["coverage"] = pd.DataFrame(coverage)
    metadata["timings_s"] = timings.seconds
    return Run("asymmetry", tables, metadata)


def _chosen_norms(
    config: AsymmetryConfig, norms: Mapping[str, AssociationNorms] | None
) -> dict[str, AssociationNorms]:
    """The loaded data sets of ``config.norms``: those given, else loaded."""
    if norms is None:
        return load_norms(config)
    missing = [name for name in config.norms if name not in norms]
    if missing:
        raise WordlensError(f"evocation data {missing} of the configuration were not given")
    return {name: norms[name] for name in config.norms}


def _check_model(model: object) -> None:
    if isinstance(model, StaticEmbedder | LMScorer):
        return
    if isinstance(model, WordEmbedder):
        raise NotLanguageModelError(
            f"{model.info.name} is a {model.info.kind} embedder: eq. 6 needs the model's "
            "language-model head; load it with wordlens.models.scoring.load_scorer"
        )
    raise WordlensError(
        f"the asymmetry experiment takes a static embedder or a language model, not "
        f"{type(model).__name__}"
    )


# --- the data side -------------------------------------------------------------------------------


def _data_alar(data_tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Eq. 2 per data set and relation over each data set's own pairs."""
    return pd.concat(
        [alar_by_relation(table).assign(norm=name) for name, table in data_tables.items()],
        ignore_index=True,
    )[["norm", "relation", "n_pairs", "n_undefined", "alar"]]


def paper_relations(graph: ConceptNet, data_tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The paper's Table 5 relations per data set, in its order: ``n_assertions`` (the source's
    distinct single-word assertions of the relation) and ``n_pairs`` (the data set's annotated
    pairs; those of ``relatedTo`` include the pairs found under no relation).

    Parameters
    ----------
    graph
        The knowledge graph of the annotation.
    data_tables
        Per data set its annotated LAR table (``relation``, ``a``, ``b``, ...).

    Returns
    -------
    pandas.DataFrame
        ``norm``, ``relation``, ``n_assertions``, ``n_pairs``, ``in_source``
        (``n_assertions > 0``) and ``has_pairs`` (``n_pairs > 0``).
    """
    assertions = graph.word_assertions()["relation"].value_counts()
    rows = [
        {
            "norm": name,
            "relation": relation,
            "n_assertions": int(assertions.get(relation, 0)),
            "n_pairs": int((table["relation"] == relation).sum()),
        }
        for name, table in data_tables.items()
        for relation in PAPER_RELATIONS
    ]
    table = pd.DataFrame(rows, columns=["norm", "relation", "n_assertions", "n_pairs"])
    return table.assign(in_source=table["n_assertions"] > 0, has_pairs=table["n_pairs"] > 0)


def _unordered(table: pd.DataFrame) -> pd.Series:
    """Each row's pair as ``"low\\thigh"`` (the same key in both orientations)."""
    first, second = table["a"].astype(str), table["b"].astype(str)
    forward = first <= second
    low, high = first.where(forward, second), second.where(forward, first)
    return low + "\t" + high


def _n_distinct(table: pd.DataFrame) -> int:
    return int(_unordered(table).nunique())


def _n_defined(table: pd.DataFrame) -> int:
    return int(_unordered(table[table["lar_model"].notna()]).nunique())


# --- the pairs of the model (eq. 9 and the sample) -----------------------------------------------


def _static_pairs(
    config: AsymmetryConfig,
    model: StaticEmbedder,
    graph: ConceptNet,
    data_tables: dict[str, pd.DataFrame],
) -> _ModelPairs:
    """Eq. 9 with ConceptNet's and the model's vocabularies, then the optional sample."""
    size = _sample_size(config.n_pairs, None)
    filtered = {
        name: common_vocabulary_pairs(table, [graph.vocabulary, model])
        for name, table in data_tables.items()
    }
    keys = _sample_keys(filtered, size, config.seed, None)
    return _restricted(data_tables, filtered, keys, size)


def _lm_pairs(
    config: AsymmetryConfig,
    scorer: LMScorer,
    graph: ConceptNet,
    data_tables: dict[str, pd.DataFrame],
    index: ParagraphIndex,
) -> _ModelPairs:
    """Eq. 9 with ConceptNet's vocabulary and the model's single-token index words, the sample
    among co-occurring pairs, and the similarity pairs."""
    size = _sample_size(config.n_pairs, DEFAULT_LM_PAIRS)
    words = sorted({w for table in data_tables.values() for w in (*table["a"], *table["b"])})
    vocabulary = lm_vocabulary(scorer, words)
    filtered = {
        name: common_vocabulary_pairs(table, [graph.vocabulary, vocabulary])
        for name, table in data_tables.items()
    }

    def co_occur(key: str) -> bool:
        return bool(index.paragraph_ids(*key.split("\t")).size)

    keys = _sample_keys(filtered, size, config.seed, co_occur)
    chosen = _restricted(data_tables, filtered, keys, size)
    similarity_size = _sample_size(config.n_similarity_pairs, DEFAULT_LM_SIMILARITY_PAIRS)
    similarity = _similarity_pairs(config.similarity, scorer, similarity_size, config.seed)
    return _ModelPairs(chosen.pairs, chosen.coverage, similarity)


def lm_vocabulary(scorer: LMScorer, words: Sequence[str]) -> set[str]:
    """Eq. 9 for a language model: the words that are one token of its vocabulary and one word
    of the paragraph index (:func:`~wordlens.contexts.paragraphs.index_word`)."""
    indexable = [word for word in words if _is_index_word(word)]
    single = single_token_words(scorer, indexable) if indexable else []
    return {word for word, keep in zip(indexable, single, strict=True) if keep}


def _is_index_word(word: str) -> bool:
    try:
        return index_word(word) == word
    except TargetError:
        return False


def _sample_keys(
    filtered: dict[str, pd.DataFrame],
    size: int | None,
    seed: int,
    accept: Callable[[str], bool] | None,
) -> set[str] | None:
    """``size`` distinct unordered pairs of the union of ``filtered``, in a seeded random order,
    each passing ``accept`` when given (``size`` None: no sample)."""
    if size is None:
        return None
    union = sorted(set().union(*(set(_unordered(table)) for table in filtered.values())))
    chosen: set[str] = set()
    for position in np.random.default_rng(seed).permutation(len(union)):
        key = union[int(position)]
        if accept is None or accept(key):
            chosen.add(key)
            if len(chosen) == size:
                break
    return chosen


def _restricted(
    data_tables: dict[str, pd.DataFrame],
    filtered: dict[str, pd.DataFrame],
    keys: set[str] | None,
    size: int | None,
) -> _ModelPairs:
    """Each data set's filtered pairs limited to ``keys``, with the coverage of every step."""
    pairs, coverage = {}, []
    for name, table in filtered.items():
        kept = table if keys is None else table[_unordered(table).isin(keys)]
        if kept.empty:
            raise EmptyInputError(
                f"no {name} pair is left after the common-vocabulary filter (eq. 9) and the "
                "sample; use more pairs or another model"
            )
        pairs[name] = kept.reset_index(drop=True)
        steps = [
            ("bidirectional pairs", data_tables[name]),
            ("in ConceptNet and model vocabularies (eq. 9)", table),
        ]
        if size is not None:
            steps.append((f"sampled (seeded, {size} of the union)", kept))
        coverage += [
            {"norm": name, "step": step, "n_pairs": _n_distinct(rows)} for step, rows in steps
        ]
    return _ModelPairs(pairs, coverage)


def _first_pairs(chosen: _ModelPairs, limit: int | None) -> _ModelPairs:
    """Quick mode (``--limit``): each data set's first ``limit`` distinct pairs (every row of
    each: its relations and :data:`ALL_PAIRS`) and each similarity set's first ``limit`` pairs,
    with a coverage step saying so; ``chosen`` itself when ``limit`` is None."""
    if limit is None:
        return chosen
    pairs, coverage = {}, list(chosen.coverage)
    for name, table in chosen.pairs.items():
        keys = _unordered(table)
        first = list(dict.fromkeys(keys))[:limit]
        pairs[name] = table[keys.isin(first)].reset_index(drop=True)
        step = f"quick mode (--limit {limit}: the first {limit} pairs)"
        coverage.append({"norm": name, "step": step, "n_pairs": _n_distinct(pairs[name])})
    similarity = {name: table.head(limit) for name, table in chosen.similarity.items()}
    return _ModelPairs(pairs, coverage, similarity)


# --- model conditionals --------------------------------------------------------------------------


class EstimatedConditionals:
    """A :class:`~wordlens.stats.asymmetry.ConditionalSource` over eq. 6 estimates.

    Parameters
    ----------
    estimates
        :func:`~wordlens.models.contextual_conditionals.estimate_conditionals` output: per pair
        ``cue``, ``response``, ``p_response_given_cue`` and ``p_cue_given_response``.
    """

    def __init__(self, estimates: pd.DataFrame) -> None:
        forward = pd.Series(
            estimates["p_response_given_cue"].to_numpy(dtype=np.float64),
            index=pd.MultiIndex.from_arrays([estimates["cue"], estimates["response"]]),
        )
        backward = pd.Series(
            estimates["p_cue_given_response"].to_numpy(dtype=np.float64),
            index=pd.MultiIndex.from_arrays([estimates["response"], estimates["cue"]]),
        )
        both = pd.concat([forward, backward])
        self._values = both[~both.index.duplicated()]

    def conditional(self, cues: Sequence[str], responses: Sequence[str]) -> FloatArray:
        """``P(responses[i] | cues[i])`` as estimated; NaN for a pair that was not."""
        if len(cues) != len(responses):
            raise WordlensError(f"{len(cues)} cues but {len(responses)} responses")
        pairs = pd.MultiIndex.from_arrays(
            [[w.lower() for w in cues], [w.lower() for w in responses]]
        )
        return self._values.reindex(pairs).to_numpy(dtype=np.float64)


def _with_model_lar(pairs: pd.DataFrame, source: ConditionalSource) -> pd.DataFrame:
    """The data's pair table with the model's two conditionals and LAR (``model_*``,
    ``lar_model``) beside the data's (``lar_data``)."""
    model = asymmetry_table(pairs[["relation", "a", "b"]], source)
    return pairs.rename(columns={"lar": "lar_data"}).assign(
        model_p_b_given_a=model["p_b_given_a"].to_numpy(),
        model_p_a_given_b=model["p_a_given_b"].to_numpy(),
        lar_model=model["lar"].to_numpy(),
    )


def _with_factors(table: pd.DataFrame, estimates: pd.DataFrame) -> pd.DataFrame:
    """The two Figure 2 factors of each pair: ``pair_contexts`` and ``mean_distance``."""
    keyed = estimates.assign(
        key=_unordered(estimates.rename(columns={"cue": "a", "response": "b"}))
    )
    factors = keyed.drop_duplicates("key").set_index("key")[["pair_contexts", "mean_distance"]]
    found = factors.reindex(_unordered(table).to_numpy())
    return table.assign(
        pair_contexts=found["pair_contexts"].to_numpy(),
        mean_distance=found["mean_distance"].to_numpy(),
    )


@dataclass(frozen=True)
class _Contextual:
    """Eq. 6 estimates (None when only one shard was run) and what the run did."""

    estimates: pd.DataFrame | None
    metadata: dict[str, Any]


def _contextual_estimates(
    config: AsymmetryConfig,
    cue_count: CueCount,
    scorer: LMScorer,
    chosen: _ModelPairs,
    workdir: Path,
    index: ParagraphIndex,
    timings: Timings,
    progress: bool,
) -> _Contextual:
    """Build (or reuse) the work list, run the shards, merge and estimate."""
    pairs = _work_pairs(chosen)
    with timings.stage("worklist"):
        work, reused = _worklist(pairs, index, workdir, config.context_cap)
    results = workdir / f"scores-{_digest(scorer.info.fingerprint)}"
    shards = [config.shard] if config.shard is not None else list(range(config.shards))
    runs = []
    with timings.stage("shards"):
        for shard in shards:
            run = run_shard(work, shard, config.shards, scorer, results, progress=progress)
            runs.append({k: str(v) if isinstance(v, Path) else v for k, v in asdict(run).items()})
    metadata = {
        "workdir": str(workdir),
        "index": str(index.path),
        "paragraphs": len(index),
        "worklist_reused": reused,
        "n_work_pairs": len(work.pairs),
        "n_contexts": len(work.contexts),
        "n_passes": len(work.passes),
        "shards": runs,
    }
    if config.shard is not None:
        return _Contextual(None, metadata)
    with timings.stage("estimate"):
        scores = merge_shards(work, results, config.shards)
        estimates = estimate_conditionals(work, scores, cue_count=cue_count)
    return _Contextual(estimates, metadata)


def _work_pairs(chosen: _ModelPairs) -> list[tuple[str, str]]:
    """The distinct unordered pairs (lexicographic) of the asymmetry and similarity pairs."""
    tables = [*chosen.pairs.values(), *chosen.similarity.values()]
    keys = sorted(set().union(*(set(_unordered(table)) for table in tables)))
    return [(low, high) for low, high in (key.split("\t") for key in keys) if low != high]


def _worklist(
    pairs: list[tuple[str, str]], index: ParagraphIndex, workdir: Path, max_contexts: int | None
) -> tuple[WorkList, bool]:
    """The work list of ``pairs`` in ``workdir/worklist``, reused when ``workdir/request.json``
    records the same request (pairs, cap, index file)."""
    request = {"pairs": pairs, "max_contexts": max_contexts, "index": index.path.name}
    key = _digest(json.dumps(request))
    record = workdir / "request.json"
    directory = workdir / "worklist"
    if record.is_file() and json.loads(record.read_text()).get("key") == key:
        try:
            return load_worklist(directory), True
        except WordlensError:
            pass
    work = build_worklist(pairs, index, directory, max_contexts=max_contexts)
    atomic_write_text(record, json.dumps({"key": key, **request}))
    return work, False


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# --- measures ------------------------------------------------------------------------------------


def _measures(
    config: AsymmetryConfig,
    settings: AsymmetrySettings,
    model_tables: dict[str, pd.DataFrame],
    contextual: bool,
) -> dict[str, pd.DataFrame]:
    """``pairs``, ``alar``, ``cam``, ``direction_accuracy`` and (contextual) ``factors``."""
    alar, cam, accuracy, factors = [], [], [], []
    for name, table in model_tables.items():
        data, model = _lar_pair(table)
        data_all, model_all = _lar_pair(_all_pairs(table))
        alar.append(_alar_side_by_side(table).assign(norm=name))
        for x, y in ((data, model), (data_all, model_all)):
            cam.append(cam_by_relation(x, y, confidence=settings.confidence).assign(norm=name))
            accuracy += [
                direction_accuracy_by_relation(x, y, threshold=theta).assign(norm=name)
                for theta in config.thresholds
            ]
        if contextual:
            factors.append(_factor_bins(_all_pairs(table), settings).assign(norm=name))
    tables = {
        "pairs": pd.concat(
            [table.assign(norm=name) for name, table in model_tables.items()], ignore_index=True
        ),
        "alar": pd.concat(alar, ignore_index=True),
        "cam": pd.concat(cam, ignore_index=True),
        "direction_accuracy": pd.concat(accuracy, ignore_index=True),
    }
    if factors:
        tables["factors"] = pd.concat(factors, ignore_index=True)
    return {name: _norm_first(table) for name, table in tables.items()}


def _norm_first(table: pd.DataFrame) -> pd.DataFrame:
    return table[["norm", *[c for c in table.columns if c != "norm"]]]


def _lar_pair(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The data's and the model's LAR tables (``relation``, ``a``, ``b``, ``lar``)."""
    keys = table[["relation", "a", "b"]]
    return keys.assign(lar=table["lar_data"]), keys.assign(lar=table["lar_model"])


def _all_pairs(table: pd.DataFrame) -> pd.DataFrame:
    """Every distinct pair once under :data:`ALL_PAIRS`, oriented ``a < b`` (both LARs negated
    where a row ran the other way; eq. 1 is antisymmetric)."""
    flip = (table["a"] > table["b"]).to_numpy()
    sign = np.where(flip, -1.0, 1.0)
    oriented = table.assign(
        relation=ALL_PAIRS,
        a=np.where(flip, table["b"], table["a"]),
        b=np.where(flip, table["a"], table["b"]),
        lar_data=table["lar_data"].to_numpy() * sign,
        lar_model=table["lar_model"].to_numpy() * sign,
    )
    return oriented.drop_duplicates(_PAIR_KEY, ignore_index=True)


def _alar_side_by_side(table: pd.DataFrame) -> pd.DataFrame:
    """Figure 1: per relation the data's and the model's ALAR (eq. 2) over the pairs with both
    LARs defined."""
    defined = table[table["lar_data"].notna() & table["lar_model"].notna()]
    grouped = defined.groupby("relation")
    summary = pd.DataFrame(
        {
            "n_pairs": grouped.size(),
            "alar_data": grouped["lar_data"].mean(),
            "alar_model": grouped["lar_model"].mean(),
        }
    ).reset_index()
    return summary.sort_values(["n_pairs", "relation"], ascending=[False, True], ignore_index=True)


def _factor_bins(table: pd.DataFrame, settings: AsymmetrySettings) -> pd.DataFrame:
    """Figure 2: direction accuracy (theta = 0) and CAM per quantile bin of ``|C(a, b)|`` and of
    the mean word distance, over the pairs with both LARs defined."""
    defined = table[table["lar_data"].notna() & table["lar_model"].notna()]
    rows = []
    for factor, column in (("contexts", "pair_contexts"), ("distance", "mean_distance")):
        values = defined[column].to_numpy(dtype=np.float64)
        if len(values) == 0:
            continue
        # the edges from retbins: the categories' interval labels are rounded (precision 3)
        bins, edges = pd.qcut(
            values, q=min(settings.n_bins, len(values)), duplicates="drop", retbins=True
        )
        for number, interval in enumerate(bins.categories):
            members = defined[np.asarray(bins == interval)]
            accuracy = direction_accuracy(members["lar_data"], members["lar_model"])
            correlation = _spearman_or_nan(members["lar_data"], members["lar_model"], settings)
            rows.append(
                {
                    "factor": factor,
                    "bin": number,
                    "low": float(edges[number]),
                    "high": float(edges[number + 1]),
                    "median": float(np.median(members[column])),
                    "n": len(members),
                    "accuracy": accuracy.accuracy,
                    "cam": correlation,
                }
            )
    columns = ["factor", "bin", "low", "high", "median", "n", "accuracy", "cam"]
    return pd.DataFrame(rows, columns=columns)


def _spearman_or_nan(x: pd.Series, y: pd.Series, settings: AsymmetrySettings) -> float:
    if len(x) < 3 or x.nunique() < 2 or y.nunique() < 2:
        return float("nan")
    return float(spearman(x, y, confidence=settings.confidence).r)


# --- similarity (Appendix F, Table 4) ------------------------------------------------------------


def _similarity_sets(names: Sequence[str]) -> dict[str, pd.DataFrame]:
    """Each set's pairs, lower-cased, self-pairs and repeated pairs dropped."""
    sets = {}
    for name in names:
        loaded = load_similarity(name)
        data = loaded.data.assign(
            word1=loaded.data["word1"].str.lower(), word2=loaded.data["word2"].str.lower()
        )
        data = data[data["word1"] != data["word2"]]
        sets[loaded.name] = data.drop_duplicates(["word1", "word2"], ignore_index=True)
    return sets


def _similarity_pairs(
    names: Sequence[str], scorer: LMScorer, size: int | None, seed: int
) -> dict[str, pd.DataFrame]:
    """Per set, the pairs of single-token index words (a seeded sample of ``size``), as
    ``a``, ``b``, ``score``; ``attrs["n_set"]`` holds the number of pairs in the set."""
    chosen = {}
    for name, data in _similarity_sets(names).items():
        words = sorted(set(data["word1"]) | set(data["word2"]))
        vocabulary = lm_vocabulary(scorer, words)
        kept = data[data["word1"].isin(vocabulary) & data["word2"].isin(vocabulary)]
        if size is not None and len(kept) > size:
            rows = np.sort(np.random.default_rng(seed).choice(len(kept), size, replace=False))
            kept = kept.iloc[rows]
        chosen[name] = pd.DataFrame(
            {"a": kept["word1"], "b": kept["word2"], "score": kept["score"]}
        ).reset_index(drop=True)
        chosen[name].attrs["n_set"] = len(data)
    return chosen


def _lm_similarity(
    settings: AsymmetrySettings, sets: dict[str, pd.DataFrame], source: EstimatedConditionals
) -> pd.DataFrame:
    """Appendix F: Spearman of ``sqrt(P(b|a) P(a|b))`` (eq. 6) against the human scores."""
    rows = []
    for name, pairs in sets.items():
        forward = source.conditional(pairs["a"].tolist(), pairs["b"].tolist())
        backward = source.conditional(pairs["b"].tolist(), pairs["a"].tolist())
        score = np.sqrt(forward * backward)
        rows.append(_similarity_row(name, "geometric_mean", score, pairs, settings))
    return pd.DataFrame(rows)


def _static_similarity(
    config: AsymmetryConfig,
    settings: AsymmetrySettings,
    model: StaticEmbedder,
    norms: AssociationNorms,
) -> pd.DataFrame:
    """Appendix E-F for static vectors: the cosine, as the signed geometric mean of the two eq. 7
    projection proportions, and the geometric mean of the eq. 8 conditionals."""
    conditionals = StaticConditionals.from_embedder(model, norms)
    rows = []
    for name, data in _similarity_sets(config.similarity).items():
        pairs = pd.DataFrame({"a": data["word1"], "b": data["word2"], "score": data["score"]})
        pairs.attrs["n_set"] = len(data)
        first, second = pairs["a"].tolist(), pairs["b"].tolist()
        forward = conditionals.projection(first, second)
        backward = conditionals.projection(second, first)
        cosine = np.sign(forward) * np.sqrt(np.abs(forward * backward))
        rows.append(_similarity_row(name, "cosine", cosine, pairs, settings))
        product = conditionals.conditional(first, second) * conditionals.conditional(second, first)
        rows.append(_similarity_row(name, "geometric_mean", np.sqrt(product), pairs, settings))
    return pd.DataFrame(rows)


def _similarity_row(
    name: str,
    measure: str,
    score: FloatArray,
    pairs: pd.DataFrame,
    settings: AsymmetrySettings,
) -> dict[str, Any]:
    defined = ~np.isnan(score)
    row: dict[str, Any] = {"set": name, "measure": measure, "n_pairs": pairs.attrs["n_set"]}
    row["n_used"] = int(defined.sum())
    if row["n_used"] < 3 or np.unique(score[defined]).size < 2:
        return row | {"spearman": np.nan, "ci_low": np.nan, "ci_high": np.nan, "p_value": np.nan}
    result = spearman(
        score[defined], pairs["score"].to_numpy()[defined], confidence=settings.confidence
    )
    return row | {
        "spearman": result.r,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "p_value": result.p_value,
    }
