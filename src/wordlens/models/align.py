"""Map a target's character span onto subtoken positions, and pool subtoken vectors.

The subtokens of a word are the tokens whose offset-mapping span overlaps the word's character span
``[start, end)``. Overlap (rather than containment) handles byte-level BPE offsets that include the
leading space (GPT-2's ``"Ġpleasant"`` covers ``" pleasant"``) as well as tokenizers that trim it.
Special tokens (offset ``(0, 0)``) never overlap. A span must start and end on token boundaries:
the tokens that cover it may reach past it into whitespace only, never into other characters
("happy" inside the one token "unhappy", 日 of a token 日本, half of a flag emoji), since a part of
a token has no vector of its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
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
        If no token overlaps the span (e.g. the tokenizer's normalizer removed the word), if the
        overlapping tokens are not contiguous, or if they reach past the span into more than
        whitespace: the span starts or ends inside a token ("happy" of "unhappy", one character
        of a token that covers two).
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
    first, last = offsets[hits[0]][0], offsets[hits[-1]][1]
    if not target.shares_tokens and _cuts_token(target, first, last):
        raise AlignmentError(
            f"{target.word!r} at [{target.start}, {target.end}) of {target.text!r} does not "
            f"start and end on token boundaries: the subtokens that cover it read "
            f"{target.text[first:last]!r} ([{first}, {last})). A part of a token has no vector "
            "of its own; give the span of the whole word"
        )
    return hits[0], hits[-1] + 1


def _cuts_token(target: Target, first: int, last: int) -> bool:
    """Whether the tokens covering ``target``, from character ``first`` to ``last``, reach past
    its span into more than whitespace (a word-initial space is part of a BPE token)."""
    return bool(target.text[first : target.start].strip() or target.text[target.end : last].strip())


def subtoken_spans(
    targets: Sequence[Target], offsets: Sequence[Sequence[tuple[int, int]]]
) -> npt.NDArray[np.int64]:
    """:func:`subtoken_span` of every target at once, without a Python loop per target or token.

    Parameters
    ----------
    targets
        The words in context.
    offsets
        Per target, the tokenizer's offset mapping of its text.

    Returns
    -------
    numpy.ndarray
        int64 ``[len(targets), 2]``: each target's token range ``[first, last + 1)``.

    Raises
    ------
    AlignmentError
        As :func:`subtoken_span`, for the first target without a contiguous run of overlapping
        tokens on token boundaries.
    """
    spans, contiguous, inside = _alignment(targets, offsets)
    shares = np.fromiter((t.shares_tokens for t in targets), dtype=np.bool_, count=len(targets))
    bad = np.flatnonzero(~contiguous | (inside & ~shares))
    if len(bad):
        subtoken_span(targets[bad[0]], offsets[bad[0]])  # raises the target's own error
    return spans


def inside_tokens(
    targets: Sequence[Target], offsets: Sequence[Sequence[tuple[int, int]]]
) -> npt.NDArray[np.bool_]:
    """Which targets start or end inside a subtoken (:attr:`Target.shares_tokens` aside).

    Returns
    -------
    numpy.ndarray
        bool ``[len(targets)]``; False for a target no token covers contiguously, which
        :func:`subtoken_spans` refuses.
    """
    _, contiguous, inside = _alignment(targets, offsets)
    return contiguous & inside


def _alignment(
    targets: Sequence[Target], offsets: Sequence[Sequence[tuple[int, int]]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Token ranges ``[targets, 2]``, whether each target's overlapping tokens form one
    contiguous run, and whether they reach past its span into more than whitespace."""
    n_targets = len(targets)
    lengths = np.fromiter(map(len, offsets), dtype=np.int64, count=n_targets)
    pairs = np.fromiter(
        itertools.chain.from_iterable(itertools.chain.from_iterable(offsets)),
        dtype=np.int64,
        count=2 * int(lengths.sum()),
    ).reshape(-1, 2)  # [tokens, 2]: (char start, char end) of every token of every text
    owner = np.repeat(np.arange(n_targets), lengths)  # [tokens]
    starts = np.fromiter((target.start for target in targets), dtype=np.int64, count=n_targets)
    ends = np.fromiter((target.end for target in targets), dtype=np.int64, count=n_targets)
    hit = (pairs[:, 1] > pairs[:, 0]) & (pairs[:, 0] < ends[owner]) & (pairs[:, 1] > starts[owner])
    position = np.arange(len(owner)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    hit_owner, hit_position = owner[hit], position[hit]  # ordered by owner, then position
    count = np.bincount(hit_owner, minlength=n_targets)
    spans = np.zeros((n_targets, 2), dtype=np.int64)
    found = count > 0
    first_hit = np.cumsum(count) - count
    last_hit = first_hit + count - 1
    spans[found, 0] = hit_position[first_hit[found]]
    spans[found, 1] = hit_position[last_hit[found]] + 1
    contiguous = found & (spans[:, 1] - spans[:, 0] == count)
    hit_index = np.flatnonzero(hit)
    reach = np.zeros((n_targets, 2), dtype=np.int64)  # characters the covering tokens span
    reach[found, 0] = pairs[hit_index[first_hit[found]], 0]
    reach[found, 1] = pairs[hit_index[last_hit[found]], 1]
    inside = np.zeros(n_targets, dtype=np.bool_)
    for i in np.flatnonzero(contiguous & ((reach[:, 0] < starts) | (reach[:, 1] > ends))).tolist():
        inside[i] = _cuts_token(targets[i], int(reach[i, 0]), int(reach[i, 1]))
    return spans, contiguous, inside


class SubtokenPooling:
    """Pooled target vectors ``[targets, layers, dim]``, accumulated as passes compute subtokens.

    The subtokens of a batch's targets are numbered target by target (target 0's first, ...,
    target 1's first, ...); a pass hands in the hidden states of some of them (:meth:`add`), in
    any order and split over any number of passes. Each pooling reads only its target's own
    subtokens, never padding or another target's:

    - ``mean``: the element-wise mean, summed in float32 as subtokens arrive
      (``index_add``), divided by the subtoken count in :meth:`result`;
    - ``max``: the element-wise maximum (``scatter_reduce`` ``amax``);
    - ``first``, ``last``: the first or last subtoken's vector.

    Pooling happens on the passes' own tensors, so no ``[layers, subtokens, dim]`` copy of a
    batch's hidden states is ever made.

    Parameters
    ----------
    spans
        Per target, its token range ``[first, stop)`` (at least one token).
    n_layers, hidden_size
        Shape of each target's pooled vectors.
    poolings
        The poolings to compute (each from the same hidden states).
    device
        Where the pooled vectors accumulate (the model's device).
    """

    def __init__(
        self,
        spans: Sequence[tuple[int, int]],
        n_layers: int,
        hidden_size: int,
        poolings: Sequence[Pooling],
        device: torch.device,
    ) -> None:
        unknown = sorted(set(poolings) - {"first", "last", "mean", "max"})
        if unknown:
            raise AlignmentError(f"unknown pooling {unknown[0]!r}")
        counts = torch.tensor([stop - first for first, stop in spans], dtype=torch.long)
        #: int64 ``[targets]``: subtokens per target.
        self.counts = counts
        self.device = device
        starts = torch.cumsum(counts, 0) - counts
        # per subtoken (on the CPU, so that choosing rows never waits for an accelerator)
        self._target_of = torch.repeat_interleave(torch.arange(len(spans)), counts)
        within = torch.arange(int(counts.sum())) - starts[self._target_of]
        self._is_first = within == 0
        self._is_last = within == counts[self._target_of] - 1
        shape = (len(spans), n_layers, hidden_size)
        self.vectors = {
            pooling: torch.full(shape, -torch.inf, device=device)
            if pooling == "max"
            else torch.zeros(shape, device=device)
            for pooling in dict.fromkeys(poolings)
        }

    def add(self, subtokens: torch.Tensor, layer_states: Sequence[torch.Tensor]) -> None:
        """Pool the hidden states of ``subtokens`` (int64 ``[k]`` on the CPU, numbered as in the
        class notes): ``layer_states[j]`` is ``[k, dim]`` at the ``j``-th layer kept."""
        targets = self._target_of[subtokens]
        on_device = targets.to(self.device)
        for pooling, vectors in self.vectors.items():
            if pooling in ("first", "last"):
                keep = (self._is_first if pooling == "first" else self._is_last)[subtokens]
                rows = keep.nonzero().squeeze(1).to(self.device)
                chosen = targets[keep].to(self.device)
                for slot, states in enumerate(layer_states):
                    vectors[chosen, slot] = states[rows].float()
                continue
            for slot, states in enumerate(layer_states):
                if pooling == "mean":
                    vectors[:, slot].index_add_(0, on_device, states.float())
                else:
                    index = on_device[:, None].expand(-1, states.shape[-1])
                    vectors[:, slot].scatter_reduce_(0, index, states.float(), "amax")

    def result(self) -> dict[Pooling, torch.Tensor]:
        """Per pooling, the float32 ``[targets, layers, dim]`` vectors (on the device; call once:
        the means are divided in place)."""
        if "mean" in self.vectors:
            self.vectors["mean"].div_(self.counts.to(self.device)[:, None, None].float())
        return self.vectors
