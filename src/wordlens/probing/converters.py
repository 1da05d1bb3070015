"""Edge-probing tasks from freely available data (Tenney et al. 2019, Section 2 and Appendix B).

Five tasks load as lists of :class:`~wordlens.probing.edges.EdgeExample` per split
(:func:`load_probing_task`); the files are resolved through the data registry
(``corpus-ud-ewt``, and ``semeval2010-task8``, ``uds-protoroles``, ``dpr`` from
:mod:`wordlens.resources.probing_sets`), so ``$WORDLENS_DATA_PATH`` and explicit data roots work.
The data registry imports nothing from probing: importing this module gives those three resources
their loaders (:func:`convert_resource_files`, through
:func:`~wordlens.resources.registry.register_loader`).

=========  ======================  ==========================  ===========================  ====
task       source                  sentences train/dev/test    targets train/dev/test       |L|
=========  ======================  ==========================  ===========================  ====
pos        UD English EWT v2.15    12,544 / 2,001 / 2,077      204,577 / 25,147 / 25,094    17
dep        UD English EWT v2.15    12,544 / 2,001 / 2,077      204,577 / 25,147 / 25,094    51
rel        SemEval-2010 Task 8     6,900 / 1,100 / 2,717       6,900 / 1,100 / 2,717        19
spr        UDS 1.0 protoroles      2,191 / 291 / 276           4,874 / 632 / 582            14
winograd   DPR (Rahman & Ng 2012)  1,190 / 132 / 564           2,380 / 264 / 1,128          2
=========  ======================  ==========================  ===========================  ====

(measured; ``dep`` has 51 relations in train, 49 in dev and test; ``rel`` dev has 18 of the 19
labels, ``Entity-Destination(e2,e1)`` occurring once in all 8,000 training examples.) Appendix B
of the paper lists 13K / 2.0K / 2.1K sentences and 204K / 25K / 25K targets for dependencies
(UD 2.2), 6.9K / 1.1K / 2.7K for SemEval and 2.2K / 291 / 276 sentences with 4.9K / 630 / 582
targets for SPR2, as here.

**Tokenization.** UD keeps the treebank's syntactic words. SemEval and DPR sentences are raw text,
split by one deterministic regular expression (:func:`word_spans`), tried in this order:
abbreviations of single letters and dots (``U.S.``); numbers with inner ``. , : /`` (``3.5``,
``1,000``, ``8:35``); Penn-Treebank clitics split off (``do n't``, ``ca n't``, ``neighbor 's``,
``I 'm``); words of letters, digits and ``_``, keeping inner hyphens, ampersands and apostrophes
that do not start a clitic (``T-Mobile``, ``AT&T``, ``O'Brien``, ``left-handed``); any other
non-space character is a token of its own (punctuation, quotes, symbols). Splitting the clitic
``'s`` is what lets possessors be found: 60 of the 3,772 DPR candidates (``Susan`` in
``Susan's room``) are possessors.

**UD EWT POS** (``pos``): one target per syntactic word (integer-ID lines; multiword-token ranges
``3-4`` and empty nodes ``5.1`` skipped), label = UPOS. The text is the word forms joined by
single spaces; a form containing whitespace would have it replaced by U+00A0 (no-break space) so
that ``text.split(" ")`` gives the words (EWT v2.15 has no such form). The paper took POS from
OntoNotes (48 PTB tags); EWT's 17 UPOS tags are the free substitute.

**UD EWT dependencies** (``dep``): one target per word, as jiant's ``ud_to_json.py``: ``span1`` =
the dependent, ``span2`` = its head word, label = the full DEPREL with its subtype (``nmod:poss``;
``universal_only=True`` strips subtypes: 36 labels in train). The root has no head word; its
``span2`` is its own ``span1`` and its label ``root``, so every word is a target (Appendix B: 204K
targets = the 204K words).

**SemEval-2010 Task 8** (``rel``): each example's sentence with its ``<e1>`` / ``<e2>`` tags
removed, tokenized with a token boundary forced at every tag (seven sentences lack the space
before or after a tag, e.g. ``The<e1>staff</e1>``); ``span1`` / ``span2`` = the tokens inside
``<e1>`` / ``<e2>``; label = the directed relation (``Component-Whole(e2,e1)``) or ``Other``, 19
labels. ``test`` is ``TEST_FILE_FULL.TXT`` (2,717). The paper's 6.9K / 1.1K train/dev split is not
published: here ``dev`` = 1,100 of the 8,000 training examples drawn without replacement by
``numpy.random.default_rng(seed)`` (seed 0 by default), ``train`` = the other 6,900, both in file
order. The split is not stratified: ``Entity-Destination(e2,e1)`` has one training example.
Token counts are 131,959 / 20,911 / 52,062 against the paper's 117K / 20K / 47K, which split on
whitespace only (punctuation attached to words) before retokenizing.

**Semantic proto-roles** (``spr``): UDS 1.0 sentence-level protorole annotations on EWT, joined
through ``ud_ids.json`` (UDS id ``ewt-train-12`` -> EWT ``# sent_id``) with the EWT sentences of the
same split. Node ids end in the 1-based index of the head word, so ``span1`` = the predicate's
head word and ``span2`` = the argument's head word (jiant's SPR2 used the whole argument phrase,
which UDS does not give). Labels = the properties whose normalized value exceeds ``threshold``,
sorted. Decisions:

- *Threshold 0.5, not 0.* jiant's SPR2 converter keeps a property when the mean raw Likert rating
  (1-5, 3 neutral) is >= 4 ("likely"). The normalized values are centred on the neutral point,
  but they are not a linear image of the mean rating: of the 89,240 (edge, property) values
  (all 7,090 edges),
  45,427 have confidence 1 and those sit at three points only, about -1.3 (7,569), 0 (8,724) and
  +1.3 (26,673 values in 0.6-3.0); the remaining values crowd around zero with low confidence
  (28,582 in -0.4..0 with mean confidence 0.50; 15,133 in 0..0.2 with mean confidence 0.43).
  ``value > 0`` would therefore make 42,720 positive labels, 15,133 of them near-zero, low-
  confidence "leans" (``change_of_location`` 1,485 positives against 342 confident ones,
  ``partitive`` 1,233 against 142): the analogue of "above neutral" (> 3), not of ">= 4". The
  distribution has a gap between 0.2 and 0.6 (914 values), so any threshold in it gives nearly
  the same labels (27,587 at 0.2, 26,673 at 0.5, measured); 0.5 keeps the confident positives.
  ``threshold=0.0`` gives the "above neutral" labels.
- *Edges with no positive property are kept* with an empty label set (a negative for every
  label in the multi-label probe, Appendix C eq. 3), as jiant's SPR data and its fixture do:
  475 / 51 / 48 targets at threshold 0.5 (105 / 9 / 9 at 0; with all edges 822 / 86 / 93 and
  193 / 18 / 26).
- *Targets: the predicate-argument edges only, as jiant* (``arguments_only=True``, the default).
  UDS 1.0 has two kinds of edges: 6,088 annotated with the 14 argument properties and 1,002
  annotated only with ``location``, ``manner``, ``purpose``, ``time``
  (:data:`NON_CORE_PROPERTIES`); no edge has both. jiant v1.3.2's ``convert-spr2.py`` makes one
  target per annotated (predicate token, argument span) pair of the SPR2 file, skipping rows
  marked not applicable (``probing/data/convert-spr2.py:50-91``; SPR1 likewise, one target per
  annotated ``(pred_idx, arg_idx)``, ``convert-spr1-rudinger.py:83-87``); the paper's task takes
  "a known argument head" as ``span2`` (Section 2.1) and "looks at the same type of core
  predicate-argument pairs" as SRL's core roles (Section 5). The argument edges number 4,874 /
  632 / 582 in train / dev / test, the paper's SPR2 target counts (Appendix B: 4.9K / 630 /
  582); all edges would be 5,669 / 751 / 670. So the non-core edges are left out by default
  (795 / 119 / 88, counted in each example's ``info["non_core_edges_left_out"]`` and in the
  probing run's metadata; no sentence loses all its edges), and the labels are the 14 argument
  properties: no edge is a negative for a property it was not annotated with.
  ``arguments_only=False`` keeps all 7,090 edges and the 18 properties; then every edge is a
  negative for the properties not annotated on it (the argument properties of a non-core edge,
  the non-core ones of an argument edge) unless a trainer masks them with ``info["annotated"]``,
  which every target carries; the probe here does not mask. (Appendix B lists 20 SPR2 labels;
  UDS 1.0 annotates the argument edges with 14.)
- *Join check.* UDS 1.0 was annotated on an older EWT. Every one of the 2,758 UDS sentences is
  found (by ``# sent_id``) in the split of the same name and every head index is inside its
  sentence, so nothing is dropped (an edge failing either check would be dropped with a warning).
  Of the 7,090 predicate heads 7,084 are VERB or AUX in v2.15. The six others: ``ewt-dev-99``
  (two edges; "were" is a typo for "where" and tagged ADV), ``ewt-train-6205`` ("surv ive", the
  fragment ``ive``), and three edges of ``ewt-train-9481`` whose indices after word 15 are one
  too high in v2.15 (predicates 19 and 24 land on "that" and "a" instead of "means" and
  "predict"): an index shift the checks cannot detect; they are kept.
- Splits: UDS's own (``ewt-<split>-<n>``), which are EWT's: 2,191 / 291 / 276 sentences,
  4,874 / 632 / 582 argument edges (5,669 / 751 / 670 edges in all). Examples follow EWT file
  order; targets are sorted by span.

**Definite Pronoun Resolution** (``winograd``): Rahman & Ng's (2012) twin sentences, the paper's
Winograd coreference data (the paper used the DNC recast of it, not available here, so its
Appendix B counts differ). Each example is two targets, one per candidate antecedent: ``span1`` =
the pronoun and ``span2`` = the candidate (the paper's Table 1 brackets ``[they]1`` and
``[Characters]2``, and jiant's ``convert-dpr.py`` writes the pronoun as ``span1``); label ``"1"``
for the correct antecedent, ``"0"`` for the other. Mentions are located as whole-token
sequences, case-insensitively: each candidate at its first occurrence, the pronoun at its first
occurrence *after both candidates*. The data set's README says "if the target pronoun appears more
than once in the sentence, its first occurrence is the one to be resolved"; 51 sentences repeat
their pronoun, and in 47 of them the first occurrence already follows both candidates, so both
rules agree. In the other four (two twin pairs) the first occurrence sits between the candidates
and is not the pronoun the twins differ on ("The assembly line workers were told *they* had been
fired by the company, because *they* had moved the jobs overseas"; the twin ends "because they
could cut costs"), so the README's rule would pick the wrong one. All 3,772 candidates and 1,886
pronouns are found (a missing candidate is dropped with a warning, and a sentence without the
pronoun after its candidates too).

``test`` = ``test.c.txt`` (564). ``train`` / ``dev``: consecutive examples ``2k`` and ``2k + 1``
are twins (same pronoun and candidates, all 661 training pairs checked); 66 twin pairs
(10%) drawn by ``numpy.random.default_rng(seed)`` are ``dev`` (132 sentences), the other 595
``train`` (1,190), so no twin is split across train and dev.

The Winograd Schema Collection (``WSCollection.xml``, 283 schemas) is not converted: its answers
paraphrase the mentions ("The son" for "his son", "the suitcase" for "the brown suitcase",
"Kamchatka" for "Kamtchatka"), and 114 of its 566 answers cannot be located in the text
without hand alignment.

**OntoNotes tasks (bring your own data).** Constituents, POS (OntoNotes), entities, SRL and
OntoNotes coreference come from the LDC-licensed OntoNotes 5.0 and are not distributed. Convert
CoNLL-2012-formatted OntoNotes to the JSON-lines format (as jiant's
``probing/data/extract_ontonotes_all.py`` does) and read it with
:func:`~wordlens.probing.edges.read_edge_probing`. Every line is one sentence: ``text`` = its
OntoNotes (Penn Treebank) tokens joined by single spaces, ``info`` = ``{"document_id": ...,
"sentence_id": ...}``; spans are end-exclusive token offsets. Per task:

- *Constituents*: one target per non-terminal node of the parse tree, ``span1`` = the tokens it
  covers, ``label`` = its category without function tags or indices (``NP-SBJ-1`` -> ``NP``);
  no ``span2``. 30 labels.
- *POS*: one target per token (the pre-terminals of the tree), ``span1`` = ``[i, i + 1)``,
  ``label`` = the PTB tag (48 labels). jiant writes constituents and POS together with
  ``info["height"]`` (1 for pre-terminals) and splits them by height.
- *Entities*: one target per named-entity mention (the BIO spans of the NER column),
  ``span1`` = the mention, ``label`` = its type (``PERSON``, ``ORG``, ``GPE``, ...; 18 labels).
- *SRL*: one line per predicate frame (the same sentence once per predicate): ``span1`` = the
  predicate (``V``) span, ``span2`` = an argument span, ``label`` = its role (``ARG0``,
  ``ARGM-TMP``, ...; 66 labels), one target per argument.
- *Coreference*: within a sentence, one target per pair of mentions (``span1`` the earlier,
  ``span2`` the later), ``label`` ``"1"`` when both are in the same coreference cluster, else
  ``"0"`` (OntoNotes marks only positive links; the negatives are all other pairs).

References
----------
Tenney, I., Xia, P., Chen, B., Wang, A., Poliak, A., McCoy, R. T., Kim, N., Van Durme, B.,
Bowman, S. R., Das, D., & Pavlick, E. (2019). What do you learn from context? Probing for sentence
structure in contextualized word representations. *ICLR 2019*. Section 2.2 (data), Appendix B
(statistics), Appendix C (validation interval).

Silveira, N., Dozat, T., de Marneffe, M.-C., Bowman, S., Connor, M., Bauer, J., & Manning, C. D.
(2014). A gold standard dependency corpus for English. *LREC 2014*.

Hendrickx, I., et al. (2010). SemEval-2010 Task 8: Multi-way classification of semantic relations
between pairs of nominals. *SemEval 2010*.

White, A. S., et al. (2020). The Universal Decompositional Semantics dataset and Decomp toolkit.
*LREC 2020*.

Rahman, A., & Ng, V. (2012). Resolving complex cases of definite pronouns: The Winograd schema
challenge. *EMNLP-CoNLL 2012*.
"""

