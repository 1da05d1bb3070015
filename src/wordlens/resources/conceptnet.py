"""ConceptNet-100K (CKBC) assertions and the relation annotation of word pairs.

``conceptnet-100k`` is the English ConceptNet 5 subset released by Li et al. (2016) for
commonsense knowledge base completion: 100,000 training assertions ``relation head tail weight``
(34 relations, e.g. ``IsA``, ``AtLocation``, ``UsedFor``; heads and tails are lower-case phrases;
weight = the ConceptNet confidence) and three evaluation files ``relation head tail label`` whose
label-1 rows (2,400 true assertions; the label-0 rows are corrupted negatives and are dropped) are
added to the graph. Relation names are written in lower camel case, as in Zhang et al.'s tables
(``IsA`` -> ``isA``).

**Relation annotation (Zhang et al. 2021, RQ 1.1).** Evocation data carries no relation labels, so
the paper labels a word pair ``{a, b}`` with every ConceptNet relation ``r`` that connects the two
words, treating all relations as directed and orienting the pair head -> tail: ``(r, a, b)`` in
ConceptNet gives the pair ``(a, b)`` in relation ``r``, and ``(r, b, a)`` gives ``(b, a)``. A pair
with several relations is added to each. Pairs found under no relation get ``relatedTo``.
:func:`annotate_pairs` does this over single-word heads and tails only (an evocation pair is two
words; the phrase ``"play on ice"`` cannot match one), lower-cased. Decisions the paper leaves
open:

- **Unannotated pairs** (``relatedTo`` by default) and pairs whose relation holds **in both
  directions** (``(r, a, b)`` and ``(r, b, a)`` both asserted) have no head -> tail order; they
  are oriented lexicographically (``a < b``). The order must not come from one evocation data
  set (e.g. its cue -> response order): a pair's LAR changes sign with its order, and CAM
  correlates the LAR of the *same* oriented pair in two resources, so the order has to be a
  function of the pair alone. The ALAR of such pairs carries no direction and is near 0 by
  construction.
- **Negated relations** (``notIsA``, ``notCapableOf``, ``notDesires``, ``notHasProperty``,
  ``notHasA``, ``notMadeOf``) are kept as relations of their own (``include_negated=True``), as the
  paper's Table 5 lists ``notHasProperty``: they never mix into the positive relation's ALAR, and
  a pair annotated only by a negated relation is not ``relatedTo``. ``include_negated=False``
  drops them (such pairs then fall back to ``relatedTo``).

References
----------
Li, X., Taheri, A., Tu, L. & Gimpel, K. (2016). Commonsense Knowledge Base Completion. *ACL 2016*.

Speer, R., Chin, J. & Havasi, C. (2017). ConceptNet 5.5: An Open Multilingual Graph of General
Knowledge. *AAAI 2017*.

Zhang, W., Campbell, M., Yu, Y. & Kumaravel, S. (2021). Circles are like Ellipses, or Ellipses
are like Circles? Measuring the Degree of Asymmetry of Static and Contextual Word Embeddings and
the Implications to Representation Learning. *AAAI 2021*, section 5 (RQ 1.1).
"""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from wordlens.errors import LexiconFormatError, WordlensError
from wordlens.resources.registry import Resource, ResourceFile, get_resource, register

CONCEPTNET_100K = "conceptnet-100k"
"""The registered ConceptNet subset (:func:`load_conceptnet`)."""

UNANNOTATED_RELATION = "relatedTo"
"""The relation of pairs that ConceptNet does not connect (Zhang et al. 2021, RQ 1.1)."""

_NEGATED = re.compile(r"^not[A-Z]")
_SPLITS = ("train", "dev1", "dev2", "test")


@dataclass(frozen=True, eq=False)
class ConceptNet:
    """ConceptNet assertions.

    Attributes
    ----------
    name
        Registered name or file.
    assertions
        One row per assertion: ``relation`` (lower camel case, e.g. ``isA``), ``head`` and
        ``tail`` (lower-case phrases), ``weight`` (float64 confidence; NaN for the evaluation
        files, which have none) and ``split`` (the file it came from).
    """

    name: str
    assertions: pd.DataFrame = field(repr=False)

    def word_assertions(self, *, include_negated: bool = True) -> pd.DataFrame:
        """Distinct ``relation``, ``head``, ``tail`` rows whose head and tail are single words.

        A single word has no space (``"yo-yo"`` is one); assertions of a word with itself are
        left out. ``include_negated=False`` drops the negated relations (``notIsA`` ...).
        """
        table = self.assertions[["relation", "head", "tail"]]
        phrase = table["head"].str.contains(" ", regex=False)
        phrase |= table["tail"].str.contains(" ", regex=False)
        keep = ~phrase & (table["head"] != table["tail"])
        if not include_negated:
            keep &= ~table["relation"].str.match(_NEGATED)
        return table[keep].drop_duplicates(ignore_index=True)

    @functools.cached_property
    def vocabulary(self) -> frozenset[str]:
        """The single-word concepts (heads and tails), for the common-vocabulary filter."""
        words = self.word_assertions()
        return frozenset(words["head"]) | frozenset(words["tail"])


