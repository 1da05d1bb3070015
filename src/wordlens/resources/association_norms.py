r"""Word-association norms (EAT, USF) and the gender lexica derived from association graphs (WAT).

The Word Association Test (WAT; Du, Wu & Lan 2019) gives every word of an association graph a
gender score by label propagation from male and female seed words
(:mod:`wordlens.stats.propagation`). Its authors propagated over the Small World of Words
(SWOW-EN), whose data may not be redistributed; two lexica computed that way are registered here,
with the two free-association norms on which wordlens can run the propagation itself:

- ``eat``: Edinburgh Associative Thesaurus (Kiss et al. 1973), 325,593 stimulus → response
  arcs with the number of subjects (about 100 per stimulus) giving each response. The
  association strength of an arc is its count divided by its stimulus's total (the totals range
  from 50 to 105). Words are lower-cased; EAT cuts words at 19 characters and marks the cut with
  ``%``: such arcs are dropped.
- ``usf``: University of South Florida free-association norms (Nelson, McEvoy & Schreiber 2004),
  72,176 cue → target pairs; the strength is the forward strength ``FSG`` (share of
  participants giving the target). Words are lower-cased.
- ``wat-du2019``: Du et al.'s lexicon, 12,215 words with ``log(b_m / b_f)`` from SWOW-EN
  (positive: male-associated).
- ``wat-zhou2022``: the WAT file of Zhou, Kaneko & Bollegala (2022), the same 12,215 words with
  the scores of a different propagation run.

The EAT and USF files are format conversions of the upstream data (documented with the shared
data); their recorded sha256 is that of the converted file, so they cannot be downloaded from the
upstream address and must be on a data root.

The Small World of Words (SWOW-EN, De Deyne et al. 2019) may not be redistributed, so it is not
registered: users who downloaded it load it with ``load_association_norms("swow", path=...)``
(:func:`read_swow`), from either of its published files, told apart by their header:

- the strength file ``strength.SWOW-EN.R123.csv``: tab-separated ``cue``, ``response``,
  ``R123`` (how many of the cue's R1+R2+R3 responses were this one), ``N`` (the cue's number of
  valid R1+R2+R3 responses) and ``R123.Strength`` (``R123 / N``);
- the raw response file ``SWOW-EN.R100.csv``: comma-separated, one row per participant and cue,
  with columns ``cue``, ``R1``, ``R2``, ``R3`` (among others); every non-missing response of the
  three is counted, and a cue's total is its number of non-missing responses. ``NA``, empty cells,
  "No more responses" and "Unknown word" (the participant did not know the cue) are missing: they
  are not words anyone gave in response.

**Evocation conditionals (eq. 5 of Zhang et al. 2021).** For every norm,
:meth:`AssociationNorms.conditional` gives the forward association strength

.. math:: P(b \mid a) = \frac{\operatorname{count}(a \to b)}{\operatorname{count}(a \to \cdot)}
   \qquad (5)

the share of the responses to cue ``a`` that were ``b`` (USF's ``FSG``); it is 0 when ``a`` is a
cue of the norm and ``b`` was never given to it, and undefined (NaN) when ``a`` is not a cue.
The word pairs a norm defines for the asymmetry measures are those with both conditionals
observed, :meth:`AssociationNorms.bidirectional_pairs` (``a -> b`` and ``b -> a`` both in the
data, ``a != b``): the log asymmetry ratio needs both to be positive, and Appendix I of the paper
describes its pairs by both counts, count(cue=a, target=b) and count(cue=b, target=a).

References
----------
Kiss, G. R., Armstrong, C., Milroy, R. & Piper, J. (1973). An associative thesaurus of English and
its computer analysis. In *The Computer and Literary Studies*, 153-165. Edinburgh University Press.

Nelson, D. L., McEvoy, C. L. & Schreiber, T. A. (2004). The University of South Florida free
association, rhyme, and word fragment norms. *Behavior Research Methods, Instruments, &
Computers* 36(3), 402-407.

Du, Y., Wu, Y. & Lan, M. (2019). Exploring Human Gender Stereotypes with Word Association Test.
*EMNLP-IJCNLP 2019*, 6132-6142.

De Deyne, S., Navarro, D. J., Perfors, A., Brysbaert, M. & Storms, G. (2019). The "Small World of
Words" English word association norms for over 12,000 cue words. *Behavior Research Methods*
51(3), 987-1006.

Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or Ellipses
are like Circles? Measuring the Degree of Asymmetry of Static and Contextual Word Embeddings and
the Implications to Representation Learning. *AAAI 2021*, section 4, eq. 5.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from wordlens._files import StrPath, as_path, decoding, reading
from wordlens.errors import LexiconFormatError, ResourceNotFoundError, WordlensError
from wordlens.resources.registry import Resource, ResourceFile, get_resource, register, single_file

# numpy and pandas are imported in the functions that use them: the command line imports the
# resources (its methods' options name them), and `wordlens --help` should not load them.
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import pandas as pd
    from scipy import sparse

NORMS = ("eat", "usf")
"""Registered association norms (:func:`load_association_norms`)."""

SWOW = "swow"
"""The Small World of Words (SWOW-EN): not registered, loaded from the user's own file."""

