"""ConceptNet assertions (ConceptNet-100K, or the ConceptNet 5 assertions file) and the relation
annotation of word pairs.

``conceptnet-100k`` is the English ConceptNet 5 subset released by Li et al. (2016) for
commonsense knowledge base completion: 100,000 training assertions ``relation head tail weight``
(34 relations, e.g. ``IsA``, ``AtLocation``, ``UsedFor``; heads and tails are lower-case phrases;
weight = the ConceptNet confidence) and three evaluation files ``relation head tail label`` whose
label-1 rows (2,400 true assertions; the label-0 rows are corrupted negatives and are dropped) are
added to the graph. Relation names are written in lower camel case, as in Zhang et al.'s tables
(``IsA`` -> ``isA``).

``conceptnet5`` is the full ConceptNet 5 edge list, ``conceptnet-assertions-5.7.0.csv.gz``
(about 34 M edges in all languages; about 10 GB uncompressed), which the user downloads
(:data:`CONCEPTNET_5_URL`; its sha256 is not recorded, so wordlens never downloads it) and passes
by path or puts on a data root as ``conceptnet/conceptnet-assertions-5.7.0.csv.gz``. Zhang et al.
annotate with "ConceptNet (Speer, Chin, and Havasi 2017)", i.e. ConceptNet 5, whose relations
``antonym``, ``synonym``, ``distinctFrom``, ``similarTo``, ``hasContext``, ``formOf`` and
``derivedFrom`` (their Tables 1 and 5) ConceptNet-100K lacks. :func:`read_conceptnet5` streams
the gzip file line by line (five tab-separated columns: edge URI, relation URI ``/r/Antonym``,
start URI, end URI, JSON with ``weight`` and ``dataset``) and keeps the edges whose two ends are
English concepts (``/c/en/...``) of the relations asked for (default :data:`PAPER_RELATIONS`,
the 27 relations of the paper's Table 5). A concept URI becomes the phrase ConceptNet-100K
would write: ``/c/en/ice_cream/n/wn/food`` -> ``ice cream`` (the term's underscores are spaces,
the part-of-speech and sense suffixes are dropped, lower case), so edges that differ only by
sense become one assertion of :meth:`ConceptNet.word_assertions`; ``/r/HasContext`` ->
``hasContext``, as the paper spells relations. Everything left out on reading is counted by
reason in :attr:`ConceptNet.skipped`. ConceptNet's ``RelatedTo`` edges are read as ``relatedTo``,
the label the paper also gives pairs found under no relation ("Pairs not found are annotated
with the ConceptNet's relatedTo relation"); like every relation, and like ConceptNet's symmetric
ones (``antonym``, ``synonym``, ``distinctFrom``, ``similarTo``), they are oriented head -> tail
as the edge is written ("we treat all relations directional"). Departure: the paper does not
say which relations it read; the default reads the 27 it reports, so a pair connected only by a
relation it does not report (``mannerOf``, ``etymologicallyRelatedTo``, ...) falls back to
``relatedTo``; ``read_conceptnet5(path, relations=None)`` reads every relation.

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
import gzip
import io
import json
import re
import sys
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wordlens._files import StrPath, decoding
from wordlens.errors import LexiconFormatError, WordlensError
from wordlens.progress import progress_bar
from wordlens.resources.registry import (
    Resource,
    ResourceFile,
    get_resource,
    list_resources,
    register,
)

# numpy and pandas are imported in the functions that use them: the command line imports the
# resources (its methods' options name them), and `wordlens --help` should not load them.
if TYPE_CHECKING:
    import pandas as pd

CONCEPTNET_100K = "conceptnet-100k"
"""The registered ConceptNet subset, the offline default (:func:`load_conceptnet`)."""
CONCEPTNET_5 = "conceptnet5"
"""The registered ConceptNet 5.7 assertions file, provided by the user."""
CONCEPTNET_5_URL = (
    "https://s3.amazonaws.com/conceptnet/downloads/2019/edges/conceptnet-assertions-5.7.0.csv.gz"
)
"""Where ConceptNet 5.7's assertions are published (ConceptNet wiki, "Downloads")."""

