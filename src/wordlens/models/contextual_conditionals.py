"""Word conditionals ``P(b | a)`` from a masked or causal language model over corpus paragraphs.

Zhang et al. (2021, "Circles are like Ellipses, or Ellipses are like Circles?", section 4, eq. 6)
estimate the evocation probability of a response ``b`` given a cue ``a`` from a masked language
model, by averaging over the paragraphs ``c`` of a corpus. The equation was lost in the text
extraction of the paper; from its text ("we introduce a random variable c to denote a paragraph as
context ... for c that does not contain b, P(b|c) = 0 ...; P(c|a) is estimated as 1/|C(a)| and
P(b|c) is estimated by masking b from the whole paragraph c and then getting the probability of b
from the Soft-max output of a pre-trained BERT-like masked language model") it reads

.. math::

    P(b \\mid a) = \\sum_{c} P(b \\mid c) P(c \\mid a)
                 = \\frac{1}{|C(a)|} \\sum_{c \\in C(a, b)} P_{MLM}(b \\mid c)    \\qquad (6)

with ``C(a)`` the contexts that contain ``a`` and ``C(a, b)`` those that contain both words, found
with a paragraph index (:mod:`wordlens.contexts.paragraphs`). The paper adds three rules, kept
here:

- "When there are N words of b in c, we only mask the one that is being predicted and repeat the
  prediction for each b": each occurrence of ``b`` is masked alone (the others stay visible), one
  forward pass each, and ``P(b | c)`` is the **mean** of the N probabilities (a mean keeps
  ``P(b | c)`` a probability; the paper does not say mean or sum).
- "Word a can also appear N times in c and we regard [them] as N contexts for a": with
  ``cue_count="occurrences"`` (the default) a paragraph holding ``a`` N times counts N times, in
  ``|C(a)|`` (all occurrences of ``a`` in the corpus) and in the sum (weight N). Appendix B
  instead counts "all matched documents" for ``|C(a)|``; ``cue_count="paragraphs"`` does that
  (weight 1, ``|C(a)|`` = paragraphs containing ``a``).
- "We append [CLS] to the beginning of a paragraph and [SEP] after each sentence": the masked
  input is ``[CLS] s_1 [SEP] s_2 [SEP] ... s_n [SEP]`` (the index stores the sentence ends).

``P(a | b)`` is the same with the roles swapped, over the same ``C(a, b)``: both directions come
out of one run. Pairs whose words never co-occur get ``P = 0``; a word absent from the corpus gives
``NaN`` (``0 / 0``).

Words and subtokens
    The word's subtokens in a paragraph are the tokens whose offsets overlap its span
    (:func:`wordlens.models.align.subtoken_span`), with the target token(s) as spelled in the text.
    The paper keeps only words in every model's vocabulary (its eq. 9); :func:`single_token_words`
    is that filter (apply it to the pairs first). A word of several subtokens is still scored, the
    simple way: all its subtokens are masked together and their log-probabilities summed (a
    PLL-style product, not a joint probability).

Long paragraphs
    A masked input longer than the model's maximum is cut to a window of ``max_length - 2``
    tokens centred on the masked word, between ``[CLS]`` and ``[SEP]``.

Batches
    The passes' rows are built as arrays (:func:`pass_rows`): the paragraphs are tokenized in
    one call and stored once, and a batch's inputs, masks and read positions are gathered by
    indexing. A masked model's rows are masked copies read at one position, batched as PLL's
    (:func:`~wordlens.models.scoring.pll_token_budget`) and run through
    :meth:`~wordlens.models.scoring.LMScorer.batch_log_probs`: for BERT-style models the last
    layer and the vocabulary projection (with its log-softmax) are computed at the masked
    positions only.

Causal language models
    ``P(b | c)`` is ``P(b | tokens of c before b)`` (left context only, BOS first; the text after
    ``b`` is not seen). A left context longer than the model's maximum keeps its last tokens. As
    one forward pass over a paragraph gives the next-token distributions at every position, all
    occurrences of all words in a paragraph share one pass (a "row"); masked models need one row
    per occurrence.

The shared pass and the work list
    The masked pass over paragraph ``c`` with an occurrence of ``b`` masked gives ``P(b | c)``
    whatever the cue: it serves ``P(b | a)`` for every cue ``a`` in ``c`` and ``P(b | x)`` for
    every pair ``(b, x)`` co-occurring there. :func:`build_worklist` lists each distinct pass once
    (paragraph, character span, word) in a self-contained directory (Parquet files with the
    paragraph texts, pairs and contexts, then ``manifest.json`` last: a work list without it is
    incomplete). :func:`run_shard` runs one of N contiguous shards (one process each), writing
    finished batches atomically, many to a file, and the shard's results file at the end; a
    rerun skips finished shards and resumes an interrupted one from its finished batches, using
    the batch plan stored with them. :func:`merge_shards` then :func:`estimate_conditionals`
    give ``P(b|a)`` and ``P(a|b)`` per pair with ``|C(a)|``, ``|C(b)|``, ``|C(a,b)|`` and the
    distance in words between ``a`` and ``b`` (per context the smallest one, then the mean over
    contexts: the two factors of the paper's Figure 2). :func:`per_pair_conditionals` is the
    paper's procedure, each pair with its own passes, the reference the shared passes are tested
    against.

References
----------
Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or Ellipses
are like Circles? Measuring the Degree of Asymmetry of Static and Contextual Word Embeddings and
the Implications to Representation Learning. *AAAI 2021* (section 4, eqs. 6 and 9; Appendix B).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from wordlens._files import atomic_write_text, atomic_writer
from wordlens.contexts import Target
from wordlens.contexts.paragraphs import Hit, ParagraphIndex, index_word, word_tokens
from wordlens.errors import EmptyInputError, ModelFilesError, TargetError, WordlensError
from wordlens.models.align import subtoken_span
from wordlens.models.backend import current_backend
from wordlens.models.hf import tokenize
from wordlens.models.scoring import (
    LMScorer,
    ReadBatch,
    length_batches,
    load_scorer,
    pll_token_budget,
    read_batch_log_probs,
)
from wordlens.progress import progress_bar

CueCount = Literal["occurrences", "paragraphs"]
"""How ``|C(a)|`` and each context's weight count a cue repeated in a paragraph (module notes)."""

#: Bumped when the work-list files change; part of the work list's identity.
WORKLIST_VERSION = 1
_MANIFEST = "manifest.json"
_TABLES = ("pairs", "contexts", "passes", "paragraphs")