SWOW_MISSING = frozenset({"", "na", "no more responses", "unknown word"})
"""Raw SWOW responses (lower-cased, stripped) that are not responses."""

_SWOW_STRENGTH_COLUMNS = ("cue", "response", "R123", "N")
_SWOW_RAW_COLUMNS = ("cue", "R1", "R2", "R3")

GENDER_LEXICA = ("wat-du2019", "wat-zhou2022")
"""Registered WAT gender lexica (:func:`load_gender_lexicon`)."""


@dataclass(frozen=True)
class AssociationNorms:
    """A free-association graph as an edge list.

    Attributes
    ----------
    name
        Registered name or file.
    edges
        One row per (``cue``, ``response``) pair with its ``strength`` in (0, 1]: the share of
        participants who gave that response to that cue. Words are lower case; pairs are unique.
    """

    name: str
    edges: pd.DataFrame

    def graph(self) -> tuple[tuple[str, ...], sparse.csr_array]:
        """The words (sorted) and the weight matrix ``W[cue, response] = strength``."""
        import numpy as np
        from scipy import sparse  # imported here: loading the package should not import scipy

        words = tuple(sorted(set(self.edges["cue"]) | set(self.edges["response"])))
        index = {word: row for row, word in enumerate(words)}
        rows = self.edges["cue"].map(index).to_numpy(dtype=np.int64)
        columns = self.edges["response"].map(index).to_numpy(dtype=np.int64)
        weights = self.edges["strength"].to_numpy(dtype=np.float64)
        shape = (len(words), len(words))
        return words, sparse.csr_array((weights, (rows, columns)), shape=shape)

    @functools.cached_property
    def cues(self) -> frozenset[str]:
        """The normed cue words: those whose conditionals :meth:`conditional` defines."""
        return frozenset(self.edges["cue"])

    @functools.cached_property
    def _strengths(self) -> pd.Series:
        """float64 strengths indexed by the (cue, response) MultiIndex, for hashed lookups."""
        import numpy as np
        import pandas as pd

        index = pd.MultiIndex.from_arrays([self.edges["cue"], self.edges["response"]])
        return pd.Series(self.edges["strength"].to_numpy(dtype=np.float64), index=index)

    def conditional(self, cues: Sequence[str], responses: Sequence[str]) -> npt.NDArray[np.float64]:
        """Eq. 5 of Zhang et al. (2021): ``P(response | cue)``, the forward association strength.

        Parameters
        ----------
        cues, responses : sequence of str, length ``n``
            The pairs, element-wise; words are matched exactly (the norms are lower case).

        Returns
        -------
        numpy.ndarray, float64 ``[n]``
            The share of the cue's responses that were the response; 0.0 when the cue is normed
            but the response was never given to it; NaN when the word is not a normed cue.

        Raises
        ------
        WordlensError
            If `cues` and `responses` differ in length.
        """
        import numpy as np
        import pandas as pd

        if len(cues) != len(responses):
            raise WordlensError(
                f"cues and responses must pair up; got {len(cues)} cues, {len(responses)} responses"
            )
        pairs = pd.MultiIndex.from_arrays([list(cues), list(responses)])
        found = self._strengths.reindex(pairs).to_numpy(dtype=np.float64)
        normed = np.fromiter((cue in self.cues for cue in cues), dtype=bool, count=len(cues))
        return np.where(normed, np.nan_to_num(found, nan=0.0), np.nan)

    def bidirectional_pairs(self) -> pd.DataFrame:
        """The word pairs with both conditionals observed: ``a -> b`` and ``b -> a`` both given.

        These are the pairs an evocation data set defines for the log asymmetry ratio (eq. 1 of
        Zhang et al. 2021 needs ``P(a|b) > 0`` and ``P(b|a) > 0``). Self-pairs are left out.

        Returns
        -------
        pandas.DataFrame
            One row per unordered pair, columns ``word1 < word2`` (lexicographic order, so the
            same pair has the same key in every data set), sorted.
        """
        import pandas as pd

        cue = self.edges["cue"].to_numpy(dtype=str)
        response = self.edges["response"].to_numpy(dtype=str)
        reverse = pd.MultiIndex.from_arrays([response, cue])
        reciprocated = self._strengths.index.isin(reverse) & (cue < response)
        pairs = pd.DataFrame({"word1": cue[reciprocated], "word2": response[reciprocated]})
        return pairs.sort_values(["word1", "word2"], ignore_index=True)


