"""Options of the intersectional method (``wordlens intersectional``): the only place their
defaults live.

The config holds the options as a user gives them (a study file path, the SVC's ``C``, ...);
:func:`wordlens.methods.intersectional.experiments.run_intersectional` builds the study
(:func:`~wordlens.contexts.intersectional.load_study`) and the direction's settings
(:class:`~wordlens.stats.DirectionSettings`) from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from wordlens import help_texts
from wordlens._files import DEFAULT_ENCODING, check_encoding
from wordlens.conventions import ConventionPreset
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.base import Pooling
from wordlens.options import SEED_MAX, option
from wordlens.resources.lexica import Duplicates

NAME = "intersectional"
"""The method's registered name (the command, and :class:`wordlens.results.Run` ``method``)."""
Experiment = Literal["valnorm", "differential", "strongest"]
EXPERIMENTS: tuple[Experiment, ...] = get_args(Experiment)
ClassWeightName = Literal["none", "balanced"]


Pairing = Literal["twins", "pooled"]
"""How the differential test relabels the two groups (:attr:`IntersectionalConfig.pairing`)."""


@dataclass(frozen=True)
class IntersectionalConfig:
    """What ``wordlens intersectional`` runs (Omrani Sabbaghi, Wolfe & Caliskan 2023).

    Attributes
    ----------
    lexicon
        Registered lexicon name or file with a ``valence`` column (ValNorm reference).
    layers
        ValNorm layers; None for all.
    context_layer
        Layer of the "person" vectors and the direction of experiments 2-3 (-1: the top layer).
    pooling
        Subtoken pooling of every vector; ``last`` as the authors' code.
    study
        A study file (YAML or CSV, :func:`wordlens.contexts.intersectional.load_study`) of
        biases, template and target; None for the paper's study.
    strongest
        The biases permuted in experiment 3; None for the study's own ``strongest_biases``.
    experiments
        Which of ``valnorm``, ``differential``, ``strongest`` to run.
    svc_c, normalize, class_weight, max_iter
        How the valence direction is learned (:class:`wordlens.stats.DirectionSettings`: ``C``,
        column normalization, class weight, solver iterations); ``class_weight="none"`` weighs
        every vector equally.
    permutations
        Relabellings (swaps within random twin pairs) per differential test (all when fewer
        exist).
    pairing
        ``"twins"``: the differential test swaps the two projections within random twin pairs
        (a phrase with a bias's first category and the same phrase with its second); ``"pooled"``:
        the paper's test (§3, "the same permutation test as employed in the SC-WEAT"), partitions
        of the pooled groups, which carries the other categories' spread into its null and
        rejects a true null far less often than its level (``tests/stats/test_calibration.py``).
    seed
        Seed of the SVC solver and of the random relabellings.
    fraction
        Share of phrases in each of the top and bottom groups of experiment 3, in (0, 0.5].
    duplicates
        What to do with a word listed twice in the lexicon (:data:`wordlens.resources.Duplicates`);
        None: ``"error"`` for a file, a registered lexicon's own policy.
    encoding
        Text encoding of the lexicon and study files.
    conventions
        ``"wordlens"``: the model's ``bos`` option as given; ``"paper"``: the authors' BOS choice
        (:func:`wordlens.conventions.bos_policy`).
    """

    lexicon: str = option("bellezza", "ValNorm lexicon with valence (registered name or file).")
    layers: tuple[int, ...] | None = option(None, help_texts.LAYERS, none="all", parse="layers")
    context_layer: int = option(-1, "Layer of the target vectors and direction (-1: top).")
    pooling: Pooling = option("last", help_texts.POOLING)
    study: Path | None = option(
        None, "Study file (YAML or CSV) of biases and categories [default: paper's]."
    )
    strongest: tuple[str, ...] | None = option(
        None, "Biases permuted in the strongest-bias experiment (comma list)."
    )
    experiments: tuple[Experiment, ...] = option(
        EXPERIMENTS, "Experiments: valnorm, differential, strongest."
    )
    svc_c: float = option(5.0, "C of the linear SVC.", deprecated=("c",))
    normalize: bool = option(True, "Scale feature columns to unit L2 norm before the SVC.")
    class_weight: ClassWeightName = option("none", "SVC class weights: none or balanced.")
    max_iter: int = option(10_000, "Most SVC solver iterations.", minimum=1)
    permutations: int = option(
        10_000,
        "Relabellings (swaps within random twin pairs) per differential test, "
        f"{help_texts.PERMUTATIONS_BOUND}.",
        minimum=1,
        maximum=help_texts.MAX_PERMUTATIONS,
    )
    pairing: Pairing = option(
        "twins",
        "Differential test: 'twins' (swaps within twin phrase pairs, calibrated) or 'pooled' "
        "(the paper's partitions of the pooled groups, which reject true nulls far less often "
        "than their level).",
    )
    seed: int = option(
        0, "Seed of the SVC solver and the permutations.", minimum=0, maximum=SEED_MAX
    )
    fraction: float = option(0.10, "Share of phrases in the top and bottom groups.")
    duplicates: Duplicates | None = option(None, help_texts.DUPLICATES)
    encoding: str = option(DEFAULT_ENCODING, help_texts.ENCODING)
    conventions: ConventionPreset = option("wordlens", help_texts.CONVENTIONS)

    def check(self) -> None:
        """Refuse an empty or unknown choice of experiments, a fraction outside (0, 0.5] and an
        unknown encoding, before any model loads (the direction's settings are checked when
        :class:`~wordlens.stats.DirectionSettings` is built, also before the model loads).

        Raises
        ------
        EmptyInputError
            If no experiment is selected.
        WordlensError
            For an unknown experiment, a fraction outside (0, 0.5] or an unknown encoding.
        """
        if not self.experiments:
            raise EmptyInputError("no experiment selected; choose from " + ", ".join(EXPERIMENTS))
        unknown = sorted(set(self.experiments) - set(EXPERIMENTS))
        if unknown:
            raise WordlensError(
                f"unknown experiment(s) {unknown}; choose from {', '.join(EXPERIMENTS)}"
            )
        check_fraction(self.fraction)
        check_encoding(self.encoding)


def check_fraction(fraction: float) -> None:
    """Refuse a top/bottom share outside (0, 0.5] (the two groups would overlap or be empty).

    Raises
    ------
    WordlensError
        If ``fraction`` is not in (0, 0.5].
    """
    if not 0.0 < fraction <= 0.5:
        raise WordlensError(f"fraction must be in (0, 0.5]; got {fraction}")
