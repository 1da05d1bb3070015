"""What the association metrics share (RND, RNSB, MAC, ECT, RIPA, SemAxis): their options
(:class:`AssociationConfig`), the query's vectors at every layer
(:func:`~wordlens.methods.association.vectors.embed_query`), the bootstrap interval and
permutation test (:mod:`~wordlens.methods.association.resampling`) and
the method every metric subclasses (:class:`AssociationMethod`)."""

from wordlens.methods.association.config import AssociationConfig
from wordlens.methods.association.method import AssociationMethod, Part

__all__ = ["AssociationConfig", "AssociationMethod", "Part"]
