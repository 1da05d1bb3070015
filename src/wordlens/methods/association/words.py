"""Per-word scores: what each word contributes to a metric's value at every layer (the ``words``
table of WEAT and of the association metrics), and the most extreme of them, as the console
and the report show them.

Each metric writes the exact term whose sum or mean (or, for ECT, whose rank correlation) is its
value at that layer: WEAT's ``s(w, A, B)`` of every target word (Caliskan et al. 2017), RND's
distance difference of every attribute word (Garg et al. 2018), ECT's two cosines of every
attribute word (Dev & Phillips 2019), RIPA's ``β(w; b)`` of every attribute word (Ethayarajh
et al. 2019), SemAxis's ``cos(w, v)`` of every target word (An et al. 2018, Eq. 2), RNSB's
probability of negative sentiment and KL term of every target word (Sweeney & Najafian 2019,
§3) and MAC's ``S(t, A_j)`` of every target word and attribute set (Manzini et al. 2019).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table

    from wordlens.methods.association.vectors import FloatArray
    from wordlens.report.html import Report

WORD_COLUMNS = ("layer", "set", "word", "quantity", "score")
"""The columns of a ``words`` table after its key columns (``metric``, ``part`` of an
association metric; ``test`` of WEAT): one row per word, quantity and layer."""
TOP_WORDS = 10
"""How many words the report shows per part and quantity (at the last layer)."""
CONSOLE_WORDS = 5
"""How many the console shows."""


@dataclass(frozen=True)
class Contribution:
    """One quantity of a metric's per-word scores on one part of a query.

    Attributes
    ----------
    quantity
        What the score is, in a formula (``"beta(w; b) = <w, b>"``).
    sets
        Each set whose words it scores, by name, in the query's order: ``[n_words, n_layers]``
        each, rows in the order of the set's words.
    """

    quantity: str
    sets: Mapping[str, FloatArray]


def words_table(
    keys: Mapping[str, Any],
    layers: Sequence[int],
    words: Mapping[str, Sequence[str]],
    contributions: Iterable[Contribution],
) -> pd.DataFrame:
    """The tidy table of ``contributions``: the ``keys`` columns (constant), then
    :data:`WORD_COLUMNS`, one row per set, word, quantity and layer (vectorised: each set's
    ``[n_words, n_layers]`` scores flattened word by word).

    Parameters
    ----------
    keys
        The columns naming the evaluation (``{"metric": "rnd", "part": "pleasant"}``).
    layers
        The model's layer numbers, the scores' second axis.
    words
        Each set's words, by name, in the order of the scores' rows.
    contributions
        The metric's per-word scores (:class:`Contribution`).
    """
    import pandas as pd

    chunks: dict[str, list[Any]] = {name: [] for name in (*keys, *WORD_COLUMNS)}
    n_layers = len(layers)
    for contribution in contributions:
        for name, scores in contribution.sets.items():
            listed = list(words[name])
            n_rows = len(listed) * n_layers
            for key, value in keys.items():
                chunks[key].append(np.full(n_rows, value, dtype=object))
            chunks["layer"].append(np.tile(np.asarray(layers, dtype=np.int64), len(listed)))
            chunks["set"].append(np.full(n_rows, name, dtype=object))
            chunks["word"].append(np.repeat(np.asarray(listed, dtype=object), n_layers))
            chunks["quantity"].append(np.full(n_rows, contribution.quantity, dtype=object))
            chunks["score"].append(np.asarray(scores, dtype=np.float64).reshape(n_rows))
    if not chunks["score"]:
        return empty_words(keys)
    table = pd.DataFrame({name: np.concatenate(parts) for name, parts in chunks.items()})
    return table.astype({name: type(value) for name, value in keys.items()} | {"layer": "int64"})


def empty_words(keys: Iterable[str]) -> pd.DataFrame:
    """A ``words`` table without rows (a skipped query, every test skipped)."""
    import pandas as pd

    return pd.DataFrame(columns=[*keys, *WORD_COLUMNS])


def most_extreme(table: pd.DataFrame, by: Sequence[str], top: int | None = None) -> pd.DataFrame:
    """The rows of ``table`` (a ``words`` table) at its last layer, largest ``|score|`` first
    (NaN last) within each group of ``by`` and ``quantity``, the groups in their order in the
    table; the first ``top`` of each group, or all."""
    if not len(table):
        return table
    last = table[table["layer"] == table["layer"].max()]
    ordered = last.assign(_size=last["score"].abs()).sort_values(
        "_size", ascending=False, kind="stable", na_position="last"
    )
    groups = [*by, "quantity"]
    if top is not None:
        ordered = ordered.groupby(groups, sort=False, dropna=False).head(top)
    order = {key: rank for rank, key in enumerate(dict.fromkeys(_keys(last, groups)))}
    ranked = ordered.assign(_group=[order[key] for key in _keys(ordered, groups)])
    shown: pd.DataFrame = (
        ranked.sort_values(["_group", "_size"], ascending=[True, False], kind="stable")
        .drop(columns=["_size", "_group"])
        .reset_index(drop=True)
    )
    return shown


def _keys(table: pd.DataFrame, columns: Sequence[str]) -> list[tuple[Any, ...]]:
    """Each row's values of ``columns``, as tuples."""
    return list(zip(*(table[column] for column in columns), strict=True))


def words_console(table: pd.DataFrame, by: Sequence[str], title: str) -> Table | None:
    """The :data:`CONSOLE_WORDS` most extreme words of each group at the last layer
    (:func:`most_extreme`) as a console table, or None for a table without rows."""
    from rich.table import Table

    shown = most_extreme(table, by, CONSOLE_WORDS)
    if not len(shown):
        return None
    grid = Table(
        title=f"{title}: per-word scores at layer {int(table['layer'].max())}, largest |score| "
        f"first (the {CONSOLE_WORDS} most extreme of each; all in the words table)",
        title_justify="left",
    )
    columns = [*by, "quantity", "set", "word", "score"]
    for column in columns:
        grid.add_column(column, justify="right" if column == "score" else "left")
    for row in shown[columns].itertuples(index=False):
        *labels, score = row
        grid.add_row(*(str(label) for label in labels), f"{score:+.3f}")
    return grid


def words_section(report: Report, table: pd.DataFrame, by: Sequence[str], totals: str) -> None:
    """The report's section of per-word scores: how they give the value (``totals``), then the
    :data:`TOP_WORDS` most extreme words of each group at the last layer (the run's ``words``
    table has every word at every layer)."""
    if not len(table):
        return
    report.heading("Per-word scores, most extreme first")
    report.paragraph(
        f"{totals} At layer {int(table['layer'].max())}, the {TOP_WORDS} words of largest "
        "|score| of each part and quantity; the words table has every word at every layer."
    )
    report.table(most_extreme(table, by, TOP_WORDS))
