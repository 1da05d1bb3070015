"""Intersectional studies and phrases: the paper's design, exact-token membership, validation."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from wordlens.contexts.intersectional import (
    Bias,
    IntersectionalStudy,
    Phrase,
    StudyFormatError,
    combination_phrases,
    count_permutations,
    default_study,
    load_study,
    membership_table,
    permutation_phrases,
)

TABLE_1 = [
    ("age", "young", "old"),
    ("weight", "thin", "fat"),
    ("height", "tall", "short"),
    ("intelligence", "smart", "stupid"),
    ("education", "educated", "ignorant"),
    ("literacy", "literate", "illiterate"),
    ("social class", "affluent", "destitute"),
    ("race", "white", "black"),
    ("sexual orientation", "heterosexual", "homosexual"),
    ("religion", "christian", "muslim"),
    ("gender", "cisgender", "transgender"),
    ("sex", "male", "female"),
]


@pytest.fixture(scope="module")
def combinations() -> list[Phrase]:
    return combination_phrases(default_study())


def test_default_study_is_table_1_in_the_papers_order() -> None:
    study = default_study()
    assert [(b.name, b.first, b.second) for b in study.biases] == TABLE_1
    assert study.template == "a {categories} person" and study.target == "person"
    assert study.strongest_biases == ("race", "sex", "religion", "gender", "sexual orientation")
    assert study.bias("sex").label == "male vs. female"
    assert study.target_after_categories


def test_4096_combinations_each_category_in_2048(combinations: list[Phrase]) -> None:
    assert len(combinations) == 4096 and len({p.text for p in combinations}) == 4096
    assert combinations[0].text == (
        "a young thin tall smart educated literate affluent white heterosexual christian "
        "cisgender male person"
    )
    assert combinations[1].text.endswith("cisgender female person")  # last bias varies fastest
    assert combinations[-1].text == (
        "an old fat short stupid ignorant illiterate destitute black homosexual muslim "
        "transgender female person"
    )
    table = membership_table(combinations, default_study().categories)
    assert table.shape == (4096, 24)
    assert (table.sum() == 2048).all()
    assert (table.sum(axis=1) == 12).all()
    for phrase in combinations[:50]:
        assert phrase.target.word == "person"
        assert phrase.target.end == len(phrase.text)
        assert phrase.text.split()[1:-1] == list(phrase.categories)
    assert {phrase.text.split()[0] for phrase in combinations} == {"a", "an"}
    assert all(p.text.startswith("an old ") for p in combinations if p.contains("old"))


def test_membership_is_exact_token_never_substring(combinations: list[Phrase]) -> None:
    table = membership_table(combinations, ["male", "female", "literate", "illiterate"])
    # a substring test would find "male" in every phrase ("female" contains it)
    assert sum("male" in phrase.text for phrase in combinations) == 4096
    assert sum("literate" in phrase.text for phrase in combinations) == 4096
    assert table["male"].sum() == table["female"].sum() == 2048
    assert not (table["male"] & table["female"]).any()
    assert not (table["literate"] & table["illiterate"]).any()
    assert (table["literate"] | table["illiterate"]).all()
    assert not combinations[1].contains("male") and combinations[1].contains("female")


def test_3840_permutations_of_the_five_biases() -> None:
    study = default_study()
    phrases = permutation_phrases(study)
    assert len(phrases) == 3840 == count_permutations(5)
    assert len({p.text for p in phrases}) == 3840
    assert phrases[0].text == "a white male christian cisgender heterosexual person"
    assert phrases[1].text == "a white male christian heterosexual cisgender person"
    per_bias = {b.name: set(b.categories) for b in study.biases}
    for phrase in phrases[::97]:
        assert phrase.target.word == "person" and phrase.target.end == len(phrase.text)
        chosen = [
            name for name in study.strongest_biases if per_bias[name] & set(phrase.categories)
        ]
        assert len(chosen) == 5 and len(phrase.categories) == 5
    counts = Counter(c for p in phrases for c in p.categories)
    assert set(counts) == {
        c for name in study.strongest_biases for c in study.bias(name).categories
    }
    assert set(counts.values()) == {1920}
    positions = Counter((p.categories[i], i) for p in phrases for i in range(5))
    assert set(positions.values()) == {384}  # every category equally often in every position
    two = permutation_phrases(study, ["sex", "race"])
    assert [p.text for p in two[:2]] == ["a male white person", "a white male person"]
    assert len(two) == 8


def _sha256_of_sorted_lines(phrases: list[Phrase]) -> str:
    """As ``sed 's/[ \\t]*$//' FILE | LC_ALL=C sort | sha256sum``: the sorted lines, each ending
    with a newline."""
    lines = sorted(phrase.text for phrase in phrases)
    return hashlib.sha256("".join(f"{line}\n" for line in lines).encode()).hexdigest()


def test_phrase_sets_equal_the_authors_files(combinations: list[Phrase]) -> None:
    """shivaomrani/LLM-Bias, data/experiment-phrases/experiment2.txt (4,096 lines; 2,048 start
    "an old") and experiment3.txt (3,840 lines), hashed as in _sha256_of_sorted_lines."""
    assert _sha256_of_sorted_lines(combinations) == (
        "a3140a1d3edaf8e1267617d6691df3ba654a9d5f0a747608ec020364bd261f24"
    )
    assert _sha256_of_sorted_lines(permutation_phrases(default_study())) == (
        "b66e2539154ece52b66ac48abae3acaa7e90064930859bbee9b1ea5da245b60a"
    )


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("a {categories} person", ["a young person", "an old person"]),
        ("an {categories} person", ["a young person", "an old person"]),
        ("A {categories} person", ["A young person", "An old person"]),
        ("she met a  {categories} person", ["she met a  young person", "she met an  old person"]),
        ("(a {categories} person)", ["(a young person)", "(an old person)"]),
        ("my {categories} person", ["my young person", "my old person"]),
        ("the {categories} person", ["the young person", "the old person"]),
        ("banana {categories} person", ["banana young person", "banana old person"]),
        ("{categories} person", ["young person", "old person"]),
    ],
)
def test_article_before_the_slot_agrees_with_the_first_category(
    template: str, expected: list[str]
) -> None:
    study = IntersectionalStudy((Bias("age", "young", "old"),), template=template)
    phrases = combination_phrases(study)
    assert [p.text for p in phrases] == expected
    assert all(p.target.word == "person" for p in phrases)
    assert [p.text for p in permutation_phrases(study, ["age"])] == expected


def test_target_is_the_last_occurrence() -> None:
    study = IntersectionalStudy(
        (Bias("sex", "male", "female"),), template="the person is a {categories} person"
    )
    first, second = combination_phrases(study)
    assert first.text == "the person is a male person"
    assert first.target.start == len("the person is a male ") and first.target.word == "person"
    assert second.contains("female") and not second.contains("male")
    before = IntersectionalStudy((Bias("sex", "male", "female"),), template="person: {categories}")
    assert not before.target_after_categories


def test_yaml_and_csv_studies(tmp_path: Path) -> None:
    yaml_file = tmp_path / "mine.yaml"
    yaml_file.write_text(
        "template: 'she met a {categories} person yesterday'\n"
        "biases:\n"
        "  - {name: age, categories: [young, old]}\n"
        "  - {name: height, categories: [tall, short]}\n"
        "strongest_biases: [height]\n"
    )
    study = load_study(yaml_file)
    assert study.name == "mine" and study.strongest_biases == ("height",)
    assert [p.text for p in combination_phrases(study)][:2] == [
        "she met a young tall person yesterday",
        "she met a young short person yesterday",
    ]
    csv_file = tmp_path / "mine.csv"
    csv_file.write_text("bias,first,second,strongest\nage,young,old,no\n\nheight,tall,short,yes\n")
    from_csv = load_study(csv_file, template="she met a {categories} person yesterday")
    assert from_csv.biases == study.biases and from_csv.strongest_biases == ("height",)
    overridden = load_study(csv_file, template="my {categories} friend", target="friend")
    assert combination_phrases(overridden)[0].target.word == "friend"
    assert load_study(strongest_biases=["race"]).strongest_biases == ("race",)


@pytest.mark.parametrize(
    ("biases", "template", "message"),
    [
        ([], "a {categories} person", "at least one bias"),
        ([("a", "x", "y"), ("b", "X", "z")], "a {categories} person", "duplicate category 'X'"),
        ([("a", "x", "y"), ("a", "u", "v")], "a {categories} person", "more than once"),
        ([("a", "two words", "y")], "a {categories} person", "not a single token"),
        ([("a", "", "y")], "a {categories} person", "not a single token"),
        ([("a", "a", "y")], "a {categories} person", "word of the template"),
        ([("a", "persons", "person")], "a {categories} person", "word of the template"),
        ([("a", "x", "y")], "a person", "exactly once"),
        ([("a", "x", "y")], "a {categories} {categories} person", "exactly once"),
        ([("a", "x", "y")], "a{categories} person", "separated from the rest"),
        ([("a", "x", "y")], "a {categories}", "does not occur"),
        ([("a", "x", "y")], "a {categories} personal", "does not occur"),
    ],
)
def test_invalid_studies_raise(
    biases: list[tuple[str, str, str]], template: str, message: str
) -> None:
    with pytest.raises(StudyFormatError, match=message):
        IntersectionalStudy(tuple(Bias(*b) for b in biases), template=template)


def test_invalid_files_and_sizes_raise(tmp_path: Path) -> None:
    cases = {
        "keys.yaml": ("biases: [{name: a, categories: [x, y]}]\ncolour: red\n", "unknown key"),
        "three.yaml": ("biases: [{name: a, categories: [x, y, z]}]\n", "exactly two categories"),
        "list.yaml": ("- a\n- b\n", "YAML mapping"),
        "broken.yaml": ("biases: [\n", "not valid YAML"),
        "none.yaml": ("biases: []\n", "non-empty list"),
        "subset.yaml": (
            "biases: [{name: a, categories: [x, y]}]\nstrongest_biases: [b]\n",
            "no bias named 'b'",
        ),
        "header.csv": ("bias,first\na,x\n", "lacks column"),
        "flag.csv": ("bias,first,second,strongest\na,x,y,maybe\n", "line 2: 'strongest'"),
        "width.csv": ("bias,first,second\na,x\n", "line 2: 2 field"),
        "study.txt": ("bias,first,second\n", "must be .yaml"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(StudyFormatError, match=message):
            load_study(path)
    with pytest.raises(StudyFormatError, match="cannot read"):
        load_study(tmp_path / "absent.yaml")
    with pytest.raises(StudyFormatError, match="more than max_phrases"):
        combination_phrases(default_study(), max_phrases=4095)
    with pytest.raises(StudyFormatError, match="no biases to permute"):
        permutation_phrases(default_study(), [])
    with pytest.raises(StudyFormatError, match="more than max_phrases=100,000"):
        permutation_phrases(default_study(), [b.name for b in default_study().biases[:8]])
