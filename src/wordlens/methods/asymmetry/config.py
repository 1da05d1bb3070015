"""Options of the asymmetry experiment (``wordlens asymmetry``): the only place their defaults
live."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wordlens.errors import EmptyInputError, WordlensError
from wordlens.options import SEED_MAX, OptionError, check_bounds, option
from wordlens.resources.conceptnet import CONCEPTNET_100K

SampleSize = int | Literal["all"] | None
"""A number of pairs to sample, ``"all"`` (no sample) or None (the model's default)."""


@dataclass(frozen=True)
class AsymmetryConfig:
    """What ``wordlens asymmetry`` runs (Zhang et al. 2021, one model).

    Attributes
    ----------
    norms
        Evocation data sets: ``eat``, ``usf``, ``swow`` (the last from ``swow_file``).
    swow_file
        The user's SWOW-EN file (strength or raw response file).
    conceptnet
        The relation annotation's knowledge graph: ``conceptnet-100k`` (offline default),
        ``conceptnet5`` (the ConceptNet 5.7 assertions on a data root) or the path of that file
        (:func:`~wordlens.resources.conceptnet.open_conceptnet`).
    pairs
        Seeded sample of distinct pairs: a number, ``"all"`` (every pair) or None (the model's
        default: :data:`~wordlens.methods.asymmetry.experiment.DEFAULT_LM_PAIRS` for language
        models, all for static models); read as :attr:`n_pairs`.
    similarity_pairs
        Language models: seeded sample of each similarity set's pairs, as ``pairs`` (None:
        :data:`~wordlens.methods.asymmetry.experiment.DEFAULT_LM_SIMILARITY_PAIRS`); read as
        :attr:`n_similarity_pairs`. Static models score every pair.
    thresholds
        Direction-accuracy thresholds theta >= 0 on ``|LAR_data|`` (Appendix G).
    similarity
        Similarity sets (registered names or files) for Table 4; empty for none.
    max_contexts
        Contexts per pair read by a language model (the first ones in index order); 0: all.
    shards
        Shards of the language model's work list, run one after the other.
    shard
        Run only this shard (0-based) and stop; a later run without it merges (command line
        only).
    workdir
        The language model's work list and pass scores; a rerun resumes (None: ``OUT/work``;
        command line only).
    seed
        Seed of the pair samples.
    """

    norms: tuple[str, ...] = option(
        ("eat",), "Evocation data (comma list): eat, usf, swow (needs --swow-file)."
    )
    swow_file: Path | None = option(None, "Your SWOW-EN file (strength or raw response file).")
    conceptnet: str = option(
        CONCEPTNET_100K,
        "Relation annotation: conceptnet-100k, conceptnet5 (on a data root) or the path of "
        "conceptnet-assertions-5.7.0.csv.gz (see `wordlens data show conceptnet5`).",
    )
    pairs: str | None = option(
        None,
        "Seeded sample of this many distinct pairs, or 'all' (default: 100 for language models, "
        "all for static vectors).",
        none="default",
    )
    similarity_pairs: str | None = option(
        None,
        "Language models: seeded sample of each similarity set, or 'all' (default: 25).",
        none="default",
    )
    thresholds: tuple[float, ...] = option(
        (0.0, 0.5, 1.0), "Direction-accuracy thresholds on |LAR_data| (comma list)."
    )
    similarity: tuple[str, ...] = option(
        ("men", "simlex999", "ws353-sim", "ws353-rel"),
        "Similarity sets for Table 4 (comma list), or 'none'.",
    )
    max_contexts: int = option(5, "Language models: contexts per pair (0: all).", minimum=0)
    shards: int = option(
        1, "Language models: shards of the work list, run one after another.", minimum=1
    )
    shard: int | None = option(
        None,
        "Run only this shard (0-based) and stop; rerun without it to merge.",
        study=False,
        minimum=0,
    )
    workdir: Path | None = option(
        None, "Work list and pass scores; a rerun resumes (default: OUT/work).", study=False
    )
    seed: int = option(0, "Seed of the pair samples.", minimum=0, maximum=SEED_MAX)

    @property
    def n_pairs(self) -> SampleSize:
        """``pairs`` read: a number, ``"all"`` or None (the model's default)."""
        return parse_sample_size(self.pairs, "--pairs")

    @property
    def n_similarity_pairs(self) -> SampleSize:
        """``similarity_pairs`` read as :attr:`n_pairs`."""
        return parse_sample_size(self.similarity_pairs, "--similarity-pairs")

    @property
    def context_cap(self) -> int | None:
        """Contexts per pair (None: all)."""
        return self.max_contexts or None

    def check(self) -> None:
        """Refuse unknown, repeated or missing evocation data, a bad sample size, threshold,
        context cap or shard, and an unknown ConceptNet, before any model loads.

        Raises
        ------
        WordlensError
            Naming the first invalid option.
        """
        from wordlens.resources.association_norms import NORMS, SWOW
        from wordlens.resources.conceptnet import check_conceptnet_spec

        if not self.norms:
            raise EmptyInputError("no evocation data set selected; choose from eat, usf, swow")
        unknown = [name for name in self.norms if name not in (*NORMS, SWOW)]
        if unknown:
            raise WordlensError(
                f"unknown evocation data {unknown}; choose from {', '.join((*NORMS, SWOW))}"
            )
        if len(set(self.norms)) != len(self.norms):
            raise WordlensError(f"evocation data sets given more than once: {list(self.norms)}")
        if SWOW in self.norms and self.swow_file is None:
            raise WordlensError(
                "swow needs the user's SWOW-EN file (--swow-file): the data may not be "
                "redistributed (strength.SWOW-EN.R123.csv or SWOW-EN.R100.csv from "
                "https://smallworldofwords.org/en/project/research)"
            )
        parse_sample_size(self.pairs, "--pairs")
        parse_sample_size(self.similarity_pairs, "--similarity-pairs")
        bad = [t for t in self.thresholds if not (math.isfinite(t) and t >= 0)]
        if not self.thresholds or bad:
            raise WordlensError(f"thresholds must be finite numbers >= 0; got {self.thresholds}")
        check_bounds(self)
        if self.shard is not None and self.shard >= self.shards:
            raise WordlensError(
                f"shard {self.shard} is out of range: shards are numbered 0..{self.shards - 1} "
                f"of {self.shards}"
            )
        check_conceptnet_spec(self.conceptnet)


def parse_sample_size(text: str | None, option: str) -> SampleSize:
    """A sample size as the command line writes it: None or ``default`` -> None (the model's
    default), ``all``, or a positive number of pairs.

    Raises
    ------
    OptionError
        For anything else, naming ``option``.
    """
    value = "default" if text is None else text.strip().lower()
    if value == "default":
        return None
    if value == "all":
        return "all"
    try:
        size = int(value)
    except ValueError:
        raise OptionError(option, f"a number, 'all' or 'default'; got {text!r}") from None
    if size < 1:
        raise OptionError(option, f"at least 1 pair, 'all' or 'default'; got {text!r}")
    return size
