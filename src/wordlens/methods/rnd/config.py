"""Options of the relative norm distance (``wordlens rnd``): the shared association options and
the three choices on which Garg et al. (2018) and WEFE's ``RND`` differ."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from wordlens.methods.association.config import AssociationConfig
from wordlens.options import option

Distance = Literal["norm", "cos"]
"""``"norm"``: Euclidean distance; ``"cos"``: cosine *similarity* (WEFE's ``distance="cos"``)."""


@dataclass(frozen=True)
class RndConfig(AssociationConfig):
    """What ``wordlens rnd`` runs: :class:`~wordlens.methods.association.AssociationConfig`'s
    options and how the distances are taken.

    Attributes
    ----------
    normalize
        Scale every word's vector to unit length (at each layer) before the target sets are
        averaged, as Garg et al. (2018) do (their code reads vectors normalised to unit length);
        False: the vectors as the model gives them (WEFE's default, ``normalize=False``).
    average
        Divide the sum over the attribute words by their number: WEFE's ``RND`` returns this
        mean; False: the sum of Garg et al.'s equation.
    distance
        ``"norm"``: Euclidean distance, ``||a - mean(T1)|| - ||a - mean(T2)||`` (the paper);
        ``"cos"``: cosine similarity, ``cos(a, mean(T1)) - cos(a, mean(T2))``, as WEFE's
        ``distance="cos"`` (and Garg et al.'s code's ``"cossim"``). The sign is reversed: with
        ``"norm"`` a positive value means the attributes are nearer ``T2``, with ``"cos"``
        nearer ``T1``.
    """

    normalize: bool = option(
        True,
        "Unit-length word vectors before averaging, as Garg et al.; --no-normalize as WEFE.",
        flag="normalize/no-normalize",
    )
    average: bool = option(
        False, "Mean over the attribute words (WEFE's RND) instead of the paper's sum."
    )
    distance: Distance = option(
        "norm",
        "'norm': Euclidean distance (the paper); 'cos': cosine similarity, as WEFE's "
        "distance='cos' (sign reversed).",
    )
