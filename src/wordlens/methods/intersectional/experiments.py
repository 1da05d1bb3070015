r"""Biased attitude associations in an intersectional context (Omrani Sabbaghi et al. 2023).

The three experiments of the paper [1]_ on any model :func:`wordlens.load_model` accepts:

1. **Projection ValNorm** (section 5.1, Figure 2): at every layer, a valence direction is learned
   from the decontextualized vectors of the 25 pleasant and 25 unpleasant WEAT words
   (:func:`wordlens.stats.fit_direction`: linear SVC, unit coefficient vector, pleasant projects
   positive), and Pearson's r between a lexicon's human valence (Bellezza by default) and each
   word's scalar projection on it (eq. 1) is reported next to the cosine SC-WEAT ValNorm (Toney &
   Caliskan) of the same layer. Every word is embedded alone (after BOS for causal models) and,
   by default, its LAST subtoken is used, as in the authors' code.
2. **Differential bias** (sections 4.4 and 5.2, Table 2, Figure 3): the 4,096 combination phrases
   "a {c1} ... {c12} person", with "an" before "old" ("an old fat ... person"), equal to the
   authors' ``data/experiment-phrases/experiment2.txt`` (shivaomrani/LLM-Bias)
   (:func:`wordlens.contexts.intersectional.combination_phrases`); the
   vector of "person" at the top layer (any layer on request) is projected on the direction
   learned at that layer. Per bias, group A holds the projections of the phrases containing the
   first category and group B those containing the second (the same phrases with the category
   swapped); the projection SC-WEAT (eq. 2) is

   .. math:: d = \frac{\operatorname{mean}_{a \in A} \operatorname{comp}_{\vec{v}} \vec{a}
                       - \operatorname{mean}_{b \in B} \operatorname{comp}_{\vec{v}} \vec{b}}
                      {\operatorname{std}_{x \in A \cup B} \operatorname{comp}_{\vec{v}} \vec{x}}

   with the sample standard deviation (ddof=1); positive means the first category is more
   pleasant (stereotype-congruent in the paper's study). Category membership is by exact token.
3. **Strongest biases** (section 5.3, Figure 4): the permutation phrases of a subset of biases
   (race, sex, religion, gender, sexual orientation: 3,840); the top and bottom ``fraction``
   (10%: 384 each) of phrases by projection of "person", and for each category the percentage of
   those phrases that contain it (and per position before the target).

**p-values differ from the authors' code on purpose.** Their ``SC_WEAT_Projection`` draws 1,000
random permutations *with* replacement of the pooled groups and reports ``min(Phi(s), 1 - Phi(s))``
of a normal fitted to the permutation statistics. Here the groups are paired: each phrase of group
A has a twin in group B, the same phrase with the second category in place of the first, and
:func:`wordlens.stats.paired_permutation_test` swaps the two projections within a random subset
of the twin pairs. Pairing matters: the other categories move "person" too, and within a twin
pair they cancel; partitions of the pooled groups carry their spread
into the null distribution, so an unpaired test rejects a true null far less often than its level
(at p < 0.05: none of 600 simulated nulls with the paper's 12 biases, 0.7-1% with 8 in
``tests/stats/test_calibration.py``, where the paired test rejects 4.5-5%) and misses real
differences. It counts over ``N = permutations`` (default 10,000) distinct relabellings: the
observed one and ``N - 1`` drawn without replacement from a seeded generator (all ``2^n`` when
there are few): ``p_one_sided`` (tests "first more pleasant") is ``(b + 1) / N`` with ``b`` the
random relabellings whose mean difference exceeds the observed one, the observed one counted
(Phipson & Smyth 2010, "Permutation p-values should never be zero"; ``b / N`` when all are
enumerated), ``p_two_sided`` the share at least as extreme in either direction, the observed
relabelling included; no normal approximation. The smallest sampled p is ``1 / N`` (0.0001).
Bias-group membership is by exact token, where the authors' experiment-2 script uses substring
matching (``'male' in phrase`` also matches "female"); that bug is not reproduced.

References
----------
.. [1] Omrani Sabbaghi, S., Wolfe, R. & Caliskan, A. (2023). Evaluating Biased Attitude
   Associations of Language Models in an Intersectional Context. *AAAI/ACM Conference on AI,
   Ethics, and Society (AIES)*, 542-553.
.. [2] Toney, A. & Caliskan, A. (2021). ValNorm Quantifies Semantics to Reveal Consistent Valence
   Biases Across Languages and Over Centuries. *EMNLP 2021*.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.contexts.intersectional import (
    Bias,
    IntersectionalStudy,
    Phrase,
    combination_phrases,
    load_study,
    membership_table,
    permutation_phrases,
)
from wordlens.conventions import bos_convention
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.intersectional.config import (
    NAME,
    IntersectionalConfig,
    Pairing,
    check_fraction,
)
from wordlens.models.base import WordEmbedder, check_pooling
from wordlens.models.cache import ActivationCache
from wordlens.resources import (
    Lexicon,
    lexicon_coverage,
    load_lexicon,
    pleasant_unpleasant,
)
from wordlens.results import Run
from wordlens.stages import Timings, keep_tables
from wordlens.stats import (
    P_VALUE_RULE,
    PAIRED_P_VALUE_RULE,
    CorrelationResult,
    Direction,
    DirectionSettings,
    correlation_by_layer,
    effect_size,
    fit_direction,
    paired_permutation_test,
    permutation_test,
    sc_weat,
)

__all__ = [
    "IntersectionalConfig",
    "IntersectionalInputs",
    "NotContextualError",
    "config_study",
    "direction_settings",
    "fit_context_direction",
    "read_intersectional_inputs",
    "run_differential_bias",
    "run_intersectional",
    "run_projection_valnorm",
    "run_strongest_biases",
]

FloatArray = npt.NDArray[np.float64]
METHOD = "Omrani Sabbaghi, Wolfe & Caliskan (2023), intersectional valence bias"


class NotContextualError(WordlensError, ValueError):
    """A context experiment was asked of a static model, whose word vectors ignore context."""


def direction_settings(config: IntersectionalConfig) -> DirectionSettings:
    """How the valence direction is learned, from the config's SVC options.

    Raises
    ------
    WordlensError
        If ``svc_c`` is not positive or ``max_iter`` is below 1.
    """
    return DirectionSettings(
        c=config.svc_c,
        normalize_columns=config.normalize,
        class_weight=None if config.class_weight == "none" else "balanced",
        max_iter=config.max_iter,
        seed=config.seed,
    )


def config_study(config: IntersectionalConfig) -> IntersectionalStudy:
    """The config's study: ``config.study``'s file (the paper's study when None), with
    ``config.strongest`` as its experiment-3 subset when given.

    Raises
    ------
    StudyFormatError
        If the file cannot be read or the study is invalid (:func:`load_study`).
    """
    return load_study(config.study, strongest_biases=config.strongest, encoding=config.encoding)


@dataclass(frozen=True)
class IntersectionalInputs:
    """What an intersectional run reads, read and checked before the model loads
    (:func:`read_intersectional_inputs`).

    Attributes
    ----------
    study
        The config's study (:func:`config_study`).
    lexicon
        The ValNorm lexicon (a registered name or a file); None when the ValNorm experiment is
        not run.
    """

    study: IntersectionalStudy
    lexicon: Lexicon | None


def read_intersectional_inputs(config: IntersectionalConfig) -> IntersectionalInputs:
    """Read and check the study and the lexicon of ``config``, and the direction's settings,
    before any model loads.

    Raises
    ------
    StudyFormatError
        If the study file cannot be read or the study is invalid.
    LexiconFormatError
        If the lexicon file is missing or malformed (naming the file and lines).
    ResourceNotFoundError
        If the lexicon name is not registered.
    WordlensError
        If ``svc_c`` is not positive or ``max_iter`` is below 1.
    """
    direction_settings(config)
    lexicon = (
        load_lexicon(config.lexicon, duplicates=config.duplicates, encoding=config.encoding)
        if "valnorm" in config.experiments
        else None
    )
    return IntersectionalInputs(config_study(config), lexicon)


def config_metadata(
    config: IntersectionalConfig, study: IntersectionalStudy, settings: DirectionSettings
) -> dict[str, Any]:
    """The run's ``config`` metadata: the options with the study and the direction's settings
    resolved (what the report's headline shows)."""
    return {
        "lexicon": config.lexicon,
        "duplicates": config.duplicates,
        "encoding": config.encoding,
        "layers": config.layers,
        "context_layer": config.context_layer,
        "pooling": config.pooling,
        "study": study.as_dict(),
        "direction": settings.as_dict(),
        "permutations": config.permutations,
        "seed": config.seed,
        "fraction": config.fraction,
        "experiments": list(config.experiments),
    }


def run_projection_valnorm(
    model: WordEmbedder,
    config: IntersectionalConfig | None = None,
    *,
    lexicon: Lexicon | None = None,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> Run:
    """Projection ValNorm next to cosine SC-WEAT ValNorm, per layer (section 5.1, Figure 2).

    Lexicon and polar words are embedded alone in one call; at each layer the direction is fitted
    on the polar words, and Pearson's r (95% Fisher-z interval) of the lexicon's valence with the
    projections and with the SC-WEAT effect sizes (ddof=1) is computed over the same words.

    Parameters
    ----------
    model
        Any model; a static one has one layer.
    config
        [the defaults] The lexicon (``lexicon``, ``duplicates``, ``encoding``), ``layers``,
        ``pooling`` (``last``: the authors' last subtoken) and the direction's SVC options.
    lexicon
        A loaded :class:`~wordlens.resources.Lexicon` with valence, used instead of
        ``config.lexicon``.
    cache
        Activation cache for the embeddings.
    progress
        Show a progress bar.

    Returns
    -------
    Run
        Table ``valnorm``: per layer ``projection_r``, ``projection_ci_low``,
        ``projection_ci_high``, ``projection_p``, ``cosine_r`` (and its interval and p), ``n``
        (words correlated), ``train_accuracy``, ``flipped``, ``converged``. Metadata lists the
        lexicon and polar words the model lacks (dropped).

    Raises
    ------
    WordlensError
        If the lexicon has no valence column, or fewer than 3 of its words are embeddable.
    EmptyInputError
        If every pleasant or every unpleasant word is missing, or every lexicon word.
    """
    config = config or IntersectionalConfig()
    chosen = lexicon or load_lexicon(
        config.lexicon, duplicates=config.duplicates, encoding=config.encoding
    )
    if "valence" not in chosen.dimensions:
        raise WordlensError(f"lexicon {chosen.name!r} has no valence column")
    settings = direction_settings(config)
    missing = lexicon_coverage(chosen, model)["missing"]
    rated = chosen.data.drop_duplicates("word")
    pleasant, unpleasant, dropped = _polar_words(model)
    rated = rated[~rated["word"].isin(missing)]
    words = list(dict.fromkeys([*rated["word"].astype(str), *pleasant, *unpleasant]))
    embeddings = model.embed_words(
        words, config.layers, check_pooling(config.pooling), cache=cache, progress=progress
    )
    lexicon_vectors, pleasant_vectors, unpleasant_vectors = (
        _rows_of(embeddings.vectors, words, group)
        for group in (list(rated["word"].astype(str)), pleasant, unpleasant)
    )  # [n_words, n_layers, d] each
    direction = fit_direction(pleasant_vectors, unpleasant_vectors, settings)
    valence = rated["valence"].to_numpy(dtype=np.float64)
    projection = correlation_by_layer(direction.project(lexicon_vectors), valence)
    cosine = correlation_by_layer(
        sc_weat(lexicon_vectors, pleasant_vectors, unpleasant_vectors), valence
    )
    table = pd.DataFrame(
        [
            {
                "layer": layer,
                **_correlation_columns("projection", projection[index]),
                **_correlation_columns("cosine", cosine[index]),
                "n": projection[index].n,
                "train_accuracy": float(direction.train_accuracy[index]),
                "flipped": bool(direction.flipped[index]),
                "converged": bool(direction.converged[index]),
            }
            for index, layer in enumerate(embeddings.layers)
        ]
    )
    metadata = {
        "lexicon": chosen.name,
        "pooling": config.pooling,
        "direction": settings.as_dict(),
        "n_lexicon_words": len(rated),
        "n_lexicon_words_given": len(rated) + len(missing),
        "missing_lexicon_words": sorted(missing),
        "missing_polar_words": dropped,
    }
    return Run(NAME, {"valnorm": table}, metadata)


def fit_context_direction(
    model: WordEmbedder,
    config: IntersectionalConfig | None = None,
    *,
    cache: ActivationCache | None = None,
) -> Direction:
    """The valence direction at ``config.context_layer``, from the polar words embedded alone
    (section 4.1), with the config's pooling and SVC options.

    Returns
    -------
    Direction
        One layer (``vectors`` of shape ``[1, d]``), for projecting ``[n, 1, d]`` vectors.
    """
    config = config or IntersectionalConfig()
    pleasant, unpleasant, _ = _polar_words(model)
    resolved = model.resolve_layers([config.context_layer])
    embeddings = model.embed_words(
        [*pleasant, *unpleasant], resolved, check_pooling(config.pooling), cache=cache
    )
    split = len(pleasant)
    return fit_direction(
        embeddings.vectors[:split], embeddings.vectors[split:], direction_settings(config)
    )


def run_differential_bias(
    model: WordEmbedder,
    study: IntersectionalStudy | None = None,
    config: IntersectionalConfig | None = None,
    *,
    direction: Direction | None = None,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> Run:
    """Projection SC-WEAT (eq. 2) of each bias over the combination phrases (Table 2, Figure 3).

    Parameters
    ----------
    model
        A contextual model.
    study
        Biases, template and target, used as given; None for the config's
        (:func:`config_study`: the paper's 12 biases by default, 4,096 phrases).
    config
        [the defaults] ``context_layer`` (of the target vectors and of the direction; -1 is the
        top layer), ``pooling``, the direction's SVC options (if ``direction`` is not given),
        ``permutations`` (relabellings of the twin pairs; all are enumerated when fewer exist;
        at least 1) and
        ``seed`` (the same seed gives the same p-values).
    direction
        A one-layer direction fitted at the context layer (:func:`fit_context_direction`), to
        reuse.
    cache
        Activation cache for the embeddings.
    progress
        Show a progress bar.

    Returns
    -------
    Run
        Table ``differential``, one row per bias in study order: ``bias``, ``first``, ``second``,
        ``test`` ("first vs. second"), ``n_a``, ``n_b``, ``mean_a``, ``mean_b`` (mean projections
        of "person"), ``std`` (over A ∪ B, ddof=1), ``effect_size``, ``p_one_sided``,
        ``p_two_sided``, ``n_permutations``, ``exact``, ``seed``, ``layer``. Table
        ``combination_projections``: ``phrase``, ``projection``.

    Raises
    ------
    NotContextualError
        For a static model.
    WordlensError
        For a causal model whose target precedes the categories, or an undefined direction.
    """
    config = config or IntersectionalConfig()
    study = study or config_study(config)
    phrases = combination_phrases(study)
    resolved, projections, direction = _target_projections(
        model, study, phrases, config, direction, cache, progress
    )
    differential = _differential_table(
        study, phrases, projections, config.permutations, config.seed, config.pairing
    )
    differential["layer"] = resolved
    metadata = {
        "study": study.as_dict(),
        "n_phrases": len(phrases),
        "layer": resolved,
        "pooling": config.pooling,
        "direction": _direction_summary(direction),
        "pairing": config.pairing,
        "p_value": (
            f"{PAIRED_P_VALUE_RULE} Departs from the paper (pairing 'pooled' gives its test "
            "over the pooled groups) and from the authors' normal approximation."
            if config.pairing == "twins"
            else f"{P_VALUE_RULE} The paper's test over the pooled groups (pairing 'pooled'), "
            "not the authors' normal approximation; it rejects a true null far less often than "
            "its level: pairing 'twins' is calibrated."
        ),
    }
    tables = {
        "differential": differential,
        "combination_projections": _projection_table(phrases, projections),
    }
    return Run(NAME, tables, metadata)


def run_strongest_biases(
    model: WordEmbedder,
    study: IntersectionalStudy | None = None,
    config: IntersectionalConfig | None = None,
    *,
    direction: Direction | None = None,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> Run:
    """Categories over-represented among the most and least pleasant phrases (section 5.3, Fig. 4).

    The permutation phrases of the study's ``strongest_biases`` are ranked by the projection of
    the target's vector on the valence direction (descending; ties keep phrase order, so the
    ranking is deterministic); the top and bottom ``floor(fraction * n)`` phrases form the two
    groups.

    Parameters
    ----------
    model
        A contextual model.
    study
        Biases, template, target and the biases to permute (``strongest_biases``), used as
        given; None for the config's (:func:`config_study`: the paper's study by default, race,
        sex, religion, gender, sexual orientation permuted: 3,840 phrases).
    config
        [the defaults] ``fraction`` (share of phrases in each group, in (0, 0.5]), and
        ``context_layer``, ``pooling`` and the SVC options as :func:`run_differential_bias`.
    direction, cache, progress
        As :func:`run_differential_bias`.

    Returns
    -------
    Run
        Tables ``strongest_categories`` (``bias``, ``category``, ``pct_top``, ``pct_bottom``,
        ``n_top``, ``n_bottom``: phrases of each group containing the category, and ``pct_all``,
        its share of all phrases), ``strongest_positions`` (the same per ``position`` 1..k of the
        category before the target) and ``strongest_projections`` (``phrase``, ``projection``,
        ``rank`` 1 = most pleasant, ``group`` top/bottom/empty).

    Raises
    ------
    NotContextualError
        For a static model.
    WordlensError
        If ``fraction`` is outside (0, 0.5] or selects no phrase, or as
        :func:`run_differential_bias`.
    """
    config = config or IntersectionalConfig()
    fraction = config.fraction
    check_fraction(fraction)
    study = study or config_study(config)
    phrases = permutation_phrases(study)
    n_selected = int(np.floor(fraction * len(phrases)))
    if n_selected < 1:
        raise WordlensError(
            f"fraction {fraction} of {len(phrases)} phrases selects none; raise the fraction"
        )
    resolved, projections, direction = _target_projections(
        model, study, phrases, config, direction, cache, progress
    )
    ranking = np.argsort(-projections, kind="stable")
    groups = {
        "top": ranking[:n_selected],
        "bottom": np.argsort(projections, kind="stable")[:n_selected],
    }
    chosen = [study.bias(name) for name in study.strongest_biases]
    projection_table = _projection_table(phrases, projections)
    projection_table["rank"] = np.argsort(ranking) + 1
    projection_table["group"] = ""
    for name, members in groups.items():
        projection_table.loc[members, "group"] = name
    tables = {
        "strongest_categories": _category_shares(chosen, phrases, groups),
        "strongest_positions": _position_shares(chosen, phrases, groups),
        "strongest_projections": projection_table,
    }
    metadata = {
        "study": study.as_dict(),
        "permuted_biases": [bias.name for bias in chosen],
        "n_phrases": len(phrases),
        "fraction": fraction,
        "n_per_group": n_selected,
        "layer": resolved,
        "pooling": config.pooling,
        "direction": _direction_summary(direction),
    }
    return Run(NAME, tables, metadata)


def run_intersectional(
    model: WordEmbedder,
    config: IntersectionalConfig | None = None,
    *,
    study: IntersectionalStudy | None = None,
    lexicon: Lexicon | None = None,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> Run:
    """Run the experiments of ``config`` on ``model``, recording timings.

    The context experiments share one direction, fitted at ``config.context_layer``.

    Parameters
    ----------
    model
        Any model (a static one runs the ValNorm experiment only).
    config
        [the defaults] The method's options.
    study
        A study object used as given, instead of the config's (:func:`config_study`:
        ``config.study``'s file or the paper's study, ``config.strongest`` applied).
    lexicon
        The ValNorm lexicon used as given, instead of the config's (``config.lexicon``).
    cache
        Activation cache for the embeddings.
    progress
        Show progress bars.

    Returns
    -------
    Run
        The tables of the experiments run (see :func:`run_projection_valnorm`,
        :func:`run_differential_bias`, :func:`run_strongest_biases`); metadata: the model, the
        resolved ``config`` (study and direction settings), BOS convention, each experiment's
        own metadata under ``experiments`` and the timings.

    Raises
    ------
    NotContextualError
        If a context experiment is requested for a static model (run ``experiments=("valnorm",)``).
    EmptyInputError
        If no experiment is selected.
    WordlensError
        For an unknown experiment name, or as the experiments raise.
    """
    config = config or IntersectionalConfig()
    config.check()
    settings = direction_settings(config)
    study = study or config_study(config)
    if set(config.experiments) - {"valnorm"}:
        _require_contextual(model)
    timings = Timings()
    tables: dict[str, pd.DataFrame] = keep_tables({})
    sections: dict[str, Any] = {}
    if "valnorm" in config.experiments:
        with timings.stage("valnorm"):
            valnorm = run_projection_valnorm(
                model, config, lexicon=lexicon, cache=cache, progress=progress
            )
        tables |= valnorm.tables
        sections["valnorm"] = valnorm.metadata
    direction: Direction | None = None
    if set(config.experiments) - {"valnorm"}:
        with timings.stage("direction"):
            direction = fit_context_direction(model, config, cache=cache)
    if "differential" in config.experiments:
        with timings.stage("differential"):
            differential = run_differential_bias(
                model, study, config, direction=direction, cache=cache, progress=progress
            )
        tables |= differential.tables
        sections["differential"] = differential.metadata
    if "strongest" in config.experiments:
        with timings.stage("strongest"):
            strongest = run_strongest_biases(
                model, study, config, direction=direction, cache=cache, progress=progress
            )
        tables |= strongest.tables
        sections["strongest"] = strongest.metadata
    metadata = {
        "method": METHOD,
        "model": model.info.as_dict(),
        "config": config_metadata(config, study, settings),
        "context_layer": model.resolve_layers([config.context_layer])[0],
        "conventions": {"bos": bos_convention(model.info, "intersectional")},
        "experiments": sections,
        "timings_s": timings.seconds,
    }
    return Run(NAME, tables, metadata)


def _require_contextual(model: WordEmbedder) -> None:
    if model.info.kind == "static":
        raise NotContextualError(
            f"{model.info.name} is a static embedding: the vector of the target word is the same "
            "in every phrase, so the differential and strongest-bias experiments need a "
            "contextual model; run only the projection ValNorm (experiments=('valnorm',), "
            "--experiments valnorm)"
        )


def _polar_words(model: WordEmbedder) -> tuple[list[str], list[str], list[str]]:
    """The pleasant and unpleasant WEAT words the model can embed, and those it cannot."""
    polar = pleasant_unpleasant("en")
    missing = set(model.missing_words([*polar.pleasant, *polar.unpleasant]))
    pleasant = [word for word in polar.pleasant if word not in missing]
    unpleasant = [word for word in polar.unpleasant if word not in missing]
    if not pleasant or not unpleasant:
        raise EmptyInputError(f"{model.info.name} lacks every pleasant or every unpleasant word")
    return pleasant, unpleasant, sorted(missing)


def _target_projections(
    model: WordEmbedder,
    study: IntersectionalStudy,
    phrases: Sequence[Phrase],
    config: IntersectionalConfig,
    direction: Direction | None,
    cache: ActivationCache | None,
    progress: bool,
) -> tuple[int, FloatArray, Direction]:
    """The resolved context layer, the projections ``[n_phrases]`` of the target's vector in
    each phrase (one ``embed`` call), and the direction used (fitted if not given)."""
    _require_contextual(model)
    _check_target_sees_categories(model, study)
    resolved = model.resolve_layers([config.context_layer])[0]
    if direction is None:
        direction = fit_context_direction(model, config, cache=cache)
    if direction.n_layers != 1 or not direction.defined.all():
        raise WordlensError(
            f"the valence direction at layer {resolved} is undefined or not a single layer "
            "(the polar words' vectors do not vary there)"
        )
    embeddings = model.embed(
        [phrase.target for phrase in phrases],
        layers=[resolved],
        pooling=check_pooling(config.pooling),
        cache=cache,
        progress=progress,
    )  # vectors [n_phrases, 1, d]
    return resolved, direction.project(embeddings.vectors)[:, 0], direction


def _check_target_sees_categories(model: WordEmbedder, study: IntersectionalStudy) -> None:
    """A causal model's target sees only earlier tokens: it must come after the categories."""
    if model.info.kind == "causal" and not study.target_after_categories:
        raise WordlensError(
            f"{model.info.name} is causal: the target {study.target!r} must follow the categories "
            f"in the template to be influenced by them; got {study.template!r}"
        )


def _differential_table(
    study: IntersectionalStudy,
    phrases: Sequence[Phrase],
    projections: FloatArray,
    n_samples: int,
    seed: int,
    pairing: Pairing = "twins",
) -> pd.DataFrame:
    """Eq. 2 and its paired permutation test for every bias (groups by exact category token);
    with ``pairing="pooled"`` the paper's unpaired test
    (:func:`~wordlens.stats.permutation_test` over partitions of A ∪ B) instead.

    Group A of a bias holds the phrases with its first category, group B their twins: the same
    phrases with the second category in its place (:func:`twin_rows`). The p-values come from
    :func:`~wordlens.stats.paired_permutation_test`, which swaps the two projections within a
    random subset of the twin pairs: a twin pair shares every other category, so the spread
    those categories give the projections cancels within it. (An unpaired test, partitioning
    A ∪ B, carries that spread into its null distribution: under a true null it rejects far
    less often than its level; ``tests/stats/test_calibration.py``.) In the combination
    design all biases have groups of one size and are tested as the columns of one test; its
    random relabellings do not depend on the number of columns, so each bias gets the p-values
    of its own call with the same seed, at a twelfth of the cost.
    """
    twins = twin_rows(study, phrases)  # [n_pairs, n_biases, 2]
    group_a, group_b = projections[twins[..., 0]], projections[twins[..., 1]]  # [n, n_biases]
    tested = paired_permutation_test if pairing == "twins" else permutation_test
    test = tested(group_a, group_b, n_samples=n_samples, seed=seed)
    return pd.DataFrame(
        {
            "bias": [bias.name for bias in study.biases],
            "first": [bias.first for bias in study.biases],
            "second": [bias.second for bias in study.biases],
            "test": [bias.label for bias in study.biases],
            "n_a": len(group_a),
            "n_b": len(group_b),
            "mean_a": group_a.mean(axis=0),
            "mean_b": group_b.mean(axis=0),
            "std": np.concatenate([group_a, group_b]).std(axis=0, ddof=1),
            "effect_size": effect_size(group_a, group_b, axis=0, ddof=1),
            "p_one_sided": test.p_one_sided,
            "p_two_sided": test.p_two_sided,
            "n_permutations": test.n_partitions,
            "exact": test.exact,
            "seed": seed,
        }
    )


def twin_rows(study: IntersectionalStudy, phrases: Sequence[Phrase]) -> npt.NDArray[np.intp]:
    """For each bias, the combination phrases with its first category (in phrase order) and
    their twins, the phrases that differ only in having the second category instead.

    Returns
    -------
    numpy.ndarray of int, shape ``[n_pairs, n_biases, 2]``
        ``[i, k, 0]``: the row of the ``i``-th phrase containing bias ``k``'s first category;
        ``[i, k, 1]``: the row of its twin.

    Raises
    ------
    WordlensError
        If a phrase with a first category has no twin among `phrases` (not the combination
        phrases of `study`).
    """
    members = membership_table(phrases, study.categories)
    row_of = {phrase.categories: row for row, phrase in enumerate(phrases)}
    columns = []
    for bias in study.biases:
        rows = np.flatnonzero(members[bias.first].to_numpy()).tolist()
        twins = []
        for row in rows:
            swapped = tuple(
                bias.second if category == bias.first else category
                for category in phrases[row].categories
            )
            if swapped not in row_of:
                raise WordlensError(
                    f"the phrase {phrases[row].text!r} has no twin with {bias.second!r} in place "
                    f"of {bias.first!r}: the differential test needs the combination phrases"
                )
            twins.append(row_of[swapped])
        columns.append(np.array([rows, twins], dtype=np.intp).T)
    return np.stack(columns, axis=1)


def _category_shares(
    biases: Sequence[Bias], phrases: Sequence[Phrase], groups: dict[str, npt.NDArray[np.intp]]
) -> pd.DataFrame:
    """Per category: percentage of each group's phrases (and of all phrases) containing it."""
    rows = []
    for bias in biases:
        for category in bias.categories:
            contains = np.array([phrase.contains(category) for phrase in phrases])
            row: dict[str, Any] = {"bias": bias.name, "category": category}
            for name, members in groups.items():
                row[f"n_{name}"] = int(contains[members].sum())
                row[f"pct_{name}"] = 100.0 * float(contains[members].mean())
            row["pct_all"] = 100.0 * float(contains.mean())
            rows.append(row)
    return pd.DataFrame(rows)


def _position_shares(
    biases: Sequence[Bias], phrases: Sequence[Phrase], groups: dict[str, npt.NDArray[np.intp]]
) -> pd.DataFrame:
    """Per category and position (1 = first word of the slot): percentage of each group's
    phrases with that category at that position."""
    n_positions = len(phrases[0].categories)
    rows = []
    for bias in biases:
        for category in bias.categories:
            for position in range(n_positions):
                at = np.array([phrase.categories[position] == category for phrase in phrases])
                row: dict[str, Any] = {
                    "bias": bias.name,
                    "category": category,
                    "position": position + 1,
                }
                for name, members in groups.items():
                    row[f"pct_{name}"] = 100.0 * float(at[members].mean())
                rows.append(row)
    return pd.DataFrame(rows)


def _projection_table(phrases: Sequence[Phrase], projections: FloatArray) -> pd.DataFrame:
    return pd.DataFrame({"phrase": [phrase.text for phrase in phrases], "projection": projections})


def _correlation_columns(prefix: str, result: CorrelationResult) -> dict[str, float]:
    return {
        f"{prefix}_r": result.r,
        f"{prefix}_ci_low": result.ci_low,
        f"{prefix}_ci_high": result.ci_high,
        f"{prefix}_p": result.p_value,
    }


def _direction_summary(direction: Direction) -> dict[str, Any]:
    return {
        **direction.settings.as_dict(),
        "train_accuracy": float(direction.train_accuracy[0]),
        "flipped": bool(direction.flipped[0]),
        "converged": bool(direction.converged[0]),
        "n_iter": int(direction.n_iter[0]),
        "n_positive": direction.n_positive,
        "n_negative": direction.n_negative,
    }


def _rows_of(
    vectors: npt.NDArray[np.float32], words: Sequence[str], chosen: Sequence[str]
) -> npt.NDArray[np.float32]:
    """The rows ``[len(chosen), ...]`` of ``vectors`` (one row per word of ``words``)."""
    row = {word: index for index, word in enumerate(words)}
    return vectors[[row[word] for word in chosen]]
