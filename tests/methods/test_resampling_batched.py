"""The resampling of the association metrics is array work over blocks of draws
(:mod:`wordlens.methods.association.resampling`): its intervals and p-values must be those of
the per-draw loop it replaced, for the same seed. The loop is written out here as it was (one
``rng.integers`` call per set and resample, one metric call per draw, the relabelled sets built
one at a time), on GloVe vectors, for every metric; a different seed must give a different
result, so that the comparison can fail."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from wordlens.methods.association import AssociationConfig, AssociationMethod
from wordlens.methods.association import resampling as resampling_module
from wordlens.methods.association.resampling import (
    bootstrap_draws,
    bootstrap_interval,
    permutation_p,
)
from wordlens.methods.association.vectors import FloatArray
from wordlens.methods.ect import EmbeddingCoherenceTest
from wordlens.methods.mac import MeanAverageCosine
from wordlens.methods.ripa import Ripa, RipaConfig
from wordlens.methods.rnd import RelativeNormDistance, RndConfig
from wordlens.methods.rnsb import Rnsb, RnsbConfig
from wordlens.methods.semaxis import SemAxis
from wordlens.models.base import WordEmbedder
from wordlens.stats.association import RELATIVE_TOLERANCE
from wordlens.stats.permutation import iter_partitions, iter_swaps

Unbatched = Callable[[Sequence[FloatArray], Sequence[FloatArray]], FloatArray]

FLOWERS = ["rose", "tulip", "daisy", "lily", "orchid", "iris", "violet", "poppy"]
INSECTS = ["ant", "wasp", "flea", "moth", "beetle", "spider", "roach", "bee"]
PLEASANT = ["love", "peace", "gift", "joy", "honest", "lucky", "happy", "heaven"]
UNPLEASANT = ["hate", "war", "filth", "rotten", "agony", "evil", "poison", "ugly"]

METRICS: list[tuple[AssociationMethod[Any], AssociationConfig]] = [
    (EmbeddingCoherenceTest(), AssociationConfig()),
    (Ripa(), RipaConfig()),
    (Ripa(), RipaConfig(relation="pairs")),
    (RelativeNormDistance(), RndConfig()),
    (RelativeNormDistance(), RndConfig(normalize=False, average=True, distance="cos")),
    (SemAxis(), AssociationConfig()),
    (MeanAverageCosine(), AssociationConfig()),
]
IDS = ["ect", "ripa-pc", "ripa-pairs", "rnd", "rnd-wefe", "semaxis", "mac"]


def _layered(glove: WordEmbedder, words: list[str]) -> FloatArray:
    """GloVe vectors of ``words`` as three layers, ``[n, 3, 50]``: the vectors, their
    coordinates reversed, and their squares (distinct geometry per layer)."""
    from wordlens.contexts import decontextualized_targets

    vectors = glove.embed(decontextualized_targets(words)).vectors[:, 0]
    flat = np.asarray(vectors, dtype=np.float64)  # [n, 50]
    return np.stack([flat, flat[:, ::-1], flat**2], axis=1)


@pytest.fixture(scope="module")
def sets(glove: WordEmbedder) -> dict[str, FloatArray]:
    return {
        name: _layered(glove, words)
        for name, words in (
            ("x", FLOWERS),
            ("y", INSECTS),
            ("a", PLEASANT),
            ("b", UNPLEASANT),
        )
    }


def _part(
    method: AssociationMethod[Any], sets: dict[str, FloatArray]
) -> tuple[list[FloatArray], list[FloatArray]]:
    """The target and attribute sets of the metric's first part (one attribute set or both)."""
    attributes = [sets["a"]] if method.attributes_per_part == 1 else [sets["a"], sets["b"]]
    return [sets["x"], sets["y"]], attributes


