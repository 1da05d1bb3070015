r"""Word similarity and relatedness at each layer, optionally after PC nullification.

The validation of VAST (Wolfe & Caliskan 2022 [1]_, "Validations of VAST"): each distinct word of
a similarity set is embedded once — in the semantically bleached context ``"This is {word}"`` or
alone — and, at each layer, Spearman's rho is taken between the cosine similarity of each pair's
vectors and the human scores:

.. math:: \rho_\ell = \operatorname{Spearman}\left(
          \left[\cos(\vec{w}_{1,i}^{(\ell)}, \vec{w}_{2,i}^{(\ell)})\right]_i,
          \left[s_i\right]_i\right)

with a 95% interval (:func:`wordlens.stats.spearman`). Optionally the vectors are first
post-processed with all-but-the-top (Mu & Viswanath 2018 [2]_): the mean is subtracted and the top
``k`` principal components nullified (:mod:`wordlens.stats.subspace`), fitted per layer on all of
the set's word vectors, as the VAST authors' code does for WS-353. ``k_nullified`` is ``<NA>`` for
the raw vectors and ``0`` for mean subtraction alone, which also changes cosines.

Words a static vocabulary lacks drop their pairs; each set's coverage is reported.

References
----------
.. [1] Wolfe, R. & Caliskan, A. (2022). VAST: The Valence-Assessing Semantics Test for
   Contextualizing Language Models. *AAAI* 36(10), 11477-11485.
.. [2] Mu, J. & Viswanath, P. (2018). All-but-the-Top: Simple and Effective Postprocessing for
   Word Representations. *ICLR 2018*.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from wordlens.contexts import BLEACHED_TEMPLATE, WordContext, word_targets
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.methods.vast.config import VAST_SETS
from wordlens.models.base import Pooling, WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.resources import SimilaritySet, load_similarity
from wordlens.results import Result
from wordlens.stages import Timings
from wordlens.stats import correlation_by_layer, fit_principal_components
from wordlens.stats.association import FloatArray


def run_similarity(
    model: WordEmbedder,
    sets: str | SimilaritySet | Sequence[str | SimilaritySet] = VAST_SETS,
    *,
    layers: Sequence[int] | None = None,
    k_nullified: Sequence[int | None] = (None,),
    context: WordContext = "template",
    template: str = BLEACHED_TEMPLATE,
    pooling: Pooling = "mean",
    confidence: float = 0.95,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> Result:
    """Spearman's rho of cosine similarity vs human scores, per set, layer and ``k``.

    Parameters
    ----------
    model
        Any loaded model; static models have the single layer 0 and ignore the context.
    sets
        Registered similarity sets (``list_resources("similarity")``: ws353, simlex999, rw, men,
        mc30, rg65, ...), user files, or loaded :class:`~wordlens.resources.SimilaritySet`;
        default the four of VAST.
    layers
        Hidden-state layers (0 = embeddings); default all.
    k_nullified
        Post-processing, one result row each: ``None`` for the raw vectors, ``k >= 0`` for the
        mean subtracted and the top ``k`` principal components nullified (fitted per set and
        layer on the set's word vectors).
    context
        ``"template"``: each word in ``template``; ``"none"``: each word alone (after BOS).
    template
        The context, with one ``{word}`` (May et al.'s semantically bleached one by default).
    pooling
        Subtoken pooling (first, last, mean, max).
    confidence
        Confidence level of the Spearman intervals.
    cache
        Activation cache, passed to ``model.embed``.
    progress
        Show a progress bar while embedding.

    Returns
    -------
    Result
        ``similarity``: one row per set, ``k_nullified`` and layer with ``spearman``, ``ci_low``,
        ``ci_high``, ``p_value``, ``n_pairs`` (in the set) and ``n_used`` (both words embedded);
        metadata ``coverage`` gives each set's pairs used, share and missing words.

    Raises
    ------
    EmptyInputError
        If no set or no ``k`` is given, or no pair of a set has both words in the vocabulary.
    WordlensError
        If a ``k`` is not None or a non-negative integer, ``k`` is not below the number of a
        set's words and the hidden size, two sets share a name, or a vector is zero.
    ResourceNotFoundError
        If a set name is not registered (with close matches).
    """
    chosen = _load_sets(sets)
    ks = _checked_ks(k_nullified)
    timings = Timings()
    missing = set(model.missing_words(_distinct_words(s.data for s in chosen)))
    kept = {s.name: _covered_pairs(s, missing, model.info.name) for s in chosen}
    present = _distinct_words(kept.values())
    use_context = context == "template" and model.info.kind != "static"
    targets = word_targets(present, "none" if model.info.kind == "static" else context, template)
    with timings.stage("embed"):
        embeddings = model.embed(targets, layers, pooling, cache=cache, progress=progress)
    row_of = {word: row for row, word in enumerate(present)}
    rows: list[dict[str, Any]] = []
    with timings.stage("statistics"):
        for similarity_set in chosen:
            pairs = kept[similarity_set.name]
            words = _distinct_words([pairs])
            vectors = np.asarray(embeddings.vectors[[row_of[w] for w in words]], np.float64)
            for k, transformed in _postprocessed(vectors, ks, similarity_set.name):
                _check_nonzero(transformed, words, embeddings.layers)
                results = correlation_by_layer(
                    _pair_cosines(transformed, words, pairs),
                    pairs["score"],
                    method="spearman",
                    confidence=confidence,
                )
                rows.extend(
                    {
                        "set": similarity_set.name,
                        "k_nullified": k,
                        "layer": layer,
                        "spearman": result.r,
                        "ci_low": result.ci_low,
                        "ci_high": result.ci_high,
                        "p_value": result.p_value,
                        "n_pairs": len(similarity_set),
                        "n_used": len(pairs),
                    }
                    for layer, result in zip(embeddings.layers, results, strict=True)
                )
    table = pd.DataFrame(rows).astype({"k_nullified": "Int64"})
    metadata = {
        "method": "word similarity: Spearman of pair cosines vs human scores (Wolfe & Caliskan "
        "2022, Validations of VAST)",
        "model": model.info.as_dict(),
        "config": {
            "context": context if model.info.kind != "static" else "none (static model)",
            "template": template if use_context else None,
            "pooling": pooling,
            "layers": list(embeddings.layers),
            "k_nullified": ks,
            "nullification": "all-but-the-top (Mu & Viswanath 2018): mean subtracted, top k PCs "
            "nullified, fitted per set and layer on the set's word vectors; None = raw vectors",
            "confidence": confidence,
            "ci": "Fisher z with the Bonett & Wright (2000) standard error",
        },
        "sets": [s.name for s in chosen],
        "coverage": {s.name: _coverage(s, kept[s.name], missing) for s in chosen},
        "timings_s": timings.seconds,
    }
    return Result("similarity", table, metadata)


def _load_sets(sets: str | SimilaritySet | Sequence[str | SimilaritySet]) -> list[SimilaritySet]:
    """Load names and files; reject an empty selection and repeated names."""
    given = [sets] if isinstance(sets, str | SimilaritySet) else list(sets)
    if not given:
        raise EmptyInputError("no similarity sets selected")
    loaded = [s if isinstance(s, SimilaritySet) else load_similarity(s) for s in given]
    names = [s.name for s in loaded]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise WordlensError(f"similarity sets given more than once: {', '.join(repeated)}")
    return loaded


def _checked_ks(k_nullified: Sequence[int | None]) -> list[int | None]:
    """Distinct ``k`` values, each None or a non-negative integer."""
    ks = list(dict.fromkeys(k_nullified))
    if not ks:
        raise EmptyInputError("no k_nullified given (use None for the raw vectors)")
    for k in ks:
        if k is not None and (isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0):
            raise WordlensError(
                f"k_nullified values must be None (raw vectors) or integers >= 0; got {k!r}"
            )
    return ks


def _distinct_words(pair_tables: Iterable[pd.DataFrame]) -> list[str]:
    """The distinct words of ``word1`` and ``word2`` columns, in order of first appearance."""
    return list(
        dict.fromkeys(
            word for pairs in pair_tables for column in ("word1", "word2") for word in pairs[column]
        )
    )


def _covered_pairs(
    similarity_set: SimilaritySet, missing: set[str], model_name: str
) -> pd.DataFrame:
    """The pairs whose two words the model has; raise if there are none."""
    data = similarity_set.data
    covered = data[~(data["word1"].isin(missing) | data["word2"].isin(missing))]
    if covered.empty:
        raise EmptyInputError(
            f"no pair of similarity set {similarity_set.name!r} has both words in the "
            f"vocabulary of {model_name}"
        )
    return covered


def _coverage(
    similarity_set: SimilaritySet, covered: pd.DataFrame, missing: set[str]
) -> dict[str, Any]:
    """Pairs in the set, pairs used, their share and the set's words the model lacks."""
    return {
        "n_pairs": len(similarity_set),
        "n_used": len(covered),
        "coverage": len(covered) / len(similarity_set),
        "missing_words": [w for w in _distinct_words([similarity_set.data]) if w in missing],
    }


def _postprocessed(
    vectors: FloatArray, ks: list[int | None], set_name: str
) -> Iterator[tuple[int | None, FloatArray]]:
    """``vectors`` ``[m, L, d]`` as given (``k=None``) or after nullifying ``k``, one at a time.

    One fit (one SVD per layer) serves every ``k``.
    """
    counts = [k for k in ks if k is not None]
    try:
        fitted = fit_principal_components(vectors, max(counts)) if counts else None
    except WordlensError as error:
        raise WordlensError(f"similarity set {set_name!r}: {error}") from error
    for k in ks:
        yield k, vectors if k is None or fitted is None else fitted.remove(vectors, k)


def _check_nonzero(vectors: FloatArray, words: list[str], layers: Sequence[int]) -> None:
    """Raise if a word's vector ``[m, L, d]`` is zero at some layer (its cosine is undefined)."""
    zero = ~np.linalg.norm(vectors, axis=-1).astype(bool)  # [m, L]
    if zero.any():
        word, layer = np.argwhere(zero)[0]
        raise WordlensError(
            f"{int(zero.sum())} zero vector(s), e.g. {words[word]!r} at layer {layers[layer]}: "
            "cosine similarity is undefined"
        )


def _pair_cosines(vectors: FloatArray, words: list[str], pairs: pd.DataFrame) -> FloatArray:
    """Cosines ``[n_pairs, L]`` of the pairs; row ``i`` of ``[m, L, d]`` is ``words[i]``."""
    position = {word: index for index, word in enumerate(words)}
    unit = vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)
    first = unit[pairs["word1"].map(position).to_numpy()]
    second = unit[pairs["word2"].map(position).to_numpy()]
    cosines: FloatArray = np.einsum("pld,pld->pl", first, second)
    return cosines
