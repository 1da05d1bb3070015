"""Options of RIPA (``wordlens ripa``): the association metrics' options and the relation
vector."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from wordlens.methods.association import AssociationConfig
from wordlens.options import option

Relation = Literal["pc", "pairs"]


@dataclass(frozen=True)
class RipaConfig(AssociationConfig):
    """What ``wordlens ripa`` runs: :class:`AssociationConfig`'s options and the relation
    vector.

    Attributes
    ----------
    relation
        ``"pc"``: the paper's relation vector ``b``, the first principal component of the
        pairs' differences ``x_i - y_i``; ``"pairs"``: WEFE's, each pair's normalised
        difference ``(x_i - y_i) / ||x_i - y_i||``, the association averaged over the pairs.
    """

    relation: Relation = option(
        "pc",
        "Relation vector: 'pc' (the paper's first principal component of the pairs' "
        "differences) or 'pairs' (WEFE's per-pair normalised differences, averaged).",
    )
