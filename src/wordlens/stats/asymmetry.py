r"""Asymmetry of word relations: LAR, ALAR, CAM and direction accuracy (Zhang et al. 2021).

A *resource* R (evocation data, a static embedding, a masked language model) gives two
conditionals for a word pair, :math:`P_R(b \mid a)` and :math:`P_R(a \mid b)` (how likely ``b``
is evoked by the cue ``a``, and the reverse); any object with a
``conditional(cues, responses)`` method (:class:`ConditionalSource`) is one, e.g.
:class:`~wordlens.resources.association_norms.AssociationNorms` (eq. 5) and
:class:`~wordlens.models.static_conditionals.StaticConditionals` (eqs. 7-8). The paper's
equations were lost from its text; each is reconstructed here from the text, its tables and its
sources.

**Eq. 1, log asymmetry ratio** (the ratio of Griffiths, Steyvers & Tenenbaum 2007, logged):

.. math:: \operatorname{LAR}_R(a, b) = \log P_R(b \mid a) - \log P_R(a \mid b) \qquad (1)

in natural logarithms. The sign follows Tversky's reading in the paper ("if ``b`` relates to more
concepts than ``a`` does, ``P(b|a)`` will be greater than ``P(a|b)``"): the pair "ellipse ->
circle" has a positive LAR. It is the sign of the paper's Table 1, where (with ``a`` the head and
``b`` the tail of a ConceptNet relation) ``isA``, ``partOf`` and ``hasProperty`` are positive and
``hasA`` and ``capableOf`` negative. Measured on EAT (wordlens pairs and annotation), the mean of
eq. 1 is isA 0.349, partOf 0.593, hasProperty 0.369, hasA -0.573, capableOf -0.314 against the
paper's 43.56, 66.30, 40.63, -58.03, -31.80: the reverse difference ``log P(a|b) - log P(b|a)``
would flip every sign, and **the paper's Table 1 prints ALAR x 100**. LAR is undefined (NaN) when
either conditional is 0 or undefined: such pairs are excluded and counted, never given an
infinite LAR.

**Eq. 2, aggregated LAR** of relation ``r``: the mean LAR over the pairs :math:`S_r` that
ConceptNet relates by ``r``, each oriented head -> tail (``a`` = head,
:func:`~wordlens.resources.conceptnet.annotate_pairs`):

.. math:: \operatorname{ALAR}_R(S_r) = \frac{1}{|S_r|} \sum_{(a, b) \in S_r}
          \operatorname{LAR}_R(a, b) \qquad (2)

**Eqs. 3-4, correlation on asymmetry measure**: the map :math:`\mathcal{M}_R(S) =
\{(a, b) \mapsto \operatorname{LAR}_R(a, b)\}` over a pair set (eq. 3, a LAR table here), and

.. math:: \operatorname{CAM}_S(R_1, R_2) = \operatorname{Spearman}\left(\mathcal{M}_{R_1}(S),
          \mathcal{M}_{R_2}(S)\right) \qquad (4)

on the pairs common to both maps with a defined LAR in both (:func:`cam`; ties get average
ranks; fewer than 3 common pairs give NaN with a reason). Between two evocation data sets (Table 1)
each data set's own pairs are its bidirectional pairs
(:meth:`~wordlens.resources.association_norms.AssociationNorms.bidirectional_pairs`) and the CAM
of relation ``r`` uses their intersection.

**Eq. 9, common vocabulary**: to compare resources fairly, keep the pairs whose two words are in
the vocabulary of every compared resource (evocation data, embeddings, ConceptNet):
:func:`common_vocabulary_pairs`.

**Appendix G, eqs. 13-14, direction accuracy**: LAR is discretized into a direction indicator,
:math:`d_\theta(x) = \operatorname{sign}(x)` when :math:`|x| > \theta` and 0 otherwise (eq. 14),
and the accuracy of a model on the data is the share of pairs with a decided data direction
(:math:`|\operatorname{LAR}_{data}| > \theta`, strictly) whose model LAR has the same sign
(eq. 13). A model LAR of exactly 0 has no direction and counts as wrong; pairs with an
undefined LAR on either side are left out and counted. With :math:`\theta = 0` every pair with a
non-zero data LAR counts.

References
----------
.. [1] Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or
   Ellipses are like Circles? Measuring the Degree of Asymmetry of Static and Contextual Word
   Embeddings and the Implications to Representation Learning. *AAAI 2021*, section 3 (eqs. 1-4),
   section 5 (eq. 9), Appendix G (eqs. 13-14).
.. [2] Griffiths, T. L., Steyvers, M. & Tenenbaum, J. B. (2007). Topics in semantic
   representation. *Psychological Review* 114(2), 211-244.
.. [3] Tversky, A. (1977). Features of similarity. *Psychological Review* 84(4), 327-352.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.resources.association_norms import AssociationNorms
from wordlens.resources.conceptnet import ConceptNet, annotate_pairs
from wordlens.stats.correlation import (
    MIN_PAIRS,
    CorrelationResult,
    spearman,
    undefined_correlation,
)

FloatArray = npt.NDArray[np.float64]

PAIR_COLUMNS = ("relation", "a", "b")
"""The key of a LAR table: relation and the pair oriented head (``a``) -> tail (``b``)."""


@runtime_checkable
class ConditionalSource(Protocol):
    """A resource that gives ``P(response | cue)`` for word pairs."""

    def conditional(self, cues: Sequence[str], responses: Sequence[str]) -> FloatArray:
        """float64 ``[n]``: ``P(responses[i] | cues[i])``; NaN where undefined."""
        ...


@runtime_checkable
class Vocabulary(Protocol):
    """A model that knows which words it cannot embed (e.g. a static embedder)."""

    def missing_words(self, words: Sequence[str]) -> list[str]:
        """The distinct words not in the vocabulary."""
        ...


@dataclass(frozen=True)
class DirectionAccuracy:
    """Appendix G (eq. 13): the share of decided pairs whose model LAR has the data's sign.

    Attributes
    ----------
    accuracy : float
        ``n_correct / n``; NaN when no pair is decided (``n = 0``).
    n_correct : int
        Decided pairs where ``sign(LAR_model) == sign(LAR_data)``.
    n : int
        Decided pairs: both LARs defined and ``|LAR_data| > threshold``.
    n_undefined : int
        Pairs left out because a LAR is NaN.
    threshold : float
        The data threshold theta of eq. 14.
    """

    accuracy: float
    n_correct: int
    n: int
    n_undefined: int
    threshold: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def log_asymmetry_ratio(p_b_given_a: npt.ArrayLike, p_a_given_b: npt.ArrayLike) -> FloatArray:
    """Eq. 1: ``LAR(a, b) = log P(b|a) - log P(a|b)`` (natural log), element-wise.

    Parameters
    ----------
    p_b_given_a, p_a_given_b : array_like, shape ``[n]``
        The two conditionals of each pair, in [0, 1] or NaN (undefined).

    Returns
    -------
    numpy.ndarray, float64 ``[n]``
        NaN where either conditional is 0 or NaN (the ratio is undefined there).

    Raises
    ------
    WordlensError
        If the shapes differ or a value is outside [0, 1] (infinities included).
    """
    forward = np.asarray(p_b_given_a, dtype=np.float64)
    backward = np.asarray(p_a_given_b, dtype=np.float64)
    if forward.shape != backward.shape:
        raise WordlensError(
            f"the two conditionals must have the same shape; got {forward.shape} and "
            f"{backward.shape}"
        )
    for name, values in (("P(b|a)", forward), ("P(a|b)", backward)):
        outside = ~np.isnan(values) & ((values < 0.0) | (values > 1.0))
        if outside.any():
            raise WordlensError(
                f"{name} must be a probability in [0, 1]; got {values[outside][:3].tolist()}"
            )
    defined = (forward > 0.0) & (backward > 0.0)  # False for NaN
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(forward) - np.log(backward)
    return np.where(defined, ratio, np.nan)


def asymmetry_table(pairs: pd.DataFrame, source: ConditionalSource) -> pd.DataFrame:
    """Eqs. 1 and 3: both conditionals and the LAR of every oriented pair, from one resource.

    Parameters
    ----------
    pairs
        Columns ``a`` and ``b`` (the pair, oriented), and usually ``relation``
        (:func:`~wordlens.resources.conceptnet.annotate_pairs`); other columns are kept.
    source
        The resource (:class:`ConditionalSource`).

    Returns
    -------
    pandas.DataFrame
        `pairs` with ``p_b_given_a``, ``p_a_given_b`` and ``lar`` (NaN where undefined).

    Raises
    ------
    WordlensError
        If `pairs` lacks ``a`` or ``b``, or the source returns an invalid probability.
    """
    _require_columns(pairs, ("a", "b"), "pairs")
    heads = pairs["a"].astype(str).tolist()
    tails = pairs["b"].astype(str).tolist()
    forward = np.asarray(source.conditional(heads, tails), dtype=np.float64)
    backward = np.asarray(source.conditional(tails, heads), dtype=np.float64)
    return pairs.assign(
        p_b_given_a=forward,
        p_a_given_b=backward,
        lar=log_asymmetry_ratio(forward, backward),
    )


def evocation_asymmetry(
    norms: AssociationNorms, conceptnet: ConceptNet, *, include_negated: bool = True
) -> pd.DataFrame:
    """The LAR table of an evocation data set over its own pairs (RQ 1 of Zhang et al. 2021).

    The pairs are the norms' bidirectional pairs, annotated with their ConceptNet relations and
    oriented head -> tail (:func:`~wordlens.resources.conceptnet.annotate_pairs`); the
    conditionals are eq. 5.

    Returns
    -------
    pandas.DataFrame
        Columns ``relation``, ``a``, ``b``, ``p_b_given_a``, ``p_a_given_b``, ``lar``.
    """
    pairs = annotate_pairs(norms.bidirectional_pairs(), conceptnet, include_negated=include_negated)
    return asymmetry_table(pairs, norms)


def alar_by_relation(table: pd.DataFrame) -> pd.DataFrame:
    """Eq. 2: the mean LAR of each relation's pairs.

    Parameters
    ----------
    table
        A LAR table (:func:`asymmetry_table`) with ``relation`` and ``lar``.

    Returns
    -------
    pandas.DataFrame
        ``relation``, ``n_pairs`` (pairs with a defined LAR), ``n_undefined`` (left out) and
        ``alar`` (NaN when a relation has no defined pair), most pairs first.
    """
    _require_columns(table, ("relation", "lar"), "table")
    lar = table.groupby("relation", sort=True)["lar"]
    summary = pd.DataFrame(
        {"n_pairs": lar.count(), "n_undefined": lar.size() - lar.count(), "alar": lar.mean()}
    )
    return _most_pairs_first(summary.astype({"n_pairs": np.int64}).reset_index(), "n_pairs")


def cam(lar_x: pd.Series, lar_y: pd.Series, *, confidence: float = 0.95) -> CorrelationResult:
    """Eq. 4: Spearman's rho between two resources' LAR maps (eq. 3) on their common pairs.

    Parameters
    ----------
    lar_x, lar_y : pandas.Series
        LAR indexed by pair (e.g. a ``(a, b)`` MultiIndex); each index must be unique. Pairs in
        both indexes with a defined (non-NaN) LAR in both are correlated.
    confidence : float, default 0.95
        Level of the Fisher-z interval (:func:`~wordlens.stats.correlation.spearman`).

    Returns
    -------
    CorrelationResult
        rho, two-sided p, interval and ``n`` common pairs; with fewer than 3 common pairs, or a
        constant LAR, every value is NaN and ``reason`` says why.

    Raises
    ------
    WordlensError
        If an index repeats a pair.
    """
    for name, lar in (("lar_x", lar_x), ("lar_y", lar_y)):
        if not lar.index.is_unique:
            raise WordlensError(f"{name} lists a pair more than once; a LAR map is one per pair")
    common = pd.concat([lar_x.rename("x"), lar_y.rename("y")], axis=1, join="inner").dropna()
    return _spearman_or_nan(common["x"].to_numpy(), common["y"].to_numpy(), confidence)


def cam_by_relation(
    table_x: pd.DataFrame, table_y: pd.DataFrame, *, confidence: float = 0.95
) -> pd.DataFrame:
    """Eq. 4 per relation: CAM of two LAR tables on each relation's common pairs.

    Parameters
    ----------
    table_x, table_y
        LAR tables (:func:`asymmetry_table`) keyed by ``relation``, ``a``, ``b``.
    confidence : float, default 0.95
        Level of the intervals.

    Returns
    -------
    pandas.DataFrame
        ``relation``, ``n`` (common pairs with both LARs defined), ``cam``, ``p_value``,
        ``ci_low``, ``ci_high`` and ``reason`` (why ``cam`` is NaN, else None), most pairs
        first; one row per relation of either table.
    """
    merged = _merged_lars(table_x, table_y)
    rows = []
    for relation in _relations(table_x, table_y):
        group = merged[merged["relation"] == relation]
        result = _spearman_or_nan(group["lar_x"].to_numpy(), group["lar_y"].to_numpy(), confidence)
        rows.append(
            {
                "relation": relation,
                "n": result.n,
                "cam": result.r,
                "p_value": result.p_value,
                "ci_low": result.ci_low,
                "ci_high": result.ci_high,
                "reason": result.reason,
            }
        )
    return _most_pairs_first(pd.DataFrame(rows), "n")


def inter_dataset_table(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Table 1 of Zhang et al. (2021): per relation, each data set's count and ALAR and the CAM
    of every two data sets on their common pairs.

    Parameters
    ----------
    tables
        Data set name -> its LAR table (e.g. :func:`evocation_asymmetry`), at least two; the
        names are used in the column names (e.g. ``{"eat": ..., "usf": ...}``).

    Returns
    -------
    pandas.DataFrame
        One row per relation: ``relation``; ``count_<name>`` (pairs with a defined LAR) and
        ``alar_<name>`` (eq. 2, natural log; the paper prints 100 x ALAR) per data set; and per
        two data sets ``x``, ``y`` (in the order given) ``cam_<x>_<y>``, ``n_<x>_<y>`` (common
        pairs) and ``p_<x>_<y>``. Sorted by the first data set's count, largest first.

    Raises
    ------
    WordlensError
        If fewer than two tables are given.
    """
    if len(tables) < 2:
        raise WordlensError(f"Table 1 compares at least two data sets; got {len(tables)}")
    names = list(tables)
    columns: dict[str, pd.Series] = {}
    for name in names:
        alar = alar_by_relation(tables[name]).set_index("relation")
        columns[f"count_{name}"] = alar["n_pairs"]
        columns[f"alar_{name}"] = alar["alar"]
    for x, y in itertools.combinations(names, 2):
        result = cam_by_relation(tables[x], tables[y]).set_index("relation")
        columns[f"cam_{x}_{y}"] = result["cam"]
        columns[f"n_{x}_{y}"] = result["n"]
        columns[f"p_{x}_{y}"] = result["p_value"]
    table = pd.DataFrame(columns)
    counts = [f"count_{name}" for name in names] + [
        f"n_{x}_{y}" for x, y in itertools.combinations(names, 2)
    ]
    table[counts] = table[counts].fillna(0).astype(np.int64)
    table.index.name = "relation"
    return _most_pairs_first(table.reset_index(), f"count_{names[0]}")


