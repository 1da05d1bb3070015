"""VAST: the Valence-Assessing Semantics Test (Wolfe & Caliskan 2022), every experiment per layer.

For a lexicon with human ratings and a pair of polar word groups (pleasant/unpleasant for valence;
dominant/submissive and arousal/indifference for the other affective dimensions), the VAST score at
a layer is Pearson's r between each lexicon word's SC-WEAT effect size (paper eq. 1) against the
polar groups *at that layer and in the same contextual setting* and the word's human rating
(paper "Approach", steps 1-4). In the misaligned setting the polar vectors come from the aligned
setting (step 2).

Experiments (paper "Experiments"):

- ``layers``: VAST by layer per lexicon, setting, pooling and dimension (Fig. 1);
- ``tokenization``: singly vs multiply tokenized Warriner words, balanced sets (Fig. 2);
- ``nullification``: VAST after mean subtraction and nullification of the top k PCs, and with the
  top PCs only, at the top and best layers, k = 0..K (Table 1, Fig. 3). The PCs are fitted on the
  authors' population (every Bellezza, ANEW, Warriner and WEAT word in the same setting, pooling
  and layer, ``VAST.py:116, 359-365``; :mod:`wordlens.methods.vast.population`), or, as an option
  that departs from the authors, on the lexicon and polar words only;
- ``weat``: the ten WEAT tests per layer, and after nullifying k = 0..K PCs at the top and best
  layers (Fig. 5).

Similarity tasks (Fig. 4), CoLA/POS probes and multilingual lexica reuse the same code path via
:mod:`wordlens.methods.vast.similarity` and :mod:`wordlens.methods.vast.top_pcs`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens._files import DEFAULT_ENCODING
from wordlens.contexts import BLEACHED_TEMPLATE, Target, targets_from_template
from wordlens.conventions import bos_convention
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.vast.config import SETTINGS, Setting, VastConfig
from wordlens.methods.vast.population import (
    PopulationWords,
    authors_population,
    lexicon_population,
    weat_valence_sides,
)
from wordlens.models.base import Pooling, WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.options import config_values
from wordlens.progress import say, stage
from wordlens.resources import (
    Lexicon,
    SimilaritySet,
    WeatTest,
    lexicon_coverage,
    load_lexicon,
    load_similarity,
    load_weat_tests,
)
from wordlens.results import Run
from wordlens.stages import Timings, keep_tables
from wordlens.stats import correlation_by_layer, fit_principal_components, sc_weat, weat
from wordlens.stats.bootstrap import weat_effect_size_interval
from wordlens.stats.subspace import Part, PrincipalComponents

Dimension = Literal["valence", "dominance", "arousal"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PolarPair:
    """Two polar word groups for one affective dimension (e.g. pleasant vs unpleasant)."""

    dimension: Dimension
    positive: tuple[str, ...]
    negative: tuple[str, ...]

    @property
    def words(self) -> list[str]:
        return [*self.positive, *self.negative]


@dataclass
class VectorBank:
    """Per-pooling vectors of words embedded once in one contextual setting.

    Attributes
    ----------
    setting
        The contextual setting.
    targets
        The word → target (context) used.
    vectors
        pooling → float32 ``[n_words, n_layers, dim]`` in the order of ``targets``.
    n_subtokens
        ``[n_words]`` subtoken counts (independent of pooling).
    layers
        Hidden-state layers along axis 1.
    """

    setting: Setting
    targets: dict[str, Target]
    vectors: dict[Pooling, npt.NDArray[np.float32]]
    n_subtokens: npt.NDArray[np.int64]
    layers: tuple[int, ...]
    row: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.row = {word: index for index, word in enumerate(self.targets)}

    def get(self, words: Sequence[str], pooling: Pooling) -> npt.NDArray[np.float32]:
        """``[len(words), n_layers, dim]`` vectors of ``words``."""
        missing = [word for word in words if word not in self.row]
        if missing:
            raise WordlensError(f"{self.setting} vectors lack {missing[:10]}")
        return self.vectors[pooling][[self.row[word] for word in words]]

    def subtokens(self, words: Sequence[str]) -> npt.NDArray[np.int64]:
        return self.n_subtokens[[self.row[word] for word in words]]


def embed_bank(
    model: WordEmbedder,
    setting: Setting,
    targets: Mapping[str, Target],
    *,
    layers: Sequence[int] | None,
    poolings: Sequence[Pooling],
    cache: ActivationCache | None,
    progress: bool,
) -> VectorBank:
    """Embed each word's target once per pooling (the cache makes repeats free)."""
    if not targets:
        raise EmptyInputError(f"no words to embed in the {setting} setting")
    ordered = list(targets.values())
    by_pooling = model.embed_poolings(ordered, layers, poolings, cache=cache, progress=progress)
    first = by_pooling[poolings[0]]
    return VectorBank(
        setting,
        dict(targets),
        {pooling: embeddings.vectors for pooling, embeddings in by_pooling.items()},
        first.n_subtokens,
        first.layers,
    )


def vast_scores(
    lexicon_vectors: npt.ArrayLike,
    ratings: npt.ArrayLike,
    positive: npt.ArrayLike,
    negative: npt.ArrayLike,
) -> list[Any]:
    """VAST per layer: Pearson r (with 95% CI) of SC-WEAT (eq. 1) vs human ratings.

    Parameters
    ----------
    lexicon_vectors
        ``[n_words, n_layers, dim]``.
    ratings
        ``[n_words]`` human ratings of the same words.
    positive, negative
        ``[n_a, n_layers, dim]`` / ``[n_b, n_layers, dim]`` polar-word vectors, same layers.

    Returns
    -------
    list of CorrelationResult
        One per layer.
    """
    associations = sc_weat(lexicon_vectors, positive, negative)  # [n_words, n_layers]
    return correlation_by_layer(associations, np.asarray(ratings, dtype=np.float64))


