"""Subtoken alignment and pooling on real tokenizers and models (smollm2-135m, minilm-l6)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from wordlens.contexts import Target, target_from_word, targets_from_template
from wordlens.errors import AlignmentError, EmptyInputError, TargetError, WordlensError
from wordlens.models.align import subtoken_span
from wordlens.models.base import POOLINGS, WordEmbedder
from wordlens.models.hf import HFEmbedder, batches_by_token_budget
from wordlens.stages import StageLog, Timings, recording

HARD_CASES = [
    # (text, word, occurrence): leading-space BPE, several subtokens, repeated word,
    # punctuation next to the word, capitalized name, non-ASCII, sentence-initial word
    ("This is pleasant", "pleasant", 0),
    ("This is unpleasantness", "unpleasantness", 0),
    ("The cat saw the cat.", "cat", 1),
    ("Well, hello!", "hello", 0),
    ("I met Lakisha yesterday", "Lakisha", 0),
    ("Der Müller lebt in Zürich", "Zürich", 0),
    ("Zoë said: naïveté?", "naïveté", 0),
    ("Pleasant it was", "Pleasant", 0),
]


def tokens_of(model: HFEmbedder, target: Target) -> list[str]:
    """The subtoken strings wordlens assigns to a target (decoded to text)."""
    (encoded,) = model.encode([target])
    ids = encoded.input_ids[encoded.span[0] : encoded.span[1]]
    return [model.tokenizer.decode([token_id]) for token_id in ids]


@pytest.mark.parametrize(("text", "word", "occurrence"), HARD_CASES)
@pytest.mark.parametrize("model_name", ["smollm2", "minilm"])
def test_subtokens_spell_the_word(
    text: str, word: str, occurrence: int, model_name: str, request: pytest.FixtureRequest
) -> None:
    model = request.getfixturevalue(model_name)
    assert isinstance(model, HFEmbedder)
    target = target_from_word(text, word, occurrence)
    pieces = tokens_of(model, target)
    joined = "".join(piece.replace("##", "") for piece in pieces).strip()
    expected = word.lower() if model_name == "minilm" else word
    if model_name == "minilm":  # uncased WordPiece strips accents
        import unicodedata

        expected = "".join(
            c for c in unicodedata.normalize("NFD", expected) if not unicodedata.combining(c)
        )
    assert joined == expected


def test_second_occurrence_gets_its_own_position(smollm2: HFEmbedder) -> None:
    first, second = (target_from_word("The cat saw the cat.", "cat", k) for k in (0, 1))
    spans = [encoded.span for encoded in smollm2.encode([first, second])]
    assert spans[0] != spans[1]
    vectors = smollm2.embed([first, second], layers=[0, 6]).vectors
    np.testing.assert_array_equal(vectors[0, 0], vectors[1, 0])  # same token embedding
    assert not np.allclose(vectors[0, 1], vectors[1, 1])  # different context at layer 6


def test_multi_subtoken_word_counts(smollm2: HFEmbedder, minilm: HFEmbedder) -> None:
    """Counts equal the tokenizer's own split of the word as it appears (after a space)."""
    words = ["pleasant", "unpleasantness", "Lakisha", "extraordinarily"]
    targets = targets_from_template(words)
    for model in (smollm2, minilm):
        expected = [len(model.tokenizer.tokenize(" " + word)) for word in words]
        assert list(model.embed(targets, layers=[0]).n_subtokens) == expected
        assert expected[0] == 1 and max(expected) > 1


def test_causal_model_gets_bos(smollm2: HFEmbedder, minilm: HFEmbedder) -> None:
    (encoded,) = smollm2.encode(targets_from_template(["pleasant"]))
    assert encoded.input_ids[0] == smollm2.bos_token_id
    assert smollm2.info.details["bos_token"] == "<|im_start|>"
    assert minilm.bos_token_id is None  # [CLS] is added by the tokenizer itself
    (encoded,) = minilm.encode(targets_from_template(["pleasant"]))
    assert encoded.input_ids[0] == minilm.tokenizer.cls_token_id


def test_layers_follow_hidden_states(smollm2: HFEmbedder) -> None:
    assert smollm2.n_layers == 31 and smollm2.info.hidden_size == 576
    target = targets_from_template(["pleasant"])
    (encoded,) = smollm2.encode(target)
    with torch.inference_mode():
        hidden = smollm2.model(
            input_ids=torch.tensor([encoded.input_ids]), output_hidden_states=True
        ).hidden_states
    vectors = smollm2.embed(target, layers=[0, 15, -1], pooling="last").vectors[0]
    for row, layer in enumerate([0, 15, 30]):
        np.testing.assert_allclose(vectors[row], hidden[layer][0, encoded.span[1] - 1], rtol=1e-5)


@pytest.mark.parametrize("pooling", POOLINGS)
def test_pooling_matches_manual_slicing(smollm2: HFEmbedder, pooling: str) -> None:
    targets = targets_from_template(
        ["unpleasantness", "pleasant", "Lakisha"], "We said {word} twice"
    )
    got = smollm2.embed(targets, layers=[3, 30], pooling=pooling).vectors  # type: ignore[arg-type]
    for row, encoded in enumerate(smollm2.encode(targets)):
        with torch.inference_mode():
            hidden = smollm2.model(
                input_ids=torch.tensor([encoded.input_ids]), output_hidden_states=True
            ).hidden_states
        for column, layer in enumerate([3, 30]):
            pieces = hidden[layer][0, encoded.span[0] : encoded.span[1]].numpy()
            manual = {
                "first": pieces[0],
                "last": pieces[-1],
                "mean": pieces.mean(axis=0),
                "max": pieces.max(axis=0),
            }[pooling]
            scale = float(np.abs(pieces).max())
            np.testing.assert_allclose(got[row, column], manual, atol=1e-5 * scale, rtol=0)


