"""ConceptNet-100K and the ConceptNet 5 assertions file: registration, parsing and the relation
annotation of word pairs."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pandas as pd
import pytest
from tests.conceptnet5_sample import EDGES, edge_line, write_sample

from wordlens.errors import LexiconFormatError, ResourceNotFoundError, WordlensError
from wordlens.resources.association_norms import load_association_norms
from wordlens.resources.conceptnet import (
    CONCEPTNET_5,
    CONCEPTNET_5_URL,
    CONCEPTNET_100K,
    PAPER_RELATIONS,
    ConceptNet,
    annotate_pairs,
    load_conceptnet,
    open_conceptnet,
    read_ckbc,
    read_conceptnet5,
)
from wordlens.resources.registry import get_resource

TRAIN = """IsA\tdog\tanimal\t2.0
PartOf\twheel\tcar\t1.5
HasA\tcar\twheel\t1.0
AtLocation\tfork\tkitchen\t1.0
IsA\tbig dog\tanimal\t1.0
RelatedTo\tsea\tocean\t1.0
RelatedTo\tocean\tsea\t1.0
NotIsA\tbat\tbird\t1.0
Desires\tcat\tcat\t1.0
"""
TEST = """IsA\tcat\tpet\t1
IsA\tcat\tdog\t0
"""


@pytest.fixture
def toy_conceptnet(tmp_path: Path) -> ConceptNet:
    train = tmp_path / "train.txt"
    train.write_text(TRAIN)
    test = tmp_path / "test.txt"
    test.write_text(TEST)
    return read_ckbc([train, test])


def _annotated(conceptnet: ConceptNet, pairs: list[tuple[str, str]], **options: bool) -> set:
    frame = pd.DataFrame(pairs, columns=["word1", "word2"])
    table = annotate_pairs(frame, conceptnet, **options)
    return set(table.itertuples(index=False, name=None))


def test_read_ckbc_keeps_true_evaluation_rows_in_lower_camel_case(
    toy_conceptnet: ConceptNet,
) -> None:
    table = toy_conceptnet.assertions
    assert len(table) == 10  # 9 training rows + the label-1 test row (the label-0 row is dropped)
    assert table["relation"].iloc[0] == "isA" and "notIsA" in set(table["relation"])
    assert table["split"].tolist() == ["train"] * 9 + ["dev1"]  # files in the registry's order
    assert table["weight"].isna().sum() == 1
    # Single words only: "big dog" is not a concept of the vocabulary; "cat" is (cat -> pet).
    assert "big dog" not in toy_conceptnet.vocabulary and "pet" in toy_conceptnet.vocabulary


def test_pairs_are_oriented_head_to_tail_whatever_their_order(toy_conceptnet: ConceptNet) -> None:
    annotated = _annotated(toy_conceptnet, [("animal", "dog"), ("kitchen", "fork"), ("pet", "cat")])
    assert annotated == {
        ("isA", "dog", "animal"),
        ("atLocation", "fork", "kitchen"),
        ("isA", "cat", "pet"),  # from the test file's true row
    }


def test_a_pair_gets_every_relation_each_in_its_own_direction(toy_conceptnet: ConceptNet) -> None:
    annotated = _annotated(toy_conceptnet, [("car", "wheel"), ("wheel", "car")])
    assert annotated == {("partOf", "wheel", "car"), ("hasA", "car", "wheel")}


def test_unannotated_and_two_way_pairs_are_ordered_lexicographically(
    toy_conceptnet: ConceptNet,
) -> None:
    annotated = _annotated(
        toy_conceptnet,
        [("zebra", "apple"), ("sea", "ocean"), ("animal", "big"), ("cat", "cat")],
    )
    # sea/ocean: RelatedTo both ways. "big dog" is a phrase, so animal/big is unannotated.
    # cat/cat: a self-pair is dropped.
    assert annotated == {
        ("relatedTo", "apple", "zebra"),
        ("relatedTo", "ocean", "sea"),
        ("relatedTo", "animal", "big"),
    }


def test_negated_relations_are_kept_apart_or_dropped(toy_conceptnet: ConceptNet) -> None:
    assert _annotated(toy_conceptnet, [("bird", "bat")]) == {("notIsA", "bat", "bird")}
    dropped = _annotated(toy_conceptnet, [("bird", "bat")], include_negated=False)
    assert dropped == {("relatedTo", "bat", "bird")}


def test_matching_ignores_case_and_repeats(toy_conceptnet: ConceptNet) -> None:
    annotated = _annotated(toy_conceptnet, [("Dog", "ANIMAL"), ("animal", "dog")])
    assert annotated == {("isA", "dog", "animal")}
    with pytest.raises(WordlensError, match="word1 and word2"):
        annotate_pairs(pd.DataFrame({"cue": ["dog"]}), toy_conceptnet)


def test_malformed_files_name_the_row(tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("IsA\tdog\tanimal\t1.0\nIsA\tcat\tpet\n")
    with pytest.raises(LexiconFormatError, match="row 2"):
        read_ckbc([short])
    wide = tmp_path / "wide.txt"
    wide.write_text("IsA\tdog\tanimal\t1.0\nIsA\tcat\tpet\t1\textra\n")
    with pytest.raises(LexiconFormatError, match="4 tab-separated"):
        read_ckbc([wide])
    train = tmp_path / "train.txt"
    train.write_text("IsA\tdog\tanimal\t1.0\n")
    labels = tmp_path / "labels.txt"
    labels.write_text("IsA\tcat\tpet\t2\n")
    with pytest.raises(LexiconFormatError, match="labels must be 0 or 1"):
        read_ckbc([train, labels])
    with pytest.raises(WordlensError, match="1 to 4 files"):
        read_ckbc([])


def test_registered_files_match_their_checksums(shared_env: Path) -> None:
    resource = get_resource(CONCEPTNET_100K)
    assert resource.kind == "knowledge-graph" and len(resource.files) == 4
    for file in resource.files:
        digest = hashlib.sha256((shared_env / file.relpath).read_bytes()).hexdigest()
        assert digest == file.sha256, file.relpath
    conceptnet = load_conceptnet()
    counts = conceptnet.assertions["split"].value_counts().to_dict()
    assert counts == {"train": 100_000, "test": 1_200, "dev1": 600, "dev2": 600}
    relations = conceptnet.assertions["relation"].value_counts()
    assert (relations["isA"], relations["atLocation"]) == (14_925 + 408, 14_380 + 480)


def test_eat_pairs_get_the_relations_of_the_paper(shared_env: Path) -> None:
    conceptnet = load_conceptnet()
    pairs = load_association_norms("eat").bidirectional_pairs()
    table = annotate_pairs(pairs, conceptnet)
    counts = table["relation"].value_counts()
    # The paper's Table 1 (full ConceptNet, EAT): isA 379, atLocation 455.
    assert (counts["isA"], counts["atLocation"], counts["partOf"]) == (384, 370, 149)
    assert counts["relatedTo"] == 18_700
    isa = set(map(tuple, table.loc[table["relation"] == "isA", ["a", "b"]].to_numpy()))
    assert ("africa", "continent") in isa and ("continent", "africa") not in isa


# --- the ConceptNet 5 assertions file ------------------------------------------------------------


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """The sample on a data root: ``<root>/conceptnet/conceptnet-assertions-5.7.0.csv.gz``."""
    (tmp_path / "root" / "conceptnet").mkdir(parents=True)
    return write_sample(tmp_path / "root" / "conceptnet" / "conceptnet-assertions-5.7.0.csv.gz")


def test_read_conceptnet5_keeps_the_english_edges_of_the_paper_relations(sample: Path) -> None:
    conceptnet = read_conceptnet5(sample)
    table = conceptnet.assertions
    # 14 lines: 3 with a non-English end, 1 of a relation the paper does not report (MannerOf).
    assert len(table) == 10 == len(EDGES) - 4
    assert conceptnet.skipped == {
        "English edge of relation mannerOf (not read)": 1,
        "non-English edge": 3,
    }
    assert set(table["relation"]) == {"antonym", "synonym", "distinctFrom", "partOf", "relatedTo"}
    assert set(table["relation"]) <= set(PAPER_RELATIONS)
    # Terms as ConceptNet-100K writes them: no POS / sense suffix, underscores are spaces.
    first = table.iloc[0]
    assert (first["relation"], first["head"], first["tail"]) == ("antonym", "hot", "cold")
    assert ("ice cream", "gelato") in set(zip(table["head"], table["tail"], strict=True))
    wheel = table[table["head"] == "wheel"].iloc[0]
    assert wheel["weight"] == 1.585 and wheel["split"] == "/d/conceptnet/4/en"
    assert table["weight"].dtype == "float64"
    # hot -> cold twice (two senses, two datasets) is one word assertion; "ice cream" a phrase.
    words = conceptnet.word_assertions()
    assert words["relation"].value_counts().to_dict() == {
        "antonym": 3,
        "synonym": 2,
        "distinctFrom": 1,
        "partOf": 1,
        "relatedTo": 1,
    }
    assert "gelato" not in conceptnet.vocabulary and "couch" in conceptnet.vocabulary
    assert conceptnet.describe()["skipped"]["non-English edge"] == 3


def test_read_conceptnet5_every_relation_and_plain_text(sample: Path, tmp_path: Path) -> None:
    everything = read_conceptnet5(sample, relations=None)
    assert "mannerOf" in set(everything.assertions["relation"])
    assert everything.skipped == {"non-English edge": 3}
    plain = tmp_path / "assertions.csv"
    plain.write_bytes(gzip.decompress(sample.read_bytes()))
    pd.testing.assert_frame_equal(
        read_conceptnet5(plain).assertions, read_conceptnet5(sample).assertions
    )


def test_conceptnet5_pairs_get_the_relations_conceptnet_100k_lacks(sample: Path) -> None:
    conceptnet = read_conceptnet5(sample)
    pairs = [("cold", "hot"), ("big", "large"), ("night", "day"), ("king", "queen"), ("a", "b")]
    assert _annotated(conceptnet, pairs) == {
        ("antonym", "hot", "cold"),
        ("synonym", "large", "big"),  # head -> tail, not the pair's order
        ("distinctFrom", "day", "night"),
        ("relatedTo", "queen", "king"),  # a RelatedTo edge: head -> tail
        ("relatedTo", "a", "b"),  # no edge: the fallback, lexicographic
    }


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("/a/[x]\t/r/IsA\t/c/en/dog\t/c/en/animal\n", "line 2: expected 5 tab-separated"),
        (edge_line("/r/IsA", "/c/en/dog", "/c/en/animal", "/d/x", 1.0)[:-12] + "\n", "'weight'"),
        (edge_line("IsA", "/c/en/dog", "/c/en/animal", "/d/x", 1.0), "not a relation URI"),
        (edge_line("/r/IsA", "/c/en/", "/c/en/animal", "/d/x", 1.0), "has no term"),
    ],
)
def test_malformed_assertion_lines_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(edge_line(*EDGES[0]) + line)
    with pytest.raises(LexiconFormatError, match=message):
        read_conceptnet5(path)


def test_conceptnet5_is_registered_with_its_url_and_never_downloaded(sample: Path) -> None:
    resource = get_resource(CONCEPTNET_5, kind="knowledge-graph")
    described = resource.describe()  # what `wordlens data show conceptnet5` prints
    (file,) = described["files"]
    assert file["url"] == CONCEPTNET_5_URL and described["source"] == CONCEPTNET_5_URL
    assert file["sha256"].startswith("not recorded") and not described["available"]
    # Online (no offline switch set) it still refuses: nothing to verify a download against.
    with pytest.raises(ResourceNotFoundError, match="refused") as caught:
        load_conceptnet(CONCEPTNET_5)
    assert f"download {CONCEPTNET_5_URL} yourself" in str(caught.value)
    loaded = load_conceptnet(CONCEPTNET_5, sample)
    assert len(loaded.assertions) == 10 and loaded.source.startswith("ConceptNet 5 assertions")


def test_open_conceptnet_takes_a_name_or_a_path(sample: Path, shared_env: Path) -> None:
    assert open_conceptnet(str(sample)).skipped["non-English edge"] == 3
    assert open_conceptnet(str(sample.parents[1])).name == sample.name  # the data root
    assert open_conceptnet(CONCEPTNET_100K).source == "ConceptNet-100K (CKBC, Li et al. 2016)"
    with pytest.raises(WordlensError, match="no ConceptNet 'conceptnet6'"):
        open_conceptnet("conceptnet6")
