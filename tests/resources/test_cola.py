"""CoLA: the registered splits (counts from the files), parsing and malformed files."""

from __future__ import annotations

from pathlib import Path

import pytest

from wordlens.errors import EmptyInputError, LexiconFormatError, WordlensError
from wordlens.resources import get_resource, load_cola, read_cola

SPLITS = {
    # split: (rows, acceptable)
    "in_domain_train": (8551, 6023),
    "out_of_domain_dev": (516, 354),  # 515 newlines: the last line has none
}


@pytest.mark.usefixtures("shared_env")
@pytest.mark.parametrize("split", SPLITS)
def test_registered_split_sizes_and_types(split: str) -> None:
    cola = load_cola(split)  # type: ignore[arg-type]
    assert (len(cola), int(cola["label"].sum())) == SPLITS[split]
    assert list(cola.columns) == ["source", "label", "author_mark", "sentence"]
    assert cola["label"].dtype == "int64"
    assert set(cola["author_mark"]) <= {"", "*", "?", "??", "*?", "?*"}
    assert (cola["sentence"] == cola["sentence"].str.strip()).all()


@pytest.mark.usefixtures("shared_env")
def test_first_and_last_rows() -> None:
    train = load_cola("in_domain_train")
    assert train.iloc[0].tolist() == [
        "gj04",
        1,
        "",
        "Our friends won't buy this analysis, let alone the next one we propose.",
    ]
    dev = load_cola("out_of_domain_dev")
    assert dev.iloc[-1].tolist() == ["w_80", 1, "", "John talked to Bill about himself."]
    # unacceptable sentences carry the author's mark
    assert (train.loc[train["author_mark"] == "*", "label"] == 0).all()


def test_explicit_data_root_and_description(shared_data: Path) -> None:
    assert len(load_cola("out_of_domain_dev", path=shared_data)) == 516
    described = get_resource("cola").describe()
    assert [file["relpath"] for file in described["files"]] == [
        "cola/in_domain_train.tsv",
        "cola/out_of_domain_dev.tsv",
    ]


@pytest.mark.usefixtures("shared_env")
def test_unknown_split() -> None:
    with pytest.raises(WordlensError, match="unknown CoLA split 'test'"):
        load_cola("test")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("gj04\t1\tOnly three fields", r"line 2: expected 4 tab-separated fields .* found 3"),
        ("gj04\tyes\t\tA sentence.", r"line 2: label must be 0 or 1, not 'yes'"),
        ("gj04\t0\t*\t  ", r"line 2: empty sentence"),
    ],
)
def test_malformed_lines(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(f"gj04\t1\t\tFine.\n{line}\n", encoding="utf-8")
    with pytest.raises(LexiconFormatError, match=message):
        read_cola(path)


def test_parse_strips_and_skips_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "mine.tsv"
    path.write_text("a\t0\t* \t Bill cats. \n\nb\t1\t\tOK.", encoding="utf-8")
    assert read_cola(path).to_dict("list") == {
        "source": ["a", "b"],
        "label": [0, 1],
        "author_mark": ["*", ""],
        "sentence": ["Bill cats.", "OK."],
    }


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.tsv"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(EmptyInputError, match="no CoLA sentences"):
        read_cola(path)
