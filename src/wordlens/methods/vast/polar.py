"""Polar attribute words of VAST and their selection for the tokenization experiment.

VAST scores a word by its SC-WEAT association with two polar word groups (Wolfe & Caliskan 2022,
section "Polar Words"):

- valence: the 25 pleasant and 25 unpleasant words of WEAT test 1 (Caliskan et al. 2017), or
  VAST's translations (:func:`wordlens.resources.pleasant_unpleasant`);
- dominance: ``dominant`` vs ``submissive``, and arousal: ``arousal`` vs ``indifference``, 25
  words each, English only, as the authors' code defines them (``VAST.py`` in
  ``wolferobert3/vast_aaai_2022``; shipped in ``data/vast_polar_words.json``, sorted and
  deduplicated as the code's ``sorted(list(set(...)))`` leaves them).

Group ``a`` is the pole a high rating points to (pleasant, dominant, arousal), group ``b`` the
other, so an SC-WEAT effect size ``s(w, A, B)`` correlates positively with the ratings.

**Excluding polar words from the rated words.** ``VAST.py`` builds the Warriner dominance and
arousal targets as ``{w: rating for w in warriner if w not in dominant + submissive}`` (and
``arousal + indifference``): a word that is itself a polar word of that dimension is not scored
(its self-similarity would inflate the correlation). Valence keeps every word (the 50 WEAT words
stay in Warriner's valence targets), and ANEW keeps every word for all three dimensions.
:func:`rated_words` applies the same rule to any lexicon; call it where VAST did.

**Singly tokenized polar words.** The tokenization experiment uses only polar words the model
encodes as one subtoken: "VAST removes all multiply tokenized words from both polar groups, then
randomly removes singly tokenized words from the larger group until they are equal in size" (for
GPT-2, 23 words per group). :func:`select_polar` counts subtokens in the context the words will
be embedded in (by default ``"This is {word}"``: with leading-space BPE a word's tokens depend on
the character before it, so any template with a space before ``{word}`` gives the same counts)
and balances the groups with ``numpy.random.default_rng(seed)``. For a static model every
in-vocabulary word counts as singly tokenized and out-of-vocabulary words are dropped.

References
----------
Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022*.

Caliskan, A., Bryson, J. J., & Narayanan, A. (2017). Semantics derived automatically from language
corpora contain human-like biases. *Science*, 356(6334), 183-186.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources as package_files
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.contexts import BLEACHED_TEMPLATE, Target, targets_from_template
from wordlens.contexts.corpus import check_seed
from wordlens.errors import EmptyInputError, ResourceNotFoundError, WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.models.hf import HFEmbedder
from wordlens.resources import Lexicon, WordSet, pleasant_unpleasant

Dimension = Literal["valence", "dominance", "arousal"]
DIMENSIONS: tuple[Dimension, ...] = get_args(Dimension)

_DATA = "vast_polar_words.json"


@dataclass(frozen=True)
class PolarSets:
    """The two polar word groups of one affective dimension.

    Attributes
    ----------
    dimension
        ``valence``, ``dominance`` or ``arousal``.
    language
        ISO 639-1 code.
    a, b
        The high pole (pleasant, dominant, arousal) and the low pole (unpleasant, submissive,
        indifference).
    """

    dimension: Dimension
    language: str
    a: WordSet
    b: WordSet


@dataclass(frozen=True, eq=False)
class PolarSelection:
    """Polar groups after single-token filtering and balancing.

    Attributes
    ----------
    sets
        The groups kept, same dimension and language as the input.
    table
        One row per input polar word: ``word``, ``group`` (``"a"`` or ``"b"``), ``n_subtokens``
        (0: not in a static model's vocabulary) and ``status``: ``"kept"``,
        ``"multiply_tokenized"``, ``"out_of_vocabulary"`` or ``"balanced_out"`` (removed at
        random to equalize the groups).
    seed
        The seed of the balancing draw.
    """

    sets: PolarSets
    table: pd.DataFrame
    seed: int

    @property
    def multiply_tokenized(self) -> tuple[str, ...]:
        """Words removed because the model splits them into several subtokens."""
        return self._with_status("multiply_tokenized")

    @property
    def removed(self) -> tuple[str, ...]:
        """Singly tokenized words removed at random to balance the groups."""
        return self._with_status("balanced_out")

    def _with_status(self, status: str) -> tuple[str, ...]:
        return tuple(self.table.loc[self.table["status"] == status, "word"])


def polar_sets(dimension: Dimension = "valence", language: str = "en") -> PolarSets:
    """VAST's polar words for ``dimension``.

    Raises
    ------
    WordlensError
        For an unknown dimension.
    ResourceNotFoundError
        For dominance or arousal in a language other than English, or a valence language without
        VAST polar words (e.g. German).
    """
    if dimension not in DIMENSIONS:
        raise WordlensError(f"dimension must be one of {', '.join(DIMENSIONS)}, not {dimension!r}")
    if dimension == "valence":
        words = pleasant_unpleasant(language)
        a, b = WordSet("pleasant", words.pleasant), WordSet("unpleasant", words.unpleasant)
        return PolarSets("valence", language, a, b)
    if language != "en":
        raise ResourceNotFoundError(
            f"VAST has {dimension} polar words in English only, not for {language!r}; "
            "pass your own word lists"
        )
    entry = _packaged()["dimensions"][dimension]
    return PolarSets(
        dimension,
        "en",
        WordSet(entry["a"]["name"], tuple(entry["a"]["words"])),
        WordSet(entry["b"]["name"], tuple(entry["b"]["words"])),
    )


@functools.cache
def _packaged() -> dict[str, Any]:
    text = package_files.files("wordlens.contexts").joinpath("data", _DATA).read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


def rated_words(lexicon: Lexicon, dimension: Dimension) -> pd.DataFrame:
    """A lexicon's words and ratings on ``dimension``, without that dimension's polar words.

    Reproduces ``VAST.py``: for dominance and arousal, words equal (case-sensitively) to a polar
    word of the dimension are left out; for valence every word is kept. The authors applied this
    to Warriner only (ANEW kept its polar words).

    Returns
    -------
    pandas.DataFrame
        Columns ``word`` and ``dimension``, in lexicon order, with a fresh index.

    Raises
    ------
    WordlensError
        If the lexicon has no ratings on ``dimension``.
    """
    if dimension not in lexicon.dimensions:
        raise WordlensError(
            f"lexicon {lexicon.name!r} has no {dimension} ratings (it has "
            f"{', '.join(lexicon.dimensions)})"
        )
    rated = lexicon.data[["word", dimension]]
    if dimension != "valence":
        sets = polar_sets(dimension)
        rated = rated[~rated["word"].isin(sets.a.words + sets.b.words)]
    return rated.reset_index(drop=True)


def subtoken_counts(
    model: WordEmbedder, words: Sequence[str], template: str = BLEACHED_TEMPLATE
) -> npt.NDArray[np.int64]:
    """How many subtokens each word spans in ``template`` (``[len(words)]``).

    Hugging Face models count the tokens whose offsets overlap the word (no forward pass);
    other models report ``n_subtokens`` from :meth:`~wordlens.models.base.WordEmbedder.embed`
    at layer 0 (1 for every word of a static model). Words the model cannot embed (missing from
    a static vocabulary) count 0.
    """
    missing = set(model.missing_words(words))
    present = np.array([word not in missing for word in words], dtype=bool)
    counts = np.zeros(len(words), dtype=np.int64)
    if present.any():
        kept = [word for word, keep in zip(words, present, strict=True) if keep]
        counts[present] = _span_lengths(model, targets_from_template(kept, template))
    return counts


def _span_lengths(model: WordEmbedder, targets: Sequence[Target]) -> npt.NDArray[np.int64]:
    """Subtokens per target: from the offsets alone for HF models, else from ``embed``."""
    if isinstance(model, HFEmbedder):
        return np.array([end - start for start, end in (e.span for e in model.encode(targets))])
    return model.embed(targets, layers=[0]).n_subtokens


def balance_groups(
    a: Sequence[str], b: Sequence[str], seed: int
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Remove random words from the larger group until both have the same size.

    The removed words are the positions ``numpy.random.default_rng(seed).choice(n_larger,
    excess, replace=False)`` of the larger group; equal groups are returned unchanged.

    Returns
    -------
    tuple
        ``(a kept, b kept, removed)``, each in input order.

    Raises
    ------
    WordlensError
        For a negative or non-integer seed.
    """
    check_seed(seed)
    if len(a) >= len(b):
        kept_a, removed = _remove_random(a, len(a) - len(b), seed)
        return kept_a, tuple(b), removed
    kept_b, removed = _remove_random(b, len(b) - len(a), seed)
    return tuple(a), kept_b, removed


def _remove_random(
    words: Sequence[str], n: int, seed: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    drop = set(np.random.default_rng(seed).choice(len(words), size=n, replace=False).tolist())
    kept = tuple(word for i, word in enumerate(words) if i not in drop)
    return kept, tuple(word for i, word in enumerate(words) if i in drop)


def select_polar(
    sets: PolarSets,
    model: WordEmbedder,
    *,
    seed: int,
    singly_tokenized: bool = True,
    balance: bool = True,
    template: str = BLEACHED_TEMPLATE,
) -> PolarSelection:
    """Keep the polar words a model encodes as one subtoken, then balance the groups.

    Parameters
    ----------
    sets
        The polar groups (:func:`polar_sets`).
    model
        The model whose tokenizer decides.
    seed
        Seed of the balancing draw (:func:`balance_groups`).
    singly_tokenized
        Drop words spanning more than one subtoken in ``template`` (VAST's tokenization
        experiment). Words a static model lacks are dropped either way.
    balance
        Then remove random words from the larger group until the groups are equal in size.
    template
        The context the subtokens are counted in.

    Raises
    ------
    EmptyInputError
        If a group ends up empty.
    WordlensError
        For a negative or non-integer seed.
    """
    check_seed(seed)
    words = [*sets.a.words, *sets.b.words]
    groups = ["a"] * len(sets.a.words) + ["b"] * len(sets.b.words)
    counts = subtoken_counts(model, words, template)
    status = np.where(counts == 0, "out_of_vocabulary", "kept").astype(object)
    if singly_tokenized:
        status[counts > 1] = "multiply_tokenized"
    table = pd.DataFrame({"word": words, "group": groups, "n_subtokens": counts, "status": status})
    kept = table["status"] == "kept"
    a = tuple(table.loc[kept & (table["group"] == "a"), "word"])
    b = tuple(table.loc[kept & (table["group"] == "b"), "word"])
    if balance:
        a, b, removed = balance_groups(a, b, seed)
        table.loc[kept & table["word"].isin(removed), "status"] = "balanced_out"
    for name, group in ((sets.a.name, a), (sets.b.name, b)):
        if not group:
            raise EmptyInputError(
                f"no {name!r} polar words are left for {model.info.name}; the selection "
                f"statuses are {table['status'].value_counts().to_dict()}"
            )
    chosen = PolarSets(
        sets.dimension, sets.language, WordSet(sets.a.name, a), WordSet(sets.b.name, b)
    )
    return PolarSelection(chosen, table, seed)