from __future__ import annotations

import functools
import gzip
import itertools
import json
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np

from wordlens.errors import WordlensError
from wordlens.probing.edges import EdgeExample, EdgeTarget, Span
from wordlens.resources.probing_sets import DPR, SEMEVAL, UDS_PROTOROLES
from wordlens.resources.registry import get_resource, register_loader
from wordlens.resources.tagger import UPOS, ewt_path

Split = Literal["train", "dev", "test"]
SPLITS: tuple[Split, ...] = get_args(Split)

SEMEVAL_DEV_SIZE = 1100
"""SemEval training examples held out as ``dev`` (Tenney et al. 2019, Appendix B: 6.9K / 1.1K)."""
DPR_DEV_PAIRS = 66
"""DPR twin pairs (10% of the 661 training pairs) held out as ``dev``."""
SPR_THRESHOLD = 0.5
"""A proto-role property is a label of an edge when its normalized value exceeds this."""
NON_CORE_PROPERTIES = frozenset({"location", "manner", "purpose", "time"})
"""The UDS proto-role properties of non-core edges (annotated without the 14 argument ones)."""
SPR_ARGUMENTS_ONLY = True
"""Default SPR target set: the predicate-argument edges only, as jiant's SPR2 (module notes)."""
NO_BREAK_SPACE = "\u00a0"
"""Stands in for a space inside a word form, so that ``text.split(" ")`` gives the words."""

