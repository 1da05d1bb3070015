"""The papers' published numbers (wordlens.reproduce.published): every file loads and is
consistent, sampled cells are found in the paper's text beside their row header, every printed
value and quote occurs in the text, and a malformed file names the file and the entry."""

from __future__ import annotations

import copy
import fnmatch
import re
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from wordlens.errors import PublishedValuesError, WordlensError
from wordlens.reproduce.published import (
    PAPERS,
    PaperValues,
    PublishedItem,
    load_published,
    printed_number,
    printed_range,
    read_paper_values,
)

REPO = Path(__file__).resolve().parents[2]
PAPERS_DIR = REPO / "src" / "wordlens" / "reproduce" / "papers"


def paper_text(shared: Path, values: PaperValues) -> str:
    path = shared / "papers" / values.file
    if not path.exists():
        pytest.skip(f"paper text not found: {path}")
    return path.read_text(encoding="utf-8")


def normalised(text: str) -> str:
    """Whitespace collapsed, and a minus sign the extraction split from its digits rejoined
    (Table 3 of the sense-bias paper prints '- 6.64')."""
    return re.sub(r"-\s+(?=[\d.])", "-", re.sub(r"\s+", " ", text))


def printed_pattern(printed: str) -> re.Pattern[str]:
    """The printed number as a whole token: '.32' does not match inside '0.32' or '-.32',
    nor '0.3' inside '0.30'."""
    return re.compile(rf"(?<![\d.\-]){re.escape(printed)}(?!\d)")


# ---------------------------------------------------------------- every file


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_loads_with_unique_ids(paper: str) -> None:
    values = load_published(paper)
    assert values.paper == paper
    assert values.items and values.findings
    ids = [item.id for item in values.items]
    ids += [figure.id for figure in values.figures] + [finding.id for finding in values.findings]
    assert len(ids) == len(set(ids))
    assert all(id == id.lower() for id in ids)


def test_papers_follow_the_shared_file_order() -> None:
    for index, paper in enumerate(PAPERS):
        assert load_published(paper).file.startswith(f"{index:03d}_")


@pytest.mark.parametrize("paper", PAPERS)
def test_declared_quantities_are_the_ones_used(paper: str) -> None:
    values = load_published(paper)
    assert {item.quantity for item in values.items} == set(values.quantities)


@pytest.mark.parametrize("paper", PAPERS)
def test_cells_of_one_table_or_figure_share_setting_keys(paper: str) -> None:
    keys: dict[tuple[str, int | None], set[tuple[str, ...]]] = defaultdict(set)
    for item in load_published(paper).items:
        if item.location.kind != "text":
            keys[item.location.kind, item.location.number].add(tuple(sorted(item.setting)))
    assert {place: found for place, found in keys.items() if len(found) > 1} == {}


@pytest.mark.parametrize("paper", PAPERS)
def test_table_cells_have_unique_locations(paper: str) -> None:
    cells = [
        (item.location.number, item.location.panel, item.location.row, item.location.column)
        for item in load_published(paper).items
        if item.location.kind == "table"
    ]
    assert len(cells) == len(set(cells))


@pytest.mark.parametrize("paper", PAPERS)
def test_a_correction_departs_from_the_printed_number(paper: str) -> None:
    # a correction that agrees with the printed form would hide nothing and explain nothing
    for item in load_published(paper).items:
        if item.correction is not None:
            assert printed_number(item.printed) != pytest.approx(item.value), item.id


def test_item_counts() -> None:
    # Guards against a table silently dropped from a file: the cells each paper's extraction has.
    def table(paper: str, number: int) -> int:
        return len(load_published(paper).table(number))

    assert table("vast", 1) == 2 * 4
    assert [table("sense-bias", n) for n in (1, 2, 3, 4)] == [5 * 3, 12 * 4, 8 * 4, 4 * 6]
    assert [table("asymmetry", n) for n in (1, 2, 3, 4, 5, 6, 8)] == [
        6 * 9,
        8 * 18,
        10 * 7,
        5 * 16 - 4,  # four '-' cells
        27 * 9,
        3 + 16 * 16,  # three pair counts in the header
        7 * 10,
    ]
    assert [table("probing", n) for n in (2, 3)] == [13 * 18, 12 * 10]
    figures: defaultdict[int | None, int] = defaultdict(int)
    for item in load_published("intersectional").items:
        figures[item.location.number] += 1
    assert dict(figures) == {2: 2 * 25 + 4 * 2 * 13, 3: 24, 4: 20}


