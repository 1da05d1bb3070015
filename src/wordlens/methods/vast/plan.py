"""VAST's plan (:mod:`wordlens.plan`): its stages, their work and their estimated time.

The stages are those :func:`~wordlens.methods.vast.experiments.run_vast` records: the contexts
and the embedding of the lexicon, polar and WEAT words in each setting, ``layers``, the PC
population's contexts and embedding (the authors' population), ``nullification``, ``weat``, and
the experiments estimated by their work only (``tokenization``, ``similarity``, ``probes``,
``multilingual``). Calibration, on :data:`SAMPLE_WORDS` words drawn with the run's seed:

- contexts: the sample's contexts are built in two calls of different sizes after a warm-up
  (:class:`wordlens.plan.LinearCost`: a fixed cost per call plus a cost per word); the random
  setting's, one scan of the corpus that stops when every word has its sentence, is estimated
  by the sample's call (a linear fit extrapolated it 80-fold);
- embedding: the sample's contexts are embedded on the device the same way
  (:func:`wordlens.plan.embedding_cost`), and the stage's tokens are the sample's mean × its
  texts;
- ``layers``: one :func:`~wordlens.methods.vast.experiments.vast_scores` call on random vectors of
  the largest lexicon's size at every layer, × lexica, dimensions, settings and poolings;
- ``nullification``: one PC fit of the population's size (× the populations, settings and
  layers: the top and each lexicon's best, at most 1 + lexica) and one single-layer score per
  word, × the words, dimensions, settings, layers and the 2K + 1 versions;
- ``weat``: each WEAT test's permutation test on random vectors of its sizes with 1,000
  permutations, scaled to ``permutations``, plus its bootstrap interval, × its versions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial

import numpy as np

from wordlens.contexts import Target
from wordlens.methods.vast.config import Setting, VastConfig
from wordlens.methods.vast.experiments import (
    VastInputs,
    _dimensions,
    _polar_pairs,
    setting_targets,
    template_valences,
    vast_scores,
)
from wordlens.methods.vast.population import authors_population
from wordlens.models.base import Pooling, WordEmbedder
from wordlens.plan import (
    LinearCost,
    Plan,
    PlannedStage,
    embedding_cost,
    forward_passes,
    seconds_per_call,
    token_counts,
)
from wordlens.resources import load_weat_tests
from wordlens.resources.lexica import Lexicon
from wordlens.resources.wordsets import WeatTest
from wordlens.stats import fit_principal_components, weat
from wordlens.stats.bootstrap import weat_effect_size_interval

SAMPLE_WORDS = 32
"""Words whose contexts are built and embedded to calibrate each setting."""

CALIBRATION_PERMUTATIONS = 1_000
"""Permutations of the timed WEAT test; its time is scaled to the run's count."""

POLAR_SIZE = 25
"""Pleasant and unpleasant words of the valence polar sets (Caliskan et al. 2017)."""