def common_vocabulary_pairs(
    pairs: pd.DataFrame, vocabularies: Sequence[Collection[str] | Vocabulary]
) -> pd.DataFrame:
    """Eq. 9: the pairs whose two words are in every vocabulary.

    Parameters
    ----------
    pairs
        Columns ``a`` and ``b`` (other columns are kept).
    vocabularies
        Word collections (e.g. a set, :attr:`ConceptNet.vocabulary`) or models with
        ``missing_words`` (a static model's unknown words; a subword model's words read only
        as unknown tokens or as another word's subtokens).

    Returns
    -------
    pandas.DataFrame
        The rows of `pairs` whose ``a`` and ``b`` are known to all, index reset.

    Raises
    ------
    EmptyInputError
        If no vocabulary is given.
    """
    _require_columns(pairs, ("a", "b"), "pairs")
    if not vocabularies:
        raise EmptyInputError("eq. 9 needs at least one vocabulary")
    words = list(dict.fromkeys(itertools.chain(pairs["a"], pairs["b"])))
    unknown: set[str] = set()
    for vocabulary in vocabularies:
        if isinstance(vocabulary, Vocabulary):
            unknown.update(vocabulary.missing_words(words))
        else:
            unknown.update(word for word in words if word not in vocabulary)
    known = ~(pairs["a"].isin(unknown) | pairs["b"].isin(unknown))
    return pairs[known].reset_index(drop=True)


