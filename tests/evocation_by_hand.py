"""An independent recount of the evocation side of Zhang et al. (2021) from the raw shared files,
for the asymmetry tests to compare wordlens against (no wordlens reader or statistic is used).

Written from the data sets' documentation and the paper, with plain dictionaries:

- **EAT** (``evocation/eat_stimulus_response.tsv.gz``, ``stimulus response count``): eq. 5,
  ``P(r | c) = count(c, r) / sum_r' count(c, r')`` over every response of the (lower-cased)
  stimulus; responses and stimuli the file cut off (ending in ``%``) count in the total but are not
  pairs; repeated lower-cased arcs add up.
- **USF** (``evocation/usf_free_association.csv.gz``): eq. 5 is the forward strength ``FSG`` of
  the (lower-cased) cue and target; a repeated pair keeps its largest FSG.
- Words are taken as written ("null" is a word: no NA parsing); zero strengths are not arcs.
- **ConceptNet-100K** (``conceptnet/ckbc_*``): the training file and the label-1 rows of dev1,
  dev2 and test; relations in lower camel case, words stripped and lower-cased; single-word
  assertions only (no space), not a word with itself; negated relations kept.
- **Pairs** (RQ 1): the pairs of two different words each evoked by the other; each relation
  asserted between them is one row, oriented head -> tail (``a < b`` when asserted both ways);
  a pair under no relation is ``relatedTo``, oriented ``a < b``.
- **LAR** (eq. 1) ``log P(b|a) - log P(a|b)``; ALAR (eq. 2) its mean per relation; CAM (eq. 4)
  scipy's Spearman rho on the rows two data sets share.
"""

from __future__ import annotations

import csv
import functools
import gzip
import math
from collections import defaultdict
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

Strengths = dict[tuple[str, str], float]


def _rows(path: Path, delimiter: str, quoting: Literal[0, 1, 2, 3]) -> list[dict[str, str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter=delimiter, quoting=quoting))


@functools.cache
def eat_strengths(data: Path) -> Strengths:
    rows = _rows(data / "evocation" / "eat_stimulus_response.tsv.gz", "\t", csv.QUOTE_NONE)
    totals: dict[str, float] = defaultdict(float)
    counts: Strengths = defaultdict(float)
    for row in rows:
        cue, response, count = row["stimulus"].lower(), row["response"].lower(), row["count"]
        totals[cue] += float(count)
        if not (cue.endswith("%") or response.endswith("%")):
            counts[(cue, response)] += float(count)
    return {
        (cue, response): count / totals[cue]
        for (cue, response), count in counts.items()
        if count > 0 and cue and response
    }


@functools.cache
def usf_strengths(data: Path) -> Strengths:
    rows = _rows(data / "evocation" / "usf_free_association.csv.gz", ",", csv.QUOTE_MINIMAL)
    best: Strengths = {}
    for row in rows:
        key = (row["CUE"].lower(), row["TARGET"].lower())
        best[key] = max(best.get(key, 0.0), float(row["FSG"]))
    return {key: fsg for key, fsg in best.items() if fsg > 0 and key[0] and key[1]}


def strengths(data: Path, name: str) -> Strengths:
    return {"eat": eat_strengths, "usf": usf_strengths}[name](data)


@functools.cache
def conceptnet_relations(data: Path) -> dict[tuple[str, str], dict[str, bool]]:
    """(low, high) -> relation -> whether some assertion has ``low`` as its head."""
    folder = data / "conceptnet"
    files = [(folder / "ckbc_train100k.txt.gz", False)]
    files += [(folder / f"ckbc_{split}.txt", True) for split in ("dev1", "dev2", "test")]
    found: dict[tuple[str, str], dict[str, bool]] = defaultdict(dict)
    for path, labelled in files:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                relation, head, tail, value = line.rstrip("\n").split("\t")
                if labelled and float(value) != 1.0:
                    continue
                head, tail = head.strip().lower(), tail.strip().lower()
                if " " in head or " " in tail or head == tail:
                    continue
                relation = relation[:1].lower() + relation[1:]
                key = (min(head, tail), max(head, tail))
                found[key][relation] = found[key].get(relation, False) or head < tail
    return found


def conceptnet_vocabulary(data: Path) -> set[str]:
    return {word for pair in conceptnet_relations(data) for word in pair}


def lar_table(data: Path, name: str) -> pd.DataFrame:
    """``relation``, ``a``, ``b``, ``lar`` of every (pair, relation) of one data set."""
    strength = strengths(data, name)
    relations = conceptnet_relations(data)
    rows = []
    for low, high in strength:
        if not (low < high and (high, low) in strength):
            continue
        for relation, forward in relations.get((low, high), {"relatedTo": True}).items():
            a, b = (low, high) if forward else (high, low)
            rows.append((relation, a, b, math.log(strength[(a, b)]) - math.log(strength[(b, a)])))
    return pd.DataFrame(rows, columns=["relation", "a", "b", "lar"])


def static_model_lar(
    pairs: pd.DataFrame, strength: Strengths, vectors: dict[str, np.ndarray]
) -> np.ndarray:
    """Eqs. 7-8 and 1 for static vectors, per row of `pairs` (``a``, ``b``): the projection
    proportion ``rho(r | c) = u_c . u_r / |u_c|^2``, softmax over the cue's response range (every
    response the data records for the cue that has a vector), LAR of the two. NaN where a word
    has no vector."""
    responses: dict[str, list[str]] = defaultdict(list)
    for cue, response in strength:
        if response in vectors:
            responses[cue].append(response)

    @functools.cache
    def log_normalizer(cue: str) -> float:
        logits = np.array([rho(cue, response) for response in responses[cue]])
        top = logits.max()
        return float(top + np.log(np.exp(logits - top).sum()))

    def rho(cue: str, response: str) -> float:
        u = vectors[cue]
        return float(u @ vectors[response] / (u @ u))

    result = []
    for a, b in zip(pairs["a"], pairs["b"], strict=True):
        if a not in vectors or b not in vectors:
            result.append(np.nan)
            continue
        forward = rho(a, b) - log_normalizer(a)
        backward = rho(b, a) - log_normalizer(b)
        result.append(forward - backward)
    return np.array(result)