def plan_vast(model: WordEmbedder, config: VastConfig, inputs: VastInputs) -> Plan:
    """The stages of ``run_vast(model, config, inputs=inputs)`` and their estimated seconds on
    the model's device (module notes)."""
    started = time.perf_counter()
    static = model.info.kind == "static"
    lexica = inputs.scored(static=static)
    polar = _polar_pairs(["valence", *(d for lexicon in lexica for d in _dimensions(lexicon))])
    polar_words = [w for pair in polar.values() for w in pair.words]
    weat_tests = load_weat_tests() if config.weat else []
    weat_words = [w for t in weat_tests for ws in (t.x, t.y, t.a, t.b) for w in ws.words]
    lexicon_words = [w for lexicon in lexica for w in lexicon.data["word"].astype(str)]
    words = _present(model, [*lexicon_words, *polar_words, *weat_words])
    settings: list[Setting] = ["bleached"] if static else list(config.settings)
    if "misaligned" in settings and "aligned" not in settings:
        settings.append("aligned")
    poolings = (config.pooling[0],) if static else config.pooling
    layers = model.resolve_layers(config.layers)
    population = _population(model, config)
    rng = np.random.default_rng(config.seed)
    sample = [str(w) for w in rng.choice(words, min(SAMPLE_WORDS, len(words)), replace=False)]
    valence9 = template_valences(sample, lexica, polar["valence"])
    stages: list[PlannedStage] = []
    costs: dict[Setting, LinearCost] = {}
    for setting in settings:
        contexts, embedding, costs[setting] = _setting_stages(
            model, config, setting, sample, valence9, len(words), layers, poolings, ""
        )
        stages += [contexts, embedding]
    n_layers, dim = len(layers), model.info.hidden_size
    largest = max(len(lexicon.data) for lexicon in lexica)
    calls = sum(len(_dimensions(lexicon)) for lexicon in lexica) * len(settings) * len(poolings)
    per_call = seconds_per_call(lambda: _scores(rng, largest, n_layers, dim))
    stages.append(
        PlannedStage(
            "layers",
            {"calls": calls},
            calls * per_call,
            f"one score of {largest:,} words at {n_layers} layers timed: {per_call:.3f} s",
        )
    )
    pc_layers = min(1 + len(lexica), n_layers)
    if population is not None:
        for setting in settings:
            contexts, embedding, _ = _setting_stages(
                model,
                config,
                setting,
                sample,
                valence9,
                population,
                tuple(layers[:pc_layers]),
                poolings[:1],
                ":pc_population",
                costs[setting],
            )
            stages += [contexts, embedding]
    n_fit = population or len(words)
    stages.append(_nullification(rng, config, lexica, len(settings), pc_layers, n_fit, dim))
    if weat_tests:
        stages.append(_weat(rng, config, weat_tests, n_layers, pc_layers, dim))
    stages += _unestimated(config, inputs, static)
    device = str(model.info.details.get("device", "cpu"))
    return Plan("vast", device, tuple(stages), time.perf_counter() - started)


def _present(model: WordEmbedder, words: Sequence[str]) -> list[str]:
    distinct = list(dict.fromkeys(words))
    missing = set(model.missing_words(distinct, tell_apart=False))
    return [word for word in distinct if word not in missing]


def _population(model: WordEmbedder, config: VastConfig) -> int | None:
    """Rows the authors' PC population embeds (its words and its polar words), None for the
    lexicon population (no embedding of its own)."""
    if config.pc_population == "lexicon":
        return None
    every = _polar_pairs(["valence", "dominance", "arousal"])
    words = authors_population([w for pair in every.values() for w in pair.words])
    return len(_present(model, [*words.words, *words.polar_words]))