def load_conceptnet(name: str = CONCEPTNET_100K, path: Path | None = None) -> ConceptNet:
    """A registered ConceptNet subset (``conceptnet-100k``), from ``path`` or the data roots."""
    loaded = get_resource(name, kind="knowledge-graph").load(path)
    assert isinstance(loaded, ConceptNet)
    return loaded


def read_ckbc(paths: Sequence[Path]) -> ConceptNet:
    """Parse the CKBC files: the training file, then any evaluation files (label-1 rows kept).

    Parameters
    ----------
    paths
        ``train`` (``relation head tail weight``), then ``dev1``, ``dev2``, ``test``
        (``relation head tail label``); tab-separated, no header, gzip ok. Only the first is
        required.

    Raises
    ------
    LexiconFormatError
        A row without four fields, or a weight / label that is not valid; the message names the
        file and row.
    """
    if not paths or len(paths) > len(_SPLITS):
        raise WordlensError(f"read_ckbc takes 1 to {len(_SPLITS)} files; got {len(paths)}")
    train = _read_assertions(paths[0], "weight")
    tables = [train.assign(split=_SPLITS[0])]
    for path, split in zip(paths[1:], _SPLITS[1:], strict=False):
        table = _read_assertions(path, "label")
        if not table["label"].isin([0.0, 1.0]).all():
            raise LexiconFormatError(f"{path}: labels must be 0 or 1")
        true = table[table["label"] == 1.0].drop(columns="label")
        tables.append(true.assign(weight=np.nan, split=split))
    assertions = pd.concat(tables, ignore_index=True)
    return ConceptNet(paths[0].name, assertions[["relation", "head", "tail", "weight", "split"]])


def _read_assertions(path: Path, value: str) -> pd.DataFrame:
    """``relation``, ``head``, ``tail`` (lower-cased) and a numeric `value` column of one file."""
    columns = ["relation", "head", "tail", value]
    try:
        table = pd.read_csv(
            path,
            sep="\t",
            header=None,
            names=columns,
            dtype=str,
            keep_default_na=False,
            quoting=csv.QUOTE_NONE,
        )
    except pd.errors.ParserError as error:
        raise LexiconFormatError(f"{path}: expected 4 tab-separated fields: {error}") from None
    numbers = pd.to_numeric(table[value], errors="coerce")
    bad = ~np.isfinite(numbers.to_numpy(dtype=np.float64)) | (table[columns[:3]] == "").any(axis=1)
    if bad.any():
        first = int(np.nonzero(bad.to_numpy())[0][0])
        raise LexiconFormatError(
            f"{path}, row {first + 1}: expected 'relation head tail {value}' with a numeric {value}"
        )
    return pd.DataFrame(
        {
            "relation": table["relation"].map(_lower_camel),
            "head": table["head"].str.strip().str.lower(),
            "tail": table["tail"].str.strip().str.lower(),
            value: numbers.astype(np.float64),
        }
    )


def _lower_camel(relation: str) -> str:
    """``IsA`` -> ``isA`` (the paper's spelling)."""
    return relation[:1].lower() + relation[1:]


