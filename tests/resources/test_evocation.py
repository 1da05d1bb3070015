"""Evocation data: eq. 5 conditionals, bidirectional pairs and the two SWOW-EN file formats."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.errors import LexiconFormatError, ResourceNotFoundError, WordlensError
from wordlens.resources.association_norms import (
    AssociationNorms,
    load_association_norms,
    read_eat,
    read_swow,
    read_usf,
)

# A hand-made EAT table: CAT has 4 responses in all, DOG 5, MOUSE 2.
EAT_ROWS = """stimulus\tresponse\tcount
CAT\tDOG\t3
CAT\tMOUSE\t1
DOG\tCAT\t4
DOG\tBONE\t1
MOUSE\tCAT\t1
MOUSE\tMOUSE\t1
"""


@pytest.fixture
def toy_eat(tmp_path: Path) -> AssociationNorms:
    path = tmp_path / "eat.tsv"
    path.write_text(EAT_ROWS)
    return read_eat(path)


def test_eq5_is_count_over_the_cue_total(toy_eat: AssociationNorms) -> None:
    cues = ["cat", "cat", "dog", "dog", "mouse"]
    responses = ["dog", "mouse", "cat", "bone", "cat"]
    expected = [3 / 4, 1 / 4, 4 / 5, 1 / 5, 1 / 2]
    np.testing.assert_allclose(toy_eat.conditional(cues, responses), expected, rtol=1e-15)
    assert toy_eat.cues == frozenset({"cat", "dog", "mouse"})


def test_unseen_response_is_zero_and_a_non_cue_is_undefined(toy_eat: AssociationNorms) -> None:
    values = toy_eat.conditional(["cat", "bone", "unknown", "cat"], ["bone", "dog", "cat", "cat"])
    assert values[0] == 0.0 and values[3] == 0.0  # cat is normed: never answered bone or cat
    assert np.isnan(values[1]) and np.isnan(values[2])  # bone, unknown are not cues
    assert toy_eat.conditional([], []).shape == (0,)
    with pytest.raises(WordlensError, match="pair up"):
        toy_eat.conditional(["cat"], ["dog", "mouse"])


def test_bidirectional_pairs_need_both_directions_and_skip_self_pairs(
    toy_eat: AssociationNorms,
) -> None:
    pairs = toy_eat.bidirectional_pairs()
    # cat<->dog and cat<->mouse are reciprocated; dog->bone is one-way; mouse->mouse is a self-pair.
    assert pairs.to_dict("records") == [
        {"word1": "cat", "word2": "dog"},
        {"word1": "cat", "word2": "mouse"},
    ]


def test_usf_strength_is_fsg(tmp_path: Path) -> None:
    path = tmp_path / "usf.csv"
    path.write_text("CUE,TARGET,FSG,BSG\nSun,moon,0.4,0.3\nMOON,SUN,0.3,0.4\nsun,star,0.1,?\n")
    norms = read_usf(path)
    np.testing.assert_array_equal(
        norms.conditional(["sun", "moon", "sun", "moon"], ["moon", "sun", "star", "star"]),
        [0.4, 0.3, 0.1, 0.0],
    )
    assert norms.bidirectional_pairs().to_dict("records") == [{"word1": "moon", "word2": "sun"}]


# SWOW-EN: the same responses in both published formats. Cue "Paris" and "paris" are two written
# forms that merge when lower-cased.
SWOW_RAW = [
    # cue, R1, R2, R3
    ("cat", "dog", "mouse", "No more responses"),
    ("cat", "Dog", "NA", "NA"),
    ("cat", "pet", "dog", ""),
    ("cat", "Unknown word", "NA", "NA"),
    ("dog", "cat", "bone", "leash"),
    ("Paris", "france", "NA", "NA"),
    ("paris", "France", "city", "NA"),
]


def _write_raw(path: Path) -> None:
    frame = pd.DataFrame(SWOW_RAW, columns=["cue", "R1", "R2", "R3"])
    frame.insert(0, "participantID", range(len(frame)))
    frame.insert(0, "id", range(100, 100 + len(frame)))
    frame.to_csv(path, index=True, na_rep="NA")


def _write_strength(path: Path) -> None:
    lines = [
        "cue\tresponse\tR123\tN\tR123.Strength",
        "cat\tdog\t3\t6\t0.5",
        "cat\tmouse\t1\t6\t0.16666667",
        "cat\tpet\t1\t6\t0.16666667",
        "cat\tDog\t1\t6\t0.16666667",  # a response spelled twice; lower-cased and summed below
        "dog\tcat\t1\t3\t0.33333333",
        "dog\tbone\t1\t3\t0.33333333",
        "dog\tleash\t1\t3\t0.33333333",
        "Paris\tfrance\t1\t1\t1",
        "paris\tfrance\t1\t2\t0.5",
        "paris\tcity\t1\t2\t0.5",
    ]
    with gzip.open(path, "wt") as handle:
        handle.write("\n".join(lines) + "\n")


def test_swow_raw_counts_r1_r2_r3_and_skips_missing_responses(tmp_path: Path) -> None:
    path = tmp_path / "SWOW-EN.R100.csv"
    _write_raw(path)
    norms = load_association_norms("swow", path=path)
    # cat: dog, mouse, dog, pet, dog = 5 responses (one "Dog" lower-cased); NA/""/"No more ..." out
    np.testing.assert_allclose(
        norms.conditional(
            ["cat", "cat", "cat", "dog", "paris"], ["dog", "mouse", "pet", "cat", "city"]
        ),
        [3 / 5, 1 / 5, 1 / 5, 1 / 3, 1 / 3],
        rtol=1e-15,
    )
    assert norms.conditional(["paris"], ["france"])[0] == pytest.approx(2 / 3)
    assert not {"no more responses", "unknown word", "na", ""} & set(norms.edges["response"])


def test_swow_strength_file_gives_r123_over_n_merging_cue_forms(tmp_path: Path) -> None:
    path = tmp_path / "strength.SWOW-EN.R123.csv.gz"
    _write_strength(path)
    norms = read_swow(path)
    expected = {
        ("cat", "dog"): 4 / 6,  # "dog" 3 + "Dog" 1
        ("cat", "mouse"): 1 / 6,
        ("dog", "bone"): 1 / 3,
        ("paris", "france"): 2 / 3,  # (1 + 1) / (N 1 + N 2) over the two written forms
        ("paris", "city"): 1 / 3,
    }
    cues, responses = zip(*expected, strict=True)
    np.testing.assert_allclose(norms.conditional(cues, responses), list(expected.values()))
    assert norms.bidirectional_pairs().to_dict("records") == [{"word1": "cat", "word2": "dog"}]


def test_swow_errors(tmp_path: Path) -> None:
    with pytest.raises(ResourceNotFoundError, match="smallworldofwords"):
        load_association_norms("swow")
    with pytest.raises(WordlensError, match="unknown association norms 'swov'"):
        load_association_norms("swov")
    other = tmp_path / "other.csv"
    other.write_text("word,valence\nhappy,8\n")
    with pytest.raises(LexiconFormatError, match="not a SWOW-EN file"):
        read_swow(other)
    bad = tmp_path / "strength.tsv"
    bad.write_text("cue\tresponse\tR123\tN\tR123.Strength\ncat\tdog\tmany\t6\t0.5\n")
    with pytest.raises(LexiconFormatError, match="data row 1: R123"):
        read_swow(bad)


def test_registered_norms_match_the_published_values(shared_env: Path) -> None:
    eat = load_association_norms("eat")
    # HELLO -> GOOD-BYE 56 (the EAT's own listing) over the 96 responses to HELLO.
    hello = eat.edges[eat.edges["cue"] == "hello"]
    assert eat.conditional(["hello"], ["good-bye"])[0] == pytest.approx(56 / 96)
    assert hello["strength"].sum() == pytest.approx(1.0)
    usf = load_association_norms("usf")
    assert usf.conditional(["a", "a"], ["alphabet", "an"]).tolist() == [0.066, 0.026]
    # Pairs with both directions observed (the asymmetry pairs): 20,091 in EAT, 8,384 in USF
    # (the paper's Table 8 reports 8.3K FA pairs).
    assert (len(eat.bidirectional_pairs()), len(usf.bidirectional_pairs())) == (20_091, 8_384)
