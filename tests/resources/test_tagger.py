"""The offline UPOS tagger: EWT parsing, tokenization, training, accuracy and the JSON cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wordlens.errors import EmptyInputError, LexiconFormatError, WordlensError
from wordlens.resources import load_ewt, load_tagger, read_conllu
from wordlens.resources import tagger as tagger_module
from wordlens.resources.tagger import UPOS, tokenize, train_perceptron

# Trained on a seeded sample of 1,000 EWT training sentences (5 iterations): 0.883 on EWT dev and
# 0.880 on test, measured (all 12,544 sentences: 0.938 / 0.939).
N_SENTENCES = 1000
DEV_ACCURACY_FLOOR = 0.86

CONLLU = """# sent_id = 1
# text = I don't know.
1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_
1\tI\tI\tPRON\tPRP\t_\t3\tnsubj\t_\t_
2\tdo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_
3\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_
3.1\tgone\tgo\tVERB\tVBN\t_\t_\t_\t3:conj\t_
4\tknow\tknow\tVERB\tVB\t_\t0\troot\t_\t_

1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_
"""


def words(text: str) -> list[str]:
    return [text[start:end] for start, end in tokenize(text)]


def test_tokenize_like_ewt() -> None:
    assert words("Our friends won't buy this well-known analysis, let alone -3.") == [
        "Our", "friends", "wo", "n't", "buy", "this", "well", "-", "known", "analysis", ",",
        "let", "alone", "-3", ".",
    ]  # fmt: skip
    # quotes keep their surface form (the Treebank tokenizer would write `` and '')
    assert words('He said "go home."') == ["He", "said", '"', "go", "home", ".", '"']
    assert tokenize("a-b-c") == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]


def test_read_conllu_keeps_syntactic_words(tmp_path: Path) -> None:
    path = tmp_path / "tiny.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    assert read_conllu(path) == [
        [("I", "PRON"), ("do", "AUX"), ("n't", "PART"), ("know", "VERB")],
        [("Yes", "INTJ")],
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1\tcat\tcat\tNOUN", r"line 1: expected 10 fields, found 4"),
        ("1\tcat\tcat\tNN\tNN\t_\t0\troot\t_\t_", r"line 1: unknown UPOS tag 'NN'"),
    ],
)
def test_read_conllu_errors(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.conllu"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(LexiconFormatError, match=message):
        read_conllu(path)
    path.write_text("# only a comment\n\n", encoding="utf-8")
    with pytest.raises(EmptyInputError):
        read_conllu(path)


@pytest.mark.usefixtures("shared_env")
def test_ewt_sizes() -> None:
    # SOURCE.md: dev 2,001 sentences / 25,147 words; test 2,077 / 25,094
    for split, sentences, tokens in (("dev", 2001, 25147), ("test", 2077, 25094)):
        loaded = load_ewt(split)  # type: ignore[arg-type]
        assert (len(loaded), sum(map(len, loaded))) == (sentences, tokens)
        assert {tag for sentence in loaded for _, tag in sentence} == set(UPOS)
    with pytest.raises(WordlensError, match="unknown EWT split 'val'"):
        load_ewt("val")  # type: ignore[arg-type]


@pytest.mark.usefixtures("shared_env")
def test_trained_tagger_accuracy_and_cache(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tagger = load_tagger(N_SENTENCES)
    assert tagger.info.n_sentences == N_SENTENCES
    assert tagger.info.accuracy["dev"] > DEV_ACCURACY_FLOOR
    assert tagger.info.accuracy["test"] > DEV_ACCURACY_FLOOR
    tags = [token.upos for token in tagger.tag_text("The dog barked at the mail carrier.")]
    assert tags == ["DET", "NOUN", "VERB", "ADP", "DET", "NOUN", "NOUN", "PUNCT"]

    (cached,) = (isolated_env / "taggers").glob("upos-perceptron-*.json")
    payload = json.loads(cached.read_text())
    assert payload["info"]["train_sha256"] == tagger.info.train_sha256
    monkeypatch.setattr(tagger_module, "train_perceptron", None)  # the cache must be used
    again = load_tagger(N_SENTENCES)
    assert again.info == tagger.info
    assert again.accuracy(load_ewt("dev")) == tagger.info.accuracy["dev"]


def test_training_is_reproducible(tmp_path: Path) -> None:
    path = tmp_path / "tiny.conllu"
    path.write_text(CONLLU * 3, encoding="utf-8")
    sentences = read_conllu(path)
    first, second = (train_perceptron(sentences, n_iter=3, seed=7) for _ in range(2))
    assert first.encode_json_obj() == second.encode_json_obj()
    assert first.model.weights  # it learned something


@pytest.mark.usefixtures("shared_env")
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"n_sentences": 0}, "must be positive"),
        ({"n_iter": 0}, "must be positive"),
        ({"n_sentences": 20_000}, "exceeds the 12544 EWT training sentences"),
    ],
)
def test_bad_training_settings(options: dict[str, int], message: str) -> None:
    with pytest.raises(WordlensError, match=message):
        load_tagger(**options)  # type: ignore[arg-type]


@pytest.mark.usefixtures("shared_env")
def test_unwritable_home_still_gives_the_tagger(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The JSON cache is an optimisation: a WORDLENS_HOME under a regular file (unwritable even
    for root) must not fail a run that needs the tagger (VAST's POS probe) after training."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("WORDLENS_HOME", str(blocker / "home"))
    tagger = load_tagger(100, n_iter=1)
    assert tagger.info.n_sentences == 100 and tagger.info.accuracy["dev"] > 0.5