def _loop_interval(
    score: Unbatched,
    targets: Sequence[FloatArray],
    attributes: Sequence[FloatArray],
    *,
    resamples: int,
    confidence: float,
    seed: int,
    paired_targets: bool = False,
) -> tuple[FloatArray, FloatArray]:
    """The bootstrap interval as the per-draw loop computed it."""
    rng = np.random.default_rng(seed)

    def drawn(sets: Sequence[FloatArray]) -> list[FloatArray]:
        return [words[rng.integers(0, len(words), len(words))] for words in sets]

    draws = []
    for _ in range(resamples):
        if paired_targets:
            rows = rng.integers(0, len(targets[0]), len(targets[0]))
            chosen = [words[rows] for words in targets]
        else:
            chosen = drawn(targets)
        draws.append(score(chosen, drawn(attributes)))
    values = np.asarray(draws, dtype=np.float64)
    tail = (1 - confidence) / 2
    with np.errstate(all="ignore"):
        usable = ~np.isnan(values).all(axis=0)
        low = np.full(values.shape[1], np.nan)
        high = np.full(values.shape[1], np.nan)
        if usable.any():
            low[usable] = np.nanquantile(values[:, usable], tail, axis=0)
            high[usable] = np.nanquantile(values[:, usable], 1 - tail, axis=0)
    return low, high


def _loop_p(
    score: Unbatched,
    targets: Sequence[FloatArray],
    attributes: Sequence[FloatArray],
    *,
    permutations: int,
    seed: int,
    paired_targets: bool = False,
    tail: str = "two-sided",
) -> tuple[FloatArray, int]:
    """The permutation p and the number of relabellings as the per-draw loop computed them."""
    sign = -1.0 if tail == "less" else 1.0

    def oriented(values: FloatArray) -> FloatArray:
        return np.abs(values) if tail == "two-sided" else sign * values

    x, y = targets
    if paired_targets:
        splits = (
            [np.where(swap[:, None, None], y, x), np.where(swap[:, None, None], x, y)]
            for chunk in iter_swaps(len(x), n_samples=permutations, seed=seed)
            for swap in chunk
        )
    else:
        pooled = np.concatenate(targets)
        splits = (
            [pooled[first], pooled[~first]]
            for chunk in iter_partitions(len(x), len(y), n_samples=permutations, seed=seed)
            for first in chunk
        )
    observed = oriented(score(targets, attributes))
    threshold = observed - RELATIVE_TOLERANCE * np.maximum(1.0, np.abs(observed))
    reached = np.zeros_like(observed)
    n = 0
    for split in splits:
        with np.errstate(invalid="ignore"):
            reached += oriented(score(split, attributes)) >= threshold
        n += 1
    return np.where(np.isnan(observed), np.nan, reached / n), n


def _unbatched(method: AssociationMethod[Any], config: AssociationConfig) -> Unbatched:
    def score(targets: Sequence[FloatArray], attributes: Sequence[FloatArray]) -> FloatArray:
        return method.score(targets, attributes, config)

    return score


def _compare(
    method: AssociationMethod[Any],
    config: AssociationConfig,
    targets: list[FloatArray],
    attributes: list[FloatArray],
    *,
    resamples: int = 200,
    permutations: int = 300,
    seed: int = 11,
) -> tuple[tuple[FloatArray, FloatArray], FloatArray | None]:
    """The batched interval and p against the loop's (equal), returned for further checks."""
    paired = method.paired_targets
    batched = bootstrap_interval(
        method.draws_score(config),
        targets,
        attributes,
        resamples=resamples,
        confidence=0.9,
        seed=seed,
        paired_targets=paired,
    )
    looped = _loop_interval(
        _unbatched(method, config),
        targets,
        attributes,
        resamples=resamples,
        confidence=0.9,
        seed=seed,
        paired_targets=paired,
    )
    for ours, theirs in zip(batched, looped, strict=True):
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)
    scheme = method.scheme(config)
    if scheme not in ("target words", "target pairs"):
        return batched, None
    tail = {"larger": "greater", "smaller": "less"}.get(method.more_bias, "two-sided")
    test = permutation_p(
        method.draws_score(config),
        targets,
        attributes,
        permutations=permutations,
        seed=seed,
        paired_targets=scheme == "target pairs",
        tail=tail,  # type: ignore[arg-type]
    )
    p, n = _loop_p(
        _unbatched(method, config),
        targets,
        attributes,
        permutations=permutations,
        seed=seed,
        paired_targets=scheme == "target pairs",
        tail=tail,
    )
    assert test.n_relabellings == n
    np.testing.assert_array_equal(test.p, p)  # exactly: counts of the same comparisons
    return batched, test.p


