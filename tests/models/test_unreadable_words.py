"""Words a model cannot read (only unknown tokens), cannot tell apart (the same subtokens or the
same vocabulary row), and Unicode forms: missing words in every method (issue 29, item 1).

The expected sets come from the tokenizer's own Python call (``tokenizer(word)``) and the raw
vocabulary, independently of :mod:`wordlens.models.readable`; the expected correlations from a
run on the lexicon without the unreadable words.
"""

from __future__ import annotations

import dataclasses
import json
import unicodedata
from pathlib import Path

import numpy as np
import pytest

import wordlens
from wordlens.contexts import Target, decontextualized_targets, normalized_target
from wordlens.errors import WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.models.loading import load_model

EMOJI = ["🦄", "🐉", "🎉", "💀", "😀", "😡"]
LONG_A, LONG_B = "a" * 150, "b" * 150
CAFE_NFC = "café"
CAFE_NFD = unicodedata.normalize("NFD", CAFE_NFC)

# 20 Bellezza words and their combined pleasantness (bellezza.csv), and six emoji rated as a
# user might: the emoji all read as one [UNK] vector on MiniLM.
TWENTY = {
    "abuse": 1.53, "accident": 1.51, "baby": 4.43, "bomb": 1.46, "cancer": 1.22,
    "crime": 1.45, "death": 1.47, "diamond": 4.2, "disaster": 1.36, "friend": 4.64,
    "gift": 4.58, "holiday": 4.5, "joy": 4.78, "kiss": 4.53, "love": 4.76,
    "murder": 1.15, "peace": 4.77, "poison": 1.43, "sunshine": 4.66, "war": 1.27,
}  # fmt: skip


def _lexicon(path: Path, ratings: dict[str, float]) -> Path:
    path.write_text(
        "word,valence\n" + "".join(f"{w},{v}\n" for w, v in ratings.items()), encoding="utf-8"
    )
    return path


def test_words_of_only_unknown_tokens_are_missing_on_minilm(minilm: WordEmbedder) -> None:
    words = ["happy", *EMOJI, LONG_A, LONG_B, "sad"]
    tokenizer = minilm.tokenizer  # type: ignore[attr-defined]
    expected = [
        w
        for w in words
        if set(tokenizer(w, add_special_tokens=False)["input_ids"]) == {tokenizer.unk_token_id}
    ]
    assert expected == [*EMOJI, LONG_A, LONG_B]  # the premise, from the tokenizer's own call
    reasons = minilm.missing_reasons(words)
    assert list(reasons) == expected
    assert set(reasons.values()) == {"only unknown tokens ('[UNK]')"}
    assert minilm.missing_words(words) == expected
    # their vectors are indeed one vector: cosine 1 between the unicorn and 150 a's
    vectors = minilm.embed_words(["🦄", LONG_A], layers=[6]).vectors[:, 0]
    cosine = vectors[0] @ vectors[1] / np.linalg.norm(vectors, axis=1).prod()
    assert cosine == pytest.approx(1.0, abs=1e-6)


def test_words_with_the_same_token_ids_are_missing_both(minilm: WordEmbedder) -> None:
    tokenizer = minilm.tokenizer  # type: ignore[attr-defined]
    ids = {w: tokenizer(w)["input_ids"] for w in ("AIDS", "aids", "cafe", "café", "coke")}
    assert ids["AIDS"] == ids["aids"] and ids["cafe"] == ids["café"]  # uncased, accents stripped
    reasons = minilm.missing_reasons(["AIDS", "aids", "coke", "café", "cafe", "AIDS"])
    assert reasons == {
        "AIDS": "the same token ids as 'aids'",
        "aids": "the same token ids as 'AIDS'",
        "café": "the same token ids as 'cafe'",
        "cafe": "the same token ids as 'café'",
    }


def test_composed_and_decomposed_words_are_one_word(minilm: WordEmbedder) -> None:
    assert CAFE_NFC != CAFE_NFD
    assert minilm.missing_words([CAFE_NFC, CAFE_NFD, "tea"]) == []


def test_static_lookups_that_share_a_row_by_the_case_policy_are_not_missing(
    glove: WordEmbedder,
) -> None:
    # glove-6b-50d looks words up lower-cased (case policy "lower"): "AIDS" is "aids"'s row, by
    # the user's choice of policy (SSSB's nationality "Japanese" and language "japanese")
    reasons = glove.missing_reasons(["AIDS", "aids", "flower", "🦄"])
    assert reasons == {"🦄": "not in the vocabulary"}


def test_static_model_reads_a_decomposed_word_as_its_nfc_form(glove: WordEmbedder) -> None:
    assert glove.missing_words([CAFE_NFD]) == []
    vectors = glove.embed_words([CAFE_NFC, CAFE_NFD]).vectors
    np.testing.assert_array_equal(vectors[0], vectors[1])