# ---------------------------------------------------------------- against the paper's text

#: Sampled cells: the item at this location must print ``printed``, and the paper's text must
#: show ``printed`` within ``window`` characters after ``anchor`` (the row header).
SAMPLES: list[tuple[str, dict[str, Any], str, str, int]] = [
    (
        "vast",
        {"kind": "table", "number": 1, "row": "After", "column": "Aligned"},
        ".85",
        "After\t",
        40,
    ),
    (
        "vast",
        {"kind": "table", "number": 1, "row": "Before", "column": "Bleached"},
        ".32",
        "Before\t",
        40,
    ),
    (
        "vast",
        {"kind": "table", "number": 1, "row": "Before", "column": "Misaligned"},
        ".14",
        "Before\t",
        40,
    ),
    (
        "vast",
        {"kind": "text", "section": "Results: Tokenization"},
        ".46",
        "not fully encoded until layer 8",
        40,
    ),
    (
        "vast",
        {"kind": "text", "section": "Results: Semantic Isolation"},
        ".87",
        "Nullifying 2 PCs in layer 8",
        40,
    ),
    (
        "vast",
        {"kind": "text", "section": "Experiments: Tokenization"},
        "8,421",
        "multiply tokenized words.",
        40,
    ),
    (
        "sense-bias",
        {"kind": "table", "number": 1, "row": "#test cases", "column": "nationality vs. language"},
        "2304",
        "#test cases",
        30,
    ),
    (
        "sense-bias",
        {
            "kind": "table",
            "number": 2,
            "row": "Physical vs. Mental condition",
            "column": "ARES sense",
        },
        "-0.77",
        "Physical vs. Mental condition",
        40,
    ),
    (
        "sense-bias",
        {"kind": "table", "number": 2, "row": "WAT", "column": "LMMS word"},
        "0.53",
        "WAT\t",
        20,
    ),
    (
        "sense-bias",
        {"kind": "table", "number": 3, "row": "colour", "column": "base BERT"},
        "-6.64",
        "SSSB ethnicity colour",
        40,
    ),
    (
        "sense-bias",
        {"kind": "table", "number": 3, "row": "verb", "column": "large SenseBERT"},
        "-15.44",
        "nationality language noun verb",
        120,
    ),
    (
        "sense-bias",
        {
            "kind": "table",
            "number": 4,
            "row": "he/she is a strong nurse",
            "column": "SenseBERT anti",
        },
        "-16.64",
        "he/she is a strong nurse",
        60,
    ),
    (
        "intersectional",
        {
            "kind": "figure",
            "number": 2,
            "panel": "XLNet ValNorm Score",
            "series": "Traditional ValNorm",
            "x": 11,
        },
        "0.358562788319786",
        "title=XLNet ValNorm Score",
        2000,
    ),
    (
        "intersectional",
        {
            "kind": "figure",
            "number": 2,
            "panel": "GPT-Neo 1.3B ValNorm Score",
            "series": "SVC ValNorm",
            "x": 24,
        },
        "0.80581433958729",
        "title=GPT-Neo 1.3B ValNorm Score",
        1500,
    ),
    (
        "intersectional",
        {"kind": "figure", "number": 3, "series": "below", "x": "white vs. black"},
        "-0.9977884722472492",
        "label=below:white",
        40,
    ),
    (
        "intersectional",
        {"kind": "figure", "number": 4, "series": "Most Unpleasant", "x": "Homosexual"},
        "99.74",
        "[pattern=dots",
        200,
    ),
    (
        "intersectional",
        {"kind": "figure", "number": 4, "series": "Most Pleasant", "x": "Christian"},
        "65.10",
        "[pattern=grid",
        200,
    ),
    (
        "asymmetry",
        {"kind": "table", "number": 1, "row": "isA", "column": "SWOW ALAR"},
        "47.77",
        "isA | 379",
        60,
    ),
    (
        "asymmetry",
        {"kind": "table", "number": 2, "row": "synonym", "column": "EAT w2v"},
        "-.21",
        "synonym | ",
        10,
    ),
    (
        "asymmetry",
        {"kind": "table", "number": 3, "panel": "ALBERT", "row": "-xxl", "column": "# Params (M)"},
        "223",
        "-xxl | ",
        10,
    ),
    (
        "asymmetry",
        {"kind": "table", "number": 4, "row": "SIMLEX", "column": "cxt"},
        "34",
        "SIMLEX | .33 | ",
        10,
    ),
    (
        "asymmetry",
        {"kind": "table", "number": 5, "row": "notHasProperty", "column": "FA ratio"},
        "121.35",
        "notHasProperty | ",
        40,
    ),
    (
        "asymmetry",
        {"kind": "table", "number": 6, "row": "derivedFrom", "column": "EAT cxt"},
        "-1.00",
        "derivedFrom | -.50",
        20,
    ),
    (
        "asymmetry",
        {"kind": "table", "number": 8, "row": "MT287", "column": "roberta-l"},
        "82.86",
        "MT287 | ",
        60,
    ),
    (
        "probing",
        {"kind": "table", "number": 2, "row": "Winograd coref.", "column": "BERT-large mix"},
        "61.4",
        "Winograd coref. | 54.3 | 53.6",
        60,
    ),
    (
        "probing",
        {"kind": "table", "number": 2, "row": "Constituents", "column": "ELMo Abs."},
        "15.4",
        "Constituents | 56.1",
        60,
    ),
    (
        "probing",
        {"kind": "table", "number": 2, "row": "Macro Average", "column": "BERT-large Abs. ELMo"},
        "2.9",
        "Macro Average | 75.1",
        80,
    ),
    (
        "probing",
        {"kind": "table", "number": 3, "row": "SPR1", "column": "Total Targets (dev)"},
        "1.1k",
        "SPR1 | 18",
        80,
    ),
    (
        "probing",
        {"kind": "table", "number": 3, "row": "Rel. (SemEval)", "column": "|L|"},
        "19",
        "Rel. (SemEval) | ",
        10,
    ),
    (
        "probing",
        {"kind": "text", "section": "5 Results: Encoding non-local context"},
        "72%",
        "closes",
        10,
    ),
]


