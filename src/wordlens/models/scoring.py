"""Sentence likelihoods from language models, for likelihood-based bias benchmarks.

Masked language models (one sentence ``S = w_1 .. w_|S|``; special tokens such as [CLS], [SEP],
<s>, </s> are never scored):

- ``aul`` — All Unmasked Likelihood (Kaneko & Bollegala 2022, "Unmasking the Mask", AAAI): one
  forward pass over the *unmasked* sentence and ``1/|S| sum_i log P(w_i | S)``, the score of
  eq. 5 in Zhou, Kaneko & Bollegala (2022), "Sense Embeddings are also Biased", ACL.
- ``aula`` — AUL with attention weights (Kaneko & Bollegala 2022): each token's log-probability is
  multiplied by the attention it receives — averaged over layers, heads and the sentence's query
  positions, special tokens included, as the authors' ``evaluate.py`` computes it — and the
  products are averaged over the tokens.
- ``pll`` — pseudo-log-likelihood (Salazar et al. 2020, "Masked Language Model Scoring", ACL):
  ``log P(w_i | S with w_i masked)``, one masked copy of the sentence per token.

**Sum or mean.** Zhou et al. normalize by ``|S|`` (eq. 5) and their bias score (eq. 6) compares
the two sentences of a pair, which may differ in token count ("poor"/"rich" tokenize differently),
so every masked score here is the *mean* per scored token, PLL included. Salazar et al. sum;
CrowS-Pairs' own metric (Nangia et al. 2020) sums over the tokens a pair shares. The sum is always
``scores * n_tokens`` (:class:`SentenceScores` has both). :data:`REDUCTIONS` records the choice and
every scorer carries it in ``info.details["scoring"]``, so results that store ``info`` record it.

Causal language models: ``causal_sum = sum_i log P(w_i | w_<i)`` over the sentence's tokens and
``causal_mean`` the same divided by their number. The first token needs a context, so a BOS token is
prepended when the tokenizer adds none — :func:`wordlens.models.loading.load_model`'s rule
(``bos="auto"``), recorded in ``info.details["bos_token"]`` — and every token of the sentence is
scored. A tokenizer with neither BOS nor EOS token leaves the first token unscored (``n_tokens``
shows it).

**Numerics.** Logits go through ``log_softmax`` in float32 (whatever the weights' dtype); the
chosen tokens' log-probabilities are then converted to float64, and sums and means are float64.

**Batching.** Forward-pass rows (a sentence for AUL, AULA and causal scores; one masked copy per
token for PLL) are grouped in length buckets by :func:`length_batches`, the one grouping of every
scoring pass (the masked passes of eq. 6 in :mod:`wordlens.models.contextual_conditionals`
included): sorted by length, longest first, and cut so that ``rows * longest <= token_budget``;
padding is on the right and masked, so a row's scores do not depend on its batch (tested to 1e-5
per token against one row per pass). Sorted rows leave little padding: each pass counts its
positions and the padded ones among them in the stage's work (``token_positions``,
``padding_positions``; :func:`~wordlens.stages.count_pass`), 0.01 % on the paper-scale eq. 6
work list (250,905 masked passes, tiny BERT's tokenizer) at the CPU's 2,048 tokens a batch and
0.16 % at 32,768 (an accelerator's), so variable-length attention (nested tensors), which would
remove the rest, is not used. PLL's copies of many sentences share batches, of up to
:data:`PLL_BUDGET_SCALE` times the token budget. The language-model head (BERT's transform and
output embedding, ``hidden -> vocabulary``) is applied only at the positions that are read — one
position of each PLL copy — when a probe at load time shows that this reproduces the full pass's
logits; for minilm-l6-mlm, whose output embedding costs about as much as its six layers, this
halves PLL time.

**PLL on BERT-style encoders.** Each masked copy is a full pass over its sentence (a
bidirectional encoder lets every position see the mask), so the work is about copies x tokens
x layers; but a copy is read at its masked position only, and in the last layer nothing depends
on the other positions' outputs: their keys and values are needed, their queries, attention
outputs and feed-forward blocks are not. For BERT-style masked LMs (:data:`BERT_STYLE`: BERT's
layer modules, absolute positions) the scorer therefore runs the layers itself, module by module
— the model's own embeddings, projections (query, key and value in one matrix product), output
blocks, feed-forward blocks and head, with
:func:`torch.nn.functional.scaled_dot_product_attention` between them — and the last layer only
at the masked position: for a 20-token copy about 14% of the encoder's matrix products are
skipped (5/6 of the last layer's, its keys and values being the rest). A probe at load time checks
this against the model's own forward pass on every masked copy of a sentence
(``LMScorer.pll_fast_path``; otherwise, and for other models, PLL runs the model's forward pass).
Scores agree with the model's pass to float32 rounding: both are within 1e-5 of a float64 pass
(tested to 1e-5).
Models run with their default attention (SDPA); AULA's passes switch to eager attention, the one
that returns probabilities.

**Pretrained weights.** :func:`load_scorer` loads the model with its ``*ForMaskedLM`` or
``*ForCausalLM`` class and reads transformers' loading report: when weights were newly initialized
(an encoder checkpoint without its masked-LM head, loaded as a masked LM, gets a random head and
transformers only logs a warning) it raises :class:`~wordlens.errors.UntrainedHeadError`, unless
``allow_new_head=True``, in which case ``info.details["newly_initialized_weights"]`` lists them.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, cast, get_args

import numpy as np
import numpy.typing as npt
import torch

from wordlens.errors import (
    EmptyInputError,
    ModelFilesError,
    TargetError,
    UntrainedHeadError,
    WordlensError,
)
from wordlens.models.backend import current_backend, in_order
from wordlens.models.base import BosPolicy, ModelInfo, ModelKind
from wordlens.models.budget import default_token_budget
from wordlens.models.device import resolve_device
from wordlens.models.hf import HFEmbedder
from wordlens.models.loading import (
    DType,
    LoadNoteWarning,
    load_model,
    quiet_transformers,
    weights_formats,
    weights_refused,
)
from wordlens.models.spec import ModelSpec
from wordlens.progress import progress_bar
from wordlens.stages import count_pass

ScoringMethod = Literal["aul", "aula", "pll", "causal_sum", "causal_mean"]
MASKED_METHODS: tuple[ScoringMethod, ...] = ("aul", "aula", "pll")
CAUSAL_METHODS: tuple[ScoringMethod, ...] = ("causal_sum", "causal_mean")

#: How each method reduces its tokens' log-probabilities to a sentence score (see module notes).
REDUCTIONS: dict[ScoringMethod, Literal["mean", "sum"]] = {
    "aul": "mean",
    "aula": "mean",
    "pll": "mean",
    "causal_sum": "sum",
    "causal_mean": "mean",
}

#: Bumped when a change in wordlens changes sentence scores (part of the scorer fingerprint).
SCORING_VERSION = "1"

_PROBE_SENTENCE = "The cat sat on the mat."

#: PLL batches hold up to this many times the token budget. A masked copy is read at one
#: position, so a PLL batch's logits take ``1 / length`` of the memory of a batch read at every
#: position (AUL), and larger batches pay off on busy CPU threads: minilm-l6-mlm on CrowS-Pairs,
#: 2 threads, ran 1.3x faster at 2,048 tokens than at 1,024, and alike on 1 thread, where 4,096
#: was 14% slower (``benchmarks/bench_pll.py --budgets``).
PLL_BUDGET_SCALE = 2

#: PLL batches hold at most this many tokens times :data:`PLL_BUDGET_SCALE`, whatever the token
#: budget (the CPU's default is far below it; an accelerator's is sized from free memory): 16,384.
#: On an H200 (BERT-base, 1,000 CrowS-Pairs sentences, 15,122 masked copies) PLL ran 11,800
#: copies/s in float32 and 40,900 in bfloat16 at 16,384 x 2 tokens (issue 27's measurement), and
#: 6,857 and 20,491 at the free-memory budget of 262,144 x 2 (``benchmarks/bench_gpu.py``): a batch
#: of every copy of hundreds of sentences is past what pays.
PLL_ACCELERATOR_BUDGET = 16_384


@dataclass(frozen=True)
class SentenceScores:
    """Log-likelihood scores of a list of sentences (higher = more likely under the model).

    Attributes
    ----------
    method
        The scoring method; :data:`REDUCTIONS` says whether ``scores`` are sums or means.
    scores
        float64 ``[n_sentences]``.
    n_tokens
        int64 ``[n_sentences]``: tokens scored per sentence (special tokens excluded); for a mean
        the sum is ``scores * n_tokens``.
    """

    method: ScoringMethod
    scores: npt.NDArray[np.float64]
    n_tokens: npt.NDArray[np.int64]


@dataclass(frozen=True)
class _Sentence:
    """A tokenized sentence: its ids (special tokens and BOS included) and the positions scored."""

    input_ids: tuple[int, ...]
    scored: tuple[int, ...]


@dataclass(frozen=True)
class ModelRow:
    """One row of a forward pass (what :meth:`LMScorer.read_log_probs` reads).

    Attributes
    ----------
    input_ids
        The row's token ids, special tokens included.
    reads
        The positions whose output distributions are read.
    targets
        The token scored at each read position (a causal LM predicts position ``p`` at ``p - 1``:
        the caller shifts ``reads``).
    masked
        A position replaced by the mask token before the pass (PLL), or ``None``.
    """

    input_ids: tuple[int, ...]
    reads: tuple[int, ...]
    targets: tuple[int, ...]
    masked: int | None = None


@dataclass(frozen=True)
class LogProbBatch:
    """Rows of one scoring pass, the payload of :func:`log_probs_batch`; ``weighted`` for AULA's
    attention-weighted log-probabilities."""

    rows: tuple[ModelRow, ...]
    weighted: bool = False


@dataclass(frozen=True, eq=False)
class ReadBatch:
    """One forward pass as arrays, the payload of :func:`read_batch_log_probs` (what
    :meth:`LMScorer.batch_log_probs` reads; built without a Python step per row by
    :mod:`wordlens.models.contextual_conditionals`, from :class:`ModelRow` by :func:`read_batch`).

    Attributes
    ----------
    input_ids
        int64 ``[rows, width]``: the rows' token ids, right-padded, mask tokens already in place.
    lengths
        int64 ``[rows]``: each row's real tokens (``<= width``).
    read_rows, read_columns
        int64 ``[n_reads]``: the positions whose output distributions are read, row-major.
    targets
        int64 ``[n_reads]``: the token scored at each read position (a causal LM predicts
        position ``p`` at ``p - 1``: the caller shifts ``read_columns``).
    """

    input_ids: npt.NDArray[np.int64]
    lengths: npt.NDArray[np.int64]
    read_rows: npt.NDArray[np.int64]
    read_columns: npt.NDArray[np.int64]
    targets: npt.NDArray[np.int64]


def read_batch(rows: Sequence[ModelRow], pad_token_id: int, mask_token_id: int | None) -> ReadBatch:
    """The rows as one right-padded :class:`ReadBatch`, each row's ``masked`` position replaced
    by ``mask_token_id``."""
    lengths = np.fromiter((len(row.input_ids) for row in rows), dtype=np.int64, count=len(rows))
    width = int(lengths.max())
    pad = (pad_token_id,)
    input_ids = np.array(
        [row.input_ids + pad * (width - len(row.input_ids)) for row in rows], dtype=np.int64
    )  # [rows, width]
    masked = [(slot, row.masked) for slot, row in enumerate(rows) if row.masked is not None]
    if masked:
        slots, positions = np.array(masked, dtype=np.int64).T
        input_ids[slots, positions] = cast(int, mask_token_id)
    n_reads = np.fromiter((len(row.reads) for row in rows), dtype=np.int64, count=len(rows))
    total = int(n_reads.sum())
    return ReadBatch(
        input_ids,
        lengths,
        np.repeat(np.arange(len(rows), dtype=np.int64), n_reads),
        np.fromiter((c for row in rows for c in row.reads), dtype=np.int64, count=total),
        np.fromiter((t for row in rows for t in row.targets), dtype=np.int64, count=total),
    )


def pass_groups(methods: Sequence[ScoringMethod]) -> list[list[ScoringMethod]]:
    """The methods grouped by the forward passes they read, in first-appearance order (repeats
    dropped): ``causal_sum`` and ``causal_mean`` share theirs; every masked method has its own."""
    groups: dict[str, list[ScoringMethod]] = {}
    for method in dict.fromkeys(methods):
        groups.setdefault("causal" if method in CAUSAL_METHODS else method, []).append(method)
    return list(groups.values())


def pll_token_budget(token_budget: int) -> int:
    """Padded tokens per batch of masked copies read at one position (PLL, the masked passes of
    eq. 6 in :mod:`wordlens.models.contextual_conditionals`): :data:`PLL_BUDGET_SCALE` times the
    token budget, of at most :data:`PLL_ACCELERATOR_BUDGET`."""
    return min(token_budget, PLL_ACCELERATOR_BUDGET) * PLL_BUDGET_SCALE


def length_batches(
    lengths: Sequence[int] | npt.NDArray[np.int64], token_budget: int
) -> list[npt.NDArray[np.intp]]:
    """Row indices per batch, in length buckets: rows sorted longest first (stable), each batch
    as many rows as fit ``rows * longest <= token_budget`` (at least one).

    The grouping of every scoring pass: AUL, AULA, causal scores, PLL's masked copies (Salazar et
    al. 2020) and the masked passes of eq. 6 (Zhang et al. 2021,
    :mod:`wordlens.models.contextual_conditionals`). A batch's rows are neighbours in length, so
    its padding is at most ``rows * (longest - shortest)`` (see the module notes).

    Parameters
    ----------
    lengths
        Tokens per row ``[n_rows]``.
    token_budget
        Upper bound on a batch's padded tokens.

    Returns
    -------
    list of numpy.ndarray
        Per batch, its row indices ``[rows in the batch]``, longest first; every row once.
    """
    row_lengths = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(-row_lengths, kind="stable")
    batches: list[npt.NDArray[np.intp]] = []
    start = 0
    while start < len(order):
        size = max(1, token_budget // int(row_lengths[order[start]]))
        batches.append(order[start : start + size])
        start += size
    return batches


def attention_received(
    attentions: Sequence[torch.Tensor], attention_mask: torch.Tensor
) -> torch.Tensor:
    """The AULA weight of every token: the attention it receives, averaged over layers, heads and
    the row's real (unpadded) query positions (Kaneko & Bollegala 2022).

    Parameters
    ----------
    attentions
        Per layer, attention probabilities ``[rows, heads, query, key]``.
    attention_mask
        ``[rows, positions]``, 1 for real tokens and 0 for padding.

    Returns
    -------
    torch.Tensor
        float32 ``[rows, positions]``.
    """
    per_query = torch.stack(tuple(attentions)).float().mean(dim=(0, 2))  # [rows, query, key]
    real_queries = attention_mask.to(per_query.dtype)[:, :, None]
    return (per_query * real_queries).sum(dim=1) / real_queries.sum(dim=1)


@contextmanager
def _eager_attention(model: Any) -> Iterator[None]:
    """Switch the model to eager attention while active: AULA needs attention probabilities,
    which the fused kernels (SDPA, used otherwise because it is faster) do not return."""
    current = model.config._attn_implementation
    model.set_attn_implementation("eager")
    try:
        yield
    finally:
        model.set_attn_implementation(current)


@contextmanager
def _projecting_only(
    projection: torch.nn.Module, rows: torch.Tensor, columns: torch.Tensor
) -> Iterator[None]:
    """While active, the output embedding projects only hidden states ``[rows, columns]``, so the
    model returns logits ``[n_reads, vocabulary]`` instead of ``[rows, positions, vocabulary]``."""

    def select(_module: torch.nn.Module, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0][rows, columns], *inputs[1:])

    handle = projection.register_forward_pre_hook(select)
    try:
        yield
    finally:
        handle.remove()


#: ``config.model_type`` of the masked LMs whose layers the scorer can run itself for PLL (see the
#: module notes): BERT's layer modules, absolute position embeddings.
BERT_STYLE = frozenset({"bert", "roberta", "xlm-roberta", "camembert"})


@dataclass(frozen=True)
class BertStyleParts:
    """The modules of a BERT-style masked LM that :func:`masked_position_logits` runs.

    Attributes
    ----------
    embeddings
        Token, position and type embeddings with their LayerNorm (``input_ids=`` -> hidden).
    layers
        The encoder layers, each with ``attention.self.{query,key,value}``, ``attention.output``,
        ``intermediate`` and ``output``, as BERT's.
    head
        The masked-LM head, hidden -> vocabulary logits (BERT's ``cls``: transform and decoder).
    """

    embeddings: torch.nn.Module
    layers: tuple[torch.nn.Module, ...]
    head: torch.nn.Module
    _stacked: dict[tuple[int, tuple[str, ...]], _Stacked] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def stacked(
        self, attention: torch.nn.Module, names: tuple[str, ...]
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The weights ``[n * dim, dim]`` and biases of ``attention``'s projections ``names``
        (``query``, ``key``, ``value``) stacked, for one matrix product; kept until one of them
        changes (another storage, or an in-place edit, which bumps the tensor's version) or
        :meth:`forget`."""
        modules = [getattr(attention, name) for name in names]
        tensors = [t for module in modules for t in (module.weight, module.bias) if t is not None]
        signature = tuple((t.data_ptr(), t._version) for t in tensors)
        cached = self._stacked.get((id(attention), names))
        if cached is None or cached.signature != signature:
            biases = [module.bias for module in modules]
            bias = None
            if any(b is not None for b in biases):
                bias = torch.cat(
                    [
                        b if b is not None else m.weight.new_zeros(m.out_features)
                        for b, m in zip(biases, modules, strict=True)
                    ]
                )
            weight = torch.cat([module.weight for module in modules])
            cached = self._stacked[(id(attention), names)] = _Stacked(signature, weight, bias)
        return cached.weight, cached.bias

    def forget(self) -> None:
        """Drop the stacked weights (the scorer does at every :meth:`LMScorer.score`, so that
        edits that bypass the version counter, through ``.data``, are seen too)."""
        self._stacked.clear()


@dataclass(frozen=True)
class _Stacked:
    """Stacked projection weights and the (storage, version) of the tensors they copy."""

    signature: tuple[tuple[int, int], ...]
    weight: torch.Tensor
    bias: torch.Tensor | None


def bert_style_parts(model: Any) -> BertStyleParts | None:
    """The embeddings, layers and head of a BERT-style masked LM (:data:`BERT_STYLE`), or ``None``
    for any other model: another type, a decoder, relative positions, cross-attention, or modules
    not laid out as BERT's."""
    config = model.config
    if (
        config.model_type not in BERT_STYLE
        or getattr(config, "is_decoder", False)
        or getattr(config, "position_embedding_type", "absolute") != "absolute"
    ):
        return None
    base, heads = model.base_model, _language_model_heads(model)
    layers = getattr(getattr(base, "encoder", None), "layer", None)
    if len(heads) != 2 or layers is None or not hasattr(base, "embeddings"):
        return None  # a head holding the output embedding, as BERT's cls
    if not all(_is_bert_layer(layer) for layer in layers):
        return None
    return BertStyleParts(base.embeddings, tuple(layers), heads[0])


def _is_bert_layer(layer: Any) -> bool:
    attention = getattr(getattr(layer, "attention", None), "self", None)
    return (
        all(
            isinstance(getattr(attention, name, None), torch.nn.Linear)
            for name in ("query", "key", "value")
        )
        and isinstance(getattr(attention, "scaling", None), float)
        and all(hasattr(layer, name) for name in ("intermediate", "output"))
        and hasattr(layer.attention, "output")
        and not hasattr(layer, "crossattention")
    )


def _projections(
    parts: BertStyleParts, attention: Any, names: tuple[str, ...], states: torch.Tensor
) -> list[torch.Tensor]:
    """The named projections (``query``, ``key``, ``value``) of ``states [rows, n, dim]`` by one
    matrix product over their stacked weights, each split into heads ``[rows, heads, n, head]``."""
    weight, bias = parts.stacked(attention, names)
    rows, n, _ = states.shape
    projected = torch.nn.functional.linear(states, weight, bias)
    split = projected.view(rows, n, len(names), -1, attention.attention_head_size)
    return list(split.permute(2, 0, 3, 1, 4).unbind(0))


def _bert_layer(
    parts: BertStyleParts,
    layer: Any,
    hidden: torch.Tensor,
    keys: torch.Tensor | None,
    queries: torch.Tensor | None,
) -> torch.Tensor:
    """One BERT layer over ``hidden [rows, positions, dim]``: at every position, or with
    ``queries [rows]`` at one position per row (keys and values from every position).

    ``keys`` is ``None`` when no row is padded, else bool ``[rows, 1, 1, positions]``, true at
    the real tokens: the positions a query may attend to.

    Returns
    -------
    torch.Tensor
        ``[rows, positions, dim]``, or ``[rows, 1, dim]`` with ``queries``.
    """
    attention = layer.attention.self
    if queries is None:
        inputs = hidden
        query, key, value = _projections(parts, attention, ("query", "key", "value"), hidden)
    else:
        inputs = hidden[torch.arange(hidden.shape[0]), queries][:, None]
        (query,) = _projections(parts, attention, ("query",), inputs)
        key, value = _projections(parts, attention, ("key", "value"), hidden)
    context = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=keys, scale=attention.scaling
    )
    attended = layer.attention.output(context.transpose(1, 2).reshape(inputs.shape), inputs)
    return cast(torch.Tensor, layer.output(layer.intermediate(attended), attended))


