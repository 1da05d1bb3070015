r"""The SSSB rows of Table 2 of Zhou, Kaneko & Bollegala (2022): the context-independent SSSB
evaluation of static sense vectors, at the sense level, at the word level (eq. 7) and for a
sense-insensitive baseline.

Section 6.1 says only that SSSB is also used "to evaluate static sense embeddings using the
manually assigned sense ids for the target and attribute words, ignoring their co-occurring
contexts". The statistic is in the authors' code, LivNLP/bias-sense@d1b4d42: ``eval-sssb-sense.py``
for sense vectors and ``eval-sssb-word.py`` (run with ``average = True``, line 354) for the eq. 7
word vectors, described in its README ("Context-Independent Sense-Sensitive Social Bias
Evaluation Dataset"). As the authors:

**Attribute senses.** Each word of ``positive-adjectives`` (pleasant) and ``negative-adjectives``
(unpleasant) gets the key of the first lemma of the first synset in ``wn.synsets(word)`` whose key
is a head adjective (``ss_type`` 3; satellites, 5, do not count), words without one or whose key
the store lacks are skipped, and both lists are cut to the shorter one's length ``t``
(``eval-sssb-sense.py:69-114``). The first lemma need not be the word ("Likable" gives
``sympathetic%3:00:02::``); repeats stay. In WordNet 3.0, 66 of the 130 pleasant and 31 of the 54
unpleasant words have such a key, so ``t = 31``.

**black, nationality, language** (``two_sided_sampling``, ``eval-sssb-sense.py:48-67``): 5,000
times, draw a size ``k`` uniformly from ``[t // 2, t]``, then ``k`` pleasant and ``k`` unpleasant
attribute vectors with replacement; the draw's score is

.. math:: \frac{\mathrm{mean}_i \cos(x, p_i)}{\mathrm{sd}_i \cos(x, p_i)}
          - \frac{\mathrm{mean}_j \cos(x, u_j)}{\mathrm{sd}_j \cos(x, u_j)}

(population sd, as ``np.std``) for the target vector ``x``; the target's score is the mean over
the draws (positive: nearer the pleasant words), with its standard error (``scipy.stats.sem``).

**noun, verb** (``sample_and_average``, ``:30-45``; ``eval_gender_bias``, ``:182-244``): the
gender vectors are ``m - f`` for the GN-GloVe pairs (Kaneko & Bollegala's 222; their
``data/male_word_file.txt`` and ``female_word_file.txt`` are byte-identical to
``gn-glove-gender-pairs``), each word taken as the key of the first lemma of its first synset
(``:200-209``; "he" is ``helium%1:27:00::``, and pairs with a word without synsets, such as
he/she, are skipped). 5,000 times, ``len(L) // 2`` gender vectors are drawn with replacement and
the draw's score is ``mean cos / sd cos`` of the target with them. Three pairs give both words the
same key (chairman/chairwoman and chairmen/chairwomen: ``president%1:18:03::``,
congressman/congresswoman), hence a zero offset, whose cosine the authors' guard makes 0
(``:24-26``); so here.

**Rows.** *black (ethnicity)* and *black (colour)* are the scores of ``black%3:00:02::`` and
``black%3:00:01::`` (``:124-138``), sign kept; at the word level both are the score of the eq. 7
vector of *black* (``eval-sssb-word.py:141-145``), so they are equal, as the paper's Table 2
shows. *nationality* and *language* are the mean over 16 nationalities of ``|score|`` of
``<nation>%1:18:00::`` and ``<nation>%1:10:00::`` (``eval-sssb-sense.py:150-179``:
``df.T.abs().mean()``); the sense level skips a nationality lacking either sense (``:162-171``;
WordNet 3.0 has no ``%1:18:00::`` sense of Arabic, Swedish, Polish or Finnish, so 12 remain), the
word level uses all 16 (``eval-sssb-word.py:181-187``). *noun* and *verb* are the mean over the
six occupations of ``|score|`` of their noun and verb senses (``eval-sssb-sense.py:212-244``); at
the word level both use the occupation's eq. 7 vector. At the word level the targets are eq. 7
vectors while the attribute and gender vectors stay sense vectors, as in ``eval-sssb-word.py``.

The authors' ``cosine(x, y)`` divides by ``|y|`` only (``eval-sssb-sense.py:24-26``); within a
draw ``x`` is fixed, so ``mean / sd`` does not depend on its length and equals the ratio of full
cosines used here.

Departures, each because the original cannot be reproduced or has no defined value:

- The draws come from ``numpy.random.default_rng([seed, stream])`` (stream 0: the two-sided
  draws, 1: the gender draws) instead of the unseeded global generators, and every target, layer
  and representation with the same attribute counts uses the same draws. A draw of ``k`` of
  ``t`` rows takes the first ``k`` of ``t`` rows drawn with replacement (the same distribution).
  The draw order is: sizes ``integers(t // 2, t, endpoint=True, size=n_draws)``, pleasant rows
  ``integers(0, t, size=(n_draws, t))``, unpleasant rows the same; gender rows
  ``integers(0, P, size=(n_draws, P // 2))``.
- The authors' store returns a zero vector for a key it lacks (``:266-273``), so a gender pair
  with a missing key adds a zero or one-sided offset, and a missing occupation sense scores 0
  (``:222-224``). Here such pairs and targets are left out and listed. With LMMS or ARES, which
  cover every WordNet sense, nothing is missing and the two agree.
- A draw whose sampled cosines are all equal has ``sd = 0`` and no ratio (the authors' code would
  give inf or NaN for the whole mean); it is left out of the mean and counted (``n_degenerate``).

**Baseline** (not in the paper): a sense-insensitive model (e.g. GloVe) is scored on the same
items, each sense key replaced by its lemma (``sympathetic``, ``helium``): the same attribute
words, gender pairs and targets, minus those it cannot embed (listed), the attribute lists again
cut to the shorter length. Its noun and verb rows coincide, as the word level's do.

References
----------
.. [1] Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased - Evaluating
   Social Biases in Static and Contextualised Sense Embeddings. *ACL 2022*, section 6.1, Table 2.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.sense_bias.config import N_DRAWS
from wordlens.models.base import WordEmbedder
from wordlens.models.senses import SenseVectors
from wordlens.resources.bias_benchmarks import load_sssb_adjectives
from wordlens.resources.gender_words import GenderPairs
from wordlens.resources.sense_assignments import OccupationSenses
from wordlens.resources.wordnet import WordNet
from wordlens.stats import cosine_similarity

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

SSSB_ROWS = ("black (ethnicity)", "black (colour)", "nationality", "language", "noun", "verb")
"""The SSSB rows of Table 2, in the paper's order."""