def correlation_rows(
    results: Iterable[Any], layers: Sequence[int], **keys: Any
) -> list[dict[str, Any]]:
    """Tidy rows (one per layer) from correlation results, with identifying ``keys``; ``reason``
    says why ``r`` is NaN (None where it is not)."""
    return [
        {
            **keys,
            "layer": layer,
            "r": result.r,
            "ci_low": result.ci_low,
            "ci_high": result.ci_high,
            "p": result.p_value,
            "n": result.n,
            "reason": result.reason,
        }
        for layer, result in zip(layers, results, strict=True)
    ]


#: Bleached templates for the multilingual experiment ("This is WORD" in each language).
BLEACHED_BY_LANGUAGE = {
    "en": BLEACHED_TEMPLATE,
    "es": "Esto es {word}",
    "fr": "C'est {word}",
    "pt": "Isto é {word}",
    "pl": "To jest {word}",
    "tr": "Bu {word}",
    "zh": "这是{word}",
    "de": "Das ist {word}",
}

#: Valence given to WEAT words no lexicon rates, on 1-9, for the aligned setting (as the
#: authors' embedding_collection.py: pleasant-side 8.0, unpleasant-side 2.0, others 5.0).
DEFAULT_VALENCE = {"positive": 8.0, "negative": 2.0, "neutral": 5.0}


def term_valences(
    words: Sequence[str], lexica: Sequence[Lexicon], positive: set[str], negative: set[str]
) -> dict[str, float]:
    """Valence on 1-9 of every word, for choosing its aligned/misaligned template.

    The first lexicon (in the given order; VAST uses Warriner, then ANEW, then Bellezza) that
    rates a word wins, linearly rescaled to 1-9
    (:func:`~wordlens.contexts.valence.rescale_to_nine`); unrated polar/WEAT words take
    :data:`DEFAULT_VALENCE` by their side.
    """
    from wordlens.contexts.valence import rescale_to_nine

    valence: dict[str, float] = {}
    for lexicon in lexica:
        rated = lexicon.data.drop_duplicates("word")
        nine = rescale_to_nine(rated["valence"].to_numpy(), lexicon.scale["valence"])
        for word, value in zip(rated["word"], nine, strict=True):
            valence.setdefault(str(word), float(value))
    for word in words:
        side = "positive" if word in positive else "negative" if word in negative else "neutral"
        valence.setdefault(word, DEFAULT_VALENCE[side])
    return {word: valence[word] for word in words}


def template_valences(
    words: Sequence[str], lexica: Sequence[Lexicon], valence_pair: PolarPair
) -> dict[str, float]:
    """Valence on 1-9 that picks each word's aligned/misaligned template.

    Rated words take Warriner's, else ANEW's, else Bellezza's rating (then any other lexicon's);
    unrated words take :data:`DEFAULT_VALENCE` by side, the sides being the valence WEAT tests'
    pleasant and unpleasant words and the polar words (``embedding_collection.py:156-177``;
    :func:`wordlens.methods.vast.population.weat_valence_sides`).
    """
    positive, negative = weat_valence_sides()
    return term_valences(
        words,
        _valence_reference(lexica),
        positive | set(valence_pair.positive),
        negative | set(valence_pair.negative),
    )


def setting_targets(
    setting: Setting,
    words: Sequence[str],
    valence9: Mapping[str, float],
    *,
    seed: int,
    template: str = BLEACHED_TEMPLATE,
    templates: Path | None = None,
    encoding: str = DEFAULT_ENCODING,
) -> tuple[dict[str, Target], dict[str, Any]]:
    """Each word's context in ``setting``, and a report (coverage of the random setting).

    ``templates`` replaces the packaged aligned/misaligned templates (a JSON file in
    ``encoding``, see :func:`wordlens.contexts.valence.load_templates`).
    """
    from wordlens.contexts.corpus import random_targets
    from wordlens.contexts.valence import aligned_targets, load_templates, misaligned_targets

    words = list(dict.fromkeys(words))
    if setting == "bleached":
        return dict(zip(words, targets_from_template(words, template), strict=True)), {}
    if setting in ("aligned", "misaligned"):
        build = aligned_targets if setting == "aligned" else misaligned_targets
        values = [valence9[word] for word in words]
        chosen = load_templates(templates, encoding=encoding)
        return dict(zip(words, build(words, values, (1.0, 9.0), chosen), strict=True)), {
            "templates": chosen.source
        }
    if setting == "random":
        drawn = random_targets(words, seed, template=template)
        report = {
            "coverage": drawn.coverage,
            "n_words": drawn.n_words,
            "without_corpus_context": list(drawn.missing),
            "policy": "words without a corpus sentence get the bleached context",
        }
        return dict(zip(words, drawn.targets, strict=True)), report
    raise WordlensError(f"unknown setting {setting!r}; choose from {', '.join(SETTINGS)}")


def primary_pooling(poolings: Sequence[Pooling]) -> Pooling:
    """The pooling of the single-pooling experiments: ``last`` as in the paper, if requested."""
    return "last" if "last" in poolings else poolings[0]


