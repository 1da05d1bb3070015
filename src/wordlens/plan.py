"""A plan before the run: the stages a run will go through, their work, and each stage's time
estimated on the chosen device from a short calibration, without running the work.

A method that can plan (:meth:`wordlens.methods.base.Method.plan`) lists its stages as
:class:`PlannedStage`: the stage's name as the run records it (:mod:`wordlens.stages`), its work
(texts, tokens, forward passes, permutations, decompositions, probe steps: what a user reads to
see why a stage is long) and its *estimate*, the seconds of a short measurement scaled to the
stage's size:

- a model stage: a sample of the run's own texts (:data:`CALIBRATION_TEXTS` of them) is embedded
  through the model's real path on the chosen device, without the activation cache, in two
  calls of different sizes (:func:`embedding_cost`): a fixed cost per call plus the stage's
  tokens × the seconds per token;
- a statistic: its own function timed once on random data of the run's shapes
  (:func:`seconds_per_call`), × the number of calls the stage makes, or scaled linearly in the
  one size that differs (permutations).

What is estimated this way leaves out what the sample cannot show: cache hits (a rerun reads
its vectors, so its embedding stages take less), batching across more texts than the sample,
and the machine's load. After a run the report puts each estimate beside the measured time
(:func:`estimates_beside`), so the plan's error is visible.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from rich.table import Table as RichTable

    from wordlens.contexts import Target
    from wordlens.models.base import Pooling, WordEmbedder

CALIBRATION_TEXTS = 32
"""Texts of the run's own embedded per model stage to measure its seconds per token."""

WORK_COLUMNS = (
    "texts",
    "tokens",
    "forward_passes",
    "permutations",
    "decompositions",
    "calls",
    "probe_steps",
)
"""The kinds of work a plan lists, in its table's column order."""


@dataclass(frozen=True)
class PlannedStage:
    """One stage of a plan.

    Attributes
    ----------
    name
        The stage's name as the run records it (``embed:bleached``, ``nullification``).
    work
        Its work by kind (:data:`WORK_COLUMNS`): e.g. ``{"texts": 13915, "tokens": 97405}``.
    estimate_s
        Estimated seconds on the chosen device; None where the plan has no calibration for it.
    basis
        How the estimate was made (or why there is none).
    """

    name: str
    work: Mapping[str, int] = field(default_factory=dict)
    estimate_s: float | None = None
    basis: str = ""


@dataclass(frozen=True)
class Plan:
    """A run's plan: its stages and what the calibration cost.

    Attributes
    ----------
    method
        The method's name.
    device
        The device the estimates are for.
    stages
        The stages in the order they run.
    calibration_s
        Wall seconds the calibration took (loading the model not included).
    """

    method: str
    device: str
    stages: tuple[PlannedStage, ...]
    calibration_s: float

    @property
    def total_s(self) -> float:
        """The sum of the stages' estimates (those without one count 0)."""
        return sum(stage.estimate_s or 0.0 for stage in self.stages)

    def table(self) -> pd.DataFrame:
        """One row per stage: its name, work (:data:`WORK_COLUMNS`), estimate and basis."""
        import pandas as pd

        rows = [
            {
                "stage": stage.name,
                **{kind: stage.work.get(kind) for kind in WORK_COLUMNS},
                "estimate_s": stage.estimate_s,
                "basis": stage.basis,
            }
            for stage in self.stages
        ]
        return pd.DataFrame(rows, columns=["stage", *WORK_COLUMNS, "estimate_s", "basis"])

    def as_metadata(self) -> dict[str, Any]:
        """JSON-ready: method, device, calibration seconds, total and each stage."""
        return {
            "method": self.method,
            "device": self.device,
            "calibration_s": self.calibration_s,
            "total_s": self.total_s,
            "stages": [asdict(stage) | {"work": dict(stage.work)} for stage in self.stages],
        }


def summary_line(plan: Mapping[str, Any]) -> str:
    """``plan: 9 stages, estimated 12 min on cpu (calibration 4.1 s)`` of a plan
    (:meth:`Plan.as_metadata`)."""
    stages = plan["stages"]
    missing = sum(stage["estimate_s"] is None for stage in stages)
    unestimated = f", {missing} without an estimate" if missing else ""
    return (
        f"plan: {len(stages)} stages, estimated {duration(plan['total_s'])} on "
        f"{plan['device']}{unestimated} (calibration {plan['calibration_s']:.1f} s)"
    )


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3.6 h``."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def estimates_beside(stages: Sequence[Mapping[str, Any]], plan: Mapping[str, Any]) -> list[float]:
    """The plan's estimate for each recorded stage (:mod:`wordlens.stages`), NaN where the plan
    has none: a stage's estimate goes to the first recorded top-level stage of its name."""
    estimates = {
        stage["name"]: stage["estimate_s"]
        for stage in plan.get("stages", [])
        if stage["estimate_s"] is not None
    }
    shown: list[float] = []
    for stage in stages:
        value = estimates.pop(stage["name"], None) if stage["depth"] == 0 else None
        shown.append(math.nan if value is None else float(value))
    return shown


