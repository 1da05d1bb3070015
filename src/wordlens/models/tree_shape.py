"""The shape of a prefix tree read from sorted token ids, without building it.

Batch planning (:func:`wordlens.models.prefix.token_batches`) needs, for a run of texts, the tokens
the passes over their prefix tree (:class:`wordlens.models.prefix.PrefixTree`) would compute, with
and without padding. Both follow from the texts in lexicographic order and the longest common
prefix (LCP) of neighbours: all texts are sorted once (:class:`SortedTexts`: one ``sorted``,
the neighbours' LCP on padded ``int64`` blocks), and any subset's neighbour LCPs are range minima
of that array (a sparse table). A subset's tree is then:

- its **leaves**: each distinct text that is no head of another, holding ``[b, len)``, where ``b``
  is its larger LCP with its two neighbours among those texts (0 below the shortest shared head);
- its **branching nodes**: the LCP intervals of those neighbours (the stack walk of
  :func:`_branching_rows`), a node of value ``v`` below its parent of value ``u`` holding
  ``[u, v)``, at the depth of its number of ancestors.

Each level's rows are split into passes by :func:`width_groups` and cost their padded tokens
(:func:`padded_level_tokens`), exactly as the built tree counts them (tested against it on random
sets of heads, duplicates and one-token texts).
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from wordlens.errors import WordlensError

TokenIds = tuple[int, ...]

#: Level of the leaf passes (branching nodes are at their depth, >= 0).
LEAVES = -1


def width_groups(widths: Counter[int], pass_cost: int | None) -> list[int]:
    """Split the rows of one level into passes of similar widths.

    A pass costs its padded tokens, ``rows * widest row``, plus ``pass_cost`` tokens for being a
    pass at all; groups of consecutive widths are chosen to minimize the total (dynamic
    programming over the distinct widths, widest first).

    Parameters
    ----------
    widths
        Number of rows of each width.
    pass_cost
        Cost of one more pass in tokens; ``None``: one pass.

    Returns
    -------
    list[int]
        The widest row of each pass, decreasing: a row belongs to the pass of the smallest of these
        that is at least its width.
    """
    distinct = sorted(widths, reverse=True)
    if pass_cost is None:
        return distinct[:1]
    counts = [widths[width] for width in distinct]
    rows_from = [sum(counts[first:]) for first in range(len(counts) + 1)]  # rows this wide or less
    best: list[tuple[int, int]] = [(0, len(distinct))] * (len(distinct) + 1)  # (cost, next)
    for first in reversed(range(len(distinct))):
        best[first] = min(
            (
                distinct[first] * (rows_from[first] - rows_from[stop]) + pass_cost + best[stop][0],
                stop,
            )
            for stop in range(first + 1, len(distinct) + 1)
        )
    starts, first = [], 0
    while first < len(distinct):
        starts.append(distinct[first])
        first = best[first][1]
    return starts


def padded_level_tokens(widths: Counter[int], pass_cost: int | None) -> int:
    """Padded tokens of one level's passes: ``sum over passes of rows * widest``, the rows split
    by :func:`width_groups`."""
    bounds = [*width_groups(widths, pass_cost), 0]
    return sum(
        widest * sum(n for width, n in widths.items() if lower < width <= widest)
        for widest, lower in itertools.pairwise(bounds)
    )


@dataclass(frozen=True)
class SortedTexts:
    """Texts' token ids in lexicographic order, with their neighbours' longest common prefix.

    Attributes
    ----------
    distinct
        The distinct texts, sorted: ``[D]``.
    lengths
        int64 ``[D]``: tokens of each.
    between
        int64 ``[D - 1]``: the LCP of distinct texts ``k`` and ``k + 1``.
    rank
        int64 ``[N]``: each given text's row of ``distinct``.
    minima
        int64 ``[levels, D - 1]``: row ``j`` holds ``min(between[i : i + 2 ** j])`` (a sparse table;
        past the end of a row, the largest int64).
    """

    distinct: list[TokenIds]
    lengths: npt.NDArray[np.int64]
    between: npt.NDArray[np.int64]
    rank: npt.NDArray[np.int64]
    minima: npt.NDArray[np.int64]

    @classmethod
    def of(cls, sequences: Sequence[Sequence[int]]) -> SortedTexts:
        """Sort ``sequences`` (token ids per text).

        Raises
        ------
        WordlensError
            If a text has no tokens.
        """
        keys = [tuple(sequence) for sequence in sequences]
        distinct = sorted(set(keys))
        row_of = {sequence: row for row, sequence in enumerate(distinct)}
        rank = np.fromiter((row_of[key] for key in keys), np.int64, len(keys))
        lengths = np.fromiter(map(len, distinct), np.int64, len(distinct))
        if len(lengths) and lengths.min() == 0:
            raise WordlensError("a text of the prefix tree has no tokens")
        between = _neighbour_lcp(distinct, lengths)
        levels = [between]
        while 2 ** len(levels) <= len(between):
            half = 2 ** (len(levels) - 1)
            below = levels[-1]
            levels.append(np.minimum(below[:-half], below[half:]))
        minima = np.full((len(levels), len(between)), np.iinfo(np.int64).max, dtype=np.int64)
        for level, values in enumerate(levels):
            minima[level, : len(values)] = values
        return cls(distinct, lengths, between, rank, minima)

    def shared(
        self, first: npt.NDArray[np.int64], second: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """LCP of distinct texts ``first[i] < second[i]``: the minimum of ``between`` from one to
        the other (two lookups in :attr:`minima`)."""
        span = second - first  # >= 1
        level = np.floor(np.log2(np.maximum(span, 1))).astype(np.int64)
        found: npt.NDArray[np.int64] = np.minimum(
            self.minima[level, first], self.minima[level, second - 2**level]
        )
        return found

    def own_lengths(self, min_shared_tokens: int) -> npt.NDArray[np.int64]:
        """Per distinct text, the tokens of its own leaf in the prefix tree of all of them
        (:func:`own_lengths`), ``[D]``."""
        lengths, between = self.lengths, self.between
        is_head = np.append(between >= lengths[:-1], False)  # [D]: a head of the next text
        earlier = np.append(0, between)  # [D]: LCP with the previous text, unless it is a head...
        for text in np.flatnonzero(np.append(False, is_head[:-1])):  # ...of this one: look further
            shared, other = int(between[text - 1]), text - 1
            while other >= 0 and shared >= lengths[other]:  # text ``other`` is a head of ``text``
                other -= 1
                shared = min(shared, int(between[other])) if other >= 0 else 0
            earlier[text] = shared
        branch = np.maximum(earlier, np.append(between, 0))  # [D]: LCP with the next text
        branch[branch < min_shared_tokens] = 0
        own = np.where(is_head & (lengths >= min_shared_tokens), 0, lengths - branch)
        for head in np.flatnonzero(own == 0):
            below = np.minimum.accumulate(between[head:]) >= lengths[head]  # its extensions
            stop = head + 1 + (int(np.argmin(below)) if not below.all() else len(below))
            extensions = own[head + 1 : stop]
            own[head] = int(extensions[extensions > 0].max())
        return own

    def real_tokens(self, texts: npt.NDArray[np.int64], min_shared_tokens: int) -> int:
        """Tokens of the prefix tree of the distinct texts ``texts`` (rows of :attr:`distinct`,
        any order, repeats allowed) without padding, as
        :attr:`~wordlens.models.prefix.PrefixTree.real_tokens` counts them: its leaves' texts'
        tokens less what neighbours share (no walk of the tree: cheap enough to bisect on)."""
        lengths, shared = self._leaves(texts, min_shared_tokens)
        return int(lengths.sum() - shared.sum())

    def padded_tokens(
        self, texts: npt.NDArray[np.int64], min_shared_tokens: int, pass_cost: int | None
    ) -> int:
        """Tokens of the passes over the prefix tree of ``texts`` (as :meth:`real_tokens`) with
        their padding, as :attr:`~wordlens.models.prefix.PrefixTree.padded_tokens` counts them
        (see the module docstring)."""
        lengths, shared = self._leaves(texts, min_shared_tokens)
        leaf_widths = lengths - np.maximum(np.append(0, shared), np.append(shared, 0))
        levels = _branching_rows(shared.tolist())
        levels[LEAVES] = Counter(leaf_widths.tolist())
        return sum(padded_level_tokens(widths, pass_cost) for widths in levels.values())

    def _leaves(
        self, texts: npt.NDArray[np.int64], min_shared_tokens: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The tokens of the distinct texts of ``texts`` that end in a leaf of their own (no head
        of another), sorted, ``[m]``, and the head each shares with the next, ``[m - 1]`` (0
        below ``min_shared_tokens``)."""
        rows = np.unique(texts)  # [n], sorted
        shared = self.shared(rows[:-1], rows[1:])  # [n - 1]
        heads = (shared >= self.lengths[rows[:-1]]) & (self.lengths[rows[:-1]] >= min_shared_tokens)
        kept = rows[np.append(~heads, True)]  # [m]
        shared = self.shared(kept[:-1], kept[1:])  # [m - 1]
        shared[shared < min_shared_tokens] = 0
        return self.lengths[kept], shared


