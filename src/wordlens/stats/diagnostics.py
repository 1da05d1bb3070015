r"""Why a WEAT or permutation result may mislead: too few partitions, or a NaN statistic.

With ``N = C(n_x + n_y, n_x)`` partitions of the items into groups of the observed sizes, the exact
one-sided p of Caliskan et al. 2017 [1]_ (Methods), ``#{i : s_i > s_obs} / N``, can only be a
multiple of ``1 / N`` from 0 to ``(N - 1) / N``: the smallest nonzero p is ``1 / N``, and p = 0
only says that no partition exceeds the observed one, which happens by chance at least ``1 / N``
of the time (with one target word per side, 2 partitions: half the time).
:func:`few_partitions_warning` says so when ``N`` is below :data:`MIN_PARTITIONS`.

The effect size

.. math:: d = \frac{\operatorname{mean}_{x \in X} s(x, A, B)
                   - \operatorname{mean}_{y \in Y} s(y, A, B)}
                  {\operatorname{std}_{w \in X \cup Y} s(w, A, B)}

and the p-values are NaN where a vector holds NaN or is zero (its cosine is undefined) or where
every ``s(w, A, B)`` is the same (the standard deviation is 0 and every partition has the same
statistic). :func:`weat_nan_reasons` and :func:`score_nan_reasons` give the reason per layer, and
:func:`nan_warning` words it.

References
----------
.. [1] Caliskan, A., Bryson, J. J. & Narayanan, A. (2017). Semantics derived automatically from
   language corpora contain human-like biases. *Science* 356(6334), 183-186.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from wordlens.errors import FewPartitionsWarning, UndefinedStatisticWarning, shown_word
from wordlens.stats.association import RELATIVE_TOLERANCE, FloatArray, _unit

MIN_PARTITIONS = 100
"""Fewest partitions a permutation test has without a :class:`FewPartitionsWarning`."""

ReasonArray = npt.NDArray[np.object_]
"""Reasons (``str``) per layer, ``""`` where the statistic is a number."""

_ROLE_NAMES = {"x": "X", "y": "Y", "attr_a": "A", "attr_b": "B"}
_SHOWN_VECTORS = 5


def few_partitions_warning(
    n_x: int,
    n_y: int,
    items: str = "scores",
    ddof: int | None = None,
    n_samples: int | None = None,
    *,
    observed_counts: bool = False,
) -> FewPartitionsWarning | None:
    """The warning for a permutation test with fewer than :data:`MIN_PARTITIONS` partitions.

    Parameters
    ----------
    n_x, n_y
        Sizes of the two groups, at least 1 each.
    items
        What the groups hold, for the message (``"scores"``, ``"target words"``).
    ddof
        The effect size's delta degrees of freedom, to say that with ``n_x = n_y = 1`` it can
        only be ``±sqrt(2 (2 - ddof))`` (``±sqrt(2)`` for ddof 1); None: no effect size.
    n_samples
        The test's `n_samples`: when the ``N`` partitions do not fit in it they are sampled and
        the message says what a sampled p can be; None: all are enumerated.
    observed_counts
        Whether the enumerated p counts the observed partition (``#{s_i >= s_obs} / N``, the
        association metrics' test) rather than Caliskan et al.'s strict ``>`` (WEAT).

    Returns
    -------
    FewPartitionsWarning or None
        None when there are at least :data:`MIN_PARTITIONS` partitions. The message gives ``N``
        and the values the p can take: enumerated, multiples of ``1 / N`` from 0 to
        ``(N - 1) / N`` (Caliskan et al.'s strict ``>``, 0 meaning only that no partition
        exceeds the observed one) or from ``1 / N`` to 1 (``observed_counts``); sampled,
        ``(b + 1) / n_samples``.
    """
    n_partitions = math.comb(n_x + n_y, n_x)
    if n_partitions >= MIN_PARTITIONS:
        return None
    message = (
        f"only {n_partitions} distinct partitions of the {n_x} + {n_y} {items} "
        f"(C({n_x + n_y}, {n_x}) = {n_partitions}, fewer than {MIN_PARTITIONS}): "
        + _possible_p(n_partitions, n_samples, observed_counts=observed_counts)
    )
    if n_x == n_y == 1 and ddof is not None:
        message += (
            ", and with one word per side the effect size can only be "
            f"±{math.sqrt(2 * (2 - ddof)):.4g} (ddof={ddof})"
        )
    return FewPartitionsWarning(f"{message}; more {items} give more partitions")


def few_swaps_warning(
    n_pairs: int, n_samples: int, items: str = "pairs", *, observed_counts: bool = False
) -> FewPartitionsWarning | None:
    """The warning for a test that swaps the two items within pairs (a paired test, RIPA's
    ``relation="pairs"``) when its ``2^n_pairs`` relabellings are fewer than
    :data:`MIN_PARTITIONS`; ``items`` and ``observed_counts`` as :func:`few_partitions_warning`.
    None otherwise."""
    n_relabellings = 2**n_pairs
    if n_relabellings >= MIN_PARTITIONS:
        return None
    return FewPartitionsWarning(
        f"only {n_relabellings} relabellings of the {n_pairs} {items} (2^{n_pairs} = "
        f"{n_relabellings}, fewer than {MIN_PARTITIONS}): "
        + _possible_p(n_relabellings, n_samples, observed_counts=observed_counts)
        + f"; more {items} give more relabellings"
    )


def _possible_p(n_partitions: int, n_samples: int | None, *, observed_counts: bool = False) -> str:
    """What the p of a test with `n_partitions` relabellings can be, in words: one-sided with
    Caliskan et al.'s strict ``>`` (WEAT), or any p that counts the observed relabelling."""
    which = "the p" if observed_counts else "the one-sided p"
    if n_samples == 1 and n_partitions > 1:
        return f"only the observed one is used (n_samples = 1), so {which} is 1"
    if n_samples is not None and n_partitions > n_samples:
        return (
            f"{n_samples} of them are used, the observed one and {n_samples - 1} drawn at "
            f"random, so {which} is (b + 1) / {n_samples}, at least "
            f"1/{n_samples} = {1 / n_samples:.3g}"
        )
    if observed_counts:
        values = (
            ", ".join(f"{k}/{n_partitions}" for k in range(1, n_partitions)) + " or 1"
            if n_partitions <= 4
            else f"1/{n_partitions}, 2/{n_partitions}, ..., 1"
        )
        return (
            f"all are enumerated and the observed one counts, so {which} can only be {values}: "
            f"never below 1/{n_partitions} = {1 / n_partitions:.3g}"
            + (", so it can never be below 0.05" if n_partitions < 20 else "")
        )
    if n_partitions == 2:
        return (
            "the one-sided p can only be 0 or 1/2 (0 here means the observed partition is the "
            "larger of the two, as it is half the time by chance, not significance)"
        )
    values = (
        "0, 1/3 or 2/3"
        if n_partitions == 3
        else f"0, 1/{n_partitions}, 2/{n_partitions}, ..., {n_partitions - 1}/{n_partitions}"
    )
    return (
        f"the one-sided p can only be {values}; the smallest nonzero p is 1/{n_partitions} = "
        f"{1 / n_partitions:.3g}, and p = 0 only says that no partition exceeds the observed one, "
        f"which happens by chance at least 1/{n_partitions} of the time"
    )


def nan_warning(
    reasons: ReasonArray, layers: Sequence[int] | None, what: str
) -> UndefinedStatisticWarning | None:
    """The warning that `what` is NaN, with the reason at each layer.

    Parameters
    ----------
    reasons : ReasonArray, shape ``[n_layers]`` or ``()``
        Reason per layer, ``""`` where the statistics are numbers.
    layers
        Label of each layer (e.g. the model's layer numbers); None for 0-d `reasons`.
    what
        The statistics that are NaN, e.g. ``"the effect size and p-values"``.

    Returns
    -------
    UndefinedStatisticWarning or None
        None when nothing is NaN. Layers with the same reason are named together.
    """
    if layers is None:
        reason = str(reasons[()])
        return UndefinedStatisticWarning(f"{what} are NaN: {reason}") if reason else None
    by_reason: dict[str, list[int]] = {}
    for layer, reason in zip(layers, reasons.tolist(), strict=True):
        if reason:
            by_reason.setdefault(reason, []).append(layer)
    if not by_reason:
        return None
    parts = [
        f"at layer{'s' if len(labels) > 1 else ''} {', '.join(map(str, labels))}: {reason}"
        for reason, labels in by_reason.items()
    ]
    return UndefinedStatisticWarning(f"{what} are NaN {'; '.join(parts)}")


def score_nan_reasons(
    scores: FloatArray, n_x: int, undefined: npt.NDArray[np.bool_]
) -> ReasonArray:
    """Why a permutation test of ``scores [n, n_layers]`` is undefined at each layer.

    Parameters
    ----------
    scores : FloatArray, shape ``[n, n_layers]``
        The scores of both groups, the `n_x` of the first group first.
    n_x : int
        Size of the first group.
    undefined : numpy.ndarray of bool, shape ``[n_layers]``
        Where the p-values are NaN.

    Returns
    -------
    ReasonArray, shape ``[n_layers]``
        Which scores are NaN or infinite (``x[0]``, ``y[2]``), or that all scores are equal.
    """
    reasons = np.full(scores.shape[1], "", dtype=object)
    for layer in np.flatnonzero(undefined):
        bad = [
            f"x[{index}]" if index < n_x else f"y[{index - n_x}]"
            for index in np.flatnonzero(~np.isfinite(scores[:, layer])).tolist()
        ]
        reasons[layer] = (
            f"the score(s) {_shown(bad)} are NaN or infinite"
            if bad
            else f"all {len(scores)} scores are equal, so every partition has the same statistic"
        )
    return reasons


def same_mean_direction(attr_a: FloatArray, attr_b: FloatArray) -> npt.NDArray[np.bool_]:
    """Where the attribute sets have the same mean unit vector, so ``s(w, A, B)`` is 0 for every
    word but for rounding (e.g. A and B hold the same vectors in another order).

    Parameters
    ----------
    attr_a, attr_b : FloatArray, shape ``[n_layers, n_a, d]`` / ``[n_layers, n_b, d]``
        The attribute vectors, layer axis first.

    Returns
    -------
    numpy.ndarray of bool, shape ``[n_layers]``
        True where the mean unit vectors differ by at most ``RELATIVE_TOLERANCE`` in every
        component (unit vectors have scale 1); False where a vector is NaN or zero.
    """
    with np.errstate(invalid="ignore"):
        gap = np.abs(_unit(attr_a).mean(axis=1) - _unit(attr_b).mean(axis=1)).max(axis=-1)
    return np.asarray(gap <= RELATIVE_TOLERANCE)


def weat_nan_reasons(
    sets: Mapping[str, FloatArray],
    undefined: npt.NDArray[np.bool_],
    words: Mapping[str, Sequence[str]] | None = None,
) -> ReasonArray:
    """Why WEAT's effect size and p-values are NaN at each layer.

    Parameters
    ----------
    sets : mapping of ``x``, ``y``, ``attr_a``, ``attr_b`` to FloatArray ``[n_layers, n, d]``
        The vectors, layer axis first.
    undefined : numpy.ndarray of bool, shape ``[n_layers]``
        Where the effect size or p-values are NaN.
    words : mapping of the same keys to the words, optional
        To name the words whose vectors are at fault; without it they are named by position
        (``X[0]``).

    Returns
    -------
    ReasonArray, shape ``[n_layers]``
        The first that holds of: a vector holds NaN or infinity; a vector is zero; all target
        vectors point the same way; A and B have the same mean direction; else every
        ``s(w, A, B)`` is the same.
    """
    reasons = np.full(len(undefined), "", dtype=object)
    for layer in np.flatnonzero(undefined):
        at_layer = {role: vectors[layer] for role, vectors in sets.items()}
        reasons[layer] = _vector_reason(at_layer, words) or _constant_reason(at_layer)
    return reasons


def _vector_reason(
    sets: Mapping[str, FloatArray], words: Mapping[str, Sequence[str]] | None
) -> str:
    """The reason a NaN or zero vector gives at one layer (``sets``: ``[n, d]`` each), or ""."""
    nonfinite = _named(sets, words, _nonfinite)
    if nonfinite:
        return f"the vector(s) of {nonfinite} hold NaN or infinite values"
    zero = _named(sets, words, _zero)
    if zero:
        return (
            f"the vector(s) of {zero} are zero: a zero vector has no direction, so its cosine "
            "similarities are undefined"
        )
    return ""


def _nonfinite(vectors: FloatArray) -> npt.NDArray[np.bool_]:
    """Which of the vectors ``[n, d]`` hold a NaN or infinity."""
    return np.asarray(~np.isfinite(vectors).all(axis=-1))


def _zero(vectors: FloatArray) -> npt.NDArray[np.bool_]:
    """Which of the vectors ``[n, d]`` are zero."""
    return np.asarray(~vectors.any(axis=-1))


def _constant_reason(sets: Mapping[str, FloatArray]) -> str:
    """Why every ``s(w, A, B)`` is the same at one layer of finite, non-zero vectors."""
    targets = _unit(np.concatenate([sets["x"], sets["y"]]))
    if np.ptp(targets, axis=0).max() <= RELATIVE_TOLERANCE:
        return (
            f"all {len(targets)} target vectors (X and Y) point the same way (e.g. words the "
            "model maps to one unknown token), so s(w, A, B) is the same for every target word "
            "and its standard deviation is 0"
        )
    if same_mean_direction(sets["attr_a"][np.newaxis], sets["attr_b"][np.newaxis])[0]:
        return (
            "A and B have the same mean direction (e.g. the same vectors), so s(w, A, B) = 0 for "
            "every target word"
        )
    return "s(w, A, B) is the same for every target word (its standard deviation is 0)"


def _named(
    sets: Mapping[str, FloatArray],
    words: Mapping[str, Sequence[str]] | None,
    flagged: Callable[[FloatArray], npt.NDArray[np.bool_]],
) -> str:
    """The vectors ``flagged(vectors) -> [n] bool`` picks, as ``X 'rose', A[2]``; "" if none."""
    return _shown(
        [
            _vector_name(role, index, words)
            for role, vectors in sets.items()
            for index in np.flatnonzero(flagged(vectors)).tolist()
        ]
    )


def _vector_name(role: str, index: int, words: Mapping[str, Sequence[str]] | None) -> str:
    name = _ROLE_NAMES[role]
    return f"{name} {shown_word(words[role][index])}" if words else f"{name}[{index}]"


def _shown(names: Sequence[str]) -> str:
    """At most :data:`_SHOWN_VECTORS` names, then how many more."""
    more = len(names) - _SHOWN_VECTORS
    shown = ", ".join(names[:_SHOWN_VECTORS])
    return f"{shown} and {more} more" if more > 0 else shown