@dataclass
class _Study:
    """Everything the experiments share: model, config, lexica, polar sets and vector banks."""

    model: WordEmbedder
    config: VastConfig
    cache: ActivationCache | None
    progress: bool
    timings: Timings
    lexica: list[Lexicon]
    polar: dict[Dimension, PolarPair]
    coverage: dict[str, dict[str, Any]] = field(default_factory=dict)
    banks: dict[Setting, VectorBank] = field(default_factory=dict)
    population_banks: dict[Setting, VectorBank] = field(default_factory=dict)
    population_info: dict[str, Any] = field(default_factory=dict)
    reports: dict[str, Any] = field(default_factory=dict)
    present_words: dict[tuple[tuple[str, ...], bool], list[str]] = field(default_factory=dict)
    limit: int | None = None
    """Quick mode (``--limit``): the first ``limit`` words of each lexicon and WEAT set."""

    def weat_tests(self) -> list[WeatTest]:
        """The WEAT tests of the WEAT experiment (each set's first words in quick mode)."""
        tests = load_weat_tests()
        return tests if self.limit is None else [test.first(self.limit) for test in tests]

    @property
    def static(self) -> bool:
        return self.model.info.kind == "static"

    @property
    def settings(self) -> tuple[Setting, ...]:
        return ("bleached",) if self.static else self.config.settings

    @property
    def poolings(self) -> tuple[Pooling, ...]:
        return (self.config.pooling[0],) if self.static else self.config.pooling

    def bank(self, setting: Setting) -> VectorBank:
        return self.banks[setting]

    def polar_bank(self, setting: Setting) -> VectorBank:
        """Misaligned lexicon words are scored against polar words in the aligned setting."""
        return self.banks["aligned" if setting == "misaligned" else setting]

    @functools.cached_property
    def authors_population(self) -> PopulationWords:
        """The authors' words: every English lexicon, WEAT term and polar word of all three
        dimensions (``VAST.py:140`` holds the six polar lists whatever the lexicon)."""
        every = _polar_pairs(["valence", "dominance", "arousal"])
        return authors_population([w for pair in every.values() for w in pair.words], self.limit)

    def population_for(self, lexicon: Lexicon) -> PopulationWords:
        """The words whose vectors the PCs used on ``lexicon`` are fitted on."""
        if self.config.pc_population == "lexicon":
            return lexicon_population(lexicon, [w for p in self.polar.values() for w in p.words])
        return self.authors_population

    def population_bank(self, setting: Setting) -> VectorBank:
        """Vectors of the population's words in ``setting`` (the study's own bank for the
        ``lexicon`` population, whose words it holds)."""
        if self.config.pc_population == "lexicon":
            return self.banks[setting]
        return self.population_banks[setting]

    def present(self, words: Iterable[str], *, tell_apart: bool = True) -> list[str]:
        """The distinct ``words`` the model can embed, in order: without the words it cannot
        read, and (``tell_apart``) without those it cannot tell apart from another of these
        ``words`` (:meth:`~wordlens.models.base.WordEmbedder.missing_reasons`). A vector bank
        holds the words of several experiments and asks with ``tell_apart=False``: "bill" in a
        lexicon and "Bill" among WEAT's names are two words on an uncased model only when they
        meet in one experiment, which then leaves both out."""
        distinct = tuple(dict.fromkeys(words))
        if (distinct, tell_apart) not in self.present_words:  # each list once: it tokenizes all
            missing = set(self.model.missing_words(distinct, tell_apart=tell_apart))
            self.present_words[distinct, tell_apart] = [w for w in distinct if w not in missing]
        return list(self.present_words[distinct, tell_apart])

    def cover(self, lexicon: Lexicon) -> None:
        """Record the lexicon's words the model lacks (left out of every score); refuse a
        lexicon the model lacks entirely (:func:`wordlens.resources.lexicon_coverage`)."""
        self.coverage[lexicon.name] = lexicon_coverage(lexicon, self.model)


def _polar_pairs(
    dimensions: Iterable[Dimension], language: str = "en"
) -> dict[Dimension, PolarPair]:
    from wordlens.methods.vast.polar import polar_sets

    pairs = {}
    for dimension in dict.fromkeys(dimensions):
        sets = polar_sets(dimension, language)
        pairs[dimension] = PolarPair(dimension, sets.a.words, sets.b.words)
    return pairs


def _dimensions(lexicon: Lexicon) -> list[Dimension]:
    return [d for d in ("valence", "dominance", "arousal") if d in lexicon.dimensions]


POLAR_WORDS_LEFT_OUT_OF = ("warriner",)
"""The lexica whose dominance and arousal targets leave that dimension's polar words out, as
``VAST.py`` builds them (Warriner's only: ANEW keeps every word; :mod:`.polar`)."""


def _rated(study: _Study, lexicon: Lexicon, dimension: Dimension) -> pd.DataFrame:
    """The lexicon's words (present in the model) and ratings on ``dimension``, without the
    dimension's polar words in the lexica of :data:`POLAR_WORDS_LEFT_OUT_OF`."""
    from wordlens.methods.vast.polar import rated_words

    rated = (
        rated_words(lexicon, dimension)
        if lexicon.name in POLAR_WORDS_LEFT_OUT_OF
        else lexicon.data[["word", dimension]]
    ).drop_duplicates("word")
    keep = set(study.present(rated["word"]))
    return rated[rated["word"].isin(keep)].reset_index(drop=True)


def _build_banks(study: _Study, extra_words: Sequence[str]) -> None:
    """Embed lexicon, polar and extra (WEAT) words once in every setting needed."""
    words = [
        *(w for lexicon in study.lexica for w in lexicon.data["word"].astype(str)),
        *(w for pair in study.polar.values() for w in pair.words),
        *extra_words,
    ]
    study.banks = _embed_settings(
        study, words, layers=study.config.layers, poolings=study.poolings, name="words"
    )


def _build_population_banks(study: _Study, layers: Sequence[int]) -> None:
    """Embed the authors' population (:mod:`wordlens.methods.vast.population`) in every setting
    needed, at ``layers`` only and with the primary pooling; nothing for the ``lexicon``
    population, whose words the study's banks hold."""
    if study.config.pc_population == "lexicon":
        return
    population = study.authors_population
    study.population_banks = _embed_settings(
        study,
        [*population.words, *population.polar_words],
        layers=layers,
        poolings=(primary_pooling(study.poolings),),
        name="pc_population",
    )
    why = study.model.missing_reasons(list(population.words))
    missing = list(why)
    study.population_info = {
        "name": population.name,
        "description": population.description,
        "n_words": len(population.words),
        "n_polar_repeated": len(study.present(population.polar_words)),
        "n_rows": len(population.words) - len(missing) + len(study.present(population.polar_words)),
        "layers": list(layers),
        "n_missing": len(missing),
        "missing": missing,
        "why": why,
    }