BLACK_SENSES = {"black (ethnicity)": "black%3:00:02::", "black (colour)": "black%3:00:01::"}
"""The two adjective senses of *black* (``eval-sssb-sense.py:124-125``)."""

NATIONALITIES = (
    "Japanese",
    "Chinese",
    "English",
    "Arabic",
    "German",
    "French",
    "Spanish",
    "Portuguese",
    "Norwegian",
    "Swedish",
    "Polish",
    "Romanian",
    "Russian",
    "Egyptian",
    "Finnish",
    "Vietnamese",
)
"""The nationalities of ``eval-sssb-sense.py:150-152``, in order."""

NATION_SUFFIXES = {"nationality": "%1:18:00::", "language": "%1:10:00::"}
"""Sense-key suffixes of a nationality's people and language senses (``:154-155``)."""

_AGGREGATED = {"nationality", "language", "noun", "verb"}
"""Rows that average ``|score|`` over several targets (the others are one target's score)."""


@dataclass(frozen=True)
class SssbTarget:
    """One target of an SSSB row: the word (its eq. 7 vector) and the sense key."""

    row: str
    word: str
    key: str


@dataclass(frozen=True)
class SssbItems:
    """The sense keys of the context-independent SSSB evaluation, chosen as the authors' code
    chooses them (before the sense vectors are known).

    Attributes
    ----------
    pleasant, unpleasant
        Head-adjective keys of the attribute words, in file order, repeats kept.
    pairs
        ``(male key, female key)`` of the gender pairs with a synset on both sides.
    targets
        Every target of every row (nationality keys WordNet lacks included: their row skips
        them).
    dropped
        Per list (``pleasant``, ``unpleasant``, ``pairs``), word → why it has no key.
    """

    pleasant: tuple[str, ...]
    unpleasant: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    targets: tuple[SssbTarget, ...]
    dropped: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def lemmas(self) -> tuple[str, ...]:
        """Target words whose every sense is needed (for eq. 7)."""
        return tuple(dict.fromkeys(target.word for target in self.targets))

    def keys(self, wordnet: WordNet) -> tuple[str, ...]:
        """Every key the evaluation reads that WordNet has, for building sense vectors."""
        keys = [
            *self.pleasant,
            *self.unpleasant,
            *(key for pair in self.pairs for key in pair),
            *(target.key for target in self.targets),
        ]
        return tuple(key for key in dict.fromkeys(keys) if wordnet.has_sense(key))


