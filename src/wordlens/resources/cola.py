"""The Corpus of Linguistic Acceptability (CoLA): English sentences labelled acceptable or not.

Two splits are registered as the resource ``cola``, verbatim copies of the files the VAST paper
used (``wolferobert3/vast_aaai_2022``, ``CoLA/``):

- ``in_domain_train``: 8,551 sentences (6,023 acceptable);
- ``out_of_domain_dev``: 516 sentences (354 acceptable). The file has no final newline, so
  ``wc -l`` counts 515.

Each line has four tab-separated fields and no header: the source code of the sentence, the
acceptability label (1 acceptable, 0 unacceptable), the original author's mark (blank, ``*``,
``?``, ``??``, ``*?`` or ``?*``) and the sentence. CoLA's test labels are not public; VAST trains on
``in_domain_train`` and tests on ``out_of_domain_dev``.

References
----------
Warstadt, A., Singh, A., & Bowman, S. R. (2019). Neural network acceptability judgments.
*Transactions of the Association for Computational Linguistics*, 7, 625-641.

Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022*.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from wordlens._files import StrPath, read_text
from wordlens.errors import EmptyInputError, LexiconFormatError, WordlensError
from wordlens.resources.registry import Resource, ResourceFile, get_resource, register

# numpy and pandas are imported in the functions that use them: the command line imports the
# resources (its methods' options name them), and `wordlens --help` should not load them.
if TYPE_CHECKING:
    import pandas as pd

ColaSplit = Literal["in_domain_train", "out_of_domain_dev"]
COLA_SPLITS: tuple[ColaSplit, ...] = get_args(ColaSplit)
COLUMNS = ("source", "label", "author_mark", "sentence")


def read_cola(path: Path) -> pd.DataFrame:
    """Parse one CoLA TSV file.

    Returns
    -------
    pandas.DataFrame
        One row per line, in file order: ``source`` (str), ``label`` (int64, 1 = acceptable),
        ``author_mark`` (str, stripped; ``""`` when blank) and ``sentence`` (str, stripped).

    Raises
    ------
    LexiconFormatError
        A line without exactly four tab-separated fields, a label other than 0 or 1, or an empty
        sentence; the message names the file and line.
    EmptyInputError
        The file has no rows.
    """
    import pandas as pd

    rows = [
        _parse_line(path, number, line)
        for number, line in enumerate(read_text(path).splitlines(), start=1)
        if line.strip()
    ]
    if not rows:
        raise EmptyInputError(f"{path}: no CoLA sentences")
    return pd.DataFrame(rows, columns=list(COLUMNS)).astype({"label": "int64"})


def _parse_line(path: Path, number: int, line: str) -> tuple[str, int, str, str]:
    fields = line.split("\t")
    if len(fields) != len(COLUMNS):
        raise LexiconFormatError(
            f"{path}, line {number}: expected 4 tab-separated fields (source, label, mark, "
            f"sentence), found {len(fields)}"
        )
    source, label, mark, sentence = fields
    if label not in {"0", "1"}:
        raise LexiconFormatError(f"{path}, line {number}: label must be 0 or 1, not {label!r}")
    if not sentence.strip():
        raise LexiconFormatError(f"{path}, line {number}: empty sentence")
    return source, int(label), mark.strip(), sentence.strip()


def load_cola(split: ColaSplit = "in_domain_train", *, path: StrPath | None = None) -> pd.DataFrame:
    """One split of the registered ``cola`` resource (see :func:`read_cola` for the columns).

    Parameters
    ----------
    split
        ``"in_domain_train"`` (8,551 rows) or ``"out_of_domain_dev"`` (516 rows).
    path
        An explicit data root containing ``cola/<split>.tsv``.

    Raises
    ------
    WordlensError
        If ``split`` is not one of :data:`COLA_SPLITS`.
    """
    import pandas as pd

    loaded = get_resource("cola").load(path, split=split)
    assert isinstance(loaded, pd.DataFrame)
    return loaded


def _load_split(paths: Sequence[Path], split: ColaSplit = "in_domain_train") -> pd.DataFrame:
    if split not in COLA_SPLITS:
        raise WordlensError(f"unknown CoLA split {split!r}; choose one of {', '.join(COLA_SPLITS)}")
    return read_cola(paths[COLA_SPLITS.index(split)])


_REPO = "wolferobert3/vast_aaai_2022"
_COMMIT = "d60c2d90d506bb70cdd830ee5bfc2b5816fb0d6e"
_SHA256 = {
    "in_domain_train": "f320a10f92d3bce6b29152fde322a362eac39238e50d8de0c8815457fdf4fc12",
    "out_of_domain_dev": "201b9c57b2a20f1282242eec0ed8995729e3be19c29a46c047b3727338836c05",
}

register(
    Resource(
        name="cola",
        kind="acceptability",
        description=(
            "Corpus of Linguistic Acceptability: English sentences labelled acceptable (1) or "
            "not (0); in_domain_train 8,551 rows, out_of_domain_dev 516 rows (VAST's copies)."
        ),
        files=tuple(
            ResourceFile(
                relpath=f"cola/{split}.tsv",
                sha256=_SHA256[split],
                repo=_REPO,
                commit=_COMMIT,
                path=f"CoLA/{split}.tsv",
            )
            for split in COLA_SPLITS
        ),
        loader=_load_split,
        citation=(
            "Warstadt, A., Singh, A., & Bowman, S. R. (2019). Neural network acceptability "
            "judgments. Transactions of the Association for Computational Linguistics, 7, "
            "625-641."
        ),
        license=(
            "research use with citation: CoLA's sentences come from published linguistics "
            f"literature and belong to their authors; {_REPO} is MIT-licensed for its code"
        ),
    )
)