# --- the work list -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class WorkList:
    """The passes that estimate eq. 6 for a list of pairs, as written to ``directory``.

    Attributes
    ----------
    directory
        Where the files are.
    pairs
        One row per pair: ``pair`` (id), ``cue``, ``response`` (lower case), and for each word
        ``cue_paragraphs``, ``cue_occurrences``, ``response_paragraphs``,
        ``response_occurrences`` (its counts in the whole index: ``|C(.)|`` either way).
    contexts
        One row per pair and paragraph of ``C(a, b)``: ``pair``, ``paragraph``,
        ``cue_count``, ``response_count`` (occurrences of each word there) and ``distance``
        (the smallest distance in words between an occurrence of each).
    passes
        One row per distinct pass: ``pass`` (id, the row number), ``paragraph``, ``start``,
        ``end`` (the occurrence's character span) and ``word``; sorted by paragraph and start.
    paragraphs
        ``paragraph``, ``text`` and ``sentence_ends`` of every paragraph a pass reads.
    identity
        A hash of the passes and paragraphs: what shard results are checked against.
    max_contexts
        The cap on contexts per pair the list was built with (``None``: all).
    """

    directory: Path
    pairs: pd.DataFrame
    contexts: pd.DataFrame
    passes: pd.DataFrame
    paragraphs: pd.DataFrame
    identity: str
    max_contexts: int | None


def build_worklist(
    pairs: Sequence[tuple[str, str]],
    index: ParagraphIndex,
    directory: Path,
    *,
    max_contexts: int | None = None,
) -> WorkList:
    """List the distinct passes that eq. 6 needs for ``pairs``, in both directions, and write
    them to ``directory`` (see the module notes).

    Parameters
    ----------
    pairs
        ``(cue, response)`` pairs of single words (matched case-insensitively), e.g.
        ``list(zip(norms.edges["cue"], norms.edges["response"]))``.
    index
        The paragraph index giving ``C(a)`` and ``C(a, b)``.
    directory
        Where to write the work list (created; files there are replaced).
    max_contexts
        Use only the first ``max_contexts`` paragraphs of each ``C(a, b)`` (in index order) — for
        benchmarks: the estimate then leaves out the other contexts' terms.

    Raises
    ------
    EmptyInputError
        If there are no pairs.
    TargetError
        If a word is not a single word, or a pair's two words are the same.
    WordlensError
        If ``max_contexts`` is below 1.
    """
    checked = _check_pairs(pairs)
    if max_contexts is not None and max_contexts < 1:
        raise WordlensError(f"max_contexts must be at least 1, not {max_contexts}")
    pair_rows, context_rows = [], []
    positions: dict[tuple[int, str], tuple[int, ...]] = {}
    for pair, (cue, response) in enumerate(checked):
        for hit in index.hits(cue, response, limit=max_contexts):
            context_rows.append(_context_row(pair, hit, cue, response))
            positions.update(
                {(hit.paragraph, word): hit.positions[word] for word in (cue, response)}
            )
        pair_rows.append((pair, cue, response, *_counts(index, cue), *_counts(index, response)))
    paragraph_ids = sorted({paragraph for paragraph, _ in positions})
    texts = dict(zip(paragraph_ids, index.texts(paragraph_ids), strict=True))
    paragraphs = pd.DataFrame(
        {
            "paragraph": np.array(paragraph_ids, dtype=np.int64),
            "text": [texts[i] for i in paragraph_ids],
            "sentence_ends": [list(ends) for ends in index.sentence_ends(paragraph_ids)],
        }
    )
    passes = _passes_table(positions, texts)
    work = WorkList(
        Path(directory),
        pd.DataFrame(pair_rows, columns=_PAIR_COLUMNS),
        pd.DataFrame(context_rows, columns=_CONTEXT_COLUMNS),
        passes,
        paragraphs,
        _identity(passes, paragraphs),
        max_contexts,
    )
    _write_worklist(work)
    return load_worklist(work.directory)


_PAIR_COLUMNS = [
    "pair",
    "cue",
    "response",
    "cue_paragraphs",
    "cue_occurrences",
    "response_paragraphs",
    "response_occurrences",
]
_CONTEXT_COLUMNS = ["pair", "paragraph", "cue_count", "response_count", "distance"]


