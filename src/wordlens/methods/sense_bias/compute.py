r"""Social biases in sense embeddings (Zhou, Kaneko & Bollegala 2022): WEAT, WAT and gender
directions, each at the sense level and at the word level.

Sense vectors come from a file of static sense embeddings (LMMS, ARES) or are built from any
wordlens model (:func:`wordlens.models.senses.build_sense_vectors`); word vectors are the mean of
a word's sense vectors (eq. 7), "simulating the situation where the resultant embeddings are
word-specific but not sense-specific, while still being comparable to the original sense
embeddings in the same vector space" (section 6.1). A sense-insensitive model (e.g. GloVe) can
be added as a *baseline*: its own word vectors go through the same tests on the same words.

1. **WEAT with sense ids** (section 3, Table 2): each word of WEAT tests 1, 2, 7, 8 and 9 gets
   the WordNet sense the test means (:func:`~wordlens.resources.sense_assignments
   .weat_sense_assignments`); the test (:func:`wordlens.stats.weat`: effect size with the sample
   standard deviation, eq. 3; permutation p-values) runs once on those sense vectors and once on
   the eq. 7 word vectors of the same words. Words without an assigned sense (pronouns) or
   without vectors are dropped from both.

   The paper's eq. 2 prints ``max`` over the attribute words where WEAT (Caliskan et al. 2017,
   whose test and effect size eqs. 1 and 3 restate) takes the mean; its released code
   (``weat-sense.py``) averages too, so the standard mean association is used here.
2. **WAT** (section 3): a reference gender score per word from an association graph
   (``log(b_m / b_f)``, label propagation, :mod:`wordlens.stats.propagation`) is correlated
   (Pearson) with the embedding's gender score, eq. 4,

   .. math:: \frac{1}{|L|} \sum_{i=1}^{|L|} \left(\cos(w, w_m^i) - \cos(w, w_f^i)\right),

   over the seed pairs ``L`` (Du et al.'s 10: he/she, father/mother, ...). At the sense level
   ``cos(w, a)`` is the maximum over all pairs of a sense of ``w`` and a sense of ``a``,
   ``max_{i,j} cos(s_i, a_j)``; at the word level the eq. 7 vectors are compared. The reference
   is Du et al.'s SWOW lexicon (``wat-du2019``), the paper's own file (``wat-zhou2022``), or a
   propagation run here on EAT or USF (seeded with the same 20 words, alpha 0.99, on the
   largest strongly connected component). Seed words are not correlated.
3. **Gender direction** (section 7, eq. 8, Figure 2): ``g = mean_{(m, f) in C} (m - f)`` over
   male-female pairs (GN-GloVe's 222 by default, as Kaneko & Bollegala 2019) with eq. 7 word
   vectors, and the cosine with ``g`` of each occupation's noun sense, verb sense and eq. 7 word
   vector (positive: male), with its 95% percentile bootstrap interval over the pairs (the pairs
   resampled, ``g`` and the cosines recomputed, the occupations' vectors fixed: how much a
   cosine depends on which pairs define ``g``). The baseline takes ``g`` from its own word
   vectors (no interval).
4. **SSSB on static vectors** (section 6.1, the six SSSB rows of Table 2): the authors' bootstrap
   score of *black* (ethnicity, colour), the nationalities' people and language senses and the
   occupations' noun and verb senses against pleasant/unpleasant adjectives or gender offsets
   (:mod:`wordlens.methods.sense_bias.static_sssb`, which cites their code line by line).
5. **Dimensionality** (section 6.1, Figure 1): WEAT with sense ids on the top layer's sense and
   eq. 7 word vectors reduced to several sizes (:func:`run_dimension_sweep`).

Everything but the sweep is computed at every layer of the sense vectors (one layer for static
files). :func:`table2` gathers the rows of the paper's Table 2 (WEAT x 5, WAT, SSSB x 6) at the
top layer, each row that was not computed saying why. The paper's published values are not
repeated here (no other wordlens table shows them either).

References
----------
.. [1] Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased -
   Evaluating Social Biases in Static and Contextualised Sense Embeddings. *ACL 2022*.
.. [2] Du, Y., Wu, Y. & Lan, M. (2019). Exploring Human Gender Stereotypes with Word Association
   Test. *EMNLP-IJCNLP 2019*.
.. [3] Caliskan, A., Bryson, J. J. & Narayanan, A. (2017). Semantics derived automatically from
   language corpora contain human-like biases. *Science* 356(6334), 183-186.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.sense_bias.config import NAME, WAT_REFERENCES, SenseBiasConfig, check_source
from wordlens.methods.sense_bias.static_sssb import (
    BLACK_SENSES,
    SSSB_ROWS,
    SssbItems,
    run_static_sssb,
    sssb_items,
    sssb_table2_rows,
)
from wordlens.methods.weat.config import WeatConfig
from wordlens.methods.weat.layers import run_weat
from wordlens.models.base import WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.models.senses import SenseVectors, build_sense_vectors, load_sense_vectors
from wordlens.options import config_values
from wordlens.resources import WeatTest, WordSet, load_weat_tests
from wordlens.resources.association_norms import (
    GENDER_LEXICA,
    NORMS,
    AssociationNorms,
    load_association_norms,
    load_gender_lexicon,
)
from wordlens.resources.gender_words import WAT_SEED_PAIRS, GenderPairs, load_gender_pairs
from wordlens.resources.sense_assignments import (
    OccupationSenses,
    SenseAssignments,
    occupation_senses,
    weat_sense_assignments,
)
from wordlens.resources.wordnet import WordNet, lemma_form, load_wordnet
from wordlens.results import Run
from wordlens.stages import Timings
from wordlens.stats import (
    CorrelationResult,
    WeatResult,
    correlation_by_layer,
    cosine_similarity,
    pearson,
    weat,
)
from wordlens.stats.bootstrap import (
    RESAMPLES,
    direction_cosine_interval,
    weat_effect_size_interval,
)
from wordlens.stats.propagation import largest_strong_component, log_ratio, propagate_labels

FloatArray = npt.NDArray[np.float64]
METHOD = "Zhou, Kaneko & Bollegala (2022), social biases in sense embeddings"

_ROLES = ("x", "y", "a", "b")


@dataclass(frozen=True)
class _Needs:
    """The words (WordNet lemmas) and sense keys the experiments need vectors for."""

    lemmas: tuple[str, ...]
    keys: tuple[str, ...]
    wat_words: tuple[str, ...]
    details: dict[str, Any]


# --- 1. WEAT with sense ids ----------------------------------------------------------------------


def run_sense_weat(
    senses: SenseVectors,
    tests: Sequence[WeatTest] | None = None,
    assignments: SenseAssignments | None = None,
    *,
    baseline: WordEmbedder | None = None,
    config: SenseBiasConfig | None = None,
) -> Run:
    """WEAT on the assigned sense vectors and on the eq. 7 word vectors of the same words.

    Parameters
    ----------
    senses
        Sense vectors holding the assigned senses and every sense of the words' lemmas.
    tests
        WEAT tests; those of ``assignments.tests`` (1, 2, 7, 8, 9) if None.
    assignments
        Word → sense key; :func:`weat_sense_assignments` if None.
    baseline
        A word-level model (e.g. GloVe) to run the same tests on, with the same words.
    config
        [the defaults] Its ``permutations``, ``seed`` and ``ddof`` (as ``n_samples``, ``seed``
        and ``ddof`` of :func:`wordlens.stats.weat`).

    Returns
    -------
    Run
        Table ``weat``: ``test``, ``title``, ``representation`` (``sense``, ``word`` or
        ``baseline``), ``layer``, ``effect_size``, ``effect_size_ci_low`` and ``_ci_high`` (its
        95% percentile bootstrap interval over the target words, seeded by ``seed``:
        :func:`wordlens.stats.bootstrap.weat_effect_size_interval`; NaN for the baseline),
        ``statistic``, ``p_one_sided``,
        ``p_two_sided``, ``n_x``, ``n_y``, ``n_a``, ``n_b``, ``n_partitions``, ``exact``,
        ``nan_reason`` (why d is NaN, ``""`` where it is a number).
        Metadata: the words kept and dropped per test.

    Raises
    ------
    EmptyInputError
        If a test loses every word of a set.
    """
    config = config or SenseBiasConfig()
    n_samples, seed, ddof = config.permutations, config.seed, config.ddof
    chosen = assignments or weat_sense_assignments()
    selected = list(tests) if tests is not None else load_weat_tests(chosen.tests)
    rows: list[dict[str, Any]] = []
    kept_tests: list[WeatTest] = []
    dropped: dict[str, dict[str, str]] = {}
    for test in selected:
        kept, lost = _sense_words(test, senses, chosen)
        dropped[str(test.id)] = lost
        kept_tests.append(_restricted(test, kept))
        keys = [[chosen.senses[word] for word in kept[role]] for role in _ROLES]
        sense_sets = [senses.sense_vectors(role_keys) for role_keys in keys]
        word_sets = [
            senses.word_vectors([k.split("%")[0] for k in role_keys]) for role_keys in keys
        ]
        for representation, sets in (("sense", sense_sets), ("word", word_sets)):
            outcome = weat(*sets, n_samples=n_samples, seed=seed, ddof=ddof)
            interval = weat_effect_size_interval(*sets, ddof=ddof, seed=seed)
            rows += _weat_rows(test, representation, senses.layers, outcome, sets, interval)
    table = pd.DataFrame(rows)
    if baseline is not None:
        table = pd.concat([table, _baseline_weat(baseline, kept_tests, n_samples, seed, ddof)])
    metadata = {
        "assignments": chosen.citation,
        "kept_words": {
            str(test.id): {name: list(words) for name, words in _role_words(test).items()}
            for test in kept_tests
        },
        "dropped_words": dropped,
        "permutations": n_samples,
        "seed": seed,
        "ddof": ddof,
    }
    return Run(NAME, {"weat": table.reset_index(drop=True)}, metadata)


def _sense_words(
    test: WeatTest, senses: SenseVectors, assignments: SenseAssignments
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """The words of each role that have an assigned sense in the store, and why others lack."""
    kept: dict[str, list[str]] = {}
    lost: dict[str, str] = {}
    for role, words in _role_words(test).items():
        kept[role] = []
        for word in words:
            reason = _missing_reason(word, senses, assignments)
            if reason is None:
                kept[role].append(word)
            else:
                lost[word] = reason
        if not kept[role]:
            raise EmptyInputError(
                f"WEAT test {test.id} ({test.title}): no word of set {role.upper()} has an "
                f"assigned sense in the sense vectors ({'; '.join(lost.values())})"
            )
    return kept, lost


def _missing_reason(word: str, senses: SenseVectors, assignments: SenseAssignments) -> str | None:
    if word in assignments.unassigned:
        return assignments.unassigned[word]
    if word not in assignments.senses:
        return "no sense assigned"
    key = assignments.senses[word]
    if key not in senses:
        return f"{key} is not in the sense vectors"
    return None


def _role_words(test: WeatTest) -> dict[str, tuple[str, ...]]:
    return {"x": test.x.words, "y": test.y.words, "a": test.a.words, "b": test.b.words}


def _restricted(test: WeatTest, kept: dict[str, list[str]]) -> WeatTest:
    """The test with only the kept words in each set."""

    def restrict(role: str, original: WordSet) -> WordSet:
        return WordSet(original.name, tuple(kept[role]))

    return replace(
        test,
        x=restrict("x", test.x),
        y=restrict("y", test.y),
        a=restrict("a", test.a),
        b=restrict("b", test.b),
    )


def _weat_rows(
    test: WeatTest,
    representation: str,
    layers: Sequence[int],
    outcome: WeatResult,
    sets: Sequence[npt.NDArray[np.float32]],
    interval: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
) -> list[dict[str, Any]]:
    low, high = (np.atleast_1d(end) for end in interval)
    return [
        {
            "test": test.id,
            "title": test.title,
            "representation": representation,
            "layer": layer,
            "effect_size": float(outcome.effect_size[column]),
            "effect_size_ci_low": float(low[column]),
            "effect_size_ci_high": float(high[column]),
            "statistic": float(outcome.statistic[column]),
            "p_one_sided": float(outcome.p_one_sided[column]),
            "p_two_sided": float(outcome.p_two_sided[column]),
            **{f"n_{role}": len(vectors) for role, vectors in zip(_ROLES, sets, strict=True)},
            "n_partitions": outcome.n_partitions,
            "exact": outcome.exact,
            "nan_reason": str(outcome.nan_reason[column]),
        }
        for column, layer in enumerate(layers)
    ]


def _baseline_weat(
    baseline: WordEmbedder, tests: list[WeatTest], n_samples: int, seed: int, ddof: int
) -> pd.DataFrame:
    """The same tests and words on the baseline's own top-layer word vectors (each word alone)."""
    config = WeatConfig(layers=(-1,), context="none", permutations=n_samples, seed=seed, ddof=ddof)
    return run_weat(baseline, tests, config).tables["weat"].assign(representation="baseline")