@dataclass(frozen=True)
class GenderLexicon:
    """Gender scores of words, ``log(b_m / b_f)`` (positive: male-associated).

    Attributes
    ----------
    name
        Registered name or file.
    scores
        float64 Series indexed by word (as the lexicon writes it, unique).
    """

    name: str
    scores: pd.Series


def load_association_norms(name: str, path: StrPath | None = None) -> AssociationNorms:
    """Association norms: registered ``eat`` or ``usf`` (from ``path`` or the data roots), or
    ``swow`` from the user's own SWOW-EN file (``path`` required; see :func:`read_swow`).

    Raises
    ------
    ResourceNotFoundError
        For ``swow`` without a ``path``: the data may not be redistributed.
    WordlensError
        For an unknown name.
    """
    if name == SWOW:
        if path is None:
            raise ResourceNotFoundError(
                "SWOW-EN may not be redistributed, so wordlens cannot fetch it: download "
                "strength.SWOW-EN.R123.csv or SWOW-EN.R100.csv from "
                "https://smallworldofwords.org/en/project/research and pass its path "
                '(load_association_norms("swow", path=...))'
            )
        return read_swow(as_path(path))
    if name not in NORMS:
        choices = ", ".join((*NORMS, SWOW))
        raise WordlensError(f"unknown association norms {name!r}; choose one of {choices}")
    loaded = get_resource(name).load(path)
    assert isinstance(loaded, AssociationNorms)
    return loaded


def load_gender_lexicon(name: str, path: StrPath | None = None) -> GenderLexicon:
    """A registered WAT gender lexicon (``wat-du2019`` or ``wat-zhou2022``)."""
    if name not in GENDER_LEXICA:
        raise WordlensError(
            f"unknown gender lexicon {name!r}; choose one of {', '.join(GENDER_LEXICA)}"
        )
    loaded = get_resource(name).load(path)
    assert isinstance(loaded, GenderLexicon)
    return loaded


def read_eat(path: Path) -> AssociationNorms:
    """Parse the EAT arc table (``stimulus``, ``response``, ``count``; tab-separated, gzip ok)."""
    import pandas as pd

    table = _read_table(path, "\t", ("stimulus", "response", "count"), csv.QUOTE_NONE)
    table = table.assign(
        cue=table["stimulus"].str.lower(),
        response=table["response"].str.lower(),
        count=pd.to_numeric(table["count"], errors="coerce"),
    )
    _check_numeric(path, table["count"], "count")
    table["strength"] = table["count"] / table.groupby("cue")["count"].transform("sum")
    truncated = table["cue"].str.endswith("%") | table["response"].str.endswith("%")
    merged = table[~truncated].groupby(["cue", "response"], as_index=False, sort=True)
    edges = merged.agg({"strength": "sum"})
    return AssociationNorms(path.name, _edges(edges["cue"], edges["response"], edges["strength"]))


