"""Human valence (and arousal / dominance) norms: the :class:`Lexicon` type, its parser, the
registered lexica and :func:`load_lexicon`.

Every lexicon file, registered or user-supplied, is read by one parser, :func:`read_lexicon`,
driven by a :class:`LexiconFormat` (separator, word column, rating columns, scales). The registered
lexica differ only in that data.

References
----------
Bellezza, F. S., Greenwald, A. G., & Banaji, M. R. (1986). Words high and low in pleasantness as
rated by male and female college students. *Behavior Research Methods, Instruments, & Computers*,
18(3), 299-303.

Bradley, M. M., & Lang, P. J. (1999). *Affective norms for English words (ANEW): Instruction
manual and affective ratings* (Tech. Rep. C-1). University of Florida.

Warriner, A. B., Kuperman, V., & Brysbaert, M. (2013). Norms of valence, arousal, and dominance for
13,915 English lemmas. *Behavior Research Methods*, 45(4), 1191-1207.

Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022*. (Source of the copies registered here.)
"""

from __future__ import annotations

import csv
import functools
import io
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args

from wordlens._files import DEFAULT_ENCODING, ENCODING_HINT, StrPath, read_text, reading
from wordlens.errors import EmptyInputError, LexiconFormatError, WordlensError, shown_word
from wordlens.resources.registry import Resource, ResourceFile, get_resource, register
from wordlens.unicode_forms import UnicodeForm, normalized

# numpy and pandas are imported in the functions that use them: the command line imports the
# resources (its methods' options name them), and `wordlens --help` should not load them.
if TYPE_CHECKING:
    import pandas as pd


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class Vocabulary(Protocol):
    """What :func:`lexicon_coverage` needs of a model (a
    :class:`~wordlens.models.base.WordEmbedder` is one); resources import no model code."""

    @property
    def info(self) -> _Named: ...

    def missing_words(self, words: Sequence[str]) -> list[str]: ...


Duplicates = Literal["error", "mean", "first"]
"""What to do with a word listed more than once: raise, average its ratings, keep the first."""
DUPLICATE_POLICIES: tuple[Duplicates, ...] = get_args(Duplicates)

Scale = tuple[float, float]

DIMENSIONS = ("valence", "arousal", "dominance")
_SHOWN = 5  # how many offending lines an error message quotes


@dataclass(frozen=True, eq=False)
class Lexicon:
    """Ratings of words on affective dimensions.

    Attributes
    ----------
    name
        Resource name, or the file stem for a user file.
    language
        ISO 639-1 code (``"und"`` when a user file does not say).
    scale
        ``(min, max)`` of the rating scale of each dimension in ``data``.
    data
        Columns ``word`` (str, unique, stripped of surrounding whitespace), ``valence`` and,
        where the lexicon has them, ``arousal`` and ``dominance`` (float64), in file order.
    """

    name: str
    language: str
    scale: Mapping[str, Scale]
    data: pd.DataFrame = field(repr=False)

    @property
    def dimensions(self) -> tuple[str, ...]:
        """The rated dimensions present, among ``valence``, ``arousal``, ``dominance``."""
        return tuple(d for d in DIMENSIONS if d in self.data.columns)

    def __len__(self) -> int:
        return len(self.data)

    def first(self, n: int) -> Lexicon:
        """The lexicon with its first ``n`` words (``--limit``, quick mode)."""
        return replace(self, data=self.data.head(n).reset_index(drop=True))


@dataclass(frozen=True)
class LexiconFormat:
    """How to read one lexicon file.

    Attributes
    ----------
    word
        Header of the word column.
    columns
        Dimension (``valence``, ``arousal``, ``dominance``) to header of its rating column;
        ``valence`` is required.
    scale
        ``(min, max)`` per dimension; ratings outside are a format error. Dimensions without an
        entry get the observed range.
    sep
        Field separator.
    language
        ISO 639-1 code.
    duplicates
        Default duplicate policy (see :data:`Duplicates`).
    """

    word: str
    columns: Mapping[str, str]
    scale: Mapping[str, Scale] = field(default_factory=dict)
    sep: str = ","
    language: str = "und"
    duplicates: Duplicates = "error"

    def __post_init__(self) -> None:
        if "valence" not in self.columns or not set(self.columns) <= set(DIMENSIONS):
            raise ValueError(f"columns must map valence (and arousal, dominance): {self.columns}")


