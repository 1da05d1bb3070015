"""Word similarity and relatedness data sets: :class:`SimilaritySet`, its parser and the 13 sets
of Faruqui & Dyer's ``eval-word-vectors`` collection.

Each file has one pair per line, ``word1 word2 score``, separated by tabs or spaces. Pairs are kept
as the files list them: a few sets repeat a pair (WS-353 lists money/cash twice) or list both
orders of one (e.g. SimLex-999 sly/strange), and scores stay on each set's own scale.

References
----------
Faruqui, M., & Dyer, C. (2014). Community evaluation and exchange of word vectors at
wordvectors.org. *ACL 2014: System Demonstrations*. (Source of the copies registered here; cite
the data set's own paper, listed with each resource.)
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from wordlens._files import StrPath, read_text, reading
from wordlens.errors import EmptyInputError, LexiconFormatError
from wordlens.resources.registry import (
    Resource,
    ResourceFile,
    get_resource,
    register,
    single_file,
)

# numpy and pandas are imported in the functions that use them: the command line imports the
# resources (its methods' options name them), and `wordlens --help` should not load them.
if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True, eq=False)
class SimilaritySet:
    """Word pairs with human similarity or relatedness scores.

    Attributes
    ----------
    name
        Resource name, or the file stem for a user file.
    data
        Columns ``word1``, ``word2`` (str) and ``score`` (float64), in file order.
    """

    name: str
    data: pd.DataFrame = field(repr=False)

    def __len__(self) -> int:
        return len(self.data)


def read_similarity(path: Path, *, name: str | None = None) -> SimilaritySet:
    """Parse a whitespace-separated ``word1 word2 score`` file (blank lines are skipped).

    Raises
    ------
    LexiconFormatError
        A line without exactly three fields or with a score that is not a finite number; the
        message names the file and line.
    EmptyInputError
        The file has no pairs.
    FileEncodingError
        The file is not UTF-8; the message names the line.
    InputFileError
        The file cannot be read (missing, a directory, no permission).
    """
    import pandas as pd

    rows: list[tuple[str, str, float]] = []
    with reading(path, "similarity file"):
        text = read_text(path)
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise LexiconFormatError(
                f"{path}, line {number}: expected 'word1 word2 score', found {len(fields)} fields"
            )
        try:
            score = float(fields[2])
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            raise LexiconFormatError(f"{path}, line {number}: score {fields[2]!r} is not a number")
        rows.append((fields[0], fields[1], score))
    if not rows:
        raise EmptyInputError(f"{path}: no word pairs")
    data = pd.DataFrame(rows, columns=["word1", "word2", "score"]).astype({"score": "float64"})
    return SimilaritySet(name=name or path.stem, data=data)


def load_similarity(
    source: str | os.PathLike[str], *, path: StrPath | None = None
) -> SimilaritySet:
    """Load a registered similarity set by name, or a user's ``word1 word2 score`` file.

    Parameters
    ----------
    source
        A registered name (see ``list_resources("similarity")``) or a file path; a string
        containing a path separator or a dot is a path.
    path
        For a registered name: an explicit location of its file (or a data root).
    """
    text = os.fspath(source)
    if not isinstance(source, str) or "." in text or "/" in text or os.sep in text:
        return read_similarity(Path(text))
    loaded = get_resource(text, kind="similarity").load(path)
    assert isinstance(loaded, SimilaritySet)
    return loaded


_REPO = "mfaruqui/eval-word-vectors"
# SOURCE.md names no commit; this one is pinned by other projects for the same 13 files. The
# sha256 below, not the commit, is what guarantees the content.
_COMMIT = "56ebe3699df6e745d506fb3cd97d4f7b1e615d32"

_SETS: tuple[tuple[str, str, str, str, str], ...] = (
    # name, file, sha256, description, citation
    (
        "ws353",
        "EN-WS-353-ALL.txt",
        "ce12919b240af45bdf46d243601eaca2b6212b159b5e7e9b435ee7ee40c5619c",
        "WordSim-353: 353 pairs (money/cash twice), relatedness 0-10.",
        "Finkelstein, L., Gabrilovich, E., Matias, Y., Rivlin, E., Solan, Z., Wolfman, G., & "
        "Ruppin, E. (2001). Placing search in context: The concept revisited. WWW 2001.",
    ),
    (
        "ws353-rel",
        "EN-WS-353-REL.txt",
        "66a7c88100624d0a391605ff61ce84e11d11ee620d51ec0298da49592838f8fa",
        "WordSim-353 relatedness subset: 252 pairs, 0-10.",
        "Agirre, E., Alfonseca, E., Hall, K., Kravalova, J., Pasca, M., & Soroa, A. (2009). A "
        "study on similarity and relatedness using distributional and WordNet-based approaches. "
        "NAACL-HLT 2009.",
    ),
    (
        "ws353-sim",
        "EN-WS-353-SIM.txt",
        "f1da938998863c94e53f72f984a5c6e215f0b46c323aae8f0f4930703a339107",
        "WordSim-353 similarity subset: 203 pairs, 0-10.",
        "Agirre, E., Alfonseca, E., Hall, K., Kravalova, J., Pasca, M., & Soroa, A. (2009). A "
        "study on similarity and relatedness using distributional and WordNet-based approaches. "
        "NAACL-HLT 2009.",
    ),
    (
        "simlex999",
        "EN-SIMLEX-999.txt",
        "405394ffb7d25f6d0e3c041f87c9f27d29dc6b047506769953e85c4523b11685",
        "SimLex-999: 999 pairs, genuine similarity 0-10.",
        "Hill, F., Reichart, R., & Korhonen, A. (2015). SimLex-999: Evaluating semantic models "
        "with (genuine) similarity estimation. Computational Linguistics, 41(4), 665-695.",
    ),
    (
        "men",
        "EN-MEN-TR-3k.txt",
        "888b13580faa362c7b11da0a670258cf1b1eb4bf0ecbcd418918729a3bd3f43a",
        "MEN: 3,000 pairs, relatedness 0-50.",
        "Bruni, E., Tran, N. K., & Baroni, M. (2014). Multimodal distributional semantics. "
        "Journal of Artificial Intelligence Research, 49, 1-47.",
    ),
    (
        "rw",
        "EN-RW-STANFORD.txt",
        "5108d54dfc746f44f9c3d7e31d2857c37cf71430bc1594175a61a3b89bb0ae1f",
        "Stanford Rare Words: 2,034 pairs, similarity 0-10.",
        "Luong, M.-T., Socher, R., & Manning, C. D. (2013). Better word representations with "
        "recursive neural networks for morphology. CoNLL 2013.",
    ),
    (
        "rg65",
        "EN-RG-65.txt",
        "c243f3a91c3f5d8cf67f21a67f6fb80bde8b6bb060851a6a48e6f2d68ec98c9f",
        "Rubenstein & Goodenough: 65 noun pairs, synonymy 0-4.",
        "Rubenstein, H., & Goodenough, J. B. (1965). Contextual correlates of synonymy. "
        "Communications of the ACM, 8(10), 627-633.",
    ),
    (
        "mc30",
        "EN-MC-30.txt",
        "33ee05911496ff83d95cac351d0746c6f63b9181b605cb7d307f4daa8864511b",
        "Miller & Charles: 30 noun pairs, similarity 0-4.",
        "Miller, G. A., & Charles, W. G. (1991). Contextual correlates of semantic similarity. "
        "Language and Cognitive Processes, 6(1), 1-28.",
    ),
    (
        "mturk287",
        "EN-MTurk-287.txt",
        "a9ae3a9decb75a9700fe0cf18b048c1344774d9f40e0196baf8e34d4cd9d1ce5",
        "MTurk-287: 287 pairs, relatedness 1-5.",
        "Radinsky, K., Agichtein, E., Gabrilovich, E., & Markovitch, S. (2011). A word at a time: "
        "Computing word relatedness using temporal semantic analysis. WWW 2011.",
    ),
    (
        "mturk771",
        "EN-MTurk-771.txt",
        "04dc297c9e86b6fa7cf8ef0e4ba2e2c8d3399ec68d92fb7a53c0b4aae27198b5",
        "MTurk-771: 771 pairs, relatedness 1-5.",
        "Halawi, G., Dror, G., Gabrilovich, E., & Koren, Y. (2012). Large-scale learning of word "
        "relatedness with constraints. KDD 2012.",
    ),
    (
        "simverb3500",
        "EN-SimVerb-3500.txt",
        "9d84274e7ad029fd3cf69dd0516e9ade624bbef9bd4e2050f6cc1fa01471e0f5",
        "SimVerb-3500: 3,500 verb pairs, similarity 0-10.",
        "Gerz, D., Vulić, I., Hill, F., Reichart, R., & Korhonen, A. (2016). SimVerb-3500: A "
        "large-scale evaluation set of verb similarity. EMNLP 2016.",
    ),
    (
        "verb143",
        "EN-VERB-143.txt",
        "7259e19961c81912aa4c72de0102e480b2ad2bb9f4ce97d036fbde8e1a403001",
        "Verb-143: 144 verb pairs (despite the name), similarity scores between 0 and 1.",
        "Baker, S., Reichart, R., & Korhonen, A. (2014). An unsupervised model for instance level "
        "subcategorization acquisition. EMNLP 2014.",
    ),
    (
        "yp130",
        "EN-YP-130.txt",
        "7643fdbc6158c3424061e2cba450c71285767266ff9f3db947bfc1f1f5ce67ab",
        "Yang & Powers: 130 verb pairs, similarity 0-4.",
        "Yang, D., & Powers, D. M. W. (2006). Verb similarity on the taxonomy of WordNet. "
        "Proceedings of the 3rd International WordNet Conference (GWC-06).",
    ),
)

for _name, _file, _sha256, _description, _citation in _SETS:
    register(
        Resource(
            name=_name,
            kind="similarity",
            description=_description,
            files=(
                ResourceFile(
                    relpath=f"similarity/{_file}",
                    sha256=_sha256,
                    repo=_REPO,
                    commit=_COMMIT,
                    path=f"data/word-sim/{_file}",
                ),
            ),
            loader=single_file(functools.partial(read_similarity, name=_name)),
            citation=_citation,
            license=(
                f"research use with citation: the data belong to their authors; {_REPO} is "
                "Apache-2.0 for its code"
            ),
        )
    )