def test_hf_model_reads_texts_in_nfc_unless_told_to_keep_them(smollm2: WordEmbedder) -> None:
    # byte-level BPE has no normalizer: the two forms are different bytes, different tokens
    tokenizer = smollm2.tokenizer  # type: ignore[attr-defined]
    assert tokenizer(CAFE_NFC)["input_ids"] != tokenizer(CAFE_NFD)["input_ids"]
    text_nfd = f"I had a {CAFE_NFD} au lait"
    target_nfd = Target(text_nfd, 8, 8 + len(CAFE_NFD))
    target_nfc = normalized_target(target_nfd, "NFC")
    assert target_nfc.text == unicodedata.normalize("NFC", text_nfd)
    assert target_nfc.word == CAFE_NFC
    nfc = smollm2.embed([target_nfc], layers=[3]).vectors
    assert smollm2.unicode_form == "NFC"
    np.testing.assert_array_equal(smollm2.embed([target_nfd], layers=[3]).vectors, nfc)
    kept = load_model("smollm2-135m", unicode="as-given")
    assert kept.info.details["unicode"] == "as-given"
    as_given = kept.embed([target_nfd], layers=[3]).vectors
    assert np.abs(as_given - nfc).max() > 1e-2


def test_unknown_unicode_form_is_refused() -> None:
    with pytest.raises(WordlensError, match="unknown Unicode form 'NFKC'"):
        load_model("glove-6b-50d", unicode="NFKC")  # type: ignore[arg-type]


def test_vast_leaves_unreadable_words_out_and_lists_them(
    minilm: WordEmbedder, tmp_path: Path
) -> None:
    plain = _lexicon(tmp_path / "twenty.csv", TWENTY)
    ratings = dict(zip(EMOJI, [4.5, 1.2, 4.8, 1.1, 4.9, 1.3], strict=True))
    with_emoji = _lexicon(tmp_path / "with_emoji.csv", TWENTY | ratings)
    options = {
        "settings": ["bleached"],
        "weat": False,
        "probes": False,
        "tokenization": False,
        "similarity": [],
        "layers": [0, 6],
    }
    expected = wordlens.vast(minilm, lexica=[str(plain)], **options)
    run = wordlens.vast(minilm, lexica=[str(with_emoji)], out=tmp_path / "out", **options)
    coverage = run.metadata["lexicon_words"]["with_emoji"]
    assert coverage["missing"] == EMOJI and coverage["n_missing"] == 6
    assert set(coverage["why"].values()) == {"only unknown tokens ('[UNK]')"}
    layers, plain_layers = run.tables["layers"], expected.tables["layers"]
    assert (layers["n"] == 20).all()
    np.testing.assert_allclose(layers["r"].to_numpy(), plain_layers["r"].to_numpy())
    written = json.loads((tmp_path / "out" / "run.json").read_text(encoding="utf-8"))
    assert written["metadata"]["lexicon_words"]["with_emoji"]["missing"] == EMOJI
    report = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "6 of 26 words the model lacks or cannot tell apart" in report
    assert "only unknown tokens" in report


def test_weat_drops_unreadable_words_with_the_reason(minilm: WordEmbedder) -> None:
    from wordlens.methods.weat.config import WeatConfig
    from wordlens.methods.weat.layers import run_weat
    from wordlens.resources.wordsets import WordSet, load_weat_tests

    test = load_weat_tests([1])[0]
    extended = dataclasses.replace(
        test,
        x=WordSet(test.x.name, (*test.x.words, "🦄")),
        y=WordSet(test.y.name, (*test.y.words, "🐉")),
    )
    config = WeatConfig(layers=(6,), permutations=1000)
    run = run_weat(minilm, [extended], config)
    assert run.metadata["dropped_words"] == {"1": ["🦄", "🐉"]}
    assert run.metadata["why_dropped"] == dict.fromkeys(
        ["🦄", "🐉"], "only unknown tokens ('[UNK]')"
    )
    plain = run_weat(minilm, [test], config)
    np.testing.assert_allclose(
        run.tables["weat"]["effect_size"].to_numpy(), plain.tables["weat"]["effect_size"].to_numpy()
    )


def test_weat_tells_words_apart_within_a_test_not_across_tests(minilm: WordEmbedder) -> None:
    """On an uncased model "Ebony" (test 4's names) and "ebony" (added to test 1's flowers) are
    two words only when they meet in one test: in two tests each keeps its word."""
    from wordlens.methods.weat.config import WeatConfig
    from wordlens.methods.weat.layers import run_weat
    from wordlens.resources.wordsets import WordSet, load_weat_tests

    flowers, names = load_weat_tests([1, 4])
    with_twin = dataclasses.replace(flowers, x=WordSet(flowers.x.name, (*flowers.x.words, "ebony")))
    config = WeatConfig(layers=(6,), permutations=1000)
    together = run_weat(minilm, [with_twin, names], config)
    assert together.metadata["dropped_words"] == {}
    alone = run_weat(minilm, [names], config).tables["weat"]
    np.testing.assert_allclose(  # float32 passes batched with other words: ~1e-7 apart
        together.tables["weat"].query("test == 4")["effect_size"].to_numpy(),
        alone["effect_size"].to_numpy(),
        rtol=1e-5,
    )
    # within one test the two cannot be told apart: both are left out, with the reason
    both = dataclasses.replace(names, a=WordSet(names.a.name, (*names.a.words, "ebony")))
    run = run_weat(minilm, [both], config)
    assert run.metadata["dropped_words"] == {"4": ["Ebony", "ebony"]}
    assert run.metadata["why_dropped"]["ebony"] == "the same token ids as 'Ebony'"


