"""WordNet 3.0 with sense keys (Debian wordnet-base + wordnet-sense-index through NLTK) and the
sense assignments shipped with wordlens, checked against it."""

from __future__ import annotations

from pathlib import Path

import pytest

from wordlens.errors import WordlensError
from wordlens.resources import load_weat_tests
from wordlens.resources.sense_assignments import (
    check_assignments,
    occupation_senses,
    weat_sense_assignments,
)
from wordlens.resources.wordnet import (
    WORDNET_ENV,
    UnknownSenseError,
    WordNet,
    WordNetNotFoundError,
    load_wordnet,
)


@pytest.fixture(scope="module")
def wordnet() -> WordNet:
    return load_wordnet()


def test_it_is_wordnet_3_0(wordnet: WordNet) -> None:
    assert wordnet.version == "3.0"


def test_a_sense_key_gives_lemma_gloss_and_examples(wordnet: WordNet) -> None:
    race = wordnet.sense("black%3:00:02::")
    assert race.lemma == "black"
    assert race.pos == "a"
    assert race.definition.startswith("of or belonging to a racial group having dark skin")
    assert any("a black people" in example for example in race.examples)
    colour = wordnet.sense("black%3:00:01::")
    assert "achromatic color of maximum darkness" in colour.definition
    assert "black leather jackets" in colour.examples
    verb = wordnet.sense("nurse%2:29:00::")
    assert verb.pos == "v"
    assert "He nursed his cold with Chinese herbs" in verb.examples


def test_satellite_and_capitalized_keys(wordnet: WordNet) -> None:
    assert wordnet.sense("gentle%5:00:01:kind:00").pos == "s"
    assert wordnet.sense("einstein%1:18:00::").lemma == "Einstein"
    assert wordnet.sense("short-term%5:00:00:short:02").lemma == "short-term"
    assert wordnet.sense("Black%3:00:02::").key == "black%3:00:02::"  # keys are case-blind


def test_senses_of_a_word_cover_every_part_of_speech_in_wordnet_order(wordnet: WordNet) -> None:
    keys = [sense.key for sense in wordnet.senses("nurse")]
    assert keys == [
        "nurse%1:18:00::",
        "nurse%1:18:01::",
        "nurse%2:29:00::",
        "nurse%2:37:00::",
        "nurse%2:41:00::",
        "nurse%2:41:03::",
        "nurse%2:34:00::",
    ]
    assert len(wordnet.senses("black")) == 22
    # the synset of the star lists "sun" and "Sun"; only sun%1:17:00:: is in the sense index
    assert [s.key for s in wordnet.senses("sun")] == [
        "sun%1:17:00::",
        "sun%1:19:00::",
        "sun%1:18:00::",
        "sun%1:17:01::",
        "sun%1:28:00::",
        "sun%2:29:00::",
        "sun%2:39:00::",
    ]
    assert [s.key for s in wordnet.senses("Coca Cola")] == [
        s.key for s in wordnet.senses("coca_cola")
    ]


def test_base_forms_follow_wordnet_morphology(wordnet: WordNet) -> None:
    assert wordnet.base_forms("numbers") == ("numbers", "number")
    assert wordnet.base_forms("equations") == ("equation",)
    assert wordnet.base_forms("depressed") == ("depressed", "depress")  # the adjective first
    assert wordnet.base_forms("Einstein") == ("einstein",)
    assert wordnet.base_forms("xqzvk") == ()
    assert wordnet.base_forms("  ") == ()
    assert wordnet.lemma_of("wizards") == "wizard"
    assert wordnet.lemma_of("she") is None
    with pytest.raises(UnknownSenseError, match="'she' has no sense"):
        wordnet.senses("she")


def test_unknown_and_malformed_keys_are_clear_errors(wordnet: WordNet) -> None:
    with pytest.raises(UnknownSenseError, match=r"no sense 'black%3:00:09::'.*black%3:00:01::"):
        wordnet.sense("black%3:00:09::")
    with pytest.raises(UnknownSenseError, match="not a WordNet sense key"):
        wordnet.sense("black")
    with pytest.raises(UnknownSenseError, match="'xqzvk' is not a WordNet lemma"):
        wordnet.sense("xqzvk%1:18:00::")
    assert wordnet.has_sense("violet%1:20:00::")
    assert not wordnet.has_sense("violet%1:20:07::")


def test_a_missing_database_names_the_debian_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "index.sense").write_text("")
    with pytest.raises(WordNetNotFoundError) as raised:
        load_wordnet(tmp_path)
    message = str(raised.value)
    assert "wordnet-base" in message
    assert "wordnet-sense-index" in message
    assert "data.noun" in message
    assert "index.sense," not in message  # present files are not reported missing
    monkeypatch.setenv(WORDNET_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(WordNetNotFoundError, match="nowhere"):
        load_wordnet()


def test_weat_sense_assignments_are_valid_and_cover_the_five_tests(wordnet: WordNet) -> None:
    assignments = weat_sense_assignments(wordnet)  # validates every key against WordNet
    assert assignments.tests == (1, 2, 7, 8, 9)
    words = {
        w for t in load_weat_tests(assignments.tests) for s in (t.x, t.y, t.a, t.b) for w in s.words
    }
    assert words == set(assignments.senses) | set(assignments.unassigned)
    assert not set(assignments.senses) & set(assignments.unassigned)
    assert set(assignments.unassigned) == {"he", "him", "his", "she", "her", "hers"}
    assert assignments.key_of("violet") == "violet%1:20:00::"  # the paper's example
    assert assignments.key_of("numbers") == "number%1:23:00::"
    with pytest.raises(UnknownSenseError, match="pronoun"):
        assignments.key_of("she")
    with pytest.raises(UnknownSenseError, match="not in the sense assignments"):
        assignments.key_of("Adam")


def test_check_assignments_rejects_missing_keys_and_synonyms(wordnet: WordNet) -> None:
    bad = {"rose": "rose%1:20:09::", "roach": "cockroach%1:05:00::", "fly": "fly%1:05:00::"}
    with pytest.raises(WordlensError) as raised:
        check_assignments(bad.items(), wordnet, source="test.json")
    message = str(raised.value)
    assert message.startswith("test.json: 2 sense assignment(s)")
    assert "'rose'" in message and "'roach'" in message and "'fly'" not in message


def test_occupation_senses_are_sssb_noun_and_verb_keys(wordnet: WordNet) -> None:
    occupations = {o.occupation: o for o in occupation_senses(wordnet)}
    assert list(occupations) == ["engineer", "nurse", "judge", "mentor", "guide", "carpenter"]
    assert occupations["nurse"].noun == "nurse%1:18:00::"
    assert occupations["nurse"].verb == "nurse%2:29:00::"
    assert all(wordnet.sense(o.verb).pos == "v" for o in occupations.values())
    assert all(wordnet.sense(o.noun).pos == "n" for o in occupations.values())