def masked_position_logits(
    parts: BertStyleParts,
    input_ids: torch.Tensor,
    positions: torch.Tensor,
    lengths: torch.Tensor | None = None,
) -> torch.Tensor:
    """The logits at each row's masked position, with the last layer and the head computed there
    only (see the module notes).

    Parameters
    ----------
    parts
        The model's modules (:func:`bert_style_parts`).
    input_ids
        ``[rows, width]``, right-padded, the mask token already in place.
    positions
        ``[rows]``: the masked position of each row.
    lengths
        ``[rows]``: the real tokens of each row; ``None`` when no row is padded.

    Returns
    -------
    torch.Tensor
        ``[rows, vocabulary]``.
    """
    keys = None
    if lengths is not None:
        width = input_ids.shape[1]
        keys = (torch.arange(width, device=input_ids.device) < lengths[:, None])[:, None, None]
    hidden = parts.embeddings(input_ids=input_ids)
    *early, last = parts.layers
    for layer in early:
        hidden = _bert_layer(parts, layer, hidden, keys, None)
    return cast(torch.Tensor, parts.head(_bert_layer(parts, last, hidden, keys, positions)[:, 0]))


class LMScorer:
    """Scores sentences with a masked or causal language model (see the module notes).

    Parameters
    ----------
    model
        A ``*ForMaskedLM`` or ``*ForCausalLM`` transformers model in eval mode on ``device``.
    tokenizer
        Its tokenizer.
    info
        Identity of the scorer; ``kind`` is ``"masked"`` or ``"causal"`` (see :func:`load_scorer`).
    bos_token_id
        Token prepended to every sentence (causal models whose tokenizer adds none), or ``None``.
    token_budget
        Upper bound on a batch's padded tokens (``rows * longest row``); ``None`` picks
        :func:`wordlens.models.budget.default_token_budget`. The attribute of the same name can be
        changed later.
    device
        Torch device the model lives on.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        info: ModelInfo,
        *,
        bos_token_id: int | None,
        token_budget: int | None = None,
        device: str = "cpu",
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.info = info
        self.bos_token_id = bos_token_id
        self.device = torch.device(device)
        self.token_budget = token_budget or default_token_budget(self.device, model, logits=True)
        self.info.details["token_budget"] = self.token_budget  # the one used, in the metadata
        self.methods = CAUSAL_METHODS if info.kind == "causal" else MASKED_METHODS
        self.mask_token_id: int | None = tokenizer.mask_token_id
        if info.kind == "masked" and self.mask_token_id is None:
            raise ModelFilesError(f"the tokenizer of {info.name} has no mask token (PLL needs one)")
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.pad_token_id = int(pad)
        self.max_length = _max_length(model.config, tokenizer)
        self._projection: Any = None
        self.projects_read_positions = any(
            self._read_projection_matches(head) for head in _language_model_heads(model)
        )
        self._bert_parts = bert_style_parts(model) if info.kind == "masked" else None
        #: Whether PLL runs the layers itself, the last layer and the head at the masked position
        #: only (BERT-style models, checked at load time; see the module notes). Set it to
        #: ``False`` for the model's own forward pass.
        self.pll_fast_path = self._pll_fast_path_matches()
        #: How the loader made this scorer (set by :func:`load_scorer`): what a worker process of
        #: a distributed backend loads its own copy from.
        self.load_spec: ModelSpec | None = None

    def score(
        self, sentences: Sequence[str], method: ScoringMethod, *, progress: bool = False
    ) -> SentenceScores:
        """Score each sentence with ``method`` (one of :attr:`methods`).

        Parameters
        ----------
        sentences
            The sentences (a list; one string is refused, not split into characters).
        method
            ``aul``, ``aula``, ``pll`` (masked models) or ``causal_sum``, ``causal_mean``.
        progress
            Show a progress bar over the forward-pass rows.

        Raises
        ------
        EmptyInputError
            If there are no sentences, or one is blank or has no token to score.
        TargetError
            If a sentence is longer than the model's maximum.
        WordlensError
            If the model does not support ``method``, or a sentence is not a string.
        """
        return self.score_methods(sentences, [method], progress=progress)[method]

    def score_methods(
        self, sentences: Sequence[str], methods: Sequence[ScoringMethod], *, progress: bool = False
    ) -> dict[ScoringMethod, SentenceScores]:
        """Score each sentence with each of ``methods``; methods that read the same forward
        passes share them (``causal_sum`` and ``causal_mean`` differ only in the reduction).

        Returns
        -------
        dict
            Method → :class:`SentenceScores`, in the order of ``methods``. Raises as :meth:`score`.
        """
        _check_sentences(sentences)
        if self._bert_parts is not None:
            self._bert_parts.forget()
        unsupported = [method for method in methods if method not in self.methods]
        if unsupported:
            raise WordlensError(
                f"{self.info.name} is a {self.info.kind} language model: it scores with "
                f"{', '.join(self.methods)}, not {', '.join(map(repr, unsupported))}"
            )
        encoded = self.encode(sentences)
        n_tokens = np.array([len(item.scored) for item in encoded], dtype=np.int64)
        results: dict[ScoringMethod, SentenceScores] = {}
        for group in pass_groups(methods):
            totals = self._log_prob_totals(encoded, group[0], progress)
            for method in group:
                scores = totals / n_tokens if REDUCTIONS[method] == "mean" else totals
                results[method] = SentenceScores(method, scores, n_tokens)
        return {method: results[method] for method in methods}

    def _log_prob_totals(
        self, encoded: Sequence[_Sentence], method: ScoringMethod, progress: bool
    ) -> npt.NDArray[np.float64]:
        """Per sentence, the sum of the scored tokens' (attention-weighted, for AULA)
        log-probabilities ``[n_sentences]``, from the forward passes of ``method``."""
        rows, row_sentences = [], []
        for index, item in enumerate(encoded):
            item_rows = _rows(item, method)
            rows.extend(item_rows)
            row_sentences.extend([index] * len(item_rows))
        totals = np.zeros(len(encoded), dtype=np.float64)
        budget = pll_token_budget(self.token_budget) if method == "pll" else self.token_budget
        batches = length_batches([len(row.input_ids) for row in rows], budget)
        payloads = [
            LogProbBatch(tuple(rows[index] for index in batch), weighted=method == "aula")
            for batch in batches
        ]
        # the batches run on the current backend; sums are accumulated in batch order, so the
        # totals do not depend on which batch finished first
        results = in_order(current_backend().map(log_probs_batch, self, payloads))
        with progress_bar(progress, len(rows), f"{method} {self.info.name}") as advance:
            for index, values in results:
                batch, batch_rows = batches[index], payloads[index].rows
                reads_per_row = [len(row.reads) for row in batch_rows]
                read_sentences = np.repeat([row_sentences[i] for i in batch], reads_per_row)
                np.add.at(totals, read_sentences, values)
                advance(len(batch_rows))
        return totals

    def encode(self, sentences: Sequence[str]) -> list[_Sentence]:
        """Tokenize the sentences (no truncation; BOS prepended when set) and find the positions
        to score: the non-special tokens, minus a causal model's first position (nothing
        precedes it)."""
        batch = self.tokenizer(
            list(sentences),
            add_special_tokens=True,
            truncation=False,
            return_special_tokens_mask=True,
        )
        first_scorable = 1 if self.info.kind == "causal" else 0
        encoded = []
        for index, (sentence, ids, special) in enumerate(
            zip(sentences, batch["input_ids"], batch["special_tokens_mask"], strict=True)
        ):
            ids, special = list(ids), list(special)
            if self.bos_token_id is not None:
                ids, special = [self.bos_token_id, *ids], [1, *special]
            if self.max_length is not None and len(ids) > self.max_length:
                raise TargetError(
                    f"sentence {index} has {len(ids)} tokens, more than {self.info.name}'s "
                    f"maximum of {self.max_length}: {sentence[:80]!r}..."
                )
            scored = tuple(p for p in range(first_scorable, len(ids)) if not special[p])
            if not scored:
                raise EmptyInputError(f"sentence {index} ({sentence!r}) has no tokens to score")
            encoded.append(_Sentence(tuple(ids), scored))
        return encoded

    @torch.inference_mode()
    def read_log_probs(
        self, rows: Sequence[ModelRow], *, weighted: bool = False
    ) -> npt.NDArray[np.float64]:
        """One forward pass over ``rows`` (right-padded into one batch): ``log P(target)`` at every
        read position, in row order ``[n_reads]`` float64 (log-softmax in float32); with
        ``weighted`` (AULA) times the attention each token receives, from a pass with eager
        attention (the one that returns attention probabilities).

        Raises
        ------
        WordlensError
            If ``weighted`` and the model returns no attention weights.
        """
        batch = read_batch(rows, self.pad_token_id, self.mask_token_id)
        if not weighted:
            return self.batch_log_probs(batch)
        count_pass(batch.lengths, batch.input_ids.shape[1])
        input_ids, attention_mask, read_rows, read_columns, targets = self._tensors(batch)
        with _eager_attention(self.model):
            outputs, logits = self._forward(
                input_ids,
                attention_mask,
                read_rows,
                read_columns,
                select=self.projects_read_positions,
                attentions=True,
            )
        if not outputs.attentions:
            raise WordlensError(f"{self.info.name} does not return attention weights (AULA)")
        weights = attention_received(outputs.attentions, attention_mask)[read_rows, read_columns]
        values = _target_log_probs(logits, targets).cpu().double() * weights.cpu().double()
        result: npt.NDArray[np.float64] = values.numpy()
        return result

    @torch.inference_mode()
    def batch_log_probs(self, batch: ReadBatch) -> npt.NDArray[np.float64]:
        """One forward pass over a :class:`ReadBatch`: ``log P(target)`` at every read position
        ``[n_reads]`` float64 (log-softmax in float32, over the vocabulary at the read positions
        only).

        Masked copies read once each at a mask token (PLL, the masked passes of eq. 6 in
        :mod:`wordlens.models.contextual_conditionals`) run :func:`masked_position_logits` when
        :attr:`pll_fast_path` is on; other rows the model's forward pass.
        """
        count_pass(batch.lengths, batch.input_ids.shape[1])
        input_ids, attention_mask, read_rows, read_columns, targets = self._tensors(batch)
        if self._reads_masked_copies(input_ids, read_rows, read_columns):
            lengths = torch.from_numpy(batch.lengths).to(self.device)
            logits = masked_position_logits(
                cast(BertStyleParts, self._bert_parts),
                input_ids,
                read_columns,
                None if bool((lengths == input_ids.shape[1]).all()) else lengths,
            )
        else:
            _, logits = self._forward(
                input_ids,
                attention_mask,
                read_rows,
                read_columns,
                select=self.projects_read_positions,
            )
        result: npt.NDArray[np.float64] = _target_log_probs(logits, targets).cpu().double().numpy()
        return result

    def _tensors(
        self, batch: ReadBatch
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """``input_ids`` and ``attention_mask`` ``[rows, width]``, ``read_rows``, ``read_columns``
        and ``targets`` ``[n_reads]`` of a batch, on the scorer's device."""
        width = batch.input_ids.shape[1]
        attention_mask = torch.from_numpy(np.arange(width) < batch.lengths[:, None]).long()
        device = self.device
        return (
            torch.from_numpy(batch.input_ids).to(device),
            attention_mask.to(device),
            torch.from_numpy(batch.read_rows).to(device),
            torch.from_numpy(batch.read_columns).to(device),
            torch.from_numpy(batch.targets).to(device),
        )

    def _reads_masked_copies(
        self, input_ids: torch.Tensor, read_rows: torch.Tensor, read_columns: torch.Tensor
    ) -> bool:
        """Whether a batch goes through :func:`masked_position_logits`: the fast path is on and
        every row is read once, in order, at a mask token."""
        rows = input_ids.shape[0]
        return (
            self.pll_fast_path
            and self.projects_read_positions
            and len(read_rows) == rows
            and torch.equal(read_rows, torch.arange(rows, device=read_rows.device))
            and bool(input_ids[read_rows, read_columns].eq(cast(int, self.mask_token_id)).all())
        )

    def _forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        read_rows: torch.Tensor,
        read_columns: torch.Tensor,
        *,
        select: bool,
        attentions: bool = False,
    ) -> tuple[Any, torch.Tensor]:
        """The model's outputs and the logits ``[n_reads, vocabulary]`` at the read positions;
        with ``select`` only those positions go through the output embedding."""
        options: dict[str, Any] = {"output_attentions": True} if attentions else {}
        if self.info.kind == "causal":
            options["use_cache"] = False
        if not select:
            outputs = self.model(input_ids=input_ids, attention_mask=attention_mask, **options)
            return outputs, outputs.logits[read_rows, read_columns]
        with _projecting_only(self._projection, read_rows, read_columns):
            outputs = self.model(input_ids=input_ids, attention_mask=attention_mask, **options)
        return outputs, outputs.logits

    @torch.inference_mode()
    def _read_projection_matches(self, head: torch.nn.Module) -> bool:
        """Whether projecting only the read positions through ``head`` gives the full pass's
        logits there, checked on one probe sentence (it does when the head is a module that the
        model applies once, to the final hidden states, as in BERT, RoBERTa or Llama); if so,
        ``head`` becomes the projection that :meth:`_forward` restricts."""
        (probe,) = self.encode([_PROBE_SENTENCE])
        input_ids = torch.tensor([probe.input_ids], device=self.device)
        attention_mask = torch.ones_like(input_ids)
        # every other position, last first: a selection that is neither all rows nor in order
        columns = torch.arange(input_ids.shape[1] - 1, -1, -2, device=self.device)
        rows = torch.zeros_like(columns)
        _, full = self._forward(input_ids, attention_mask, rows, columns, select=False)
        self._projection = head
        try:
            _, selected = self._forward(input_ids, attention_mask, rows, columns, select=True)
        except (RuntimeError, IndexError, ValueError, TypeError):
            selected = None
        if selected is not None and _same_logits(selected, full):
            return True
        self._projection = None
        return False

    @torch.inference_mode()
    def _pll_fast_path_matches(self) -> bool:
        """Whether :func:`masked_position_logits` gives the model's own logits on every masked
        copy of a probe sentence (``False`` for a model that is not BERT-style)."""
        if self._bert_parts is None:
            return False
        (probe,) = self.encode([_PROBE_SENTENCE])
        positions = torch.tensor(probe.scored, device=self.device)
        input_ids = torch.tensor([probe.input_ids] * len(positions), device=self.device)
        input_ids[torch.arange(len(positions)), positions] = cast(int, self.mask_token_id)
        full = self.model(input_ids=input_ids).logits[torch.arange(len(positions)), positions]
        try:
            selected = masked_position_logits(self._bert_parts, input_ids, positions)
        except (RuntimeError, IndexError, ValueError, TypeError, AttributeError):
            return False
        return _same_logits(selected, full)


