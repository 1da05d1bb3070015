"""Options of the sense-bias method (``wordlens sense-bias``): the only place their defaults
live."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from wordlens import help_texts
from wordlens.contexts import GLOSS_TEMPLATE
from wordlens.errors import WordlensError
from wordlens.models.base import Pooling, check_pooling
from wordlens.options import SEED_MAX, option
from wordlens.resources.association_norms import GENDER_LEXICA, NORMS
from wordlens.resources.gender_words import PAIR_SETS

NAME = "sense-bias"
"""The method's registered name (its command)."""

N_DRAWS = 5_000
"""Draws per SSSB score (``range(5000)`` in ``eval-sssb-sense.py:39`` and ``:57``)."""

Experiment = Literal["weat", "wat", "gender-direction", "sssb", "dimensions"]
EXPERIMENTS: tuple[Experiment, ...] = get_args(Experiment)
WAT_REFERENCES: tuple[str, ...] = (*GENDER_LEXICA, *NORMS)


@dataclass(frozen=True)
class SenseBiasConfig:
    """What ``wordlens sense-bias`` runs (Zhou, Kaneko & Bollegala 2022).

    Attributes
    ----------
    senses
        A sense-vector file (LMMS/ARES text, or .npz) instead of a model; exactly one of the two
        (:func:`check_source`).
    baseline
        A word-level model beside the senses (alias, local path or hub id); None for none.
    experiments
        Which of ``weat``, ``wat``, ``gender-direction``, ``sssb``, ``dimensions`` to run.
    layers
        Layers of built sense vectors; None for all (ignored for a sense-vector file).
    pooling
        Subtoken pooling of the lemma in its contexts.
    gloss_template
        Gloss context of built sense vectors (``{gloss}`` and ``{lemma}``).
    max_examples
        Most example sentences per sense (None: all), drawn with ``seed``.
    weat_tests
        WEAT test ids with sense assignments (1, 2, 7, 8, 9).
    wat_reference
        ``wat-du2019``, ``wat-zhou2022``, ``eat`` or ``usf``.
    wat_words
        How many reference words to correlate, drawn with ``seed`` (None: all that qualify).
    gender_pairs
        ``gn-glove-gender-pairs`` or ``debiaswe-definitional-pairs`` for eq. 8.
    permutations
        Permutation partitions per WEAT test.
    seed
        Seed of the example draw, the WAT word sample and the permutations.
    ddof
        Delta degrees of freedom of the WEAT effect size.
    alpha
        Label-propagation weight for the ``eat``/``usf`` references.
    dimensions
        Sizes of the dimensionality sweep; None for ``d/8, d/4, d/2, d``.
    sssb_draws
        Bootstrap draws per SSSB score (5,000 as the authors).
    """

    senses: Path | None = option(
        None, "Sense-vector file instead of a model (LMMS/ARES text, or .npz)."
    )
    baseline: str | None = option(
        "glove-6b-50d",
        "Word-level model beside the senses (e.g. glove-6b-50d), or 'none'.",
        none="none",
    )
    experiments: tuple[Experiment, ...] = option(
        EXPERIMENTS, "Experiments (comma list): weat, wat, gender-direction, sssb, dimensions."
    )
    layers: tuple[int, ...] | None = option(None, help_texts.LAYERS, none="all", parse="layers")
    pooling: Pooling = option("mean", help_texts.POOLING)
    gloss_template: str = option(
        GLOSS_TEMPLATE, "Context of a sense's gloss, with {gloss} and {lemma}."
    )
    max_examples: int | None = option(
        None, "Most example sentences per sense (0: the gloss alone) [default: all].", minimum=0
    )
    weat_tests: tuple[int, ...] = option(
        (1, 2, 7, 8, 9), "WEAT tests with sense assignments (comma list)."
    )
    wat_reference: str = option(
        "wat-du2019", "WAT reference: wat-du2019, wat-zhou2022, eat or usf."
    )
    wat_words: int | None = option(
        500, "Reference words correlated (seeded sample) [default: 500]."
    )
    gender_pairs: str = option(
        "gn-glove-gender-pairs",
        "Pairs of the eq. 8 direction: gn-glove-gender-pairs, debiaswe-definitional-pairs.",
    )
    permutations: int = option(
        10_000,
        f"WEAT permutations, {help_texts.PERMUTATIONS_BOUND}.",
        minimum=1,
        maximum=help_texts.MAX_PERMUTATIONS,
    )
    seed: int = option(0, "Seed of every random choice.", minimum=0, maximum=SEED_MAX)
    ddof: int = option(1, "Delta degrees of freedom of the effect size.", minimum=0)
    alpha: float = option(
        0.99, "Label-propagation weight for the eat/usf references.", minimum=0, maximum=1
    )
    dimensions: tuple[int, ...] | None = option(
        None, "Sizes of the dimensionality sweep (comma list) [default: d/8,d/4,d/2,d]."
    )
    sssb_draws: int = option(N_DRAWS, "Bootstrap draws per SSSB score.")

    def __post_init__(self) -> None:
        unknown = [name for name in self.experiments if name not in EXPERIMENTS]
        if unknown or not self.experiments:
            raise WordlensError(
                f"choose experiments among {', '.join(EXPERIMENTS)}; got {list(self.experiments)}"
            )
        if self.wat_reference not in WAT_REFERENCES:
            raise WordlensError(
                f"unknown WAT reference {self.wat_reference!r}; choose one of "
                f"{', '.join(WAT_REFERENCES)}"
            )
        if self.gender_pairs not in PAIR_SETS:
            raise WordlensError(
                f"unknown gender pairs {self.gender_pairs!r}; choose one of {', '.join(PAIR_SETS)}"
            )
        if self.wat_words is not None and self.wat_words < 3:
            raise WordlensError(f"wat_words must be at least 3 or None; got {self.wat_words}")
        if self.dimensions is not None and (not self.dimensions or min(self.dimensions) < 1):
            raise WordlensError(f"dimensions must be positive sizes; got {list(self.dimensions)}")
        if self.sssb_draws < 2:
            raise WordlensError(f"sssb_draws must be at least 2; got {self.sssb_draws}")
        check_pooling(self.pooling)


def check_source(has_model: bool, senses: Path | None) -> None:
    """Sense vectors come from exactly one of a model (``--model``) and a file (``--senses``).

    Raises
    ------
    WordlensError
        If neither or both are given.
    """
    if has_model == (senses is not None):
        raise WordlensError("give exactly one of --model and --senses")
