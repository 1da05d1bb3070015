"""Users' text files: an encoding error names the file, line and encoding (never a
UnicodeDecodeError traceback); words such as ``null``, ``NA``, ``TRUE`` stay words."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wordlens import _files
from wordlens.contexts import intersectional as intersectional_contexts
from wordlens.contexts.valence import load_templates
from wordlens.errors import WordlensError
from wordlens.models.senses import load_sense_vectors
from wordlens.resources import (
    load_lexicon,
    read_ckbc,
    read_cola,
    read_similarity,
    read_swow,
    read_wefe_sets,
)
from wordlens.resources.association_norms import read_gender_lexicon
from wordlens.study import spec

LATIN1_CAFE = "café".encode("latin-1")  # b"caf\xe9": not UTF-8


def test_read_text_names_the_line_column_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_bytes(b"happy\nsad\nthe " + LATIN1_CAFE + b" is open\n")
    with pytest.raises(WordlensError) as caught:
        _files.read_text(path)
    assert type(caught.value).__name__ == "FileEncodingError"
    assert str(caught.value) == (
        f"{path}, line 3, column 8: not valid utf-8 (byte 0xe9: invalid continuation byte); "
        "save it as UTF-8"
    )
    assert _files.read_text(path, "latin-1").splitlines()[2] == "the café is open"


def test_read_text_drops_a_bom_and_reads_gzip_errors_by_line(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfword\n")
    assert _files.read_text(path) == "word\n"
    packed = tmp_path / "norms.csv.gz"
    packed.write_bytes(gzip.compress(b"cue,R1,R2,R3\n" * 3 + LATIN1_CAFE + b",a,b,c\n"))
    with pytest.raises(WordlensError, match=rf"{packed}, line 4, column 4: not valid utf-8"):
        read_swow(packed)
    cut = tmp_path / "cut.txt"
    cut.write_bytes(b"ok\n" + "é".encode()[:1])
    with pytest.raises(WordlensError, match=r"line 2, column 1: .*0xc3: unexpected end"):
        _files.read_text(cut)
    with pytest.raises(WordlensError, match="unknown encoding 'klingon'"):
        _files.read_text(cut, "klingon")


Reader = Callable[[Path], Any]


def _ckbc(path: Path) -> Any:
    return read_ckbc([path])


# (file name, content with the Latin-1 byte on line 2 or later, reader, line of the byte)
READERS: list[tuple[str, bytes, Reader, int]] = [
    ("lexicon.csv", b"word,valence\n" + LATIN1_CAFE + b",7\n", load_lexicon, 2),
    ("lexicon.tsv", b"word\tvalence\nsad\t2\n" + LATIN1_CAFE + b"\t7\n", load_lexicon, 3),
    ("simlex.txt", b"cup mug 8\n" + LATIN1_CAFE + b" bar 5\n", read_similarity, 2),
    ("templates.json", b'{"edges": [1, 3],\n "templates": ["\xe9 {word}"]}', load_templates, 2),
    (
        "study.csv",
        b"bias,first,second\nage,young,old\nfood," + LATIN1_CAFE + b",bar\n",
        intersectional_contexts.load_study,
        3,
    ),
    ("study.yaml", b"biases:\n  - name: caf\xe9\n", intersectional_contexts.load_study, 2),
    ("runs.yaml", b"name: s\nmodels: [caf\xe9]\n", spec.load_study, 2),
    ("swow.tsv", b"cue\tresponse\tR123\tN\n" + LATIN1_CAFE + b"\tbar\t1\t1\n", read_swow, 2),
    ("wat.tsv", b"he\t1.0\n" + LATIN1_CAFE + b"\t0.5\n", read_gender_lexicon, 2),
    ("train.txt", b"IsA\tcup\tmug\t1.0\nIsA\t" + LATIN1_CAFE + b"\tbar\t1.0\n", _ckbc, 2),
    ("senses.txt", b"cup%1:06:00:: 1 2\n" + LATIN1_CAFE + b"%1 3 4\n", load_sense_vectors, 2),
    ("sets.json", b'{"a": ["x"],\n "b": ["caf\xe9"]}', read_wefe_sets, 2),
    ("cola.tsv", b"src\t1\t\tA cup.\nsrc\t1\t\tA " + LATIN1_CAFE + b".\n", read_cola, 2),
]


@pytest.mark.parametrize(
    ("name", "content", "reader", "line"), READERS, ids=[entry[0] for entry in READERS]
)
def test_every_reader_names_the_file_and_line(
    tmp_path: Path, name: str, content: bytes, reader: Reader, line: int
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(WordlensError, match=rf"^{path}, line {line}, column \d+: not valid"):
        reader(path)


def test_lexicon_in_another_encoding(tmp_path: Path) -> None:
    path = tmp_path / "french.csv"
    path.write_bytes("word;valence\ncafé;7\nthé;6\n".encode("latin-1"))
    lexicon = load_lexicon(path, encoding="latin-1")
    assert list(lexicon.data["word"]) == ["café", "thé"]
    with pytest.raises(WordlensError, match="--encoding"):
        load_lexicon(path)


NOT_NA = ["null", "NULL", "NA", "N/A", "nan", "NaN", "None", "TRUE", "FALSE", "True", "false"]


def test_warriners_null_true_and_false_are_words() -> None:
    words = load_lexicon("warriner").data["word"]
    assert {"null", "TRUE", "FALSE"} <= set(words)
    assert all(isinstance(word, str) for word in words)


def test_words_pandas_would_read_as_missing_or_boolean_stay_words(tmp_path: Path) -> None:
    """Every lexicon and word-list reader keeps these cells as the strings they are."""
    lexicon = tmp_path / "lexicon.csv"
    lexicon.write_text("word,valence\n" + "".join(f"{w},{i + 1}\n" for i, w in enumerate(NOT_NA)))
    assert list(load_lexicon(lexicon).data["word"]) == NOT_NA
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("".join(f"{w} {w.lower()}x 1.0\n" for w in NOT_NA))
    assert list(read_similarity(pairs).data["word1"]) == NOT_NA
    swow = tmp_path / "swow.tsv"
    swow.write_text("cue\tresponse\tR123\tN\n" + "".join(f"cue\t{w}\t1\t1\n" for w in NOT_NA))
    responses = set(read_swow(swow).edges["response"])
    assert {w.lower() for w in NOT_NA} <= responses
    wat = tmp_path / "wat.tsv"
    wat.write_text("".join(f"{w}\t{i}.0\n" for i, w in enumerate(NOT_NA)))
    assert list(read_gender_lexicon(wat).scores.index) == NOT_NA
    sets = tmp_path / "sets.json"
    sets.write_text('{"odd": ["null", "TRUE", "NA"]}')
    assert read_wefe_sets(sets) == {"odd": ("null", "TRUE", "NA")}
