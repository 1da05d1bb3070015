"""Sense vectors: the store, LMMS/ARES file round trips, eq. 7 word vectors, and sense vectors
built from real models out of WordNet glosses and examples."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from wordlens.errors import EmptyInputError, TargetError, WordlensError
from wordlens.models import output
from wordlens.models.base import WordEmbedder
from wordlens.models.senses import (
    GLOSS_TEMPLATE,
    SenseVectorFormatError,
    SenseVectors,
    build_sense_vectors,
    context_means,
    load_sense_vectors,
    sense_contexts,
)
from wordlens.resources.wordnet import UnknownSenseError, WordNet, load_wordnet
from wordlens.stats import cosine_similarity

BLACK_COLOUR, BLACK_RACE = "black%3:00:01::", "black%3:00:02::"
NURSE_NOUN, NURSE_VERB = "nurse%1:18:00::", "nurse%2:29:00::"
PROBES = (BLACK_COLOUR, BLACK_RACE, NURSE_NOUN, NURSE_VERB)


@pytest.fixture(scope="module")
def wordnet() -> WordNet:
    return load_wordnet()


def store(n_layers: int = 2, dim: int = 3, seed: int = 0) -> SenseVectors:
    keys = ("black%3:00:01::", "black%3:00:02::", "nurse%1:18:00::", "coca_cola%1:13:00::")
    vectors = np.random.default_rng(seed).normal(size=(len(keys), n_layers, dim)).astype(np.float32)
    return SenseVectors(keys, vectors, tuple(range(n_layers)), source="test")


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(cosine_similarity(a[np.newaxis], b[np.newaxis])[0, 0])


# --- the store -----------------------------------------------------------------------------------


def test_word_vector_is_the_mean_of_its_senses() -> None:
    senses = store()
    expected = senses.vectors[:2].astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(senses.word_vectors(["Black"])[0], expected, rtol=1e-6)
    np.testing.assert_array_equal(senses.word_vectors(["nurse"])[0], senses.vectors[2])
    np.testing.assert_array_equal(senses.word_vectors(["Coca Cola"])[0], senses.vectors[3])
    assert senses.senses_of("black") == ("black%3:00:01::", "black%3:00:02::")
    assert senses.has_word("coca cola") and not senses.has_word("white")
    np.testing.assert_array_equal(senses.sense_vectors(["NURSE%1:18:00::"]), senses.vectors[2:3])
    assert "black%3:00:02::" in senses and "black%3:00:03::" not in senses


def test_lookups_of_missing_senses_and_words_are_clear_errors() -> None:
    senses = store()
    with pytest.raises(
        UnknownSenseError, match=r"'black%3:00:07::' \(store has \['black%3:00:01::'"
    ):
        senses.sense_vectors(["black%3:00:07::"])
    with pytest.raises(UnknownSenseError, match="no sense of its lemma"):
        senses.sense_vectors(["white%3:00:01::"])
    with pytest.raises(UnknownSenseError, match=r"1 word\(s\) have no sense.*'white'"):
        senses.word_vectors(["black", "white"])
    with pytest.raises(WordlensError, match="layer 5 is not in"):
        senses.at_layer(5)


def test_a_store_rejects_bad_shapes_labels_and_repeats() -> None:
    vectors = np.zeros((2, 1, 3), dtype=np.float32)
    with pytest.raises(WordlensError, match="do not match"):
        SenseVectors(("black%3:00:01::",), vectors)
    with pytest.raises(SenseVectorFormatError, match="not lower-case WordNet sense keys"):
        SenseVectors(("black%3:00:01::", "black"), vectors)
    with pytest.raises(SenseVectorFormatError, match="more than once"):
        SenseVectors(("black%3:00:01::", "black%3:00:01::"), vectors)
    with pytest.raises(EmptyInputError):
        SenseVectors((), np.zeros((0, 1, 3), dtype=np.float32))


def test_npz_round_trip_keeps_every_layer_and_the_metadata(tmp_path: Path) -> None:
    senses = SenseVectors(store().keys, store().vectors, (3, 7), source="built", metadata={"a": 1})
    loaded = load_sense_vectors(senses.write(tmp_path / "senses.npz"))
    assert loaded.keys == senses.keys
    assert loaded.layers == (3, 7)
    np.testing.assert_array_equal(loaded.vectors, senses.vectors)
    assert loaded.source == "built" and loaded.metadata == {"a": 1}


def test_text_round_trip_is_exact_for_one_layer(tmp_path: Path) -> None:
    senses = store(n_layers=1, dim=5)
    path = senses.write(tmp_path / "senses.txt")
    first = path.read_text().splitlines()[0].split(" ")
    assert first[0] == "black%3:00:01::" and len(first) == 6
    loaded = load_sense_vectors(path)
    assert loaded.keys == senses.keys and loaded.layers == (0,)
    np.testing.assert_array_equal(loaded.vectors, senses.vectors)
    with pytest.raises(WordlensError, match="a text file holds one layer"):
        store(n_layers=2).write(tmp_path / "two.txt")
    with pytest.raises(WordlensError, match="unknown sense-vector format"):
        senses.write(tmp_path / "senses.bin")


def test_lmms_npz_and_ares_text_files_load(tmp_path: Path) -> None:
    vectors = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.savez(
        tmp_path / "lmms.npz",
        labels=np.array(["Black%3:00:01::", "nurse%1:18:00::"]),
        vectors=vectors,
    )
    lmms = load_sense_vectors(tmp_path / "lmms.npz")
    assert lmms.keys == ("black%3:00:01::", "nurse%1:18:00::")  # lower-cased
    np.testing.assert_array_equal(lmms.vectors[:, 0], vectors)
    ares = tmp_path / "ares.txt"
    ares.write_text("2 3\nblack%3:00:01:: 0 1 2 \nnurse%1:18:00::  3 4 5\n")  # stray spaces
    loaded = load_sense_vectors(ares)
    np.testing.assert_array_equal(loaded.vectors[:, 0], vectors)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("black%3:00:01:: 1 2\nnurse%1:18:00:: 1 2 3\n", "one size"),
        ("black%3:00:01:: 1 2\nnurse%1:18:00:: 1 x\n", "one size"),
        ("black%3:00:01:: 1 2\nnurse%1:18:00:: 1\n", r"line 2: missing"),
        ("3 2\nblack%3:00:01:: 1 2\nnurse%1:18:00:: 3 4\n", "header says 3 senses"),
        ("black%3:00:01:: 1 2\nblack%3:00:01:: 3 4\n", "more than once"),
        ("black 1 2\n", "not lower-case WordNet sense keys"),
    ],
)
def test_malformed_text_files_name_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(SenseVectorFormatError, match=message):
        load_sense_vectors(path)


def test_npz_files_are_read_without_unpickling(tmp_path: Path) -> None:
    labels = np.array(["black%3:00:01::", None], dtype=object)
    np.savez(tmp_path / "pickled.npz", labels=labels, vectors=np.zeros((2, 3)))
    with pytest.raises(SenseVectorFormatError, match="without unpickling"):
        load_sense_vectors(tmp_path / "pickled.npz")
    np.savez(tmp_path / "other.npz", keys=np.array(["black%3:00:01::"]), vectors=np.zeros((1, 3)))
    with pytest.raises(SenseVectorFormatError, match=r"missing \['labels'\]"):
        load_sense_vectors(tmp_path / "other.npz")
    with pytest.raises(WordlensError, match="not found"):
        load_sense_vectors(tmp_path / "absent.npz")


# --- contexts ------------------------------------------------------------------------------------


def test_gloss_context_puts_the_lemma_after_the_gloss(wordnet: WordNet) -> None:
    noun = sense_contexts(wordnet.sense(NURSE_NOUN))
    assert [target.text for target in noun] == [
        "one skilled in caring for young children or the sick (usually under the supervision of "
        "a physician): nurse"
    ]
    assert noun[0].word == "nurse" and noun[0].end == len(noun[0].text)
    race = sense_contexts(wordnet.sense(BLACK_RACE))
    assert race[0].text.startswith("of or belonging to a racial group having dark skin")
    assert race[0].text.endswith(": black") and race[0].word == "black"
    assert [t.word for t in race[1:]] == ["black"]
    assert "a black people" in race[1].text
    # "He nursed his cold ..." uses an inflected form: only the gloss context remains
    assert len(sense_contexts(wordnet.sense(NURSE_VERB))) == 1
    first = sense_contexts(wordnet.sense(NURSE_NOUN), "{lemma}: {gloss}")[0]
    assert first.text.startswith("nurse: one skilled") and first.start == 0


def test_examples_match_a_capitalized_lemma_and_a_seeded_cap(wordnet: WordNet) -> None:
    colour = wordnet.sense(BLACK_COLOUR)
    assert len(sense_contexts(colour)) == 1 + 3  # "black leather jackets", "as black as coal", ...
    capped = [
        sense_contexts(colour, max_examples=1, rng=np.random.default_rng(s)) for s in (0, 0, 5)
    ]
    assert [len(c) for c in capped] == [2, 2, 2]
    assert capped[0] == capped[1]
    assert sense_contexts(colour, max_examples=0)[0].text.endswith(": black")
    with pytest.raises(WordlensError, match="random generator"):
        sense_contexts(colour, max_examples=1)
    tourism = sense_contexts(wordnet.sense("tourism%1:04:00::"))
    assert [(t.text, t.word) for t in tourism[1:]] == [
        ("Tourism is a major business in Bermuda", "Tourism")
    ]
    with pytest.raises(TargetError, match="exactly once"):
        sense_contexts(colour, "{gloss}")


# --- built from real models ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("model_name", ["minilm", "smollm2"])
def test_built_sense_vectors_separate_the_senses_of_black_and_nurse(
    model_name: str, request: pytest.FixtureRequest, wordnet: WordNet
) -> None:
    model: WordEmbedder = request.getfixturevalue(model_name)
    senses = build_sense_vectors(model, PROBES, layers=[-1], wordnet=wordnet)
    assert senses.keys == PROBES and senses.layers == (model.n_layers - 1,)
    vector = {key: senses.sense_vectors([key])[0, 0] for key in PROBES}
    assert cosine(vector[BLACK_COLOUR], vector[BLACK_RACE]) < 0.95
    assert cosine(vector[NURSE_NOUN], vector[NURSE_VERB]) < 0.95
    assert senses.metadata["contexts_per_sense"] == {
        BLACK_COLOUR: 4,
        BLACK_RACE: 2,
        NURSE_NOUN: 1,
        NURSE_VERB: 1,
    }
    assert senses.metadata["model"]["fingerprint"] == model.info.fingerprint
    assert senses.metadata["gloss_template"] == GLOSS_TEMPLATE


@pytest.mark.slow
@pytest.mark.parametrize("model_name", ["minilm", "smollm2"])
def test_held_out_examples_of_black_lie_nearer_their_own_sense_gloss(
    model_name: str, request: pytest.FixtureRequest, wordnet: WordNet
) -> None:
    """Each example sentence of "black" (3 of the colour, 1 of the race) is nearer, at the top
    layer, to the gloss-context vector of its own sense than to that of the other sense."""
    model: WordEmbedder = request.getfixturevalue(model_name)
    contexts = {key: sense_contexts(wordnet.sense(key)) for key in (BLACK_COLOUR, BLACK_RACE)}
    vectors = {key: model.embed(targets, [-1]).vectors[:, 0] for key, targets in contexts.items()}
    for own, other in ((BLACK_COLOUR, BLACK_RACE), (BLACK_RACE, BLACK_COLOUR)):
        for example in vectors[own][1:]:
            assert cosine(example, vectors[own][0]) > cosine(example, vectors[other][0])


@pytest.mark.slow
def test_built_vector_is_the_mean_of_its_context_vectors(
    minilm: WordEmbedder, wordnet: WordNet
) -> None:
    senses = build_sense_vectors(
        minilm, [BLACK_COLOUR, BLACK_COLOUR.upper()], [0, -1], wordnet=wordnet
    )
    assert senses.keys == (BLACK_COLOUR,)  # repeats are kept once
    contexts = sense_contexts(wordnet.sense(BLACK_COLOUR))
    direct = minilm.embed(contexts, [0, -1]).vectors.astype(np.float64).mean(axis=0)
    np.testing.assert_allclose(senses.vectors[0], direct, rtol=1e-5, atol=1e-6)


def _one_call_means(contexts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The reference: every row converted to float64 at once, one ``reduceat``."""
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    sums = np.add.reduceat(np.asarray(contexts, dtype=np.float64), starts, axis=0)
    means: np.ndarray = (sums / counts[:, np.newaxis, np.newaxis]).astype(np.float32)
    return means