def read_lexicon(
    path: Path,
    fmt: LexiconFormat,
    *,
    name: str | None = None,
    duplicates: Duplicates | None = None,
    encoding: str = DEFAULT_ENCODING,
    unicode: UnicodeForm = "NFC",
) -> Lexicon:
    """Parse a delimited lexicon file.

    The file has a header line (a byte-order mark is ignored). Cells are read as strings, so
    words such as ``null``, ``NA``, ``TRUE`` stay words. Words are put in the Unicode form
    ``unicode`` (NFC by default, as models read them: :func:`wordlens.contexts.normalized`), so
    "café" typed with a combining accent and precomposed is one word, listed twice.

    Parameters
    ----------
    path
        The file.
    fmt
        Its format.
    name
        Lexicon name; defaults to the file stem.
    duplicates
        Duplicate policy; defaults to ``fmt.duplicates``.
    encoding
        The file's text encoding.
    unicode
        ``"NFC"`` or ``"as-given"``: the form words are kept in.

    Raises
    ------
    FileEncodingError
        The file is not valid ``encoding``; the message names the line.
    LexiconFormatError
        A missing column, a row with the wrong number of fields, an empty word, a rating that is
        not a number or lies outside the scale, or (policy ``"error"``) a repeated word. The
        message names the file and the line numbers.
    EmptyInputError
        The file has a header but no entries.
    """
    import pandas as pd

    policy = duplicates or fmt.duplicates
    if policy not in DUPLICATE_POLICIES:
        raise WordlensError(f"duplicates must be 'error', 'mean' or 'first', not {policy!r}")
    header, rows, lines = _read_rows(path, fmt.sep, encoding)
    wanted = {"word": fmt.word, **fmt.columns}
    missing = [column for column in wanted.values() if column not in header]
    if missing:
        raise LexiconFormatError(
            f"{path}, line 1: no column {', '.join(map(repr, missing))} "
            f"(the header has {', '.join(map(repr, header))})"
        )
    positions = {key: header.index(column) for key, column in wanted.items()}
    raw = pd.DataFrame({key: [row[i] for row in rows] for key, i in positions.items()})
    raw.index = pd.Index(lines, name="line")
    if raw.empty:
        raise EmptyInputError(f"{path}: the lexicon has no entries")
    words = raw["word"].str.strip().map(lambda word: normalized(word, unicode))
    _fail_at(path, words == "", lambda line: f"line {line}: empty word")
    data = pd.DataFrame({"word": words})
    for dimension in fmt.columns:
        data[dimension] = _ratings(path, raw[dimension], fmt.columns[dimension])
    scale = {d: fmt.scale.get(d) or _observed(data[d]) for d in fmt.columns}
    for dimension, bounds in scale.items():
        _check_scale(path, dimension, data[dimension], bounds)
    data = _deduplicate(path, data, policy)
    return Lexicon(
        name=name or path.stem,
        language=fmt.language,
        scale=scale,
        data=data.reset_index(drop=True),
    )


def _read_rows(path: Path, sep: str, encoding: str) -> tuple[list[str], list[list[str]], list[int]]:
    """Header, data rows and the file line each row starts on; checks field counts."""
    reader = csv.reader(_text_stream(path, encoding), delimiter=sep)
    header = next(reader, None)
    if header is None:
        raise EmptyInputError(f"{path}: the file is empty")
    rows: list[list[str]] = []
    lines: list[int] = []
    start = reader.line_num + 1
    for row in reader:
        if row and len(row) != len(header):
            raise LexiconFormatError(
                f"{path}, line {start}: expected {len(header)} fields "
                f"(separator {sep!r}), found {len(row)}"
            )
        if row:
            rows.append(row)
            lines.append(start)
        start = reader.line_num + 1
    return header, rows, lines