def token_counts(model: WordEmbedder, texts: Sequence[str]) -> list[int]:
    """Tokens of each text as the model's tokenizer splits it (one batch call; special tokens
    included); one per word for static vectors."""
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        return [1] * len(texts)
    encoded = tokenizer(list(texts), add_special_tokens=True)["input_ids"]
    return [len(ids) for ids in encoded]


@dataclass(frozen=True)
class LinearCost:
    """Seconds of one call of a stage's function as ``fixed + per_unit × units``, fitted on two
    timed calls of different sizes (after an untimed warm-up call that pays any first-call
    loading)."""

    fixed: float
    per_unit: float

    def seconds(self, units: float) -> float:
        return self.fixed + self.per_unit * units

    @classmethod
    def fitted(cls, call: Callable[[int], float], sizes: tuple[int, int, int]) -> LinearCost:
        """``call(n)`` runs the function on ``n`` items and returns the units it processed;
        ``sizes``: the warm-up's items, then the two timed calls'."""
        call(sizes[0])
        units, seconds = [], []
        for size in sizes[1:]:
            started = time.perf_counter()
            units.append(call(size))
            seconds.append(time.perf_counter() - started)
        if units[1] == units[0]:
            return cls(0.0, seconds[1] / max(units[1], 1))
        per_unit = max(0.0, (seconds[1] - seconds[0]) / (units[1] - units[0]))
        return cls(max(0.0, seconds[1] - per_unit * units[1]), per_unit)


def embedding_cost(
    model: WordEmbedder,
    targets: Sequence[Target],
    layers: Sequence[int] | None,
    poolings: Sequence[Pooling],
) -> LinearCost:
    """Seconds of embedding texts through the model's real path without the activation cache, as
    a fixed cost per call plus a cost per token, fitted on :data:`CALIBRATION_TEXTS` of
    ``targets`` (a quarter, then all of them, after a warm-up of two)."""
    sample = list(targets[:CALIBRATION_TEXTS])
    lengths = token_counts(model, [target.text for target in sample])

    def embed(n: int) -> float:
        model.embed_poolings(sample[:n], layers, poolings, cache=None)
        return float(sum(lengths[:n]))

    return LinearCost.fitted(embed, (2, max(1, len(sample) // 4), len(sample)))


def forward_passes(model: WordEmbedder, token_lengths: Sequence[int]) -> int | None:
    """Padded passes of texts of ``token_lengths`` within the model's token budget, batched as
    texts that share no prefix: a lower bound, as the extraction engine splits a batch's passes
    further by width (and fewer where texts share a prefix it computes once); None for a model
    without a budget (static vectors)."""
    from wordlens.models.hf import batches_by_token_budget

    budget = getattr(model, "token_budget", None)
    if not isinstance(budget, int):
        return None
    return len(batches_by_token_budget(token_lengths, budget))


def seconds_per_call(function: Callable[[], object], *, repeats: int = 2) -> float:
    """The fastest of ``repeats`` timed calls of ``function`` (after one untimed call)."""
    function()
    best = math.inf
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def console_table(plan: Mapping[str, Any], title: str) -> RichTable:
    """A plan (:meth:`Plan.as_metadata`) as a table for the terminal: each stage's work, its
    estimate and the estimate's basis, then the total."""
    from rich.table import Table

    grid = Table(title=title, title_justify="left")
    shown = [kind for kind in WORK_COLUMNS if any(kind in s["work"] for s in plan["stages"])]
    for column in ("stage", *shown, "estimate", "basis"):
        grid.add_column(column, justify="left" if column in ("stage", "basis") else "right")
    for stage in plan["stages"]:
        estimate = stage["estimate_s"]
        grid.add_row(
            stage["name"],
            *(f"{stage['work'][kind]:,}" if kind in stage["work"] else "" for kind in shown),
            "–" if estimate is None else duration(estimate),
            stage["basis"],
        )
    grid.add_row("total", *("" for _ in shown), duration(plan["total_s"]), "")
    return grid
