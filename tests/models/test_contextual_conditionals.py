"""Eq. 6 of Zhang et al. (2021) from real language models over the UD English Web Treebank: the
shared-pass work list against the per-pair procedure, shards against one run, resuming an
interrupted shard, the masked input built by hand, windows, the causal estimator, bad input.

The masked LM runs in float64 here, so that the shared and per-pair estimates, whose passes land in
different batches, can be compared to 1e-6 in log space without float32 padding noise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch

from tests.conftest import shared_dir
from tests.models.pass_counts import counted_passes
from wordlens.contexts.corpus import split_sentences
from wordlens.contexts.paragraphs import ParagraphIndex, build_paragraph_index
from wordlens.errors import EmptyInputError, TargetError, WordlensError
from wordlens.models import contextual_conditionals as conditionals
from wordlens.models.contextual_conditionals import (
    PassRows,
    WorkList,
    build_worklist,
    estimate_conditionals,
    load_worklist,
    merge_shards,
    paragraph_texts,
    pass_rows,
    per_pair_conditionals,
    run_shard,
    shard_bounds,
    single_token_words,
)
from wordlens.models.scoring import LMScorer, ReadBatch, load_scorer
from wordlens.resources import load_corpus
from wordlens.resources.association_norms import load_association_norms
from wordlens.resources.corpora import Corpus, Document

MLM_DIR = shared_dir() / "models" / "minilm-l6-mlm"
# EAT pairs (the first both ways; "food" is twice in some contexts), a word absent from the
# corpus, and two words that never co-occur.
PAIRS = [
    ("food", "eat"),
    ("eat", "food"),
    ("war", "peace"),
    ("money", "pay"),
    ("dog", "cat"),
    ("food", "xylophone"),
    ("rain", "cat"),
]
MAX_CONTEXTS = 3


@pytest.fixture(scope="module")
def index(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> ParagraphIndex:
    corpus = load_corpus("corpus-ud-ewt")
    return build_paragraph_index([corpus], tmp_path_factory.mktemp("index") / "index.sqlite")


@pytest.fixture(scope="module")
def mlm() -> LMScorer:
    if not MLM_DIR.is_dir():
        pytest.skip(f"masked-LM fixture not found at {MLM_DIR}")
    scorer = load_scorer(str(MLM_DIR))
    scorer.model.double()
    return scorer


@pytest.fixture(scope="module")
def causal() -> LMScorer:
    return load_scorer("smollm2-135m")


@pytest.fixture(scope="module")
def work(index: ParagraphIndex, tmp_path_factory: pytest.TempPathFactory) -> WorkList:
    directory = tmp_path_factory.mktemp("work")
    return build_worklist(PAIRS, index, directory, max_contexts=MAX_CONTEXTS)


@pytest.fixture(scope="module")
def one_run(work: WorkList, mlm: LMScorer, tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("one")
    run = run_shard(work, 0, 1, mlm, out)
    return run, merge_shards(work, out, 1)


def test_worklist_lists_each_pass_once(work: WorkList, index: ParagraphIndex) -> None:
    assert load_worklist(work.directory).identity == work.identity
    passes = work.passes
    assert not passes.duplicated(["paragraph", "start", "end"]).any()
    texts = dict(zip(work.paragraphs["paragraph"], work.paragraphs["text"], strict=True))
    for row in passes.itertuples():
        assert texts[row.paragraph][row.start : row.end].lower() == row.word
    food_eat = work.contexts[work.contexts["pair"] == 0]
    hits = index.hits("food", "eat", limit=MAX_CONTEXTS)
    assert food_eat["paragraph"].tolist() == [hit.paragraph for hit in hits]
    assert food_eat["cue_count"].tolist() == [2, 1, 2]
    for hit, distance in zip(hits, food_eat["distance"], strict=True):
        gaps = [abs(i - j) for i in hit.positions["food"] for j in hit.positions["eat"]]
        assert distance == min(gaps)
    pairs = work.pairs.set_index(["cue", "response"])
    assert pairs.loc[("food", "eat"), "cue_occurrences"] == index.count("food", occurrences=True)
    assert pairs.loc[("food", "eat"), "cue_occurrences"] > index.count("food")
    assert pairs.loc[("food", "xylophone"), "response_paragraphs"] == 0
    assert not work.contexts["pair"].isin([5, 6]).any()  # xylophone; rain and cat never meet


def test_shared_passes_equal_per_pair(
    work: WorkList, one_run: Any, mlm: LMScorer, index: ParagraphIndex
) -> None:
    run, scores = one_run
    shared = estimate_conditionals(work, scores)
    reference = per_pair_conditionals(PAIRS, index, mlm, max_contexts=MAX_CONTEXTS)
    for column in ("p_response_given_cue", "p_cue_given_response"):
        ours, theirs = shared[column].to_numpy(), reference.table[column].to_numpy()
        assert np.array_equal(np.isnan(ours), np.isnan(theirs))
        positive = ours > 0
        assert np.array_equal(positive, theirs > 0)
        assert np.abs(np.log(ours[positive]) - np.log(theirs[positive])).max() < 1e-6
    assert positive.sum() == 5
    assert np.isnan(shared.loc[5, "p_cue_given_response"])  # |C(xylophone)| = 0
    assert shared.loc[5, "p_response_given_cue"] == 0.0
    assert shared.loc[6, ["p_response_given_cue", "p_cue_given_response"]].tolist() == [0.0, 0.0]
    # (food, eat) and (eat, food) share every pass: the reference runs them twice
    assert run.rows_computed == len(work.passes) < reference.rows
    assert shared.loc[0, "p_response_given_cue"] != shared.loc[0, "p_cue_given_response"]
    assert shared.loc[0, "p_response_given_cue"] == shared.loc[1, "p_cue_given_response"]


def paragraph_length(tokenizer: Any, text: str, ends: Any) -> int:
    """Tokens of ``[CLS] s_1 [SEP] ... s_n [SEP]``, each sentence tokenized on its own."""
    bounds = zip([0, *ends[:-1]], ends, strict=True)
    return 1 + sum(
        len(tokenizer(text[a:b], add_special_tokens=False)["input_ids"]) + 1 for a, b in bounds
    )


def test_masked_passes_count_their_padding(
    work: WorkList, one_run: Any, mlm: LMScorer, tmp_path: Path
) -> None:
    # a smaller budget regroups the passes into more batches: the same scores, and the stage's
    # positions and padding are those of the ids the model received; the real tokens among them,
    # counted by the tokenizer, are each pass's paragraph once per subtoken of its word
    _, scores = one_run
    with counted_passes(mlm, token_budget=128) as count:
        run = run_shard(work, 0, 1, mlm, tmp_path)
    regrouped = merge_shards(work, tmp_path, 1).table
    np.testing.assert_allclose(regrouped["log_prob"], scores.table["log_prob"], rtol=0, atol=1e-9)
    paragraphs = work.paragraphs
    lengths = {
        paragraph: paragraph_length(mlm.tokenizer, text, ends)
        for paragraph, text, ends in zip(
            paragraphs["paragraph"], paragraphs["text"], paragraphs["sentence_ends"], strict=True
        )
    }
    real = sum(
        lengths[paragraph] * n
        for paragraph, n in zip(work.passes["paragraph"], regrouped["n_subtokens"], strict=True)
    )
    assert count.work["forward_passes"] == run.batches_computed > 1
    assert count.work["sequences"] == run.rows_computed == regrouped["n_subtokens"].sum()
    assert count.work["token_positions"] == count.positions
    assert count.work["padding_positions"] == count.padding > 0
    assert count.positions - count.padding == real


def test_eq6_by_hand(work: WorkList, one_run: Any, index: ParagraphIndex) -> None:
    _, scores = one_run
    probability = dict(zip(scores.table["pass"], np.exp(scores.table["log_prob"]), strict=True))
    passes = work.passes.assign(p=work.passes["pass"].map(probability))
    found = []
    for cue_count in ("occurrences", "paragraphs"):
        estimates = estimate_conditionals(work, scores, cue_count=cue_count)
        by_occurrence = cue_count == "occurrences"
        total = 0.0
        for hit in index.hits("food", "eat", limit=MAX_CONTEXTS):
            in_hit = passes[(passes["paragraph"] == hit.paragraph) & (passes["word"] == "eat")]
            weight = len(hit.positions["food"]) if by_occurrence else 1
            total += weight * in_hit["p"].mean()
        expected = total / index.count("food", occurrences=by_occurrence)
        assert estimates.loc[0, "p_response_given_cue"] == pytest.approx(expected, rel=1e-12)
        assert estimates.loc[0, "cue_contexts"] == index.count("food", occurrences=by_occurrence)
        assert estimates.loc[0, "pair_contexts"] == MAX_CONTEXTS
        found.append(estimates.loc[0, "p_response_given_cue"])
    assert found[0] != pytest.approx(found[1], rel=1e-3)
    with pytest.raises(WordlensError, match="cue_count"):
        estimate_conditionals(work, scores, cue_count="documents")  # type: ignore[arg-type]


HAND = (
    "The cat sat on the mat. A dog barked at the cat! Then the cat slept.",
    "No cat here. Only a dog, and a dog.",
    "A dog alone.",
)


@torch.inference_mode()
def by_hand(scorer: LMScorer, text: str, start: int) -> float:
    """log P(word at ``start`` | [CLS] s_1 [SEP] s_2 [SEP] ... with that word masked)."""
    tokenizer = scorer.tokenizer
    ids, masked_at, target, cursor = [tokenizer.cls_token_id], -1, -1, 0
    for sentence in split_sentences(text):
        offset = text.index(sentence, cursor)
        cursor = offset + len(sentence)
        encoded = tokenizer(sentence, add_special_tokens=False, return_offsets_mapping=True)
        for token, (token_start, _) in zip(
            encoded["input_ids"], encoded["offset_mapping"], strict=True
        ):
            if offset + token_start == start:
                masked_at, target = len(ids), token
            ids.append(tokenizer.mask_token_id if masked_at == len(ids) else token)
        ids.append(tokenizer.sep_token_id)
    logits = scorer.model(input_ids=torch.tensor([ids])).logits[0, masked_at]
    return float(torch.log_softmax(logits.float(), dim=-1)[target])


def test_masked_passes_and_eq6_by_hand(mlm: LMScorer, tmp_path: Path) -> None:
    """Each occurrence masked alone in "[CLS] s [SEP] s [SEP] ...", averaged per paragraph, each
    paragraph weighted by the cue's occurrences there, divided by all of the cue's occurrences."""
    index = build_paragraph_index(
        [Corpus("hand", (Document("hand", HAND),), segmented=False)], tmp_path / "hand.sqlite"
    )
    estimates = conditionals.contextual_conditionals([("dog", "cat")], index, mlm, tmp_path / "w")
    work = load_worklist(tmp_path / "w")
    scores = merge_shards(work, tmp_path / "w" / "results", 1).table.set_index("pass")
    found: dict[tuple[int, str], list[float]] = {}
    passes = work.passes
    for number, paragraph, start, word in zip(
        passes["pass"], passes["paragraph"], passes["start"], passes["word"], strict=True
    ):
        expected = by_hand(mlm, HAND[paragraph], start)
        assert scores.loc[number, "log_prob"] == pytest.approx(expected, abs=1e-6)
        found.setdefault((paragraph, word), []).append(float(np.exp(expected)))
    assert {key: len(values) for key, values in found.items()} == {
        (0, "cat"): 3,
        (0, "dog"): 1,
        (1, "cat"): 1,
        (1, "dog"): 2,
    }
    cat = {paragraph: np.mean(found[(paragraph, "cat")]) for paragraph in (0, 1)}
    dog = {paragraph: np.mean(found[(paragraph, "dog")]) for paragraph in (0, 1)}
    # dog occurs 1 + 2 + 1 times in the corpus, cat 3 + 1 times
    expected_cat = (1 * cat[0] + 2 * cat[1]) / 4
    expected_dog = (3 * dog[0] + 1 * dog[1]) / 4
    assert estimates.loc[0, "p_response_given_cue"] == pytest.approx(expected_cat, rel=1e-9)
    assert estimates.loc[0, "p_cue_given_response"] == pytest.approx(expected_dog, rel=1e-9)


def test_shards_run_separately_merge_to_one_run(
    work: WorkList, one_run: Any, mlm: LMScorer, tmp_path: Path
) -> None:
    _, single = one_run
    runs = [run_shard(work.directory, shard, 3, mlm, tmp_path) for shard in (2, 0, 1)]
    assert sorted(run.n_passes for run in runs) == sorted(
        stop - start for start, stop in (shard_bounds(len(work.passes), s, 3) for s in range(3))
    )
    assert sum(run.passes_computed for run in runs) == len(work.passes)
    merged = merge_shards(work, tmp_path, 3)
    assert merged.fingerprint == mlm.info.fingerprint
    assert merged.table["pass"].tolist() == single.table["pass"].tolist()
    np.testing.assert_allclose(merged.table["log_prob"], single.table["log_prob"], rtol=1e-12)
    again = run_shard(work, 1, 3, mlm, tmp_path)  # finished: nothing recomputed
    assert (again.passes_computed, again.batches_computed) == (0, 0)
    with pytest.raises(WordlensError, match="not finished"):
        merge_shards(work, tmp_path, 4)


def test_interrupted_shard_resumes_without_recomputing(
    work: WorkList, one_run: Any, mlm: LMScorer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, single = one_run
    real = LMScorer.batch_log_probs
    rows_run: list[int] = []

    def counting(self: LMScorer, batch: ReadBatch) -> Any:
        if fail_after is not None and len(rows_run) == fail_after:
            raise KeyboardInterrupt
        rows_run.append(len(batch.lengths))
        return real(self, batch)

    monkeypatch.setattr(LMScorer, "batch_log_probs", counting)
    monkeypatch.setattr(mlm, "token_budget", 75)  # several batches (PLL's budget: 150 tokens)
    monkeypatch.setattr(conditionals, "CHUNK_SECONDS", 3600.0)  # written when interrupted
    fail_after: int | None = 2
    with pytest.raises(KeyboardInterrupt):
        run_shard(work, 0, 1, mlm, tmp_path)
    assert not (tmp_path / "shard-00000-of-00001.parquet").exists()
    assert len(list(tmp_path.glob("*.partial/chunk-*.parquet"))) == 1  # both batches, one file
    first = list(rows_run)
    fail_after = None
    monkeypatch.setattr(mlm, "token_budget", 10_000)  # the stored plan wins
    monkeypatch.setattr(conditionals, "CHUNK_SECONDS", 0.0)  # a chunk per batch
    resumed = run_shard(work, 0, 1, mlm, tmp_path)
    assert resumed.batches_reused == 2
    assert resumed.batches_computed >= 2
    assert resumed.rows_computed == sum(rows_run[2:]) == len(work.passes) - sum(first)
    assert sum(rows_run) == len(work.passes)  # every pass computed exactly once in all
    merged = merge_shards(work, tmp_path, 1)
    np.testing.assert_allclose(merged.table["log_prob"], single.table["log_prob"], rtol=1e-12)
    assert not list(tmp_path.glob("*.partial"))


def rows_of(scorer: LMScorer, rows: PassRows) -> list[tuple[list[int], list[int], list[int]]]:
    """Each row of ``rows`` as the model reads it: its ids (masks in place), reads, targets."""
    found = []
    for row in range(len(rows)):
        batch = rows.batch(np.array([row]), scorer.pad_token_id, scorer.mask_token_id)
        found.append(
            (batch.input_ids[0].tolist(), batch.read_columns.tolist(), batch.targets.tolist())
        )
    return found


def test_long_paragraphs_are_windowed(
    work: WorkList, mlm: LMScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    paragraphs = paragraph_texts(work.paragraphs)
    full = rows_of(mlm, pass_rows(mlm, work.passes, paragraphs))
    monkeypatch.setattr(mlm, "max_length", 24)
    windowed = rows_of(mlm, pass_rows(mlm, work.passes, paragraphs))
    tokenizer = mlm.tokenizer
    assert max(len(ids) for ids, _, _ in full) > 24
    for (long, long_reads, long_targets), (short, reads, targets) in zip(
        full, windowed, strict=True
    ):
        assert len(short) <= 24
        assert short[0] == tokenizer.cls_token_id and short[-1] == tokenizer.sep_token_id
        assert targets == long_targets
        assert all(short[p] == tokenizer.mask_token_id for p in reads)
        (read,) = long_reads
        shift = read - reads[0]
        window = long[1 + shift : len(short) - 1 + shift]
        assert short[1 : len(window) + 1] == window


def left_contexts(scorer: LMScorer, rows: PassRows) -> dict[int, tuple[tuple[int, ...], int]]:
    """Per pass, the input ids up to its first read and the token expected there."""
    found = {}
    for row, (ids, reads, targets) in enumerate(rows_of(scorer, rows)):
        passes = rows.read_passes[rows.read_starts[row] : rows.read_starts[row + 1]]
        for number, read, target in zip(passes.tolist(), reads, targets, strict=True):
            found.setdefault(number, (tuple(ids[: read + 1]), target))
    return found


def test_long_left_contexts_keep_their_end(
    work: WorkList, causal: LMScorer, monkeypatch: pytest.MonkeyPatch
) -> None:
    paragraphs = paragraph_texts(work.paragraphs)
    full = pass_rows(causal, work.passes, paragraphs)
    monkeypatch.setattr(causal, "max_length", 12)
    windowed = pass_rows(causal, work.passes, paragraphs)
    assert len(full) < len(windowed)
    assert all(
        len(ids) <= 12 and ids[0] == causal.bos_token_id for ids, _, _ in rows_of(causal, windowed)
    )
    long, short = left_contexts(causal, full), left_contexts(causal, windowed)
    assert sorted(long) == sorted(short) == list(range(len(work.passes)))
    cut = 0
    for number, (context, target) in short.items():
        assert target == long[number][1]
        assert context[1:] == long[number][0][len(long[number][0]) - len(context) + 1 :]
        cut += len(context) < len(long[number][0])
    assert cut > 0


def test_causal_estimator(index: ParagraphIndex, causal: LMScorer, tmp_path: Path) -> None:
    pairs = PAIRS[:2]
    shared = conditionals.contextual_conditionals(pairs, index, causal, tmp_path, max_contexts=2)
    reference = per_pair_conditionals(pairs, index, causal, max_contexts=2)
    for column in ("p_response_given_cue", "p_cue_given_response"):
        ours, theirs = shared[column].to_numpy(), reference.table[column].to_numpy()
        assert np.all(ours > 0)
        assert np.abs(np.log(ours) - np.log(theirs)).max() < 1e-4  # float32, other row lengths
    work = load_worklist(tmp_path)
    scores = merge_shards(work, tmp_path / "results", 1)
    last = work.passes.iloc[-1]  # the last pass of a paragraph: the longest left context
    text = work.paragraphs.set_index("paragraph").loc[last["paragraph"], "text"]
    encoded = causal.tokenizer(text, return_offsets_mapping=True)
    ids = [causal.bos_token_id, *encoded["input_ids"]]
    covering = [
        1 + i
        for i, (start, end) in enumerate(encoded["offset_mapping"])
        if start < last["end"] and end > last["start"]
    ]
    with torch.inference_mode():
        logits = causal.model(input_ids=torch.tensor([ids])).logits[0].float()
    log_probs = torch.log_softmax(logits, dim=-1)
    expected = sum(float(log_probs[p - 1, ids[p]]) for p in covering)
    got = scores.table.set_index("pass").loc[last["pass"], "log_prob"]
    assert got == pytest.approx(expected, abs=1e-3)
    rows = pass_rows(causal, work.passes, paragraph_texts(work.paragraphs))
    assert len(rows) == work.passes["paragraph"].nunique() < len(work.passes)


def test_single_token_words(mlm: LMScorer, causal: LMScorer) -> None:
    words = ["cat", "peace", "zookeeper", "ice cream", "unbelievably"]
    assert single_token_words(mlm, words) == [True, True, False, False, False]
    assert single_token_words(causal, ["cat", "peace", "zookeeper"]) == [True, True, False]


def test_bad_input(
    work: WorkList, index: ParagraphIndex, mlm: LMScorer, causal: LMScorer, tmp_path: Path
) -> None:
    with pytest.raises(EmptyInputError):
        build_worklist([], index, tmp_path)
    with pytest.raises(TargetError, match="same word"):
        build_worklist([("War", "war")], index, tmp_path)
    with pytest.raises(TargetError, match="single word"):
        build_worklist([("ice cream", "cold")], index, tmp_path)
    with pytest.raises(TargetError, match="not a \\(cue, response\\) pair"):
        build_worklist([("war",)], index, tmp_path)  # type: ignore[list-item]
    with pytest.raises(WordlensError, match="max_contexts"):
        build_worklist(PAIRS, index, tmp_path, max_contexts=0)
    with pytest.raises(WordlensError, match="no complete work list"):
        load_worklist(tmp_path / "nothing")
    with pytest.raises(WordlensError, match="shard must be"):
        run_shard(work, 3, 3, mlm, tmp_path)
    run_shard(work, 0, 4, mlm, tmp_path)
    with pytest.raises(WordlensError, match="scored by model"):
        run_shard(work, 0, 4, causal, tmp_path)
    other = build_worklist(PAIRS[:1], index, tmp_path / "other")
    with pytest.raises(WordlensError, match="another work list"):
        run_shard(other, 0, 4, mlm, tmp_path)
    pd.testing.assert_frame_equal(load_worklist(work.directory).passes, work.passes)


def test_pairs_that_never_meet(index: ParagraphIndex, mlm: LMScorer, tmp_path: Path) -> None:
    """No context at all: an empty work list, empty shards (more shards than passes), P = 0."""
    work = build_worklist([("rain", "cat"), ("food", "xylophone")], index, tmp_path / "w")
    assert len(work.passes) == len(work.contexts) == 0
    runs = [run_shard(work, shard, 2, mlm, tmp_path / "r") for shard in range(2)]
    assert [run.n_passes for run in runs] == [0, 0]
    estimates = estimate_conditionals(work, merge_shards(work, tmp_path / "r", 2))
    assert estimates["p_response_given_cue"].tolist() == [0.0, 0.0]
    assert estimates.loc[0, "p_cue_given_response"] == 0.0
    assert np.isnan(estimates.loc[1, "p_cue_given_response"])
    assert estimates["pair_contexts"].tolist() == [0, 0]
    assert estimates["mean_distance"].isna().all()


@torch.inference_mode()
def brute_force(model: Any, tokenizer: Any, text: str, ends: Any, start: int, end: int) -> float:
    """log P(the word at ``[start, end)`` | its paragraph with it masked), one forward pass of
    the plain transformers model over ``[CLS] s_1 [SEP] ... s_n [SEP]``: the sum over the
    word's subtokens (each sentence tokenized on its own)."""
    ids, masked, previous = [tokenizer.cls_token_id], [], 0
    for sentence_end in ends:
        encoded = tokenizer(
            text[previous:sentence_end], add_special_tokens=False, return_offsets_mapping=True
        )
        for token, (a, b) in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True):
            if b > a and previous + a < end and previous + b > start:
                masked.append(len(ids))
            ids.append(token)
        ids.append(tokenizer.sep_token_id)
        previous = sentence_end
    inputs = torch.tensor([ids])
    inputs[0, masked] = tokenizer.mask_token_id
    hidden = model.base_model(input_ids=inputs).last_hidden_state[0, masked]
    log_probs = torch.log_softmax(model.cls(hidden).float(), dim=-1)  # the masked-LM head
    return float(sum(log_probs[i, ids[p]] for i, p in enumerate(masked)))