@pytest.mark.parametrize("model_name", ["smollm2", "minilm"])
def test_batched_equals_one_at_a_time(model_name: str, request: pytest.FixtureRequest) -> None:
    """Batched vectors equal single-text vectors to 1e-5 of each layer's scale.

    Batching changes only the order of float32 sums inside BLAS; relative to the layer's largest
    activation (up to ~600 in smollm2's upper layers) the difference stays below 1e-5.
    """
    model: WordEmbedder = request.getfixturevalue(model_name)
    words = ["pleasant", "unpleasantness", "Müller", "a", "extraordinarily", "Zoë", "cat"]
    targets = [*targets_from_template(words), target_from_word("A long sentence, really.", "long")]
    batched = model.embed(targets, pooling="mean").vectors
    single = np.concatenate([model.embed([t], pooling="mean").vectors for t in targets])
    scale = np.abs(single).max(axis=(0, 2), keepdims=True)
    assert np.all(np.abs(batched - single) <= 1e-5 * scale)


def test_an_encoder_batch_is_one_padded_pass_over_its_distinct_texts(minilm: HFEmbedder) -> None:
    """An encoder builds no prefix tree: each batch is one pass whose rows are its distinct
    texts (two targets of one sentence share a row), right-padded to the widest; the vectors
    equal those of a plain transformers pass over each text alone (1e-5 of each layer's
    scale)."""
    sentence = "The cat saw the dog."
    targets = [target_from_word(sentence, "cat"), target_from_word(sentence, "dog")]
    targets += targets_from_template(["pleasant", "extraordinarily"])
    lengths = [len(minilm.encode([target])[0].input_ids) for target in targets]
    log = StageLog()
    with recording(log), Timings().stage("embed"):
        vectors = minilm.embed(targets, pooling="first").vectors  # [targets, layers, dim]
    (work,) = [record.work for record in log.records]
    distinct = {sentence: lengths[0], targets[2].text: lengths[2], targets[3].text: lengths[3]}
    assert work == {
        "forward_passes": 1,
        "sequences": len(distinct),
        "token_positions": len(distinct) * max(distinct.values()),
        "padding_positions": len(distinct) * max(distinct.values()) - sum(distinct.values()),
    }
    for target, row in zip(targets, vectors, strict=True):
        (encoded,) = minilm.encode([target])
        with torch.inference_mode():
            states = minilm.model(
                input_ids=torch.tensor([encoded.input_ids]), output_hidden_states=True
            ).hidden_states
        plain = torch.stack([layer[0, encoded.span[0]] for layer in states]).numpy()
        scale = np.abs(plain).max(axis=1, keepdims=True)
        assert np.all(np.abs(row - plain) <= 1e-5 * scale)


def test_duplicate_targets_computed_once(minilm: HFEmbedder) -> None:
    targets = targets_from_template(["cat", "dog", "cat"])
    vectors = minilm.embed(targets, layers=[2]).vectors
    np.testing.assert_array_equal(vectors[0], vectors[2])


def test_decontextualized_mode(smollm2: HFEmbedder) -> None:
    alone = smollm2.embed_words(["pleasant"], layers=[0, 10]).vectors[0]
    (encoded,) = smollm2.encode([Target("pleasant", 0, 8)])
    assert encoded.input_ids[0] == smollm2.bos_token_id and len(encoded.input_ids) == 2
    in_context = smollm2.embed(targets_from_template(["pleasant"]), layers=[0, 10]).vectors[0]
    assert not np.allclose(alone[1], in_context[1])


def test_token_budget_batches() -> None:
    lengths = [3, 10, 4, 10, 2, 7]
    batches = batches_by_token_budget(lengths, 20)
    assert sorted(i for batch in batches for i in batch) == list(range(6))
    for batch in batches:
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 20
    assert batches_by_token_budget([50], 20) == [[0]]


def test_bad_targets_and_layers(smollm2: HFEmbedder) -> None:
    with pytest.raises(TargetError, match="not found"):
        target_from_word("a female doctor", "male")
    with pytest.raises(TargetError, match="out of range"):
        Target("short", 2, 9)
    with pytest.raises(TargetError, match="whitespace"):
        Target("a cat", 1, 5)
    with pytest.raises(TargetError, match="character boundaries"):
        Target("cafe\u0301 au lait", 0, 4)  # cuts the combining acute accent off "e"
    with pytest.raises(TargetError, match="exactly once"):
        targets_from_template(["x"], "no placeholder")
    with pytest.raises(EmptyInputError):
        targets_from_template([])
    with pytest.raises(EmptyInputError):
        smollm2.embed([])
    with pytest.raises(WordlensError, match="out of range"):
        smollm2.embed(targets_from_template(["cat"]), layers=[31])
    with pytest.raises(WordlensError, match="unknown pooling"):
        smollm2.embed(targets_from_template(["cat"]), pooling="median")  # type: ignore[arg-type]


def test_alignment_error_when_no_token_covers_span() -> None:
    with pytest.raises(AlignmentError, match="no subtoken covers"):
        subtoken_span(Target("ab cd", 3, 5), [(0, 0), (0, 2)])