def _text_stream(path: Path, encoding: str) -> io.StringIO:
    """The decoded file as a stream for :mod:`csv` (line endings untranslated).

    Raises
    ------
    InputFileError
        If the file cannot be read (a directory, no permission).
    """
    with reading(path, "lexicon file"):
        return io.StringIO(read_text(path, encoding, hint=ENCODING_HINT), newline="")


def _ratings(path: Path, raw: pd.Series, column: str) -> pd.Series:
    """Column ``raw`` as float64; any cell that is not a finite number is an error."""
    import pandas as pd

    values = pd.to_numeric(raw.str.strip(), errors="coerce").astype("float64")
    _fail_at(
        path,
        values.isna() | (values.abs() == math.inf),
        lambda line: f"line {line}: {column!r} is {raw[line]!r}, not a number",
    )
    return values


def _observed(values: pd.Series) -> Scale:
    return (float(values.min()), float(values.max()))


def _check_scale(path: Path, dimension: str, values: pd.Series, bounds: Scale) -> None:
    low, high = bounds
    _fail_at(
        path,
        (values < low) | (values > high),
        lambda line: f"line {line}: {dimension} {values[line]:g} is outside {low:g}..{high:g}",
    )


def _fail_at(path: Path, bad: pd.Series, describe: Callable[[int], str]) -> None:
    """Raise a LexiconFormatError quoting the first lines (index labels) where ``bad`` holds."""
    if not bad.any():
        return
    offending = [int(line) for line in bad.index[bad.to_numpy()]]
    shown = "; ".join(describe(line) for line in offending[:_SHOWN])
    more = f"; and {len(offending) - _SHOWN} more" if len(offending) > _SHOWN else ""
    raise LexiconFormatError(f"{path}: {shown}{more}")


def _deduplicate(path: Path, data: pd.DataFrame, policy: Duplicates) -> pd.DataFrame:
    repeated = data["word"].duplicated(keep=False)
    if not repeated.any():
        return data
    if policy == "first":
        return data[~data["word"].duplicated(keep="first")]
    if policy == "mean":
        averaged = data.groupby("word", sort=False).mean()
        first_lines = data.index[~data["word"].duplicated(keep="first")]
        return averaged.reset_index().set_index(first_lines)
    groups = data[repeated].groupby("word", sort=False)
    listed = [
        f"{shown_word(str(word))} (lines {', '.join(str(line) for line in group.index)})"
        for word, group in groups
    ]
    raise LexiconFormatError(
        f"{path}: {len(listed)} word(s) listed more than once: {'; '.join(listed)}. "
        "Average their ratings with --duplicates mean or keep the first entry with --duplicates "
        "first (duplicates='mean' / 'first' in Python)."
    )


def lexicon_coverage(lexicon: Lexicon, model: Vocabulary) -> dict[str, Any]:
    """Which of the lexicon's distinct words ``model`` cannot embed or tell apart (a static
    model's out-of-vocabulary words; words a tokenizer reads only as unknown tokens, or as the
    same subtokens as another word: :mod:`wordlens.models.readable`).

    Returns
    -------
    dict
        ``n_words`` (distinct words), ``n_missing``, ``missing`` (the words, in file order) and
        ``why`` (word → reason): what the results record and the reports list as left out.

    Raises
    ------
    EmptyInputError
        If the model can embed none of the words; names the lexicon, the model and a few words.
    """
    words = list(dict.fromkeys(lexicon.data["word"].astype(str)))
    why = missing_reasons(model, words)
    missing = list(why)
    if len(missing) == len(words):
        shown = ", ".join(shown_word(word) for word in missing[:_SHOWN])
        raise EmptyInputError(
            f"none of the {len(words):,} words of lexicon {lexicon.name!r} is in the vocabulary "
            f"of {model.info.name} (e.g. {shown}); check the lexicon's language and letter case, "
            "or choose another model"
        )
    return {"n_words": len(words), "n_missing": len(missing), "missing": missing, "why": why}


