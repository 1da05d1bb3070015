"""Male-female word pairs: the seeds of the Word Association Test and the pairs that define a
gender direction.

- :data:`WAT_SEED_PAIRS`: the 10 male and 10 female seed words of Du, Wu & Lan (2019), paired as
  Zhou, Kaneko & Bollegala (2022) pair them for eq. 4 (``he``/``she``, ``father``/``mother``, ...).
- ``gn-glove-gender-pairs``: the 222 pairs of GN-GloVe (Zhao et al. 2018), line ``i`` of the male
  file with line ``i`` of the female file; Kaneko & Bollegala (2019) use the same list, and Zhou
  et al. (2022, eq. 8) take their gender direction from these pairs.
- ``debiaswe-definitional-pairs``: the 10 definitional pairs of Bolukbasi et al. (2016), stored
  as ``[female, male]`` and returned as ``(male, female)``.

References
----------
Du, Y., Wu, Y. & Lan, M. (2019). Exploring Human Gender Stereotypes with Word Association Test.
*EMNLP-IJCNLP 2019*.

Zhao, J., Zhou, Y., Li, Z., Wang, W. & Chang, K.-W. (2018). Learning Gender-Neutral Word
Embeddings. *EMNLP 2018*.

Kaneko, M. & Bollegala, D. (2019). Gender-preserving Debiasing for Pre-trained Word Embeddings.
*ACL 2019*.

Bolukbasi, T., Chang, K.-W., Zou, J., Saligrama, V. & Kalai, A. (2016). Man is to Computer
Programmer as Woman is to Homemaker? Debiasing Word Embeddings. *NeurIPS 2016*.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from wordlens._files import StrPath, read_text
from wordlens.errors import LexiconFormatError, WordlensError
from wordlens.resources.registry import Resource, ResourceFile, get_resource, register, single_file

GenderPairs = tuple[tuple[str, str], ...]
"""``(male, female)`` word pairs."""

WAT_SEED_PAIRS: GenderPairs = (
    ("he", "she"),
    ("father", "mother"),
    ("son", "daughter"),
    ("husband", "wife"),
    ("grandfather", "grandmother"),
    ("brother", "sister"),
    ("man", "woman"),
    ("boy", "girl"),
    ("uncle", "aunt"),
    ("gentleman", "lady"),
)
"""Du et al.'s (2019) propagation seeds, paired for eq. 4 as in Zhou et al. (2022)."""

PAIR_SETS = ("gn-glove-gender-pairs", "debiaswe-definitional-pairs")
"""Registered pair lists (:func:`load_gender_pairs`)."""


def load_gender_pairs(
    name: str = "gn-glove-gender-pairs", path: StrPath | None = None
) -> GenderPairs:
    """A registered list of ``(male, female)`` pairs, from ``path`` (a data root) or the roots."""
    if name not in PAIR_SETS:
        raise WordlensError(f"unknown gender pairs {name!r}; choose one of {', '.join(PAIR_SETS)}")
    loaded = get_resource(name).load(path)
    assert isinstance(loaded, tuple)
    return loaded


def read_gn_glove_pairs(paths: Sequence[Path]) -> GenderPairs:
    """Pair line ``i`` of the male word file with line ``i`` of the female word file."""
    male, female = (_words(path) for path in paths)
    if len(male) != len(female):
        raise LexiconFormatError(
            f"{paths[0]} has {len(male)} words but {paths[1]} has {len(female)}; the files pair "
            "line by line"
        )
    return tuple(zip(male, female, strict=True))


def read_definitional_pairs(path: Path) -> GenderPairs:
    """Parse debiaswe's ``definitional_pairs.json`` (``[[female, male], ...]``)."""
    document = json.loads(read_text(path))
    valid = isinstance(document, list) and all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(w, str) for w in pair)
        for pair in document
    )
    if not valid:
        raise LexiconFormatError(f"{path}: expected a JSON list of [female, male] word pairs")
    return tuple((male, female) for female, male in document)


def _words(path: Path) -> list[str]:
    words = [line.strip() for line in read_text(path).splitlines()]
    return [word for word in words if word]


_GN_GLOVE = ("uclanlp/gn_glove", "7e0c7cabb67875bef76b0d3026846e1c2029c860")

register(
    Resource(
        name="gn-glove-gender-pairs",
        kind="gender-pairs",
        description=(
            "222 male-female word pairs (countryman/countrywoman, he/she, ...): the GN-GloVe "
            "seed words, also Kaneko & Bollegala's (2019) gender pairs. Loaded as (male, female)."
        ),
        files=tuple(
            ResourceFile(
                relpath=f"weat/gn_glove/{sex}_word_file.txt",
                sha256=sha,
                repo=_GN_GLOVE[0],
                commit=_GN_GLOVE[1],
                path=f"wordlist/{sex}_word_file.txt",
            )
            for sex, sha in (
                ("male", "d431679ce3ef4134647e22cb5fd89e8dbee3f04636f1c7cbae5f28a369acf60f"),
                ("female", "5f0803f056de3fbc459589bce26272d3c5453112a3a625fb8ee99c0fbbed5b35"),
            )
        ),
        loader=read_gn_glove_pairs,
        citation=(
            "Zhao, J., Zhou, Y., Li, Z., Wang, W. & Chang, K.-W. (2018). Learning Gender-Neutral "
            "Word Embeddings. EMNLP 2018."
        ),
        license="Apache-2.0 (uclanlp/gn_glove)",
    )
)
register(
    Resource(
        name="debiaswe-definitional-pairs",
        kind="gender-pairs",
        description=(
            "The 10 definitional pairs of Bolukbasi et al. (2016) that define their gender "
            "direction (woman/man, girl/boy, she/he, ...). Loaded as (male, female)."
        ),
        files=(
            ResourceFile(
                relpath="weat/debiaswe/definitional_pairs.json",
                sha256="f2387fdd4ae4d956083ee7594f1401b1ba112914d40a99bb61d481de73db9614",
                repo="tolga-b/debiaswe",
                commit="6bb03ee2a0d7214339e513ca71cd0a99069dc29c",
                path="data/definitional_pairs.json",
            ),
        ),
        loader=single_file(read_definitional_pairs),
        citation=(
            "Bolukbasi, T., Chang, K.-W., Zou, J., Saligrama, V. & Kalai, A. (2016). Man is to "
            "Computer Programmer as Woman is to Homemaker? Debiasing Word Embeddings. NeurIPS 2016."
        ),
        license="MIT (Copyright (c) 2016 Tolga)",
    )
)