# --- 2. WAT -------------------------------------------------------------------------------------


def run_wat(
    senses: SenseVectors,
    reference: pd.Series,
    *,
    pairs: GenderPairs = WAT_SEED_PAIRS,
    baseline: WordEmbedder | None = None,
) -> Run:
    """Pearson's r of the reference gender scores with eq. 4 at the sense and word level.

    Parameters
    ----------
    senses
        Sense vectors holding every sense of the reference words and of the pair words.
    reference
        Gender score per word (index: word, e.g. a WAT lexicon or :func:`propagated_gender_scores`).
        Words without senses in the store, and the pair words themselves, are left out.
    pairs
        ``(male, female)`` pairs ``L`` of eq. 4; pairs with a word without senses are dropped.
    baseline
        A word-level model scored by eq. 4 on the same words (those in its vocabulary).

    Returns
    -------
    Run
        Table ``wat``: ``representation`` (``sense``, ``word``, ``baseline``), ``layer``, ``r``,
        ``p_value``, ``ci_low``, ``ci_high``, ``n``. Table ``wat_scores``: per ``word`` its
        ``reference`` score and the ``sense_score`` and ``word_score`` eq. 4 scores at the last
        layer (and ``baseline_score``).

    Raises
    ------
    EmptyInputError
        If no pair or fewer than 3 words remain.
    """
    kept_pairs = tuple(
        pair for pair in pairs if senses.has_word(pair[0]) and senses.has_word(pair[1])
    )
    if not kept_pairs:
        raise EmptyInputError(f"no gender pair has senses in the sense vectors: {list(pairs)}")
    seed_words = {word for pair in pairs for word in pair}
    words = [w for w in reference.index if senses.has_word(w) and w.lower() not in seed_words]
    if len(words) < 3:
        raise EmptyInputError(f"only {len(words)} reference word(s) have senses in the vectors")
    target = reference.loc[words].to_numpy(np.float64)
    scores = {
        "sense": eq4_max_over_senses(senses, words, kept_pairs),
        "word": eq4_scores(
            senses.word_vectors(words), _pair_vectors(senses.word_vectors, kept_pairs)
        ),
    }
    rows = [
        _correlation_row(representation, layer, result)
        for representation, values in scores.items()
        for layer, result in zip(senses.layers, correlation_by_layer(values, target), strict=True)
    ]
    per_word = pd.DataFrame(
        {"word": words, "reference": target}
        | {f"{name}_score": values[:, -1] for name, values in scores.items()}
    )
    metadata: dict[str, Any] = {
        "pairs": [list(pair) for pair in kept_pairs],
        "dropped_pairs": [list(pair) for pair in pairs if pair not in kept_pairs],
        "n_words": len(words),
    }
    if baseline is not None:
        row, baseline_scores, baseline_meta = _baseline_wat(baseline, words, target, pairs)
        rows.append(row)
        per_word["baseline_score"] = baseline_scores
        metadata["baseline"] = baseline_meta
    return Run(NAME, {"wat": pd.DataFrame(rows), "wat_scores": per_word}, metadata)