def direction_accuracy(
    lar_data: npt.ArrayLike, lar_model: npt.ArrayLike, *, threshold: float = 0.0
) -> DirectionAccuracy:
    """Appendix G (eqs. 13-14): how often a model's LAR points the data's way.

    Parameters
    ----------
    lar_data, lar_model : array_like, shape ``[n]``
        The LAR of the same pairs from the ground truth (evocation data) and from the model.
    threshold : float, default 0.0
        theta >= 0: only pairs with ``|LAR_data| > threshold`` have a direction to predict.

    Returns
    -------
    DirectionAccuracy

    Raises
    ------
    WordlensError
        If the shapes differ or `threshold` is negative or not finite.
    """
    data = np.asarray(lar_data, dtype=np.float64)
    model = np.asarray(lar_model, dtype=np.float64)
    if data.ndim != 1 or data.shape != model.shape:
        raise WordlensError(
            f"LARs must be 1-D of equal length; got shapes {data.shape} and {model.shape}"
        )
    if not (np.isfinite(threshold) and threshold >= 0.0):
        raise WordlensError(f"threshold must be a finite number >= 0; got {threshold}")
    defined = ~(np.isnan(data) | np.isnan(model))
    decided = defined & (np.abs(data) > threshold)
    n = int(np.count_nonzero(decided))
    n_correct = int(np.count_nonzero(np.sign(model[decided]) == np.sign(data[decided])))
    return DirectionAccuracy(
        accuracy=n_correct / n if n else float("nan"),
        n_correct=n_correct,
        n=n,
        n_undefined=int(np.count_nonzero(~defined)),
        threshold=float(threshold),
    )