def _branching_rows(shared: list[int]) -> defaultdict[int, Counter[int]]:
    """Per depth, the widths of a tree's branching nodes, from the LCP of its leaves' texts in
    sorted order: each LCP interval of value ``v`` (a maximal run of neighbours sharing at least
    ``v`` tokens, ``v > 0``) is a node ``[u, v)`` below its enclosing interval of value ``u``.
    A stack walk finds each node's parent (an enclosing interval may open after the nodes it
    holds); depths follow from the parents, which hold fewer tokens than their children."""
    values: list[int] = [0]  # per node; node 0: above the roots
    parents: list[int] = [0]
    open_nodes = [0]  # enclosing intervals, increasing values
    for value in [*shared, 0]:
        orphans = []  # closed nodes whose parent is the interval opening at ``value``
        while values[open_nodes[-1]] > value:
            closed = open_nodes.pop()
            if values[open_nodes[-1]] >= value:
                parents[closed] = open_nodes[-1]
            else:
                orphans.append(closed)
        if values[open_nodes[-1]] < value:
            open_nodes.append(len(values))
            values.append(value)
            parents.append(0)
        for closed in orphans:
            parents[closed] = open_nodes[-1]
    depths = [-1] * len(values)  # node 0's children are at depth 0
    rows: defaultdict[int, Counter[int]] = defaultdict(Counter)
    for node in sorted(range(1, len(values)), key=values.__getitem__):
        depths[node] = depths[parents[node]] + 1
        rows[depths[node]][values[node] - values[parents[node]]] += 1
    return rows