def _check_pairs(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    if isinstance(pairs, str) or len(pairs) == 0:
        raise EmptyInputError("no (cue, response) pairs")
    checked = []
    for number, pair in enumerate(pairs):
        if len(pair) != 2:
            raise TargetError(f"pair {number} is not a (cue, response) pair: {pair!r}")
        cue, response = (index_word(word) for word in pair)
        if cue == response:
            raise TargetError(f"pair {number} has the same word twice: {pair!r}")
        checked.append((cue, response))
    return checked


def _counts(index: ParagraphIndex, word: str) -> tuple[int, int]:
    return index.count(word), index.count(word, occurrences=True)


def _context_row(pair: int, hit: Hit, cue: str, response: str) -> tuple[int, int, int, int, int]:
    cue_at, response_at = np.array(hit.positions[cue]), np.array(hit.positions[response])
    distance = int(np.abs(np.subtract.outer(cue_at, response_at)).min())
    return pair, hit.paragraph, len(cue_at), len(response_at), distance


def _passes_table(
    positions: Mapping[tuple[int, str], tuple[int, ...]], texts: Mapping[int, str]
) -> pd.DataFrame:
    """One row per occurrence of a word in a paragraph that some pair needs masked."""
    spans = {
        paragraph: [token.span() for token in word_tokens(texts[paragraph])] for paragraph in texts
    }
    rows = [
        (paragraph, *spans[paragraph][position], word)
        for (paragraph, word), found in positions.items()
        for position in found
    ]
    table = pd.DataFrame(rows, columns=["paragraph", "start", "end", "word"])
    table = table.sort_values(["paragraph", "start"], kind="stable", ignore_index=True)
    table.insert(0, "pass", np.arange(len(table), dtype=np.int64))
    return table.astype({"paragraph": np.int64, "start": np.int32, "end": np.int32})


def _identity(passes: pd.DataFrame, paragraphs: pd.DataFrame) -> str:
    digest = hashlib.sha256(f"worklist-{WORKLIST_VERSION}".encode())
    digest.update(pd.util.hash_pandas_object(passes, index=False).to_numpy().tobytes())
    texts = paragraphs[["paragraph", "text"]]
    digest.update(pd.util.hash_pandas_object(texts, index=False).to_numpy().tobytes())
    return digest.hexdigest()[:32]


def _write_worklist(work: WorkList) -> None:
    """Write the tables, then the manifest (last: its presence marks a complete work list)."""
    work.directory.mkdir(parents=True, exist_ok=True)
    (work.directory / _MANIFEST).unlink(missing_ok=True)
    for name in _TABLES:
        with atomic_writer(work.directory / f"{name}.parquet") as out:
            getattr(work, name).to_parquet(out, index=False)
    manifest = {
        "version": WORKLIST_VERSION,
        "identity": work.identity,
        "max_contexts": work.max_contexts,
        "rows": {name: len(getattr(work, name)) for name in _TABLES},
    }
    atomic_write_text(work.directory / _MANIFEST, json.dumps(manifest, indent=1))


def load_worklist(directory: Path) -> WorkList:
    """Read a work list written by :func:`build_worklist`.

    Raises
    ------
    WordlensError
        If the directory holds no complete work list of this version.
    """
    directory = Path(directory)
    try:
        manifest = json.loads((directory / _MANIFEST).read_text())
        tables = {name: pd.read_parquet(directory / f"{name}.parquet") for name in _TABLES}
    except (OSError, ValueError, pa.ArrowException) as error:
        raise WordlensError(
            f"{directory} holds no complete work list ({error}); build it again"
        ) from error
    if manifest.get("version") != WORKLIST_VERSION:
        raise WordlensError(f"{directory}: work list version {manifest.get('version')}, rebuild it")
    tables["paragraphs"]["sentence_ends"] = [
        tuple(int(end) for end in ends) for ends in tables["paragraphs"]["sentence_ends"]
    ]
    return WorkList(
        directory, **tables, identity=manifest["identity"], max_contexts=manifest["max_contexts"]
    )


# --- model rows ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PassRows:
    """The forward-pass rows that score a list of passes, as arrays (see the module notes): for a
    masked model one row per pass and subtoken (a word of ``k`` subtokens is masked whole in
    ``k`` identical rows, each read at one of them), for a causal one a row per paragraph and one
    per left window.

    Rows share their tokens: a masked row is its paragraph's encoding, with the mask placed when
    a batch is built (:meth:`batch`), so a paragraph is stored once however many passes it has.

    Attributes
    ----------
    tokens
        int64 ``[n_tokens]``: the encoded paragraphs one after another, then the windows of the
        rows cut to the model's maximum length.
    offsets, lengths
        int64 ``[n_rows]``: row ``r`` is ``tokens[offsets[r] : offsets[r] + lengths[r]]``.
    masked
        int64 ``[n_rows, 2]``: the positions ``[first, last)`` of the row replaced by the mask
        token (``[0, 0)``, none, for causal models).
    read_starts
        int64 ``[n_rows + 1]``: row ``r`` reads ``read_columns[read_starts[r]:read_starts[r + 1]]``.
    read_columns, targets, read_passes
        int64 ``[n_reads]``: the position read, the token expected there and the pass (row of the
        pass list) each read belongs to; a pass's log-probability is the sum of its reads.
    """

    tokens: npt.NDArray[np.int64]
    offsets: npt.NDArray[np.int64]
    lengths: npt.NDArray[np.int64]
    masked: npt.NDArray[np.int64]
    read_starts: npt.NDArray[np.int64]
    read_columns: npt.NDArray[np.int64]
    targets: npt.NDArray[np.int64]
    read_passes: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.offsets)

    def reads(self, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.int64]:
        """The read indices ``[n_reads of rows]`` of ``rows``, row after row."""
        first = self.read_starts[rows]
        counts = self.read_starts[rows + 1] - first
        before = np.cumsum(counts) - counts
        return np.repeat(first - before, counts) + np.arange(int(counts.sum()))

    def batch(
        self, rows: npt.NDArray[np.intp], pad_token_id: int, mask_token_id: int | None
    ) -> ReadBatch:
        """``rows`` as one right-padded forward pass, masks in place (vectorised: no Python step
        per row)."""
        lengths = self.lengths[rows]
        columns = np.arange(int(lengths.max()))
        within = columns < lengths[:, None]  # [rows, width]
        at = np.minimum(self.offsets[rows, None] + columns, len(self.tokens) - 1)
        input_ids = np.where(within, self.tokens[at], pad_token_id)
        first, last = self.masked[rows, :1], self.masked[rows, 1:]
        if mask_token_id is not None:
            input_ids[(columns >= first) & (columns < last)] = mask_token_id
        reads = self.reads(rows)
        counts = self.read_starts[rows + 1] - self.read_starts[rows]
        return ReadBatch(
            input_ids,
            lengths,
            np.repeat(np.arange(len(rows), dtype=np.int64), counts),
            self.read_columns[reads],
            self.targets[reads],
        )

    def pass_sums(
        self, values: npt.NDArray[np.float64], n_passes: int
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
        """Each pass's log-probability (the sum of its reads' ``values [n_reads]``, in read order)
        and its number of subtokens, ``[n_passes]`` each."""
        sums = np.bincount(self.read_passes, weights=values, minlength=n_passes).astype(np.float64)
        return sums, np.bincount(self.read_passes, minlength=n_passes).astype(np.int64)


def pass_rows(
    scorer: LMScorer, passes: pd.DataFrame, paragraphs: Mapping[int, tuple[str, tuple[int, ...]]]
) -> PassRows:
    """The forward-pass rows that score ``passes`` (see :class:`PassRows`). Pass ``i`` is row
    ``i`` of ``passes``.

    The paragraphs are tokenized in one call, the ``[SEP]`` of each sentence end and the masks
    placed by array indexing, and each pass aligned to its subtokens by a sorted search over the
    tokens' character offsets: no Python step per pass or token.

    Parameters
    ----------
    scorer
        A masked or causal language model.
    passes
        ``paragraph``, ``start``, ``end`` per pass.
    paragraphs
        Paragraph id -> (text, sentence ends).
    """
    if len(passes) == 0:
        empty = np.empty(0, dtype=np.int64)
        return PassRows(
            empty,
            empty,
            empty,
            np.empty((0, 2), np.int64),
            np.zeros(1, np.int64),
            empty,
            empty,
            empty,
        )
    ids, where = np.unique(passes["paragraph"].to_numpy(dtype=np.int64), return_inverse=True)
    texts = [paragraphs[int(paragraph)][0] for paragraph in ids]
    encoded = _encode(scorer, texts, [paragraphs[int(paragraph)][1] for paragraph in ids])
    spans = _token_spans(
        encoded, texts, where, passes["start"].to_numpy(), passes["end"].to_numpy()
    )
    if scorer.info.kind == "causal":
        return _causal_rows(encoded, where, spans, scorer.max_length)
    return _masked_rows(encoded, where, spans, scorer.max_length)


@dataclass(frozen=True, eq=False)
class _Encoded:
    """Paragraphs encoded one after another: ``tokens`` and character ``offsets`` ``[n_tokens]``
    and ``[n_tokens, 2]`` (``(0, 0)`` for special tokens), paragraph ``p`` being
    ``[starts[p], starts[p + 1])``."""

    tokens: npt.NDArray[np.int64]
    offsets: npt.NDArray[np.int64]
    starts: npt.NDArray[np.int64]


def _flat(nested: Sequence[Sequence[Any]], width: int = 1) -> npt.NDArray[np.int64]:
    """Lists of ints (or of ``width``-tuples) concatenated into ``[total]`` (or
    ``[total, width]``), and nothing copied through Python objects per item."""
    total = sum(map(len, nested))
    items = itertools.chain.from_iterable(nested)
    if width > 1:
        items = itertools.chain.from_iterable(items)
    flat = np.fromiter(items, dtype=np.int64, count=total * width)
    return flat.reshape(-1, width) if width > 1 else flat


def _encode(scorer: LMScorer, texts: Sequence[str], ends: Sequence[Sequence[int]]) -> _Encoded:
    """The paragraphs' input ids and character offsets: masked models
    ``[CLS] s_1 [SEP] ... s_n [SEP]``; causal models as the scorer encodes sentences."""
    tokenizer = scorer.tokenizer
    if scorer.info.kind == "causal":
        return _encode_causal(scorer, texts)
    raw_ids, raw_offsets = tokenize(tokenizer, list(texts), add_special_tokens=False)
    counts = np.fromiter(map(len, raw_ids), dtype=np.int64, count=len(texts))
    raw, offsets = _flat(raw_ids), _flat(raw_offsets, 2)
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    if cls is None or sep is None:
        raise ModelFilesError(f"the tokenizer of {scorer.info.name} has no [CLS] or [SEP] token")
    owner = np.repeat(np.arange(len(texts)), counts)  # [raw tokens]: paragraph
    index = np.arange(len(raw)) - np.repeat(np.cumsum(counts) - counts, counts)
    # [SEP]s before a token: the ends of the paragraph's sentences but the last at or before it
    # (a running count, as a token never moves a sentence back)
    span = int(offsets[:, 1].max(initial=0)) + max((e for p in ends for e in p), default=0) + 1
    inner = [paragraph[:-1] for paragraph in ends]
    end_keys = np.repeat(np.arange(len(texts)), list(map(len, inner))) * span + _flat(inner)
    seps = np.searchsorted(end_keys, owner * span + offsets[:, 0], side="right")
    seps = np.maximum.accumulate(seps) - np.searchsorted(end_keys, owner * span)
    last = np.cumsum(counts) - 1  # [paragraphs]: its last raw token (if any)
    sizes = counts + 2 + np.where(counts > 0, seps[np.maximum(last, 0)], 0)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    tokens = np.full(int(starts[-1]), sep, dtype=np.int64)
    tokens[starts[:-1]] = cls
    placed = starts[owner] + 1 + index + seps
    tokens[placed] = raw
    char_offsets = np.zeros((len(tokens), 2), dtype=np.int64)
    char_offsets[placed] = offsets
    return _Encoded(tokens, char_offsets, starts)


def _encode_causal(scorer: LMScorer, texts: Sequence[str]) -> _Encoded:
    """The paragraphs as the causal scorer encodes sentences: the tokenizer's special tokens,
    then BOS first when the scorer adds one (the first token must be special: it is the left
    context of the first word)."""
    batch = scorer.tokenizer(
        list(texts),
        add_special_tokens=True,
        return_offsets_mapping=True,
        return_special_tokens_mask=True,
    )
    counts = np.fromiter(map(len, batch["input_ids"]), dtype=np.int64, count=len(texts))
    raw, offsets = _flat(batch["input_ids"]), _flat(batch["offset_mapping"], 2)
    special = _flat(batch["special_tokens_mask"])
    if scorer.bos_token_id is not None:
        before = np.cumsum(counts) - counts
        raw = np.insert(raw, before, scorer.bos_token_id)
        offsets = np.insert(offsets, before, 0, axis=0)
        special = np.insert(special, before, 1)
        counts = counts + 1
    starts = np.concatenate([[0], np.cumsum(counts)])
    if (counts == 0).any() or not special[starts[:-1]].all():
        raise ModelFilesError(
            f"{scorer.info.name} starts a text with no special token: the first word of a "
            "paragraph would have no left context"
        )
    return _Encoded(raw, offsets, starts)


def _token_spans(
    encoded: _Encoded,
    texts: Sequence[str],
    paragraph: npt.NDArray[np.intp],
    start: npt.NDArray[np.int64],
    end: npt.NDArray[np.int64],
) -> npt.NDArray[np.int64]:
    """Each pass's subtokens ``[first, last)`` ``[n_passes, 2]``, positions in its paragraph's
    encoding: the tokens whose offsets overlap its characters ``[start, end)`` in paragraph
    ``paragraph`` (an index of ``texts``), as :func:`~wordlens.models.align.subtoken_span`
    finds them.

    The tokens with characters (special tokens have none) are searched by character: the first
    that ends after ``start``, the last that starts before ``end``. A pass whose tokens are not
    contiguous, reach past its span into more than whitespace, or are absent, and every pass
    when the offsets of a paragraph go backwards, is handed to ``subtoken_span`` (which
    raises its error, or gives the span).
    """
    has_characters = np.flatnonzero(encoded.offsets[:, 1] > encoded.offsets[:, 0])
    owner = np.repeat(np.arange(len(texts)), np.diff(encoded.starts))[has_characters]
    offsets = encoded.offsets[has_characters]  # [tokens with characters, 2]
    span = int(max(offsets.max(initial=0), end.max(initial=0))) + 1
    start_keys, end_keys = owner * span + offsets[:, 0], owner * span + offsets[:, 1]
    first = np.searchsorted(end_keys, paragraph * span + start, side="right")
    last = np.searchsorted(start_keys, paragraph * span + end, side="left") - 1
    found = (last >= first) & (first < len(has_characters))
    first_at, last_at = np.minimum(first, len(has_characters) - 1), np.maximum(last, 0)
    spans = (
        np.stack([has_characters[first_at], has_characters[last_at] + 1], axis=1)
        - encoded.starts[paragraph, None]
    )
    contiguous = found & (has_characters[last_at] - has_characters[first_at] == last - first)
    reach = np.where(
        contiguous, (offsets[first_at, 0] < start) | (offsets[last_at, 1] > end), False
    )
    monotone = bool((np.diff(start_keys) >= 0).all() and (np.diff(end_keys) >= 0).all())
    checked = np.arange(len(start)) if not monotone else np.flatnonzero(~contiguous | reach)
    for number in checked.tolist():
        p = int(paragraph[number])
        s, e = int(start[number]), int(end[number])
        text = texts[p]
        if contiguous[number] and monotone:  # tokens reach past the span: only whitespace?
            r0, r1 = int(offsets[first_at[number], 0]), int(offsets[last_at[number], 1])
            if not (text[r0:s].strip() or text[e:r1].strip()):
                continue
        bounds = slice(encoded.starts[p], encoded.starts[p + 1])
        paragraph_offsets = [(int(a), int(b)) for a, b in encoded.offsets[bounds]]
        spans[number] = subtoken_span(Target(text, s, e), paragraph_offsets)
    return spans


def _masked_rows(
    encoded: _Encoded,
    paragraph: npt.NDArray[np.intp],
    spans: npt.NDArray[np.int64],
    max_length: int | None,
) -> PassRows:
    """One row per pass and subtoken: the pass's paragraph with its subtokens ``spans [passes,
    2]`` masked, read at one of them; a paragraph longer than ``max_length`` cut to ``[CLS]``,
    the ``max_length - 2`` tokens centred on the word, and ``[SEP]`` unless the window ends
    with one."""
    n_subtokens = spans[:, 1] - spans[:, 0]
    row_pass = np.repeat(np.arange(len(spans)), n_subtokens)  # [rows]
    within = np.arange(len(row_pass)) - np.repeat(np.cumsum(n_subtokens) - n_subtokens, n_subtokens)
    columns = spans[row_pass, 0] + within
    offsets = encoded.starts[paragraph]  # [passes]
    lengths = np.diff(encoded.starts)[paragraph]
    targets = encoded.tokens[offsets[row_pass] + columns]
    shift = np.zeros(len(spans), dtype=np.int64)
    tokens = encoded.tokens
    long = np.flatnonzero(lengths > max_length) if max_length is not None else np.empty(0, int)
    if len(long):
        assert max_length is not None
        budget = max_length - 2
        cls, sep = encoded.tokens[offsets[long]], encoded.tokens[offsets[long] + lengths[long] - 1]
        centre = (spans[long, 0] + spans[long, 1]) // 2 - 1
        low = np.minimum(np.maximum(centre - budget // 2, 0), lengths[long] - 1 - budget)
        window = np.full((len(long), max_length), sep[:, None])  # [long passes, max_length]
        window[:, 0] = cls
        window[:, 1 : budget + 1] = tokens[(offsets[long] + 1 + low)[:, None] + np.arange(budget)]
        closing = window[:, budget] != sep
        shift[long] = low
        offsets = offsets.copy()
        offsets[long] = len(tokens) + max_length * np.arange(len(long))
        lengths = lengths.copy()
        lengths[long] = budget + 1 + closing
        tokens = np.concatenate([tokens, window.ravel()])
    masked = (spans - shift[:, None])[row_pass]
    return PassRows(
        tokens,
        offsets[row_pass],
        lengths[row_pass],
        masked,
        np.arange(len(row_pass) + 1, dtype=np.int64),
        columns - shift[row_pass],
        targets,
        row_pass,
    )


def _causal_rows(
    encoded: _Encoded,
    paragraph: npt.NDArray[np.intp],
    spans: npt.NDArray[np.int64],
    max_length: int | None,
) -> PassRows:
    """A row over each paragraph's start for its passes within ``max_length`` tokens (the token at
    ``p`` is read at ``p - 1``), and for each other pass a left window: the first token (BOS),
    then the last ``max_length - 1`` tokens before the word's last subtoken."""
    limit = max_length if max_length is not None else np.iinfo(np.int64).max
    n_subtokens = spans[:, 1] - spans[:, 0]
    read_pass = np.repeat(np.arange(len(spans)), n_subtokens)  # [reads]
    within = np.arange(len(read_pass)) - np.repeat(
        np.cumsum(n_subtokens) - n_subtokens, n_subtokens
    )
    position = spans[read_pass, 0] + within  # the token read, in its paragraph's encoding
    targets = encoded.tokens[encoded.starts[paragraph[read_pass]] + position]
    fits = spans[:, 1] - 1 <= limit  # [passes]
    # paragraph rows: one per paragraph with a pass that fits, as long as its last such read
    fitting = np.unique(paragraph[fits])
    row_of = np.full(len(encoded.starts) - 1, -1, dtype=np.int64)
    row_of[fitting] = np.arange(len(fitting))
    ends = np.zeros(len(fitting), dtype=np.int64)
    np.maximum.at(ends, row_of[paragraph[fits]], spans[fits, 1] - 1)
    # window rows: BOS, then tokens [last - limit, last - 1) of the paragraph
    long = np.flatnonzero(~fits)
    window_start = spans[long, 1] - limit  # [long passes]
    windows = np.empty(0, dtype=np.int64)  # [long passes * limit]
    if len(long):  # then there is a max_length
        bos = encoded.tokens[encoded.starts[paragraph[long]]]
        body = (encoded.starts[paragraph[long]] + window_start)[:, None] + np.arange(limit - 1)
        windows = np.concatenate([bos[:, None], encoded.tokens[body]], axis=1).ravel()
    window_row = np.full(len(spans), -1, dtype=np.int64)
    window_row[long] = len(fitting) + np.arange(len(long))
    read_row = np.where(fits[read_pass], row_of[paragraph[read_pass]], window_row[read_pass])
    shift = np.zeros(len(spans), dtype=np.int64)  # [passes]: position in paragraph - in row
    shift[long] = window_start - 1
    order = np.argsort(read_row, kind="stable")
    n_rows = len(fitting) + len(long)
    return PassRows(
        np.concatenate([encoded.tokens, windows]),
        np.concatenate(
            [encoded.starts[fitting], len(encoded.tokens) + limit * np.arange(len(long))]
        ),
        np.concatenate([ends, np.full(len(long), limit)]).astype(np.int64),
        np.zeros((n_rows, 2), dtype=np.int64),
        np.concatenate([[0], np.cumsum(np.bincount(read_row, minlength=n_rows))]),
        (position - 1 - shift[read_pass])[order],
        targets[order],
        read_pass[order],
    )


def paragraph_texts(paragraphs: pd.DataFrame) -> dict[int, tuple[str, tuple[int, ...]]]:
    """Paragraph id -> (text, sentence ends), from a work list's ``paragraphs`` table (what
    :func:`model_rows` reads)."""
    return {
        int(paragraph): (text, tuple(ends))
        for paragraph, text, ends in zip(
            paragraphs["paragraph"], paragraphs["text"], paragraphs["sentence_ends"], strict=True
        )
    }


# --- shards --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardRun:
    """What one :func:`run_shard` call did.

    Attributes
    ----------
    shard, n_shards
        Which shard.
    path
        Its results file.
    n_passes
        Passes in the shard.
    passes_computed, rows_computed, batches_computed
        Passes scored, forward-pass rows run and batches run by this call.
    batches_reused
        Batches found finished by an earlier, interrupted call.
    """

    shard: int
    n_shards: int
    path: Path
    n_passes: int
    passes_computed: int
    rows_computed: int
    batches_computed: int
    batches_reused: int


def shard_bounds(n_passes: int, shard: int, n_shards: int) -> tuple[int, int]:
    """Pass ids ``[start, stop)`` of shard ``shard`` of ``n_shards`` (contiguous, sizes differing
    by at most one).

    Raises
    ------
    WordlensError
        If ``n_shards < 1`` or ``shard`` is not in ``range(n_shards)``.
    """
    if n_shards < 1 or not 0 <= shard < n_shards:
        raise WordlensError(f"shard must be in 0..{n_shards - 1} of n_shards >= 1, not {shard}")
    return shard * n_passes // n_shards, (shard + 1) * n_passes // n_shards


def shard_path(out_dir: Path, shard: int, n_shards: int) -> Path:
    """The results file of a shard."""
    return Path(out_dir) / f"shard-{shard:05d}-of-{n_shards:05d}.parquet"


def run_shard(
    worklist: WorkList | Path,
    shard: int,
    n_shards: int,
    model: LMScorer | str,
    out_dir: Path,
    *,
    progress: bool = False,
) -> ShardRun:
    """Score the passes of one shard of a work list and write ``shard_path(out_dir, ...)``.

    A finished shard is skipped (the model is not even loaded). An interrupted one resumes: its
    finished batches sit in ``<results file stem>.partial/`` with the batch plan, and only the
    others are run. Finished batches are written together, one file (a "chunk") at least every
    :data:`CHUNK_SECONDS` and when the run stops, interrupted or not, so a run loses at most the
    batch in flight. Run each shard in one process at a time.

    Parameters
    ----------
    worklist
        A work list or its directory.
    shard, n_shards
        Which of ``n_shards`` contiguous shards (see :func:`shard_bounds`).
    model
        A masked or causal scorer, or a spec for :func:`~wordlens.models.scoring.load_scorer`.
    out_dir
        Where the shards' results go.
    progress
        Show a progress bar over the shard's batches.

    Raises
    ------
    WordlensError
        For a bad shard number, or a finished shard scored by another model than ``model``.
    """
    work = worklist if isinstance(worklist, WorkList) else load_worklist(worklist)
    start, stop = shard_bounds(len(work.passes), shard, n_shards)
    path = shard_path(out_dir, shard, n_shards)
    if path.is_file():
        if isinstance(model, LMScorer):
            _check_results(path, work, model.info.fingerprint)
        return ShardRun(shard, n_shards, path, stop - start, 0, 0, 0, 0)
    scorer = model if isinstance(model, LMScorer) else load_scorer(model)
    passes = work.passes.iloc[start:stop].reset_index(drop=True)
    read = work.paragraphs[work.paragraphs["paragraph"].isin(passes["paragraph"])]
    rows = pass_rows(scorer, passes, paragraph_texts(read))
    partial = path.with_name(f"{path.stem}.partial")
    plan = _batch_plan(partial, work, scorer, rows)
    chunks = _Chunks(partial)
    todo = [n for n in range(len(plan)) if n not in chunks.finished]
    computed = np.zeros(len(rows), dtype=np.bool_)
    with progress_bar(progress, len(plan), f"shard {shard}/{n_shards}") as advance:
        advance(len(plan) - len(todo))
        try:
            for window in range(0, len(todo), _WINDOW_BATCHES):
                numbers = todo[window : window + _WINDOW_BATCHES]
                payloads = [
                    rows.batch(plan[n], scorer.pad_token_id, scorer.mask_token_id) for n in numbers
                ]
                # the batches run on the current backend; this process writes the chunks
                for index, values in current_backend().map(read_batch_log_probs, scorer, payloads):
                    chunks.add(numbers[index], values)
                    computed[plan[numbers[index]]] = True
                    advance(1)
        finally:
            chunks.write()
    _finish_shard(path, partial, rows, plan, passes["pass"].to_numpy(), work, scorer)
    batches_computed = len(todo)
    return ShardRun(
        shard,
        n_shards,
        path,
        stop - start,
        len(np.unique(rows.read_passes[rows.reads(np.flatnonzero(computed))])),
        int(computed.sum()),
        batches_computed,
        len(plan) - batches_computed,
    )


#: Finished batches are written to one file at least this often (seconds of the run), and when
#: it stops: a chunk's write (an ``fsync``) then costs little beside its passes, and an
#: interruption loses at most the batch in flight.
CHUNK_SECONDS = 10.0

#: Batches handed to the backend at once (the payloads of a window are built together; a
#: backend that spreads batches over workers keeps that many busy).
_WINDOW_BATCHES = 64


class _Chunks:
    """The finished batches of an unfinished shard in ``partial/chunk-*.parquet``, each file a
    table of ``batch`` (its number in the plan) and ``log_prob`` (its reads', in order), batch
    after batch; new batches are held, then written (atomically) as one more chunk."""

    def __init__(self, partial: Path) -> None:
        self.partial = partial
        files = sorted(partial.glob("chunk-*.parquet"))
        self.finished: set[int] = set()
        for file in files:
            self.finished.update(pq.read_table(file, columns=["batch"])["batch"].to_pylist())
        self.next = int(files[-1].stem.split("-")[1]) + 1 if files else 0
        self.held: list[tuple[int, npt.NDArray[np.float64]]] = []
        self.written = time.monotonic()

    def add(self, batch: int, values: npt.NDArray[np.float64]) -> None:
        """Hold a finished batch (its reads' log-probabilities ``[n_reads]``); write the chunk
        when :data:`CHUNK_SECONDS` have passed since the last one."""
        self.held.append((batch, values))
        if time.monotonic() - self.written >= CHUNK_SECONDS:
            self.write()

    def write(self) -> None:
        """Write the held batches as one chunk (nothing when none is held)."""
        if self.held:
            numbers = [number for number, _ in self.held]
            values = [batch_values for _, batch_values in self.held]
            table = pa.table(
                {
                    "batch": pa.array(np.repeat(numbers, list(map(len, values))), pa.int64()),
                    "log_prob": pa.array(np.concatenate(values), pa.float64()),
                }
            )
            with atomic_writer(self.partial / f"chunk-{self.next:06d}.parquet") as out:
                pq.write_table(table, out)
            self.finished.update(numbers)
            self.next += 1
            self.held = []
        self.written = time.monotonic()


def _results_table(
    passes: npt.NDArray[np.int64],
    log_probs: npt.NDArray[np.float64],
    n_subtokens: npt.NDArray[np.int64],
) -> pa.Table:
    return pa.table(
        {
            "pass": pa.array(passes, pa.int64()),
            "log_prob": pa.array(log_probs, pa.float64()),
            "n_subtokens": pa.array(n_subtokens.astype(np.int32), pa.int32()),
        }
    )


def _batch_plan(
    partial: Path, work: WorkList, scorer: LMScorer, rows: PassRows
) -> list[npt.NDArray[np.intp]]:
    """The shard's batches (row indices): those stored with finished batches of the same work
    list, model and rows, else a new plan under the scorer's token budget (stale batches of
    another plan are removed)."""
    key = {
        "format": _PARTIAL_FORMAT,
        "worklist": work.identity,
        "model": scorer.info.fingerprint,
        "rows": len(rows),
    }
    plan_file = partial / "plan.json"
    try:
        stored = json.loads(plan_file.read_text())
        if stored["key"] == key:
            order = np.array(stored["order"], dtype=np.intp)
            return np.split(order, stored["bounds"][1:-1])
    except (OSError, ValueError, KeyError):
        pass
    shutil.rmtree(partial, ignore_errors=True)
    batches = length_batches(rows.lengths, _row_budget(scorer))
    bounds = np.cumsum([0, *map(len, batches)]).tolist()
    partial.mkdir(parents=True)
    order = np.concatenate(batches) if batches else np.empty(0, np.intp)
    atomic_write_text(
        plan_file, json.dumps({"key": key, "order": order.tolist(), "bounds": bounds})
    )
    return batches


def _row_budget(scorer: LMScorer) -> int:
    """Padded tokens per batch of :class:`PassRows`: a masked model's rows are masked copies read
    at one position, batched as PLL's (:func:`~wordlens.models.scoring.pll_token_budget`)."""
    if scorer.info.kind == "masked":
        return pll_token_budget(scorer.token_budget)
    return scorer.token_budget


#: The layout of a ``.partial`` directory (chunks of reads); a directory of another layout is
#: started again.
_PARTIAL_FORMAT = 2


def _finish_shard(
    path: Path,
    partial: Path,
    rows: PassRows,
    plan: Sequence[npt.NDArray[np.intp]],
    pass_ids: npt.NDArray[np.int64],
    work: WorkList,
    scorer: LMScorer,
) -> None:
    """Gather the chunks into the shard's results file (atomically), then drop them: each pass's
    log-probability is the sum of its reads (in read order, whatever batch computed them)."""
    values = np.zeros(len(rows.read_passes), dtype=np.float64)  # [n_reads]
    for file in sorted(partial.glob("chunk-*.parquet")):
        table = pq.read_table(file)
        batches = table["batch"].to_numpy()
        numbers = batches[np.flatnonzero(np.diff(batches, prepend=-1))]  # in the file's order
        reads = rows.reads(np.concatenate([plan[number] for number in numbers]))
        values[reads] = table["log_prob"].to_numpy()
    log_probs, n_subtokens = rows.pass_sums(values, len(pass_ids))
    table = _results_table(pass_ids, log_probs, n_subtokens)
    metadata = {
        "worklist": work.identity,
        "model": scorer.info.fingerprint,
        "name": scorer.info.name,
    }
    table = table.replace_schema_metadata({"wordlens": json.dumps(metadata)})
    with atomic_writer(path) as out:
        pq.write_table(table, out)
    shutil.rmtree(partial, ignore_errors=True)


def _results_metadata(path: Path) -> dict[str, str]:
    schema_metadata = pq.read_schema(path).metadata or {}
    metadata: dict[str, str] = json.loads(schema_metadata.get(b"wordlens", b"{}"))
    return metadata


def _check_results(path: Path, work: WorkList, fingerprint: str | None) -> dict[str, str]:
    metadata = _results_metadata(path)
    if metadata.get("worklist") != work.identity:
        raise WordlensError(
            f"{path} belongs to another work list; remove it or use another out_dir"
        )
    if fingerprint is not None and metadata.get("model") != fingerprint:
        raise WordlensError(
            f"{path} was scored by model {metadata.get('name')} ({metadata.get('model')}), not "
            f"this one ({fingerprint}); remove it or use another out_dir"
        )
    return metadata


@dataclass(frozen=True, eq=False)
class PassScores:
    """The merged results of a work list's shards.

    Attributes
    ----------
    model, fingerprint
        The scoring model's name and fingerprint.
    table
        One row per pass: ``pass``, ``log_prob`` (float64, natural log, summed over the word's
        subtokens) and ``n_subtokens``.
    """

    model: str
    fingerprint: str
    table: pd.DataFrame


def merge_shards(worklist: WorkList | Path, out_dir: Path, n_shards: int) -> PassScores:
    """The results of all ``n_shards`` shards of a work list.

    Raises
    ------
    WordlensError
        If a shard is missing, belongs to another work list or model, or passes are missing.
    """
    work = worklist if isinstance(worklist, WorkList) else load_worklist(worklist)
    paths = [shard_path(out_dir, shard, n_shards) for shard in range(n_shards)]
    missing = [shard for shard, path in enumerate(paths) if not path.is_file()]
    if missing:
        raise WordlensError(f"shard(s) {missing[:10]} of {n_shards} not finished in {out_dir}")
    metadata = [_check_results(path, work, None) for path in paths]
    models = {(item["name"], item["model"]) for item in metadata}
    if len(models) != 1:
        raise WordlensError(f"the shards in {out_dir} were scored by different models: {models}")
    table = pd.concat([pd.read_parquet(path) for path in paths], ignore_index=True)
    if not np.array_equal(table["pass"].to_numpy(), work.passes["pass"].to_numpy()):
        raise WordlensError(f"the shards in {out_dir} do not hold every pass of the work list once")
    ((name, fingerprint),) = models
    return PassScores(name, fingerprint, table)


# --- estimates -----------------------------------------------------------------------------------


def estimate_conditionals(
    worklist: WorkList, scores: PassScores, *, cue_count: CueCount = "occurrences"
) -> pd.DataFrame:
    """Eq. 6 in both directions for every pair of the work list.

    Parameters
    ----------
    worklist
        The work list.
    scores
        Its merged pass scores (:func:`merge_shards`).
    cue_count
        How a word repeated in a paragraph counts (module notes).

    Returns
    -------
    pandas.DataFrame
        Per pair: ``pair``, ``cue``, ``response``, ``p_response_given_cue`` (``P(b | a)``),
        ``p_cue_given_response`` (``P(a | b)``), ``cue_contexts`` (``|C(a)|``),
        ``response_contexts`` (``|C(b)|``, both counted as ``cue_count`` says),
        ``pair_contexts`` (``|C(a, b)|``, paragraphs) and ``mean_distance`` (words; NaN without
        contexts).
    """
    _check_cue_count(cue_count)
    passes = worklist.passes.merge(scores.table[["pass", "log_prob"]], on="pass", validate="1:1")
    passes["probability"] = np.exp(passes["log_prob"])
    p_word_context = passes.groupby(["paragraph", "word"], as_index=False)["probability"].mean()
    contexts = worklist.contexts.merge(worklist.pairs[["pair", "cue", "response"]], on="pair")
    table = worklist.pairs[["pair", "cue", "response"]].copy()
    for given, predicted, column in (
        ("cue", "response", "p_response_given_cue"),
        ("response", "cue", "p_cue_given_response"),
    ):
        terms = contexts.merge(
            p_word_context,
            left_on=["paragraph", predicted],
            right_on=["paragraph", "word"],
            validate="m:1",
        )
        weight = terms[f"{given}_count"] if cue_count == "occurrences" else 1
        sums = (terms["probability"] * weight).groupby(terms["pair"]).sum()
        totals = sums.reindex(table["pair"], fill_value=0.0).to_numpy(dtype=np.float64)
        with np.errstate(invalid="ignore"):  # 0 / 0 for a word absent from the corpus: NaN
            table[column] = totals / _n_contexts(worklist.pairs, given, cue_count)
    table["cue_contexts"] = _n_contexts(worklist.pairs, "cue", cue_count)
    table["response_contexts"] = _n_contexts(worklist.pairs, "response", cue_count)
    per_pair = worklist.contexts.groupby("pair")["distance"]
    table["pair_contexts"] = per_pair.size().reindex(table["pair"], fill_value=0).to_numpy()
    table["mean_distance"] = per_pair.mean().reindex(table["pair"]).to_numpy()
    return table


def _n_contexts(pairs: pd.DataFrame, role: str, cue_count: CueCount) -> npt.NDArray[np.float64]:
    """``|C(word)|`` of each pair's ``role`` word, as float (a zero count then divides to NaN)."""
    column = f"{role}_{'occurrences' if cue_count == 'occurrences' else 'paragraphs'}"
    counts: npt.NDArray[np.float64] = pairs[column].to_numpy(dtype=np.float64)
    return counts


def _check_cue_count(cue_count: str) -> None:
    if cue_count not in get_args(CueCount):
        raise WordlensError(f"cue_count must be one of {get_args(CueCount)}, not {cue_count!r}")


def contextual_conditionals(
    pairs: Sequence[tuple[str, str]],
    index: ParagraphIndex,
    model: LMScorer | str,
    directory: Path,
    *,
    cue_count: CueCount = "occurrences",
    max_contexts: int | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Eq. 6 for ``pairs`` in one process: work list, one shard, merge, estimate (a rerun of an
    interrupted call resumes; see :func:`build_worklist` and :func:`estimate_conditionals`).

    ``directory`` receives the work list and ``directory / "results"`` the pass scores.
    """
    _check_cue_count(cue_count)
    work = build_worklist(pairs, index, directory, max_contexts=max_contexts)
    run_shard(work, 0, 1, model, directory / "results", progress=progress)
    return estimate_conditionals(
        work, merge_shards(work, directory / "results", 1), cue_count=cue_count
    )


# --- the per-pair reference ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PerPairRun:
    """Eq. 6 computed pair by pair (the paper's procedure).

    Attributes
    ----------
    table
        Per pair: ``pair``, ``cue``, ``response``, ``p_response_given_cue``,
        ``p_cue_given_response``.
    rows
        Forward-pass rows run (passes of every pair, nothing shared between pairs).
    """

    table: pd.DataFrame
    rows: int


def per_pair_conditionals(
    pairs: Sequence[tuple[str, str]],
    index: ParagraphIndex,
    scorer: LMScorer,
    *,
    cue_count: CueCount = "occurrences",
    max_contexts: int | None = None,
) -> PerPairRun:
    """Eq. 6 the direct way: for each pair, its contexts, its own masked passes (both
    directions, batched within the pair) and the sums of eq. 6 in plain loops.

    The reference for :func:`estimate_conditionals`; parameters as :func:`build_worklist`.
    """
    _check_cue_count(cue_count)
    by_occurrence = cue_count == "occurrences"
    rows_run = 0
    table = []
    for pair, (cue, response) in enumerate(_check_pairs(pairs)):
        hits = index.hits(cue, response, limit=max_contexts)
        spans = {hit.paragraph: [token.span() for token in word_tokens(hit.text)] for hit in hits}
        passes = [
            (hit.paragraph, *spans[hit.paragraph][position], word)
            for hit in hits
            for word in (response, cue)
            for position in hit.positions[word]
        ]
        log_probs, n_rows = _score_passes(scorer, passes, hits, index)
        rows_run += n_rows
        probability = dict(zip(passes, np.exp(log_probs).tolist(), strict=True))
        estimates = []
        for given, predicted in ((cue, response), (response, cue)):
            total = 0.0
            for hit in hits:
                in_context = [
                    probability[(hit.paragraph, *spans[hit.paragraph][position], predicted)]
                    for position in hit.positions[predicted]
                ]
                weight = len(hit.positions[given]) if by_occurrence else 1
                total += weight * sum(in_context) / len(in_context)
            n_given = index.count(given, occurrences=by_occurrence)
            estimates.append(total / n_given if n_given else float("nan"))
        table.append((pair, cue, response, *estimates))
    columns = ["pair", "cue", "response", "p_response_given_cue", "p_cue_given_response"]
    return PerPairRun(pd.DataFrame(table, columns=columns), rows_run)


def _score_passes(
    scorer: LMScorer,
    passes: Sequence[tuple[int, int, int, str]],
    hits: Sequence[Hit],
    index: ParagraphIndex,
) -> tuple[npt.NDArray[np.float64], int]:
    """Log-probabilities of ``passes`` (paragraph, start, end, word) in order, and rows run."""
    if not passes:
        return np.empty(0), 0
    frame = pd.DataFrame(passes, columns=["paragraph", "start", "end", "word"])
    ends = index.sentence_ends([hit.paragraph for hit in hits])
    paragraphs = {hit.paragraph: (hit.text, end) for hit, end in zip(hits, ends, strict=True)}
    rows = pass_rows(scorer, frame, paragraphs)
    values = np.empty(len(rows.read_passes), dtype=np.float64)
    for batch in length_batches(rows.lengths, _row_budget(scorer)):
        payload = rows.batch(batch, scorer.pad_token_id, scorer.mask_token_id)
        values[rows.reads(batch)] = scorer.batch_log_probs(payload)
    return rows.pass_sums(values, len(frame))[0], len(rows)


# --- the vocabulary filter (eq. 9) ---------------------------------------------------------------


def single_token_words(scorer: LMScorer, words: Sequence[str]) -> list[bool]:
    """Whether each word is one token of the model's vocabulary (the paper's eq. 9 filter keeps
    the pairs whose words are in every compared vocabulary).

    A word is tested as it appears inside a sentence, after a space (``"the {word}"``), through
    the offsets of the tokenizer, so leading-space BPE vocabularies are tested on ``" word"``.
    """
    texts = [f"the {word}" for word in words]
    encoded = scorer.tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True)
    return [
        sum(1 for start, end in offsets if end > start and end > 4) == 1
        for offsets in encoded["offset_mapping"]
    ]
