"""Every p-value wordlens reports can reject, and is calibrated under a true null (issue 38).

For each test, with the scheme it really uses, two checks on static GloVe vectors
(``glove-6b-50d``):

- **power**: on a strongly biased query (Caliskan et al.'s flowers/insects with pleasant and
  unpleasant words, gendered words, human valence, similarity and gender norms) its p is below
  0.05;
- **calibration**: over 200 to 1,000 queries of random words (frequent GloVe words of ranks
  1,000 to 20,000, alphabetic; sets of :data:`SET_SIZE` words), a null that is true for the
  scheme, the share of p < 0.05 lies in [0.02, 0.09] (400 to 1,000 p's a test: its standard
  error is 0.011 to 0.007).

The tests call wordlens's own functions on numpy vectors (no model forward pass): the weat
statistic and permutation test of :mod:`wordlens.stats`, each association metric's
:meth:`~wordlens.methods.association.method.AssociationMethod.table` (its reported ``p_value``
column), and the statistic-level functions of VAST, the intersectional study and sense bias.
Where an experiment needs a contextual model (VAST's contexts, the intersectional phrases, sense
vectors), its statistic is computed on static vectors instead, as each test's docstring says.
The measured shares are in the assertion messages (``pytest -rA -s`` prints them as well).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pytest

from wordlens.contexts.intersectional import (
    Bias,
    IntersectionalStudy,
    Phrase,
    combination_phrases,
    load_study,
)
from wordlens.methods.association import AssociationConfig, AssociationMethod
from wordlens.methods.association.vectors import QueryVectors
from wordlens.methods.ect import EmbeddingCoherenceTest
from wordlens.methods.intersectional.experiments import _differential_table, twin_rows
from wordlens.methods.mac import MeanAverageCosine
from wordlens.methods.ripa import Ripa, RipaConfig
from wordlens.methods.rnd import RelativeNormDistance, RndConfig
from wordlens.methods.rnsb import Rnsb, RnsbConfig
from wordlens.methods.semaxis import SemAxis
from wordlens.methods.sense_bias.compute import eq4_scores
from wordlens.methods.vast.experiments import vast_scores
from wordlens.models.base import WordEmbedder
from wordlens.resources import (
    Query,
    load_gender_lexicon,
    load_lexicon,
    load_similarity,
    load_weat_tests,
    pleasant_unpleasant,
)
from wordlens.resources.gender_words import WAT_SEED_PAIRS
from wordlens.stats import (
    Direction,
    correlation_by_layer,
    fit_direction,
    fit_principal_components,
    permutation_test,
    weat,
)

FloatArray = npt.NDArray[np.float64]

N_QUERIES = 1000
"""Random-word queries per calibration check of a fast test (the issue asks for at least 200;
1,000 keeps the share's standard error near 0.007)."""
N_METRIC_QUERIES = 200
"""Random-word queries per association metric (each its own table: slower)."""
SET_SIZE = 8
"""Words per set of a random query (a realistic query size)."""
N_WORDS = 60
"""Words (or word pairs) per random query of a correlation test."""
PARTITIONS = 500
"""Partitions per WEAT or SC-WEAT permutation test (the observed one and 499 random others):
p < 0.05 is p <= 24/500, so a calibrated test rejects 4.8% of true nulls."""
PERMUTATIONS = 100
"""Random relabellings per association metric's test: p = (1 + b) / 101, so p < 0.05 is
b <= 4 and a calibrated test rejects 5/101 = 4.95% of true nulls."""
ALPHA = 0.05
CALIBRATED = (0.02, 0.09)
"""Where the share of p < 0.05 over the true nulls must lie (issue 38)."""


# --- the word pool and the strongly biased sets -------------------------------------------------


@pytest.fixture(scope="module")
def pool(glove: WordEmbedder) -> tuple[list[str], FloatArray]:
    """GloVe's alphabetic words of frequency ranks 1,000 to 20,000 and their vectors."""
    words = [w for w in glove.words[1000:20_000] if w.isascii() and w.isalpha()]
    return words, _vectors(glove, words)


def _vectors(glove: WordEmbedder, words: Sequence[str]) -> FloatArray:
    """``[n, d]`` float64 vectors of ``words`` (all in GloVe's vocabulary)."""
    return np.asarray(glove.matrix[glove.rows(list(words))], dtype=np.float64)


def _caliskan(glove: WordEmbedder, test_id: int = 1) -> dict[str, list[str]]:
    """The four sets of a WEAT of Caliskan et al. (words GloVe has), ``x``, ``y``, ``a``, ``b``:
    test 1 flowers, insects, pleasant, unpleasant; test 2 musical instruments, weapons, the
    same attributes."""
    (test,) = load_weat_tests([test_id])
    sets = {"x": test.x.words, "y": test.y.words, "a": test.a.words, "b": test.b.words}
    return {role: [w for w in words if glove.has_words([w])[0]] for role, words in sets.items()}


MALE = ["he", "man", "boy", "father", "son", "brother", "husband", "uncle", "king", "gentleman"]
FEMALE = ["she", "woman", "girl", "mother", "daughter", "sister", "wife", "aunt", "queen", "lady"]
"""Gender pairs by position (RIPA's pairs)."""
MALE_JOBS = ["engineer", "carpenter", "mechanic", "plumber", "architect", "surgeon", "farmer"]
FEMALE_JOBS = ["nurse", "receptionist", "housekeeper", "hairdresser", "secretary", "nanny", "maid"]


def _share(p_values: Sequence[float]) -> float:
    values = np.asarray(p_values, dtype=np.float64)
    assert not np.isnan(values).any(), "a p-value of a random query is NaN"
    return float(np.mean(values < ALPHA))


def _assert_calibrated(name: str, p_values: Sequence[float]) -> None:
    share = _share(p_values)
    print(f"calibration {name}: share of p < {ALPHA} = {share:.3f} over {len(p_values)} nulls")
    low, high = CALIBRATED
    assert low <= share <= high, (
        f"{name}: share of p < {ALPHA} over {len(p_values)} true nulls is {share:.3f}, "
        f"outside [{low}, {high}]"
    )


def _assert_rejects(name: str, p: float) -> None:
    print(f"power {name}: p = {p:.4g} on the strongly biased query")
    assert p < ALPHA, f"{name}: p = {p:.4g} on a strongly biased query, not below {ALPHA}"


SIDES = ("p_one_sided", "p_two_sided")


def _sides(result: object) -> dict[str, float]:
    """The one- and two-sided p of a permutation result (or a table row)."""
    return {side: float(getattr(result, side)) for side in SIDES}


def _random_sets(
    rng: np.random.Generator, pool_size: int, n_sets: int, size: int = SET_SIZE
) -> list[npt.NDArray[np.intp]]:
    """``n_sets`` disjoint random sets of ``size`` indices into the pool."""
    drawn = rng.choice(pool_size, size=n_sets * size, replace=False)
    return [drawn[k * size : (k + 1) * size] for k in range(n_sets)]


# --- WEAT and the projection SC-WEAT (permutation over the two target sets' words) -------------


@pytest.fixture(scope="module")
def population(pool: tuple[list[str], FloatArray]) -> FloatArray:
    """The vectors VAST's principal components are fitted on (its population: the lexica's and
    WEAT's words): here 2,000 words of the pool, drawn with a fixed seed."""
    _, vectors = pool
    return vectors[np.random.default_rng(0).choice(len(vectors), 2000, replace=False)]


WEAT_VARIANTS = ("weat", "vast-weat-nullified")
"""``wordlens weat``, VAST's WEAT before nullification and the sense-bias WEAT (run_sense_weat on
sense or eq. 7 word vectors) all call :func:`~wordlens.stats.weat`: ``weat``; VAST's WEAT after
nullifying the top 3 principal components of its population: ``vast-weat-nullified``."""


@pytest.mark.parametrize("variant", list(WEAT_VARIANTS))
def test_weat(
    glove: WordEmbedder,
    pool: tuple[list[str], FloatArray],
    population: FloatArray,
    variant: str,
) -> None:
    """WEAT's permutation p (partitions of X ∪ Y into sets of |X| and |Y| words, 500 of them:
    the observed one and 499 random others), one- and two-sided. Used by ``wordlens weat``, by
    VAST's WEAT before and after PC nullification, and by the sense-bias WEAT on sense vectors
    (static GloVe vectors stand for the contextual and sense vectors)."""
    fitted = fit_principal_components(population, 3)

    def transform(sets: list[FloatArray]) -> list[FloatArray]:
        return [fitted.remove(s, 3) for s in sets] if variant != "weat" else sets

    words = _caliskan(glove)
    biased = transform([_vectors(glove, words[role]) for role in "xyab"])
    for side, p in _sides(weat(*biased, n_samples=PARTITIONS)).items():
        _assert_rejects(f"{variant} {side}", p)
    _, vectors = pool
    rng = np.random.default_rng(3801)
    p_values: dict[str, list[float]] = {side: [] for side in SIDES}
    for seed in range(N_QUERIES):
        sets = transform([vectors[s] for s in _random_sets(rng, len(vectors), 4)])
        for side, p in _sides(weat(*sets, n_samples=PARTITIONS, seed=seed)).items():
            p_values[side].append(p)
    for side, values in p_values.items():
        _assert_calibrated(f"{variant} {side}", values)


def test_projection_sc_weat(glove: WordEmbedder, pool: tuple[list[str], FloatArray]) -> None:
    """The projection SC-WEAT (eq. 2 of the intersectional study): its permutation p, one- and
    two-sided, over partitions of the two groups' projections on the valence direction (a
    linear SVC of the pleasant vs. the unpleasant words). Here the two groups are two sets of
    static word vectors; the study's own groups are twin phrases, tested paired
    (:func:`test_intersectional_differential_bias`). (The cosine SC-WEAT of VAST and ValNorm has
    no p of its own: its p is that of the correlation with human ratings,
    :func:`test_correlation`.)"""
    polar = pleasant_unpleasant()
    direction = fit_direction(_vectors(glove, polar.pleasant), _vectors(glove, polar.unpleasant))
    words = _caliskan(glove)
    flowers, insects = (direction.project(_vectors(glove, words[role])) for role in "xy")
    for side, p in _sides(permutation_test(flowers, insects, n_samples=PARTITIONS)).items():
        _assert_rejects(f"projection SC-WEAT {side}", p)
    _, vectors = pool
    projections = direction.project(vectors)
    rng = np.random.default_rng(3802)
    p_values: dict[str, list[float]] = {side: [] for side in SIDES}
    for seed in range(N_QUERIES):
        first, second = _random_sets(rng, len(vectors), 2)
        test = permutation_test(
            projections[first], projections[second], n_samples=PARTITIONS, seed=seed
        )
        for side, p in _sides(test).items():
            p_values[side].append(p)
    for side, values in p_values.items():
        _assert_calibrated(f"projection SC-WEAT {side}", values)


# --- the association metrics' p (AssociationMethod.table) ---------------------------------------


def _table_p(
    method: AssociationMethod, query: Query, vectors: dict[str, FloatArray], config: object
) -> dict[str, float]:
    """The ``p_value`` column of the metric's table, part → p, on static vectors."""
    by_set = {name: vectors[name][:, None, :] for name in (*query.targets, *query.attributes)}
    query_vectors = QueryVectors(
        targets={name: by_set[name] for name in query.targets},
        attributes={name: by_set[name] for name in query.attributes},
        words={name: list(ws) for name, ws in (*query.targets.items(), *query.attributes.items())},
        layers=(0,),
        left_out={},
        why={},
    )
    table = method.scored(query_vectors, query, config).table  # type: ignore[arg-type]
    return {str(part): float(p) for part, p in zip(table["part"], table["p_value"], strict=True)}


def _config(name: str, seed: int, permutations: int = PERMUTATIONS) -> object:
    common = {"bootstrap": 0, "permutations": permutations, "seed": seed}
    if name == "rnd":
        return RndConfig(**common)
    if name.startswith("ripa-"):
        return RipaConfig(relation=name.removeprefix("ripa-"), **common)  # type: ignore[arg-type]
    return AssociationConfig(**common)


METRICS: dict[str, AssociationMethod] = {
    "rnd": RelativeNormDistance(),
    "ect": EmbeddingCoherenceTest(),
    "semaxis": SemAxis(),
    "ripa-pairs": Ripa(),
    "ripa-pc": Ripa(),
}


def _biased_metric_query(name: str, glove: WordEmbedder) -> tuple[Query, dict[str, FloatArray]]:
    """Gendered pairs × gendered occupations for RIPA (pairs by position); instruments/weapons
    × pleasant/unpleasant (WEAT 2) for RND; flowers/insects × pleasant/unpleasant (WEAT 1) for
    ECT and SemAxis. (RND's pleasant part of WEAT 1 is no strong bias, p = 0.99: with unit
    vectors ``||a - m||^2 = 1 + ||m||^2 - 2 a·m`` grows with the length of a set's mean ``m``,
    and the flowers' mean, nearer the pleasant words in direction, is also longer than the
    insects', the flowers lying closer together: the two cancel.)"""
    if name.startswith("ripa-"):
        sets = {"male": MALE, "female": FEMALE, "male_jobs": MALE_JOBS, "female_jobs": FEMALE_JOBS}
        query = Query(
            targets={"male": MALE, "female": FEMALE},
            attributes={"male_jobs": MALE_JOBS, "female_jobs": FEMALE_JOBS},
        )
    else:
        words = _caliskan(glove, 2 if name == "rnd" else 1)
        sets = {"x": words["x"], "y": words["y"], "pleasant": words["a"], "unpleasant": words["b"]}
        query = Query(
            targets={"x": sets["x"], "y": sets["y"]},
            attributes={"pleasant": sets["pleasant"], "unpleasant": sets["unpleasant"]},
        )
    return query, {name: _vectors(glove, ws) for name, ws in sets.items()}


@pytest.mark.parametrize("name", list(METRICS))
def test_association_metric(
    glove: WordEmbedder, pool: tuple[list[str], FloatArray], name: str
) -> None:
    """An association metric's reported permutation p (``p_value`` of its table): RND and
    SemAxis two-sided and ECT one-sided (values at most the observed: its no-bias value is 1)
    over random partitions of the two target sets' words; RIPA with ``relation="pairs"``
    two-sided over random swaps of the words within the target pairs; RIPA with its default
    ``relation="pc"`` two-sided over partitions of the two attribute sets' words. Each attribute
    set of RND, ECT and RIPA ``pairs`` is a part with its own p; every part's p counts. The two
    parts of RIPA ``pc`` share one test (attribute set A against B), so it counts one p per
    query, over twice the queries."""
    method = METRICS[name]
    query, vectors = _biased_metric_query(name, glove)
    # 1,000 relabellings: with 100, ECT's pleasant part (p about 0.01) reads p >= 0.05 for 3%
    # of seeds, seed 0 among them (b = 5 where 1 is expected)
    biased = _table_p(method, query, vectors, _config(name, 0, permutations=1000))
    for part, p in biased.items():
        _assert_rejects(f"{name} ({part})", p)
    words, pool_vectors = pool
    rng = np.random.default_rng(3803)
    p_values = []
    names = ("x", "y", "a", "b")
    # 400 p's each: 200 queries of two parts (RND, ECT, RIPA), 400 of one (SemAxis)
    one_test = method.attributes_per_part is None or name == "ripa-pc"
    n_queries = N_METRIC_QUERIES * (2 if one_test else 1)
    for seed in range(n_queries):
        sets = _random_sets(rng, len(pool_vectors), 4)
        query = Query(
            targets={n: [words[i] for i in s] for n, s in zip(names[:2], sets[:2], strict=True)},
            attributes={n: [words[i] for i in s] for n, s in zip(names[2:], sets[2:], strict=True)},
        )
        vectors = {n: pool_vectors[s] for n, s in zip(names, sets, strict=True)}
        parts = list(_table_p(method, query, vectors, _config(name, seed)).values())
        p_values += parts[:1] if one_test else parts
    _assert_calibrated(name, p_values)


@pytest.mark.parametrize("method", [Rnsb(), MeanAverageCosine()], ids=["rnsb", "mac"])
def test_metrics_pooling_the_targets_report_no_p(
    glove: WordEmbedder, method: AssociationMethod
) -> None:
    """RNSB and MAC pool the two target sets' words (every partition of them gives the same
    value), so they have no permutation test: their p is NaN, even with permutations asked."""
    query, vectors = _biased_metric_query("semaxis", glove)
    config = (
        RnsbConfig(bootstrap=0, permutations=PERMUTATIONS, fits=2)
        if isinstance(method, Rnsb)
        else AssociationConfig(bootstrap=0, permutations=PERMUTATIONS)
    )
    assert np.isnan(list(_table_p(method, query, vectors, config).values())).all()
    assert method.uncertainty(config)["p_value"].startswith("none: ")


# --- correlations with human norms (parametric t test of r = 0, scipy) --------------------------


def _valence_words(glove: WordEmbedder) -> tuple[list[str], FloatArray]:
    """Bellezza's words GloVe has and their human valence."""
    data = load_lexicon("bellezza").data.drop_duplicates("word")
    data = data[[glove.has_words([w])[0] for w in data["word"]]]
    return list(data["word"]), data["valence"].to_numpy(np.float64)


def _vast(glove: WordEmbedder, population: FloatArray) -> Callable[[FloatArray, FloatArray], float]:
    """VAST's valence test (:func:`vast_scores`: SC-WEAT with the WEAT pleasant and unpleasant
    words, Pearson's r with the ratings), on static vectors."""
    polar = pleasant_unpleasant()
    positive, negative = (_vectors(glove, ws)[:, None] for ws in (polar.pleasant, polar.unpleasant))

    def p(vectors: FloatArray, ratings: FloatArray) -> float:
        (result,) = vast_scores(vectors[:, None], ratings, positive, negative)
        return result.p_value

    return p


def _vast_nullified(
    glove: WordEmbedder, population: FloatArray
) -> Callable[[FloatArray, FloatArray], float]:
    """VAST after nullifying the top 3 principal components of its population (fitted once),
    then SC-WEAT and Pearson's r with the ratings, as its nullification experiment."""
    polar = pleasant_unpleasant()
    fitted = fit_principal_components(population, 3)
    positive, negative = (
        fitted.remove(_vectors(glove, ws), 3)[:, None] for ws in (polar.pleasant, polar.unpleasant)
    )

    def p(vectors: FloatArray, ratings: FloatArray) -> float:
        (result,) = vast_scores(fitted.remove(vectors, 3)[:, None], ratings, positive, negative)
        return result.p_value

    return p


def _projection_valnorm(
    glove: WordEmbedder, population: FloatArray
) -> Callable[[FloatArray, FloatArray], float]:
    """The intersectional study's projection ValNorm: Pearson's r of the ratings with the
    projections on the valence direction (linear SVC, pleasant vs. unpleasant)."""
    polar = pleasant_unpleasant()
    direction = fit_direction(_vectors(glove, polar.pleasant), _vectors(glove, polar.unpleasant))

    def p(vectors: FloatArray, ratings: FloatArray) -> float:
        (result,) = correlation_by_layer(direction.project(vectors)[:, None], ratings)
        return result.p_value

    return p


def _wat(glove: WordEmbedder, population: FloatArray) -> Callable[[FloatArray, FloatArray], float]:
    """The sense-bias WAT: Pearson's r of a reference gender score with eq. 4 (mean over Du et
    al.'s 10 seed pairs of cos(w, m) - cos(w, f)), here on GloVe's word vectors (the test runs it
    on sense and eq. 7 word vectors)."""
    male, female = (_vectors(glove, [pair[k] for pair in WAT_SEED_PAIRS])[:, None] for k in (0, 1))

    def p(vectors: FloatArray, reference: FloatArray) -> float:
        (result,) = correlation_by_layer(eq4_scores(vectors[:, None], (male, female)), reference)
        return result.p_value

    return p


def _wat_words(glove: WordEmbedder) -> tuple[list[str], FloatArray]:
    """Du et al.'s WAT words GloVe has (the seed words left out) and their gender scores; 400
    of them, drawn with a fixed seed."""
    scores = load_gender_lexicon("wat-du2019").scores
    scores = scores.groupby(scores.index.str.lower()).first()
    seeds = {w for pair in WAT_SEED_PAIRS for w in pair}
    kept = [w for w in scores.index if w.isalpha() and w not in seeds and glove.has_words([w])[0]]
    chosen = sorted(np.random.default_rng(0).choice(kept, 400, replace=False))
    return chosen, scores.loc[chosen].to_numpy(np.float64)


CORRELATIONS = {
    "vast-valence": (_vast, _valence_words),
    "vast-valence-nullified": (_vast_nullified, _valence_words),
    "intersectional-projection-valnorm": (_projection_valnorm, _valence_words),
    "sense-bias-wat": (_wat, _wat_words),
}


@pytest.mark.parametrize("name", list(CORRELATIONS))
def test_correlation(
    glove: WordEmbedder, pool: tuple[list[str], FloatArray], population: FloatArray, name: str
) -> None:
    """A correlation of per-word scores with a human norm (two-sided p of scipy's t test of
    r = 0): strongly significant with the norm's own words and values; under the null, random
    words get values drawn from the norm (independent of their vectors), :data:`N_WORDS` a
    query."""
    make_test, norm = CORRELATIONS[name]
    test = make_test(glove, population)
    words, values = norm(glove)
    _assert_rejects(name, test(_vectors(glove, words), values))
    _, vectors = pool
    rng = np.random.default_rng(3804)
    p_values = []
    for _ in range(N_QUERIES):
        chosen = rng.choice(len(vectors), N_WORDS, replace=False)
        p_values.append(test(vectors[chosen], rng.choice(values, N_WORDS, replace=False)))
    _assert_calibrated(name, p_values)


def test_word_similarity(glove: WordEmbedder, pool: tuple[list[str], FloatArray]) -> None:
    """VAST's word-similarity validation: Spearman's rho of the pairs' cosines with human
    similarity (two-sided p of scipy's test), as :func:`~wordlens.methods.vast.similarity
    .run_similarity` computes at each layer. Strongly significant on WS-353; under the null,
    random word pairs get scores drawn from WS-353."""
    pairs = load_similarity("ws353").data
    pairs = pairs[
        [all(glove.has_words([x, y])) for x, y in zip(pairs.word1, pairs.word2, strict=True)]
    ]
    first, second = (_vectors(glove, list(pairs[column])) for column in ("word1", "word2"))
    human = pairs["score"].to_numpy(np.float64)

    def p(x: FloatArray, y: FloatArray, scores: FloatArray) -> float:
        norms = np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1)
        cosines = np.einsum("nd,nd->n", x, y) / norms
        (result,) = correlation_by_layer(cosines[:, None], scores, method="spearman")
        return result.p_value

    _assert_rejects("vast-similarity", p(first, second, human))
    _, vectors = pool
    rng = np.random.default_rng(3805)
    p_values = []
    for _ in range(N_QUERIES):
        x, y = _random_sets(rng, len(vectors), 2, N_WORDS)
        p_values.append(p(vectors[x], vectors[y], rng.choice(human, N_WORDS, replace=False)))
    _assert_calibrated("vast-similarity", p_values)