def _same_logits(selected: torch.Tensor, full: torch.Tensor) -> bool:
    """Whether a probe's two logit tensors agree (shape, and values to 1e-3)."""
    return selected.shape == full.shape and bool(
        torch.allclose(selected.float(), full.float(), rtol=1e-3, atol=1e-3)
    )


def _language_model_heads(model: Any) -> list[torch.nn.Module]:
    """Where the scorer may apply the vocabulary projection to the read positions alone, first
    choice first: the model's one top-level module (other than its base model) that holds the
    output embedding — BERT's ``cls``, RoBERTa's ``lm_head``: transform and decoder — then the
    output embedding itself."""
    projection = model.get_output_embeddings()
    if not isinstance(projection, torch.nn.Module):
        return []
    base = getattr(model, "base_model", None)
    heads = [
        child
        for child in model.children()
        if child is not base and any(module is projection for module in child.modules())
    ]
    return (
        [*heads[:1], projection] if len(heads) == 1 and heads[0] is not projection else [projection]
    )


def log_probs_batch(scorer: LMScorer, payload: LogProbBatch) -> npt.NDArray[np.float64]:
    """The backend operation of scoring passes (:mod:`wordlens.models.backend`): ``log P(target)``
    at every read position of the rows, in row order ``[n_reads]``
    (:meth:`LMScorer.read_log_probs`)."""
    return scorer.read_log_probs(payload.rows, weighted=payload.weighted)


