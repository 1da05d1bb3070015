"""A target span must start and end on token boundaries and on grapheme boundaries (issue 29,
item 5): "happy" inside the one token "unhappy" has no vector of its own, nor has half a flag.

The boundaries expected are read from the tokenizers' own offset mappings (``tokenizer(text,
return_offsets_mapping=True)``) and from Unicode's grapheme clusters (the ``regex`` module's
``\\X``), independently of :mod:`wordlens.models.align`.
"""

from __future__ import annotations

import numpy as np
import pytest
import regex

from wordlens.contexts import Target, target_from_word
from wordlens.errors import AlignmentError, TargetError
from wordlens.models.align import subtoken_span, subtoken_spans
from wordlens.models.base import WordEmbedder


def _offsets(model: WordEmbedder, text: str) -> list[tuple[int, int]]:
    tokenizer = model.tokenizer  # type: ignore[attr-defined]
    return [tuple(pair) for pair in tokenizer(text, return_offsets_mapping=True)["offset_mapping"]]


def test_a_span_inside_one_token_is_refused_on_minilm(minilm: WordEmbedder) -> None:
    assert (0, 7) in _offsets(minilm, "unhappy")  # one token, from the tokenizer's own call
    with pytest.raises(AlignmentError, match=r"'happy' at \[2, 7\) of 'unhappy' does not start"):
        minilm.embed([Target("unhappy", 2, 7)])


def test_a_span_inside_a_bpe_token_with_its_space_is_refused_on_smollm2(
    smollm2: WordEmbedder,
) -> None:
    text = "I am unhappy today"
    assert (4, 12) in _offsets(smollm2, text)  # " unhappy": one token with its space
    with pytest.raises(AlignmentError, match=r"subtokens that cover it read ' unhappy'"):
        smollm2.embed([Target(text, 7, 12)])
    # the whole word, whose token includes the space before it, is fine
    assert smollm2.embed([Target(text, 5, 12)], layers=[0]).n_subtokens.tolist() == [1]


def test_a_span_on_token_boundaries_is_kept(minilm: WordEmbedder) -> None:
    text = "they were un-happy"
    offsets = _offsets(minilm, text)
    happy = text.index("happy")
    assert any(start == happy for start, _ in offsets)  # "-" splits "un" from "happy"
    embedded = minilm.embed([target_from_word(text, "happy")], layers=[0])
    assert embedded.n_subtokens.tolist() == [1]


def test_half_a_flag_or_an_emoji_without_its_skin_tone_is_refused() -> None:
    text = "a 🇯🇵 flag and 👍🏽 too"
    clusters = {match.end() for match in regex.finditer(r"\X", text)}
    flag = text.index("🇯🇵")
    thumb = text.index("👍")
    assert flag + 1 not in clusters and thumb + 1 not in clusters  # the premise
    with pytest.raises(TargetError, match="cuts a character made of several code points"):
        target_from_word(text, "🇯")
    with pytest.raises(TargetError, match="not on character boundaries"):
        Target(text, thumb, thumb + 1)
    assert Target(text, flag, flag + 2).word == "🇯🇵"
    assert Target(text, thumb, thumb + 2).word == "👍🏽"


def test_vectorized_and_single_alignment_refuse_the_same_spans(minilm: WordEmbedder) -> None:
    text = "unhappy people were happy"
    offsets = _offsets(minilm, text)
    spans = [(s, e) for s in range(len(text)) for e in range(s + 1, len(text) + 1)]
    targets = [Target(text, s, e) for s, e in spans if text[s:e].strip() == text[s:e]]
    kept = []
    for target in targets:
        try:
            single: tuple[int, int] | None = subtoken_span(target, offsets)
        except AlignmentError:
            single = None
        try:
            vectorized = tuple(subtoken_spans([target], [offsets])[0].tolist())
        except AlignmentError:
            vectorized = None
        assert vectorized == single, target
        # MiniLM's offsets hold no spaces: a span aligns exactly when it starts where a token
        # starts and ends where a token ends
        assert (single is not None) == _on_boundaries(target, offsets), target
        if single is not None:
            kept.append(target.word)
    assert {"unhappy", "people", "were", "happy", "people were"} <= set(kept)
    assert "happ" not in kept and "nhappy" not in kept


def _on_boundaries(target: Target, offsets: list[tuple[int, int]]) -> bool:
    starts = {start for start, end in offsets if end > start}
    ends = {end for start, end in offsets if end > start}
    return target.start in starts and target.end in ends


def test_a_clitic_that_shares_tokens_is_embedded_when_allowed_and_counted(
    minilm: WordEmbedder,
) -> None:
    text = "Holly shouldn't."
    start = text.index("n't")
    offsets = _offsets(minilm, text)
    covering = [i for i, (s, e) in enumerate(offsets) if e > s and s < start + 3 and e > start]
    assert [text[slice(*offsets[i])] for i in covering] == ["shouldn", "'", "t"]
    strict = Target(text, start, start + 3)
    shared = Target(text, start, start + 3, shares_tokens=True)
    with pytest.raises(AlignmentError, match='subtokens that cover it read "shouldn\'t"'):
        minilm.embed([strict])
    assert minilm.inside_tokens([strict, target_from_word(text, "Holly"), shared]) == [0, 2]
    vector = minilm.embed([shared], layers=[2]).vectors[0, 0]
    # the mean of the three covering subtokens' states, from the model's own forward pass
    import torch

    tokenizer, model = minilm.tokenizer, minilm.model  # type: ignore[attr-defined]
    with torch.inference_mode():
        states = model(**tokenizer(text, return_tensors="pt"), output_hidden_states=True)
    expected = states.hidden_states[2][0, covering].mean(0).numpy()
    np.testing.assert_allclose(vector, expected, rtol=1e-5, atol=1e-5)
