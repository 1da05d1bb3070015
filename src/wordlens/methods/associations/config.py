"""Options of ``wordlens associations``: the association metrics' options, and those of a
metric's own that a query can need on the combined page (RNSB's holdout split)."""

from __future__ import annotations

from dataclasses import dataclass

from wordlens.methods.association import AssociationConfig
from wordlens.options import option


@dataclass(frozen=True)
class AssociationsConfig(AssociationConfig):
    """What ``wordlens associations`` runs: :class:`AssociationConfig`'s options, given to every
    metric, and ``holdout``, given to RNSB (:func:`~wordlens.methods.associations.metric_config`).

    Attributes
    ----------
    holdout
        RNSB: fit each classifier on a stratified 80% of the attribute words (WEFE's default);
        False (``--no-holdout``): on every attribute word, as attribute sets of two words need.
    """

    holdout: bool = option(
        True,
        "RNSB: fit each classifier on a stratified 80% of the attribute words (WEFE's default); "
        "--no-holdout: on all of them.",
        flag="holdout/no-holdout",
    )