# --- the intersectional differential bias (paired permutation over twin phrases) ----------------


def _phrase_projections(
    glove: WordEmbedder, direction: Direction, phrases: Sequence[Phrase]
) -> FloatArray:
    """A static stand-in for "person" in each phrase: the unit sum of the GloVe vectors of the
    phrase's categories and of "person", projected on the valence direction. (The study embeds
    the phrases with a contextual model; this additive model keeps what matters to the test,
    the twin design: every category moves the projection, each by its own amount.)"""
    words = sorted({c for phrase in phrases for c in phrase.categories} | {"person"})
    vectors = dict(zip(words, _vectors(glove, words), strict=True))
    summed = np.stack(
        [vectors["person"] + sum(vectors[c] for c in phrase.categories) for phrase in phrases]
    )
    return np.asarray(direction.project(summed / np.linalg.norm(summed, axis=1, keepdims=True)))


def test_intersectional_differential_bias(
    glove: WordEmbedder, pool: tuple[list[str], FloatArray]
) -> None:
    """The differential bias of the intersectional study (projection SC-WEAT of "person" in
    the combination phrases, Table 2): its paired permutation p, one- and two-sided, which
    swaps the projections within random twin pairs (a phrase with a bias's first category and
    the same phrase with the second). Computed by the study's own table
    (``_differential_table``) on the projections of a static stand-in for the contextual model
    (:func:`_phrase_projections`), with 8 biases (256 phrases, 128 twin pairs a bias). Strongly
    biased: the paper's smart/stupid, educated/ignorant and affluent/destitute. True null: 8
    biases of random words, and for the first bias each twin pair's two projections swapped or
    not at random (the category's label carries no information); the p of that bias counts."""
    polar = pleasant_unpleasant()
    direction = fit_direction(_vectors(glove, polar.pleasant), _vectors(glove, polar.unpleasant))
    paper = load_study()
    study = IntersectionalStudy(paper.biases[:8], template=paper.template, target=paper.target)
    phrases = combination_phrases(study)
    table = _differential_table(
        study, phrases, _phrase_projections(glove, direction, phrases), PARTITIONS, 0
    )
    for row in table.itertuples():
        if row.bias in ("intelligence", "education", "social class"):  # smart, educated, affluent
            for side, p in _sides(row).items():
                _assert_rejects(f"intersectional differential ({row.test}) {side}", p)
    words, _ = pool
    candidates = [w for w in words if w not in {"person", "a", "an"}]
    rng = np.random.default_rng(3806)
    p_values: dict[str, list[float]] = {side: [] for side in SIDES}
    unpaired: dict[str, list[float]] = {side: [] for side in SIDES}
    for seed in range(N_METRIC_QUERIES * 2):
        chosen = rng.choice(len(candidates), 16, replace=False)
        biases = tuple(
            Bias(f"bias {k}", candidates[chosen[2 * k]], candidates[chosen[2 * k + 1]])
            for k in range(8)
        )
        study = IntersectionalStudy(biases, template=paper.template, target=paper.target)
        phrases = combination_phrases(study)
        projections = _phrase_projections(glove, direction, phrases)
        pairs = twin_rows(study, phrases)[:, 0]  # [128, 2]: the first bias's twins
        swap = pairs[rng.random(len(pairs)) < 0.5]
        projections[swap[:, 0]], projections[swap[:, 1]] = (
            projections[swap[:, 1]],
            projections[swap[:, 0]],
        )
        table = _differential_table(study, phrases, projections, PARTITIONS, seed)
        groups = projections[pairs[:, 0]], projections[pairs[:, 1]]
        pooled = permutation_test(*groups, n_samples=PARTITIONS, seed=seed)
        for side in SIDES:
            p_values[side].append(_sides(table.iloc[0])[side])
            unpaired[side].append(_sides(pooled)[side])
    for side in SIDES:
        _assert_calibrated(f"intersectional differential {side}", p_values[side])
        # why the test is paired: partitions of the pooled groups, the twins' other categories
        # spread over both sides, reject almost none of the same true nulls
        share = _share(unpaired[side])
        print(f"unpaired {side} on the same nulls: share of p < {ALPHA} = {share:.3f}")
        assert share < CALIBRATED[0], f"unpaired share {share:.3f}: pairing would not be needed"
