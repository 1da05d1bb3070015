"""The findings whose words the papers' own printed numbers do not support (issue 38): each
check tests the words, so on the published values its verdict is "does not hold". Every other
check on printed numbers holds on the published values."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SelfContradiction:
    """A finding the paper's own numbers contradict.

    Attributes
    ----------
    paper, finding
        The paper and the finding's id.
    words
        The paper's words (part of the finding's quote) that its numbers contradict.
    cells
        The contradicting cells with their published values, as the published evidence names
        them.
    """

    paper: str
    finding: str
    words: str
    cells: tuple[str, ...]


SELF_CONTRADICTIONS = (
    SelfContradiction(
        "probing",
        "elmo-gpt-comparable",
        "with ELMo slightly better on most tasks",
        (
            "Table 2 ELMo Full above GPT mix on 4 of 10 tasks, more than 5 needed",
            "above: part-of-speech 96.7 vs 95.0, entities 95.6 vs 92.5, srl-all 90.1 vs 89.7, "
            "spr1 84.8 vs 83.1",
            "tied: constituents 84.6 vs 84.6",
            "below: dependencies 93.9 vs 94.1, ontonotes-coref 84.0 vs 86.3, spr2 83.1 vs 83.5, "
            "winograd-coref 53.5 vs 53.8, rel-semeval 77.8 vs 81.0",
        ),
    ),
    SelfContradiction(
        "probing",
        "lexical-beats-glove-except-winograd",
        "on all tasks except for Winograd coreference, the lexical representations used by the "
        "ELMo and GPT models outperform GloVe vectors",
        (
            "17 of 18 hold (does not hold: ontonotes-coref GPT Lex. 71.8 vs GloVe (CoVe Lex.) "
            "72.9 |",
        ),
    ),
    SelfContradiction(
        "asymmetry",
        "bert-beats-static-on-cam",
        "BERT, especially BERT-large, has a stronger correlation with the three datasets than "
        "any other static embedding",
        (
            "5 of 6 hold (does not hold: FA mean CAM bert 0.362 (.44 .30 .33 .43 .33 .34) vs "
            "best static glv 0.403 (.41 .31 .44 .44 .47 .35) (-0.042) |",
        ),
    ),
    SelfContradiction(
        "asymmetry",
        "cam-grows-with-size-except-electra",
        "grow with the number of parameters",
        (
            "5 of 6 hold (does not hold: ALBERT albert-xl (58M) 0.357 (.39 .26 .37 .45 .43 .24) "
            "-> albert-xxl (223M) 0.357 (.39 .25 .37 .43 .44 .26): does not grow (+0.000) |",
        ),
    ),
)
"""Every self-contradiction found in the five papers' checks on printed numbers."""


def contradicted(paper: str) -> set[str]:
    """The ids of ``paper``'s findings its own printed numbers contradict."""
    return {entry.finding for entry in SELF_CONTRADICTIONS if entry.paper == paper}
