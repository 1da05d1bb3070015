"""Options of RNSB (``wordlens rnsb``): the association metrics' options, the number of
classifiers and their holdout split."""

from __future__ import annotations

from dataclasses import dataclass

from wordlens.methods.association import AssociationConfig
from wordlens.options import option


@dataclass(frozen=True)
class RnsbConfig(AssociationConfig):
    """What ``wordlens rnsb`` runs: :class:`AssociationConfig`'s options, the repeated fits of
    the sentiment classifier and their holdout split.

    Attributes
    ----------
    fits
        Logistic regressions fitted at each layer, fit ``k`` with random state ``seed + k``
        (its holdout split and its solver); the value is the mean RNSB over them and the
        table's ``fits_sd`` their standard deviation.
    holdout
        Fit each classifier on a stratified, shuffled 80% of the attribute words and score it
        on the other 20% (WEFE's default), or on every attribute word.
    bootstrap
        As :class:`AssociationConfig`'s, 0 by default here: each resample refits ``fits``
        classifiers at every layer.
    """

    fits: int = option(
        10,
        "Logistic regressions fitted at each layer (random state seed + k); mean and sd.",
        minimum=1,
    )
    holdout: bool = option(
        True,
        "Fit each classifier on a stratified 80% of the attribute words (WEFE's default).",
        flag="holdout/no-holdout",
    )
    bootstrap: int = option(
        0,
        "Bootstrap resamples of the words for the interval at each layer (0: none; each "
        "resample refits every classifier).",
        minimum=0,
    )
