"""VAST's random setting: corpus loading, sentence splitting, the sentence index and the draws."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from wordlens.contexts import Target
from wordlens.contexts.corpus import (
    SentenceIndex,
    load_sentence_index,
    random_targets,
    split_sentences,
    trim_to_window,
)
from wordlens.errors import EmptyInputError, TargetError, WordlensError
from wordlens.resources import load_corpus, load_lexicon
from wordlens.resources.corpora import strip_gutenberg


@pytest.fixture(scope="module")
def index(shared: Path) -> SentenceIndex:
    return load_sentence_index()


# --- corpus files ---------------------------------------------------------------------------------


def test_gutenberg_boilerplate_is_stripped(shared: Path) -> None:
    books = {doc.source.rsplit("/", 1)[1]: doc for doc in load_corpus("corpus-gutenberg").documents}
    assert len(books) == 13
    assert books["austen-emma.txt"].paragraphs[:2] == ("VOLUME I", "CHAPTER I")
    assert books["austen-emma.txt"].paragraphs[2].startswith("Emma Woodhouse, handsome, clever")
    for document in books.values():
        assert not any("SMALL PRINT" in p or "*** END OF" in p for p in document.paragraphs)
    ball = books["chesterton-ball.txt"].paragraphs  # new-style markers
    assert ball[-1].startswith("He looked vaguely about at the fire")
    assert "\x1a" not in books["milton-paradise.txt"].paragraphs[-1]  # DOS end-of-file marks


def test_strip_gutenberg_both_marker_styles() -> None:
    old = [
        "licence",
        "*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*END*",
        "Body.",
        "End of The Project Gutenberg Etext of X",
        "footer",
    ]
    new = [
        "header",
        "*** START OF THE PROJECT GUTENBERG EBOOK X ***",
        "Body.",
        "*** END OF THE PROJECT GUTENBERG EBOOK X ***",
        "***START**THE SMALL PRINT!**",
    ]
    assert strip_gutenberg(old) == ["Body."]
    assert strip_gutenberg(new) == ["Body."]
    assert strip_gutenberg(["No markers.", "At all."]) == ["No markers.", "At all."]


def test_latin1_files_decode_and_speeches_keep_one_paragraph_per_line(shared: Path) -> None:
    caesar = next(
        doc for doc in load_corpus("corpus-gutenberg").documents if "caesar" in doc.source
    )
    assert any("Cæsar" in p for p in caesar.paragraphs)
    union = load_corpus("corpus-state-union").documents[0]
    assert union.source == "corpus/state_union/1945-Truman.txt"
    assert union.paragraphs[2:4] == (
        "Mr. Speaker, Mr. President, Members of the Congress:",
        "It is with a heavy heart that I stand before you, my friends and colleagues, in the "
        "Congress of the United States.",
    )
    for name in ("corpus-gutenberg", "corpus-inaugural", "corpus-state-union"):
        assert not any("\ufffd" in p for d in load_corpus(name).documents for p in d.paragraphs)


def test_ud_ewt_sentences_come_from_the_text_comments(shared: Path) -> None:
    ewt = load_corpus("corpus-ud-ewt")
    assert ewt.segmented
    assert [len(doc.paragraphs) for doc in ewt.documents] == [12544, 2001, 2077]
    assert ewt.documents[1].paragraphs[0] == "From the AP comes this story :"


# --- sentence splitting ---------------------------------------------------------------------------


def test_split_sentences_handles_abbreviations_initials_and_quotes() -> None:
    text = (
        'Mr. Smith met President Harry S. Truman in the U.S. Senate. Was it big? "Yes," said '
        'he. "Go!" Then--Mrs. Weston left!'
    )
    assert split_sentences(text) == [
        "Mr. Smith met President Harry S. Truman in the U.S. Senate.",
        "Was it big?",
        '"Yes," said he.',
        '"Go!"',
        "Then--Mrs. Weston left!",
    ]
    assert split_sentences('"Why?" said he. 2 more. ') == ['"Why?" said he.', "2 more."]
    assert split_sentences("   ") == []


# --- the index ------------------------------------------------------------------------------------


def test_index_finds_a_known_word_in_a_known_sentence(index: SentenceIndex) -> None:
    ids, match = index.find("Woodhouse")
    assert match == "exact"
    first = int(ids[0])
    assert index.sentences[first].startswith("Emma Woodhouse, handsome, clever, and rich")
    assert index.document(first) == "corpus/gutenberg/austen-emma.txt"
    assert first in index.find("handsome")[0]


def test_index_matches_whole_words_only(index: SentenceIndex) -> None:
    male, _ = index.find("male")
    female, _ = index.find("female")
    assert male.size == 46 and female.size == 63
    whole = re.compile(r"(?<!\w)male(?!\w)")
    assert all(whole.search(index.sentences[i]) for i in male)
    only_female = [i for i in female if not whole.search(index.sentences[i])]
    assert only_female and not set(only_female) & set(male.tolist())


def test_multi_token_words_are_confirmed_in_the_text(index: SentenceIndex) -> None:
    ids, match = index.find("short-term")
    assert match == "exact" and ids.size == 12
    assert all("short-term" in index.sentences[i] for i in ids)
    assert index.find("zzyzx")[1] == "none"
    assert index.find("...")[1] == "none"


def test_case_insensitive_fallback_only_without_exact_matches(index: SentenceIndex) -> None:
    assert index.find("Valentine")[1] == "exact"
    ids, match = index.find("valentine")
    assert match == "casefold" and ids.size == 1
    drawn = random_targets(["valentine", "Monday"], seed=0, index=index)
    assert drawn.targets[0].word == "Valentine"
    assert drawn.table["match"].tolist() == ["casefold", "exact"]


def test_index_is_cached_on_disk_keyed_by_file_hashes(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORDLENS_HOME", str(tmp_path / "home"))
    built = load_sentence_index(["corpus-inaugural"])
    cached = sorted((tmp_path / "home" / "corpus-index").glob("*/*.parquet"))
    assert [p.name for p in cached] == ["postings.parquet", "sentences.parquet"]
    again = load_sentence_index(["corpus-inaugural"])
    assert again.sentences == built.sentences and again.tokens == built.tokens
    cached[1].write_bytes(b"not parquet")  # an unreadable cache is rebuilt
    assert load_sentence_index(["corpus-inaugural"]).sentences == built.sentences

    root = tmp_path / "data"
    shutil.copytree(shared / "data" / "corpus" / "inaugural", root / "corpus" / "inaugural")
    edited = root / "corpus" / "inaugural" / "2005-Bush.txt"
    edited.write_text(edited.read_text(encoding="latin-1") + "\nAn added sentence.\n")
    changed = load_sentence_index(["corpus-inaugural"], path=root)
    assert len(list((tmp_path / "home" / "corpus-index").iterdir())) == 2
    assert changed.sentences[-1] == "An added sentence."
    with pytest.raises(EmptyInputError):
        load_sentence_index([])
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("WORDLENS_HOME", str(blocked))  # unwritable cache: built, not stored
    assert load_sentence_index(["corpus-inaugural"]).sentences == built.sentences


# --- drawing contexts -----------------------------------------------------------------------------


def test_draws_are_reproducible_and_independent_of_other_words(index: SentenceIndex) -> None:
    words = ["love", "death", "peace"]
    first = random_targets(words, seed=11, index=index)
    assert random_targets(words, seed=11, index=index).targets == first.targets
    more = random_targets(["war", "peace", "zzyzx", "love", "death"], seed=11, index=index)
    assert [more.targets[i] for i in (3, 4, 1)] == list(first.targets)
    by_seed = {random_targets(["love"], seed=s, index=index).targets[0].text for s in range(6)}
    assert len(by_seed) > 1
    for target, word in zip(first.targets, words, strict=True):
        assert target.word == word


def test_long_sentences_are_trimmed_around_the_word(index: SentenceIndex) -> None:
    long = next(i for i, s in enumerate(index.sentences) if len(s.split()) > 100)
    sentence = index.sentences[long]
    middle = sentence.split()[len(sentence.split()) // 2].strip(",.;:!?-'\"")
    drawn = random_targets([middle], seed=0, index=index).targets[0]  # ten words each side
    before, after = drawn.text[: drawn.start].split(), drawn.text[drawn.end :].split()
    assert len(before) <= 10 and len(after) <= 10 and drawn.word == middle
    assert (
        trim_to_window(Target(sentence, *_span(sentence, middle)), 10).text.split()
        == (sentence.split()[len(sentence.split()) // 2 - 10 : len(sentence.split()) // 2 + 11])
    )
    short = random_targets(["love", "peace"], seed=1, index=index, words_each_side=2)
    assert all(len(t.text.split()) <= 5 for t in short.targets)
    assert [t.word for t in short.targets] == ["love", "peace"]


def _span(text: str, word: str) -> tuple[int, int]:
    """Character span of the whitespace token in the middle of ``text`` that holds ``word``."""
    tokens = list(re.finditer(r"\S+", text))
    middle = tokens[len(tokens) // 2]
    start = middle.start() + middle.group().index(word)
    return start, start + len(word)


def test_trim_to_window_keeps_words_each_side_and_respects_text_ends() -> None:
    text = " ".join(f"w{i}" for i in range(20))
    middle = trim_to_window(Target(text, text.index("w10"), text.index("w10") + 3), 2)
    assert middle.text == "w8 w9 w10 w11 w12" and middle.word == "w10"
    start = trim_to_window(Target(text, 0, 2), 4)  # nothing before: no extra words after
    assert start.text == "w0 w1 w2 w3 w4" and start.word == "w0"
    end = trim_to_window(Target(text, len(text) - 3, len(text)), 3)
    assert end.text == "w16 w17 w18 w19" and end.word == "w19"
    alone = trim_to_window(Target(text, text.index("w5"), text.index("w5") + 2), 0)
    assert alone.text == "w5" and alone.word == "w5"
    spanning = trim_to_window(Target("v w x a b c d y z", 6, 11), 1)  # "a b c": three tokens
    assert spanning.text == "x a b c d" and spanning.word == "a b c"
    short = Target("a b c", 2, 3)
    assert trim_to_window(short, 5) is short


def test_missing_word_policies(index: SentenceIndex) -> None:
    words = ["love", "zzyzx", "qwxv"]
    bleached = random_targets(words, seed=0, index=index)
    assert bleached.table["source"].tolist() == ["corpus", "bleached", "bleached"]
    assert [t.text for t in bleached.targets[1:]] == ["This is zzyzx", "This is qwxv"]
    assert bleached.missing == ("zzyzx", "qwxv")
    assert bleached.coverage == pytest.approx(1 / 3)
    dropped = random_targets(words, seed=0, index=index, missing="drop")
    assert [t.word for t in dropped.targets] == ["love"]
    assert dropped.table["word"].tolist() == ["love"] and dropped.missing == ("zzyzx", "qwxv")
    assert dropped.targets[0] == bleached.targets[0]
    with pytest.raises(TargetError, match="2 word\\(s\\) occur in no corpus sentence: 'zzyzx'"):
        random_targets(words, seed=0, index=index, missing="error")


def test_bad_arguments_raise(index: SentenceIndex) -> None:
    with pytest.raises(WordlensError, match="seed must be a non-negative integer"):
        random_targets(["love"], seed=-1, index=index)
    with pytest.raises(WordlensError, match="seed must be a non-negative integer"):
        random_targets(["love"], seed=1.5, index=index)  # type: ignore[arg-type]
    with pytest.raises(WordlensError, match="missing must be one of"):
        random_targets(["love"], seed=0, index=index, missing="skip")  # type: ignore[arg-type]
    with pytest.raises(WordlensError, match="words_each_side"):
        random_targets(["love"], seed=0, index=index, words_each_side=-1)
    with pytest.raises(EmptyInputError):
        random_targets([], seed=0, index=index)
    for word in (" love", " zzyzx", ""):
        with pytest.raises(TargetError, match="non-empty without surrounding whitespace"):
            random_targets([word], seed=0, index=index)


@pytest.mark.parametrize(
    ("lexicon", "n_words", "n_missing", "n_casefold"),
    [("bellezza", 399, 18, 10), ("anew", 1029, 70, 12), ("warriner", 13915, 3771, 235)],
)
def test_lexicon_coverage(
    index: SentenceIndex, lexicon: str, n_words: int, n_missing: int, n_casefold: int
) -> None:
    words = load_lexicon(lexicon).data["word"].tolist()
    drawn = random_targets(words, seed=0, index=index)
    assert drawn.n_words == n_words and len(drawn.missing) == n_missing
    assert (drawn.table["match"] == "casefold").sum() == n_casefold
    assert (drawn.table["source"] == "bleached").sum() == n_missing
    assert len(drawn.targets) == n_words
