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
        "probing",
        "lexical-over-glove-averages",
        "(by 5.4 and 2.4 points on average, respectively)",
        (
            "0 of 2 hold",
            "ELMo Lex. - GloVe stated 5.4: Table 2 Macro Average ELMo Lex. 75.4 - GloVe (CoVe "
            "Lex.) 69.1 = +6.3; the nine tasks but Winograd: mean +6.7 over 9",
            "margin -0.85 to printing as 5.4",
            "GPT Lex. - GloVe stated 2.4: Table 2 Macro Average GPT Lex. 73.0 - GloVe (CoVe "
            "Lex.) 69.1 = +3.9; the nine tasks but Winograd: mean +4.4 over 9",
            "margin -1.45 to printing as 2.4",
        ),
    ),
    SelfContradiction(
        "probing",
        "bert-large-gaps",
        "besting BERT-base by 1.1 F1 points and ELMo by 2.7 F1",
        (
            "0 of 2 hold",
            "over BERT-base stated 1.1: Table 2 Macro Average BERT-large Abs. (base) 1.0 "
            "(BERT-large mix 87.3 - BERT-base mix 86.3); margin -0.05 to printing as 1.1",
            "over ELMo stated 2.7: Table 2 Macro Average BERT-large Abs. ELMo 2.9 (BERT-large mix "
            "87.3 - ELMo Full 84.4); margin -0.15 to printing as 2.7",
        ),
    ),
    SelfContradiction(
        "sense-bias",
        "sense-gap-larger-in-lmms",
        "is more in LMMS compared to that in ARES",
        (
            "1 of 2 hold (does not hold: nationality vs language: LMMS |7.01 - 8.23| = 1.22 vs "
            "ARES |5.75 - 7.38| = 1.63 (-0.41) |",
            "holds: black (ethnicity) vs black (colour): LMMS |4.64 - 1.64| = 3.00 vs ARES "
            "|5.67 - 4.83| = 0.84 (+2.16)",
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
