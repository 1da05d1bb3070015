"""What reproducing a paper means: its experiments, how each published number is measured, and
its findings as checks.

A :class:`PaperReproduction` (one per paper, registered in :data:`REPRODUCTIONS`) says

- :meth:`~PaperReproduction.experiments`: the methods to run and their options, with the
  paper's conventions (the authors' BOS choice, contexts, poolings, nullification population,
  sample sizes, seeds); at ``scale="smoke"`` the same experiments on small samples (a quick
  check, named as a departure in every row);
- :meth:`~PaperReproduction.measure`: this run's value of one published item (a table cell, a
  number of the text), or why it cannot be measured here (another data set, a table the method
  does not compute);
- :meth:`~PaperReproduction.checks`: the paper's findings (``findings`` of its YAML file) as
  functions of the measured tables, each giving a :class:`Check` (holds / does not hold / not
  measurable, with the evidence).

:func:`wordlens.reproduce.runner.reproduce` runs it and writes the reproduction table and report.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from wordlens.reproduce.published import PaperValues, PublishedItem
from wordlens.results import Run

if TYPE_CHECKING:  # pandas only in annotations: the command line imports this module
    import pandas as pd

Scale = Literal["paper", "smoke"]
SCALES: tuple[Scale, ...] = ("paper", "smoke")
Verdict = Literal["holds", "does not hold", "not measurable"]


@dataclass(frozen=True)
class Experiment:
    """One method run of a reproduction.

    Attributes
    ----------
    name
        Its name in the reproduction (the output sub-directory; unique per paper).
    method
        A registered method (:mod:`wordlens.methods.registry`).
    options
        The method's options as a study file writes them (the others keep their defaults, the
        authors' choices).
    departure
        How this run departs from the paper ('' if it does not), shown in the report.
    """

    name: str
    method: str
    options: Mapping[str, Any] = field(default_factory=dict)
    departure: str = ""


@dataclass(frozen=True)
class Measured:
    """This run's value of a published item, and how the cell was matched (e.g. "layer 6 is
    this model's top layer; the paper's is 12")."""

    value: float
    note: str = ""


@dataclass(frozen=True)
class NotMeasured:
    """Why a published item has no value here, and what would give it one."""

    reason: str


@dataclass(frozen=True)
class Check:
    """A finding checked on this run: the verdict and the numbers it rests on."""

    verdict: Verdict
    evidence: str


@dataclass
class Reproduction:
    """A paper's reproduction on one model.

    Attributes
    ----------
    paper
        The paper's published values.
    model
        The model as given (alias, path or hub id).
    scale
        ``paper`` or ``smoke``.
    experiments
        The experiments, in order.
    runs
        Experiment name → its run (the ones that ran).
    failures
        Experiment name → why it did not run.
    table
        One row per published item (module notes).
    findings
        One row per finding: ``finding``, ``claim``, ``location``, ``verdict``, ``evidence``.
    """

    paper: PaperValues
    model: str
    scale: Scale
    experiments: list[Experiment]
    runs: dict[str, Run]
    failures: dict[str, str]
    table: pd.DataFrame
    findings: pd.DataFrame


Runs = Mapping[str, Run]
"""The runs of a reproduction by experiment name (failed or skipped experiments are absent)."""
CheckFunction = Callable[[Runs], Check]


class PaperReproduction(ABC):
    """One paper's reproduction (see the module notes)."""

    paper: ClassVar[str]

    @abstractmethod
    def experiments(self, scale: Scale) -> list[Experiment]:
        """The experiments to run, in order."""

    @abstractmethod
    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        """This run's value of ``item``."""

    def checks(self) -> Mapping[str, CheckFunction]:
        """Finding id → its check; findings without one are reported as not measurable."""
        return {}


def same_depth(layer: int, paper_layers: int, top: int) -> int:
    """This model's layer at the relative depth of the paper model's ``layer`` of
    ``paper_layers``: ``round(layer * top / paper_layers)``, halves rounded up (``top`` is this
    model's top layer, 0 the embeddings)."""
    return math.floor(layer * top / paper_layers + 0.5)


def missing(runs: Runs, *names: str) -> NotMeasured | None:
    """A :class:`NotMeasured` naming the first experiment of ``names`` that did not run."""
    for name in names:
        if name not in runs:
            return NotMeasured(f"experiment {name!r} did not run (see the report's experiments)")
    return None


def not_measurable(runs: Runs, *names: str) -> Check | None:
    """A 'not measurable' check naming the first experiment of ``names`` that did not run."""
    absent = missing(runs, *names)
    return None if absent is None else Check("not measurable", absent.reason)