def annotate_pairs(
    pairs: pd.DataFrame, conceptnet: ConceptNet, *, include_negated: bool = True
) -> pd.DataFrame:
    """Label word pairs with their ConceptNet relations, oriented head -> tail (RQ 1.1).

    Parameters
    ----------
    pairs
        Unordered word pairs, columns ``word1`` and ``word2`` (e.g.
        :meth:`~wordlens.resources.association_norms.AssociationNorms.bidirectional_pairs`);
        matched lower-cased. Repeated pairs (in either order) count once.
    conceptnet
        The knowledge graph (:func:`load_conceptnet`).
    include_negated
        Keep the negated relations as relations of their own (default) or drop them.

    Returns
    -------
    pandas.DataFrame
        One row per (pair, relation): ``relation``, ``a`` (the head) and ``b`` (the tail), sorted.
        Unannotated pairs get :data:`UNANNOTATED_RELATION`; they and pairs related both ways are
        oriented ``a < b`` (see the module notes).

    Raises
    ------
    WordlensError
        If `pairs` lacks the ``word1`` / ``word2`` columns.
    """
    missing = [column for column in ("word1", "word2") if column not in pairs.columns]
    if missing:
        raise WordlensError(f"pairs need columns word1 and word2; missing {missing}")
    keys = _lexicographic(pairs["word1"].str.lower(), pairs["word2"].str.lower())
    keys = keys[keys["low"] != keys["high"]].drop_duplicates(ignore_index=True)
    edges = conceptnet.word_assertions(include_negated=include_negated)
    edge_keys = _lexicographic(edges["head"], edges["tail"]).assign(
        relation=edges["relation"].to_numpy(), forward=(edges["head"] < edges["tail"]).to_numpy()
    )
    oriented = edge_keys.groupby(["relation", "low", "high"], as_index=False).agg(
        any_forward=("forward", "max")
    )
    annotated = keys.merge(oriented, on=["low", "high"], how="left")
    unannotated = annotated["relation"].isna()
    annotated.loc[unannotated, "relation"] = UNANNOTATED_RELATION
    # Asserted only with the later word as head: the pair runs high -> low. NaN (unannotated)
    # is not False.
    backward = annotated["any_forward"].eq(False).to_numpy()
    result = pd.DataFrame(
        {
            "relation": annotated["relation"].astype(str),
            "a": np.where(backward, annotated["high"], annotated["low"]),
            "b": np.where(backward, annotated["low"], annotated["high"]),
        }
    )
    return result.drop_duplicates().sort_values(["relation", "a", "b"], ignore_index=True)


def _lexicographic(first: pd.Series, second: pd.Series) -> pd.DataFrame:
    """Columns ``low`` and ``high``: each pair's two words in lexicographic order."""
    left = first.to_numpy(dtype=object)
    right = second.to_numpy(dtype=object)
    ordered = left <= right
    return pd.DataFrame(
        {"low": np.where(ordered, left, right), "high": np.where(ordered, right, left)}
    )


# Li et al.'s evaluation files (their true assertions join the training set): split -> sha256.
_EVALUATION_SPLITS = {
    "dev1": "eb55942d946831e037de63e9dfda4b5a7bbd385682d3803f72acd05228c38a8f",
    "dev2": "c28a62f11d971d50b9d1694c0e7eab8a71f5e0327b426bc81794e9a26dffc0b0",
    "test": "1dcff18e6aca8fee689c548639ea04891f989f8bd778e2ea6b872645e3a9de3c",
}

register(
    Resource(
        name=CONCEPTNET_100K,
        kind="knowledge-graph",
        description=(
            "ConceptNet-100K (CKBC, Li et al. 2016): 100,000 English ConceptNet 5 assertions "
            "'relation head tail weight' over 34 relations (IsA 14,925, AtLocation 14,380, "
            "UsedFor 13,221, ...; negated ones included), plus the 2,400 true (label-1) "
            "assertions of its dev1/dev2/test files. Relation names in lower camel case."
        ),
        files=(
            ResourceFile(
                relpath="conceptnet/ckbc_train100k.txt.gz",
                sha256="a44a27fc0c6f5d4a426a935cdb6c02c101efba69f34346b0b627ee7c7d17a64e",
                repo="KhinePisi/ckbc",
                commit="fc0ab3880532d93a7758776da595d1aeb9c9dfbd",
                path="train100k.txt.gz",
            ),
            *(
                ResourceFile(
                    relpath=f"conceptnet/ckbc_{split}.txt",
                    sha256=sha256,
                    repo="Lorraine333/ACL_CKBC",
                    commit="655f3aaf28ff5040f50e72fb8118934766306969",
                    path=f"commonsendata/Eval/conceptnet/new_omcs_{split}.txt",
                )
                for split, sha256 in _EVALUATION_SPLITS.items()
            ),
        ),
        loader=read_ckbc,
        citation=(
            "Li, X., Taheri, A., Tu, L. & Gimpel, K. (2016). Commonsense Knowledge Base "
            "Completion. ACL 2016. Speer, R., Chin, J. & Havasi, C. (2017). ConceptNet 5.5: An "
            "Open Multilingual Graph of General Knowledge. AAAI 2017."
        ),
        license="CC BY-SA 4.0 (ConceptNet 5); the hosting repositories state no license",
    )
)
