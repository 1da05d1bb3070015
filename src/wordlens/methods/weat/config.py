"""Options of the WEAT method (``wordlens weat``): the only place their defaults live."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from wordlens import help_texts
from wordlens.contexts import BLEACHED_TEMPLATE, WordContext, check_template
from wordlens.errors import WordlensError
from wordlens.models.base import Pooling
from wordlens.options import SEED_MAX, option


@dataclass(frozen=True)
class WeatConfig:
    """What ``wordlens weat`` runs (Caliskan, Bryson & Narayanan 2017, at every layer).

    Attributes
    ----------
    layers
        Hidden-state layers (0 = embeddings); None for all.
    context
        ``"template"``: each word in ``template`` (May et al. 2019's semantically bleached
        context by default; VAST's setting for bias tests); ``"none"``: each word alone (after
        BOS). Static models ignore it. ``"bleached"``, its former name, is still read (with a
        ``FutureWarning``).
    template
        The context, with one ``{word}``.
    tests
        Caliskan et al. test numbers; None for all ten (or, with ``query``, none of them).
    query
        A YAML or JSON file of your own two target and two attribute sets
        (:class:`~wordlens.resources.Query`), run instead of Caliskan et al.'s tests (giving
        ``tests`` too is an error); None: the tests.
    pooling
        Subtoken pooling.
    permutations, seed, ddof
        Permutation partitions (exact enumeration when fewer exist) and their seed, and the
        effect size's delta degrees of freedom (1: sample std, as the paper); see
        :func:`wordlens.stats.weat`.
    max_missing
        Most share of a set's words the model may lack: a test (a query, or one of Caliskan et
        al.'s) with a set that loses more is skipped, with the reason (WEFE's
        ``lost_vocabulary_threshold``,
        :func:`~wordlens.methods.association.vectors.too_many_lost`); None: no threshold.
    """

    layers: tuple[int, ...] | None = option(None, help_texts.LAYERS, none="all", parse="layers")
    context: WordContext = option(
        "template",
        "'template' (each word in --template) or 'none' (each word alone).",
        renamed=(("bleached", "template"),),
    )
    template: str = option(BLEACHED_TEMPLATE, "Context with one {word} placeholder.")
    tests: tuple[int, ...] | None = option(
        None, "Caliskan et al. test numbers, or 'all' (your own word sets: --query).", none="all"
    )
    query: Path | None = option(
        None,
        "YAML or JSON file of your own word sets (targets: two named sets, attributes: two "
        "named sets), run instead of --tests.",
        none="none",
    )
    pooling: Pooling = option("mean", help_texts.POOLING)
    permutations: int = option(
        100_000,
        "Permutation partitions (exact enumeration when fewer exist), "
        f"{help_texts.PERMUTATIONS_BOUND}.",
        deprecated=("n-samples",),
        minimum=1,
        maximum=help_texts.MAX_PERMUTATIONS,
    )
    seed: int = option(0, "Seed of the random partitions.", minimum=0, maximum=SEED_MAX)
    ddof: int = option(1, "Effect size std: 1 = sample std (papers).", minimum=0)
    max_missing: float | None = option(
        None, help_texts.MAX_MISSING, none="none", minimum=0, maximum=1
    )

    def check(self) -> None:
        """Refuse a template without exactly one ``{word}`` and a test number that is not one of
        Caliskan et al.'s, or both ``tests`` and ``query``, before any model loads (the template
        is checked whatever ``context`` says: it is never right without its ``{word}``).

        Raises
        ------
        TargetError
            If the template does not contain ``{word}`` exactly once.
        WordlensError
            If a test number is not one of the tests (naming every such number), or both
            ``tests`` and ``query`` are given.
        """
        from wordlens.resources import load_weat_tests

        check_template(self.template)
        load_weat_tests(self.tests)
        if self.query is not None and self.tests is not None:
            raise WordlensError(
                "--query and --tests: give one of them (a query runs your own word sets instead "
                "of Caliskan et al.'s tests)"
            )