def population_cost(
    n_words: int, targets: Mapping[Setting, Mapping[str, Target]], layers: Sequence[int] | None
) -> str:
    """What embedding the PC population costs, said before it starts: its words, settings and
    forward passes (one per distinct context sentence), and how to make it cheaper."""
    passes = sum(len({target.text for target in by_word.values()}) for by_word in targets.values())
    at = "" if layers is None else f", kept at layer(s) {', '.join(map(str, layers))}"
    return (
        f"embedding the PC population: {n_words:,} words × {len(targets)} setting(s) "
        f"(~{passes:,} forward passes{at}); --pc-population lexicon or --limit N embed fewer"
    )


def _embed_settings(
    study: _Study,
    words: Sequence[str],
    *,
    layers: Sequence[int] | None,
    poolings: Sequence[Pooling],
    name: str,
) -> dict[Setting, VectorBank]:
    """A bank of the ``words`` the model can embed in each setting the study needs (the aligned
    one too when misaligned is run, for its polar words). ``name`` keys the context reports."""
    present = study.present(words, tell_apart=False)  # each experiment tells its own apart
    needed: list[Setting] = list(study.settings)
    if "misaligned" in needed and "aligned" not in needed:
        needed.append("aligned")
    valence9: dict[str, float] = {}
    if {"aligned", "misaligned"} & set(needed):
        valence9 = template_valences(present, study.lexica, study.polar["valence"])
    banks: dict[Setting, VectorBank] = {}
    suffix = "" if name == "words" else f":{name}"
    every_target: dict[Setting, dict[str, Target]] = {}
    for setting in needed:
        with study.timings.stage(f"contexts:{setting}{suffix}"):
            every_target[setting], report = setting_targets(
                setting,
                present,
                valence9,
                seed=study.config.seed,
                templates=study.config.templates,
                encoding=study.config.encoding,
            )
        if report:
            study.reports[f"{setting}_contexts{suffix.replace(':', '_')}"] = report
    if name == "pc_population" and study.progress:
        say(population_cost(len(present), every_target, layers))
    for setting, targets in every_target.items():
        what = "the PC population" if name == "pc_population" else "the lexicon words"
        said = f"embedding {what}: {len(targets):,} words in the {setting} setting"
        if name == "pc_population" and study.config.pc_population != "lexicon":
            said += " (the authors' population; pc_population=lexicon embeds only the lexica's)"
        with (
            study.timings.stage(f"embed:{setting}{suffix}"),
            stage(study.progress, said, f"{name} {setting}"),
        ):
            banks[setting] = embed_bank(
                study.model,
                setting,
                targets,
                layers=layers,
                poolings=poolings,
                cache=study.cache,
                progress=study.progress,
            )
    return banks


def _valence_reference(lexica: Sequence[Lexicon]) -> list[Lexicon]:
    """Warriner, ANEW, Bellezza (loaded if not requested), then any other requested lexicon."""
    by_name = {lexicon.name: lexicon for lexicon in lexica}
    ordered = []
    for name in ("warriner", "anew", "bellezza"):
        ordered.append(by_name.pop(name) if name in by_name else load_lexicon(name))
    return [*ordered, *by_name.values()]


def layers_experiment(study: _Study) -> pd.DataFrame:
    """VAST by layer for every lexicon, dimension, setting and pooling (paper Fig. 1)."""
    rows: list[dict[str, Any]] = []
    for lexicon in study.lexica:
        for dimension in _dimensions(lexicon):
            rated = _rated(study, lexicon, dimension)
            pair = study.polar[dimension]
            for setting in study.settings:
                bank, polar_bank = study.bank(setting), study.polar_bank(setting)
                for pooling in study.poolings:
                    results = vast_scores(
                        bank.get(list(rated["word"]), pooling),
                        rated[dimension].to_numpy(),
                        polar_bank.get(study.present(pair.positive), pooling),
                        polar_bank.get(study.present(pair.negative), pooling),
                    )
                    rows += correlation_rows(
                        results,
                        bank.layers,
                        lexicon=lexicon.name,
                        dimension=dimension,
                        setting=setting,
                        pooling=pooling,
                    )
    return pd.DataFrame(rows)


def argmax_of(table: pd.DataFrame, column: str, **filters: Any) -> int:
    """``column`` of the row with the highest ``r`` among the rows matching ``filters``."""
    rows = table
    for key, value in filters.items():
        rows = rows[rows[key] == value]
    if rows.empty or rows["r"].isna().all():
        raise WordlensError(f"no VAST scores for {filters}")
    return int(rows[column].to_numpy()[int(np.nanargmax(rows["r"].to_numpy()))])


def best_layer(layers_table: pd.DataFrame, lexicon: str, setting: Setting, pooling: Pooling) -> int:
    """The layer with the highest valence VAST score for one lexicon, setting and pooling."""
    return argmax_of(
        layers_table,
        "layer",
        lexicon=lexicon,
        dimension="valence",
        setting=setting,
        pooling=pooling,
    )


def nullification_layers(study: _Study, layers_table: pd.DataFrame) -> list[int]:
    """The layers the nullification sweep runs at: the top layer and each lexicon's best bleached
    layer (paper "PC Nullification": "the top and highest scoring layers")."""
    pooling = primary_pooling(study.poolings)
    top = study.bank("bleached").layers[-1]
    best = [best_layer(layers_table, lexicon.name, "bleached", pooling) for lexicon in study.lexica]
    return sorted({top, *best})


def population_vectors(
    study: _Study, population: PopulationWords, setting: Setting, layer: int
) -> FloatArray:
    """``[n_rows, dim]`` vectors the principal components are fitted on, at one layer.

    The rows are the population's words in ``setting`` followed by its polar words again from the
    polar setting (the aligned one for misaligned), as ``VAST.py:362-365`` stacks
    ``embedding_dict`` and ``weat_dict``; see :mod:`wordlens.methods.vast.population`.
    """
    pooling = primary_pooling(study.poolings)
    bank = study.population_bank(setting)
    polar_bank = study.population_bank("aligned" if setting == "misaligned" else setting)
    words = bank.get(study.present(population.words), pooling)[:, bank.layers.index(layer)]
    polar = polar_bank.get(study.present(population.polar_words), pooling)
    return np.concatenate([words, polar[:, polar_bank.layers.index(layer)]]).astype(np.float64)