def missing_reasons(model: Vocabulary, words: Sequence[str]) -> dict[str, str]:
    """Why ``model`` leaves out each of ``words`` it lacks (word → reason): the model's own
    ``missing_reasons`` (:meth:`wordlens.models.base.WordEmbedder.missing_reasons`), or "not in
    the vocabulary" for a vocabulary that only lists its missing words."""
    reasons = getattr(model, "missing_reasons", None)
    if callable(reasons):
        return dict(reasons(words))
    return dict.fromkeys(model.missing_words(words), "not in the vocabulary")


def load_lexicon(
    source: str | os.PathLike[str],
    *,
    path: StrPath | None = None,
    duplicates: Duplicates | None = None,
    scale: Scale | Mapping[str, Scale] | None = None,
    language: str | None = None,
    sep: str | None = None,
    encoding: str = DEFAULT_ENCODING,
) -> Lexicon:
    """Load a registered lexicon by name, or a user's lexicon file.

    Parameters
    ----------
    source
        A registered name (see ``list_resources("lexicon")``), or the path of a CSV/TSV file with
        a header naming ``word``, ``valence`` and optionally ``arousal`` and ``dominance``.
        A string containing a path separator or a dot is a path.
    path
        For a registered name: an explicit location of its file (or a data root), instead of
        the usual resolution.
    duplicates
        Duplicate policy; defaults to the registered lexicon's (``"error"`` for user files).
    scale
        User files only: ``(min, max)`` for all dimensions, or per dimension. Defaults to the
        observed range of each dimension.
    language
        User files only: ISO 639-1 code (default ``"und"``).
    sep
        User files only: field separator; by default a tab for ``.tsv``/``.tab`` files, else
        whichever of ``,``, tab and ``;`` the header line contains most.
    encoding
        User files only: their text encoding (registered lexica are UTF-8, checked by sha256).

    Raises
    ------
    FileEncodingError
        If a user file is not valid ``encoding``; the message names the line.
    """
    text = os.fspath(source)
    if not isinstance(source, str) or "." in text or "/" in text or os.sep in text:
        return _read_user_lexicon(Path(text), duplicates, scale, language, sep, encoding)
    if scale is not None or language is not None or sep is not None:
        raise WordlensError(
            f"scale, language and sep describe user files; {text!r} is a registered lexicon"
        )
    lexicon = get_resource(text, kind="lexicon").load(path, duplicates=duplicates)
    assert isinstance(lexicon, Lexicon)
    return lexicon


def _read_user_lexicon(
    path: Path,
    duplicates: Duplicates | None,
    scale: Scale | Mapping[str, Scale] | None,
    language: str | None,
    sep: str | None,
    encoding: str,
) -> Lexicon:
    if not path.is_file():
        raise LexiconFormatError(f"{path}: no such lexicon file")
    delimiter = sep or _guess_separator(path, encoding)
    header: list[str] = next(csv.reader(_text_stream(path, encoding), delimiter=delimiter), [])
    columns: dict[str, str] = {
        "valence": "valence",
        **{d: d for d in ("arousal", "dominance") if d in header},
    }
    if scale is None:
        scales: Mapping[str, Scale] = {}
    elif isinstance(scale, tuple):
        scales = dict.fromkeys(columns, scale)
    else:
        scales = scale
    fmt = LexiconFormat(
        word="word", columns=columns, scale=scales, sep=delimiter, language=language or "und"
    )
    return read_lexicon(path, fmt, duplicates=duplicates, encoding=encoding)


