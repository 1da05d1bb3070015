"""Word similarity sets: counts from SOURCE.md, parsing and malformed files."""

from __future__ import annotations

from pathlib import Path

import pytest

from wordlens.errors import EmptyInputError, LexiconFormatError, ResourceNotFoundError
from wordlens.resources import load_similarity

PAIRS = {
    "ws353": 353,
    "ws353-rel": 252,
    "ws353-sim": 203,
    "simlex999": 999,
    "men": 3000,
    "rw": 2034,
    "rg65": 65,
    "mc30": 30,
    "mturk287": 287,  # 286 newlines: the last line has none
    "mturk771": 771,
    "simverb3500": 3500,  # 3,499 newlines
    "verb143": 144,
    "yp130": 130,
}


@pytest.mark.usefixtures("shared_env")
@pytest.mark.parametrize("name", PAIRS)
def test_registered_set_sizes_and_types(name: str) -> None:
    pairs = load_similarity(name)
    assert (pairs.name, len(pairs)) == (name, PAIRS[name])
    assert list(pairs.data.columns) == ["word1", "word2", "score"]
    assert pairs.data["score"].dtype == "float64"
    assert pairs.data["score"].notna().all()


@pytest.mark.usefixtures("shared_env")
def test_first_pairs_and_crlf_files() -> None:
    assert load_similarity("simlex999").data.iloc[0].tolist() == ["old", "new", 1.58]
    assert load_similarity("mturk771").data.iloc[0].tolist() == ["access", "gateway", 3.791666667]
    assert load_similarity("men").data["score"].max() == 50.0


@pytest.mark.usefixtures("shared_env")
def test_repeated_pairs_are_kept() -> None:
    data = load_similarity("ws353").data
    assert ((data["word1"] == "money") & (data["word2"] == "cash")).sum() == 2


def test_space_separated_user_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.txt"
    path.write_text("cat  dog 3.5\n\nsun\tmoon   -1e-1\n")
    pairs = load_similarity(path)
    assert pairs.name == "mine"
    assert pairs.data.to_dict("list") == {
        "word1": ["cat", "sun"],
        "word2": ["dog", "moon"],
        "score": [3.5, -0.1],
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a b 1\nc d\n", r"bad.txt, line 2: expected 'word1 word2 score', found 2 fields"),
        ("a b 1\n\nc d e f\n", r"bad.txt, line 3: expected .* found 4 fields"),
        ("a b 1\nc d high\n", r"bad.txt, line 2: score 'high' is not a number"),
        ("a b nan\n", r"bad.txt, line 1: score 'nan' is not a number"),
    ],
)
def test_malformed_lines(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(LexiconFormatError, match=expected):
        load_similarity(path)


def test_empty_file_and_unknown_name(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("\n\n")
    with pytest.raises(EmptyInputError, match="no word pairs"):
        load_similarity(path)
    with pytest.raises(ResourceNotFoundError, match="Did you mean 'simlex999'"):
        load_similarity("simlex")
