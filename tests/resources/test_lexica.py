"""Valence lexica: the registered files (counts from SOURCE.md) and malformed files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from wordlens.errors import (
    EmptyInputError,
    LexiconFormatError,
    ResourceNotFoundError,
    WordlensError,
)
from wordlens.resources import load_lexicon

VAD = ("valence", "arousal", "dominance")
VA = ("valence", "arousal")

# name: (entries after the registered duplicate policy, language, dimensions, valence scale)
REGISTERED = {
    "bellezza": (399, "en", ("valence",), (1.0, 5.0)),
    "anew": (1029, "en", VAD, (1.0, 9.0)),
    "warriner": (13915, "en", VAD, (1.0, 9.0)),
    "anew-polish": (1586, "pl", VAD, (1.0, 9.0)),
    "anew-spanish": (1034, "es", VAD, (1.0, 9.0)),
    "cvaw-chinese": (5512, "zh", VA, (1.0, 9.0)),
    "fan-french": (1031, "fr", VA, (1.0, 9.0)),
    "anew-portuguese": (1034, "pt", VAD, (1.0, 9.0)),
    "turkish-norms": (2029, "tr", VA, (1.0, 9.0)),  # 2,031 rows, ŞEN and BUZ rated twice
    "anew-german": (1003, "de", VAD, (-3.0, 3.0)),  # 1,034 rows, 31 repeated
}


@pytest.mark.usefixtures("shared_env")
@pytest.mark.parametrize("name", REGISTERED)
def test_registered_lexicon_counts_scales_and_types(name: str) -> None:
    count, language, dimensions, valence_scale = REGISTERED[name]
    lexicon = load_lexicon(name)
    assert (len(lexicon), lexicon.language, lexicon.dimensions) == (count, language, dimensions)
    assert list(lexicon.data.columns) == ["word", *dimensions]
    assert lexicon.scale["valence"] == valence_scale
    assert lexicon.data["word"].is_unique
    assert (lexicon.data["word"] == lexicon.data["word"].str.strip()).all()
    for dimension in dimensions:
        assert lexicon.data[dimension].dtype == "float64"
        low, high = lexicon.scale[dimension]
        assert lexicon.data[dimension].between(low, high).all()


@pytest.mark.usefixtures("shared_env")
def test_known_ratings() -> None:
    def rating(name: str, word: str, dimension: str = "valence") -> float:
        data = load_lexicon(name).data
        return float(data.loc[data["word"] == word, dimension].item())

    assert rating("bellezza", "abuse") == 1.53
    assert rating("anew", "abduction", "dominance") == 3.49
    assert rating("anew-german", "Unfall") == -2.35
    assert rating("cvaw-chinese", "不平") == 3.6
    assert rating("anew-spanish", "abandonado") == 1.68
    assert rating("fan-french", "abeille", "arousal") == 4.08  # word column right after a BOM
    assert rating("turkish-norms", "ŞEN") == pytest.approx((7.617647059 + 5.405405405) / 2)


@pytest.mark.usefixtures("shared_env")
def test_warriner_keeps_spreadsheet_words_as_words() -> None:
    data = load_lexicon("warriner").data.set_index("word")
    assert data.loc[["null", "FALSE", "TRUE"], "valence"].tolist() == [4.32, 3.27, 7.51]
    assert data.loc[["aids", "AIDS"], "valence"].tolist() == [3.52, 1.33]  # case pairs kept


@pytest.mark.usefixtures("shared_env")
@pytest.mark.parametrize("name", ["bellezza", "anew", "warriner", "anew-polish", "cvaw-chinese"])
def test_shipped_lexica_without_duplicates_load_under_the_strict_policy(name: str) -> None:
    assert len(load_lexicon(name, duplicates="error")) == REGISTERED[name][0]


@pytest.mark.usefixtures("shared_env")
def test_turkish_duplicates_are_listed_with_line_numbers() -> None:
    with pytest.raises(LexiconFormatError) as caught:
        load_lexicon("turkish-norms", duplicates="error")
    message = str(caught.value)
    assert "TurkishEmotionalWordNorms.csv" in message
    assert "'ŞEN' (lines 288, 319)" in message
    assert "'BUZ' (lines 692, 1264)" in message
    assert len(load_lexicon("turkish-norms", duplicates="first")) == 2029


@pytest.mark.usefixtures("shared_env")
def test_german_repeats_are_identical_so_first_equals_mean() -> None:
    with pytest.raises(LexiconFormatError, match=r"31 word\(s\) listed more than once"):
        load_lexicon("anew-german", duplicates="error")
    first = load_lexicon("anew-german").data
    mean = load_lexicon("anew-german", duplicates="mean").data
    pd.testing.assert_frame_equal(first, mean)


# --- user files and malformed files ---------------------------------------------------------------


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_user_tsv_with_inferred_scale(tmp_path: Path) -> None:
    path = write(tmp_path, "mine.tsv", "word\tvalence\tarousal\nnull\t-2\t1\nNA\t3.5\t2\n")
    lexicon = load_lexicon(path)
    assert (lexicon.name, lexicon.language) == ("mine", "und")
    assert lexicon.data["word"].tolist() == ["null", "NA"]
    assert lexicon.scale == {"valence": (-2.0, 3.5), "arousal": (1.0, 2.0)}


def test_user_csv_with_bom_given_scale_and_language(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    path.write_bytes("\ufeffword,valence\nTRUE,4\n".encode())
    lexicon = load_lexicon(str(path), scale=(1, 5), language="en")
    assert lexicon.scale == {"valence": (1, 5)}
    assert lexicon.language == "en"
    assert lexicon.data["word"].tolist() == ["TRUE"]


def test_semicolon_separator_is_detected(tmp_path: Path) -> None:
    path = write(tmp_path, "mine.txt", "word;valence\nbon;7,5\n")
    with pytest.raises(LexiconFormatError, match=r"mine.txt: line 2: 'valence' is '7,5'"):
        load_lexicon(path)


def test_bad_number_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.csv", "word,valence\ngood,5\nfine,6\nbad,five\nworse,\n")
    with pytest.raises(LexiconFormatError) as caught:
        load_lexicon(path)
    message = str(caught.value)
    assert "bad.csv" in message
    assert "line 4: 'valence' is 'five', not a number" in message
    assert "line 5: 'valence' is ''" in message


def test_line_numbers_count_physical_lines(tmp_path: Path) -> None:
    text = 'word,valence\n"two\nline word",5\n\nok,1\noops,x\n'
    path = write(tmp_path, "multiline.csv", text)
    with pytest.raises(LexiconFormatError, match=r"multiline.csv: line 6: "):
        load_lexicon(path)


def test_missing_valence_column(tmp_path: Path) -> None:
    path = write(tmp_path, "novalence.csv", "word,arousal\na,1\n")
    with pytest.raises(LexiconFormatError, match=r"novalence.csv, line 1: no column 'valence'"):
        load_lexicon(path)


def test_wrong_field_count(tmp_path: Path) -> None:
    path = write(tmp_path, "fields.csv", "word,valence\na,1\nb,2,3\n")
    with pytest.raises(LexiconFormatError, match=r"fields.csv, line 3: expected 2 fields"):
        load_lexicon(path)


def test_empty_word_and_out_of_scale(tmp_path: Path) -> None:
    path = write(tmp_path, "blank.csv", "word,valence\n  ,1\n")
    with pytest.raises(LexiconFormatError, match=r"blank.csv: line 2: empty word"):
        load_lexicon(path)
    path = write(tmp_path, "range.csv", "word,valence\na,1\nb,10\n")
    with pytest.raises(LexiconFormatError, match=r"line 3: valence 10 is outside 1..9"):
        load_lexicon(path, scale=(1, 9))


def test_duplicate_policies(tmp_path: Path) -> None:
    path = write(tmp_path, "dups.csv", "word,valence\na,1\nb,5\na,3\n")
    with pytest.raises(LexiconFormatError, match=r"dups.csv: 1 word\(s\).*'a' \(lines 2, 4\)"):
        load_lexicon(path)
    mean = load_lexicon(path, duplicates="mean").data
    assert mean.to_dict("list") == {"word": ["a", "b"], "valence": [2.0, 5.0]}
    first = load_lexicon(path, duplicates="first").data
    assert first.to_dict("list") == {"word": ["a", "b"], "valence": [1.0, 5.0]}
    with pytest.raises(WordlensError, match="duplicates must be"):
        load_lexicon(write(tmp_path, "ok.csv", "word,valence\na,1\n"), duplicates="last")  # type: ignore[arg-type]


def test_empty_lexicon(tmp_path: Path) -> None:
    with pytest.raises(EmptyInputError, match="no entries"):
        load_lexicon(write(tmp_path, "header.csv", "word,valence\n\n"))
    with pytest.raises(EmptyInputError, match="empty"):
        load_lexicon(write(tmp_path, "nothing.csv", ""))


def test_registered_name_errors(shared_env: Path) -> None:
    with pytest.raises(ResourceNotFoundError, match="Did you mean 'bellezza'"):
        load_lexicon("belleza")
    with pytest.raises(WordlensError, match="describe user files"):
        load_lexicon("anew", scale=(1, 9))
    with pytest.raises(LexiconFormatError, match="no such lexicon file"):
        load_lexicon("missing.csv")


def test_registered_format_on_an_explicit_file(shared_data: Path, tmp_path: Path) -> None:
    rows = (shared_data / "lexica/en/warriner.csv").read_text().splitlines()[:4]
    path = write(tmp_path, "head.csv", "\n".join(rows) + "\n")
    assert load_lexicon("warriner", path=path).data["word"].tolist() == [
        "aardvark",
        "abalone",
        "abandon",
    ]