def read_batch_log_probs(scorer: LMScorer, payload: ReadBatch) -> npt.NDArray[np.float64]:
    """The backend operation of scoring passes given as arrays (:mod:`wordlens.models.backend`):
    ``log P(target)`` at every read position ``[n_reads]`` (:meth:`LMScorer.batch_log_probs`)."""
    return scorer.batch_log_probs(payload)


def _target_log_probs(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """``log_softmax(logits)[i, targets[i]]`` ``[n_reads]`` in float32, from logits
    ``[n_reads, vocabulary]``."""
    return torch.log_softmax(logits.float(), dim=-1).gather(1, targets[:, None])[:, 0]


def _check_sentences(sentences: Sequence[str]) -> None:
    """Refuse a bare string, an empty list, non-strings (a missing CSV cell reads as NaN) and
    blank sentences, naming the first offenders."""
    if isinstance(sentences, str):
        raise WordlensError("score() takes a list of sentences, not one string: [sentence]")
    if len(sentences) == 0:
        raise EmptyInputError("no sentences to score")
    not_text = [index for index, sentence in enumerate(sentences) if not isinstance(sentence, str)]
    if not_text:
        raise WordlensError(f"sentence(s) {not_text[:10]} are not strings (missing values?)")
    blank = [index for index, sentence in enumerate(sentences) if not sentence.strip()]
    if blank:
        raise EmptyInputError(f"sentence(s) {blank[:10]} are empty or blank")


def _rows(sentence: _Sentence, method: ScoringMethod) -> list[ModelRow]:
    """The forward-pass rows that score one sentence: one masked copy per token for PLL; else the
    sentence itself, read at each scored token (a causal LM predicts it one position earlier)."""
    ids = sentence.input_ids
    if method == "pll":
        return [ModelRow(ids, (p,), (ids[p],), masked=p) for p in sentence.scored]
    targets = tuple(ids[position] for position in sentence.scored)
    shift = 1 if method in CAUSAL_METHODS else 0
    return [ModelRow(ids, tuple(p - shift for p in sentence.scored), targets)]


def _max_length(config: Any, tokenizer: Any) -> int | None:
    """The longest input the model takes: the smaller of its position embeddings and the
    tokenizer's ``model_max_length`` (ignoring transformers' "no limit" sentinel)."""
    limits = (
        getattr(config, "max_position_embeddings", None),
        getattr(tokenizer, "model_max_length", None),
    )
    return min((int(n) for n in limits if isinstance(n, int) and 0 < n < 1_000_000), default=None)


def load_scorer(
    spec: str,
    *,
    device: str = "auto",
    dtype: str = "float32",
    token_budget: int | None = None,
    trust_remote_code: bool = False,
    allow_new_head: bool = False,
    bos: BosPolicy = "auto",
    revision: str | None = None,
    allow_pickle: bool = False,
) -> LMScorer:
    """Load a masked or causal language model to score sentences.

    The spec is resolved by :func:`wordlens.models.loading.load_model` (aliases, local model
    directories, ``.gguf`` files — dequantized once and cached — and hub ids), whose tokenizer,
    BOS choice and identity the scorer keeps (its base-model weights are released first, so
    loading costs one extra read of the weights, not twice the memory); the model is then loaded
    from the same source with its ``*ForCausalLM`` (causal models) or ``*ForMaskedLM`` class
    (masked LMs and plain encoders).

    Parameters
    ----------
    spec
        An alias, a local path or a Hugging Face hub id.
    device
        Torch device, or ``"auto"`` (as :func:`~wordlens.models.loading.load_model`).
    dtype
        Weights' dtype: ``float32``, ``float16`` or ``bfloat16`` (log-softmax is float32 anyway).
    token_budget
        Upper bound on a batch's padded tokens; default 1,024 on CPU, sized from free memory on
        accelerators (:func:`wordlens.models.budget.default_token_budget`).
    trust_remote_code
        Allow a model's own code (its config's ``auto_map``) to run (off by default: such a
        model is refused). The class that scores is recorded in ``info.details["model_class"]``.
    allow_new_head
        Score even when weights were newly initialized;
        ``info.details["newly_initialized_weights"]`` then lists them (``[]`` for a fully
        pretrained model).
    bos
        Causal models: prepend BOS when the tokenizer adds none (``auto``), ``always`` or
        ``never`` (as :func:`~wordlens.models.loading.load_model`); masked LMs ignore it.
    revision
        Hub revision (branch, tag or commit) of a hub id, as
        :func:`~wordlens.models.loading.load_model`.
    allow_pickle
        Load weights stored only as a pickle, tensors only, as
        :func:`~wordlens.models.loading.load_model`.

    Raises
    ------
    UntrainedHeadError
        If loading the language model initialized weights the checkpoint lacks (or has in another
        shape) and ``allow_new_head`` is off.
    ModelFilesError
        If a masked LM's tokenizer has no mask token (or the files are incomplete, as
        :func:`~wordlens.models.loading.load_model` reports).
    WordlensError
        If the model is static or an encoder-decoder, has no language-model class in transformers,
        or ``dtype`` is unknown (an unknown or absent ``device``: its subclass ``DeviceError``).
    """
    device = resolve_device(device)
    with quiet_transformers(), warnings.catch_warnings():
        # the base model's note: its pooler and the checkpoint's head are not what scores
        warnings.simplefilter("ignore", LoadNoteWarning)
        embedder = load_model(
            spec,
            device=device,
            dtype=_check_dtype(dtype),
            bos=bos,
            token_budget=token_budget,
            trust_remote_code=trust_remote_code,
            revision=revision,
            allow_pickle=allow_pickle,
        )
    base = embedder.info
    if not isinstance(embedder, HFEmbedder) or base.kind == "encoder-decoder":
        raise WordlensError(
            f"{base.name} is a {base.kind} model; sentence scoring needs a masked or causal "
            "language model"
        )
    tokenizer, bos_token_id = embedder.tokenizer, embedder.bos_token_id
    source = embedder.load_spec.source if embedder.load_spec is not None else spec
    del embedder  # its base model's weights; the language model is loaded next
    kind: ModelKind = "causal" if base.kind == "causal" else "masked"
    with quiet_transformers():
        model, new_weights = _load_language_model(base, kind, trust_remote_code, allow_pickle)
    if new_weights and not allow_new_head:
        raise UntrainedHeadError(_untrained_message(base, type(model).__name__, new_weights))
    model.eval().to(device)
    info = _scorer_info(base, kind, type(model).__name__, new_weights)
    # the class that scores, not the base model's (a model's own code with trust_remote_code)
    info.details["model_class"] = f"{type(model).__module__}.{type(model).__qualname__}"
    scorer = LMScorer(
        model, tokenizer, info, bos_token_id=bos_token_id, token_budget=token_budget, device=device
    )
    call = {
        "device": device,
        "dtype": dtype,
        "token_budget": token_budget,
        "trust_remote_code": trust_remote_code,
        "allow_new_head": allow_new_head,
        "revision": revision,
        "allow_pickle": allow_pickle,
    }
    scorer.load_spec = ModelSpec.of("scorer", source, call)
    return scorer


def _check_dtype(dtype: str) -> DType:
    choices = get_args(DType)
    if dtype not in choices:
        raise WordlensError(f"unknown dtype {dtype!r}; choose one of {', '.join(choices)}")
    return cast(DType, dtype)


def _load_language_model(
    base: ModelInfo, kind: ModelKind, trust_remote_code: bool, allow_pickle: bool
) -> tuple[Any, list[str]]:
    """The model with its language-model head, and the names of the weights transformers
    initialized because the checkpoint lacks them (or holds them in another shape); its weights
    files as :func:`~wordlens.models.loading.load_model` reads them (``allow_pickle``)."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    auto: Any = AutoModelForCausalLM if kind == "causal" else AutoModelForMaskedLM
    options: dict[str, Any] = {
        "dtype": getattr(torch, base.details["dtype"]),
        "revision": base.details.get("identity", {}).get("revision"),
        "trust_remote_code": trust_remote_code,
        "output_loading_info": True,
        **weights_formats(allow_pickle),
    }
    source = base.details["source"]
    with weights_refused(base.name, source, allow_pickle):
        try:
            model, loading = auto.from_pretrained(source, **options)
        except ValueError as error:  # a configuration with no such head in transformers
            reason = str(error).splitlines()[0]
            raise WordlensError(
                f"{base.name} ({base.details.get('architecture')}) cannot be loaded as a {kind} "
                f"language model: {reason}"
            ) from error
    mismatched = {name for name, *_shapes in loading["mismatched_keys"]}
    return model, sorted({*loading["missing_keys"], *mismatched})


def _untrained_message(base: ModelInfo, model_class: str, new_weights: Sequence[str]) -> str:
    shown = ", ".join(new_weights[:6]) + (
        f" and {len(new_weights) - 6} more" if len(new_weights) > 6 else ""
    )
    return (
        f"loading {base.name} as {model_class} initialized {len(new_weights)} weight(s) that its "
        f"checkpoint ({base.details['source']}) lacks: {shown}. Its language-model head is not "
        "pretrained, so its likelihoods would come from random weights. Use a checkpoint that "
        "includes its pretrained head (a *ForMaskedLM or *ForCausalLM model), or pass "
        "allow_new_head=True to score anyway (the scorer's info then lists these weights)."
    )


def _scorer_info(
    base: ModelInfo, kind: ModelKind, model_class: str, new_weights: list[str]
) -> ModelInfo:
    """The base model's identity, with the language-model class, the newly initialized weights
    and the scoring conventions; the fingerprint covers all of them."""
    scoring = {"version": SCORING_VERSION, "reductions": dict(REDUCTIONS)}
    fingerprint_fields = {
        "model": base.fingerprint,
        "architecture": model_class,
        "newly_initialized_weights": new_weights,
        "scoring": scoring,
    }
    fingerprint = hashlib.sha256(
        json.dumps(fingerprint_fields, sort_keys=True).encode()
    ).hexdigest()[:16]
    details = {
        **base.details,
        "architecture": model_class,
        "newly_initialized_weights": new_weights,
        "scoring": scoring,
    }
    return ModelInfo(base.name, kind, base.n_layers, base.hidden_size, fingerprint, details)