def _setting_stages(
    model: WordEmbedder,
    config: VastConfig,
    setting: Setting,
    sample: list[str],
    valence9: dict[str, float],
    n_texts: int,
    layers: Sequence[int],
    poolings: Sequence[Pooling],
    suffix: str,
    cost: LinearCost | None = None,
) -> tuple[PlannedStage, PlannedStage, LinearCost]:
    """The contexts and embedding stages of ``n_texts`` words in ``setting``, and the embedding
    cost (fitted on the sample's contexts unless ``cost`` is given)."""
    built: dict[str, Target] = {}

    def build(n: int) -> float:
        targets, _ = setting_targets(
            setting,
            sample[:n],
            valence9,
            seed=config.seed,
            templates=config.templates,
            encoding=config.encoding,
        )
        built.update(targets)
        return float(n)

    contexts = LinearCost.fitted(build, (2, max(1, len(sample) // 4), len(sample)))
    # the random setting finds every word's sentence in one scan of the corpus, which stops
    # when all are found: its cost does not grow by the word, so the sample's call stands for it
    scale = len(sample) if setting == "random" else n_texts
    texts = list(built.values())
    lengths = token_counts(model, [target.text for target in texts])
    if cost is None:
        cost = embedding_cost(model, texts, layers, poolings)
    tokens = round(float(np.mean(lengths)) * n_texts)
    passes = forward_passes(model, [lengths[i % len(lengths)] for i in range(n_texts)])
    work = {"texts": n_texts, "tokens": tokens}
    if passes is not None:
        work["forward_passes"] = passes
    return (
        PlannedStage(
            f"contexts:{setting}{suffix}",
            {"texts": n_texts},
            contexts.seconds(scale),
            f"contexts of {len(sample)} words built: {contexts.fixed:.2f} s + "
            f"{contexts.per_unit * 1e3:.2f} ms a word"
            + (", one corpus scan for all words" if setting == "random" else ""),
        ),
        PlannedStage(
            f"embed:{setting}{suffix}",
            work,
            cost.seconds(tokens),
            f"{len(texts)} of its texts embedded without the cache: {cost.fixed:.2f} s + "
            f"{cost.per_unit * 1e6:.0f} µs a token",
        ),
        cost,
    )


def _scores(rng: np.random.Generator, n_words: int, n_layers: int, dim: int) -> object:
    """One VAST score on random vectors of the run's shapes (for timing)."""
    return vast_scores(
        rng.standard_normal((n_words, n_layers, dim), dtype=np.float32),
        rng.standard_normal(n_words),
        rng.standard_normal((POLAR_SIZE, n_layers, dim), dtype=np.float32),
        rng.standard_normal((POLAR_SIZE, n_layers, dim), dtype=np.float32),
    )


def _nullification(
    rng: np.random.Generator,
    config: VastConfig,
    lexica: Sequence[Lexicon],
    n_settings: int,
    pc_layers: int,
    n_fit: int,
    dim: int,
) -> PlannedStage:
    """One PC fit of ``n_fit`` rows and one single-layer score timed, × their counts."""
    k_max = max(0, min(config.max_pcs, n_fit - 2, dim - 1))
    fit_on = rng.standard_normal((n_fit, dim))
    fit_s = seconds_per_call(lambda: fit_principal_components(fit_on, k_max), repeats=1)
    # one fit per population, setting and layer: the authors' population serves every lexicon
    populations = 1 if config.pc_population == "authors" else len(lexica)
    fits = populations * n_settings * pc_layers
    scored_words = sum(len(_dimensions(lx)) * len(lx.data) for lx in lexica)
    largest = max(len(lx.data) for lx in lexica)
    score_s = seconds_per_call(lambda: _scores(rng, largest, 1, dim))
    per_word = score_s / largest
    calls = n_settings * pc_layers * (2 * k_max + 1)
    estimate = fits * fit_s + calls * scored_words * per_word
    return PlannedStage(
        "nullification",
        {"decompositions": fits, "calls": calls * sum(len(_dimensions(lx)) for lx in lexica)},
        estimate,
        f"one fit of {n_fit:,} × {dim} ({fit_s:.3f} s) and one single-layer score timed, "
        f"at most {pc_layers} layers",
    )


def _weat(
    rng: np.random.Generator,
    config: VastConfig,
    tests: Sequence[WeatTest],
    n_layers: int,
    pc_layers: int,
    dim: int,
) -> PlannedStage:
    """Each test's permutation test and interval timed on random vectors of its sizes."""
    total = 0.0
    versions = 1 + pc_layers
    for test in tests:
        vectors = [
            rng.standard_normal((len(ws.words), n_layers, dim))
            for ws in (test.x, test.y, test.a, test.b)
        ]
        x, y, a, b = vectors
        permuted = seconds_per_call(
            partial(weat, x, y, a, b, n_samples=CALIBRATION_PERMUTATIONS, seed=0), repeats=1
        )
        interval = seconds_per_call(partial(weat_effect_size_interval, x, y, a, b, seed=0))
        scale = config.permutations / CALIBRATION_PERMUTATIONS
        total += versions * (permuted * scale + interval)
    n_tests = len(tests)
    return PlannedStage(
        "weat",
        {"permutations": n_tests * versions * config.permutations, "calls": n_tests * versions},
        total,
        f"each test timed with {CALIBRATION_PERMUTATIONS:,} permutations at {n_layers} layers",
    )


def _unestimated(config: VastConfig, inputs: VastInputs, static: bool) -> list[PlannedStage]:
    """The stages the plan lists by their work only."""
    why = "no calibration for this stage yet"
    stages = []
    if config.tokenization and not static:
        stages.append(PlannedStage("tokenization", {}, None, why))
    if inputs.similarity:
        pairs = sum(len(s) for s in inputs.similarity)
        stages.append(PlannedStage("similarity", {"texts": 2 * pairs}, None, why))
    if config.probes and not static:
        stages.append(PlannedStage("probes", {}, None, why))
    if config.multilingual:
        stages.append(PlannedStage("multilingual", {}, None, why))
    return stages