def sampled_item(paper: str, location: dict[str, Any], printed: str) -> PublishedItem:
    found = [
        item
        for item in load_published(paper).items
        if all(getattr(item.location, key) == value for key, value in location.items())
        and (item.location.kind != "text" or item.printed == printed)
    ]
    assert len(found) == 1, (paper, location, [item.id for item in found])
    return found[0]


def test_samples_cover_every_paper_five_times() -> None:
    assert all(sum(sample[0] == paper for sample in SAMPLES) >= 5 for paper in PAPERS)


@pytest.mark.parametrize(("paper", "location", "printed", "anchor", "window"), SAMPLES)
def test_sampled_cell_is_beside_its_row_header(
    shared: Path, paper: str, location: dict[str, Any], printed: str, anchor: str, window: int
) -> None:
    item = sampled_item(paper, location, printed)
    assert item.printed == printed
    text = normalised(paper_text(shared, load_published(paper)))
    anchor = normalised(anchor)
    pattern = printed_pattern(printed)
    starts = [match.end() for match in re.finditer(re.escape(anchor), text)]
    assert starts, f"row header {anchor!r} not in the paper"
    assert any(pattern.search(text[start : start + window]) for start in starts), (
        f"{printed!r} not within {window} characters after {anchor!r}"
    )


@pytest.mark.parametrize("paper", PAPERS)
def test_every_printed_value_occurs_in_the_paper(shared: Path, paper: str) -> None:
    values = load_published(paper)
    text = normalised(paper_text(shared, values))
    missing = [
        (item.id, item.printed)
        for item in values.items
        if not printed_pattern(item.printed).search(text)
    ]
    assert missing == []


@pytest.mark.parametrize("paper", PAPERS)
def test_table_cells_are_on_a_line_of_their_row(shared: Path, paper: str) -> None:
    # every table in the extractions keeps a row on one line (the flattened Table 3 of the
    # sense-bias paper puts several rows on one line): a cell's printed value must be on a line
    # that holds its row label; the pair counts in Table 6's header have no row
    values = load_published(paper)
    lines = [normalised(line) for line in paper_text(shared, values).splitlines()]
    cells = [
        item
        for item in values.items
        if item.location.kind == "table" and not str(item.location.row).startswith("(")
    ]
    astray = [
        (item.id, item.location.row, item.printed)
        for item in cells
        if not any(
            str(item.location.row) in line and printed_pattern(item.printed).search(line)
            for line in lines
        )
    ]
    assert astray == []