@pytest.mark.slow
def test_context_means_in_blocks_equal_one_call_on_real_context_vectors(
    minilm: WordEmbedder, wordnet: WordNet
) -> None:
    contexts = [sense_contexts(wordnet.sense(key)) for key in PROBES]
    counts = np.array([len(targets) for targets in contexts], dtype=np.int64)
    vectors = minilm.embed([t for targets in contexts for t in targets], [0, 3, -1]).vectors
    expected = _one_call_means(vectors, counts)
    row_bytes = 8 * vectors[0].size
    for block_bytes in (None, 1, 3 * row_bytes, 5 * row_bytes):  # 1 byte: one run a block
        np.testing.assert_array_equal(context_means(vectors, counts, block_bytes), expected)


def test_context_means_never_hold_the_contexts_in_float64(tmp_path: Path) -> None:
    """A spilled extraction's output is read a block at a time: the float64 copy of all the
    contexts (and their sums), 71 MB here, is never allocated."""
    rng = np.random.default_rng(3)
    counts = rng.integers(1, 8, size=5_000)
    contexts = np.lib.format.open_memmap(
        tmp_path / "contexts.npy", "w+", np.float32, (int(counts.sum()), 7, 64)
    )
    contexts[:] = rng.normal(size=contexts.shape)
    whole_float64 = contexts.size * 8
    tracemalloc.start()
    try:
        means = context_means(contexts, counts, block_bytes=1 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(means, _one_call_means(contexts, counts))
    assert peak < whole_float64 / 4, f"peak {peak / 2**20:.1f} MiB"


@pytest.mark.slow
def test_sense_vectors_from_a_spilled_extraction_equal_those_kept_in_ram(
    minilm: WordEmbedder, wordnet: WordNet, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_ram = build_sense_vectors(minilm, PROBES, [0, -1], wordnet=wordnet)
    monkeypatch.setattr(output, "IN_MEMORY_BYTES", 0)  # spill, and average one sense a block
    spilled = build_sense_vectors(minilm, PROBES, [0, -1], wordnet=wordnet)
    assert spilled.keys == in_ram.keys
    np.testing.assert_array_equal(spilled.vectors, in_ram.vectors)


def test_a_static_model_gives_every_sense_of_a_word_its_word_vector(
    glove: WordEmbedder, wordnet: WordNet
) -> None:
    senses = build_sense_vectors(
        glove, [BLACK_COLOUR, BLACK_RACE, "coca_cola%1:13:00::"], wordnet=wordnet
    )
    assert senses.keys == (BLACK_COLOUR, BLACK_RACE)
    assert senses.metadata["dropped_senses"] == ["coca_cola%1:13:00::"]  # "Coca Cola" not in GloVe
    np.testing.assert_array_equal(senses.vectors[0], senses.vectors[1])
    np.testing.assert_array_equal(senses.vectors[0, 0], glove.embed_words(["black"]).vectors[0, 0])
    with pytest.raises(EmptyInputError, match="cannot embed any lemma"):
        build_sense_vectors(glove, ["coca_cola%1:13:00::"], wordnet=wordnet)


def test_builder_input_errors(glove: WordEmbedder, wordnet: WordNet) -> None:
    with pytest.raises(EmptyInputError, match="no sense keys"):
        build_sense_vectors(glove, [], wordnet=wordnet)
    with pytest.raises(UnknownSenseError, match="black%3:00:09::"):
        build_sense_vectors(glove, ["black%3:00:09::"], wordnet=wordnet)
    with pytest.raises(TargetError, match="exactly once"):
        build_sense_vectors(glove, [BLACK_COLOUR], gloss_template="{lemma}", wordnet=wordnet)
    with pytest.raises(WordlensError, match="max_examples"):
        build_sense_vectors(glove, [BLACK_COLOUR], max_examples=-1, wordnet=wordnet)