def read_usf(path: Path) -> AssociationNorms:
    """Parse the USF cue-target table (``CUE``, ``TARGET``, ``FSG``, ...; comma-separated)."""
    import pandas as pd

    table = _read_table(path, ",", ("CUE", "TARGET", "FSG"), csv.QUOTE_MINIMAL)
    strength = pd.to_numeric(table["FSG"], errors="coerce")
    _check_numeric(path, strength, "FSG")
    frame = pd.DataFrame(
        {"cue": table["CUE"].str.lower(), "response": table["TARGET"].str.lower(), "fsg": strength}
    )
    frame = frame.groupby(["cue", "response"], as_index=False, sort=True).agg({"fsg": "max"})
    return AssociationNorms(path.name, _edges(frame["cue"], frame["response"], frame["fsg"]))


def read_swow(path: Path) -> AssociationNorms:
    """Parse a SWOW-EN file: the R123 strength file or the raw R100 response file (by header).

    Both give ``strength = count / total`` per lower-cased (cue, response): the strength file's
    ``R123`` over the cue's ``N`` (a lower-cased cue merging several written forms gets their
    summed ``N``), the raw file's R1+R2+R3 response counts over the cue's number of non-missing
    responses (:data:`SWOW_MISSING` are not responses).

    Raises
    ------
    LexiconFormatError
        If the header is neither format's, or a count is not a valid number; the message names
        the file (and the row).
    FileEncodingError
        If the file is not UTF-8; the message names the line.
    WordlensError
        If the file cannot be read (missing, a directory, no permission).
    """
    if not path.is_file():
        raise WordlensError(f"cannot read the SWOW-EN file {path}: no such file")
    with reading(path, "SWOW-EN file"), decoding(path):
        if set(_SWOW_STRENGTH_COLUMNS) <= set(_header(path, "\t")):
            counts, totals = _swow_strength_counts(path)
        elif set(_SWOW_RAW_COLUMNS) <= set(_header(path, ",")):
            counts, totals = _swow_raw_counts(path)
        else:
            raise LexiconFormatError(
                f"{path}: not a SWOW-EN file: expected the tab-separated strength file with "
                f"columns {list(_SWOW_STRENGTH_COLUMNS)} or the comma-separated response file "
                f"with columns {list(_SWOW_RAW_COLUMNS)}; found {_header(path, ',')[:10]}"
            )
    strength = counts["count"] / counts["cue"].map(totals)
    return AssociationNorms(path.name, _edges(counts["cue"], counts["response"], strength))


def _header(path: Path, sep: str) -> list[str]:
    """The column names of a delimited text file (gzip ok)."""
    import pandas as pd

    return [str(column) for column in pd.read_csv(path, sep=sep, nrows=0).columns]


def _swow_strength_counts(path: Path) -> tuple[pd.DataFrame, pd.Series]:
    """(cue, response, count) rows and per-cue totals of the R123 strength file."""
    import pandas as pd

    table = _read_table(path, "\t", _SWOW_STRENGTH_COLUMNS, csv.QUOTE_NONE)
    for column in ("R123", "N"):
        table[column] = pd.to_numeric(table[column], errors="coerce")
        _check_numeric(path, table[column], column)
    table = table.assign(cue_form=table["cue"], cue=_lower(table["cue"]))
    counts = _summed_counts(table["cue"], _lower(table["response"]), table["R123"])
    forms = table.drop_duplicates("cue_form")
    return counts, forms.groupby("cue")["N"].sum()


