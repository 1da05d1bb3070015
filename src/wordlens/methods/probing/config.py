"""Options of edge probing (``wordlens probe``): the only place their defaults live."""

from __future__ import annotations

from dataclasses import dataclass

from wordlens.errors import WordlensError
from wordlens.options import SEED_MAX, check_bounds, option


@dataclass(frozen=True)
class ProbeConfig:
    """What ``wordlens probe`` runs (Tenney et al. 2019, one model and one task).

    Attributes
    ----------
    task
        ``pos``, ``dep``, ``rel``, ``spr`` or ``winograd``.
    representations
        Names (see :mod:`wordlens.probing.representations`), e.g. ``("mix", "lex", "cnn3")``.
    train_sentences, eval_sentences
        Seeded samples of the train split, and of dev and test, in sentences (``None``: all).
    max_steps
        Stop training after this many steps even if dev F1 still improves (``None``: the
        task's ``max_validations`` validations, jiant's cap: 250 for POS and dependencies, 100
        for the others).
    validate_every
        Steps between validations (``None``: the task's default, 1000 or 100, Appendix C).
    seed
        Seed of the samples, the probe's initialization and the batch order.
    """

    task: str = option("pos", "Edge-probing task: pos, dep, rel, spr or winograd.")
    representations: tuple[str, ...] = option(
        ("mix",),
        "Comma list: top, lex, cat, mix, layer:K, layers (every layer), cnn3, cnn5; any of them "
        "prefixed by random- (randomized encoder).",
        flag="repr",
    )
    train_sentences: int | None = option(
        None, "Seeded sample of the train split (sentences) [all].", minimum=1
    )
    eval_sentences: int | None = option(
        None, "Seeded sample of dev and of test (sentences) [all].", minimum=1
    )
    max_steps: int | None = option(
        None, "Stop training after this many steps [jiant's: 250 or 100 validations].", minimum=1
    )
    validate_every: int | None = option(
        None, "Steps between validations [task default: 1000 or 100].", minimum=1
    )
    seed: int = option(0, "Seed of samples, probe and batch order.", minimum=0, maximum=SEED_MAX)

    def check(self) -> None:
        """Refuse an unknown task, no representation and sizes below 1 (their declared bounds,
        :func:`~wordlens.options.check_bounds`).

        Raises
        ------
        WordlensError
            Naming the first invalid option.
        """
        from wordlens.probing.converters import probing_task_info

        probing_task_info(self.task)
        if not self.representations:
            raise WordlensError("no representation given; e.g. mix,cat,lex")
        check_bounds(self)
