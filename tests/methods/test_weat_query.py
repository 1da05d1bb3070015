"""Issue 30: WEAT on one's own word sets (a query), in Python and with ``wordlens weat --query``.

The query's effect size is checked against the same sets run as a :class:`WeatTest` and against
Caliskan et al.'s d computed here with numpy on GloVe's vectors; bad query files are refused
with exit code 2 before the model loads (the model given is a folder that holds no model, so a
run that got as far as loading it would fail with "is not a model directory").
"""

from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import wordlens
from tests.test_cli_edges import run_wordlens
from tests.test_cli_inputs import NOT_LOADED, refused
from wordlens.errors import QueryError, WordlensError, WordSetError
from wordlens.methods.weat import WeatConfig
from wordlens.methods.weat.layers import run_weat
from wordlens.models.base import WordEmbedder
from wordlens.options import OptionError
from wordlens.resources import QUERY_ID, Query, WeatTest, WordSet
from wordlens.resources import queries as queries_module

TARGETS = {
    "instruments": ["guitar", "violin", "piano", "flute", "drum", "trumpet"],
    "weapons": ["gun", "sword", "rifle", "bomb", "knife", "missile"],
}
ATTRIBUTES = {
    "pleasant": ["love", "peace", "joy", "gentle", "happy"],
    "unpleasant": ["hate", "war", "death", "evil", "ugly"],
}
QUERY = {"title": "Instruments vs. weapons", "targets": TARGETS, "attributes": ATTRIBUTES}
YAML = """\
title: Instruments vs. weapons
targets:
  instruments: [guitar, violin, piano, flute, drum, trumpet]
  weapons: [gun, sword, rifle, bomb, knife, missile]
attributes:
  pleasant: [love, peace, joy, gentle, happy]
  unpleasant: [hate, war, death, evil, ugly]
"""
N_SAMPLES = 2000


def caliskan_d(vectors: list[np.ndarray]) -> float:
    """Caliskan et al.'s effect size, written out: s(w, A, B) = mean cos(w, a) - mean cos(w, b);
    d = (mean over X - mean over Y) / sample std over X ∪ Y."""
    x, y, a, b = (v / np.linalg.norm(v, axis=1, keepdims=True) for v in vectors)

    def s(w: np.ndarray) -> np.ndarray:
        return (w @ a.T).mean(axis=1) - (w @ b.T).mean(axis=1)

    s_x, s_y = s(x), s(y)
    return float((s_x.mean() - s_y.mean()) / np.concatenate([s_x, s_y]).std(ddof=1))


def test_the_query_is_the_same_sets_as_a_weat_test_and_caliskans_d(glove: WordEmbedder) -> None:
    mine = wordlens.weat(glove, query=QUERY, permutations=N_SAMPLES)
    table = mine.tables["weat"]
    assert list(table["test"]) == [QUERY_ID] and list(table["title"]) == [QUERY["title"]]
    assert mine.metadata["query"] == {"test": 0, **QUERY}
    assert mine.metadata["tests"] == [0] and mine.metadata["dropped_words"] == {}
    sets = [*TARGETS.items(), *ATTRIBUTES.items()]
    by_hand = WeatTest(7, "by hand", *(WordSet(name, tuple(words)) for name, words in sets))
    direct = run_weat(glove, [by_hand], WeatConfig(permutations=N_SAMPLES)).tables["weat"]
    columns = ["effect_size", "statistic", "p_one_sided", "p_two_sided", "n_x", "n_b", "exact"]
    pd.testing.assert_frame_equal(table[columns], direct[columns])
    vectors = [glove.embed_words(words).vectors[:, 0, :] for _, words in sets]
    expected = caliskan_d([np.asarray(v, dtype=np.float64) for v in vectors])
    assert table["effect_size"].item() == pytest.approx(expected, abs=1e-5)
    assert table["effect_size"].item() > 1.0  # instruments pleasant, weapons unpleasant


def test_a_query_object_a_dict_and_a_file_give_the_same_run(
    glove: WordEmbedder, tmp_path: Path
) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(YAML)
    as_json = tmp_path / "q.json"
    as_json.write_text(json.dumps(QUERY))
    runs = [
        wordlens.weat(glove, query=form, permutations=N_SAMPLES)
        for form in (QUERY, Query.from_dict(QUERY), path, str(as_json))
    ]
    for other in runs[1:]:
        pd.testing.assert_frame_equal(runs[0].tables["weat"], other.tables["weat"])
        assert other.metadata["query"] == runs[0].metadata["query"]
    assert runs[2].metadata["options"]["query"] == str(path)


def test_an_untitled_query_is_named_after_its_sets() -> None:
    query = Query.from_dict({"targets": TARGETS, "attributes": ATTRIBUTES})
    assert query.name == "instruments vs. weapons, pleasant vs. unpleasant"
    test = query.to_weat_test()
    assert (test.x.name, test.b.words) == ("instruments", tuple(ATTRIBUTES["unpleasant"]))
    assert test.original_finding is None


