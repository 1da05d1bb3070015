"""Fast MiniLM checks of the intersectional experiments' tables and metadata, against the direct
formulas (issue 28's survivors; the smollm2 test that checks eq. 2 is too slow for mutmut)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wordlens.contexts.intersectional import (
    Bias,
    IntersectionalStudy,
    combination_phrases,
    membership_table,
)
from wordlens.methods.intersectional import IntersectionalConfig
from wordlens.methods.intersectional.experiments import (
    run_differential_bias,
    run_projection_valnorm,
)
from wordlens.models.base import WordEmbedder
from wordlens.resources import load_lexicon
from wordlens.stats import fit_direction

STUDY = IntersectionalStudy(
    (
        Bias("social class", "affluent", "destitute"),
        Bias("sex", "male", "female"),
    ),
    strongest_biases=("sex",),
    name="two biases",
)


def test_minilm_differential_bias_is_eq2_with_the_sample_std(minilm: WordEmbedder) -> None:
    rng = np.random.default_rng(5)
    d = minilm.info.hidden_size
    direction = fit_direction(rng.normal(1.0, 1.0, (5, d)), rng.normal(-1.0, 1.0, (7, d)))
    config = IntersectionalConfig(pooling="mean", permutations=100, seed=3)
    run = run_differential_bias(minilm, STUDY, config, direction=direction)
    assert run.metadata["pooling"] == "mean"
    assert run.metadata["direction"]["n_positive"] == 5
    assert run.metadata["direction"]["n_negative"] == 7
    phrases = combination_phrases(STUDY)
    projections = run.tables["combination_projections"]["projection"].to_numpy()
    members = membership_table(phrases, STUDY.categories)
    differential = run.tables["differential"]
    assert len(differential) == 2
    for row in differential.itertuples():
        group_a = projections[members[row.first].to_numpy()]
        group_b = projections[members[row.second].to_numpy()]
        pooled = np.concatenate([group_a, group_b])
        direct = (group_a.mean() - group_b.mean()) / pooled.std(ddof=1)
        assert row.effect_size == pytest.approx(direct, rel=1e-12)


def test_minilm_valnorm_metadata_names_the_pooling(minilm: WordEmbedder, tmp_path: Path) -> None:
    path = tmp_path / "bellezza-sample.csv"
    load_lexicon("bellezza").data.iloc[::20].to_csv(path, index=False)
    config = IntersectionalConfig(lexicon=str(path), layers=(0,), pooling="first")
    run = run_projection_valnorm(minilm, config)
    assert run.metadata["pooling"] == "first"
    assert run.metadata["n_lexicon_words"] == 20 == run.tables["valnorm"]["n"].iloc[0]