def test_figure_points_are_at_their_layer(shared: Path) -> None:
    # the TikZ source of Figure 2 prints each point as "(layer, value)"
    values = load_published("intersectional")
    text = paper_text(shared, values)
    points = [item for item in values.items if item.location.number == 2]
    assert len(points) == 154
    assert [item.id for item in points if f"({item.location.x}, {item.printed})" not in text] == []


@pytest.mark.parametrize("paper", PAPERS)
def test_quotes_are_verbatim_and_short(shared: Path, paper: str) -> None:
    values = load_published(paper)
    text = normalised(paper_text(shared, values))
    quotes = [(item.id, item.text) for item in values.items if item.location.kind == "text"]
    quotes += [(finding.id, finding.quote) for finding in values.findings]
    assert [(id, quote) for id, quote in quotes if normalised(quote) not in text] == []
    assert [item.id for item in values.items if len(item.text.split()) > 15] == []


def test_printed_value_match_is_whole_token() -> None:
    # a value that is only part of a printed number, or of another sign, is not found
    assert printed_pattern(".32").search("improves from .32 to .76")
    assert not printed_pattern(".32").search("r = 0.32")
    assert not printed_pattern(".32").search("r = -.32")
    assert not printed_pattern("0.3").search("r = 0.30")
    assert not printed_pattern("2.00").search("1.63/ 12.00")
    assert printed_pattern("-6.64").search(
        normalised("ethnicity colour 10.19/ 14.81 - 6.64 /-2.96")
    )


# ---------------------------------------------------------------- printed forms


@pytest.mark.parametrize(
    ("printed", "value"),
    [
        (".32", 0.32),
        ("-.05", -0.05),
        ("-.00", 0.0),
        ("8,421", 8421.0),
        ("116K", 116000.0),
        ("1.1k", 1100.0),
        ("2.2M", 2.2e6),
        ("3%", 3.0),
        ("+0.15", 0.15),
        ("\u22120.5", -0.5),
    ],
)
def test_printed_number(printed: str, value: float) -> None:
    assert printed_number(printed) == pytest.approx(value)


@pytest.mark.parametrize("printed", ["", "-", "1.2.3", "about 3", "1-3"])
def test_printed_number_rejects(printed: str) -> None:
    with pytest.raises(ValueError, match="not a printed number"):
        printed_number(printed)


def test_printed_range() -> None:
    assert printed_range("1-3") == (1.0, 3.0)
    assert printed_range("80-90%") == (80.0, 90.0)
    with pytest.raises(ValueError, match="not a printed range"):
        printed_range("80")


def test_resolution_is_the_printed_precision() -> None:
    vast = load_published("vast")
    assert vast.item("table1-before-bleached").resolution == pytest.approx(0.01)
    assert vast.item("text-warriner-singly-tokenized").resolution == 1.0
    probing = load_published("probing")
    assert probing.item("table3-part-of-speech-examples-train").resolution == 1000.0
    assert probing.item("table3-spr1-total-targets-dev").resolution == pytest.approx(100.0)
    assert probing.item("text-mix-over-cat").resolution == 1.0
    assert load_published("intersectional").item("figure4-pleasant-christian").resolution == (
        pytest.approx(0.01)
    )


# ---------------------------------------------------------------- malformed files

VALID: dict[str, Any] = {
    "paper": "demo",
    "title": "A title",
    "citation": "Someone (2020)",
    "file": "000_0123456789abcdef.txt",
    "quantities": {"vast_r": "a correlation"},
    "items": [
        {
            "id": "table1-before-bleached",
            "location": {"kind": "table", "number": 1, "row": "Before", "column": "Bleached"},
            "quantity": "vast_r",
            "value": 0.32,
            "printed": ".32",
            "model": "gpt2",
            "data": "bellezza",
            "setting": {"layer": 12},
            "text": "Before | Bleached",
        }
    ],
    "figures": [],
    "findings": [{"id": "a-claim", "claim": "It holds.", "quote": "it holds", "location": "5"}],
}