_WORD = re.compile(
    r"""
      (?:[A-Za-z]\.){2,}                             # abbreviations: U.S., e.g.
    | \d+(?:[.,:/]\d+)+                              # numbers: 3.5, 1,000, 8:35, 1/2
    | \w+(?=n['’]t\b)                                # the stem before n't: do|n't, ca|n't
    | n['’]t\b                                       # the clitic n't
    | (?<=\w)['’](?:s|re|ve|ll|d|m)\b                # clitics: 's 're 've 'll 'd 'm
    | \w+(?:(?:[-&]|['’](?!(?:s|re|ve|ll|d|m)\b))\w+)*  # words; inner - & ' kept: T-Mobile, O'Brien
    | [^\w\s]                                        # any other character: punctuation, symbols
    """,
    re.VERBOSE | re.IGNORECASE,
)
_SEMEVAL_SENTENCE = re.compile(r'^(\d+)\t"(.*)"$')
_SEMEVAL_TAG = re.compile(r"<(/?)(e[12])>")
_SEMEVAL_RELATION = re.compile(r"^(?:Other|[A-Z][a-z]+-[A-Z][a-z]+\((?:e1,e2|e2,e1)\))$")
_WHITESPACE = re.compile(r"\s")
_UDS_NODE = re.compile(r"^(ewt-(?:train|dev|test)-\d+)-semantics-(pred|arg)-(\d+)$")