def direction_accuracy_by_relation(
    table_data: pd.DataFrame, table_model: pd.DataFrame, *, threshold: float = 0.0
) -> pd.DataFrame:
    """Appendix G per relation, over the pairs common to the data's and the model's LAR tables.

    Returns
    -------
    pandas.DataFrame
        ``relation``, ``accuracy``, ``n_correct``, ``n``, ``n_undefined`` and ``threshold``, most
        decided pairs first.
    """
    merged = _merged_lars(table_data, table_model, how="left")
    rows = []
    for relation in _relations(table_data):
        group = merged[merged["relation"] == relation]
        result = direction_accuracy(group["lar_x"], group["lar_y"], threshold=threshold)
        rows.append({"relation": relation, **result.as_dict()})
    return _most_pairs_first(pd.DataFrame(rows), "n")


def _merged_lars(
    table_x: pd.DataFrame, table_y: pd.DataFrame, *, how: Literal["inner", "left"] = "inner"
) -> pd.DataFrame:
    """``relation``, ``a``, ``b``, ``lar_x``, ``lar_y`` of the pairs of both tables (or of the
    first, ``how="left"``)."""
    for name, table in (("table_x", table_x), ("table_y", table_y)):
        _require_columns(table, (*PAIR_COLUMNS, "lar"), name)
        if table.duplicated(list(PAIR_COLUMNS)).any():
            raise WordlensError(f"{name} lists a (relation, a, b) pair more than once")
    left = table_x[[*PAIR_COLUMNS, "lar"]].rename(columns={"lar": "lar_x"})
    right = table_y[[*PAIR_COLUMNS, "lar"]].rename(columns={"lar": "lar_y"})
    return left.merge(right, on=list(PAIR_COLUMNS), how=how)


def _relations(*tables: pd.DataFrame) -> list[str]:
    """The relations of the tables, sorted."""
    return sorted(set().union(*(set(table["relation"]) for table in tables)))


def _spearman_or_nan(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], confidence: float
) -> CorrelationResult:
    """Spearman on the pairs where both are defined; NaN with a reason below 3 pairs."""
    defined = ~(np.isnan(x) | np.isnan(y))
    n = int(np.count_nonzero(defined))
    if n < MIN_PAIRS:
        return undefined_correlation(
            n,
            "spearman",
            confidence,
            f"{n} common pair(s) with a defined LAR; a correlation needs at least {MIN_PAIRS}",
        )
    return spearman(x[defined], y[defined], confidence=confidence)


def _most_pairs_first(table: pd.DataFrame, count: str) -> pd.DataFrame:
    """Sorted by `count` (largest first), then relation."""
    return table.sort_values(
        [count, "relation"], ascending=[False, True], kind="stable", ignore_index=True
    )


def _require_columns(table: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise WordlensError(f"{name} needs columns {list(columns)}; missing {missing}")
