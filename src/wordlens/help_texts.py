"""Help texts of options that several methods share (each config declares its own field with
:func:`wordlens.options.option`; the words they show users are written once, here), and
:func:`plain_help`, which makes a docstring plain text for ``--help``."""

import re

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


_ROLE = r":(?:py:)?(?:func|meth|class|mod|data|attr|exc|obj|const):`~?(?P<target>[^`]+)`"
_ANY_ROLE = _ROLE.replace("?P<target>", "")
_ROLE_ONLY = re.compile(rf" ?\((?:see )?{_ANY_ROLE}(?:(?:, | and ){_ANY_ROLE})*\)")
"""A parenthesis that only points at code (``(:meth:`usable`)``): nothing for a reader of
``--help``."""


def plain_help(text: str) -> str:
    """A docstring's text as a command's ``--help`` shows it: no Sphinx roles (a parenthesis
    holding only roles is left out; another role shows its target's last name as code,
    ``:class:`~wordlens.results.Run``` → ```Run```), literals as single-backtick code
    (````x```` → ```x```) and ``[1]_`` as ``[1]``."""
    text = _ROLE_ONLY.sub("", text)
    text = re.sub(_ROLE, lambda match: f"`{match.group('target').rsplit('.', 1)[-1]}`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return re.sub(r"\[(\w+)\]_", r"[\1]", text)