def nullification_experiment(study: _Study, layers_table: pd.DataFrame) -> pd.DataFrame:
    r"""VAST after nullifying k = 0..K top PCs, and with the top PCs only (Table 1, Fig. 3).

    At the top layer and the best bleached layer of each lexicon, in every setting, the mean
    :math:`\mu` and top principal directions :math:`U_k` are fitted once on the population of
    :func:`population_vectors` (default: the authors' union of every English lexicon and WEAT word,
    ``VAST.py:116, 359-365``; ``pc_population="lexicon"``: the lexicon and polar words only, a
    departure). Each lexicon word's and polar word's vector :math:`y` is then transformed with that
    one fit: nullified :math:`\tilde y - \tilde y U_k U_k^\top` with :math:`\tilde y = y - \mu`
    (``helper_functions.py:164-179``), or its top PCs :math:`\tilde y U_k U_k^\top`, whose cosines
    equal those of the PC scores the authors use. ``k = 0`` is the mean-centred input (cosines
    change, so the score may differ from the raw one). The SC-WEAT (eq. 1) of each transformed
    lexicon word against the transformed polar words is correlated with the ratings (Pearson).

    One fit serves every lexicon with the same population at a setting and layer; the k = 0..K
    versions come from one incremental sweep (:meth:`PrincipalComponents.sweep
    <wordlens.stats.subspace.PrincipalComponents.sweep>`), their SC-WEAT stacked as columns and
    correlated column by column (:func:`~wordlens.stats.correlation_by_layer`): a version whose
    every SC-WEAT is undefined (a random model's top PC with all polar words on one side) is a
    NaN row with its ``reason``.
    """
    pooling = primary_pooling(study.poolings)
    rows: list[dict[str, Any]] = []
    top = study.bank("bleached").layers[-1]
    polar_words = study.present(w for p in study.polar.values() for w in p.words)
    fits: dict[tuple[PopulationWords, Setting, int], tuple[PrincipalComponents, int]] = {}
    for lexicon in study.lexica:
        best = best_layer(layers_table, lexicon.name, "bleached", pooling)
        population = study.population_for(lexicon)
        lexicon_words = study.present(lexicon.data["word"].astype(str))
        scored = _scored_rows(study, lexicon, lexicon_words, polar_words)
        for setting in study.settings:
            bank, polar_bank = study.bank(setting), study.polar_bank(setting)
            for layer in dict.fromkeys((top, best)):
                key = (population, setting, layer)
                if key not in fits:  # one fit per population, setting and layer (not per lexicon)
                    fit_on = population_vectors(study, population, setting, layer)
                    fits[key] = _fit_top_pcs(fit_on, study.config.max_pcs), fit_on.shape[0]
                fitted, n_fit = fits[key]
                column = bank.layers.index(layer)
                vectors = np.concatenate(  # lexicon words, then polar words: transformed together
                    [
                        bank.get(lexicon_words, pooling)[:, column],
                        polar_bank.get(polar_words, pooling)[:, column],
                    ]
                ).astype(np.float64)
                results = {  # per dimension, one per column of _swept_sc_weat
                    dimension: correlation_by_layer(
                        _swept_sc_weat(fitted, vectors, words, positive, negative), ratings
                    )
                    for dimension, (words, ratings, positive, negative) in scored.items()
                }
                for representation, k, index in _sweep_versions(fitted.n_components):
                    for dimension, by_version in results.items():
                        rows += correlation_rows(
                            [by_version[index]],
                            [layer],
                            lexicon=lexicon.name,
                            dimension=dimension,
                            setting=setting,
                            pooling=pooling,
                            layer_role="top" if layer == top else "best",
                            representation=representation,
                            k=k,
                            pc_population=population.name,
                            n_fit=n_fit,
                        )
    return pd.DataFrame(rows)


def _fit_top_pcs(fit_on: npt.ArrayLike, max_pcs: int) -> PrincipalComponents:
    """The mean and top ``K = min(max_pcs, n - 2, d - 1)`` PCs of ``fit_on`` ``[n, d]``: K is
    capped so that a small population still fits (:func:`fit_principal_components`)."""
    n, d = np.shape(fit_on)
    return fit_principal_components(fit_on, min(max_pcs, n - 2, d - 1))


def _sweep_versions(k_max: int) -> list[tuple[str, int, int]]:
    """The rows' order of the sweep's versions, ``(representation, k, column)``: k = 0..K, the
    nullified version, then (k >= 1) the top one; ``column`` is the version's column of
    :func:`_swept_sc_weat` (nullified k at k, top k at K + k)."""
    return [
        (representation, k, column)
        for k in range(k_max + 1)
        for representation, column in (("nullified", k), ("top", k_max + k))
        if representation == "nullified" or k
    ]


ScoredRows = dict[Dimension, tuple[npt.NDArray[np.intp], FloatArray, list[int], list[int]]]


def _scored_rows(
    study: _Study, lexicon: Lexicon, lexicon_words: Sequence[str], polar_words: Sequence[str]
) -> ScoredRows:
    """Per dimension of ``lexicon``: the rows of its rated words among ``lexicon_words``, their
    ratings, and the rows of the dimension's positive and negative polar words among the rows
    that follow (``lexicon_words`` then ``polar_words``)."""
    row_of = {w: i for i, w in enumerate(lexicon_words)}
    polar_row = {w: len(lexicon_words) + i for i, w in enumerate(polar_words)}
    scored: ScoredRows = {}
    for dimension in _dimensions(lexicon):
        rated = _rated(study, lexicon, dimension)
        pair = study.polar[dimension]
        scored[dimension] = (
            np.array([row_of[w] for w in rated["word"]], dtype=np.intp),
            rated[dimension].to_numpy(dtype=np.float64),
            [polar_row[w] for w in study.present(pair.positive)],
            [polar_row[w] for w in study.present(pair.negative)],
        )
    return scored