def _guess_separator(path: Path, encoding: str) -> str:
    if path.suffix.lower() in {".tsv", ".tab"}:
        return "\t"
    first = _text_stream(path, encoding).readline()
    return max([",", "\t", ";"], key=first.count)


# --- registered lexica ---------------------------------------------------------------------------

_VAST = ("wolferobert3/vast_aaai_2022", "d60c2d90d506bb70cdd830ee5bfc2b5816fb0d6e")
_VALNORM = ("autumntoney/ValNorm", "541551eb99b1edc9cdead7f2397e14b48c3e5447")
_NINE: Scale = (1.0, 9.0)
_NORMS_LICENSE = (
    "research use with citation: the norms belong to their authors; the hosting repository "
    "({repo}) is MIT-licensed for its code"
)


@dataclass(frozen=True)
class _Entry:
    """A registered lexicon: resource metadata plus its file format."""

    name: str
    description: str
    citation: str
    relpath: str
    upstream: tuple[str, str]
    upstream_path: str
    sha256: str
    fmt: LexiconFormat


def _vad(valence: str, arousal: str | None, dominance: str | None) -> dict[str, str]:
    named = {"valence": valence, "arousal": arousal, "dominance": dominance}
    return {dimension: column for dimension, column in named.items() if column is not None}