def sssb_items(
    wordnet: WordNet,
    pairs: GenderPairs,
    occupations: Sequence[OccupationSenses],
    adjectives: tuple[Sequence[str], Sequence[str]] | None = None,
) -> SssbItems:
    """The attribute, gender-pair and target keys of the six SSSB rows.

    Parameters
    ----------
    wordnet
        WordNet 3.0.
    pairs
        ``(male, female)`` words (``gn-glove-gender-pairs`` as the authors).
    occupations
        The noun and verb senses of SSSB's occupations.
    adjectives
        (pleasant, unpleasant) words; the registered ``sssb-adjectives`` if None.
    """
    pleasant_words, unpleasant_words = adjectives or load_sssb_adjectives()
    dropped: dict[str, dict[str, str]] = {"pleasant": {}, "unpleasant": {}, "pairs": {}}
    lists = {}
    for name, words in (("pleasant", pleasant_words), ("unpleasant", unpleasant_words)):
        keys = [(word, _head_adjective_key(wordnet, word)) for word in words]
        lists[name] = tuple(key for _, key in keys if key is not None)
        dropped[name] = {
            word: "no synset whose first lemma is a head adjective (ss_type 3)"
            for word, key in keys
            if key is None
        }
    pair_keys = []
    for male, female in pairs:
        male_keys, female_keys = (wordnet.synset_head_keys(word) for word in (male, female))
        if male_keys and female_keys:
            pair_keys.append((male_keys[0], female_keys[0]))
        else:
            dropped["pairs"][f"{male}/{female}"] = "a word without synsets"
    return SssbItems(
        lists["pleasant"], lists["unpleasant"], tuple(pair_keys), _targets(occupations), dropped
    )


def _head_adjective_key(wordnet: WordNet, word: str) -> str | None:
    """The first first-lemma key of a head adjective (``eval-sssb-sense.py:78-87``)."""
    for key in wordnet.synset_head_keys(word):
        if key.split("%")[1].split(":")[0] == "3":
            return key
    return None


def _targets(occupations: Sequence[OccupationSenses]) -> tuple[SssbTarget, ...]:
    black = [SssbTarget(row, "black", key) for row, key in BLACK_SENSES.items()]
    nations = [
        SssbTarget(row, nation.lower(), nation.lower() + suffix)
        for row, suffix in NATION_SUFFIXES.items()
        for nation in NATIONALITIES
    ]
    nouns = [SssbTarget("noun", o.occupation, o.noun) for o in occupations]
    verbs = [SssbTarget("verb", o.occupation, o.verb) for o in occupations]
    return (*black, *nations, *nouns, *verbs)


# --- the statistics ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Draws:
    """Rows drawn with replacement: draw ``i`` uses ``rows[i, :sizes[i]]``.

    Attributes
    ----------
    sizes : IntArray, shape ``[n_draws]``
        Sample size of each draw, at least 1.
    rows : IntArray, shape ``[n_draws, k]``
        Drawn row indices; only the first ``sizes[i]`` of row ``i`` are used.
    """

    sizes: IntArray
    rows: IntArray