def eq4_scores(
    words: npt.ArrayLike, pair_vectors: tuple[npt.ArrayLike, npt.ArrayLike]
) -> FloatArray:
    """Eq. 4: mean over pairs of ``cos(w, m_i) - cos(w, f_i)``, per word and layer.

    Parameters
    ----------
    words : array_like, shape ``[n, n_layers, d]``
        Word vectors.
    pair_vectors : tuple of array_like, shapes ``[P, n_layers, d]``
        Male and female vectors of the ``P`` pairs, in pair order.

    Returns
    -------
    FloatArray, shape ``[n, n_layers]``
    """
    layered = [np.moveaxis(np.asarray(v, dtype=np.float64), 0, 1) for v in (words, *pair_vectors)]
    to_male = cosine_similarity(layered[0], layered[1])  # [L, n, P]
    to_female = cosine_similarity(layered[0], layered[2])
    scores: FloatArray = (to_male - to_female).mean(axis=2).T
    return scores


def eq4_max_over_senses(
    senses: SenseVectors, words: Sequence[str], pairs: GenderPairs
) -> FloatArray:
    """Eq. 4 with ``cos(w, a) = max_{i,j} cos(s_i, a_j)`` over the senses of ``w`` and ``a``.

    Returns
    -------
    FloatArray, shape ``[len(words), n_layers]``
    """
    word_groups = senses.word_sense_groups(words)
    male_groups = senses.word_sense_groups([male for male, _ in pairs])
    female_groups = senses.word_sense_groups([female for _, female in pairs])
    scores = np.empty((len(words), len(senses.layers)))
    for position in range(len(senses.layers)):
        layer_vectors = senses.vectors[:, position, :]
        to_male = max_cosine_by_group(layer_vectors, word_groups, male_groups)
        to_female = max_cosine_by_group(layer_vectors, word_groups, female_groups)
        scores[:, position] = (to_male - to_female).mean(axis=1)
    return scores


def max_cosine_by_group(
    vectors: npt.ArrayLike,
    groups_a: Sequence[npt.NDArray[np.int64]],
    groups_b: Sequence[npt.NDArray[np.int64]],
) -> FloatArray:
    """``max`` cosine between any row of group ``i`` and any row of group ``j``, for all ``i, j``.

    Parameters
    ----------
    vectors : array_like, shape ``[n_rows, d]``
        The vectors (e.g. all senses at one layer).
    groups_a, groups_b : sequences of int arrays
        Row indices of each group (e.g. the senses of each word); none may be empty.

    Returns
    -------
    FloatArray, shape ``[len(groups_a), len(groups_b)]``
        NaN where a zero or NaN vector is involved.
    """
    matrix = np.asarray(vectors, dtype=np.float64)
    rows_a, starts_a = _flatten_groups(groups_a)
    rows_b, starts_b = _flatten_groups(groups_b)
    cosines = cosine_similarity(matrix[rows_a], matrix[rows_b])
    by_a: FloatArray = np.maximum.reduceat(cosines, starts_a, axis=0)
    result: FloatArray = np.maximum.reduceat(by_a, starts_b, axis=1)
    return result


