"""Options of the likelihood-bias method (``wordlens likelihood-bias``): the only place their
defaults live."""

from __future__ import annotations

from dataclasses import dataclass

from wordlens.options import SEED_MAX, OptionError, option
from wordlens.resources.bias_benchmarks import BENCHMARKS

NAME = "likelihood-bias"
"""The method's registered name (its command)."""


@dataclass(frozen=True)
class LikelihoodBiasConfig:
    """What ``wordlens likelihood-bias`` runs (Zhou, Kaneko & Bollegala 2022, eq. 6).

    Attributes
    ----------
    benchmarks
        Benchmark names (``sssb``, ``crows``, ``stereoset``); ``--benchmark`` is its deprecated
        former name.
    methods
        Scoring methods (``aul``, ``aula``, ``pll``, ``causal_sum``, ``causal_mean``); None for
        every method the model supports.
    sample
        Keep this many pairs per benchmark, drawn without replacement with ``seed`` (file order
        kept); None for all.
    bootstrap
        Bootstrap resamples of each interval; 0 for none.
    seed
        Seed of the subsample and of the bootstrap.
    """

    benchmarks: tuple[str, ...] = option(
        BENCHMARKS, "Benchmarks (comma list): sssb, crows, stereoset.", deprecated=("benchmark",)
    )
    methods: tuple[str, ...] | None = option(
        None,
        "Scoring methods (comma list) or 'all' the model supports: aul, aula, pll "
        "(masked LMs), causal_sum, causal_mean (causal LMs).",
        none="all",
    )
    sample: int | None = option(
        None, "Seeded sample of this many pairs per benchmark [default: all]."
    )
    bootstrap: int = option(10_000, "Bootstrap resamples of each 95% interval (0: none).")
    seed: int = option(0, "Seed of the pair sample and the bootstrap.", minimum=0, maximum=SEED_MAX)

    def __post_init__(self) -> None:
        if self.sample is not None and self.sample < 1:
            raise OptionError("--sample", f"at least 1 pair per benchmark; got {self.sample}")
        if self.bootstrap < 0:
            raise OptionError("--bootstrap", f"must be >= 0; got {self.bootstrap}")
