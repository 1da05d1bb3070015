"""Pearson and Spearman correlations with Fisher-z confidence intervals, per layer.

VAST (Wolfe & Caliskan 2022, step 4 of its method) and ValNorm take Pearson's r between the
SC-WEAT valence of the words of a lexicon and their human valence ratings, at each layer.

References
----------
.. [1] Fisher, R. A. (1921). On the "probable error" of a coefficient of correlation deduced from
   a small sample. *Metron* 1, 3-32.
.. [2] Bonett, D. G. & Wright, T. A. (2000). Sample size requirements for estimating Pearson,
   Kendall and Spearman correlations. *Psychometrika* 65(1), 23-28.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np
import numpy.typing as npt

from wordlens.errors import EmptyInputError, WordlensError

Method = Literal["pearson", "spearman"]
NanPolicy = Literal["omit", "raise"]
TooFew = Literal["raise", "nan"]

MIN_PAIRS = 3
"""Pairs a correlation needs: its p-value is undefined below 3 (``n - 2`` degrees of freedom)."""


@dataclass(frozen=True)
class CorrelationResult:
    """A correlation coefficient with its two-sided p-value and confidence interval.

    Attributes
    ----------
    r : float
        Pearson's r or Spearman's rho; NaN if an input is constant (see `reason`).
    p_value : float
        Two-sided p-value of scipy's test of r = 0.
    ci_low, ci_high : float
        Fisher-z confidence interval; NaN for ``n = 3`` (its standard error needs ``n > 3``).
    n : int
        Number of pairs used, after dropping pairs with NaN.
    method : {"pearson", "spearman"}
        Which coefficient.
    confidence : float
        Confidence level of the interval.
    reason : str or None
        Why `r` is NaN, or None when it is not.
    """

    r: float
    p_value: float
    ci_low: float
    ci_high: float
    n: int
    method: Method
    confidence: float = 0.95
    reason: str | None = None


def pearson(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    nan_policy: NanPolicy = "omit",
    confidence: float = 0.95,
) -> CorrelationResult:
    r"""Pearson's r, its p-value (``scipy.stats.pearsonr``) and a Fisher-z interval [1]_.

    .. math:: \tanh\left(\operatorname{artanh} r \pm z_{(1+c)/2} \frac{1}{\sqrt{n - 3}}\right)

    Parameters
    ----------
    x, y : array_like, shape ``[n]``
        Paired values, e.g. SC-WEAT effect sizes and human valence ratings.
    nan_policy : {"omit", "raise"}, default "omit"
        "omit" drops every pair in which either value is NaN; "raise" raises instead.
    confidence : float, default 0.95
        Confidence level ``c`` of the interval, in (0, 1).

    Returns
    -------
    CorrelationResult
        With ``method="pearson"``. A constant input gives r, p and interval NaN, with the reason.

    Raises
    ------
    EmptyInputError
        If no pair is left.
    WordlensError
        If the inputs are not 1-D of equal length, fewer than 3 pairs are left, a value is NaN
        with ``nan_policy="raise"``, or `confidence` is not in (0, 1).
    """
    return _correlate(x, y, "pearson", nan_policy, confidence)


def spearman(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    *,
    nan_policy: NanPolicy = "omit",
    confidence: float = 0.95,
) -> CorrelationResult:
    r"""Spearman's rho, its p-value (``scipy.stats.spearmanr``) and a Fisher-z interval.

    Tied values get their average rank. The interval uses the standard error of Bonett & Wright
    (2000) [2]_ for Spearman's rho:

    .. math:: \tanh\left(\operatorname{artanh} \rho \pm z_{(1+c)/2}
              \sqrt{\frac{1 + \rho^2 / 2}{n - 3}}\right)

    Parameters
    ----------
    x, y : array_like, shape ``[n]``
        Paired values.
    nan_policy : {"omit", "raise"}, default "omit"
        "omit" drops every pair in which either value is NaN; "raise" raises instead.
    confidence : float, default 0.95
        Confidence level ``c`` of the interval, in (0, 1).

    Returns
    -------
    CorrelationResult
        With ``method="spearman"``. A constant input gives rho, p and interval NaN, with the
        reason.

    Raises
    ------
    EmptyInputError
        If no pair is left.
    WordlensError
        If the inputs are not 1-D of equal length, fewer than 3 pairs are left, a value is NaN
        with ``nan_policy="raise"``, or `confidence` is not in (0, 1).
    """
    return _correlate(x, y, "spearman", nan_policy, confidence)


def fisher_interval(
    r: float, n: int, *, method: Method = "pearson", confidence: float = 0.95
) -> tuple[float, float]:
    r"""The Fisher-z confidence interval of a correlation ``r`` over ``n`` pairs, as
    :func:`pearson` and :func:`spearman` give it:

    .. math:: \tanh\left(\operatorname{artanh} r \pm z_{(1+c)/2}\, \mathrm{SE}\right),
              \qquad \mathrm{SE} = \frac{1}{\sqrt{n - 3}}\ \text{(Pearson [1]_)},\quad
              \sqrt{\frac{1 + r^2 / 2}{n - 3}}\ \text{(Spearman [2]_)}

    Parameters
    ----------
    r : float
        The coefficient, in [-1, 1] (NaN gives a NaN interval).
    n : int
        Number of pairs it was computed over.
    method : {"pearson", "spearman"}, default "pearson"
        Which standard error.
    confidence : float, default 0.95
        Confidence level ``c``.

    Returns
    -------
    tuple of float
        ``(low, high)``; NaN for ``n <= 3`` (the standard error needs ``n > 3``), ``(r, r)`` for
        ``|r| = 1``.
    """
    if n <= 3 or math.isnan(r):
        return math.nan, math.nan
    squared = r * r if method == "spearman" else 0.0
    spread = NormalDist().inv_cdf((1.0 + confidence) / 2.0) * math.sqrt(
        (1.0 + squared / 2.0) / (n - 3)
    )
    if abs(r) >= 1.0:  # z = ±inf: the interval [r, r]
        return r, r
    z = math.atanh(r)
    return math.tanh(z - spread), math.tanh(z + spread)


def correlation_by_layer(
    scores: npt.ArrayLike,
    reference: npt.ArrayLike,
    *,
    method: Method = "pearson",
    nan_policy: NanPolicy = "omit",
    confidence: float = 0.95,
) -> list[CorrelationResult]:
    """Correlate each layer's scores with one reference, e.g. human valence (VAST step 4).

    Parameters
    ----------
    scores : array_like, shape ``[n_words, n_layers]``
        Per-word scores at every layer, e.g. from :func:`~wordlens.stats.association.sc_weat`.
    reference : array_like, shape ``[n_words]``
        One value per word, e.g. the lexicon's valence rating.
    method : {"pearson", "spearman"}, default "pearson"
        Which coefficient, as :func:`pearson` or :func:`spearman`.
    nan_policy : {"omit", "raise"}, default "omit"
        Applied per layer, so a NaN score drops a word at that layer only.
    confidence : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    list of CorrelationResult
        One per layer, in layer order. A layer with fewer than :data:`MIN_PAIRS` pairs without
        NaN (e.g. every score NaN: SC-WEAT is undefined for a word whose cosines with all polar
        words are equal, as on a random model's collinear top PC) gives r, p and interval NaN
        with the reason, as a constant layer does; the other layers are correlated all the same.

    Raises
    ------
    WordlensError
        If `scores` is not 2-D with one row per reference value, a value is NaN with
        ``nan_policy="raise"``, or `confidence` is not in (0, 1).
    """
    score_matrix = np.asarray(scores, dtype=np.float64)
    reference_values = np.asarray(reference, dtype=np.float64)
    if score_matrix.ndim != 2 or reference_values.shape != score_matrix.shape[:1]:
        raise WordlensError(
            f"scores must have shape [n_words, n_layers] and reference [n_words]; got "
            f"{score_matrix.shape} and {reference_values.shape}"
        )
    return [
        _correlate(column, reference_values, method, nan_policy, confidence, too_few="nan")
        for column in score_matrix.T
    ]


def _correlate(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    method: Method,
    nan_policy: NanPolicy,
    confidence: float,
    *,
    too_few: TooFew = "raise",
) -> CorrelationResult:
    """Shared body of :func:`pearson`, :func:`spearman` and :func:`correlation_by_layer`.

    ``too_few="nan"`` gives fewer than :data:`MIN_PAIRS` pairs without NaN a NaN result with the
    reason instead of raising (one layer of many: :func:`correlation_by_layer`).
    """
    from scipy import stats  # imported here: scipy.stats takes 0.4 s, most commands never use it

    xs, ys = _paired(x, y, nan_policy, too_few)
    if not 0.0 < confidence < 1.0:
        raise WordlensError(f"confidence must be in (0, 1); got {confidence}")
    n = len(xs)
    if n < MIN_PAIRS:
        return undefined_correlation(
            n,
            method,
            confidence,
            f"{n} of {np.size(x)} pair(s) without NaN: a correlation needs at least {MIN_PAIRS}",
        )
    constant = [name for name, values in (("x", xs), ("y", ys)) if np.ptp(values) == 0]
    if constant:
        return undefined_correlation(
            n,
            method,
            confidence,
            f"constant input ({', '.join(constant)}): the correlation is undefined",
        )
    if method == "pearson":
        pearson_result = stats.pearsonr(xs, ys)
        r, p_value = float(pearson_result.statistic), float(pearson_result.pvalue)
    else:
        spearman_result = stats.spearmanr(xs, ys)
        r, p_value = float(spearman_result.statistic), float(spearman_result.pvalue)
    ci_low, ci_high = fisher_interval(r, n, method=method, confidence=confidence)
    return CorrelationResult(
        r=r,
        p_value=p_value,
        ci_low=ci_low,
        ci_high=ci_high,
        n=n,
        method=method,
        confidence=confidence,
    )


def undefined_correlation(
    n: int, method: Method, confidence: float, reason: str
) -> CorrelationResult:
    """A correlation over ``n`` pairs that is undefined: r, p and interval NaN, with `reason`."""
    return CorrelationResult(
        r=np.nan,
        p_value=np.nan,
        ci_low=np.nan,
        ci_high=np.nan,
        n=n,
        method=method,
        confidence=confidence,
        reason=reason,
    )


def _paired(
    x: npt.ArrayLike, y: npt.ArrayLike, nan_policy: NanPolicy, too_few: TooFew
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Validate two 1-D inputs and drop (or reject) pairs with NaN; with ``too_few="raise"``,
    at least :data:`MIN_PAIRS` pairs remain."""
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    if xs.ndim != 1 or xs.shape != ys.shape:
        raise WordlensError(
            f"x and y must be 1-D of equal length; got shapes {xs.shape} and {ys.shape}"
        )
    if nan_policy not in ("omit", "raise"):
        raise WordlensError(f"nan_policy must be 'omit' or 'raise'; got {nan_policy!r}")
    keep = ~(np.isnan(xs) | np.isnan(ys))
    if nan_policy == "raise" and not keep.all():
        raise WordlensError(f"{np.count_nonzero(~keep)} pair(s) contain NaN (nan_policy='raise')")
    if too_few == "raise" and not keep.any():
        raise EmptyInputError("no pair of values without NaN to correlate")
    if too_few == "raise" and np.count_nonzero(keep) < MIN_PAIRS:
        raise WordlensError(
            f"a correlation needs at least {MIN_PAIRS} pairs; got {np.count_nonzero(keep)} "
            "without NaN"
        )
    return xs[keep], ys[keep]