def test_vast_banks_hold_words_whose_twins_are_in_another_experiment(
    minilm: WordEmbedder, tmp_path: Path
) -> None:
    """VAST embeds its lexica and WEAT's words in one bank: "jasmine" rated in a lexicon and
    "Jasmine" among test 3's names are both there (the run failed with "bleached vectors lack
    ['jasmine']"), and each experiment tells apart only its own words."""
    from wordlens.methods.weat.config import WeatConfig
    from wordlens.methods.weat.layers import run_weat
    from wordlens.resources.wordsets import load_weat_tests

    twins = _lexicon(tmp_path / "twins.csv", TWENTY | {"jasmine": 7.0, "ebony": 5.0})
    options = {"settings": ["bleached"], "pooling": ["mean"], "probes": False}
    run = wordlens.vast(
        minilm,
        lexica=[str(twins)],
        layers=[0, 6],
        similarity=[],
        max_pcs=2,
        permutations=200,
        pc_population="lexicon",
        tokenization=False,
        **options,
    )
    assert run.metadata["lexicon_words"]["twins"]["n_missing"] == 0
    assert (run.tables["layers"]["n"] == 22).all()
    weat = run.tables["weat"]
    assert set(weat["test"]) == set(range(1, 11))
    test3 = load_weat_tests([3])[0]
    raw = weat.query("test == 3 and representation == 'raw' and layer == 6")
    alone = run_weat(minilm, [test3], WeatConfig(layers=(6,), permutations=200))
    np.testing.assert_allclose(
        raw["effect_size"].to_numpy(), alone.tables["weat"]["effect_size"].to_numpy(), rtol=1e-5
    )


def test_decontextualized_targets_of_unreadable_words_still_embed(minilm: WordEmbedder) -> None:
    # missing words are the methods' to leave out; the model itself still embeds them
    assert minilm.embed(decontextualized_targets(["🦄"]), layers=[0]).vectors.shape[0] == 1


def test_a_lexicon_reads_composed_and_decomposed_forms_as_one_word(tmp_path: Path) -> None:
    from wordlens.errors import LexiconFormatError
    from wordlens.resources.lexica import load_lexicon

    path = tmp_path / "forms.csv"
    path.write_text(f"word,valence\n{CAFE_NFC},6\n{CAFE_NFD},8\ntea,5\n", encoding="utf-8")
    with pytest.raises(LexiconFormatError, match=r"1 word\(s\) listed more than once: 'café'"):
        load_lexicon(str(path))
    averaged = load_lexicon(str(path), duplicates="mean").data
    assert averaged["word"].tolist() == [CAFE_NFC, "tea"]
    assert averaged["valence"].tolist() == [7.0, 5.0]


def test_wordlens_embed_warns_of_and_records_unreadable_words(tmp_path: Path) -> None:
    from tests.test_cli_faults import run_wordlens

    out = tmp_path / "vectors.npy"
    args = ["embed", "-m", "minilm-l6", "happy", "🦄", "AIDS", "aids", "--no-cache"]
    done = run_wordlens(*args, "--out", str(out))
    assert done.returncode == 0, done.stderr
    printed = " ".join(done.stdout.split())
    assert "warning: 3 word(s) the model cannot read or tell apart" in printed
    assert "only unknown tokens ('[UNK]'): 🦄" in printed
    sidecar = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert sidecar["indistinct_words"] == {
        "🦄": "only unknown tokens ('[UNK]')",
        "AIDS": "the same token ids as 'aids'",
        "aids": "the same token ids as 'AIDS'",
    }


def test_reports_list_words_the_model_cannot_tell_apart_as_one_group(
    minilm: WordEmbedder,
) -> None:
    from wordlens.report.html import listed_by_reason

    words = ["aids", "Coke", "🦄", "AIDS", "happy", "coke"]
    why = minilm.missing_reasons(words)
    assert why["AIDS"] == "the same token ids as 'aids'"  # each word names its twin
    assert listed_by_reason(list(why), why) == (
        "the same token ids as another word: AIDS, aids, Coke, coke; "
        "only unknown tokens ('[UNK]'): 🦄"
    )