class SourceFormatError(WordlensError, ValueError):
    """A source data file (CoNLL-U, SemEval, UDS, DPR) is malformed; the message names the file
    and line or record."""


class ProbingTaskError(WordlensError, ValueError):
    """An unknown probing task or split."""


@dataclass(frozen=True)
class ProbingTaskInfo:
    """What a probing task is and how Tenney et al. (2019) train its probe.

    Attributes
    ----------
    name
        Task name for :func:`load_probing_task`.
    description
        The task and its source data.
    two_spans
        Whether targets have ``span2`` (a relation between two spans).
    multi_label
        Whether a target can carry several labels (else exactly one).
    validate_every
        Training steps between validations (Appendix C: every 1000 steps, or every 100 for SPR1,
        SPR2 and Winograd).
    max_validations
        Validations after which training stops even if still improving: jiant v1's ``max_vals``
        for the task's template in ``config/defaults.conf`` (``edges-tmpl-large``, 250, for
        the UD EWT tasks; ``edges-tmpl-small``, 100, for SemEval, SPR and DPR).
    """

    name: str
    description: str
    two_spans: bool
    multi_label: bool
    validate_every: int
    max_validations: int


@dataclass(frozen=True)
class UdSentence:
    """The syntactic words of one CoNLL-U sentence.

    Attributes
    ----------
    sent_id
        The ``# sent_id`` comment, or ``None``.
    forms, upos, deprels
        FORM, UPOS and DEPREL of each word (integer-ID lines).
    heads
        HEAD of each word: 1-based word index, 0 for the root.
    """

    sent_id: str | None
    forms: tuple[str, ...]
    upos: tuple[str, ...]
    heads: tuple[int, ...]
    deprels: tuple[str, ...]


# ---------------------------------------------------------------------------------------------
# Tokenization


