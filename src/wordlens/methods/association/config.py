"""Options every association metric takes (:class:`AssociationConfig`); a metric with options
of its own subclasses it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wordlens import help_texts
from wordlens.contexts import BLEACHED_TEMPLATE, WordContext, check_template
from wordlens.models.base import Pooling
from wordlens.options import SEED_MAX, OptionError, check_bounds, option


@dataclass(frozen=True)
class AssociationConfig:
    """What an association metric runs on: the query's word sets, embedded at ``layers`` in
    ``context``, and how its uncertainty is estimated.

    Attributes
    ----------
    query
        A YAML or JSON file of two named target sets and two named attribute sets, as
        ``wordlens weat --query`` takes (:class:`~wordlens.resources.Query`); in Python the
        query may also be a mapping or a ``Query``.
    layers
        Hidden-state layers (0 = embeddings); None for all.
    context, template
        Each word in ``template`` (``"template"``, May et al.'s bleached context by default)
        or alone (``"none"``); static models ignore them.
    pooling
        Subtoken pooling.
    bootstrap
        Bootstrap resamples (words drawn with replacement within each set) of the percentile
        interval of the metric at each layer; 0: no interval.
    permutations
        Most relabellings of the permutation test (the observed one included): all of them
        when there are no more (exact test), else the observed one and random others. What a
        relabelling is depends on the metric (:meth:`~wordlens.methods.association.method.
        AssociationMethod.scheme`): a partition of the two target sets' words, a swap within
        target pairs, or a partition of two attribute sets' words; 0: no test.
    confidence
        Level of the bootstrap interval.
    seed
        Seed of the resamples and partitions (and of a metric's own random choices).
    max_missing
        Most share of a set's words the model may lack: a query with a set that loses more is
        skipped, with the reason (:func:`~wordlens.methods.association.vectors.too_many_lost`;
        WEFE's ``lost_vocabulary_threshold``, Badilla et al. 2020, whose default is 0.2).
        None (the default): no threshold, every word the model reads is used.
    """

    query: Path | None = option(
        None,
        "YAML or JSON file of your word sets (targets: two named sets, attributes: two named "
        "sets), as wordlens weat --query takes.",
        none="none",
    )
    layers: tuple[int, ...] | None = option(None, help_texts.LAYERS, none="all", parse="layers")
    context: WordContext = option(
        "template", "'template' (each word in --template) or 'none' (each word alone)."
    )
    template: str = option(BLEACHED_TEMPLATE, "Context with one {word} placeholder.")
    pooling: Pooling = option("mean", help_texts.POOLING)
    bootstrap: int = option(
        1000,
        "Bootstrap resamples of the words for the interval at each layer (0: none).",
        minimum=0,
    )
    permutations: int = option(
        10_000,
        "Most relabellings of the permutation test, the observed one included; all when there "
        f"are no more (exact). 0: no test; {help_texts.PERMUTATIONS_BOUND}.",
        minimum=0,
        maximum=help_texts.MAX_PERMUTATIONS,
    )
    confidence: float = option(0.95, "Level of the bootstrap interval.")
    seed: int = option(0, "Seed of the resamples and partitions.", minimum=0, maximum=SEED_MAX)
    max_missing: float | None = option(
        None,
        help_texts.MAX_MISSING,
        none="none",
        minimum=0,
        maximum=1,
    )

    def check(self) -> None:
        """Refuse a template without one ``{word}``, counts outside their declared bounds
        (:func:`~wordlens.options.check_bounds`) and a level outside (0, 1).

        Raises
        ------
        TargetError
            If the template does not contain ``{word}`` exactly once.
        OptionError
            Naming the option whose value is out of range.
        """
        check_template(self.template)
        check_bounds(self)
        if not 0 < self.confidence < 1:
            raise OptionError("--confidence", f"must be between 0 and 1, not {self.confidence}")
