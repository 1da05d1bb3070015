"""Edge-probing converters on the real files: counts against SOURCE.md and Tenney et al. (2019,
Appendix B), hand-checked examples, splits, the tokenizer and malformed input."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wordlens.errors import ResourceNotFoundError, WordlensError
from wordlens.probing.converters import (
    NON_CORE_PROPERTIES,
    PROBING_TASKS,
    SPLITS,
    ProbingTaskError,
    SourceFormatError,
    Split,
    UdSentence,
    dependency_examples,
    load_dpr,
    load_probing_task,
    load_semeval,
    pos_examples,
    probing_task_info,
    read_dpr,
    read_semeval,
    read_ud_sentences,
    spr_examples,
    tokenize,
    word_spans,
)
from wordlens.probing.edges import EdgeExample, label_set, summarize
from wordlens.resources import get_resource
from wordlens.resources.probing_sets import UDS_PROTOROLES
from wordlens.resources.tagger import UPOS, ewt_path

EWT_COUNTS = {"train": (12544, 204577), "dev": (2001, 25147), "test": (2077, 25094)}
# (sentences, targets): the argument edges (default), the paper's SPR2 4.9K / 630 / 582
SPR_COUNTS = {"train": (2191, 4874), "dev": (291, 632), "test": (276, 582)}
SPR_ALL_EDGES = {"train": (2191, 5669), "dev": (291, 751), "test": (276, 670)}
SPR_ARGUMENT_PROPERTIES = {
    "awareness", "change_of_location", "change_of_possession", "change_of_state",
    "change_of_state_continuous", "existed_after", "existed_before", "existed_during",
    "instigation", "partitive", "sentient", "volition", "was_for_benefit", "was_used",
}  # fmt: skip


@pytest.fixture(scope="session")
def ewt(shared: Path) -> dict[str, list[UdSentence]]:
    return {split: read_ud_sentences(ewt_path(split)) for split in SPLITS}


@pytest.fixture(scope="session")
def pos(ewt: dict[str, list[UdSentence]]) -> dict[str, list[EdgeExample]]:
    return {split: pos_examples(sentences) for split, sentences in ewt.items()}


@pytest.fixture(scope="session")
def dep(ewt: dict[str, list[UdSentence]]) -> dict[str, list[EdgeExample]]:
    return {split: dependency_examples(sentences) for split, sentences in ewt.items()}


@pytest.fixture(scope="session")
def semeval(shared: Path) -> dict[str, list[EdgeExample]]:
    return {split: load_semeval(split) for split in SPLITS}


@pytest.fixture(scope="session")
def uds(shared: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    protoroles, ud_ids = get_resource(UDS_PROTOROLES).paths()
    with gzip.open(protoroles, "rt") as handle:
        annotations = json.load(handle)["data"]
    with gzip.open(ud_ids, "rt") as handle:
        return annotations, json.load(handle)


@pytest.fixture(scope="session")
def dpr(shared: Path) -> dict[str, list[EdgeExample]]:
    return {split: load_dpr(split) for split in SPLITS}


def _spr(
    uds: tuple[dict[str, Any], dict[str, Any]],
    ewt: dict[str, list[UdSentence]],
    split: Split,
    **options: Any,
) -> list[EdgeExample]:
    return spr_examples(uds[0], uds[1], ewt[split], split, **options)


def _mentions(example: EdgeExample) -> list[tuple[str, str, tuple[str, ...]]]:
    """(span1 text, span2 text, labels) of each two-span target."""
    return [
        (example.span_text(target.span1), example.span_text(target.span2), target.labels)
        for target in example.targets
        if target.span2 is not None
    ]


def _counts(examples: list[EdgeExample]) -> tuple[int, int]:
    summary = summarize(examples)
    return summary.n_examples, summary.n_targets


# ---------------------------------------------------------------------------------------------
# Tokenizer


def test_tokenizer_splits_clitics_and_punctuation_keeps_inner_hyphens() -> None:
    text = "Mary can't fix T-Mobile's O'Brien-style U.S. plan (3.5 or 1,000?) for students' sake."
    assert tokenize(text) == [
        "Mary", "ca", "n't", "fix", "T-Mobile", "'s", "O'Brien-style", "U.S.", "plan", "(", "3.5",
        "or", "1,000", "?", ")", "for", "students", "'", "sake", ".",
    ]  # fmt: skip
    assert all(
        text[start:end] == word
        for (start, end), word in zip(word_spans(text), tokenize(text), strict=True)
    )


def test_cuts_force_token_boundaries() -> None:
    assert word_spans("Thestaff ran", cuts=[3]) == [(0, 3), (3, 8), (9, 12)]
    assert word_spans("   ") == []


# ---------------------------------------------------------------------------------------------
# UD EWT


@pytest.mark.parametrize("split", SPLITS)
def test_ewt_pos_and_dep_counts(
    split: Split, pos: dict[str, list[EdgeExample]], dep: dict[str, list[EdgeExample]]
) -> None:
    assert _counts(pos[split]) == EWT_COUNTS[split]
    assert _counts(dep[split]) == EWT_COUNTS[split]
    assert set(label_set(pos[split])) == set(UPOS)
    assert all(len(example.tokens) == len(example.targets) for example in pos[split])


def test_dependency_label_sets(
    dep: dict[str, list[EdgeExample]], ewt: dict[str, list[UdSentence]]
) -> None:
    assert [len(label_set(dep[split])) for split in SPLITS] == [51, 49, 49]
    universal = dependency_examples(ewt["dev"], universal_only=True)
    labels = label_set(universal)
    assert len(labels) == 36 and not any(":" in label for label in labels)
    full = summarize(dep["dev"]).label_counts
    stripped = summarize(universal).label_counts
    assert stripped["nmod"] == sum(n for label, n in full.items() if label.split(":")[0] == "nmod")
    assert full["nmod:poss"] > 0


def test_first_ewt_sentence_by_hand(
    pos: dict[str, list[EdgeExample]], dep: dict[str, list[EdgeExample]]
) -> None:
    tags, arcs = pos["train"][0], dep["train"][0]
    assert tags.text.startswith("Al - Zaman : American forces killed Shaikh Abdullah al - Ani ,")
    assert tags.info["sent_id"].endswith("20051126_063000-0001")
    assert [t.labels[0] for t in tags.targets[:8]] == [
        "PROPN", "PUNCT", "PROPN", "PUNCT", "ADJ", "NOUN", "VERB", "PROPN",
    ]  # fmt: skip
    expected = [  # (dependent, head, relation): CoNLL-U lines 1-8, heads 0-based, root -> itself
        ((0, 1), (0, 1), "root"),
        ((1, 2), (2, 3), "punct"),
        ((2, 3), (0, 1), "flat"),
        ((3, 4), (6, 7), "punct"),
        ((4, 5), (5, 6), "amod"),
        ((5, 6), (6, 7), "nsubj"),
        ((6, 7), (0, 1), "parataxis"),
        ((7, 8), (6, 7), "obj"),
    ]
    assert [(t.span1, t.span2, t.labels[0]) for t in arcs.targets[:8]] == expected
    assert sum(t.labels == ("root",) for t in arcs.targets) == 1
    assert all(t.span1 == t.span2 for t in arcs.targets if t.labels == ("root",))


def test_conllu_errors_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.conllu"
    good = "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    path.write_text(good + "2\tthere\tthere\tADV\tRB\t_\t5\tadvmod\t_\t_\n\n")
    with pytest.raises(SourceFormatError, match=r"bad.conllu, line 2: HEAD '5'"):
        read_ud_sentences(path)
    path.write_text(good.replace("INTJ", "NN"))
    with pytest.raises(SourceFormatError, match="line 1: unknown UPOS tag 'NN'"):
        read_ud_sentences(path)
    path.write_text("1\tHi\n")
    with pytest.raises(SourceFormatError, match="line 1: expected 10"):
        read_ud_sentences(path)
    path.write_text("# only a comment\n")
    with pytest.raises(SourceFormatError, match="no CoNLL-U sentences"):
        read_ud_sentences(path)


def test_multiword_tokens_and_empty_nodes_are_skipped_and_spaces_replaced(tmp_path: Path) -> None:
    path = tmp_path / "mwt.conllu"
    rows = [
        "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_",
        "1\tdo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_",
        "2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_",
        "3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_",
        "3.1\tgo\tgo\tVERB\tVB\t_\t_\t_\t_\t_",
        "4\t3 1/2\t3 1/2\tNUM\tCD\t_\t3\tobj\t_\t_",
    ]
    path.write_text("# sent_id = s1\n" + "\n".join(rows) + "\n")
    (sentence,) = read_ud_sentences(path)
    assert sentence.forms == ("do", "n't", "go", "3 1/2") and sentence.heads == (3, 3, 0, 3)
    (example,) = dependency_examples([sentence])
    assert example.tokens == ["do", "n't", "go", "3\u00a01/2"]
    assert example.info["sent_id"] == "s1"


# ---------------------------------------------------------------------------------------------
# SemEval-2010 Task 8


def test_semeval_counts_labels_and_split(semeval: dict[str, list[EdgeExample]]) -> None:
    assert [_counts(semeval[split]) for split in SPLITS] == [
        (6900, 6900),
        (1100, 1100),
        (2717, 2717),
    ]
    assert len(label_set(semeval["train"] + semeval["dev"])) == 19
    assert len(label_set(semeval["test"])) == 19
    assert "Other" in label_set(semeval["test"])
    train_ids = {example.info["id"] for example in semeval["train"]}
    dev_ids = {example.info["id"] for example in semeval["dev"]}
    assert not train_ids & dev_ids and train_ids | dev_ids == set(range(1, 8001))
    assert {example.info["id"] for example in semeval["test"]} == set(range(8001, 10718))


def test_semeval_examples_by_hand(semeval: dict[str, list[EdgeExample]]) -> None:
    by_id = {e.info["id"]: e for split in ("train", "dev") for e in semeval[split]}
    first = by_id[1]
    target = first.targets[0]
    assert first.span_text(target.span1) == "configuration"
    assert target.span2 is not None and first.span_text(target.span2) == "elements"
    assert target.labels == ("Component-Whole(e2,e1)",)
    assert first.tokens[-2:] == ["elements", "."]
    glued = by_id[2740]  # "The<e1>staff</e1> in the <e2>shop</e2>": no space before the tag
    assert glued.tokens[:5] == ["The", "staff", "in", "the", "shop"]
    assert glued.targets[0].spans == ((1, 2), (4, 5))
    test_first = semeval["test"][0]
    assert test_first.text == "The most common audits were about waste and recycling ."
    assert test_first.targets[0].spans == ((3, 4), (6, 7))
    assert test_first.targets[0].labels == ("Message-Topic(e1,e2)",)
    assert test_first.targets[0].info == {"comment": "Assuming an audit = an audit document."}


@pytest.mark.parametrize(
    ("sentence", "label", "message"),
    [
        ('1\t"A <e1>b</e1> c d."', "Other", "expected one <e1>"),
        ('1\t"A <e1>b</e1> <e2>c <e1>d</e1></e2>."', "Other", "repeated or nested"),
        ('1\t"A </e1>b <e2>c</e2>."', "Other", "</e1> without <e1>"),
        ('1\t"A <e1>!</e1> <e2>c</e2>."', "Other", None),
        ('1\t"A <e1> </e1> <e2>c</e2>."', "Other", "entity e1 holds no word"),
        ('1\t"A <e1>b</e1> <e2>c</e2>."', "Cause-Effect(e1,e3)", "not a relation label"),
        ("1 A <e1>b</e1> <e2>c</e2>.", "Other", "expected <id>"),
    ],
)
def test_semeval_malformed_examples(
    tmp_path: Path, sentence: str, label: str, message: str | None
) -> None:
    path = tmp_path / "semeval.txt"
    path.write_bytes(b'7\t"Fine <e1>x</e1> <e2>y</e2>."\r\nOther\r\nComment:\r\n\r\n')
    path.write_bytes(path.read_bytes() + f"{sentence}\r\n{label}\r\nComment:\r\n\r\n".encode())
    if message is None:  # punctuation is a word: this one is valid
        assert read_semeval(path)[1].targets[0].spans == ((1, 2), (2, 3))
        return
    with pytest.raises(SourceFormatError, match=message) as caught:
        read_semeval(path)
    assert "semeval.txt, line 5:" in str(caught.value)


def test_semeval_block_of_wrong_length(tmp_path: Path) -> None:
    path = tmp_path / "semeval.txt"
    path.write_text('1\t"A <e1>b</e1> <e2>c</e2>."\nOther\n\n')
    with pytest.raises(SourceFormatError, match="line 1: expected 3 lines"):
        read_semeval(path)


# ---------------------------------------------------------------------------------------------
# SPR (UDS 1.0 protoroles)


@pytest.mark.parametrize("split", SPLITS)
def test_spr_counts(
    split: Split,
    uds: tuple[dict[str, Any], dict[str, Any]],
    ewt: dict[str, list[UdSentence]],
) -> None:
    examples = _spr(uds, ewt, split)
    assert _counts(examples) == SPR_COUNTS[split]
    left_out = {"train": 795, "dev": 119, "test": 88}[split]
    assert sum(example.info["non_core_edges_left_out"] for example in examples) == left_out
    assert all(example.info["arguments_only"] for example in examples)
    every_edge = _spr(uds, ewt, split, arguments_only=False)
    assert _counts(every_edge) == SPR_ALL_EDGES[split]
    assert SPR_ALL_EDGES[split][1] - SPR_COUNTS[split][1] == left_out
    assert not any(example.info["non_core_edges_left_out"] for example in every_edge)


@pytest.mark.parametrize("split", SPLITS)
def test_spr_default_targets_are_jiants_predicate_argument_pairs(
    split: Split,
    uds: tuple[dict[str, Any], dict[str, Any]],
    ewt: dict[str, list[UdSentence]],
) -> None:
    # jiant convert-spr2.py:50-91: one target per annotated SPR2 (predicate, argument) pair;
    # in UDS 1.0 those are the edges annotated with the argument properties, not the non-core
    # edges annotated with location / manner / purpose / time only
    annotations, _ = uds
    expected = {
        (uds_id, *(int(node.rsplit("-", 1)[1]) for node in key.split("%%")))
        for uds_id, edges in annotations.items()
        if uds_id.startswith(f"ewt-{split}-")
        for key, edge in edges.items()
        if set(edge["protoroles"]) == SPR_ARGUMENT_PROPERTIES
    }
    examples = _spr(uds, ewt, split)
    targets = [(example, target) for example in examples for target in example.targets]
    found = {
        (example.info["uds_id"], target.span1[1], target.span2[1])
        for example, target in targets
        if target.span2 is not None
    }
    assert found == expected and len(targets) == len(expected) == SPR_COUNTS[split][1]
    # no non-core edge is a target (so none is a negative), and no argument edge is a negative
    # for a property it was not annotated with
    assert all(set(t.info["annotated"]) == SPR_ARGUMENT_PROPERTIES for _, t in targets if t.info)
    assert {label for _, target in targets for label in target.labels} <= SPR_ARGUMENT_PROPERTIES


def test_spr_labels_and_threshold(
    uds: tuple[dict[str, Any], dict[str, Any]], ewt: dict[str, list[UdSentence]]
) -> None:
    strict = summarize(_spr(uds, ewt, "train"))
    lenient = summarize(_spr(uds, ewt, "train", threshold=0.0))
    assert set(lenient.label_counts) == set(strict.label_counts) == SPR_ARGUMENT_PROPERTIES
    assert (strict.n_unlabeled, lenient.n_unlabeled) == (475, 105)
    every_edge = summarize(_spr(uds, ewt, "train", arguments_only=False))
    assert set(every_edge.label_counts) == SPR_ARGUMENT_PROPERTIES | NON_CORE_PROPERTIES
    assert every_edge.n_unlabeled == 822
    assert sum(lenient.label_counts.values()) > sum(strict.label_counts.values())
    assert lenient.label_counts["existed_during"] >= strict.label_counts["existed_during"]


def test_spr_example_by_hand(
    uds: tuple[dict[str, Any], dict[str, Any]], ewt: dict[str, list[UdSentence]]
) -> None:
    example = next(e for e in _spr(uds, ewt, "train") if e.info["uds_id"] == "ewt-train-12")
    assert example.text.startswith("The police commander of Ninevah Province announced that")
    target = example.targets[0]
    assert example.span_text(target.span1) == "announced"
    assert target.span2 is not None and example.span_text(target.span2) == "commander"
    assert {"awareness", "sentient", "volition", "instigation"} <= set(target.labels)
    assert "change_of_location" not in target.labels
    assert target.info is not None and len(target.info["annotated"]) == 14


def test_spr_drops_edges_that_do_not_join_with_a_warning(
    uds: tuple[dict[str, Any], dict[str, Any]], ewt: dict[str, list[UdSentence]]
) -> None:
    annotations, ud_ids = uds
    uds_id = "ewt-dev-99"
    edge = {"protoroles": {"awareness": {"value": 1.3, "confidence": 1.0}}}
    broken = {
        uds_id: {
            f"{uds_id}-semantics-pred-3%%{uds_id}-semantics-arg-2": edge,
            f"{uds_id}-semantics-pred-3%%{uds_id}-semantics-arg-99": edge,  # past the sentence
        },
        "ewt-dev-999999": {"x-semantics-pred-1%%x-semantics-arg-2": edge},  # not in ud_ids
    }
    with pytest.warns(UserWarning, match="dropped 2 edge"):
        (example,) = spr_examples(broken, ud_ids, ewt["dev"], "dev")
    assert example.targets[0].labels == ("awareness",)
    time = {"protoroles": {"time": {"value": 1.3, "confidence": 1.0}}}
    only_non_core = {uds_id: {f"{uds_id}-semantics-pred-3%%{uds_id}-semantics-arg-2": time}}
    with pytest.warns(UserWarning, match="left out 1 sentence.*all non-core .ewt-dev-99"):
        assert spr_examples(only_non_core, ud_ids, ewt["dev"], "dev") == []
    (kept,) = spr_examples(only_non_core, ud_ids, ewt["dev"], "dev", arguments_only=False)
    assert kept.targets[0].labels == ("time",) and kept.info["non_core_edges_left_out"] == 0
    bad_node = {uds_id: {f"{uds_id}-semantics-pred-x%%{uds_id}-semantics-arg-2": edge}}
    with pytest.raises(SourceFormatError, match="not a node id"):
        spr_examples(bad_node, ud_ids, ewt["dev"], "dev")
    assert annotations  # the real data was left untouched


# ---------------------------------------------------------------------------------------------
# DPR (Winograd coreference)


def test_dpr_counts_labels_and_twin_split(dpr: dict[str, list[EdgeExample]]) -> None:
    assert [_counts(dpr[split]) for split in SPLITS] == [(1190, 2380), (132, 264), (564, 1128)]
    for split in SPLITS:
        n_sentences = len(dpr[split])
        assert summarize(dpr[split]).label_counts == {"0": n_sentences, "1": n_sentences}
    pairs = {split: {e.info["index"] // 2 for e in dpr[split]} for split in ("train", "dev")}
    assert len(pairs["dev"]) == 66 and not pairs["train"] & pairs["dev"]
    assert pairs["train"] | pairs["dev"] == set(range(661))
    assert load_dpr("dev", seed=0) == dpr["dev"]  # the seed fixes the split
    other_seed = {e.info["index"] // 2 for e in load_dpr("dev", seed=1)}
    assert len(other_seed) == 66 and other_seed != pairs["dev"]


def test_dpr_examples_by_hand(dpr: dict[str, list[EdgeExample]]) -> None:
    everything = {e.text: e for split in ("train", "dev") for e in dpr[split]}
    bee = everything["The bee landed on the flower because it had pollen ."]
    assert _mentions(bee) == [("it", "The bee", ("0",)), ("it", "the flower", ("1",))]
    possessor = everything["Mary cleaned Susan 's room and she was thankful ."]
    assert [candidate for _, candidate, _ in _mentions(possessor)] == ["Mary", "Susan"]
    assert possessor.targets[0].span1 == (6, 7)
    repeated = everything[
        "The assembly line workers were told they had been fired by the company , because they "
        "had moved the jobs overseas ."
    ]
    assert repeated.targets[0].span1 == (15, 16)  # the pronoun after both candidates


def test_dpr_malformed_and_missing_mentions(tmp_path: Path) -> None:
    path = tmp_path / "dpr.txt"
    good = (
        "The bee landed on the flower because it had pollen.\nit\nThe bee,the flower\nthe flower\n"
    )
    path.write_text(good + "\nA cat saw it.\nit\nThe dog,a cat\nThe dog\n")
    with pytest.warns(UserWarning, match="1 mention"):
        examples = read_dpr(path)
    assert [len(example.targets) for example in examples] == [2, 1]
    path.write_text(good + "\nA cat saw a dog.\nit\nthe dog,a cat\nthe dog\n")
    with pytest.warns(UserWarning, match="pronoun 'it' after the candidates"):
        assert len(read_dpr(path)) == 1
    path.write_text(good + "\nA cat saw it.\nit\na cat\na cat\n")
    with pytest.raises(SourceFormatError, match="line 6: expected two comma-separated"):
        read_dpr(path)
    path.write_text(good + "\nA cat saw it.\nit\na cat,it\nthe dog\n")
    with pytest.raises(SourceFormatError, match="answer 'the dog' is not one of"):
        read_dpr(path)
    path.write_text(good + "\nA cat saw it.\nit\n")
    with pytest.raises(SourceFormatError, match="line 6: expected 4 lines"):
        read_dpr(path)


# ---------------------------------------------------------------------------------------------
# Tasks and the registry


def test_task_infos_follow_appendix_c() -> None:
    assert {name: info.validate_every for name, info in PROBING_TASKS.items()} == {
        "pos": 1000, "dep": 1000, "rel": 1000, "spr": 100, "winograd": 100,
    }  # fmt: skip
    # jiant's max_vals: edges-tmpl-large for the UD EWT tasks, edges-tmpl-small for the rest
    assert {name: info.max_validations for name, info in PROBING_TASKS.items()} == {
        "pos": 250, "dep": 250, "rel": 100, "spr": 100, "winograd": 100,
    }  # fmt: skip
    assert [name for name, info in PROBING_TASKS.items() if info.multi_label] == ["spr"]
    assert [name for name, info in PROBING_TASKS.items() if not info.two_spans] == ["pos"]
    with pytest.raises(ProbingTaskError, match="unknown probing task 'ner'; choose one of pos"):
        probing_task_info("ner")


def test_load_probing_task_dispatches_and_checks_names(
    dpr: dict[str, list[EdgeExample]], shared: Path, tmp_path: Path
) -> None:
    assert load_probing_task("winograd", "test") == dpr["test"]
    assert load_probing_task("winograd", "test", path=shared / "data") == dpr["test"]
    with pytest.raises(ProbingTaskError, match="unknown split 'validation'; choose one of train"):
        load_probing_task("winograd", "validation")
    with pytest.raises(ProbingTaskError, match="rel, spr, winograd"):
        load_probing_task("coref", "train")
    with pytest.raises(ResourceNotFoundError, match="explicit location"):
        load_probing_task("rel", "test", path=tmp_path)
    assert issubclass(ProbingTaskError, WordlensError)


def test_resource_loaders_give_the_same_examples(
    semeval: dict[str, list[EdgeExample]], dpr: dict[str, list[EdgeExample]]
) -> None:
    assert get_resource("dpr").load(split="dev") == dpr["dev"]
    assert get_resource("semeval2010-task8").load(split="test") == semeval["test"]
    assert _counts(get_resource("uds-protoroles").load(split="test")) == SPR_COUNTS["test"]
    assert get_resource("dpr").load() == dpr["train"]  # the default split


def test_the_resources_convert_once_the_converters_are_imported(shared: Path) -> None:
    # a fresh process: the data registry imports nothing from probing, so the edge-probing
    # files resolve (as `wordlens data fetch dpr` does) but convert only after the converters
    # registered themselves; the error says which module to import
    code = (
        "import sys\n"
        "from wordlens.errors import WordlensError\n"
        "from wordlens.resources import fetch, get_resource\n"
        "assert [path.name for path in fetch('dpr')] == ['dpr_train.c.txt', 'dpr_test.c.txt']\n"
        "assert not [name for name in sys.modules if name.startswith('wordlens.probing')]\n"
        "try:\n"
        "    get_resource('dpr').load(split='dev')\n"
        "    raise AssertionError('converted without the converters')\n"
        "except WordlensError as error:\n"
        "    assert 'import wordlens.probing.converters first' in str(error), error\n"
        "import wordlens.probing.converters\n"
        "print(len(get_resource('dpr').load(split='dev')))\n"
    )
    env = {**os.environ, "WORDLENS_DATA_PATH": str(shared / "data"), "WORDLENS_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["132"]  # DPR dev sentences (module notes of the converters)


def test_spr_from_an_explicit_data_root(shared: Path) -> None:
    examples = load_probing_task("spr", "test", path=shared / "data")
    assert _counts(examples) == SPR_COUNTS["test"]
