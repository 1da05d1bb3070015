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

    import pandas as pd

    from wordlens.methods.association.vectors import FloatArray, QueryVectors
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
    set; every layer at once.

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

    def score(
        self, targets: Sequence[FloatArray], attributes: Sequence[FloatArray], config: RipaConfig
    ) -> FloatArray:
        """Mean RIPA of the attribute set's words, ``[n_layers]``.

        Raises
        ------
        WordSetError
            If the two target sets differ in size (they are pairs by position).
        """
        import numpy as np

        from wordlens.methods.ripa.metric import relation_vector

        x, y = targets
        if len(x) != len(y):
            raise WordSetError(
                f"ripa pairs the two target sets by position, so they need the same number of "
                f"words, not {len(x)} and {len(y)}"
            )
        (words,) = attributes
        b = relation_vector(x, y, config.relation)  # [n_layers, dim]
        return np.asarray(np.einsum("wld,ld->wl", words, b).mean(axis=0), dtype=np.float64)

    def table(self, vectors: QueryVectors, query: Query, config: RipaConfig) -> pd.DataFrame:
        """The association table (the bootstrap draws pairs, :attr:`paired_targets`), once the
        two target sets are known to pair up.

        Raises
        ------
        WordSetError
            If the two target sets differ in size, naming them and the words left out.
        """
        (x_name, y_name) = query.targets
        sizes = [len(vectors.words[x_name]), len(vectors.words[y_name])]
        if sizes[0] != sizes[1]:
            lost = "; ".join(
                f"{name} lost {', '.join(vectors.left_out[name])}"
                for name in (x_name, y_name)
                if name in vectors.left_out
            )
            raise WordSetError(
                f"ripa pairs the target sets by position, so {x_name!r} and {y_name!r} need the "
                f"same number of words, not {sizes[0]} and {sizes[1]}"
                + (f" (the model lacks some: {lost})" if lost else "")
            )
        return super().table(vectors, query, config)