def own_lengths(sequences: Sequence[Sequence[int]], min_shared_tokens: int) -> list[int]:
    """Per text, the tokens of its own leaf in the prefix tree of all ``sequences``: the leaf
    holding its last token, or, for a text that is a head of others, the longest leaf below the
    node holding its last token — computed on arrays, without building the tree.

    A tree branches only where texts diverge (a text ending inside another adds no node). In
    lexicographic order, the texts a text diverges from that share its longest head are its next
    neighbour and the nearest earlier text that is not a head of it, so each distinct text's
    branching point is ``b = max(those two LCPs)`` (0 below ``min_shared_tokens``: it branches
    off no text). A text that is no head of another ends in its own leaf ``[b, len)``. A head
    ends in the node whose subtree holds exactly the texts it is a head of (they follow it in
    sorted order while the running minimum of the neighbours' LCP stays >= its length); its own
    length is their longest leaf. Identical texts share one leaf; a head shorter than
    ``min_shared_tokens`` shares nothing and is a root of its own.

    Parameters
    ----------
    sequences
        Token ids of each text.
    min_shared_tokens
        Shortest head texts share (:class:`~wordlens.models.prefix.PrefixTree`).

    Returns
    -------
    list[int]
        Per text, in the order given.

    Raises
    ------
    WordlensError
        If a text has no tokens.
    """
    texts = SortedTexts.of(sequences)
    return texts.own_lengths(min_shared_tokens)[texts.rank].tolist()  # type: ignore[no-any-return]


def _neighbour_lcp(
    distinct: Sequence[TokenIds], lengths: npt.NDArray[np.int64], chunk_rows: int = 4096
) -> npt.NDArray[np.int64]:
    """Longest common prefix of each pair of neighbours ``k, k + 1``, ``[D - 1]``: the texts
    padded into chunks of a ``[rows, widest]`` array (-1 past each end, which no token id
    equals) and compared column by column."""
    found = np.zeros(max(len(distinct) - 1, 0), dtype=np.int64)
    for first in range(0, len(found), chunk_rows):
        rows = range(first, min(first + chunk_rows + 1, len(distinct)))  # one row of overlap
        widths = lengths[rows.start : rows.stop]
        flat = np.fromiter(
            itertools.chain.from_iterable(distinct[row] for row in rows), np.int64, widths.sum()
        )
        block = np.full((len(rows), int(widths.max())), -1, dtype=np.int64)
        block[np.arange(block.shape[1])[None, :] < widths[:, None]] = flat
        differs = block[1:] != block[:-1]  # [rows - 1, widest]
        first_difference = np.where(differs.any(axis=1), differs.argmax(axis=1), block.shape[1])
        found[first : first + len(rows) - 1] = np.minimum(
            first_difference, np.minimum(widths[1:], widths[:-1])
        )
    return found