def test_query_and_tests_together_are_refused(glove: WordEmbedder, tmp_path: Path) -> None:
    with pytest.raises(WordlensError, match="not both"):
        wordlens.weat(glove, query=QUERY, tests=[1])
    path = tmp_path / "q.yaml"
    path.write_text(YAML)
    with pytest.raises(WordlensError, match="--query and --tests: give one of them"):
        wordlens.weat(glove, query=path, tests=[1])


def test_word_sets_given_as_tests_point_to_query(glove: WordEmbedder) -> None:
    with pytest.raises(OptionError, match=r"^tests: .* give your own word sets as query="):
        wordlens.weat(glove, tests=[QUERY])


def test_the_query_class_doctest() -> None:
    (test,) = [t for t in doctest.DocTestFinder().find(queries_module) if t.name.endswith("Query")]
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    lines: list[str] = []
    assert runner.run(test, out=lines.append).failed == 0, "".join(lines)


def test_the_docs_example_runs(shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python example of docs/methods/weat.md, "Your own word sets", as a doctest."""
    monkeypatch.setenv("WORDLENS_SHARED", str(shared))
    page = (Path(__file__).parents[2] / "docs" / "methods" / "weat.md").read_text("utf-8")
    section = page.split("## Your own word sets", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"```pycon\n(.*?)```", section, flags=re.DOTALL)
    test = doctest.DocTestParser().get_doctest(example, {}, "weat.md", "weat.md", 0)
    assert test.examples
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    lines: list[str] = []
    assert runner.run(test, out=lines.append).failed == 0, "".join(lines)
    (yaml_example,) = re.findall(r"```yaml\n(.*?)```", section, flags=re.DOTALL)
    assert Query.from_dict(__import__("yaml").safe_load(yaml_example)).name


BAD = {
    "missing": (None, "{path}: no such query file"),
    "empty": ("", "{path}: the query file is empty"),
    "not yaml": ("targets: [a, b\n", "{path}: not valid YAML"),
    "a list": ("- rose\n- ant\n", "{path}: a query is a mapping with 'targets' and 'attributes'"),
    "no attributes": (
        "targets:\n  flowers: [rose]\n  insects: [ant]\n",
        "{path}: no 'attributes'; a query names two target sets and two attribute sets",
    ),
    "unknown key": (YAML + "notes: x\n", "{path}: unknown key(s) ['notes']"),
    "three sets": (
        YAML.replace("  weapons:", "  tools: [hammer]\n  weapons:"),
        "{path}: 'targets' must name exactly two word sets",
    ),
    "one set": (
        "targets:\n  flowers: [rose]\nattributes:\n  good: [love]\n  bad: [hate]\n",
        "{path}: 'targets' must name exactly two word sets ({{name: [words], name: [words]}}), "
        "not 1 set(s)",
    ),
    "empty set": (
        YAML.replace("[gun, sword, rifle, bomb, knife, missile]", "[]"),
        "{path}: targets: set 'weapons' has no words",
    ),
    "not a list": (
        YAML.replace("[gun, sword, rifle, bomb, knife, missile]", "gun"),
        "{path}: targets: set 'weapons' must be a list of words, not 'gun'",
    ),
    "not text": (
        YAML.replace("[love, peace,", "[love, yes, 3, peace,"),
        "{path}: attributes: set 'pleasant' has word(s) that are not text: True, 3",
    ),
    "repeated word": (
        YAML.replace("[love, peace,", "[love, love, peace,"),
        "{path}: WEAT test 0 (Instruments vs. weapons): A ('pleasant') lists 'love' 2 times",
    ),
    "shared word": (
        YAML.replace("knife, missile]", "knife, missile, drum]"),
        "X ('instruments') and Y ('weapons') share 'drum'",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_query_file_is_refused(tmp_path: Path, case: str) -> None:
    content, expected = BAD[case]
    path = tmp_path / "q.yaml"
    if content is not None:
        path.write_text(content)
    with pytest.raises((QueryError, WordSetError)) as error:
        Query.from_file(path)
    assert expected.format(path=path) in str(error.value)


def test_a_bad_json_query_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text('{"targets": {"a": ["x"], "b": ["y"]}, "attributes": }')
    with pytest.raises(QueryError, match=rf"^{re.escape(str(path))}: not valid JSON"):
        Query.from_file(path)


# --- the command line ---------------------------------------------------------------------------


def test_weat_query_on_the_command_line(tmp_path: Path, glove: WordEmbedder) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(YAML)
    out = tmp_path / "out"
    result = run_wordlens(
        "weat", "-m", "glove-6b-50d", "--query", str(path), "--permutations", str(N_SAMPLES),
        "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Instruments vs. weapons" in result.stdout
    table = pd.read_csv(out / "weat.csv")
    direct = wordlens.weat(glove, query=QUERY, permutations=N_SAMPLES).tables["weat"]
    assert list(table["title"]) == ["Instruments vs. weapons"] and list(table["test"]) == [0]
    assert table["effect_size"].item() == pytest.approx(direct["effect_size"].item(), abs=1e-9)
    metadata = json.loads((out / "run.json").read_text())["metadata"]
    assert metadata["query"]["targets"] == TARGETS
    assert metadata["options"]["query"] == str(path)


@pytest.fixture
def not_a_model(tmp_path: Path) -> Path:
    folder = tmp_path / "not-a-model"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("case", ["missing", "no attributes", "not text", "shared word"])
def test_a_bad_query_file_fails_before_the_model_loads(
    tmp_path: Path, not_a_model: Path, case: str
) -> None:
    content, expected = BAD[case]
    path = tmp_path / "q.yaml"
    if content is not None:
        path.write_text(content)
    out = tmp_path / "out"
    message = refused("weat", "-m", str(not_a_model), "--query", str(path), "--out", str(out))
    assert expected.format(path=path) in message
    assert not out.exists()


def test_query_with_tests_is_refused_on_the_command_line(tmp_path: Path, not_a_model: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(YAML)
    message = refused("weat", "-m", str(not_a_model), "--query", str(path), "--tests", "1")
    assert "--query and --tests: give one of them" in message


def test_a_good_query_gets_as_far_as_the_model(tmp_path: Path, not_a_model: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(YAML)
    result = run_wordlens("weat", "-m", str(not_a_model), "--query", str(path))
    assert result.returncode == 2 and NOT_LOADED in result.stderr, result.stderr


def test_twins_after_the_lookup_are_refused_and_the_ten_tests_have_none(
    glove: WordEmbedder, minilm: WordEmbedder
) -> None:
    """GloVe's lookup folds case, so "Gun" (X) and "gun" (Y) are one row: WEAT refuses them
    as the query refuses a word written twice. Caliskan et al.'s ten tests have no twins on
    GloVe or minilm-l6 (all ten still run)."""
    twins = Query(
        targets={"instruments": ["guitar", "Gun", "piano"], "weapons": ["gun", "sword", "rifle"]},
        attributes=ATTRIBUTES,
    )
    with pytest.raises(WordSetError, match=r"'Gun' \(X\) and 'gun' \(Y\): they differ only in"):
        wordlens.weat(glove, query=twins, permutations=100)
    for model in (glove, minilm):
        run = run_weat(model, config=WeatConfig(permutations=10, layers=(0,)))
        assert set(run.tables["weat"]["test"]) == set(range(1, 11))


@pytest.mark.parametrize(("share", "skipped"), [(0.1, True), (1 / 6, False)])
def test_max_missing_skips_a_query_as_wefe_lost_vocabulary_threshold_does(
    glove: WordEmbedder, share: float, skipped: bool
) -> None:
    """'weapons' loses 1 of its 6 words: above the share the test is skipped with the reason
    (WEFE's WEAT: NaN), at it the effect size is WEFE's (its population std: ddof 0)."""
    from wefe.metrics import WEAT
    from wefe.query import Query as WefeQuery

    from tests.peer_data import wefe_glove

    unknown = "qzxwvutsr"
    targets = {**TARGETS, "weapons": [*TARGETS["weapons"][:-1], unknown]}
    query = {"targets": targets, "attributes": ATTRIBUTES}
    words = [w for sets in (targets, ATTRIBUTES) for ws in sets.values() for w in ws]
    peer = WEAT().run_query(
        WefeQuery(
            list(targets.values()), list(ATTRIBUTES.values()), list(targets), list(ATTRIBUTES)
        ),
        wefe_glove([word for word in words if word != unknown]),
        preprocessors=[{}],
        lost_vocabulary_threshold=share,
        return_effect_size=True,
    )["effect_size"]
    run = wordlens.run("weat", glove, query=query, max_missing=share, ddof=0, permutations=10)
    assert run.metadata["config"]["max_missing"] == share
    assert run.metadata["dropped_words"] == {str(QUERY_ID): [unknown]}
    if skipped:
        assert np.isnan(peer)
        assert run.tables["weat"].empty
        assert run.metadata["skipped"] == {
            str(QUERY_ID): "skipped: 'weapons' lost 1 of 6 words (17%), more than max_missing "
            "0.1 of a set's words"  # a Python run's reasons name the keyword
        }
    else:
        assert run.metadata["skipped"] == {}
        assert run.tables["weat"]["effect_size"].item() == pytest.approx(peer, abs=1e-6)


def test_a_skipped_weat_query_says_why_on_the_command_line(tmp_path: Path) -> None:
    query = tmp_path / "query.json"
    targets = {**TARGETS, "weapons": [*TARGETS["weapons"][:-1], "qzxwvutsr"]}
    query.write_text(json.dumps({"targets": targets, "attributes": ATTRIBUTES}), encoding="utf-8")
    args = ["weat", "-m", "glove-6b-50d", "--query", str(query), "--max-missing", "0.1"]
    result = run_wordlens(*args, "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert (
        f"test {QUERY_ID}: skipped: 'weapons' lost 1 of 6 words (17%), more than --max-missing "
        "0.1 of a set's words" in result.stdout
    )
    report = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "most share of a set&#x27;s words lost: 0.1 (a set losing more is skipped)" in report