def word_spans(text: str, cuts: Iterable[int] = ()) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the words of ``text`` (the module's tokenizer).

    Parameters
    ----------
    text
        Raw text.
    cuts
        Character offsets that must be token boundaries: a word running across one is split
        there (SemEval's ``The<e1>staff</e1>`` gives ``The`` and ``staff``).
    """
    bounds = sorted(set(cuts))
    spans: list[tuple[int, int]] = []
    for match in _WORD.finditer(text):
        start, end = match.span()
        inner = [cut for cut in bounds if start < cut < end]
        spans.extend(itertools.pairwise([start, *inner, end]))
    return spans


def tokenize(text: str) -> list[str]:
    """The words of ``text``, see :func:`word_spans`."""
    return [text[start:end] for start, end in word_spans(text)]


# ---------------------------------------------------------------------------------------------
# UD English EWT: part of speech and dependencies


def read_ud_sentences(path: Path) -> list[UdSentence]:
    """The sentences of a CoNLL-U file (``.gz`` read transparently), syntactic words only.

    Multiword-token ranges (``3-4``) and empty nodes (``5.1``) are skipped.

    Raises
    ------
    SourceFormatError
        A word line without 10 tab-separated fields, an unknown UPOS tag, a HEAD that is not a
        word of the sentence, or a file without sentences (file and line).
    """
    sentences: list[UdSentence] = []
    sent_id: str | None = None
    words: list[tuple[int, list[str]]] = []
    with _open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\n")
            if line.startswith("# sent_id ="):
                sent_id = line.split("=", 1)[1].strip()
            elif not line.strip():
                if words:
                    sentences.append(_ud_sentence(path, sent_id, words))
                sent_id, words = None, []
            elif not line.startswith("#"):
                fields = line.split("\t")
                if len(fields) != 10:
                    raise SourceFormatError(
                        f"{path}, line {number}: expected 10 tab-separated fields, found "
                        f"{len(fields)}"
                    )
                if fields[0].isdigit():
                    words.append((number, fields))
    if words:
        sentences.append(_ud_sentence(path, sent_id, words))
    if not sentences:
        raise SourceFormatError(f"{path}: no CoNLL-U sentences")
    return sentences


def _ud_sentence(path: Path, sent_id: str | None, words: list[tuple[int, list[str]]]) -> UdSentence:
    for number, fields in words:
        if fields[3] not in UPOS:
            raise SourceFormatError(f"{path}, line {number}: unknown UPOS tag {fields[3]!r}")
        if not fields[6].isdigit() or int(fields[6]) > len(words):
            raise SourceFormatError(
                f"{path}, line {number}: HEAD {fields[6]!r} is not a word of the sentence "
                f"(1..{len(words)}, or 0 for the root)"
            )
    return UdSentence(
        sent_id=sent_id,
        forms=tuple(fields[1] for _, fields in words),
        upos=tuple(fields[3] for _, fields in words),
        heads=tuple(int(fields[6]) for _, fields in words),
        deprels=tuple(fields[7] for _, fields in words),
    )


def pos_examples(sentences: Sequence[UdSentence]) -> list[EdgeExample]:
    """One example per sentence, one target per word: ``span1`` = the word, label = its UPOS."""
    return [
        _ud_example(
            sentence,
            tuple(
                EdgeTarget(span1=(index, index + 1), labels=(upos,))
                for index, upos in enumerate(sentence.upos)
            ),
        )
        for sentence in sentences
    ]


def dependency_examples(
    sentences: Sequence[UdSentence], *, universal_only: bool = False
) -> list[EdgeExample]:
    """One target per word: ``span1`` = the dependent, ``span2`` = its head, label = DEPREL.

    The root's ``span2`` is its own ``span1`` (label ``root``). ``universal_only`` strips
    language-specific subtypes (``nmod:poss`` -> ``nmod``).
    """
    return [
        _ud_example(
            sentence,
            tuple(
                EdgeTarget(
                    span1=(index, index + 1),
                    labels=(deprel.split(":")[0] if universal_only else deprel,),
                    span2=(head - 1, head) if head else (index, index + 1),
                )
                for index, (head, deprel) in enumerate(
                    zip(sentence.heads, sentence.deprels, strict=True)
                )
            ),
        )
        for sentence in sentences
    ]


def _ud_example(sentence: UdSentence, targets: tuple[EdgeTarget, ...]) -> EdgeExample:
    return EdgeExample(
        text=_join_words(sentence.forms),
        targets=targets,
        info={"source": "UD_English-EWT", "sent_id": sentence.sent_id},
    )


def _join_words(forms: Iterable[str]) -> str:
    return " ".join(_WHITESPACE.sub(NO_BREAK_SPACE, form) for form in forms)


def load_pos(split: Split = "train", *, path: Path | None = None) -> list[EdgeExample]:
    """Part-of-speech targets of one EWT split (see :func:`pos_examples`).

    Parameters
    ----------
    split
        ``train`` (12,544 sentences), ``dev`` (2,001) or ``test`` (2,077).
    path
        A data root holding ``probing/ud_english_ewt/``, instead of the usual resolution.
    """
    return pos_examples(read_ud_sentences(ewt_path(_checked_split(split), path)))


def load_dependencies(
    split: Split = "train", *, universal_only: bool = False, path: Path | None = None
) -> list[EdgeExample]:
    """Dependency-labelling targets of one EWT split (see :func:`dependency_examples`)."""
    sentences = read_ud_sentences(ewt_path(_checked_split(split), path))
    return dependency_examples(sentences, universal_only=universal_only)


# ---------------------------------------------------------------------------------------------
# SemEval-2010 Task 8: relation classification


def read_semeval(path: Path) -> list[EdgeExample]:
    """The examples of a SemEval-2010 Task 8 file (``TRAIN_FILE.TXT``, ``TEST_FILE_FULL.TXT``).

    Each example is three lines and a blank line: ``<id>\\t"<sentence>"``, the relation label and
    ``Comment: ...``. The sentence, without its ``<e1>``/``<e2>`` tags, is tokenized by
    :func:`word_spans`, cut at the tags; ``span1``/``span2`` are the tokens inside
    ``<e1>``/``<e2>``; the label is the directed relation (``Cause-Effect(e2,e1)``) or ``Other``.

    Raises
    ------
    SourceFormatError
        A block that is not three lines, a malformed sentence line or label, or entity tags that
        are missing, repeated, nested or empty (file and line).
    """
    examples = []
    for number, block in _blocks(path):
        if len(block) != 3:
            raise SourceFormatError(
                f"{path}, line {number}: expected 3 lines (sentence, label, comment), found "
                f"{len(block)}"
            )
        try:
            examples.append(_semeval_example(*block))
        except SourceFormatError as error:
            raise SourceFormatError(f"{path}, line {number}: {error}") from error
    return examples


def _semeval_example(sentence_line: str, label: str, comment: str) -> EdgeExample:
    match = _SEMEVAL_SENTENCE.match(sentence_line)
    if match is None:
        raise SourceFormatError(f'expected <id><TAB>"<sentence>", found {sentence_line!r}')
    if not _SEMEVAL_RELATION.match(label):
        raise SourceFormatError(f"not a relation label: {label!r}")
    if not comment.startswith("Comment:"):
        raise SourceFormatError(f"expected a 'Comment:' line, found {comment!r}")
    text, entities = _strip_entity_tags(match.group(2))
    spans = word_spans(text, cuts=[offset for bounds in entities.values() for offset in bounds])
    tokens = [text[start:end] for start, end in spans]
    entity_spans = {name: _token_span(spans, bounds, name) for name, bounds in entities.items()}
    target = EdgeTarget(
        span1=entity_spans["e1"],
        labels=(label,),
        span2=entity_spans["e2"],
        info={"comment": comment.removeprefix("Comment:").strip()},
    )
    return EdgeExample(
        text=" ".join(tokens),
        targets=(target,),
        info={"source": "SemEval-2010 Task 8", "id": int(match.group(1))},
    )


def _strip_entity_tags(tagged: str) -> tuple[str, dict[str, tuple[int, int]]]:
    """The sentence without tags and each entity's character span in it."""
    pieces: list[str] = []
    opened: dict[str, int] = {}
    entities: dict[str, tuple[int, int]] = {}
    position = 0
    for match in _SEMEVAL_TAG.finditer(tagged):
        pieces.append(tagged[position : match.start()])
        position = match.end()
        offset = sum(len(piece) for piece in pieces)
        closing, name = match.group(1) == "/", match.group(2)
        if not closing and (name in opened or name in entities or opened):
            raise SourceFormatError(f"<{name}> repeated or nested in {tagged!r}")
        if closing and name not in opened:
            raise SourceFormatError(f"</{name}> without <{name}> in {tagged!r}")
        if closing:
            entities[name] = (opened.pop(name), offset)
        else:
            opened[name] = offset
    pieces.append(tagged[position:])
    if set(entities) != {"e1", "e2"}:
        raise SourceFormatError(f"expected one <e1>...</e1> and one <e2>...</e2> in {tagged!r}")
    return "".join(pieces), entities


def _token_span(spans: Sequence[tuple[int, int]], bounds: tuple[int, int], name: str) -> Span:
    inside = [i for i, (start, end) in enumerate(spans) if bounds[0] <= start and end <= bounds[1]]
    if not inside:
        raise SourceFormatError(f"entity {name} holds no word")
    return (inside[0], inside[-1] + 1)


def load_semeval(
    split: Split = "train", *, seed: int = 0, path: Path | None = None
) -> list[EdgeExample]:
    """One split of SemEval-2010 Task 8 (see :func:`read_semeval`).

    Parameters
    ----------
    split
        ``test``: the 2,717 test examples. ``train`` / ``dev``: the 8,000 training examples split
        6,900 / 1,100 by ``seed`` (see the module docstring).
    seed
        Seed of the train/dev split.
    path
        A data root holding ``probing/semeval2010_task8/``.
    """
    return _semeval_split(get_resource(SEMEVAL).paths(path), _checked_split(split), seed=seed)


def _semeval_split(paths: Sequence[Path], split: Split, *, seed: int = 0) -> list[EdgeExample]:
    train_path, test_path = paths
    if split == "test":
        return read_semeval(test_path)
    return _train_dev(read_semeval(train_path), split, SEMEVAL_DEV_SIZE, seed, group_size=1)


def _train_dev(
    examples: Sequence[EdgeExample], split: Split, n_dev_groups: int, seed: int, group_size: int
) -> list[EdgeExample]:
    """The ``train`` or ``dev`` part of ``examples``, in file order.

    Consecutive runs of ``group_size`` examples form groups; ``n_dev_groups`` groups, drawn
    without replacement by ``numpy.random.default_rng(seed)``, are ``dev``, the rest ``train``.
    """
    n_groups = -(-len(examples) // group_size)
    if not 0 < n_dev_groups < n_groups:
        raise SourceFormatError(
            f"cannot hold out {n_dev_groups} of {n_groups} groups of examples as dev"
        )
    is_dev = np.zeros(n_groups, dtype=bool)
    is_dev[np.random.default_rng(seed).choice(n_groups, size=n_dev_groups, replace=False)] = True
    want_dev = split == "dev"
    return [ex for i, ex in enumerate(examples) if is_dev[i // group_size] == want_dev]


# ---------------------------------------------------------------------------------------------
# Semantic proto-roles (UDS 1.0 on EWT)


def spr_examples(
    annotations: Mapping[str, Any],
    ud_ids: Mapping[str, Any],
    sentences: Sequence[UdSentence],
    split: Split,
    *,
    threshold: float = SPR_THRESHOLD,
    arguments_only: bool = SPR_ARGUMENTS_ONLY,
) -> list[EdgeExample]:
    """Proto-role targets of the UDS sentences of ``split``, joined with their EWT sentences.

    Parameters
    ----------
    annotations
        The ``"data"`` object of UDS ``protoroles.json``: ``{uds_sentence_id: {"<pred node>%%<arg
        node>": {"protoroles": {property: {"value": v, "confidence": c}}}}}``.
    ud_ids
        UDS ``ud_ids.json``: ``{uds_sentence_id: {"sentence_id": EWT sent_id, ...}}``.
    sentences
        The EWT sentences of ``split`` (:func:`read_ud_sentences`).
    split
        Which UDS sentences to convert (``ewt-<split>-<n>``).
    threshold
        A property is a label when its normalized value is above it.
    arguments_only
        Targets are the edges annotated with the 14 argument properties only (default, as
        jiant's SPR2: module notes); the edges annotated only with the
        :data:`NON_CORE_PROPERTIES` are left out and counted. ``False``: every edge, each a
        negative for the properties not annotated on it unless masked by ``info["annotated"]``.

    Returns
    -------
    list[EdgeExample]
        One example per annotated sentence with a target, in EWT order; one target per edge,
        ``span1`` = the predicate's head word, ``span2`` = the argument's head word, labels = the
        properties above ``threshold`` (sorted; possibly none). Target ``info["annotated"]``
        lists the properties annotated on the edge; example ``info["arguments_only"]`` records
        the choice and ``info["non_core_edges_left_out"]`` the sentence's edges it left out.

    Warns
    -----
    UserWarning
        When edges are dropped because their sentence is not in ``ud_ids`` or not among
        ``sentences``, or a head index is outside the sentence; and, with ``arguments_only``,
        when a sentence is left out because all its edges are non-core (none in UDS 1.0).
    """
    by_sent_id = {
        sentence.sent_id: (order, sentence)
        for order, sentence in enumerate(sentences)
        if sentence.sent_id is not None
    }
    converted: list[tuple[int, EdgeExample]] = []
    dropped = 0
    only_non_core: list[str] = []
    for uds_id, edges in annotations.items():
        if not uds_id.startswith(f"ewt-{split}-"):
            continue
        found = by_sent_id.get(ud_ids.get(uds_id, {}).get("sentence_id"))
        if found is None:
            dropped += len(edges)
            continue
        order, sentence = found
        chosen = [
            (key, edge)
            for key, edge in edges.items()
            if not arguments_only or set(edge["protoroles"]) - NON_CORE_PROPERTIES
        ]
        if not chosen:  # none in UDS 1.0: every sentence has an argument edge
            only_non_core.append(uds_id)
            continue
        targets = [_spr_target(uds_id, key, edge, threshold) for key, edge in chosen]
        n_words = len(sentence.forms)
        kept = [t for t in targets if all(end <= n_words for _, end in t.spans)]
        dropped += len(targets) - len(kept)
        if kept:
            example = EdgeExample(
                text=_join_words(sentence.forms),
                targets=tuple(sorted(kept, key=lambda target: target.spans)),
                info={
                    "source": "UDS 1.0 protoroles",
                    "uds_id": uds_id,
                    "sent_id": sentence.sent_id,
                    "arguments_only": arguments_only,
                    "non_core_edges_left_out": len(edges) - len(chosen),
                },
            )
            converted.append((order, example))
    if dropped:
        warnings.warn(
            f"SPR {split}: dropped {dropped} edge(s) whose sentence is missing from the UD ids or "
            "the EWT split, or whose head index is outside the sentence",
            stacklevel=2,
        )
    if only_non_core:
        warnings.warn(
            f"SPR {split}: left out {len(only_non_core)} sentence(s) whose edges are all non-core "
            f"({', '.join(only_non_core[:5])}); arguments_only=False keeps them",
            stacklevel=2,
        )
    return [example for _, example in sorted(converted, key=lambda pair: pair[0])]


def _spr_target(uds_id: str, key: str, edge: Mapping[str, Any], threshold: float) -> EdgeTarget:
    predicate, argument = (_uds_head(uds_id, node) for node in key.split("%%"))
    properties = edge["protoroles"]
    return EdgeTarget(
        span1=(predicate - 1, predicate),
        labels=tuple(sorted(p for p, rating in properties.items() if rating["value"] > threshold)),
        span2=(argument - 1, argument),
        info={"annotated": sorted(properties)},
    )


def _uds_head(uds_id: str, node: str) -> int:
    """The 1-based head-word index of a UDS node id ``<uds_id>-semantics-<pred|arg>-<k>``."""
    match = _UDS_NODE.match(node)
    if match is None or match.group(1) != uds_id or int(match.group(3)) < 1:
        raise SourceFormatError(f"UDS sentence {uds_id}: not a node id of it: {node!r}")
    return int(match.group(3))


def load_spr(
    split: Split = "train",
    *,
    threshold: float = SPR_THRESHOLD,
    arguments_only: bool = SPR_ARGUMENTS_ONLY,
    path: Path | None = None,
) -> list[EdgeExample]:
    """Semantic proto-role targets of one split (see :func:`spr_examples`).

    Parameters
    ----------
    split
        ``train`` (2,191 sentences, 4,874 argument edges of 5,669), ``dev`` (291, 632 of 751)
        or ``test`` (276, 582 of 670).
    threshold
        A property is a label when its normalized value exceeds it (default
        :data:`SPR_THRESHOLD`; see the module docstring).
    arguments_only
        Only the predicate-argument edges (default, as jiant's SPR2), or every edge with
        ``False``; see :func:`spr_examples`.
    path
        A data root holding ``probing/spr_uds/`` and ``probing/ud_english_ewt/``.
    """
    paths = get_resource(UDS_PROTOROLES).paths(path)
    return _spr_split(
        paths,
        _checked_split(split),
        threshold=threshold,
        arguments_only=arguments_only,
        ewt_root=path,
    )


def _spr_split(
    paths: Sequence[Path],
    split: Split,
    *,
    threshold: float = SPR_THRESHOLD,
    arguments_only: bool = SPR_ARGUMENTS_ONLY,
    ewt_root: Path | None = None,
) -> list[EdgeExample]:
    protoroles_path, ud_ids_path = paths
    protoroles = _read_json(protoroles_path)
    if not isinstance(protoroles, dict) or not isinstance(protoroles.get("data"), dict):
        raise SourceFormatError(f"{protoroles_path}: expected an object with a 'data' object")
    sentences = read_ud_sentences(ewt_path(split, ewt_root))
    return spr_examples(
        protoroles["data"],
        _read_json(ud_ids_path),
        sentences,
        split,
        threshold=threshold,
        arguments_only=arguments_only,
    )


# ---------------------------------------------------------------------------------------------
# Definite Pronoun Resolution (Winograd-style coreference)


def read_dpr(path: Path) -> list[EdgeExample]:
    """The examples of a DPR file (``train.c.txt``, ``test.c.txt``).

    Each example is four lines and a blank line: the sentence, the target pronoun, the two
    candidate antecedents separated by a comma, the correct antecedent. Two targets per sentence,
    one per candidate: ``span2`` = the candidate's first occurrence, ``span1`` = the pronoun's
    first occurrence after both candidates (whole tokens, case-insensitively; see the module
    docstring), label ``"1"`` for the correct antecedent and ``"0"`` for the other.
    ``info["index"]`` is the example's position in the file (twins are ``2k`` and ``2k + 1``).

    Raises
    ------
    SourceFormatError
        A block that is not four lines, a candidates line without exactly one comma, or a correct
        antecedent that is not one of the candidates (file and line).

    Warns
    -----
    UserWarning
        When a candidate is not found in its sentence (its target is dropped) or the pronoun is
        not found after the candidates (the example is dropped).
    """
    examples: list[EdgeExample] = []
    missing: list[str] = []
    for index, (number, block) in enumerate(_blocks(path)):
        if len(block) != 4:
            raise SourceFormatError(
                f"{path}, line {number}: expected 4 lines (sentence, pronoun, candidates, "
                f"answer), found {len(block)}"
            )
        try:
            example = _dpr_example(index, block, missing)
        except SourceFormatError as error:
            raise SourceFormatError(f"{path}, line {number}: {error}") from error
        if example is not None:
            examples.append(example)
    if missing:
        warnings.warn(
            f"{path}: {len(missing)} mention(s) not found in their sentence and dropped: "
            + "; ".join(missing[:5]),
            stacklevel=2,
        )
    return examples


def _dpr_example(index: int, block: Sequence[str], missing: list[str]) -> EdgeExample | None:
    sentence, pronoun, candidates_line, answer = block
    candidates = [candidate.strip() for candidate in candidates_line.split(",")]
    if len(candidates) != 2 or not all(candidates):
        raise SourceFormatError(f"expected two comma-separated candidates: {candidates_line!r}")
    if answer.strip() not in candidates:
        raise SourceFormatError(f"answer {answer!r} is not one of {candidates}")
    tokens = tokenize(sentence)
    candidate_spans = {}
    for candidate in candidates:
        span = _find_tokens(tokens, tokenize(candidate))
        if span is None:
            missing.append(f"candidate {candidate!r} in {sentence!r}")
        else:
            candidate_spans[candidate] = span
    after_candidates = max((end for _, end in candidate_spans.values()), default=0)
    pronoun_span = _find_tokens(tokens, tokenize(pronoun), after_candidates)
    if pronoun_span is None:
        missing.append(f"pronoun {pronoun!r} after the candidates in {sentence!r}")
        return None
    targets = tuple(
        EdgeTarget(
            span1=pronoun_span, labels=("1" if candidate == answer.strip() else "0",), span2=span
        )
        for candidate, span in candidate_spans.items()
    )
    return EdgeExample(
        text=" ".join(tokens), targets=targets, info={"source": "DPR", "index": index}
    )


def _find_tokens(tokens: Sequence[str], wanted: Sequence[str], start: int = 0) -> Span | None:
    """The first span of ``tokens`` at or after ``start`` equal to ``wanted``, ignoring case."""
    folded = [token.casefold() for token in tokens]
    target = [token.casefold() for token in wanted]
    for begin in range(start, len(folded) - len(target) + 1):
        if target and folded[begin : begin + len(target)] == target:
            return (begin, begin + len(target))
    return None


def load_dpr(
    split: Split = "train", *, seed: int = 0, path: Path | None = None
) -> list[EdgeExample]:
    """One split of DPR (see :func:`read_dpr`).

    Parameters
    ----------
    split
        ``test``: the 564 test examples. ``train`` / ``dev``: the 1,322 training examples, whose
        661 twin pairs are split 595 / 66 by ``seed`` (see the module docstring).
    seed
        Seed of the train/dev split.
    path
        A data root holding ``probing/winograd/``.
    """
    return _dpr_split(get_resource(DPR).paths(path), _checked_split(split), seed=seed)


def _dpr_split(paths: Sequence[Path], split: Split, *, seed: int = 0) -> list[EdgeExample]:
    train_path, test_path = paths
    if split == "test":
        return read_dpr(test_path)
    train = read_dpr(train_path)
    return _train_dev(train, split, DPR_DEV_PAIRS, seed, group_size=2)


# ---------------------------------------------------------------------------------------------
# Tasks

PROBING_TASKS: dict[str, ProbingTaskInfo] = {
    "pos": ProbingTaskInfo(
        "pos", "part of speech (17 UPOS tags) of each word, UD English EWT", False, False, 1000,
        250,
    ),
    "dep": ProbingTaskInfo(
        "dep", "dependency relation of each word to its head, UD English EWT", True, False, 1000,
        250,
    ),
    "rel": ProbingTaskInfo(
        "rel", "directed relation between two nominals (19 labels), SemEval-2010 Task 8", True,
        False, 1000, 100,
    ),
    "spr": ProbingTaskInfo(
        "spr", "semantic proto-role properties of a predicate-argument pair (14 properties; the "
        "argument edges only, as jiant's SPR2), UDS 1.0 on UD English EWT", True, True, 100, 100,
    ),
    "winograd": ProbingTaskInfo(
        "winograd", "whether a pronoun corefers with a candidate antecedent, Definite Pronoun "
        "Resolution (Rahman & Ng 2012)", True, False, 100, 100,
    ),
}  # fmt: skip
"""The tasks of :func:`load_probing_task`."""

_TASK_LOADERS: dict[str, Callable[..., list[EdgeExample]]] = {
    "pos": load_pos,
    "dep": load_dependencies,
    "rel": load_semeval,
    "spr": load_spr,
    "winograd": load_dpr,
}
_RESOURCE_SPLITS: dict[str, Callable[..., list[EdgeExample]]] = {
    SEMEVAL: _semeval_split,
    UDS_PROTOROLES: _spr_split,
    DPR: _dpr_split,
}


def probing_task_info(name: str) -> ProbingTaskInfo:
    """The description of task ``name`` (see :data:`PROBING_TASKS`).

    Raises
    ------
    ProbingTaskError
        For an unknown name; the message lists the known ones.
    """
    if name not in PROBING_TASKS:
        raise ProbingTaskError(
            f"unknown probing task {name!r}; choose one of {', '.join(PROBING_TASKS)}"
        )
    return PROBING_TASKS[name]


def load_probing_task(name: str, split: str, *, path: Path | None = None) -> list[EdgeExample]:
    """The examples of one split of a probing task, with each converter's defaults.

    Parameters
    ----------
    name
        ``pos``, ``dep``, ``rel``, ``spr`` or ``winograd`` (see :data:`PROBING_TASKS`).
    split
        ``train``, ``dev`` or ``test``.
    path
        A data root laid out like the shared data folder, instead of the usual resolution.

    Raises
    ------
    ProbingTaskError
        An unknown task or split.
    """
    probing_task_info(name)
    return _TASK_LOADERS[name](_checked_split(split), path=path)


def convert_resource_files(
    resource: str, paths: Sequence[Path], split: str = "train", **options: Any
) -> list[EdgeExample]:
    """The examples of one split from the resolved files of a registered resource: the loader of
    the resources in :mod:`wordlens.resources.probing_sets`, registered with them when this
    module is imported (that module imports nothing from probing)."""
    return _RESOURCE_SPLITS[resource](paths, _checked_split(split), **options)


for _resource in _RESOURCE_SPLITS:
    register_loader(_resource, functools.partial(convert_resource_files, _resource))


def _checked_split(split: str) -> Split:
    if split not in SPLITS:
        raise ProbingTaskError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")
    return split


# ---------------------------------------------------------------------------------------------
# Files


def _open_text(path: Path) -> Any:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def _read_json(path: Path) -> Any:
    with _open_text(path) as handle:
        try:
            return json.load(handle)
        except json.JSONDecodeError as error:
            raise SourceFormatError(f"{path}: invalid JSON: {error}") from error


def _blocks(path: Path) -> Iterator[tuple[int, list[str]]]:
    """Runs of non-blank lines (CRLF or LF) and the line number where each starts."""
    block: list[str] = []
    start = 0
    with _open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if line.strip():
                start = start if block else number
                block.append(line)
            elif block:
                yield start, block
                block = []
    if block:
        yield start, block