_LEXICA: Sequence[_Entry] = (
    _Entry(
        "bellezza",
        "Bellezza, Greenwald & Banaji (1986): pleasantness of 399 English words, 1-5 "
        "(column combined_pleasantness, the mean of male and female raters).",
        "Bellezza, F. S., Greenwald, A. G., & Banaji, M. R. (1986). Words high and low in "
        "pleasantness as rated by male and female college students. Behavior Research Methods, "
        "Instruments, & Computers, 18(3), 299-303.",
        "lexica/en/bellezza.csv",
        _VAST,
        "English Lexica/Bellezza_Lexicon.csv",
        "730f4cf3909efbd6ba87d37fd9e1e9a1d7eb632497c8c27e24623a19ffaa84e0",
        LexiconFormat(
            word="word",
            columns=_vad("combined_pleasantness", None, None),
            scale={"valence": (1.0, 5.0)},
            language="en",
        ),
    ),
    _Entry(
        "anew",
        "ANEW, Bradley & Lang (1999): valence, arousal and dominance of 1,029 English words, 1-9.",
        "Bradley, M. M., & Lang, P. J. (1999). Affective norms for English words (ANEW): "
        "Instruction manual and affective ratings (Technical Report C-1). Center for Research in "
        "Psychophysiology, University of Florida.",
        "lexica/en/anew.csv",
        _VAST,
        "English Lexica/ANEW.csv",
        "b97f1f452b98ce6ac94a202d92af58b31c0372a9fc0d7117ac583054e77a5bfb",
        LexiconFormat(
            word="Description",
            columns=_vad("Valence Mean", "Arousal Mean", "Dominance Mean"),
            scale=dict.fromkeys(DIMENSIONS, _NINE),
            language="en",
        ),
    ),
    _Entry(
        "warriner",
        "Warriner, Kuperman & Brysbaert (2013): valence, arousal and dominance of 13,915 English "
        "lemmas, 1-9 (columns *.Mean.Sum). Includes the words 'null', 'FALSE' and 'TRUE', and "
        "case pairs such as 'aids'/'AIDS' as separate entries.",
        "Warriner, A. B., Kuperman, V., & Brysbaert, M. (2013). Norms of valence, arousal, and "
        "dominance for 13,915 English lemmas. Behavior Research Methods, 45(4), 1191-1207.",
        "lexica/en/warriner.csv",
        _VAST,
        "English Lexica/Warriner_Lexicon.csv",
        "aa2aa601a2990c9327ba4f7cbe801c9e4e9e086e0f3b5b8507443928aec16f63",
        LexiconFormat(
            word="Word",
            columns=_vad("V.Mean.Sum", "A.Mean.Sum", "D.Mean.Sum"),
            scale=dict.fromkeys(DIMENSIONS, _NINE),
            language="en",
        ),
    ),
    _Entry(
        "anew-polish",
        "Polish affective norms (ANPW), Imbir: valence, arousal and dominance of 1,586 Polish "
        "words, 1-9.",
        "Imbir, K. K. (2015). Affective norms for 1,586 Polish words (ANPW): Duality-of-mind "
        "approach. Behavior Research Methods, 47(3), 860-870.",
        "lexica/multilingual/ANEW_Polish_Imbir.csv",
        _VAST,
        "Multilingual Lexica/ANEW_Polish_Imbir.csv",
        "b1eb6e575bec7d7afced9fd0bfacd865525ee816f68dafab45ce17589a5a56ea",
        LexiconFormat(
            word="Polish word",
            columns=_vad("Val_Mean", "Aro_Mean", "Dom_Mean"),
            scale=dict.fromkeys(DIMENSIONS, _NINE),
            language="pl",
        ),
    ),
    _Entry(
        "anew-spanish",
        "Spanish adaptation of ANEW, Redondo et al. (2007): valence, arousal and dominance of "
        "1,034 Spanish words, 1-9 (all raters).",
        "Redondo, J., Fraga, I., Padrón, I., & Comesaña, M. (2007). The Spanish adaptation of "
        "ANEW (Affective Norms for English Words). Behavior Research Methods, 39(3), 600-605.",
        "lexica/multilingual/ANEW_Spanish_Redondo.csv",
        _VAST,
        "Multilingual Lexica/ANEW_Spanish_Redondo.csv",
        "32f774046aba1d9266212b3a44714c3bdbbcc5b5f02411245ad13fa20f53db22",
        LexiconFormat(
            word="S-Word",
            columns=_vad("Val-Mn-All", "Aro-Mn-All", "Dom-Mn-All"),
            scale=dict.fromkeys(DIMENSIONS, _NINE),
            language="es",
        ),
    ),
    _Entry(
        "cvaw-chinese",
        "Chinese Valence-Arousal Words (CVAW 4.0): valence and arousal of 5,512 Chinese words, "
        "1-9.",
        "Yu, L.-C., Lee, L.-H., Hao, S., Wang, J., He, Y., Hu, J., Lai, K. R., & Zhang, X. (2016). "
        "Building Chinese affective resources in valence-arousal dimensions. NAACL-HLT 2016, "
        "540-545.",
        "lexica/multilingual/CVAW4_Chinese.csv",
        _VAST,
        "Multilingual Lexica/CVAW4_Chinese.csv",
        "0ea00479d2978737577bff2b8b83cb16028918b77ddf626aee659db2f5149078",
        LexiconFormat(
            word="Word",
            columns=_vad("Valence_Mean", "Arousal_Mean", None),
            scale=dict.fromkeys(("valence", "arousal"), _NINE),
            language="zh",
        ),
    ),
    _Entry(
        "fan-french",
        "Affective Norms for French words (FAN), Monnier & Syssau (2014): valence and arousal of "
        "1,031 French words, 1-9.",
        "Monnier, C., & Syssau, A. (2014). Affective norms for French words (FAN). Behavior "
        "Research Methods, 46(4), 1128-1137.",
        "lexica/multilingual/FAN_French.csv",
        _VAST,
        "Multilingual Lexica/FAN_French.csv",
        "f2b14dede0c40aae04b13ab56e1f7eaee21305665eaf52e0328acde7a94d632a",
        LexiconFormat(
            word="Words",
            columns=_vad("Valence_Mean", "Arousal_Mean", None),
            scale=dict.fromkeys(("valence", "arousal"), _NINE),
            language="fr",
        ),
    ),
    _Entry(
        "anew-portuguese",
        "European Portuguese adaptation of ANEW, Soares et al. (2012): valence, arousal and "
        "dominance of 1,034 words, 1-9.",
        "Soares, A. P., Comesaña, M., Pinheiro, A. P., Simões, A., & Frade, C. S. (2012). The "
        "adaptation of the Affective Norms for English Words (ANEW) for European Portuguese. "
        "Behavior Research Methods, 44(1), 256-269.",
        "lexica/multilingual/PT_anew_Portuguese.csv",
        _VAST,
        "Multilingual Lexica/PT_anew_Portuguese.csv",
        "cafe60f99e1469dc71c5232a2c0e077d0c54c15a72f9bb7e7867347b1d85b89a",
        LexiconFormat(
            word="EP-Word",
            columns=_vad("Val-M", "Arou-M", "Dom-M"),
            scale=dict.fromkeys(DIMENSIONS, _NINE),
            language="pt",
        ),
    ),
    _Entry(
        "turkish-norms",
        "Turkish emotional word norms: valence and arousal of 2,031 upper-case Turkish words "
        "(2,029 distinct), 1-9. 'ŞEN' and 'BUZ' are each rated twice with different values; "
        "by default their two ratings are averaged (duplicates='mean').",
        "Kapucu, A., Kılıç, A., Özkılıç, Y., & Sarıbaz, B. (2021). Turkish emotional word norms "
        "for arousal, valence, and discrete emotion categories. Psychological Reports, 124(1), "
        "188-209.",
        "lexica/multilingual/TurkishEmotionalWordNorms.csv",
        _VAST,
        "Multilingual Lexica/TurkishEmotionalWordNorms.csv",
        "c865f869397b89b7c5ef513d528db4698541ddc818d6d2d2f8a7ee1ac91f851d",
        LexiconFormat(
            word="word",
            columns=_vad("ValenceM", "ArousalM", None),
            scale=dict.fromkeys(("valence", "arousal"), _NINE),
            sep=";",
            language="tr",
            duplicates="mean",
        ),
    ),
    _Entry(
        "anew-german",
        "ANGST, German adaptation of ANEW, Schmidtke et al. (2014): valence (-3..3), arousal "
        "(ANEW-style, 1-9) and dominance (1-9) of 1,034 rows, 1,003 distinct German words. The "
        "31 repeated words carry identical ratings, so by default the first is kept "
        "(duplicates='first'). No German polar words exist in the VAST word file.",
        "Schmidtke, D. S., Schröder, T., Jacobs, A. M., & Conrad, M. (2014). ANGST: Affective "
        "norms for German sentiment terms, derived from the affective norms for English words. "
        "Behavior Research Methods, 46(4), 1108-1118.",
        "lexica/multilingual/german_ANEW.csv",
        _VALNORM,
        "non-English Validation Datasets/german_ANEW.csv",
        "599bd98333a42a7fcd3612e3fd5e75282b55fa44a665c2d2af0eab4d1f9d77f2",
        LexiconFormat(
            word="G-word",
            columns=_vad("VAL_Mean", "ARO_Mean_(ANEW)", "DOM_Mean"),
            scale={"valence": (-3.0, 3.0), "arousal": _NINE, "dominance": _NINE},
            language="de",
            duplicates="first",
        ),
    ),
)


def _load_registered(
    name: str, fmt: LexiconFormat, paths: Sequence[Path], duplicates: Duplicates | None = None
) -> Lexicon:
    return read_lexicon(paths[0], fmt, name=name, duplicates=duplicates)


for _entry in _LEXICA:
    register(
        Resource(
            name=_entry.name,
            kind="lexicon",
            description=_entry.description,
            files=(
                ResourceFile(
                    relpath=_entry.relpath,
                    sha256=_entry.sha256,
                    repo=_entry.upstream[0],
                    commit=_entry.upstream[1],
                    path=_entry.upstream_path,
                ),
            ),
            loader=functools.partial(_load_registered, _entry.name, _entry.fmt),
            citation=_entry.citation,
            license=_NORMS_LICENSE.format(repo=_entry.upstream[0]),
        )
    )