def test_batched_passes_equal_one_pass_each(index: ParagraphIndex, tmp_path: Path) -> None:
    """The shard's array-built, batched masked passes (float32, as the experiment runs them)
    against one plain transformers forward pass per masked occurrence, on EAT pairs."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    if not MLM_DIR.is_dir():
        pytest.skip(f"masked-LM fixture not found at {MLM_DIR}")
    scorer = load_scorer(str(MLM_DIR))
    edges = load_association_norms("eat").edges
    words = sorted(set(edges["cue"]) | set(edges["response"]))
    single = {w for w, keep in zip(words, single_token_words(scorer, words), strict=True) if keep}
    pairs = []
    edges = edges.sample(frac=1.0, random_state=0)  # not only the first cues ("a")
    for cue, response in zip(edges["cue"], edges["response"], strict=True):
        chosen = cue != response and {cue, response} <= single and (cue + response).isalpha()
        if chosen and index.paragraph_ids(cue, response).size:
            pairs.append((cue, response))
        if len(pairs) == 20:
            break
    work = build_worklist(pairs, index, tmp_path / "work", max_contexts=4)
    run_shard(work, 0, 1, scorer, tmp_path / "scores")
    scores = merge_shards(work, tmp_path / "scores", 1).table
    model = AutoModelForMaskedLM.from_pretrained(MLM_DIR).eval()
    tokenizer = AutoTokenizer.from_pretrained(MLM_DIR)
    paragraphs = work.paragraphs.set_index("paragraph")
    expected = [
        brute_force(
            model,
            tokenizer,
            paragraphs.loc[paragraph, "text"],
            paragraphs.loc[paragraph, "sentence_ends"],
            start,
            end,
        )
        for paragraph, start, end in zip(
            work.passes["paragraph"], work.passes["start"], work.passes["end"], strict=True
        )
    ]
    assert len(expected) > 80 and work.passes["paragraph"].nunique() >= 40
    np.testing.assert_allclose(scores["log_prob"], expected, rtol=0, atol=1e-5)
