"""Map a target's character span onto subtoken positions, and pool subtoken vectors.

The subtokens of a word are the tokens whose offset-mapping span overlaps the word's character span
``[start, end)``. Overlap (rather than containment) handles byte-level BPE offsets that include the
leading space (GPT-2's ``"Ġpleasant"`` covers ``" pleasant"``) as well as tokenizers that trim it.
Special tokens (offset ``(0, 0)``) never overlap.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from wordlens.contexts import Target
from wordlens.errors import AlignmentError
from wordlens.models.base import Pooling


def subtoken_span(target: Target, offsets: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """Token index range ``[first, last + 1)`` of the subtokens covering ``target``.

    Parameters
    ----------
    target
        The word in context.
    offsets
        The tokenizer's offset mapping for ``target.text``: one ``(char_start, char_end)`` per
        token, ``(0, 0)`` for special tokens.

    Raises
    ------
    AlignmentError
        If no token overlaps the span (e.g. the tokenizer's normalizer removed the word), or if the
        overlapping tokens are not contiguous.
    """
    hits = [
        index
        for index, (token_start, token_end) in enumerate(offsets)
        if token_end > token_start and token_start < target.end and token_end > target.start
    ]
    if not hits:
        raise AlignmentError(
            f"no subtoken covers {target.word!r} at [{target.start}, {target.end}) in "
            f"{target.text!r}; offsets were {list(offsets)}"
        )
    if hits != list(range(hits[0], hits[-1] + 1)):
        raise AlignmentError(
            f"subtokens of {target.word!r} in {target.text!r} are not contiguous: {hits}"
        )
    return hits[0], hits[-1] + 1


def pool_subtokens(hidden: torch.Tensor, spans: torch.Tensor, pooling: Pooling) -> torch.Tensor:
    """Pool each row's subtoken vectors (one layer) into one vector per target.

    Parameters
    ----------
    hidden
        ``[batch, seq, dim]`` hidden states of one layer of a padded batch.
    spans
        ``[batch, 2]`` int64 token ranges ``[first, stop)`` of each row's target.
    pooling
        ``first`` or ``last`` subtoken, element-wise ``mean`` or ``max`` over the target's own
        subtokens only (never over the batch axis or over padding).

    Returns
    -------
    torch.Tensor
        ``[batch, dim]``.
    """
    batch, seq_len, _ = hidden.shape
    rows = torch.arange(batch, device=hidden.device)
    if pooling == "first":
        return hidden[rows, spans[:, 0]]
    if pooling == "last":
        return hidden[rows, spans[:, 1] - 1]
    positions = torch.arange(seq_len, device=hidden.device)
    inside = (positions[None, :] >= spans[:, :1]) & (positions[None, :] < spans[:, 1:])
    mask = inside[:, :, None]  # [batch, seq, 1]
    if pooling == "mean":
        summed = torch.where(mask, hidden, torch.zeros((), dtype=hidden.dtype)).sum(dim=1)
        counts = (spans[:, 1] - spans[:, 0]).to(hidden.dtype)[:, None]
        return summed / counts
    if pooling == "max":
        lowest = torch.tensor(torch.finfo(hidden.dtype).min, dtype=hidden.dtype)
        return torch.where(mask, hidden, lowest).amax(dim=1)
    raise AlignmentError(f"unknown pooling {pooling!r}")