PAPER_RELATIONS = (
    "relatedTo",
    "antonym",
    "synonym",
    "isA",
    "atLocation",
    "distinctFrom",
    "similarTo",
    "hasContext",
    "hasProperty",
    "partOf",
    "usedFor",
    "capableOf",
    "hasA",
    "hasPrerequisite",
    "causes",
    "formOf",
    "derivedFrom",
    "madeOf",
    "hasSubevent",
    "motivatedByGoal",
    "causesDesire",
    "createdBy",
    "hasFirstSubevent",
    "desires",
    "hasLastSubevent",
    "definedAs",
    "notHasProperty",
)
"""The 27 relations of Zhang et al.'s Table 5 (Appendix; the longer list of Table 1), in its
order (most EAT pairs first)."""

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
        files, which have none) and ``split`` (the file it came from; for the ConceptNet 5
        assertions the edge's dataset, e.g. ``/d/wiktionary/en``).
    source
        What the assertions are, for reports (e.g. ``ConceptNet-100K (CKBC, Li et al. 2016)``).
    skipped
        Rows or edges left out on reading, by reason (e.g. ``non-English edge``).
    """

    name: str
    assertions: pd.DataFrame = field(repr=False)
    source: str = ""
    skipped: Mapping[str, int] = field(default_factory=dict)

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

    def describe(self) -> dict[str, Any]:
        """``name``, ``source``, ``n_assertions``, the distinct single-word assertions per
        relation (``word_assertions``, most first) and ``skipped``: JSON-able, for run
        metadata."""
        counts = self.word_assertions()["relation"].value_counts()
        return {
            "name": self.name,
            "source": self.source,
            "n_assertions": len(self.assertions),
            "word_assertions": {str(k): int(v) for k, v in counts.items()},
            "skipped": dict(self.skipped),
        }


def load_conceptnet(
    name: str = CONCEPTNET_100K, path: StrPath | None = None, **options: Any
) -> ConceptNet:
    """A registered ConceptNet (``conceptnet-100k``, ``conceptnet5``), from ``path`` or the data
    roots; `options` go to its reader (e.g. ``progress=True`` for :func:`read_conceptnet5`)."""
    loaded = get_resource(name, kind="knowledge-graph").load(path, **options)
    assert isinstance(loaded, ConceptNet)
    return loaded


def open_conceptnet(spec: str, *, progress: bool = False) -> ConceptNet:
    """The ConceptNet a CLI option names: a registered name (``conceptnet-100k``,
    ``conceptnet5``), or the path of a ConceptNet 5 assertions file (or of a data root holding
    it as ``conceptnet/conceptnet-assertions-5.7.0.csv.gz``).

    Raises
    ------
    WordlensError
        When `spec` is neither a registered name nor an existing path (listing the names), or as
        the readers raise.
    """
    if check_conceptnet_spec(spec):
        options = {"progress": progress} if spec == CONCEPTNET_5 else {}
        return load_conceptnet(spec, None, **options)
    return load_conceptnet(CONCEPTNET_5, Path(spec).expanduser(), progress=progress)


def check_conceptnet_spec(spec: str) -> bool:
    """True when `spec` names a registered ConceptNet, False when it is an existing path.

    Raises
    ------
    WordlensError
        When it is neither (listing the names).
    """
    names = [resource.name for resource in list_resources("knowledge-graph")]
    if spec in names:
        return True
    if Path(spec).expanduser().exists():
        return False
    raise WordlensError(
        f"no ConceptNet {spec!r}: give {' or '.join(names)}, or the path of "
        f"conceptnet-assertions-5.7.0.csv.gz (from {CONCEPTNET_5_URL})"
    )


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
    import numpy as np
    import pandas as pd

    if not paths or len(paths) > len(_SPLITS):
        raise WordlensError(f"read_ckbc takes 1 to {len(_SPLITS)} files; got {len(paths)}")
    train = _read_assertions(paths[0], "weight")
    tables = [train.assign(split=_SPLITS[0])]
    n_negative = 0
    for path, split in zip(paths[1:], _SPLITS[1:], strict=False):
        table = _read_assertions(path, "label")
        if not table["label"].isin([0.0, 1.0]).all():
            raise LexiconFormatError(f"{path}: labels must be 0 or 1")
        true = table[table["label"] == 1.0].drop(columns="label")
        n_negative += len(table) - len(true)
        tables.append(true.assign(weight=np.nan, split=split))
    assertions = pd.concat(tables, ignore_index=True)
    return ConceptNet(
        paths[0].name,
        assertions[["relation", "head", "tail", "weight", "split"]],
        source="ConceptNet-100K (CKBC, Li et al. 2016)",
        skipped={"label-0 (corrupted) evaluation rows": n_negative} if n_negative else {},
    )


def _read_assertions(path: Path, value: str) -> pd.DataFrame:
    """``relation``, ``head``, ``tail`` (lower-cased) and a numeric `value` column of one file."""
    import numpy as np
    import pandas as pd

    columns = ["relation", "head", "tail", value]
    try:
        with decoding(path):
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


_ENGLISH = "/c/en/"
_ASSERTION_FIELDS = 5


def read_conceptnet5(
    path: Path, *, relations: Collection[str] | None = PAPER_RELATIONS, progress: bool = False
) -> ConceptNet:
    """Stream the English edges of the ConceptNet 5 assertions file (see the module notes).

    Parameters
    ----------
    path
        ``conceptnet-assertions-5.7.0.csv.gz`` (gzip or plain text): one edge per line, five
        tab-separated fields ``edge_uri relation_uri start_uri end_uri json``, no header; the
        JSON holds ``weight`` (a number) and ``dataset``.
    relations
        Relation names to keep, as the paper spells them (``antonym``, ``isA``: the relation
        URI's last part in lower camel case); None keeps every relation.
    progress
        Draw a progress bar over the compressed bytes read.

    Returns
    -------
    ConceptNet
        One assertion per kept edge (``split`` = its dataset); :attr:`ConceptNet.skipped` counts
        the non-English edges and, per relation, the English edges of relations not kept.

    Raises
    ------
    LexiconFormatError
        A line without five fields, a relation that is not ``/r/...``, an English concept URI
        without a term, or JSON without a numeric weight; the message names the file and line.
    """
    import numpy as np
    import pandas as pd

    wanted = None if relations is None else frozenset(relations)
    columns: dict[str, list[Any]] = {k: [] for k in ("relation", "head", "tail", "weight", "split")}
    skipped: Counter[str] = Counter()
    for number, fields in _assertion_lines(path, progress):
        if not (fields[2].startswith(_ENGLISH) and fields[3].startswith(_ENGLISH)):
            skipped["non-English edge"] += 1
            continue
        relation = _relation_name(fields[1], path, number)
        if wanted is not None and relation not in wanted:
            skipped[f"English edge of relation {relation} (not read)"] += 1
            continue
        weight, dataset = _edge_info(fields[4], path, number)
        columns["relation"].append(relation)
        columns["head"].append(_concept_text(fields[2], path, number))
        columns["tail"].append(_concept_text(fields[3], path, number))
        columns["weight"].append(weight)
        columns["split"].append(dataset)
    assertions = pd.DataFrame(columns).astype({"weight": np.float64})
    return ConceptNet(
        path.name,
        assertions,
        source=f"ConceptNet 5 assertions, English edges ({path.name})",
        skipped=dict(sorted(skipped.items())),
    )


def _assertion_lines(path: Path, progress: bool) -> Iterator[tuple[int, list[str]]]:
    """``(line number, five fields)`` of each line, read as a stream (gzip when the file starts
    with the gzip magic bytes); the progress bar counts compressed bytes."""
    size = path.stat().st_size
    with (
        decoding(path),
        path.open("rb") as raw,
        progress_bar(progress, size, "ConceptNet 5 (bytes)") as advance,
    ):
        is_gzip = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        binary = gzip.GzipFile(fileobj=raw) if is_gzip else raw
        done = 0
        with io.TextIOWrapper(binary, encoding="utf-8", newline="\n") as text:
            for number, line in enumerate(text, start=1):
                fields = line.rstrip("\r\n").split("\t")
                if len(fields) != _ASSERTION_FIELDS:
                    raise LexiconFormatError(
                        f"{path}, line {number}: expected 5 tab-separated fields (edge URI, "
                        f"relation, start, end, JSON); got {len(fields)}"
                    )
                yield number, fields
                if number % 100_000 == 0:
                    advance(raw.tell() - done)
                    done = raw.tell()
            advance(size - done)


@functools.lru_cache(maxsize=1024)
def _relation_uri_name(uri: str) -> str | None:
    """``/r/HasContext`` -> ``hasContext``; ``/r/dbpedia/genre`` -> ``dbpedia/genre``; None for
    a URI that is not a relation."""
    if not uri.startswith("/r/") or len(uri) <= len("/r/"):
        return None
    return _lower_camel(uri[len("/r/") :])


def _relation_name(uri: str, path: Path, number: int) -> str:
    name = _relation_uri_name(uri)
    if name is None:
        raise LexiconFormatError(f"{path}, line {number}: {uri!r} is not a relation URI (/r/...)")
    return name


def _concept_text(uri: str, path: Path, number: int) -> str:
    """``/c/en/ice_cream/n/wn/food`` -> ``ice cream``: the term (underscores are spaces),
    lower-cased, without the part-of-speech and sense suffixes, interned (terms repeat)."""
    term = uri[len(_ENGLISH) :].split("/", 1)[0]
    text = term.replace("_", " ").strip().lower()
    if not text:
        raise LexiconFormatError(f"{path}, line {number}: concept {uri!r} has no term")
    return sys.intern(text)


def _edge_info(info: str, path: Path, number: int) -> tuple[float, str]:
    """The ``weight`` and ``dataset`` of an edge's JSON."""
    try:
        parsed = json.loads(info)
        weight = parsed["weight"]
        if isinstance(weight, bool) or not isinstance(weight, int | float):
            raise TypeError(weight)
    except (ValueError, KeyError, TypeError):
        raise LexiconFormatError(
            f"{path}, line {number}: the edge's JSON needs a numeric 'weight': {info[:80]!r}"
        ) from None
    return float(weight), str(parsed.get("dataset", ""))


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
    import numpy as np
    import pandas as pd

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
    import numpy as np
    import pandas as pd

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


def _load_conceptnet5(paths: Sequence[Path], **options: Any) -> ConceptNet:
    return read_conceptnet5(paths[0], **options)


register(
    Resource(
        name=CONCEPTNET_5,
        kind="knowledge-graph",
        description=(
            "ConceptNet 5.7 assertions, all languages (about 10 GB uncompressed); the English "
            "edges of the 27 relations of Zhang et al.'s Table 5 are read, streaming. Not "
            "downloaded by wordlens (no recorded sha256): download it from the url and pass its "
            "path (wordlens asymmetry --conceptnet PATH) or put it on a data root."
        ),
        files=(
            ResourceFile(
                relpath="conceptnet/conceptnet-assertions-5.7.0.csv.gz",
                sha256=None,
                repo="",
                commit="",
                path="",
                download_url=CONCEPTNET_5_URL,
            ),
        ),
        loader=_load_conceptnet5,
        citation=(
            "Speer, R., Chin, J. & Havasi, C. (2017). ConceptNet 5.5: An Open Multilingual Graph "
            "of General Knowledge. AAAI 2017."
        ),
        license="CC BY-SA 4.0 (ConceptNet 5)",
    )
)
