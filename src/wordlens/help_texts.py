"""Help texts of options that several methods share (each config declares its own field with
:func:`wordlens.options.option`; the words they show users are written once, here)."""

LAYERS = (
    "Layers: 'all', or a comma list of indices and ranges such as '0,6,-1' or '2-5' "
    "(0 = embeddings, -1 = the last layer)."
)
POOLING = "Subtoken pooling: first, last, mean or max."
DUPLICATES = (
    "A word listed more than once in a lexicon: error, mean (average its ratings) or first "
    "(keep the first entry) [error; a registered lexicon's own policy]."
)
ENCODING = (
    "Text encoding of the files you pass (words file, lexicon, study, templates), e.g. latin-1 "
    "or cp1252."
)
CONVENTIONS = (
    "Input conventions: wordlens (--bos as given) or paper (the paper authors' BOS choice; see "
    "wordlens.conventions)."
)
MAX_MISSING = (
    "Skip the query when one of its sets loses more than this share of its words to the model "
    "(WEFE's lost_vocabulary_threshold, 0.2 there). Default: no threshold."
)

MAX_PERMUTATIONS = 10_000_000
"""The most relabellings a permutation test takes (every method's ``permutations`` option). A
sampled test keeps a key of each relabelling it drew, to draw distinct ones, and sorts them again
with each chunk, so its time and memory grow faster than the count: drawing the partitions of
25 + 25 words took 1.5 s and 173 MiB for a million, 38 s and 674 MiB for ten million (one core),
and more runs on for hours and gigabytes. An exact test (all relabellings, when they are no
more) needs far fewer: C(16, 8) = 12,870 for eight words a side."""
PERMUTATIONS_BOUND = f"at most {MAX_PERMUTATIONS:,}"
"""How the help of a ``permutations`` option says its bound."""
