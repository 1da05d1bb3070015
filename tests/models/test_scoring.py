"""Sentence scorers (AUL, AULA, PLL, causal log-likelihood) on real models: minilm-l6-mlm (the
shared masked-LM fixture) and smollm2-135m, checked against the obvious one-pass-per-copy
computation, the fixture's own published scores, and the pretrained-head check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from tests.conftest import shared_dir
from tests.models.pass_counts import counted_passes
from wordlens.errors import EmptyInputError, TargetError, UntrainedHeadError, WordlensError
from wordlens.models.scoring import (
    REDUCTIONS,
    LMScorer,
    ScoringMethod,
    attention_received,
    bert_style_parts,
    length_batches,
    load_scorer,
)

MLM_DIR = shared_dir() / "models" / "minilm-l6-mlm"

# A one-token sentence, short and longer ones (padding in a batch), punctuation, subword pieces.
SENTENCES = [
    "Nurse",
    "The cat sat on the mat.",
    "She is a talented engineer.",
    "Unbelievably, the zookeeper's giraffe sneezed twice!",
]


@pytest.fixture(scope="module")
def mlm() -> LMScorer:
    if not MLM_DIR.is_dir():
        pytest.skip(f"masked-LM fixture not found at {MLM_DIR}")
    return load_scorer(str(MLM_DIR))


@pytest.fixture(scope="module")
def reference(mlm: LMScorer) -> Any:
    """The masked LM loaded by transformers alone, with eager attention (it returns attention
    probabilities), for the by-hand computations."""
    from transformers import AutoModelForMaskedLM

    return AutoModelForMaskedLM.from_pretrained(MLM_DIR, attn_implementation="eager").eval()


@pytest.fixture(scope="module")
def causal() -> LMScorer:
    return load_scorer("smollm2-135m")


@torch.inference_mode()
def by_hand_masked(model: Any, tokenizer: Any, sentence: str, method: ScoringMethod) -> float:
    """Eq. 5 of Zhou et al. the obvious way: per token, one forward pass over the sentence (with
    that token masked for PLL), log-softmax, pick the token; AULA weights each pick by the
    attention the token receives (layers, heads, queries averaged, as Kaneko & Bollegala's code)."""
    ids = tokenizer(sentence)["input_ids"]
    outputs = model(input_ids=torch.tensor([ids]), output_attentions=True)
    unmasked = torch.log_softmax(outputs.logits[0], dim=-1)
    received = torch.stack(outputs.attentions)[:, 0].mean(dim=(0, 1)).mean(dim=0)  # [T]
    picks = []
    for position in range(1, len(ids) - 1):  # [CLS] and [SEP] are not scored
        log_probs = unmasked
        if method == "pll":
            copy = list(ids)
            copy[position] = tokenizer.mask_token_id
            log_probs = torch.log_softmax(model(input_ids=torch.tensor([copy])).logits[0], -1)
        weight = float(received[position]) if method == "aula" else 1.0
        picks.append(weight * float(log_probs[position, ids[position]]))
    return float(np.mean(picks))


@torch.inference_mode()
def by_hand_causal(scorer: LMScorer, sentence: str) -> float:
    """Sum of log P(w_t | w_<t) after the BOS token, one forward pass."""
    ids = [scorer.bos_token_id, *scorer.tokenizer(sentence)["input_ids"]]
    log_probs = torch.log_softmax(scorer.model(input_ids=torch.tensor([ids])).logits[0], dim=-1)
    return float(sum(log_probs[t - 1, ids[t]] for t in range(1, len(ids))))


@pytest.mark.parametrize("method", ["aul", "aula", "pll"])
def test_masked_scores_match_by_hand(mlm: LMScorer, reference: Any, method: ScoringMethod) -> None:
    result = mlm.score(SENTENCES, method)
    expected = [by_hand_masked(reference, mlm.tokenizer, s, method) for s in SENTENCES]
    np.testing.assert_allclose(result.scores, expected, rtol=0, atol=1e-5)
    n_tokens = [len(mlm.tokenizer(sentence)["input_ids"]) - 2 for sentence in SENTENCES]
    assert result.n_tokens.tolist() == n_tokens
    assert result.n_tokens[0] == 1  # "Nurse": one token, so its mean is its sum
    assert result.scores.dtype == np.float64
    assert result.method == method
    assert mlm.model.config._attn_implementation == "sdpa"  # AULA switched to eager and back


def test_masked_sums_match_the_fixtures_published_scores(mlm: LMScorer) -> None:
    # MODEL.md of minilm-l6-mlm, computed by its build script: "The cat sat on the mat."
    # PLL -35.11, AUL -11.07 (sums of natural-log token probabilities).
    for method, published in (("pll", -35.11), ("aul", -11.07)):
        result = mlm.score(["The cat sat on the mat."], method)
        assert REDUCTIONS[method] == "mean"
        assert float(result.scores[0] * result.n_tokens[0]) == pytest.approx(published, abs=0.02)


def test_causal_scores_match_by_hand(causal: LMScorer) -> None:
    assert causal.bos_token_id is not None  # the GGUF tokenizer adds no BOS: one is prepended
    assert causal.info.details["bos_token"] is not None
    sums = np.array([by_hand_causal(causal, sentence) for sentence in SENTENCES])
    n_tokens = np.array([len(causal.tokenizer(sentence)["input_ids"]) for sentence in SENTENCES])
    for method, expected in (("causal_sum", sums), ("causal_mean", sums / n_tokens)):
        result = causal.score(SENTENCES, method)
        assert result.n_tokens.tolist() == n_tokens.tolist()  # every token of the sentence
        np.testing.assert_allclose(result.scores, expected, rtol=1e-6, atol=1e-4)


def test_methods_scored_together_equal_each_scored_alone(causal: LMScorer, mlm: LMScorer) -> None:
    together = causal.score_methods(SENTENCES, ["causal_mean", "causal_sum"])
    assert list(together) == ["causal_mean", "causal_sum"]  # one pass, both reductions
    for method, result in together.items():
        alone = causal.score(SENTENCES, method)
        np.testing.assert_array_equal(result.scores, alone.scores)
    sums, means = together["causal_sum"], together["causal_mean"]
    np.testing.assert_allclose(means.scores * means.n_tokens, sums.scores, rtol=1e-12)
    masked = mlm.score_methods(SENTENCES, ["aul", "pll"])
    np.testing.assert_array_equal(masked["pll"].scores, mlm.score(SENTENCES, "pll").scores)
    with pytest.raises(WordlensError, match="not 'causal_sum'"):
        mlm.score_methods(SENTENCES, ["aul", "causal_sum"])


def test_pll_and_aul_agree_when_masking_changes_nothing() -> None:
    """AUL reads P(w_i | S), PLL reads P(w_i | S with w_i masked): they differ even for a
    one-token sentence (PLL sees only [CLS] [MASK] [SEP]). They must agree exactly when the masked
    copies are the unmasked sentence: give [MASK] the input embedding of "cat", and the sentences
    made only of "cat" score the same under both; a sentence with another token does not."""
    if not MLM_DIR.is_dir():
        pytest.skip(f"masked-LM fixture not found at {MLM_DIR}")
    scorer = load_scorer(str(MLM_DIR))  # its own copy: the weights are edited
    cat = scorer.tokenizer.convert_tokens_to_ids("cat")
    embeddings = scorer.model.get_input_embeddings().weight
    with torch.no_grad():
        embeddings[scorer.mask_token_id] = embeddings[cat]
    same = ["cat", "cat cat cat"]
    aul, pll = scorer.score(same, "aul"), scorer.score(same, "pll")
    # equal up to float32 rounding: PLL's last layer and head run on other row counts than AUL's
    # (other matrix-product blocking); each is within 5e-6 of a float64 pass
    np.testing.assert_allclose(pll.scores, aul.scores, rtol=0, atol=1e-5)
    assert pll.n_tokens.tolist() == aul.n_tokens.tolist() == [1, 3]
    other = ["the cat"]
    assert abs(scorer.score(other, "pll").scores[0] - scorer.score(other, "aul").scores[0]) > 0.1


@pytest.mark.parametrize(
    ("scorer_name", "method"),
    [("mlm", "aul"), ("mlm", "aula"), ("mlm", "pll"), ("causal", "causal_mean")],
)
def test_batched_scores_equal_one_at_a_time(
    scorer_name: str, method: ScoringMethod, request: pytest.FixtureRequest
) -> None:
    scorer: LMScorer = request.getfixturevalue(scorer_name)
    batched = scorer.score(SENTENCES, method).scores
    alone = [scorer.score([sentence], method).scores[0] for sentence in SENTENCES]
    np.testing.assert_allclose(batched, alone, rtol=0, atol=1e-5)


def test_pll_copies_batched_equal_one_copy_per_pass(mlm: LMScorer) -> None:
    batched = mlm.score(SENTENCES[:3], "pll").scores
    default_budget = mlm.token_budget
    try:
        mlm.token_budget = 1  # every masked copy in a pass of its own: the naive loop
        one_copy_per_pass = mlm.score(SENTENCES[:3], "pll").scores
    finally:
        mlm.token_budget = default_budget
    np.testing.assert_allclose(batched, one_copy_per_pass, rtol=0, atol=1e-5)


def test_projecting_read_positions_alone_changes_no_score(mlm: LMScorer, causal: LMScorer) -> None:
    # BERT and Llama apply their output embedding once, to the final hidden states
    assert mlm.projects_read_positions
    assert causal.projects_read_positions
    for scorer, method in ((mlm, "pll"), (mlm, "aul"), (causal, "causal_mean")):
        selected = scorer.score(SENTENCES, method).scores
        scorer.projects_read_positions = False
        try:
            full = scorer.score(SENTENCES, method).scores
        finally:
            scorer.projects_read_positions = True
        np.testing.assert_allclose(selected, full, rtol=0, atol=1e-5)


def test_pll_fast_path_equals_the_models_forward_pass(mlm: LMScorer) -> None:
    # the layers run by hand, the last one at the masked position only, against the model's own
    # forward pass; "Nurse" and the long sentence put different lengths in one batch
    assert mlm.pll_fast_path
    fast = mlm.score(SENTENCES, "pll").scores
    mlm.pll_fast_path = False
    try:
        forward = mlm.score(SENTENCES, "pll").scores
    finally:
        mlm.pll_fast_path = True
    np.testing.assert_allclose(fast, forward, rtol=0, atol=1e-5)


def test_pll_fast_path_sees_edited_weights() -> None:
    # the fast path keeps the query, key and value weights stacked: an in-place edit between two
    # calls, or one through .data (which bypasses the version counter), must reach the scores
    if not MLM_DIR.is_dir():
        pytest.skip(f"masked-LM fixture not found at {MLM_DIR}")
    scorer = load_scorer(str(MLM_DIR))  # its own copy: the weights are edited
    before = scorer.score(SENTENCES, "pll").scores
    key = scorer.model.bert.encoder.layer[2].attention.self.key
    with torch.no_grad():
        key.weight.mul_(0.5)
    halved = scorer.score(SENTENCES, "pll").scores
    key.weight.data.mul_(2.0)
    restored = scorer.score(SENTENCES, "pll").scores
    scorer.pll_fast_path = False
    key.weight.data.mul_(0.5)
    np.testing.assert_allclose(halved, scorer.score(SENTENCES, "pll").scores, rtol=0, atol=1e-5)
    np.testing.assert_allclose(restored, before, rtol=0, atol=1e-6)
    assert np.abs(halved - before).max() > 1e-3


def count_vectors(module: torch.nn.Module, counts: dict[str, int], name: str) -> Any:
    """Count the vectors (all dimensions but the last) that enter ``module``; returns the hook."""

    def count(_module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> None:
        counts[name] += inputs[0].shape[:-1].numel()

    return module.register_forward_pre_hook(count)


def test_pll_runs_the_last_layer_and_the_head_at_masked_positions_only(mlm: LMScorer) -> None:
    # a masked copy is read at its masked position: the last layer's feed-forward block and the
    # head's transform see one vector per copy, the first layer every position of every copy
    bert = mlm.model.bert.encoder.layer
    counts = {"first": 0, "last": 0, "head": 0}
    hooks = [
        count_vectors(bert[0].intermediate, counts, "first"),
        count_vectors(bert[-1].intermediate, counts, "last"),
        count_vectors(mlm.model.cls.predictions.transform, counts, "head"),
    ]
    try:
        result = mlm.score(SENTENCES, "pll")
    finally:
        for hook in hooks:
            hook.remove()
    copies = int(result.n_tokens.sum())
    assert counts["last"] == counts["head"] == copies
    assert counts["first"] >= sum(n * (n + 2) for n in result.n_tokens.tolist())  # [CLS], [SEP]


def test_aul_projects_the_read_positions_alone(mlm: LMScorer) -> None:
    # the whole head (transform and decoder), not only the decoder, skips [CLS], [SEP], padding
    counts = {"head": 0}
    hook = count_vectors(mlm.model.cls.predictions.transform, counts, "head")
    try:
        result = mlm.score(SENTENCES, "aul")
    finally:
        hook.remove()
    assert counts["head"] == int(result.n_tokens.sum())


def test_only_bert_style_models_get_the_pll_fast_path(mlm: LMScorer, causal: LMScorer) -> None:
    parts = bert_style_parts(mlm.model)
    assert parts is not None
    assert parts.head is mlm.model.cls
    assert len(parts.layers) == mlm.model.config.num_hidden_layers
    assert bert_style_parts(causal.model) is None
    assert not causal.pll_fast_path


def test_length_batches_respect_the_budget() -> None:
    lengths = [3, 10, 7, 10, 2, 25]
    batches = length_batches(lengths, token_budget=20)
    assert [batch.tolist() for batch in batches] == [[5], [1, 3], [2, 0], [4]]
    for batch in batches[1:]:
        assert len(batch) * max(lengths[i] for i in batch) <= 20


def test_length_batches_are_full_buckets_of_near_equal_lengths() -> None:
    # every row once; each batch a run of the rows sorted longest first, holding as many rows as
    # the budget takes at its longest (but the last), so padding is nearly gone
    lengths = np.random.default_rng(0).integers(4, 400, size=5000)
    budget = 2048
    batches = length_batches(lengths, budget)
    order = np.concatenate(batches)
    assert sorted(order.tolist()) == list(range(len(lengths)))
    assert np.all(np.diff(lengths[order]) <= 0)
    for batch in batches[:-1]:
        assert len(batch) == budget // lengths[batch].max()
    padded = sum(len(batch) * int(lengths[batch].max()) for batch in batches)
    assert 1 - lengths.sum() / padded < 0.01


@pytest.mark.parametrize("method", ["aul", "aula", "pll"])
def test_padding_positions_are_counted_in_the_stage(mlm: LMScorer, method: ScoringMethod) -> None:
    # the stage's work against the token ids the model received and the sentences' lengths by
    # the tokenizer: a PLL sentence of n ids (n - 2 scored) is n - 2 rows of n real tokens; at 24
    # tokens a batch, rows of different lengths share some
    lengths = [len(ids) for ids in mlm.tokenizer(SENTENCES)["input_ids"]]
    copies = [n - 2 if method == "pll" else 1 for n in lengths]
    with counted_passes(mlm, token_budget=24) as count:
        mlm.score(SENTENCES, method)
    work = count.work
    assert work["sequences"] == sum(copies)
    assert work["token_positions"] == count.positions
    assert work["padding_positions"] == count.padding > 0
    real = sum(n * k for n, k in zip(lengths, copies, strict=True))
    assert work["token_positions"] - work["padding_positions"] == real


def test_attention_received_ignores_padded_queries() -> None:
    # one layer, one head, 3 positions of which the last is padding
    probabilities = torch.tensor([[[[0.5, 0.5, 0.0], [0.25, 0.75, 0.0], [0.1, 0.1, 0.8]]]])
    weights = attention_received([probabilities], torch.tensor([[1, 1, 0]]))
    np.testing.assert_allclose(weights.numpy(), [[0.375, 0.625, 0.0]])


def test_models_with_pretrained_heads_are_not_flagged(mlm: LMScorer, causal: LMScorer) -> None:
    assert mlm.info.kind == "masked"
    assert mlm.methods == ("aul", "aula", "pll")
    assert causal.info.kind == "causal"
    assert causal.methods == ("causal_sum", "causal_mean")
    for scorer in (mlm, causal):
        assert scorer.info.details["newly_initialized_weights"] == []
        assert scorer.info.details["scoring"]["reductions"] == REDUCTIONS


def test_encoder_without_head_is_refused() -> None:
    # all-MiniLM-L6-v2 ships as a BertModel: loaded as BertForMaskedLM its head would be random
    with pytest.raises(UntrainedHeadError, match=r"cls\.predictions.*allow_new_head"):
        load_scorer("minilm-l6")


def test_masked_lm_checkpoint_missing_its_head_is_refused_or_flagged(
    mlm: LMScorer, tmp_path: Path
) -> None:
    """A directory whose config claims BertForMaskedLM but whose weights are the encoder only."""
    from transformers import AutoTokenizer, BertModel

    BertModel.from_pretrained(MLM_DIR, add_pooling_layer=False).save_pretrained(tmp_path)
    AutoTokenizer.from_pretrained(MLM_DIR).save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    config["architectures"] = ["BertForMaskedLM"]
    (tmp_path / "config.json").write_text(json.dumps(config))

    with pytest.raises(UntrainedHeadError, match=r"cls\.predictions\.transform\.dense\.weight"):
        load_scorer(str(tmp_path))
    flagged = load_scorer(str(tmp_path), allow_new_head=True)
    assert (
        "cls.predictions.transform.dense.weight"
        in flagged.info.details["newly_initialized_weights"]
    )
    # the random head's scores are finite but meaningless: near the uniform log(1/30522) = -10.3
    # per token (MODEL.md: AUL -10.99 per token untrained against -1.79 trained)
    (random_head,) = flagged.score(["The cat sat on the mat."], "aul").scores
    assert np.isfinite(random_head)
    assert random_head < -8.0
    assert mlm.score(["The cat sat on the mat."], "aul").scores[0] > -3.0


def test_bad_input_is_refused(mlm: LMScorer, causal: LMScorer) -> None:
    with pytest.raises(EmptyInputError, match="no sentences"):
        mlm.score([], "aul")
    with pytest.raises(EmptyInputError, match=r"\[1, 2\] are empty or blank"):
        causal.score(["fine", "", "  \n"], "causal_sum")
    with pytest.raises(EmptyInputError, match=r"sentence 0 .* has no tokens"):
        mlm.score(["\u200b"], "pll")  # zero-width space: not blank, but no WordPiece token
    with pytest.raises(TargetError, match="maximum of 512"):
        mlm.score(["word " * 600], "aul")
    with pytest.raises(WordlensError, match=r"sentence\(s\) \[1\] are not strings"):
        mlm.score(["The cat sat.", float("nan")], "aul")  # type: ignore[list-item]
    with pytest.raises(WordlensError, match="not one string"):
        mlm.score("The cat sat.", "aul")
    with pytest.raises(WordlensError, match="causal_sum, causal_mean, not 'pll'"):
        causal.score(["The cat sat."], "pll")
    with pytest.raises(WordlensError, match="aul, aula, pll, not 'causal_sum'"):
        mlm.score(["The cat sat."], "causal_sum")


def test_models_without_language_model_are_refused(tmp_path: Path) -> None:
    vectors = tmp_path / "tiny.txt"
    vectors.write_text("cat 0.1 0.2 0.3\ndog 0.3 0.2 0.1\n")
    with pytest.raises(WordlensError, match="static model"):
        load_scorer(str(vectors))
    with pytest.raises(WordlensError, match="unknown dtype 'float64'"):
        load_scorer("smollm2-135m", dtype="float64")
