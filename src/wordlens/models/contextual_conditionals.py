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
    each finished batch atomically and the shard's results file at the end; a rerun skips
    finished shards and resumes an interrupted one from its finished batches, using the batch
    plan stored with them. :func:`merge_shards` then :func:`estimate_conditionals` give ``P(b|a)``
    and ``P(a|b)`` per pair with ``|C(a)|``, ``|C(b)|``, ``|C(a,b)|`` and the distance in words
    between ``a`` and ``b`` (per context the smallest one, then the mean over contexts: the two
    factors of the paper's Figure 2). :func:`per_pair_conditionals` is the paper's procedure, each
    pair with its own passes, the reference the shared passes are tested against.

References
----------
Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or Ellipses
are like Circles? Measuring the Degree of Asymmetry of Static and Contextual Word Embeddings and
the Implications to Representation Learning. *AAAI 2021* (section 4, eqs. 6 and 9; Appendix B).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

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
from wordlens.models.scoring import (
    LMScorer,
    LogProbBatch,
    ModelRow,
    length_batches,
    load_scorer,
    log_probs_batch,
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


@dataclass(frozen=True)
class PassRow:
    """One row of a forward pass: input ids, the positions read, the token expected at each, and
    the pass (position in the pass list being run) each read belongs to."""

    ids: npt.NDArray[np.int64]
    reads: tuple[int, ...]
    targets: tuple[int, ...]
    passes: tuple[int, ...]


def model_rows(
    scorer: LMScorer, passes: pd.DataFrame, paragraphs: Mapping[int, tuple[str, tuple[int, ...]]]
) -> list[PassRow]:
    """The forward-pass rows that score ``passes`` (one per pass for masked models, one per
    paragraph for causal ones; see the module notes). Pass ``i`` is row ``i`` of ``passes``.

    Parameters
    ----------
    scorer
        A masked or causal language model.
    passes
        ``paragraph``, ``start``, ``end`` per pass.
    paragraphs
        Paragraph id -> (text, sentence ends).
    """
    rows: list[PassRow] = []
    starts, ends = passes["start"].to_numpy(), passes["end"].to_numpy()
    groups: dict[int, list[int]] = {}
    for number, paragraph in enumerate(passes["paragraph"].tolist()):
        groups.setdefault(int(paragraph), []).append(number)
    for paragraph, numbers in groups.items():
        text, sentence_ends = paragraphs[paragraph]
        ids, offsets = _encode(scorer, text, sentence_ends)
        spans = [
            (n, *subtoken_span(Target(text, int(starts[n]), int(ends[n])), offsets))
            for n in numbers
        ]
        if scorer.info.kind == "causal":
            rows.extend(_causal_rows(ids, spans, scorer.max_length))
        else:
            rows.extend(_masked_row(scorer, ids, *span) for span in spans)
    return rows


def _encode(
    scorer: LMScorer, text: str, ends: Sequence[int]
) -> tuple[npt.NDArray[np.int64], list[tuple[int, int]]]:
    """A paragraph's input ids and character offsets (``(0, 0)`` for special tokens): masked
    models ``[CLS] s_1 [SEP] ... s_n [SEP]``; causal models as the scorer encodes sentences."""
    tokenizer = scorer.tokenizer
    if scorer.info.kind == "causal":
        encoded = tokenizer(
            text,
            add_special_tokens=True,
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
        )
        ids, offsets = list(encoded["input_ids"]), [tuple(o) for o in encoded["offset_mapping"]]
        special = list(encoded["special_tokens_mask"])
        if scorer.bos_token_id is not None:
            ids, offsets, special = [scorer.bos_token_id, *ids], [(0, 0), *offsets], [1, *special]
        if not special[0]:
            raise ModelFilesError(
                f"{scorer.info.name} starts a text with no special token: the first word of a "
                "paragraph would have no left context"
            )
        return np.array(ids, dtype=np.int64), offsets
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    if cls is None or sep is None:
        raise ModelFilesError(f"the tokenizer of {scorer.info.name} has no [CLS] or [SEP] token")
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets, sentence = [cls], [(0, 0)], 0
    for token, (start, end) in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True):
        while sentence < len(ends) - 1 and start >= ends[sentence]:
            ids.append(sep)
            offsets.append((0, 0))
            sentence += 1
        ids.append(token)
        offsets.append((start, end))
    return np.array([*ids, sep], dtype=np.int64), [*offsets, (0, 0)]


def _masked_row(
    scorer: LMScorer, ids: npt.NDArray[np.int64], number: int, first: int, last: int
) -> PassRow:
    """The paragraph with subtokens ``[first, last)`` masked, cut to a window if too long."""
    assert scorer.mask_token_id is not None  # LMScorer refuses masked models without one
    row = ids.copy()
    row[first:last] = scorer.mask_token_id
    shift = 0
    if scorer.max_length is not None and len(row) > scorer.max_length:
        row, shift = _window(row, first, last, scorer.max_length, int(ids[-1]))
    return PassRow(
        row,
        tuple(range(first - shift, last - shift)),
        tuple(int(token) for token in ids[first:last]),
        (number,) * (last - first),
    )


def _window(
    row: npt.NDArray[np.int64], first: int, last: int, max_length: int, sep: int
) -> tuple[npt.NDArray[np.int64], int]:
    """``[CLS]`` and ``max_length - 2`` tokens centred on ``[first, last)``, then ``[SEP]`` unless
    the window ends with one; and the shift of positions (new = old - shift)."""
    body = row[1:]
    budget = max_length - 2
    centre = (first + last) // 2 - 1
    low = min(max(centre - budget // 2, 0), len(body) - budget)
    window = body[low : low + budget]
    closing = [] if window[-1] == sep else [sep]
    return np.concatenate([row[:1], window, closing]).astype(np.int64), low


def _causal_rows(
    ids: npt.NDArray[np.int64], spans: Sequence[tuple[int, int, int]], max_length: int | None
) -> list[PassRow]:
    """One row over the paragraph's start for the occurrences within ``max_length`` tokens (the
    token at ``p`` is read at ``p - 1``), one left window each for the others."""
    limit = max_length if max_length is not None else np.inf
    fits = [span for span in spans if span[2] - 1 <= limit]
    rows = []
    if fits:
        end = max(last for _, _, last in fits) - 1
        rows.append(_causal_row(ids[:end], ids, fits, 0))
    for span in (span for span in spans if span[2] - 1 > limit):
        start = span[2] - int(limit)  # keep BOS, then the last max_length - 1 tokens
        window = np.concatenate([ids[:1], ids[start : span[2] - 1]])
        rows.append(_causal_row(window, ids, [span], start - 1))
    return rows


def _causal_row(
    row: npt.NDArray[np.int64],
    ids: npt.NDArray[np.int64],
    spans: Sequence[tuple[int, int, int]],
    shift: int,
) -> PassRow:
    """A causal row: ``row`` holds ``ids`` from position ``shift + 1`` on (after its first token);
    each subtoken ``p`` of the ``spans`` is read at ``p - 1``."""
    reads = [(number, p) for number, first, last in spans for p in range(first, last)]
    return PassRow(
        row,
        tuple(p - 1 - shift for _, p in reads),
        tuple(int(ids[p]) for _, p in reads),
        tuple(number for number, _ in reads),
    )


def _score_rows(
    scorer: LMScorer, rows: Sequence[PassRow]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """One forward pass over ``rows``: the passes they hold, each pass's summed log-probability
    (float64) and its number of subtokens."""
    return _pass_sums(rows, scorer.read_log_probs(_model_rows(rows)))


def _model_rows(rows: Sequence[PassRow]) -> tuple[ModelRow, ...]:
    """The rows as :meth:`~wordlens.models.scoring.LMScorer.read_log_probs` reads them."""
    return tuple(ModelRow(tuple(row.ids.tolist()), row.reads, row.targets) for row in rows)


def _pass_sums(
    rows: Sequence[PassRow], values: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """The passes that ``rows`` hold, each pass's sum of the read ``values`` (float64, in read
    order) and its number of subtokens."""
    passes, inverse = np.unique(np.concatenate([row.passes for row in rows]), return_inverse=True)
    sums = np.zeros(len(passes), dtype=np.float64)
    np.add.at(sums, inverse, values)
    return passes.astype(np.int64), sums, np.bincount(inverse).astype(np.int64)


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
    others are run. Run each shard in one process at a time.

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
    rows = model_rows(scorer, passes, paragraph_texts(work.paragraphs))
    partial = path.with_name(f"{path.stem}.partial")
    batches = _batch_plan(partial, work, scorer, rows)
    todo = [n for n in range(len(batches)) if not _batch_file(partial, n).is_file()]
    payloads = [LogProbBatch(_model_rows([rows[i] for i in batches[n]])) for n in todo]
    computed = {"passes": 0, "rows": 0, "batches": 0}
    with progress_bar(progress, len(batches), f"shard {shard}/{n_shards}") as advance:
        advance(len(batches) - len(todo))
        # the batches run on the current backend; this process writes each batch's file
        for index, values in current_backend().map(log_probs_batch, scorer, payloads):
            number = todo[index]
            found, log_probs, n_subtokens = _pass_sums([rows[i] for i in batches[number]], values)
            table = _results_table(passes["pass"].to_numpy()[found], log_probs, n_subtokens)
            with atomic_writer(_batch_file(partial, number)) as out:
                pq.write_table(table, out)
            computed = {
                "passes": computed["passes"] + len(found),
                "rows": computed["rows"] + len(batches[number]),
                "batches": computed["batches"] + 1,
            }
            advance(1)
    _finish_shard(path, partial, len(batches), work, scorer)
    reused = len(batches) - computed["batches"]
    return ShardRun(
        shard,
        n_shards,
        path,
        stop - start,
        computed["passes"],
        computed["rows"],
        computed["batches"],
        reused,
    )


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


def _batch_file(partial: Path, number: int) -> Path:
    """Where a finished batch of an unfinished shard is kept."""
    return partial / f"batch-{number:06d}.parquet"


def _batch_plan(
    partial: Path, work: WorkList, scorer: LMScorer, rows: Sequence[PassRow]
) -> list[list[int]]:
    """The shard's batches (row indices): those stored with finished batches of the same work
    list, model and rows, else a new plan under the scorer's token budget (stale batches of
    another plan are removed)."""
    key = {"worklist": work.identity, "model": scorer.info.fingerprint, "rows": len(rows)}
    plan_file = partial / "plan.json"
    try:
        stored = json.loads(plan_file.read_text())
        if stored["key"] == key:
            return [list(batch) for batch in stored["batches"]]
    except (OSError, ValueError, KeyError):
        pass
    shutil.rmtree(partial, ignore_errors=True)
    batches = [
        [int(i) for i in batch]
        for batch in length_batches([len(row.ids) for row in rows], scorer.token_budget)
    ]
    partial.mkdir(parents=True)
    atomic_write_text(plan_file, json.dumps({"key": key, "batches": batches}))
    return batches


def _finish_shard(
    path: Path, partial: Path, n_batches: int, work: WorkList, scorer: LMScorer
) -> None:
    """Gather the batch files into the shard's results file (atomically), then drop them."""
    files = [_batch_file(partial, number) for number in range(n_batches)]
    tables = [pq.read_table(file) for file in files]
    empty = _results_table(np.empty(0, np.int64), np.empty(0), np.empty(0, np.int64))
    table = pa.concat_tables([empty, *tables]).sort_by("pass")
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
    rows = model_rows(scorer, frame, paragraphs)
    log_probs = np.empty(len(frame), dtype=np.float64)
    for batch in length_batches([len(row.ids) for row in rows], scorer.token_budget):
        found, values, _ = _score_rows(scorer, [rows[i] for i in batch])
        log_probs[found] = values
    return log_probs, len(rows)


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