def mutated(path: tuple[Any, ...], value: Any) -> str:
    """VALID with ``document[path] = value`` (``...`` deletes the key), as YAML."""
    document = copy.deepcopy(VALID)
    target = document
    for key in path[:-1]:
        target = target[key]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return yaml.safe_dump(document, allow_unicode=True)


ITEM = ("items", 0)
MALFORMED = [
    (mutated((*ITEM, "quantity"), ...), "missing 'quantity'"),
    (mutated((*ITEM, "value"), "high"), "expected a finite number"),
    (mutated((*ITEM, "value"), float("nan")), "expected a finite number"),
    (mutated((*ITEM, "value"), True), "expected a finite number"),
    (mutated((*ITEM, "location", "kind"), "plot"), "location kind 'plot'"),
    (mutated((*ITEM, "location", "number"), ...), "needs a 'number'"),
    (mutated((*ITEM, "location", "cell"), "B2"), "unknown key(s) 'cell'"),
    (mutated((*ITEM, "quantity"), "rho"), "quantity 'rho' is not declared"),
    (mutated((*ITEM, "printed"), ".23"), "'printed' '.23' does not match the value 0.32"),
    (mutated((*ITEM, "printed"), "n/a"), "not a printed number"),
    (mutated((*ITEM, "relation"), "about"), "relation 'about'"),
    (mutated((*ITEM, "relation"), "range"), "'upper' is given exactly when"),
    (mutated((*ITEM, "setting"), {"layer": [12]}), "'setting' must map names to scalars"),
    (mutated((*ITEM, "comment"), "x"), "unknown key(s) 'comment'"),
    (mutated((*ITEM, "model"), 2), "expected a non-empty string"),
]


@pytest.mark.parametrize(("text", "problem"), MALFORMED)
def test_malformed_item_names_file_and_id(text: str, problem: str) -> None:
    with pytest.raises(PublishedValuesError) as raised:
        read_paper_values(text, "demo.yaml")
    message = str(raised.value)
    assert message.startswith("demo.yaml: items[0] (id 'table1-before-bleached')")
    assert problem in message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (mutated((*ITEM, "id"), "Table1"), "'id' must be lower-case"),
        (mutated(("items",), [VALID["items"][0]] * 2), "id 'table1-before-bleached' is used more"),
        (mutated(("findings", 0, "quote"), ...), "findings[0] (id 'a-claim'): missing 'quote'"),
        (mutated(("file",), "paper.pdf"), "'file' must name a paper text"),
        (mutated(("quantities",), {}), "'quantities' must map"),
        (mutated(("items",), {"id": "x"}), "'items': expected a list"),
        ("items: [\n", "not YAML"),
        ("- a list\n", "expected a mapping"),
    ],
)
def test_malformed_file_names_the_problem(text: str, problem: str) -> None:
    with pytest.raises(PublishedValuesError, match=re.escape(problem)) as raised:
        read_paper_values(text, "demo.yaml")
    assert str(raised.value).startswith("demo.yaml: ")


def test_valid_document_reads() -> None:
    values = read_paper_values(yaml.safe_dump(VALID), "demo.yaml")
    assert values.item("table1-before-bleached").value == 0.32
    assert values.table(1) == values.items
    with pytest.raises(KeyError):
        values.item("nope")


def test_a_correction_allows_a_value_that_departs_from_print() -> None:
    text = mutated((*ITEM, "correction"), "minus sign lost in the extraction")
    values = read_paper_values(text.replace("value: 0.32", "value: -0.32"), "demo.yaml")
    assert values.items[0].value == -0.32


def test_unknown_paper_is_a_wordlens_error() -> None:
    with pytest.raises(WordlensError, match="unknown paper 'gpt'; known: vast, sense-bias"):
        load_published("gpt")


# ---------------------------------------------------------------- packaging


def test_paper_files_are_package_data() -> None:
    # pyproject's package-data globs must ship every papers/*.yaml (else load_published fails
    # on an installed wordlens)
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["wordlens"]
    files = sorted(PAPERS_DIR.glob("*.yaml"))
    assert [path.stem for path in files] == sorted(PAPERS)
    package = REPO / "src" / "wordlens"
    for path in files:
        relative = path.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(relative, glob) for glob in globs), relative