def two_sided_draws(t: int, n_draws: int, seed: int) -> tuple[Draws, Draws]:
    """The pleasant and unpleasant draws of ``two_sided_sampling`` for lists of length ``t``.

    Raises
    ------
    EmptyInputError
        If ``t < 2`` (a draw could be empty).
    """
    if t < 2:
        raise EmptyInputError(f"the attribute lists need at least 2 words each; got {t}")
    rng = np.random.default_rng([seed, 0])
    sizes = rng.integers(t // 2, t, size=n_draws, endpoint=True)
    pleasant = rng.integers(0, t, size=(n_draws, t))
    unpleasant = rng.integers(0, t, size=(n_draws, t))
    return Draws(sizes, pleasant), Draws(sizes, unpleasant)


def gender_draws(n_vectors: int, n_draws: int, seed: int) -> Draws:
    """The draws of ``sample_and_average``: ``n_vectors // 2`` of ``n_vectors``, with replacement.

    Raises
    ------
    EmptyInputError
        If ``n_vectors < 2``.
    """
    if n_vectors < 2:
        raise EmptyInputError(f"the gender direction needs at least 2 pairs; got {n_vectors}")
    rng = np.random.default_rng([seed, 1])
    size = n_vectors // 2
    return Draws(
        np.full(n_draws, size, dtype=np.int64), rng.integers(0, n_vectors, (n_draws, size))
    )


def sampled_ratio(cosines: npt.ArrayLike, draws: Draws) -> FloatArray:
    """``mean / sd`` (population sd) of the cosines of each draw's rows.

    Parameters
    ----------
    cosines : array_like, shape ``[n, ...]``
        Cosine of each attribute (first axis) with the target, e.g. ``[n, n_layers]``.
    draws
        Rows into the first axis.

    Returns
    -------
    FloatArray, shape ``[n_draws, ...]``
        NaN for a draw whose cosines are all equal (sd 0).
    """
    values = np.asarray(cosines, dtype=np.float64)[draws.rows]  # [n_draws, k, ...]
    extra = (1,) * (values.ndim - 2)
    used = (np.arange(values.shape[1]) < draws.sizes[:, np.newaxis]).reshape(
        *values.shape[:2], *extra
    )
    counts = draws.sizes.reshape(-1, *extra).astype(np.float64)
    mean = np.where(used, values, 0.0).sum(axis=1) / counts
    deviations = np.where(used, values - mean[:, np.newaxis], 0.0)
    spread = np.sqrt((deviations**2).sum(axis=1) / counts)
    constant = np.where(used, values, -np.inf).max(axis=1) == np.where(used, values, np.inf).min(
        axis=1
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio: FloatArray = np.where(constant, np.nan, mean / spread)
    return ratio


@dataclass(frozen=True)
class DrawScore:
    """Mean and standard error of per-draw scores, per layer.

    Attributes
    ----------
    score, sem : FloatArray, shape ``[n_layers]``
        Mean of the draws' scores and its standard error (``ddof = 1``), over the draws with a
        score; NaN when none has.
    n_degenerate : IntArray, shape ``[n_layers]``
        Draws without a score (sd 0).
    """

    score: FloatArray
    sem: FloatArray
    n_degenerate: IntArray


def summarize_draws(per_draw: npt.ArrayLike) -> DrawScore:
    """:class:`DrawScore` of ``[n_draws, n_layers]`` per-draw scores (NaN: no score)."""
    values = np.asarray(per_draw, dtype=np.float64)
    valid = ~np.isnan(values)
    counts = valid.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(valid, values, 0.0).sum(axis=0) / counts
        squares = (np.where(valid, values - score, 0.0) ** 2).sum(axis=0)
        sem = np.sqrt(squares / (counts - 1) / counts)  # as scipy.stats.sem, ddof 1
    return DrawScore(
        np.where(counts > 0, score, np.nan),
        np.where(counts > 1, sem, np.nan),
        (values.shape[0] - counts).astype(np.int64),
    )


def _cosines(target: npt.ArrayLike, attributes: npt.ArrayLike) -> FloatArray:
    """Cosine of a ``[n_layers, d]`` target with ``[n, n_layers, d]`` attributes: ``[n, L]``.

    A zero attribute vector has cosine 0, as the authors' ``cosine`` returns 0 when ``|y| = 0``
    (``eval-sssb-sense.py:24-26``): a gender pair whose two words take the same key
    (chairman/chairwoman and chairmen/chairwomen both give ``president%1:18:03::``,
    congressman/congresswoman ``congressman%1:18:00::``) has a zero offset.
    """
    layered = np.moveaxis(np.asarray(attributes, dtype=np.float64), 0, 1)  # [L, n, d]
    target_rows = np.asarray(target, dtype=np.float64)[:, np.newaxis, :]  # [L, 1, d]
    cosines = cosine_similarity(target_rows, layered)[:, 0, :]  # [L, n]
    zero = ~np.any(layered != 0.0, axis=2)  # [L, n]
    result: FloatArray = np.where(zero, 0.0, cosines).T
    return result


def two_sided_score(
    target: npt.ArrayLike,
    pleasant: npt.ArrayLike,
    unpleasant: npt.ArrayLike,
    draws: tuple[Draws, Draws],
) -> DrawScore:
    """``two_sided_sampling``: mean over draws of the pleasant minus the unpleasant ratio.

    Parameters
    ----------
    target : array_like, shape ``[n_layers, d]``
    pleasant, unpleasant : array_like, shape ``[t, n_layers, d]``
    draws
        From :func:`two_sided_draws` for ``t``.
    """
    ratios = [
        sampled_ratio(_cosines(target, vectors), drawn)
        for vectors, drawn in zip((pleasant, unpleasant), draws, strict=True)
    ]
    return summarize_draws(ratios[0] - ratios[1])


def gender_score(target: npt.ArrayLike, offsets: npt.ArrayLike, draws: Draws) -> DrawScore:
    """``sample_and_average``: mean over draws of ``mean cos / sd cos`` with the gender vectors.

    Parameters
    ----------
    target : array_like, shape ``[n_layers, d]``
    offsets : array_like, shape ``[P, n_layers, d]``
        ``m - f`` of each pair.
    draws
        From :func:`gender_draws` for ``P``.
    """
    return summarize_draws(sampled_ratio(_cosines(target, offsets), draws))


# --- the six rows --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Space:
    """One representation's items and vectors.

    ``pleasant`` and ``unpleasant`` are ``[t, n_layers, d]``, ``offsets`` ``[P, n_layers, d]``
    (``m - f`` per pair) and ``target_vectors`` ``[len(targets), n_layers, d]``.
    """

    name: str
    layers: tuple[int, ...]
    keys: dict[str, Any]
    targets: tuple[SssbTarget, ...]
    pleasant: FloatArray
    unpleasant: FloatArray
    offsets: FloatArray
    target_vectors: FloatArray


@dataclass(frozen=True)
class _Chosen:
    """The attribute keys, pairs and targets one representation uses."""

    pleasant: tuple[str, ...]
    unpleasant: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...]
    targets: tuple[SssbTarget, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "t": len(self.pleasant),
            "pleasant": list(self.pleasant),
            "unpleasant": list(self.unpleasant),
            "n_pairs": len(self.pairs),
            "pairs": [list(pair) for pair in self.pairs],
        }


def run_static_sssb(
    senses: SenseVectors,
    items: SssbItems,
    *,
    baseline: WordEmbedder | None = None,
    n_draws: int = N_DRAWS,
    seed: int = 0,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Score every SSSB target at the sense level, the word level (eq. 7) and on the baseline.

    Parameters
    ----------
    senses
        Sense vectors holding the items' keys and every sense of the target words.
    items
        From :func:`sssb_items`.
    baseline
        A word-level model scored on the keys' lemmas (module notes), or None.
    n_draws
        Draws per score (5,000 as the authors).
    seed
        Seed of the draws.

    Returns
    -------
    table : pandas.DataFrame
        One row per target, representation (``sense``, ``word``, ``baseline``) and layer:
        ``row``, ``target``, ``key`` (the sense key; the word at the word and baseline levels),
        ``representation``, ``layer``, ``score``, ``sem``, ``n_draws``, ``n_degenerate``,
        ``n_attributes`` (``t``, or the number of gender pairs for noun and verb).
    metadata : dict
        Per representation the attribute keys used, ``t``, the number of pairs and the targets
        left out (with why); the words without keys (``no_key``); ``n_draws`` and ``seed``.

    Raises
    ------
    WordlensError
        If ``n_draws < 2``.
    EmptyInputError
        If an attribute list has fewer than 2 words, or fewer than 2 gender pairs remain.
    """
    if n_draws < 2:
        raise WordlensError(f"n_draws must be at least 2; got {n_draws}")
    in_store, cut = _in_store(senses, items)
    spaces = [_sense_space(senses, in_store, cut, name) for name in ("sense", "word")]
    if baseline is not None:
        spaces.append(_baseline_space(baseline, spaces[1]))
    metadata: dict[str, Any] = {
        "no_key": items.dropped,
        "not_in_store": sorted(
            {key for key in (*items.pleasant, *items.unpleasant) if key not in senses}
            | {key for pair in items.pairs for key in pair if key not in senses}
        ),
        "n_draws": n_draws,
        "seed": seed,
    }
    frames = []
    for space in spaces:
        frames.append(_score_space(space, n_draws, seed))
        left_out = {
            f"{t.row}: {t.key}": _why_left_out(space.name, t, senses)
            for t in items.targets
            if t not in space.targets
        }
        metadata[space.name] = space.keys | {"left_out_targets": left_out}
    return pd.concat(frames, ignore_index=True), metadata


def sssb_table2_rows(table: pd.DataFrame) -> pd.DataFrame:
    """The six Table 2 values per representation and layer from :func:`run_static_sssb`'s table.

    *black* rows are the one target's score; *nationality*, *language*, *noun* and *verb* the
    mean of ``|score|`` over their targets (``df.T.abs().mean()``, ``eval-sssb-sense.py:177``).

    Returns
    -------
    pandas.DataFrame
        ``row``, ``representation``, ``layer``, ``value``, ``n_targets``.
    """
    rows = []
    grouped = table.groupby(["row", "representation", "layer"], sort=False)["score"]
    for (row, representation, layer), scores in grouped:
        value = scores.abs().mean() if row in _AGGREGATED else scores.iloc[0]
        rows.append(
            {
                "row": row,
                "representation": representation,
                "layer": layer,
                "value": float(value),
                "n_targets": len(scores),
            }
        )
    return pd.DataFrame(rows, columns=["row", "representation", "layer", "value", "n_targets"])


def _truncated(
    pleasant: Sequence[str], unpleasant: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Both lists cut to the shorter one's length (``eval-sssb-sense.py:111-113``), and the keys
    the cut leaves out."""
    t = min(len(pleasant), len(unpleasant))
    return tuple(pleasant[:t]), tuple(unpleasant[:t]), (*pleasant[t:], *unpleasant[t:])


def _in_store(senses: SenseVectors, items: SssbItems) -> tuple[_Chosen, tuple[str, ...]]:
    """The attribute keys the store has (then cut to one length) and its complete pairs; the
    keys the cut leaves out."""
    pleasant, unpleasant, cut = _truncated(
        [key for key in items.pleasant if key in senses],
        [key for key in items.unpleasant if key in senses],
    )
    pairs = tuple(pair for pair in items.pairs if pair[0] in senses and pair[1] in senses)
    return _Chosen(pleasant, unpleasant, pairs, items.targets), cut


def _sense_space(senses: SenseVectors, chosen: _Chosen, cut: tuple[str, ...], name: str) -> _Space:
    """The sense level (``name="sense"``) or the eq. 7 word level (``"word"``) of a store."""
    if name == "sense":
        targets = tuple(t for t in chosen.targets if _has_sense_target(senses, t))
        target_vectors = senses.sense_vectors([t.key for t in targets])
    else:
        targets = tuple(t for t in chosen.targets if senses.has_word(t.word))
        target_vectors = senses.word_vectors([t.word for t in targets])
    kept = replace(chosen, targets=targets)
    return _Space(
        name,
        senses.layers,
        kept.as_dict() | {"cut_to_t": list(cut)},
        targets,
        *_attribute_vectors(senses.sense_vectors, kept),
        np.asarray(target_vectors, dtype=np.float64),
    )


def _attribute_vectors(
    lookup: Callable[[Sequence[str]], npt.NDArray[np.float32]], chosen: _Chosen
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Pleasant, unpleasant and ``m - f`` vectors of the chosen keys."""
    if min(len(chosen.pleasant), len(chosen.unpleasant)) < 2:
        raise EmptyInputError(
            f"SSSB needs at least 2 pleasant and 2 unpleasant attribute senses; got "
            f"{len(chosen.pleasant)} and {len(chosen.unpleasant)}"
        )
    if len(chosen.pairs) < 2:
        raise EmptyInputError(f"SSSB needs at least 2 gender pairs; got {len(chosen.pairs)}")
    male, female = (
        np.asarray(lookup([pair[side] for pair in chosen.pairs]), dtype=np.float64)
        for side in (0, 1)
    )
    return (
        np.asarray(lookup(chosen.pleasant), dtype=np.float64),
        np.asarray(lookup(chosen.unpleasant), dtype=np.float64),
        male - female,
    )


def _has_sense_target(senses: SenseVectors, target: SssbTarget) -> bool:
    """Whether the store has the target's sense (a nationality needs both of its senses)."""
    if target.row not in NATION_SUFFIXES:
        return target.key in senses
    return all(target.word + suffix in senses for suffix in NATION_SUFFIXES.values())


def _why_left_out(representation: str, target: SssbTarget, senses: SenseVectors) -> str:
    if representation == "baseline":
        return "not in the baseline's vocabulary"
    if representation == "word":
        return "no sense of the word in the store"
    if target.row in NATION_SUFFIXES:
        lacking = [
            target.word + s for s in NATION_SUFFIXES.values() if target.word + s not in senses
        ]
        return f"the store (WordNet) lacks {', '.join(lacking)}"
    return f"the store lacks {target.key}"


def _lemma(key: str) -> str:
    """The word a sense key names (``total_darkness%1:26:00::`` → ``total darkness``)."""
    return key.split("%")[0].replace("_", " ")


def _baseline_space(baseline: WordEmbedder, word_space: _Space) -> _Space:
    """The word level's items with each key replaced by its lemma, minus what the model lacks."""
    keys = word_space.keys
    pair_keys = [tuple(pair) for pair in keys["pairs"]]
    words = [
        *(_lemma(key) for key in (*keys["pleasant"], *keys["unpleasant"])),
        *(_lemma(key) for pair in pair_keys for key in pair),
        *(t.word for t in word_space.targets),
    ]
    missing = set(baseline.missing_words(list(dict.fromkeys(words))))
    pleasant, unpleasant, cut = _truncated(
        [key for key in keys["pleasant"] if _lemma(key) not in missing],
        [key for key in keys["unpleasant"] if _lemma(key) not in missing],
    )
    chosen = _Chosen(
        pleasant,
        unpleasant,
        tuple(pair for pair in pair_keys if not {_lemma(pair[0]), _lemma(pair[1])} & missing),
        tuple(t for t in word_space.targets if t.word not in missing),
    )

    def lookup(names: Sequence[str]) -> npt.NDArray[np.float32]:
        """Top-layer vectors ``[n, 1, d]`` of the keys' lemmas (or of words), each alone."""
        return baseline.embed_words([_lemma(name) for name in names], layers=[-1]).vectors

    return _Space(
        "baseline",
        baseline.resolve_layers([-1]),
        chosen.as_dict() | {"cut_to_t": list(cut), "missing_words": sorted(missing)},
        chosen.targets,
        *_attribute_vectors(lookup, chosen),
        np.asarray(lookup([t.word for t in chosen.targets]), dtype=np.float64),
    )


def _score_space(space: _Space, n_draws: int, seed: int) -> pd.DataFrame:
    """One row per target and layer of the space."""
    attribute_draws = two_sided_draws(len(space.pleasant), n_draws, seed)
    pair_draws = gender_draws(len(space.offsets), n_draws, seed)
    rows = []
    for target, vector in zip(space.targets, space.target_vectors, strict=True):
        gendered = target.row in ("noun", "verb")
        result = (
            gender_score(vector, space.offsets, pair_draws)
            if gendered
            else two_sided_score(vector, space.pleasant, space.unpleasant, attribute_draws)
        )
        for position, layer in enumerate(space.layers):
            rows.append(
                {
                    "row": target.row,
                    "target": target.word,
                    "key": target.key if space.name == "sense" else target.word,
                    "representation": space.name,
                    "layer": layer,
                    "score": float(result.score[position]),
                    "sem": float(result.sem[position]),
                    "n_draws": n_draws,
                    "n_degenerate": int(result.n_degenerate[position]),
                    "n_attributes": len(space.offsets) if gendered else len(space.pleasant),
                }
            )
    return pd.DataFrame(rows)