def _swept_sc_weat(
    fitted: PrincipalComponents,
    vectors: FloatArray,
    words: npt.NDArray[np.intp],
    positive: Sequence[int],
    negative: Sequence[int],
) -> FloatArray:
    r"""SC-WEAT (eq. 1) of the rows ``words`` of ``vectors`` ``[m, d]`` against the rows
    ``positive`` and ``negative``, after nullifying k = 0..K top PCs and with the top k = 1..K
    PCs only: ``[n_words, 2K + 1]``, the nullified versions first.

    One incremental sweep per part (:meth:`PrincipalComponents.sweep`: the coordinates
    :math:`\tilde Y U_K` once, one rank-one update per k) instead of a projection per k.
    """
    parts: tuple[tuple[Part, int], ...] = (("removed", 0), ("top", 1))  # (part, first k)
    columns = [
        sc_weat(transformed[words], transformed[positive], transformed[negative])
        for part, first in parts
        for k, transformed in fitted.sweep(vectors, part=part)
        if k >= first
    ]
    return np.stack(columns, axis=1)


def weat_experiment(study: _Study, layers: Sequence[int]) -> pd.DataFrame:
    """The ten WEAT tests in the bleached setting: raw at every layer, and after mean subtraction
    and nullification of k = 0..K top PCs at ``layers`` (paper Fig. 5; ``VAST.py:476-513``).

    The PCs of a layer are fitted on the population's words alone (``VAST.py:485-495`` fits on
    the embedding dictionary, without the polar words again); every WEAT word is transformed with
    that fit. Rows with ``representation == "raw"`` have ``k_nullified = 0`` and are the untouched
    vectors; ``"nullified"`` rows with ``k_nullified = 0`` are the mean-centred vectors.
    ``effect_size_ci_low`` and ``_ci_high`` are d's 95% percentile bootstrap interval over the
    target words, seeded by the study's seed
    (:func:`wordlens.stats.bootstrap.weat_effect_size_interval`).
    """
    pooling = primary_pooling(study.poolings)
    bank = study.bank("bleached")
    population_bank = study.population_bank("bleached")
    population = study.population_for(study.lexica[0])
    fit_words = study.present(population.words)
    fits = {  # one fit per layer, for every test
        layer: _fit_top_pcs(
            population_bank.get(fit_words, pooling)[:, population_bank.layers.index(layer)],
            study.config.max_pcs,
        )
        for layer in layers
    }
    rows: list[dict[str, Any]] = []
    for test in study.weat_tests():
        # words told apart within the test (its four sets together), as in ``wordlens weat``
        kept = set(study.present(w for ws in (test.x, test.y, test.a, test.b) for w in ws.words))
        sets = [[w for w in ws.words if w in kept] for ws in (test.x, test.y, test.a, test.b)]
        if not all(sets):
            continue
        raw = [bank.get(words, pooling).astype(np.float64) for words in sets]  # each [n, L, d]
        versions: list[tuple[str, list[int], list[int], list[FloatArray]]] = [
            ("raw", list(bank.layers), [0] * len(bank.layers), raw)
        ]
        for layer, fitted in fits.items():
            column = bank.layers.index(layer)
            k_max = fitted.n_components
            # the k versions side by side on the layer axis: one permutation test per set of k
            swept = [
                np.stack([removed for _, removed in fitted.sweep(vectors[:, column])], axis=1)
                for vectors in raw
            ]
            versions.append(("nullified", [layer] * (k_max + 1), list(range(k_max + 1)), swept))
        for representation, version_layers, ks, vectors in versions:
            outcome = weat(*vectors, n_samples=study.config.permutations, seed=study.config.seed)
            low, high = weat_effect_size_interval(*vectors, seed=study.config.seed)
            for column, (layer, k) in enumerate(zip(version_layers, ks, strict=True)):
                rows.append(
                    {
                        "test": test.id,
                        "title": test.title,
                        "layer": layer,
                        "representation": representation,
                        "k_nullified": k,
                        "pooling": pooling,
                        "pc_population": population.name,
                        "effect_size": float(outcome.effect_size[column]),
                        "effect_size_ci_low": float(low[column]),
                        "effect_size_ci_high": float(high[column]),
                        "p_one_sided": float(outcome.p_one_sided[column]),
                        "p_two_sided": float(outcome.p_two_sided[column]),
                        "n_partitions": outcome.n_partitions,
                    }
                )
    return pd.DataFrame(rows)


def tokenization_experiment(study: _Study) -> pd.DataFrame:
    """Singly vs multiply tokenized Warriner words (paper "Tokenization", Fig. 2).

    In the random setting (bleached if random is not run), Warriner words are split by their
    number of subtokens there; the multiply tokenized set is every multiply tokenized word and the
    singly tokenized set an equal-size random sample (seeded). Polar words: only singly tokenized
    ones, groups balanced by seeded random removal
    (:func:`wordlens.methods.vast.polar.select_polar`).
    """
    from wordlens.methods.vast.polar import polar_sets, select_polar

    setting: Setting = "random" if "random" in study.settings else "bleached"
    warriner = next((lx for lx in study.lexica if lx.name == "warriner"), None)
    if warriner is None:
        raise WordlensError("the tokenization experiment needs the warriner lexicon")
    bank = study.bank(setting)
    rated = _rated(study, warriner, "valence")
    counts = bank.subtokens(list(rated["word"]))
    single = rated[counts == 1]
    multi = rated[counts > 1]
    size = min(len(single), len(multi))
    rng = np.random.default_rng(study.config.seed)
    chosen = {
        "singly tokenized": single.iloc[np.sort(rng.choice(len(single), size, replace=False))],
        "multiply tokenized": multi.iloc[np.sort(rng.choice(len(multi), size, replace=False))],
    }
    selection = select_polar(polar_sets("valence"), study.model, seed=study.config.seed)
    study.reports["tokenization_polar_words"] = {
        "pleasant": list(selection.sets.a.words),
        "unpleasant": list(selection.sets.b.words),
        "multiply_tokenized_removed": list(selection.multiply_tokenized),
        "balanced_out": list(selection.removed),
        "n_single_lexicon": len(single),
        "n_multi_lexicon": len(multi),
    }
    polar_bank = study.polar_bank(setting)
    rows: list[dict[str, Any]] = []
    for name, subset in chosen.items():
        for pooling in study.poolings:
            results = vast_scores(
                bank.get(list(subset["word"]), pooling),
                subset["valence"].to_numpy(),
                polar_bank.get(list(selection.sets.a.words), pooling),
                polar_bank.get(list(selection.sets.b.words), pooling),
            )
            rows += correlation_rows(
                results, bank.layers, words=name, setting=setting, pooling=pooling
            )
    return pd.DataFrame(rows)


