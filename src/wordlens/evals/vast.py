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
- ``nullification``: VAST after mean subtraction and nullification of the top k PCs fitted on the
  union of lexicon and polar vectors at the layer, and with the top PCs only, at the top and best
  layers, k = 0..K (Table 1, Fig. 3);
- ``weat``: the ten WEAT tests per layer before and after nullification (Fig. 5).

Similarity tasks (Fig. 4), CoLA/POS probes and multilingual lexica reuse the same code path via
:mod:`wordlens.evals.similarity` and :mod:`wordlens.evals.top_pcs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.contexts import BLEACHED_TEMPLATE, Target, targets_from_template
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.base import Pooling, WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.resources import Lexicon, load_lexicon, load_weat_tests
from wordlens.results import Timings
from wordlens.stats import correlation_by_layer, fit_principal_components, sc_weat, weat

Setting = Literal["random", "bleached", "aligned", "misaligned"]
SETTINGS: tuple[Setting, ...] = ("random", "bleached", "aligned", "misaligned")
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
    """Tidy rows (one per layer) from correlation results, with identifying ``keys``."""
    return [
        {
            **keys,
            "layer": layer,
            "r": result.r,
            "ci_low": result.ci_low,
            "ci_high": result.ci_high,
            "p": result.p_value,
            "n": result.n,
        }
        for layer, result in zip(layers, results, strict=True)
    ]


@dataclass(frozen=True)
class VastConfig:
    """What ``wordlens vast`` runs; every field is a CLI option.

    Attributes
    ----------
    lexica
        Registered lexicon names or paths (English: bellezza, anew, warriner).
    settings
        Contextual settings (random, bleached, aligned, misaligned).
    poolings
        Subtoken poolings (first, last, mean, max).
    layers
        Hidden-state layers; None for all.
    max_pcs
        K of the nullification sweep k = 0..K.
    seed
        Seed of every random choice (corpus contexts, balancing, permutations).
    tokenization
        Run the singly vs multiply tokenized Warriner experiment.
    similarity
        Word-similarity sets to evaluate (empty to skip).
    weat
        Run the WEAT tests before/after nullification.
    probes
        Run the CoLA and POS probes of the top PCs.
    probe_sentences
        Training sentences per probe (None: all); the test splits are always used whole.
    multilingual
        Non-English lexica to run in the bleached setting with their own polar words.
    n_samples
        Permutations per WEAT test.
    templates
        A JSON file of aligned/misaligned templates replacing the packaged ones
        (:func:`wordlens.contexts.valence.load_templates`).
    """

    lexica: tuple[str, ...] = ("bellezza", "anew", "warriner")
    settings: tuple[Setting, ...] = SETTINGS
    poolings: tuple[Pooling, ...] = ("first", "last", "mean", "max")
    layers: tuple[int, ...] | None = None
    max_pcs: int = 12
    seed: int = 0
    tokenization: bool = True
    similarity: tuple[str, ...] = ("ws353", "simlex999", "rw", "men")
    weat: bool = True
    probes: bool = True
    probe_sentences: int | None = None
    multilingual: tuple[str, ...] = ()
    n_samples: int = 10_000
    templates: Path | None = None

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass
class VastRun:
    """Tables of one VAST run (experiment name → tidy DataFrame) and its metadata."""

    tables: dict[str, pd.DataFrame]
    metadata: dict[str, Any]


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


def setting_targets(
    setting: Setting,
    words: Sequence[str],
    valence9: Mapping[str, float],
    *,
    seed: int,
    template: str = BLEACHED_TEMPLATE,
    templates: Path | None = None,
) -> tuple[dict[str, Target], dict[str, Any]]:
    """Each word's context in ``setting``, and a report (coverage of the random setting).

    ``templates`` replaces the packaged aligned/misaligned templates (a JSON file, see
    :func:`wordlens.contexts.valence.load_templates`).
    """
    from wordlens.contexts.corpus import random_targets
    from wordlens.contexts.valence import aligned_targets, load_templates, misaligned_targets

    words = list(dict.fromkeys(words))
    if setting == "bleached":
        return dict(zip(words, targets_from_template(words, template), strict=True)), {}
    if setting in ("aligned", "misaligned"):
        build = aligned_targets if setting == "aligned" else misaligned_targets
        values = [valence9[word] for word in words]
        chosen = load_templates(templates)
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
    banks: dict[Setting, VectorBank] = field(default_factory=dict)
    reports: dict[str, Any] = field(default_factory=dict)

    @property
    def static(self) -> bool:
        return self.model.info.kind == "static"

    @property
    def settings(self) -> tuple[Setting, ...]:
        return ("bleached",) if self.static else self.config.settings

    @property
    def poolings(self) -> tuple[Pooling, ...]:
        return (self.config.poolings[0],) if self.static else self.config.poolings

    def bank(self, setting: Setting) -> VectorBank:
        return self.banks[setting]

    def polar_bank(self, setting: Setting) -> VectorBank:
        """Misaligned lexicon words are scored against polar words in the aligned setting."""
        return self.banks["aligned" if setting == "misaligned" else setting]

    def present(self, words: Iterable[str]) -> list[str]:
        """The distinct ``words`` the model can embed, in order."""
        distinct = list(dict.fromkeys(words))
        missing = set(self.model.missing_words(distinct))
        return [word for word in distinct if word not in missing]


def _polar_pairs(
    dimensions: Iterable[Dimension], language: str = "en"
) -> dict[Dimension, PolarPair]:
    from wordlens.contexts.polar import polar_sets

    pairs = {}
    for dimension in dict.fromkeys(dimensions):
        sets = polar_sets(dimension, language)
        pairs[dimension] = PolarPair(dimension, sets.a.words, sets.b.words)
    return pairs


def _dimensions(lexicon: Lexicon) -> list[Dimension]:
    return [d for d in ("valence", "dominance", "arousal") if d in lexicon.dimensions]


def _rated(study: _Study, lexicon: Lexicon, dimension: Dimension) -> pd.DataFrame:
    """The lexicon's words (present in the model) and ratings on ``dimension``."""
    from wordlens.contexts.polar import rated_words

    rated = rated_words(lexicon, dimension).drop_duplicates("word")
    keep = set(study.present(rated["word"]))
    return rated[rated["word"].isin(keep)].reset_index(drop=True)


def _build_banks(study: _Study, extra_words: Sequence[str]) -> None:
    """Embed lexicon, polar and extra (WEAT) words once in every setting needed."""
    words = study.present(
        [
            *(w for lexicon in study.lexica for w in lexicon.data["word"].astype(str)),
            *(w for pair in study.polar.values() for w in pair.words),
            *extra_words,
        ]
    )
    needed: list[Setting] = list(study.settings)
    if "misaligned" in needed and "aligned" not in needed:
        needed.append("aligned")
    valence9: dict[str, float] = {}
    if {"aligned", "misaligned"} & set(needed):
        valence_pair = study.polar["valence"]
        reference = [lexicon for lexicon in _valence_reference(study.lexica)]
        valence9 = term_valences(
            words, reference, set(valence_pair.positive), set(valence_pair.negative)
        )
    for setting in needed:
        with study.timings.stage(f"contexts:{setting}"):
            targets, report = setting_targets(
                setting, words, valence9, seed=study.config.seed, templates=study.config.templates
            )
        if report:
            study.reports[f"{setting}_contexts"] = report
        with study.timings.stage(f"embed:{setting}"):
            study.banks[setting] = embed_bank(
                study.model,
                setting,
                targets,
                layers=study.config.layers,
                poolings=study.poolings,
                cache=study.cache,
                progress=study.progress,
            )


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


def nullification_experiment(study: _Study, layers_table: pd.DataFrame) -> pd.DataFrame:
    """VAST after nullifying k = 0..K top PCs, and with the top PCs only (Table 1, Fig. 3).

    At the top layer and the best bleached layer of each lexicon, the mean and principal
    directions are fitted on the union of the lexicon's and all polar words' vectors in the
    setting (as the authors' VAST.py); lexicon and polar vectors are then transformed with the
    same fit. ``k = 0`` is the mean-centred input (cosines change, so the score may differ from
    the raw one).
    """
    pooling = primary_pooling(study.poolings)
    rows: list[dict[str, Any]] = []
    top = study.bank("bleached").layers[-1]
    for lexicon in study.lexica:
        best = best_layer(layers_table, lexicon.name, "bleached", pooling)
        for setting in study.settings:
            bank, polar_bank = study.bank(setting), study.polar_bank(setting)
            polar_words = study.present(w for p in study.polar.values() for w in p.words)
            for layer in dict.fromkeys((top, best)):
                column = bank.layers.index(layer)
                lexicon_words = study.present(lexicon.data["word"].astype(str))
                own = bank.get(lexicon_words, pooling)[:, column]
                polar_vectors = polar_bank.get(polar_words, pooling)[:, column]
                k_max = min(study.config.max_pcs, len(lexicon_words) + len(polar_words) - 2)
                fitted = fit_principal_components(np.concatenate([own, polar_vectors]), k_max)
                row_of = {w: i for i, w in enumerate(lexicon_words)}
                polar_row = {w: i for i, w in enumerate(polar_words)}
                for k in range(k_max + 1):
                    for representation in ("nullified", "top") if k else ("nullified",):
                        transform = fitted.remove if representation == "nullified" else fitted.top
                        lexicon_t = transform(own, k)
                        polar_t = transform(polar_vectors, k)
                        for dimension in _dimensions(lexicon):
                            rated = _rated(study, lexicon, dimension)
                            pair = study.polar[dimension]
                            results = vast_scores(
                                lexicon_t[[row_of[w] for w in rated["word"]]][:, None],
                                rated[dimension].to_numpy(),
                                polar_t[[polar_row[w] for w in study.present(pair.positive)]][
                                    :, None
                                ],
                                polar_t[[polar_row[w] for w in study.present(pair.negative)]][
                                    :, None
                                ],
                            )
                            rows += correlation_rows(
                                results,
                                [layer],
                                lexicon=lexicon.name,
                                dimension=dimension,
                                setting=setting,
                                pooling=pooling,
                                layer_role="top" if layer == top else "best",
                                representation=representation,
                                k=k,
                            )
    return pd.DataFrame(rows)


def weat_experiment(study: _Study, k_after: int) -> pd.DataFrame:
    """The ten WEAT tests at every layer in the bleached setting, before (raw vectors) and after
    mean subtraction and nullification of ``k_after`` top PCs (paper Fig. 5).

    The PCs are fitted per layer on every word embedded in the bleached setting (lexica, polar
    and WEAT words), as the authors' VAST.py fits on its whole embedding dictionary.
    """
    pooling = primary_pooling(study.poolings)
    bank = study.bank("bleached")
    words = list(bank.targets)
    everything = bank.get(words, pooling)  # [n, L, d]
    k = min(k_after, len(words) - 2, everything.shape[2] - 1)
    fitted = fit_principal_components(everything, k)
    versions = {0: None, k: fitted.remove(everything, k)} if k else {0: None}
    row_of = {word: i for i, word in enumerate(words)}
    rows: list[dict[str, Any]] = []
    for test in load_weat_tests():
        sets = [study.present(ws.words) for ws in (test.x, test.y, test.a, test.b)]
        if not all(sets):
            continue
        for k_used, transformed in versions.items():
            source = everything if transformed is None else transformed
            vectors = [source[[row_of[w] for w in ws]] for ws in sets]
            outcome = weat(*vectors, n_samples=study.config.n_samples, seed=study.config.seed)
            for column, layer in enumerate(bank.layers):
                rows.append(
                    {
                        "test": test.id,
                        "title": test.title,
                        "layer": layer,
                        "k_nullified": k_used,
                        "pooling": pooling,
                        "effect_size": float(outcome.effect_size[column]),
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
    ones, groups balanced by seeded random removal (:func:`wordlens.contexts.polar.select_polar`).
    """
    from wordlens.contexts.polar import polar_sets, select_polar

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
        lexicon = load_lexicon(name)
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


def run_vast(
    model: WordEmbedder,
    config: VastConfig | None = None,
    *,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> VastRun:
    """Run every VAST experiment of ``config`` on ``model``.

    Static models (GloVe, word2vec) have one layer and no context: only the bleached setting
    (the word itself) is run, which makes VAST the ValNorm test of Toney-Wails & Caliskan (2021).
    """
    from wordlens.evals.similarity import run_similarity
    from wordlens.evals.top_pcs import run_cola_probe, run_pos_probe

    config = config or VastConfig()
    if not config.lexica:
        raise EmptyInputError("no lexicon selected")
    if not config.settings:
        raise EmptyInputError("no contextual setting selected")
    unknown = set(config.settings) - set(SETTINGS)
    if unknown:
        raise WordlensError(f"unknown setting(s) {sorted(unknown)}; choose from {SETTINGS}")
    lexica = [load_lexicon(name) for name in config.lexica]
    if config.tokenization and "warriner" not in config.lexica:
        lexica.append(load_lexicon("warriner"))
    dimensions = [d for lexicon in lexica for d in _dimensions(lexicon)]
    study = _Study(
        model, config, cache, progress, Timings(), lexica, _polar_pairs(["valence", *dimensions])
    )
    weat_words = (
        [w for t in load_weat_tests() for ws in (t.x, t.y, t.a, t.b) for w in ws.words]
        if config.weat
        else []
    )
    _build_banks(study, weat_words)
    tables: dict[str, pd.DataFrame] = {}
    with study.timings.stage("layers"):
        tables["layers"] = layers_experiment(study)
    with study.timings.stage("nullification"):
        tables["nullification"] = nullification_experiment(study, tables["layers"])
    k_best = _best_k(tables["nullification"], lexica[0].name)
    if config.tokenization and not study.static:
        with study.timings.stage("tokenization"):
            tables["tokenization"] = tokenization_experiment(study)
    if config.weat:
        with study.timings.stage("weat"):
            tables["weat"] = weat_experiment(study, k_best)
    top = study.bank("bleached").layers[-1]
    best = best_layer(tables["layers"], lexica[0].name, "bleached", primary_pooling(study.poolings))
    if config.similarity:
        with study.timings.stage("similarity"):
            tables["similarity"] = run_similarity(
                model,
                list(config.similarity),
                layers=config.layers,
                k_nullified=[None, k_best],
                pooling=primary_pooling(study.poolings),
                cache=cache,
                progress=progress,
            ).table
    if config.probes and not study.static:
        with study.timings.stage("probes"):
            k_values = sorted({1, 2, 4, 8, k_best} - {0})
            size = config.probe_sentences
            # probe_sentences caps the training split; the test splits are small and used whole
            tables["cola"] = run_cola_probe(
                model, k_values, n_train=size, seed=config.seed, cache=cache
            ).table
            tables["pos"] = run_pos_probe(
                model, k_values, n_train=size, seed=config.seed, cache=cache
            ).table
    if config.multilingual:
        with study.timings.stage("multilingual"):
            tables["multilingual"] = multilingual_experiment(study)
    metadata = {
        "method": "VAST (Wolfe & Caliskan 2022)",
        "model": model.info.as_dict(),
        "config": config.as_dict(),
        "settings_run": list(study.settings),
        "poolings_run": list(study.poolings),
        "top_layer": top,
        "best_bleached_layer": best,
        "k_best": k_best,
        "polar_words": {
            d: {"positive": p.positive, "negative": p.negative} for d, p in study.polar.items()
        },
        "contexts": study.reports,
        "timings_s": study.timings.seconds,
    }
    return VastRun(tables, metadata)


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
