"""Fast VAST checks of what issue 28's survivors changed: names, labels and metadata the tables
and reports carry, the custom templates and the multilingual rows, against values written out
here (the registered WEAT titles, the lexicon's language, the template file)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from wordlens.errors import WordlensError
from wordlens.methods.vast import VastConfig
from wordlens.methods.vast import experiments as vast_experiments
from wordlens.methods.vast.experiments import (
    _build_banks,
    _polar_pairs,
    _Study,
    multilingual_experiment,
    run_vast,
)
from wordlens.methods.vast.polar import polar_sets
from wordlens.methods.vast.population import authors_population, lexicon_population
from wordlens.methods.vast.similarity import _check_nonzero
from wordlens.methods.vast.top_pcs import run_cola_probe, run_pos_probe
from wordlens.models.base import WordEmbedder
from wordlens.resources import load_lexicon, load_tagger, load_weat_tests
from wordlens.stages import Timings


def _lexicon_file(tmp_path: Path, step: int) -> Path:
    path = tmp_path / "bellezza-part.csv"
    rows = load_lexicon("bellezza").data.iloc[::step]
    path.write_text(rows[["word", "valence"]].to_csv(index=False), encoding="utf-8")
    return path


def test_glove_weat_rows_carry_the_test_titles_and_the_layers_stage_is_timed(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    config = VastConfig(
        lexica=(str(_lexicon_file(tmp_path, 10)),),
        tokenization=False,
        similarity=(),
        probes=False,
        max_pcs=1,
        pc_population="lexicon",
        permutations=50,
    )
    run = run_vast(glove, config)
    assert {"layers", "nullification"} <= set(run.metadata["timings_s"])
    weat = run.tables["weat"]
    titles = {test.id: test.title for test in load_weat_tests()}
    assert set(weat["test"]) <= set(titles) and len(set(weat["test"])) > 1
    assert list(weat["title"]) == [titles[test] for test in weat["test"]]


def test_custom_templates_reach_the_misaligned_contexts(
    minilm: WordEmbedder, tmp_path: Path
) -> None:
    templates = tmp_path / "templates.json"
    texts = [f"Level {i} thought: {{word}}" for i in range(5)]
    templates.write_text(json.dumps({"edges": [1, 2.5, 4, 6, 7.5, 9], "templates": texts}))
    config = VastConfig(
        lexica=(str(_lexicon_file(tmp_path, 40)),),
        settings=("misaligned",),
        pooling=("last",),
        layers=(6,),
        templates=templates,
    )
    lexica = [load_lexicon(str(_lexicon_file(tmp_path, 40)))]
    study = _Study(minilm, config, None, False, Timings(), lexica, _polar_pairs(["valence"]))
    _build_banks(study, [])
    assert study.reports["misaligned_contexts"]["templates"] == str(templates)


def test_multilingual_rows_name_the_lexicons_language(
    minilm: WordEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def every_50th(name: str, **options: object) -> object:
        lexicon = load_lexicon(name, **options)  # type: ignore[arg-type]
        sample = lexicon.data.iloc[::50].reset_index(drop=True)
        return type(lexicon)(lexicon.name, lexicon.language, lexicon.scale, sample)

    monkeypatch.setattr(vast_experiments, "load_lexicon", every_50th)
    config = VastConfig(lexica=("bellezza",), multilingual=("anew-spanish",), layers=(0, 6))
    study = _Study(minilm, config, None, False, Timings(), [], _polar_pairs(["valence"]))
    table = multilingual_experiment(study)
    assert list(table["layer"]) == [0, 6]
    assert table["language"].eq("es").all() and table["lexicon"].eq("anew-spanish").all()
    assert table["template"].eq("Esto es {word}").all() and table["n"].min() > 10


def test_polar_sets_and_populations_are_named() -> None:
    valence = polar_sets("valence", "en")
    assert (valence.dimension, valence.language) == ("valence", "en")
    lexicon = load_lexicon("bellezza")
    population = lexicon_population(lexicon, ["joy", "joy", "grief"])
    assert population.name == "lexicon" and population.polar_words == ("joy", "grief")
    assert population.description.startswith("the bellezza lexicon (399 words)")
    authors = authors_population(["joy", "grief"])
    assert authors.name == "authors"
    assert f"{len(authors.words):,} distinct words" in authors.description
    assert "plus the 2 polar words again" in authors.description


def test_a_zero_vector_is_named_by_word_and_layer() -> None:
    vectors = np.ones((3, 2, 4))
    vectors[1, 1] = 0.0
    vectors[2, 0] = 0.0
    with pytest.raises(WordlensError, match=r"2 zero vector\(s\), e.g. 'b' at layer 7"):
        _check_nonzero(vectors, ["a", "b", "c"], [3, 7])
    _check_nonzero(np.ones((3, 2, 4)), ["a", "b", "c"], [3, 7])


def test_cola_probe_metadata_times_its_stages(minilm: WordEmbedder) -> None:
    result = run_cola_probe(minilm, [1], n_train=30, n_test=20, seed=0)
    assert set(result.metadata["timings_s"]) == {"embed", "probe"}


def test_pos_probe_metadata_times_its_stages(minilm: WordEmbedder, shared: Path) -> None:
    result = run_pos_probe(minilm, [1], n_train=30, n_test=20, tagger=load_tagger(500), seed=0)
    assert set(result.metadata["timings_s"]) == {"tag", "embed", "probe"}


def test_a_user_lexicon_is_read_in_the_configured_encoding(tmp_path: Path) -> None:
    lexicon = tmp_path / "accents.csv"
    lexicon.write_bytes("word,valence\ncafé,7.5\nrésumé,5.0\nnaïve,4.0\n".encode("latin-1"))
    config = VastConfig(
        lexica=(str(lexicon),), encoding="latin-1", tokenization=False, similarity=()
    )
    (loaded,) = vast_experiments.read_vast_inputs(config).lexica
    assert list(loaded.data["word"]) == ["café", "résumé", "naïve"]


def test_a_top_pc_without_scores_is_a_nan_row_with_its_reason(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    """A lexicon of number words on GloVe, PCs fitted on it and the polar words: every polar
    word lies on one side of PC 1, so with the top PC only (k = 1) every SC-WEAT is 0/0. The
    run completes; that row is NaN with its reason, the others are scored (this aborted the
    whole experiment with "no pair of values without NaN to correlate")."""
    numbers = "one two three four five six seven eight nine ten eleven twelve twenty thirty"
    words = [*numbers.split(), *map(str, range(1, 60))]
    path = tmp_path / "numbers.csv"
    ratings = [5.0 + 0.01 * (index % 7) for index in range(len(words))]
    path.write_text(
        "word,valence\n" + "".join(f"{w},{r}\n" for w, r in zip(words, ratings, strict=True)),
        encoding="utf-8",
    )
    config = VastConfig(
        lexica=(str(path),),
        tokenization=False,
        similarity=(),
        weat=False,
        probes=False,
        max_pcs=2,
        pc_population="lexicon",
    )
    table = run_vast(glove, config).tables["nullification"]
    top_one = table[(table["representation"] == "top") & (table["k"] == 1)]
    assert len(top_one) == 1 and np.isnan(top_one["r"].iloc[0]) and top_one["n"].iloc[0] == 0
    reason = f"0 of {len(words)} pair(s) without NaN: a correlation needs at least 3"
    assert top_one["reason"].iloc[0] == reason
    scored = table.drop(top_one.index)
    assert len(scored) == 4 and scored["r"].notna().all() and scored["reason"].isna().all()
