"""RIPA, the relational inner product association (Ethayarajh, Duvenaud & Hirst 2019), at every
layer of a model.

The two target sets are word pairs by position (``x_i``, ``y_i``); the relation vector ``b``
comes from their differences and a word's association is ``w · b``; the value of each attribute
set is its words' mean association. The bootstrap resamples pairs, not each target set alone,
so that the interval is of the same statistic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wordlens.errors import WordSetError
from wordlens.methods.association import AssociationMethod
from wordlens.methods.registry import register
from wordlens.methods.ripa.config import RipaConfig

if TYPE_CHECKING:
    from collections.abc import Sequence

    from wordlens.methods.association import Part
    from wordlens.methods.association.method import Scheme
    from wordlens.methods.association.vectors import FloatArray, QueryVectors
    from wordlens.methods.association.words import Contribution
    from wordlens.resources import Query

__all__ = ["Ripa", "RipaConfig"]


@register
class Ripa(AssociationMethod[RipaConfig]):
    """RIPA (Ethayarajh, Duvenaud & Hirst 2019): the attribute words' inner product with the
    relation vector of the target pairs.

    The target sets ``X`` and ``Y`` are pairs by position, ``(x_i, y_i)``, and must have the
    same size. The relation vector ``b`` is the first principal component of the differences
    ``{x_i - y_i}`` (§5, the definition of RIPA: ``β(w; b) = <w, b>``), oriented from ``Y`` to
    ``X``; with ``relation="pairs"``, WEFE's variant, each pair's unit difference and the
    association averaged over the pairs. The value for an attribute set ``A`` is
    ``mean_{w in A} w · b``: positive when ``A`` leans towards ``X``. One part per attribute
    set; every layer at once. A pair that loses a word to the model loses both
    (:meth:`usable`). The test of ``relation="pc"`` partitions the attribute words, that of
    ``relation="pairs"`` swaps words within pairs (:meth:`scheme`).

    References
    ----------
    Ethayarajh, K., Duvenaud, D. & Hirst, G. (2019). Understanding undesirable word embedding
    associations. *ACL 2019*, 1696-1705.
    """

    name = "ripa"
    title = "Relational inner product association (RIPA)"
    label = "RIPA"
    citation = "Ethayarajh, Duvenaud & Hirst (2019), ACL"
    config_type = RipaConfig
    formula = (
        "beta(w; b) = <w, b>, b = first principal component of {x_i - y_i} (§5, RIPA's "
        "definition); value = mean over the attribute set's words of beta(w; b)"
    )
    attributes_per_part = 1
    compares_targets = True
    more_bias = "farther from 0"
    paired_targets = True
    word_totals = (
        "each attribute word's beta(w; b) = <w, b>: their mean over the part's attribute words "
        "is the value"
    )

    def score(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: RipaConfig
    ) -> FloatArray:
        """Mean RIPA of the attribute set's words, ``[..., n_layers]``, from sets
        ``[..., n_words, n_layers, dim]``."""
        (words,) = attributes
        means: FloatArray = self.word_scores(targets, words, config).mean(axis=-2)
        return means

    def word_scores(
        self, targets: Sequence[FloatArray], words: FloatArray, config: RipaConfig
    ) -> FloatArray:
        """Each word's RIPA ``β(w; b) = <w, b>`` (§5), ``[..., n_words, n_layers]``, from
        ``words`` and target pairs ``[..., n_words, n_layers, dim]``.

        Raises
        ------
        WordSetError
            If the two target sets differ in size (they are pairs by position).
        """
        import numpy as np

        from wordlens.methods.ripa.metric import relation_vector

        x, y = targets
        if x.shape[-3] != y.shape[-3]:
            raise WordSetError(
                f"ripa pairs the two target sets by position, so they need the same number of "
                f"words, not {x.shape[-3]} and {y.shape[-3]}"
            )
        b = relation_vector(x, y, config.relation)  # [..., n_layers, dim]
        return np.asarray(np.einsum("...wld,...ld->...wl", words, b), dtype=np.float64)

    def contributions(
        self,
        part: Part,
        targets: Sequence[FloatArray],
        attributes: Sequence[FloatArray],
        config: RipaConfig,
    ) -> list[Contribution]:
        """Each attribute word's ``β(w; b)`` (§5; :meth:`word_scores`), whose mean is
        :meth:`score`."""
        from wordlens.methods.association.words import Contribution

        (words,) = attributes
        relation = "b: first principal component" if config.relation == "pc" else "b: mean pair"
        scores = self.word_scores(targets, words, config)
        return [Contribution(f"beta(w; b) = <w, b> ({relation})", {part.attributes[0]: scores})]

    def scheme(self, config: RipaConfig) -> Scheme:
        """``relation="pairs"``: swaps within pairs (each swap flips the sign of that pair's
        term, so the test can reject). ``relation="pc"``: swapping the words of pair ``i`` flips
        row ``i`` of the differences ``D``, which leaves ``DᵀD``, and so ``b``, unchanged up to
        sign: ``|value|`` never moves and such a test could never reject. Its test partitions
        the attribute words instead: under the null that the two attribute sets are
        exchangeable in their association with the relation, their mean ``β(w; b)`` differ
        only by chance: Pitman's (1937) two-sample permutation test, the scheme of Caliskan et
        al.'s WEAT test applied to the attribute words, with ``b`` fixed by the targets.

        References
        ----------
        Pitman, E. J. G. (1937). Significance tests which may be applied to samples from any
        populations. *Supplement to the Journal of the Royal Statistical Society* 4(1),
        119-130.
        """
        return "target pairs" if config.relation == "pairs" else "attribute words"

    def usable(self, vectors: QueryVectors, query: Query) -> QueryVectors:
        """The query's vectors less every pair that lost a word: both words of such a pair are
        left out, the partner with the reason (pairing by position would otherwise shift and
        pair words nobody paired).

        Raises
        ------
        WordSetError
            If the query's two target sets differ in size, or no pair is left whole.
        """
        from dataclasses import replace

        (x_name, y_name) = query.targets
        xs, ys = query.targets[x_name], query.targets[y_name]
        if len(xs) != len(ys):
            raise WordSetError(
                f"ripa pairs the target sets by position, so {x_name!r} and {y_name!r} need the "
                f"same number of words, not {len(xs)} and {len(ys)}"
            )
        lacking = {w for name in (x_name, y_name) for w in vectors.left_out.get(name, [])}
        broken = [(x, y) for x, y in zip(xs, ys, strict=True) if x in lacking or y in lacking]
        if not broken:
            return vectors
        why = dict(vectors.why)
        for x, y in broken:
            for word, partner in ((x, y), (y, x)):
                if word not in lacking:
                    why[word] = (
                        f"its pair partner {partner!r} is left out ({vectors.why[partner]}), and "
                        "ripa pairs the target sets by position"
                    )
        if len(broken) == len(xs):
            raise WordSetError(
                f"ripa pairs {x_name!r} with {y_name!r} by position, and every pair lost a word: "
                + "; ".join(f"{x!r} / {y!r}" for x, y in broken)
            )
        dropped = {w for pair in broken for w in pair}
        left_out = dict(vectors.left_out)
        targets = dict(vectors.targets)
        words = dict(vectors.words)
        for name, members in ((x_name, xs), (y_name, ys)):
            keep = [i for i, w in enumerate(vectors.words[name]) if w not in dropped]
            targets[name] = vectors.targets[name][keep]
            words[name] = [vectors.words[name][i] for i in keep]
            left_out[name] = [w for w in members if w in dropped]
        return replace(vectors, targets=targets, words=words, left_out=left_out, why=why)