def _flatten_groups(
    groups: Sequence[npt.NDArray[np.int64]],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    sizes = np.array([len(group) for group in groups], dtype=np.int64)
    if sizes.size == 0 or (sizes == 0).any():
        raise EmptyInputError("every group needs at least one row")
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return np.concatenate(list(groups)).astype(np.int64), starts


def _pair_vectors(
    lookup: Callable[[Sequence[str]], npt.NDArray[np.float32]], pairs: GenderPairs
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The ``[P, n_layers, d]`` vectors of the male and of the female words of the pairs."""
    return lookup([male for male, _ in pairs]), lookup([female for _, female in pairs])


def _baseline_vectors(baseline: WordEmbedder, words: Sequence[str]) -> npt.NDArray[np.float32]:
    """The baseline's top-layer vectors ``[n, 1, d]`` of words embedded alone."""
    return baseline.embed_words(list(words), layers=[-1]).vectors


def _correlation_row(representation: str, layer: int, result: CorrelationResult) -> dict[str, Any]:
    return {
        "representation": representation,
        "layer": layer,
        "r": result.r,
        "p_value": result.p_value,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "n": result.n,
    }


def _baseline_wat(
    baseline: WordEmbedder, words: Sequence[str], target: FloatArray, pairs: GenderPairs
) -> tuple[dict[str, Any], FloatArray, dict[str, Any]]:
    """Eq. 4 with the baseline's word vectors; words it lacks get NaN (left out of r)."""
    missing = set(baseline.missing_words([*words, *(w for pair in pairs for w in pair)]))
    kept_pairs = tuple(pair for pair in pairs if not set(pair) & missing)
    if not kept_pairs:
        raise EmptyInputError(f"{baseline.info.name} has no gender pair in its vocabulary")
    present_rows = [row for row, word in enumerate(words) if word not in missing]

    embed = functools.partial(_baseline_vectors, baseline)
    scores = np.full(len(words), np.nan)
    present = [words[row] for row in present_rows]
    scores[present_rows] = eq4_scores(embed(present), _pair_vectors(embed, kept_pairs))[:, 0]
    layer = baseline.resolve_layers([-1])[0]
    row = _correlation_row("baseline", layer, pearson(scores, target))
    meta = {
        "model": baseline.info.as_dict(),
        "missing_words": sorted(missing),
        "pairs": [list(pair) for pair in kept_pairs],
    }
    return row, scores, meta


def propagated_gender_scores(
    norms: AssociationNorms, pairs: GenderPairs = WAT_SEED_PAIRS, *, alpha: float = 0.99
) -> tuple[pd.Series, dict[str, Any]]:
    """WAT gender scores ``log(b_m / b_f)`` by label propagation on an association graph.

    As Du et al. (2019): the graph is restricted to its largest strongly connected component,
    the male words of ``pairs`` seed label 0 and the female words label 1, ``F*`` is the
    stationary solution (:func:`wordlens.stats.propagation.propagate_labels`) and a word's score
    is ``log(F*[w, 0] / F*[w, 1])``.

    Returns
    -------
    scores : pandas.Series
        float64 score per word of the component (index: word).
    metadata : dict
        Component size, seeds used and missing, alpha.

    Raises
    ------
    EmptyInputError
        If no male or no female seed word is in the component.
    """
    words, adjacency = norms.graph()
    component = largest_strong_component(adjacency)
    kept_words = [words[row] for row in component]
    index = {word: row for row, word in enumerate(kept_words)}
    seeds = np.zeros((len(kept_words), 2))
    used: dict[str, list[str]] = {"male": [], "female": []}
    for column, side in enumerate(("male", "female")):
        for pair in pairs:
            if pair[column] in index:
                seeds[index[pair[column]], column] = 1.0
                used[side].append(pair[column])
    if not used["male"] or not used["female"]:
        raise EmptyInputError(
            f"{norms.name}: the largest strongly connected component ({len(kept_words)} words) "
            f"lacks every {'male' if not used['male'] else 'female'} seed word"
        )
    propagation = propagate_labels(adjacency[component][:, component], seeds, alpha=alpha)
    scores = pd.Series(log_ratio(propagation.labels), index=pd.Index(kept_words, name="word"))
    metadata = {
        "graph": norms.name,
        "n_words": len(words),
        "component_size": len(kept_words),
        "seeds": used,
        "missing_seeds": sorted(
            {w for pair in pairs for w in pair} - set(used["male"] + used["female"])
        ),
        "alpha": alpha,
        "method": propagation.method,
    }
    return scores.dropna(), metadata


def wat_reference(name: str, *, alpha: float = 0.99) -> tuple[pd.Series, dict[str, Any]]:
    """The reference gender scores: a registered WAT lexicon, or propagation on EAT/USF.

    For a propagated reference the metadata also holds its Pearson r with Du et al.'s SWOW
    lexicon over the words both have (a check of the propagation on other norms).
    """
    if name in GENDER_LEXICA:
        return load_gender_lexicon(name).scores, {"reference": name}
    if name not in NORMS:
        raise WordlensError(f"unknown WAT reference {name!r}; choose one of {WAT_REFERENCES}")
    scores, metadata = propagated_gender_scores(load_association_norms(name), alpha=alpha)
    swow = load_gender_lexicon("wat-du2019").scores
    swow_lower = swow.groupby(swow.index.str.lower()).first()
    shared = scores.index.intersection(swow_lower.index)
    agreement = pearson(scores.loc[shared].to_numpy(), swow_lower.loc[shared].to_numpy())
    metadata |= {"reference": name, "pearson_with_wat_du2019": agreement.r, "n_shared": len(shared)}
    return scores, metadata


# --- 3. Gender direction ------------------------------------------------------------------------


def run_gender_direction(
    senses: SenseVectors,
    pairs: GenderPairs,
    occupations: Sequence[OccupationSenses],
    *,
    baseline: WordEmbedder | None = None,
    seed: int = 0,
) -> Run:
    """Cosine of each occupation's noun sense, verb sense and word vector with eq. 8's ``g``,
    and its 95% bootstrap interval over the pairs that define ``g``.

    Parameters
    ----------
    senses
        Sense vectors with the occupations' senses and every sense of the pair words.
    pairs
        ``(male, female)`` pairs ``C`` of eq. 8 (word forms the store knows); pairs with a word
        without senses are dropped.
    occupations
        Noun and verb sense keys of each occupation.
    baseline
        A word-level model: its own ``g`` and the cosine of each occupation word with it.
    seed
        Of the bootstrap over the pairs
        (:func:`~wordlens.stats.bootstrap.direction_cosine_interval`).

    Returns
    -------
    Run
        Table ``gender_direction``: ``occupation``, ``layer``, ``noun_sense``, ``verb_sense``,
        ``word`` (eq. 7), each with ``<column>_ci_low`` and ``<column>_ci_high`` (the 95%
        percentile bootstrap interval over the kept pairs; NaN with one pair), and ``baseline``
        (the baseline's cosine, at its single layer; NaN without one). Positive: towards the
        male words.

    Raises
    ------
    EmptyInputError
        If no pair has senses in the store.
    """
    kept = tuple(pair for pair in pairs if senses.has_word(pair[0]) and senses.has_word(pair[1]))
    if not kept:
        raise EmptyInputError("no male-female pair has senses in the sense vectors")
    male, female = _pair_vectors(senses.word_vectors, kept)  # [P, L, d] each
    direction = gender_direction(male, female)  # [L, d]
    names = [o.occupation for o in occupations]
    cosines = {
        "noun_sense": senses.sense_vectors([o.noun for o in occupations]),
        "verb_sense": senses.sense_vectors([o.verb for o in occupations]),
        "word": senses.word_vectors(names),
    }
    values = {name: _cosine_with(vectors, direction) for name, vectors in cosines.items()}
    differences = np.asarray(male, dtype=np.float64) - np.asarray(female, dtype=np.float64)
    stacked = np.concatenate(list(cosines.values()))  # one bootstrap: the same resampled g
    lows, highs = direction_cosine_interval(differences, stacked, seed=seed)  # [3n, L]
    for name, low, high in zip(
        cosines, np.split(lows, len(cosines)), np.split(highs, len(cosines)), strict=True
    ):
        values |= {f"{name}_ci_low": low, f"{name}_ci_high": high}
    baseline_values = np.full(len(names), np.nan)
    metadata: dict[str, Any] = {
        "n_pairs": len(kept),
        "dropped_pairs": [list(pair) for pair in pairs if pair not in kept],
        "interval": f"95% percentile bootstrap over the kept pairs ({RESAMPLES:,} resamples)",
        "seed": seed,
    }
    if baseline is not None:
        baseline_values, metadata["baseline"] = _baseline_direction(baseline, pairs, names)
    table = pd.DataFrame(
        [
            {
                "occupation": name,
                "layer": layer,
                **{column: float(values[column][row, position]) for column in values},
                "baseline": float(baseline_values[row]),
            }
            for position, layer in enumerate(senses.layers)
            for row, name in enumerate(names)
        ]
    )
    return Run(NAME, {"gender_direction": table}, metadata)


def gender_direction(male: npt.ArrayLike, female: npt.ArrayLike) -> FloatArray:
    """Eq. 8: ``g = mean_i (m_i - f_i)``, per layer.

    Parameters
    ----------
    male, female : array_like, shape ``[P, n_layers, d]``
        Vectors of the pairs' male and female words, in pair order.

    Returns
    -------
    FloatArray, shape ``[n_layers, d]``
    """
    male_values = np.asarray(male, dtype=np.float64)
    female_values = np.asarray(female, dtype=np.float64)
    if male_values.shape != female_values.shape or male_values.ndim != 3:
        raise WordlensError(
            f"male and female vectors must both be [P, n_layers, d]; got {male_values.shape} "
            f"and {female_values.shape}"
        )
    direction: FloatArray = (male_values - female_values).mean(axis=0)
    return direction


def _cosine_with(vectors: npt.ArrayLike, direction: FloatArray) -> FloatArray:
    """Cosine of ``[n, L, d]`` vectors with a ``[L, d]`` direction: ``[n, L]``."""
    layered = np.moveaxis(np.asarray(vectors, dtype=np.float64), 0, 1)  # [L, n, d]
    cosines = cosine_similarity(layered, direction[:, np.newaxis, :])  # [L, n, 1]
    result: FloatArray = cosines[..., 0].T
    return result


def _baseline_direction(
    baseline: WordEmbedder, pairs: GenderPairs, occupations: Sequence[str]
) -> tuple[FloatArray, dict[str, Any]]:
    missing = set(baseline.missing_words([*occupations, *(w for pair in pairs for w in pair)]))
    kept = tuple(pair for pair in pairs if not set(pair) & missing)
    if not kept or set(occupations) & missing:
        raise EmptyInputError(
            f"{baseline.info.name} lacks every gender pair or an occupation: {sorted(missing)[:10]}"
        )

    embed = functools.partial(_baseline_vectors, baseline)
    direction = gender_direction(*_pair_vectors(embed, kept))
    values = _cosine_with(embed(occupations), direction)[:, 0]
    return values, {"model": baseline.info.as_dict(), "n_pairs": len(kept)}


# --- 4. Dimensionality (Figure 1) ----------------------------------------------------------------


def run_dimension_sweep(
    senses: SenseVectors,
    tests: Sequence[WeatTest],
    assignments: SenseAssignments,
    config: SenseBiasConfig | None = None,
) -> Run:
    r"""WEAT with sense ids (:func:`run_sense_weat`) on the top layer's vectors at several sizes.

    Figure 1 of the paper compares LMMS at 1024, 2048 and 2348 dimensions and their eq. 7 word
    vectors on WEAT. Those three are one model's sense vectors (BERT-large), the larger ones with
    more blocks concatenated (gloss embeddings, then fastText), blocks that cannot be rebuilt here.
    The closest controlled analogue is one model's sense vectors at nested sizes: each size ``k``
    keeps the top ``k`` right singular vectors of the ``[n_senses, d]`` matrix of every sense in
    the store,

    .. math:: S_k = S V_k, \qquad S = U \Sigma V^\top,

    and eq. 7 word vectors are the means of the reduced sense vectors (the projection is linear,
    so this is the projection of the eq. 7 vectors). Comparing different models at their native
    sizes (minilm-l6 at 384, smollm2-135m at 576) would change the architecture, training data
    and tokenizer with the size, so it would not isolate the dimension. The SVD is uncentred so
    that the full size is a rotation and reproduces the unreduced cosines (Table 2's WEAT rows);
    centring (PCA) would change every cosine even at full size, and truncating raw coordinates
    would keep arbitrary axes instead of the strongest ones.

    Parameters
    ----------
    senses
        Sense vectors (the last layer is used).
    tests, assignments
        As :func:`run_sense_weat`.
    config
        [the defaults] Its ``dimensions``: the sizes ``k``, None for ``d/8, d/4, d/2, d``. Sizes
        above ``d`` are skipped (listed in the metadata). With fewer senses than ``d`` the matrix
        has rank at most ``n_senses``, and every size from there on keeps all of it (the extra
        coordinates are 0). Its ``permutations``, ``seed`` and ``ddof`` as
        :func:`run_sense_weat`.

    Returns
    -------
    Run
        Table ``dimensions``: ``dimension``, ``energy`` (share of the squared norm of the sense
        matrix kept), then the columns of :func:`run_sense_weat`'s table for the ``sense`` and
        ``word`` representations. Metadata: the sizes run and skipped, the layer, the full size.

    Raises
    ------
    EmptyInputError
        If no size can be run.
    """
    config = config or SenseBiasConfig()
    layer = senses.layers[-1]
    matrix = senses.at_layer(layer).vectors[:, 0, :].astype(np.float64)  # [n, d]
    full = matrix.shape[1]
    # directions: [d, d]. Full matrices only when n < d (V's basis completed); otherwise U would
    # be [n, n] (14 GiB for the 42,942 senses at paper scale, twice that at peak), and unused.
    _, singular, directions = np.linalg.svd(matrix, full_matrices=matrix.shape[0] < full)
    sizes = config.dimensions or sorted({max(1, full // part) for part in (8, 4, 2, 1)})
    kept = [k for k in dict.fromkeys(sizes) if k <= full]
    if not kept:
        raise EmptyInputError(f"no size of {list(sizes)} fits sense vectors of size {full}")
    squares = np.zeros(full)
    squares[: singular.size] = singular**2
    energy = np.cumsum(squares) / squares.sum()
    frames = []
    for size in kept:
        reduced = (matrix @ directions[:size].T).astype(np.float32)  # [n, k]
        store = SenseVectors(
            senses.keys,
            reduced[:, np.newaxis, :],
            (layer,),
            f"{senses.source}, layer {layer}, top {size} singular directions",
        )
        table = run_sense_weat(store, tests, assignments, config=config).tables["weat"]
        frames.append(table.assign(dimension=size, energy=float(energy[size - 1])))
    table = pd.concat(frames, ignore_index=True)
    leading = ["dimension", "energy"]
    metadata = {
        "layer": layer,
        "full_dimension": full,
        "n_senses": matrix.shape[0],
        "dimensions": kept,
        "skipped_dimensions": [k for k in sizes if k not in kept],
        "method": "top-k right singular vectors of the uncentred sense matrix",
    }
    return Run(
        NAME,
        {"dimensions": table[[*leading, *(c for c in table.columns if c not in leading)]]},
        metadata,
    )


# --- Table 2 -------------------------------------------------------------------------------------

WEAT_ROWS = {
    1: "Flowers vs Insects",
    2: "Instruments vs Weapons",
    7: "Math vs Art",
    8: "Science vs Art",
    9: "Physical vs. Mental condition",
}
"""Table 2's WEAT rows: test id → the paper's row name."""

TABLE2_COLUMNS = ["section", "row", "statistic", "layer", "word", "sense", "baseline", "note"]


def table2(tables: dict[str, pd.DataFrame], config: SenseBiasConfig, layer: int) -> pd.DataFrame:
    """The rows of the paper's Table 2 (WEAT x 5, WAT, SSSB x 6) at one layer of the sense
    vectors, word (eq. 7) beside sense, and the baseline at its own layer.

    Parameters
    ----------
    tables
        The tables of the experiments run (``weat``, ``wat``, ``sssb``).
    config
        What was run (a row whose experiment or WEAT test was not run says so).
    layer
        The layer of the sense vectors to show.

    Returns
    -------
    pandas.DataFrame
        :data:`TABLE2_COLUMNS`, one row per Table 2 row in the paper's order; ``word``,
        ``sense`` and ``baseline`` are NaN where not computed, and ``note`` says why or how the
        row was aggregated.
    """
    rows = [*_weat_table2(tables, config, layer), _wat_table2(tables, layer)]
    rows += _sssb_table2(tables, layer)
    return pd.DataFrame(rows, columns=TABLE2_COLUMNS)


def _table2_row(
    section: str, row: str, statistic: str, layer: int, values: dict[str, float], note: str
) -> dict[str, Any]:
    cells = {name: values.get(name, np.nan) for name in ("word", "sense", "baseline")}
    return (
        {"section": section, "row": row, "statistic": statistic, "layer": layer}
        | cells
        | {"note": note}
    )


def _representation_values(table: pd.DataFrame, value: str, layer: int) -> dict[str, float]:
    """``value`` per representation at ``layer`` (the baseline at its own single layer)."""
    chosen = table[(table["representation"] == "baseline") | (table["layer"] == layer)]
    return {
        str(rep): float(v) for rep, v in zip(chosen["representation"], chosen[value], strict=True)
    }


def _weat_table2(
    tables: dict[str, pd.DataFrame], config: SenseBiasConfig, layer: int
) -> list[dict[str, Any]]:
    statistic = "effect size (eq. 3)"
    rows = []
    for test, name in WEAT_ROWS.items():
        if "weat" not in tables:
            rows.append(_table2_row("WEAT", name, statistic, layer, {}, "experiment weat not run"))
            continue
        found = tables["weat"][tables["weat"]["test"] == test]
        note = (
            "" if len(found) else f"WEAT test {test} not among the tests run ({config.weat_tests})"
        )
        rows.append(
            _table2_row(
                "WEAT",
                name,
                statistic,
                layer,
                _representation_values(found, "effect_size", layer),
                note,
            )
        )
    return rows


def _wat_table2(tables: dict[str, pd.DataFrame], layer: int) -> dict[str, Any]:
    statistic = "Pearson r with the reference (eq. 4)"
    if "wat" not in tables:
        return _table2_row("WAT", "WAT", statistic, layer, {}, "experiment wat not run")
    values = _representation_values(tables["wat"], "r", layer)
    return _table2_row("WAT", "WAT", statistic, layer, values, "")


def _sssb_table2(tables: dict[str, pd.DataFrame], layer: int) -> list[dict[str, Any]]:
    aggregated = sssb_table2_rows(tables["sssb"]) if "sssb" in tables else None
    rows = []
    for row in SSSB_ROWS:
        several = row not in BLACK_SENSES
        method = "sample_and_average" if row in ("noun", "verb") else "two_sided_sampling"
        statistic = f"{'mean |score| over targets' if several else 'score'} ({method})"
        if aggregated is None:
            rows.append(_table2_row("SSSB", row, statistic, layer, {}, "experiment sssb not run"))
            continue
        found = aggregated[aggregated["row"] == row]
        counts = _representation_values(found, "n_targets", layer)
        note = ", ".join(f"{rep} {int(n)}" for rep, n in counts.items()) + " target(s)"
        if not len(found):
            note = "no target of this row has vectors"
        elif not several:
            note = ""
        values = _representation_values(found, "value", layer)
        rows.append(_table2_row("SSSB", row, statistic, layer, values, note))
    return rows


# --- the whole study ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Inputs:
    """The data the selected experiments use."""

    assignments: SenseAssignments | None
    reference: pd.Series
    reference_meta: dict[str, Any]
    pairs: GenderPairs
    occupations: tuple[OccupationSenses, ...]
    sssb: SssbItems | None


def run_sense_bias(
    config: SenseBiasConfig | None = None,
    *,
    model: WordEmbedder | None = None,
    baseline: WordEmbedder | None = None,
    wordnet: WordNet | None = None,
    cache: ActivationCache | None = None,
    progress: bool = False,
    limit: int | None = None,
) -> Run:
    """Run the experiments of ``config`` on sense vectors built from ``model`` or read from
    ``config.senses`` (exactly one), with ``baseline`` word vectors beside them if given.

    Built sense vectors cover every WordNet sense of every word the experiments use (so eq. 7
    averages all senses), in one embedding pass.

    Parameters
    ----------
    config
        [the defaults] The experiments and their options
        (:class:`~wordlens.methods.sense_bias.config.SenseBiasConfig`).
    model
        The model to build sense vectors from; None when ``config.senses`` names a file.
    baseline
        The loaded word-level model of ``config.baseline`` (the method loads it with the
        model's loading options); None for no baseline.
    wordnet
        WordNet 3.0 [the installed one].
    cache
        Activation cache of the sense-vector contexts.
    progress
        Show progress bars.
    limit
        Quick mode (``--limit``): the first ``limit`` words of the WAT reference, gender pairs
        and occupations; None: all.

    Returns
    -------
    Run
        The tables of :func:`run_sense_weat`, :func:`run_wat`, :func:`run_gender_direction`,
        :func:`~wordlens.methods.sense_bias.static_sssb.run_static_sssb` and
        :func:`run_dimension_sweep`, and ``table2`` (:func:`table2`); metadata with the sense
        vectors' provenance, models, configuration, per-experiment details and timings.

    Raises
    ------
    WordlensError
        If neither or both of ``model`` and ``config.senses`` are given, or as the experiments
        raise.
    WordNetNotFoundError
        If WordNet 3.0 is not installed.
    """
    config = config or SenseBiasConfig()
    check_source(model is not None, config.senses)
    timings = Timings()
    source_wordnet = wordnet or load_wordnet()
    with timings.stage("inputs"):
        inputs = _inputs(config, source_wordnet, limit)
    with timings.stage("sense vectors"):
        if model is not None:
            needs = _needs(config, source_wordnet, inputs, baseline)
            senses = _build(model, config, needs, source_wordnet, cache, progress)
        else:
            assert config.senses is not None
            senses = load_sense_vectors(config.senses)
            needs = _needs(config, source_wordnet, inputs, baseline, senses)
    tables, sections = _experiments(config, senses, inputs, needs, baseline, timings)
    metadata = {
        "method": METHOD,
        "sense_vectors": {
            "source": senses.source,
            "n_senses": len(senses),
            "layers": list(senses.layers),
            "dim": senses.dim,
            **{k: v for k, v in senses.metadata.items() if k != "contexts_per_sense"},
        },
        "model": model.info.as_dict() if model is not None else None,
        "baseline": baseline.info.as_dict() if baseline is not None else None,
        "config": config_values(config),
        "wordnet": f"WordNet {source_wordnet.version} ({source_wordnet.root})",
        "experiments": sections,
        "timings_s": timings.seconds,
    }
    return Run(NAME, tables, metadata)


def _inputs(config: SenseBiasConfig, wordnet: WordNet, limit: int | None = None) -> _Inputs:
    """Assignments, WAT reference, gender pairs (as WordNet lemmas) and occupations, as needed;
    with ``limit`` (quick mode, ``--limit``) the first ``limit`` words of the WAT reference, of
    the gender pairs and of the occupations."""
    chosen = set(config.experiments)
    reference, reference_meta = (
        wat_reference(config.wat_reference, alpha=config.alpha)
        if "wat" in chosen
        else (pd.Series(dtype=np.float64), {})
    )
    direction = "gender-direction" in chosen
    occupations = occupation_senses(wordnet) if chosen & {"gender-direction", "sssb"} else ()
    gender_pairs = load_gender_pairs(config.gender_pairs)
    if limit is not None:
        reference = reference.head(limit)
        occupations = occupations[:limit]
        gender_pairs = gender_pairs[:limit]
    return _Inputs(
        assignments=(weat_sense_assignments(wordnet) if chosen & {"weat", "dimensions"} else None),
        reference=reference,
        reference_meta=reference_meta,
        pairs=_lemma_pairs(gender_pairs, wordnet) if direction else (),
        occupations=occupations,
        sssb=(sssb_items(wordnet, gender_pairs, occupations) if "sssb" in chosen else None),
    )


def _build(
    model: WordEmbedder,
    config: SenseBiasConfig,
    needs: _Needs,
    wordnet: WordNet,
    cache: ActivationCache | None,
    progress: bool,
) -> SenseVectors:
    """Sense vectors of every sense of the needed lemmas, plus the needed keys."""
    keys = [sense.key for lemma in needs.lemmas for sense in wordnet.senses(lemma)]
    return build_sense_vectors(
        model,
        [*keys, *needs.keys],
        config.layers,
        config.pooling,
        gloss_template=config.gloss_template,
        max_examples=config.max_examples,
        seed=config.seed,
        wordnet=wordnet,
        cache=cache,
        progress=progress,
    )


def _experiments(
    config: SenseBiasConfig,
    senses: SenseVectors,
    inputs: _Inputs,
    needs: _Needs,
    baseline: WordEmbedder | None,
    timings: Timings,
) -> tuple[dict[str, pd.DataFrame], dict[str, Any]]:
    """Run the selected experiments on the sense vectors; their tables and metadata."""
    runs: dict[str, Run] = {}
    chosen = set(config.experiments)
    if inputs.assignments is not None and "weat" in chosen:
        with timings.stage("weat"):
            runs["weat"] = run_sense_weat(
                senses,
                load_weat_tests(config.weat_tests),
                inputs.assignments,
                baseline=baseline,
                config=config,
            )
    if "wat" in config.experiments:
        with timings.stage("wat"):
            reference = inputs.reference.loc[list(needs.wat_words)]
            runs["wat"] = run_wat(senses, reference, baseline=baseline)
        runs["wat"].metadata |= inputs.reference_meta | needs.details
    if "gender-direction" in chosen:
        with timings.stage("gender direction"):
            runs["gender_direction"] = run_gender_direction(
                senses, inputs.pairs, inputs.occupations, baseline=baseline, seed=config.seed
            )
        runs["gender_direction"].metadata["pair_list"] = config.gender_pairs
    if inputs.sssb is not None:
        with timings.stage("sssb"):
            table, metadata = run_static_sssb(
                senses, inputs.sssb, baseline=baseline, n_draws=config.sssb_draws, seed=config.seed
            )
        runs["sssb"] = Run(NAME, {"sssb": table}, metadata | {"pair_list": config.gender_pairs})
    if inputs.assignments is not None and "dimensions" in chosen:
        with timings.stage("dimensions"):
            runs["dimensions"] = run_dimension_sweep(
                senses,
                load_weat_tests(config.weat_tests),
                inputs.assignments,
                config,
            )
    tables = {name: table for run in runs.values() for name, table in run.tables.items()}
    tables["table2"] = table2(tables, config, senses.layers[-1])
    return tables, {name: run.metadata for name, run in runs.items()}


def _lemma_pairs(pairs: GenderPairs, wordnet: WordNet) -> GenderPairs:
    """Pairs as WordNet lemmas (``wizards`` → ``wizard``); pairs with a word WordNet lacks go."""
    mapped = [(wordnet.lemma_of(male), wordnet.lemma_of(female)) for male, female in pairs]
    return tuple(
        (male, female) for male, female in mapped if male is not None and female is not None
    )


def _needs(
    config: SenseBiasConfig,
    wordnet: WordNet,
    inputs: _Inputs,
    baseline: WordEmbedder | None,
    senses: SenseVectors | None = None,
) -> _Needs:
    """Which lemmas need all their senses, and which reference words WAT correlates."""
    lemmas: list[str] = []
    if inputs.assignments is not None:
        assigned = inputs.assignments.senses
        words = {
            word
            for test in load_weat_tests(config.weat_tests)
            for role_words in _role_words(test).values()
            for word in role_words
        }
        lemmas += [assigned[word].split("%")[0] for word in sorted(words) if word in assigned]
    wat_words: tuple[str, ...] = ()
    details: dict[str, Any] = {}
    if "wat" in config.experiments:
        wat_words, details = _wat_sample(config, wordnet, inputs.reference, baseline, senses)
        lemmas += [lemma_form(word) for word in wat_words]
        lemmas += [word for pair in WAT_SEED_PAIRS for word in pair]
    lemmas += [word for pair in inputs.pairs for word in pair]
    lemmas += [occupation.occupation for occupation in inputs.occupations]
    keys = [key for o in inputs.occupations for key in (o.noun, o.verb)]
    if inputs.sssb is not None:
        lemmas += inputs.sssb.lemmas
        keys += inputs.sssb.keys(wordnet)
    known = tuple(lemma for lemma in dict.fromkeys(lemmas) if wordnet.lemma_of(lemma) == lemma)
    return _Needs(known, tuple(dict.fromkeys(keys)), wat_words, details)


def _wat_sample(
    config: SenseBiasConfig,
    wordnet: WordNet,
    reference: pd.Series,
    baseline: WordEmbedder | None,
    senses: SenseVectors | None,
) -> tuple[tuple[str, ...], dict[str, Any]]:
    """Reference words that are WordNet lemmas (and in the store and the baseline's vocabulary),
    not seed words; a seeded sample of ``config.wat_words`` of them, in reference order."""
    seeds = {word for pair in WAT_SEED_PAIRS for word in pair}
    candidates = [
        word
        for word in reference.index
        if word.lower() not in seeds
        and wordnet.lemma_of(word) == lemma_form(word)
        and (senses is None or senses.has_word(word))
    ]
    if baseline is not None:
        missing = set(baseline.missing_words(candidates))
        candidates = [word for word in candidates if word not in missing]
    if len(candidates) < 3:
        raise EmptyInputError(f"only {len(candidates)} reference words qualify for WAT")
    sample = candidates
    if config.wat_words is not None and config.wat_words < len(candidates):
        rng = np.random.default_rng(config.seed)
        rows = np.sort(rng.choice(len(candidates), size=config.wat_words, replace=False))
        sample = [candidates[row] for row in rows]
    details = {
        "n_candidates": len(candidates),
        "n_sampled": len(sample),
        "sample_seed": config.seed,
    }
    return tuple(sample), details