@pytest.mark.parametrize(("method", "config"), METRICS, ids=IDS)
def test_batched_resampling_equals_the_per_draw_loop(
    method: AssociationMethod[Any],
    config: AssociationConfig,
    sets: dict[str, FloatArray],
) -> None:
    """8 + 8 targets, 8 attribute words (or 8 + 8), three layers: the sampled p (300 of the
    12,870 partitions or of the 256 swaps) and the 90% interval of 200 resamples equal the
    loop's; a different seed moves the interval (and the sampled p)."""
    targets, attributes = _part(method, sets)
    interval, p = _compare(method, config, targets, attributes)
    other, other_p = _compare(method, config, targets, attributes, seed=12)
    assert not np.array_equal(interval[0], other[0])  # the comparison can fail
    if p is not None and other_p is not None and method.scheme(config) == "target words":
        assert not np.array_equal(p, other_p)


@pytest.mark.parametrize(("method", "config"), METRICS, ids=IDS)
def test_small_blocks_give_the_same_draws(
    method: AssociationMethod[Any],
    config: AssociationConfig,
    sets: dict[str, FloatArray],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Blocks of a few draws (the last one shorter) score the same draws as one block."""
    targets, attributes = _part(method, sets)
    per_draw = sum(words[0].size * 8 * len(words) for words in (*targets, *attributes))
    monkeypatch.setattr(resampling_module, "BLOCK_BYTES", 3 * per_draw)
    _compare(method, config, targets, attributes, resamples=50, permutations=70)


@pytest.mark.parametrize(("method", "config"), METRICS, ids=IDS)
def test_edge_cases_equal_the_loop(
    method: AssociationMethod[Any],
    config: AssociationConfig,
    sets: dict[str, FloatArray],
) -> None:
    """Two words per set (every relabelling enumerated), ties (repeated vectors: equal
    cosines, equal relabelled values), a zero vector (NaN cosines, NaN draws left out of the
    quantiles) and a constant set (every word the same vector)."""
    x, y, a, b = (sets[name] for name in "xyab")
    cases = {
        "two words": ([x[:2], y[:2]], [a[:2], b[:2]]),
        "ties": ([x[[0, 0, 1, 1]], x[[0, 1, 1, 0]]], [a[[0, 0, 1, 2, 2]], b[[3, 3, 4, 4, 5]]]),
        "zero vector": ([x[:4], y[:4]], [np.concatenate([a[:3], np.zeros_like(a[:1])]), b[:4]]),
        "constant": ([x[:3], y[:3]], [np.repeat(a[:1], 4, axis=0), b[:4]]),
        "uneven attribute sets": ([x[:3], y[:3]], [a[:5], b[:2]]),
    }
    if not method.paired_targets:  # the loop drew sets of different sizes one after the other
        cases["uneven target sets"] = ([x[:2], y[:5]], [a[:3], b[:6]])
    for targets, attributes in cases.values():
        chosen = attributes[:1] if method.attributes_per_part == 1 else attributes
        _compare(method, config, targets, chosen, resamples=60, permutations=40)


def test_rnsb_is_resampled_one_draw_at_a_time(sets: dict[str, FloatArray]) -> None:
    """RNSB refits its classifiers on every draw (not batched): its interval is the loop's."""
    method, config = Rnsb(), RnsbConfig(fits=1, holdout=False)
    assert not method.batched
    targets, attributes = [sets["x"][:4], sets["y"][:4]], [sets["a"], sets["b"]]
    interval, _ = _compare(method, config, targets, attributes, resamples=12)
    assert np.isfinite(interval[0]).all()


@pytest.mark.parametrize(
    "sizes", [[8, 8, 8, 8], [8, 8], [3, 5, 2, 7], [1, 4, 1], [2, 2, 2, 2], [25, 25, 300]]
)
@pytest.mark.parametrize("seed", [0, 1, 2024])
def test_bootstrap_draws_are_the_loops_stream(sizes: list[int], seed: int) -> None:
    """One ``rng.integers`` call with each column's set size gives the row numbers that one
    call per set and resample gave, in the same order (a numpy change would fail here)."""
    rng = np.random.default_rng(seed)
    looped = [
        [rng.integers(0, size, size) for size in sizes] for _ in range(40)
    ]  # [resamples][sets]
    drawn = bootstrap_draws(sizes, 40, np.random.default_rng(seed))
    for column, rows in enumerate(drawn):
        assert rows.shape == (40, sizes[column])
        np.testing.assert_array_equal(rows, np.stack([draw[column] for draw in looped]))