def _swow_raw_counts(path: Path) -> tuple[pd.DataFrame, pd.Series]:
    """(cue, response, count) rows and per-cue totals of the raw R100 response file."""
    import pandas as pd

    table = pd.read_csv(path, usecols=list(_SWOW_RAW_COLUMNS), dtype=str, keep_default_na=False)
    responses = table.melt(id_vars="cue", value_vars=["R1", "R2", "R3"], value_name="response")
    responses = responses.assign(
        cue=_lower(responses["cue"]), response=_lower(responses["response"])
    )
    responses = responses[~responses["response"].isin(SWOW_MISSING)]
    ones = pd.Series(1.0, index=responses.index)
    counts = _summed_counts(responses["cue"], responses["response"], ones)
    return counts, counts.groupby("cue")["count"].sum()


def _lower(words: pd.Series) -> pd.Series:
    return words.str.strip().str.lower()


def _summed_counts(cues: pd.Series, responses: pd.Series, counts: pd.Series) -> pd.DataFrame:
    """Counts summed per (cue, response), one row each, sorted."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame({"cue": cues, "response": responses, "count": counts.astype(np.float64)})
    return frame.groupby(["cue", "response"], as_index=False, sort=True).agg(count=("count", "sum"))


def read_gender_lexicon(path: Path) -> GenderLexicon:
    """Parse a WAT lexicon: ``word<TAB>score`` lines, no header (words may contain spaces)."""
    import numpy as np
    import pandas as pd

    with decoding(path):
        table = pd.read_csv(
            path,
            sep="\t",
            header=None,
            names=["word", "score"],
            dtype={"word": str},
            keep_default_na=False,
            quoting=csv.QUOTE_NONE,
        )
    scores = pd.to_numeric(table["score"], errors="coerce")
    _check_numeric(path, scores, "score", signed=True)
    repeated = table["word"][table["word"].duplicated()].tolist()
    if repeated:
        raise LexiconFormatError(f"{path}: words listed more than once: {repeated[:5]}")
    return GenderLexicon(path.name, pd.Series(scores.to_numpy(np.float64), index=table["word"]))


def _read_table(
    path: Path, sep: str, columns: tuple[str, ...], quoting: Literal[0, 3]
) -> pd.DataFrame:
    """Every column as text (no NA parsing: "null" is a word), checked to have ``columns``."""
    import pandas as pd

    table = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, quoting=quoting)
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise LexiconFormatError(
            f"{path}: missing column(s) {missing}; found {list(table.columns)[:10]}"
        )
    return table


def _check_numeric(path: Path, values: pd.Series, column: str, *, signed: bool = False) -> None:
    """Raise naming the first data row whose value is missing, infinite or (unless `signed`)
    negative."""
    import numpy as np

    numbers = values.to_numpy(dtype=np.float64)
    bad = ~np.isfinite(numbers) if signed else ~(np.isfinite(numbers) & (numbers >= 0))
    if bad.any():
        first = int(np.nonzero(bad)[0][0])
        raise LexiconFormatError(f"{path}, data row {first + 1}: {column} is not a valid number")


def _edges(cues: pd.Series, responses: pd.Series, strengths: pd.Series) -> pd.DataFrame:
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(
        {
            "cue": cues.to_numpy(dtype=str),
            "response": responses.to_numpy(dtype=str),
            "strength": strengths.to_numpy(dtype=np.float64),
        }
    )
    return frame[(frame["strength"] > 0) & (frame["cue"] != "") & (frame["response"] != "")]


_BIAS_SENSE = ("LivNLP/bias-sense", "d1b4d42fa1b900d16c22fa78c4852ef2b66e4e9b")
_DU2019 = (
    "Du, Y., Wu, Y. & Lan, M. (2019). Exploring Human Gender Stereotypes with Word Association "
    "Test. EMNLP-IJCNLP 2019, 6132-6142."
)

register(
    Resource(
        name="eat",
        kind="association-norms",
        description=(
            "Edinburgh Associative Thesaurus: 325,593 stimulus-response arcs over 8,210 stimuli "
            "with the number of subjects (about 100 per stimulus) giving each response. Loaded as "
            "lower-case cue/response pairs with strength = count / the stimulus's total; words "
            "cut at 19 characters (ending in '%') are dropped. A format conversion of the Pajek "
            "network EATnew.net (one row per arc)."
        ),
        files=(
            ResourceFile(
                relpath="evocation/eat_stimulus_response.tsv.gz",
                sha256="f29e9419ff8d9c62ca686d43cf0e4dcc65d43f3e839f3faec038758bfe000984",
                repo="bavla/Nets",
                commit="7ec138b740b86f4455687eabfc51ba949b5346cf",
                path="data/Pajek/dic/EAT/EATnew.zip",
            ),
        ),
        loader=single_file(read_eat),
        citation=(
            "Kiss, G. R., Armstrong, C., Milroy, R. & Piper, J. (1973). An associative thesaurus "
            "of English and its computer analysis. In The Computer and Literary Studies, 153-165. "
            "Edinburgh University Press."
        ),
        license="CC BY-NC-SA 2.5 (Pajek data collection); the EAT itself: Open Government License",
    )
)
register(
    Resource(
        name="usf",
        kind="association-norms",
        description=(
            "University of South Florida free-association norms: 72,176 cue-target pairs over "
            "5,018 normed cues. Loaded as lower-case cue/response pairs with strength = the "
            "forward strength FSG. The eight Appendix A files concatenated into one table."
        ),
        files=(
            ResourceFile(
                relpath="evocation/usf_free_association.csv.gz",
                sha256="36f72dad495c31ea1d5df89391984546615f463f6798dced3abb5eeb0406cf8d",
                repo="ling343-winter2024-classroom/hp2-mcjholder",
                commit="d5c2f829db37c78b2be89ea17d9a7c2508f11664",
                path="data/Cue_Target_Pairs.A-B",
            ),
        ),
        loader=single_file(read_usf),
        citation=(
            "Nelson, D. L., McEvoy, C. L. & Schreiber, T. A. (2004). The University of South "
            "Florida free association, rhyme, and word fragment norms. Behavior Research Methods, "
            "Instruments, & Computers, 36(3), 402-407."
        ),
        license="Copyright Nelson, McEvoy & Schreiber; research use with citation",
    )
)
register(
    Resource(
        name="wat-du2019",
        kind="gender-lexicon",
        description=(
            "The WAT gender lexicon of Du et al. (2019): 12,215 SWOW-EN words with "
            "log(b_m / b_f) from label propagation (alpha 0.99) seeded with 10 male and 10 "
            "female words; positive = male-associated (he 1.084, she -1.155)."
        ),
        files=(
            ResourceFile(
                relpath="bias_benchmarks/wat/stereotype_lexicon_du2019.tsv",
                sha256="9a6260a25a19f92d91f507884d95d4e5598658c95c5c66185ecedcd68ddf44bc",
                repo="Yupei-Du/bias-in-wat",
                commit="dba7fcb3150500fe197ea2f38f80bfdd16529583",
                path="data/stereotype_lexicon.txt",
            ),
        ),
        loader=single_file(read_gender_lexicon),
        citation=_DU2019,
        license="MIT (Yupei-Du/bias-in-wat); derived from SWOW-EN (CC BY-NC-ND 3.0)",
    )
)
register(
    Resource(
        name="wat-zhou2022",
        kind="gender-lexicon",
        description=(
            "The WAT file of Zhou, Kaneko & Bollegala (2022): the 12,215 words of Du et al.'s "
            "lexicon with the scores of another propagation run (man 2.741, woman -2.870)."
        ),
        files=(
            ResourceFile(
                relpath="bias_benchmarks/wat/wat_bi_bias_sense.tsv",
                sha256="ce6172d4180949547051a8d0a0fdbace4cdd54be1346090076e6ce4077a932dd",
                repo=_BIAS_SENSE[0],
                commit=_BIAS_SENSE[1],
                path="data/wat_bi.txt",
            ),
        ),
        loader=single_file(read_gender_lexicon),
        citation=(
            "Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased - "
            f"Evaluating Social Biases in Static and Contextualised Sense Embeddings. ACL 2022. "
            f"Lexicon method: {_DU2019}"
        ),
        license="none stated (LivNLP/bias-sense); derived from SWOW-EN (CC BY-NC-ND 3.0)",
    )
)
