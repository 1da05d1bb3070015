"""What the scoring tests share to check the padding counted in a stage's work: the positions
and padding of the token ids that actually enter a masked LM, counted at its embeddings."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from wordlens import stages
from wordlens.models.scoring import LMScorer


@dataclass
class PassCount:
    """Positions of the token ids the model received and the padding among them (``pad`` ids:
    no real token of the tests' texts is one), and the stage's work as the scorer counted it."""

    pad: int
    positions: int = 0
    padding: int = 0
    work: dict[str, int] = field(default_factory=dict)

    def see(self, _module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        input_ids = kwargs["input_ids"] if "input_ids" in kwargs else args[0]
        self.positions += input_ids.numel()
        self.padding += int((input_ids == self.pad).sum())


@contextmanager
def counted_passes(scorer: LMScorer, token_budget: int) -> Iterator[PassCount]:
    """Run the block in a stage with ``scorer`` at ``token_budget``, counting the ids that enter
    its embeddings; the yielded count's ``work`` is the stage's when the block ends."""
    count = PassCount(scorer.pad_token_id)
    embeddings = scorer.model.base_model.embeddings
    hook = embeddings.register_forward_pre_hook(count.see, with_kwargs=True)
    log = stages.StageLog()
    default_budget = scorer.token_budget
    scorer.token_budget = token_budget
    try:
        with stages.recording(log), stages.Timings().stage("passes"):
            yield count
    finally:
        scorer.token_budget = default_budget
        hook.remove()
    count.work = log.records[-1].work