def multilingual_experiment(study: _Study) -> pd.DataFrame:
    """VAST by layer for non-English lexica with their own polar words (bleached setting in the
    lexicon's language, :data:`BLEACHED_BY_LANGUAGE`)."""
    pooling = primary_pooling(study.poolings)
    rows: list[dict[str, Any]] = []
    for name in study.config.multilingual:
        lexicon = load_lexicon(name, duplicates=study.config.duplicates)
        study.cover(lexicon)
        pair = _polar_pairs(["valence"], lexicon.language)["valence"]
        template = BLEACHED_BY_LANGUAGE.get(lexicon.language, BLEACHED_TEMPLATE)
        rated = _rated(study, lexicon, "valence")
        words = study.present([*rated["word"], *pair.words])
        targets = dict(zip(words, targets_from_template(words, template), strict=True))
        bank = embed_bank(
            study.model,
            "bleached",
            targets,
            layers=study.config.layers,
            poolings=[pooling],
            cache=study.cache,
            progress=study.progress,
        )
        results = vast_scores(
            bank.get(list(rated["word"]), pooling),
            rated["valence"].to_numpy(),
            bank.get(study.present(pair.positive), pooling),
            bank.get(study.present(pair.negative), pooling),
        )
        rows += correlation_rows(
            results, bank.layers, lexicon=name, language=lexicon.language, template=template
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class VastInputs:
    """What a VAST run reads, read and checked before the model loads (:func:`read_vast_inputs`).

    Attributes
    ----------
    lexica
        The lexica of ``config.lexica`` (registered names or files), in order.
    warriner
        The registered Warriner lexicon for the tokenization experiment, when it is run and no
        lexicon given is called ``warriner``; None otherwise.
    similarity
        The similarity sets of ``config.similarity`` (registered names or files).
    """

    lexica: tuple[Lexicon, ...]
    warriner: Lexicon | None
    similarity: tuple[SimilaritySet, ...]

    def first(self, n: int) -> VastInputs:
        """The inputs with the first ``n`` words of each lexicon and the first ``n`` pairs of
        each similarity set (``--limit``, quick mode)."""
        return VastInputs(
            tuple(lexicon.first(n) for lexicon in self.lexica),
            None if self.warriner is None else self.warriner.first(n),
            tuple(replace(s, data=s.data.head(n).reset_index(drop=True)) for s in self.similarity),
        )

    def scored(self, *, static: bool) -> list[Lexicon]:
        """The lexica a run scores: the config's, then Warriner for the tokenization experiment
        (not run on static vectors)."""
        added = [self.warriner] if self.warriner is not None and not static else []
        return [*self.lexica, *added]


def read_vast_inputs(config: VastConfig) -> VastInputs:
    """Read and check every input of ``config`` before any model loads: its lexica (files are
    parsed whole, so a missing column or a rating that is not a number fails now), the registered
    Warriner lexicon when the tokenization experiment needs one, the multilingual lexica and the
    polar words of their languages, the template file and the similarity sets.

    Raises
    ------
    LexiconFormatError
        If a lexicon or template file is missing or malformed (naming the file and lines).
    FileEncodingError
        If a file is not in ``config.encoding``.
    EmptyInputError
        If a lexicon file has no entries.
    ResourceNotFoundError
        If a registered name is unknown (with close matches) or its data cannot be found, or a
        multilingual lexicon's language has no polar words.
    """
    from wordlens.contexts.valence import load_templates

    lexica = tuple(
        load_lexicon(name, duplicates=config.duplicates, encoding=config.encoding)
        for name in config.lexica
    )
    needs_warriner = config.tokenization and "warriner" not in {lx.name for lx in lexica}
    for name in config.multilingual:  # read again by the experiment (registered, small)
        _polar_pairs(["valence"], load_lexicon(name, duplicates=config.duplicates).language)
    if config.templates is not None:  # read again where the contexts are built (small)
        load_templates(config.templates, encoding=config.encoding)
    return VastInputs(
        lexica,
        load_lexicon("warriner") if needs_warriner else None,
        tuple(load_similarity(name) for name in config.similarity),
    )


def run_vast(
    model: WordEmbedder,
    config: VastConfig | None = None,
    *,
    inputs: VastInputs | None = None,
    cache: ActivationCache | None = None,
    progress: bool = False,
    limit: int | None = None,
) -> Run:
    """Run every VAST experiment of ``config`` on ``model``.

    Static models (GloVe, word2vec) have one layer and no context: only the bleached setting
    (the word itself) is run, which makes VAST the ValNorm test of Toney-Wails & Caliskan (2021).

    Parameters
    ----------
    model
        The loaded model (its BOS policy already chosen: :meth:`Vast.run
        <wordlens.methods.vast.Vast.run>` applies ``config.conventions``).
    config
        [the defaults] What to run; checked first (:meth:`VastConfig.check`).
    inputs
        The lexica and similarity sets of ``config``, already read (:func:`read_vast_inputs`,
        which :meth:`Vast.run <wordlens.methods.vast.Vast.run>` calls before the model loads);
        read here when None.
    cache
        Activation cache.
    progress
        Show progress bars while embedding.
    limit
        Quick mode (``--limit``): the first ``limit`` words of each lexicon (Warriner's for the
        tokenization experiment too), of each WEAT set and of the authors' PC population's
        lexica, the first ``limit`` pairs of each similarity set and at most ``limit`` sentences
        per probe; None: all (the paper's).

    Returns
    -------
    Run
        Method ``vast``; tables ``layers`` and ``nullification``, and ``tokenization``,
        ``weat``, ``similarity``, ``cola``, ``pos``, ``multilingual`` when run; metadata: model,
        config, layers and k chosen, PC population, words left out, conventions, contexts,
        timings.
    """
    from wordlens.methods.vast.similarity import run_similarity
    from wordlens.methods.vast.top_pcs import run_cola_probe, run_pos_probe

    config = config or VastConfig()
    config.check()
    inputs = inputs or read_vast_inputs(config)
    if limit is not None:
        inputs = inputs.first(limit)
    lexica = inputs.scored(static=model.info.kind == "static")
    dimensions = [d for lexicon in lexica for d in _dimensions(lexicon)]
    study = _Study(
        model, config, cache, progress, Timings(), lexica, _polar_pairs(["valence", *dimensions])
    )
    study.limit = limit
    for lexicon in lexica:
        study.cover(lexicon)
    weat_words = (
        [w for t in study.weat_tests() for ws in (t.x, t.y, t.a, t.b) for w in ws.words]
        if config.weat
        else []
    )
    _build_banks(study, weat_words)
    tables: dict[str, pd.DataFrame] = keep_tables({})
    with study.timings.stage("layers"):
        tables["layers"] = layers_experiment(study)
    pc_layers = nullification_layers(study, tables["layers"])
    _build_population_banks(study, pc_layers)
    with study.timings.stage("nullification"):
        tables["nullification"] = nullification_experiment(study, tables["layers"])
    k_best = _best_k(tables["nullification"], lexica[0].name)
    if config.tokenization and not study.static:
        with study.timings.stage("tokenization"):
            tables["tokenization"] = tokenization_experiment(study)
    if config.weat:
        with study.timings.stage("weat"):
            tables["weat"] = weat_experiment(study, pc_layers)
    top = study.bank("bleached").layers[-1]
    best = best_layer(tables["layers"], lexica[0].name, "bleached", primary_pooling(study.poolings))
    if config.similarity:
        with study.timings.stage("similarity"):
            tables["similarity"] = run_similarity(
                model,
                list(inputs.similarity),
                layers=config.layers,
                k_nullified=[None, k_best],
                pooling=primary_pooling(study.poolings),
                cache=cache,
                progress=progress,
            ).table
    if config.probes and not study.static:
        with study.timings.stage("probes"):
            k_values = sorted({1, 2, 4, 8, k_best} - {0})
            n_train, n_test = config.probe_sentences, config.probe_test_sentences
            if limit is not None:  # quick mode: at most limit sentences per probe
                n_train, n_test = (min(n or limit, limit) for n in (n_train, n_test))
            tables["cola"] = run_cola_probe(
                model, k_values, n_train=n_train, n_test=n_test, seed=config.seed, cache=cache
            ).table
            tables["pos"] = run_pos_probe(
                model, k_values, n_train=n_train, n_test=n_test, seed=config.seed, cache=cache
            ).table
    if config.multilingual:
        with study.timings.stage("multilingual"):
            tables["multilingual"] = multilingual_experiment(study)
    metadata = {
        "method": "VAST (Wolfe & Caliskan 2022)",
        "model": model.info.as_dict(),
        "config": config_values(config),
        "settings_run": list(study.settings),
        "poolings_run": list(study.poolings),
        "top_layer": top,
        "best_bleached_layer": best,
        "k_best": k_best,
        "pc_population": _population_metadata(study),
        "lexicon_words": study.coverage,
        "conventions": {
            "bos": bos_convention(model.info, "vast"),
            "random_setting": random_setting_summary(study.reports),
        },
        "polar_words": {
            d: {"positive": p.positive, "negative": p.negative} for d, p in study.polar.items()
        },
        "contexts": study.reports,
        "timings_s": study.timings.seconds,
    }
    return Run("vast", tables, metadata)


def random_setting_summary(reports: Mapping[str, Any]) -> str | None:
    """One line: how many words had no corpus sentence in the random setting and what happened to
    them (None when the random setting was not run)."""
    parts = []
    for key, what in (("random_contexts", "words"), ("random_contexts_pc_population", "")):
        drawn = reports.get(key)
        if drawn is None:
            continue
        missing, total = len(drawn["without_corpus_context"]), drawn["n_words"]
        where = f"{what} " if what else "words of the PC population "
        parts.append(f"{missing:,} of {total:,} {where}had no corpus sentence")
    if not parts:
        return None
    policy = reports["random_contexts"]["policy"]
    return f"{'; '.join(parts)}: {policy} (none dropped)"


def _population_metadata(study: _Study) -> dict[str, Any]:
    """Name, description and size of the PC population(s), for results and the report."""
    if study.config.pc_population == "authors":
        return study.population_info
    populations = [study.population_for(lexicon) for lexicon in study.lexica]
    return {
        "name": "lexicon",
        "description": "; ".join(population.description for population in populations),
        "n_rows": {
            lexicon.name: len(study.present(population.words))
            + len(study.present(population.polar_words))
            for lexicon, population in zip(study.lexica, populations, strict=True)
        },
    }


def _best_k(nullification: pd.DataFrame, lexicon: str) -> int:
    """k with the highest bleached valence VAST at the top layer (the paper's "after" point)."""
    return argmax_of(
        nullification,
        "k",
        lexicon=lexicon,
        dimension="valence",
        setting="bleached",
        layer_role="top",
        representation="nullified",
    )
