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
- :meth:`~PaperReproduction.checks`: the paper's findings (``findings`` of its YAML file), each
  giving a :class:`Check`: a verdict (:data:`VERDICTS`) with its margin, the run's uncertainty on
  that margin and the evidence. A finding that rests on numbers the paper prints is a
  :class:`TableCheck` over those items (the reproduction table's cells), evaluated twice: on the
  published values (:meth:`Cells.published`) and on this run's (:meth:`Cells.measured`); a
  finding that rests on a figure or on prose is a function of the runs (:data:`CheckFunction`).
  A check tests the paper's words ("most", "all ... except", a printed range:
  :func:`printed_range_margin`), so where the paper's own numbers contradict them its
  published verdict is ``does not hold``, and the report lists the finding as one the paper's
  numbers do not support.

Verdicts are noise-aware (:func:`judge`): a finding whose margin is within the run's own
uncertainty (the half-width of a bootstrap, permutation, Fisher-z, Wilson or t interval) is
``inconclusive``, neither holds nor does not hold. At smoke scale a margin the run gives no
interval for is ``inconclusive`` too (:data:`SMOKE_RULE`, :func:`requiring_intervals`): a sign
read from a few sentences or words is noise until shown otherwise.

A finding about one of the paper's models measured on another model is judged on the run's
model and marked so (:data:`NAMED_MODEL_RULE`, :func:`on_substitute`); a comparison of two of
the paper's models is not measurable from one run (:meth:`Cells.across_models`).

:func:`wordlens.reproduce.runner.reproduce` runs it and writes the reproduction table and report.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from wordlens.reproduce.published import PaperValues, PublishedItem
from wordlens.results import Run

if TYPE_CHECKING:  # pandas only in annotations: the command line imports this module
    import pandas as pd

Scale = Literal["paper", "smoke"]
SCALES: tuple[Scale, ...] = ("paper", "smoke")
Verdict = Literal[
    "holds", "does not hold", "inconclusive", "not measurable", "not comparable (--limit)"
]
VERDICTS: tuple[Verdict, ...] = (
    "holds",
    "does not hold",
    "inconclusive",
    "not measurable",
    "not comparable (--limit)",
)
NOT_COMPARABLE: Verdict = "not comparable (--limit)"
"""The verdict of every finding of a reproduction run with ``--limit`` (quick mode): a check
on a limited run is not a verdict on the paper."""
Source = Literal["published", "measured"]
Z95 = NormalDist().inv_cdf(0.975)
"""The standard normal's 97.5% quantile: a 95% interval is the estimate ± ``Z95`` standard
errors."""
SMOKE_RULE = (
    "at smoke scale a margin without an interval is inconclusive: the sign of a quantity "
    "measured on a few sentences or words, with no interval on it, decides nothing"
)
"""How a measured margin without an interval is judged at smoke scale (:func:`judge`), as the
report states it."""
NAMED_MODEL_RULE = (
    "a finding about one of the paper's models (GPT-2, GPT-Neo, T5, ELMo, BERT, LMMS, ...) is "
    "judged on the model this reproduction runs, and its evidence says 'measured on <model>, not "
    "<the paper's model>': the verdict says whether the method finds the same on another model, "
    "not whether the paper's model does; a finding that compares two of the paper's models is "
    "not measurable (a reproduction runs one model)"
)
"""The one rule for findings about a named model, applied by every paper through
:meth:`PaperReproduction.named_models` and :func:`on_substitute`, and stated in the report.

Why judged, not ``not measurable``: wordlens reproduces the paper's *method* on whatever model
it is given, and most findings name the model the paper happened to run (VAST: GPT-2; the
intersectional paper: GPT-Neo, T5; the probing paper: ELMo, GPT, BERT). Declaring them all not
measurable on any other model would leave a reproduction on a substitute with almost no
verdicts, while judging some and not others (GPT-Neo's findings judged on a substitute, T5's
not) makes the verdicts depend on which model a claim happens to name. The mark keeps the
verdict honest: it is evidence about the substitute."""
_INTERVALS_REQUIRED: ContextVar[bool] = ContextVar("intervals_required", default=False)


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
    requires
        Options only the user can give (``--set NAME=VALUE``: data wordlens may not ship). Without
        them the experiment is skipped, not failed: its status says ``unavailable``.
    unavailable
        Why the experiment is skipped without ``requires`` and how to give it.
    """

    name: str
    method: str
    options: Mapping[str, Any] = field(default_factory=dict)
    departure: str = ""
    requires: tuple[str, ...] = ()
    unavailable: str = ""

    def skipped_because(self, given: Mapping[str, Any]) -> str | None:
        """Why the experiment cannot run with the user's ``given`` options, or None if it can."""
        missing = [name for name in self.requires if name not in given]
        if not missing:
            return None
        needs = ", ".join(f"--set {name}=..." for name in missing)
        return f"skipped: needs {needs}" + (f"; {self.unavailable}" if self.unavailable else "")


@dataclass(frozen=True)
class Measured:
    """This run's value of a published item, and how the cell was matched (e.g. "layer 6 is
    this model's top layer; the paper's is 12").

    ``uncertainty`` is the half-width of the run's 95% interval on the value (a bootstrap,
    Fisher-z, Wilson or t interval), NaN where the run gives none (a count of the data, a single
    pair's score): at smoke scale a verdict resting on it is inconclusive (:data:`SMOKE_RULE`)."""

    value: float
    note: str = ""
    uncertainty: float = math.nan


@dataclass(frozen=True)
class NotMeasured:
    """Why a published item has no value here, and what would give it one."""

    reason: str


@dataclass(frozen=True)
class Check:
    """A finding checked on this run (or on the published values): the verdict and the numbers
    it rests on.

    Attributes
    ----------
    verdict
        One of :data:`VERDICTS` (see :func:`judge`).
    evidence
        The numbers behind it, with the paper's words that set its threshold.
    margin
        How far the deciding quantity is past the finding's threshold, in its own units
        (positive: on the side where the finding holds); NaN if not measured.
    uncertainty
        The half-width of the run's 95% interval on the margin; 0 for the published values
        (the check of the numbers as printed); NaN where the run gives no interval (a mean
        over tasks, a single pair's score).
    """

    verdict: Verdict
    evidence: str
    margin: float = math.nan
    uncertainty: float = math.nan


NO_INTERVAL = "no interval at smoke scale: the sign alone does not decide"
"""What the evidence of a margin without an interval says at smoke scale (:func:`judge`)."""


@contextmanager
def requiring_intervals(required: bool = True) -> Iterator[None]:
    """Within the block, :func:`judge` calls a margin without an interval (NaN uncertainty)
    ``inconclusive`` (:data:`SMOKE_RULE`). The runner evaluates a smoke-scale run's checks
    inside it; the checks on the published values (uncertainty 0) are unaffected."""
    token = _INTERVALS_REQUIRED.set(required)
    try:
        yield
    finally:
        _INTERVALS_REQUIRED.reset(token)


def judge(margin: float, uncertainty: float, evidence: str) -> Check:
    """The verdict of a margin: ``not measurable`` if it is NaN, ``inconclusive`` if
    ``|margin| <= uncertainty`` with a positive uncertainty (the run cannot tell), else
    ``holds`` if it is positive and ``does not hold`` if not. A margin known exactly
    (uncertainty 0, as the published values) decides by its sign alone: a margin of exactly 0
    sits on the threshold and does not hold. A margin without an interval (NaN) decides by its
    sign too, except within :func:`requiring_intervals` (a smoke-scale run), where it is
    ``inconclusive`` and the evidence says :data:`NO_INTERVAL`."""
    if math.isnan(margin):
        return Check("not measurable", evidence, margin, uncertainty)
    if math.isnan(uncertainty) and _INTERVALS_REQUIRED.get():
        text = f"{evidence} ({NO_INTERVAL})" if evidence else NO_INTERVAL
        return Check("inconclusive", text, margin, uncertainty)
    if uncertainty > 0 and abs(margin) <= uncertainty:
        verdict: Verdict = "inconclusive"
    else:
        verdict = "holds" if margin > 0 else "does not hold"
    return Check(verdict, evidence, margin, uncertainty)


def with_caveat(check: Check, caveat: str) -> Check:
    """``check`` with ``caveat`` (:meth:`PaperReproduction.caveats`) after its evidence; a
    ``not measurable`` check, or an empty caveat, unchanged."""
    if not caveat or check.verdict == "not measurable":
        return check
    return replace(check, evidence=f"{check.evidence}; {caveat}" if check.evidence else caveat)


def on_substitute(
    check: Check, paper_models: Sequence[str], run_model: str, aliases: Sequence[str] = ()
) -> Check:
    """:data:`NAMED_MODEL_RULE`: ``check`` of a finding about ``paper_models`` (the paper's
    model or models it names; empty for a finding about no model), as measured on
    ``run_model`` (``aliases``: its other names, e.g. the hub id an alias loaded). Unchanged if
    the run's model is one of them (case-insensitive, by the full name or its last path part)
    or the check is ``not measurable``; else the same verdict with the evidence starting
    ``measured on <run_model>, not <paper models>``."""
    if not paper_models or check.verdict == "not measurable":
        return check
    names = {form for name in (run_model, *aliases) for form in _name_forms(name)}
    if any(names & _name_forms(model) for model in paper_models):
        return check
    mark = f"measured on {run_model}, not {' / '.join(paper_models)}"
    return replace(check, evidence=f"{mark}: {check.evidence}" if check.evidence else mark)


def _name_forms(name: str) -> set[str]:
    """A model name as compared: lower case, whole and without its owner (``EleutherAI/``)."""
    lowered = name.lower()
    return {lowered, lowered.rsplit("/", 1)[-1]}


def all_hold(parts: Sequence[Check], evidence: str = "") -> Check:
    """A finding of several parts (or over several models): ``does not hold`` if a part does
    not, else ``inconclusive`` if a part is, else ``not measurable`` if a part is, else
    ``holds``. Its margin and uncertainty are those of the deciding part: the smallest margin
    among the parts with the combined verdict (the weakest part that holds, the worst that
    fails). The evidence is ``evidence`` then every part's."""
    texts = "; ".join(part.evidence for part in parts if part.evidence)
    text = ": ".join(t for t in (evidence, texts) if t)
    if not parts:
        return Check("not measurable", text or "no part measured")
    for verdict in ("does not hold", "inconclusive", "not measurable", "holds"):
        deciding = [part for part in parts if part.verdict == verdict]
        if deciding:
            weakest = min(deciding, key=lambda part: _ordered(part.margin))
            return Check(verdict, text, weakest.margin, weakest.uncertainty)
    raise AssertionError("unreachable: every part has a verdict")  # pragma: no cover


def every_part(parts: Sequence[Check], claim: str) -> Check:
    """A claim about every one of ``parts`` ("on all tasks", "at each size"): the verdict,
    margin and uncertainty of :func:`all_hold`, its evidence grouping the parts by verdict, the
    ones against the claim first: ``claim: 17 of 18 hold (does not hold: a | holds: b; c)``."""
    combined = all_hold(parts)
    held = sum(part.verdict == "holds" for part in parts)
    groups = [
        f"{verdict}: " + "; ".join(part.evidence for part in parts if part.verdict == verdict)
        for verdict in ("does not hold", "inconclusive", "not measurable", "holds")
        if any(part.verdict == verdict for part in parts)
    ]
    text = f"{claim}: {held} of {len(parts)} hold ({' | '.join(groups)})"
    return Check(combined.verdict, text, combined.margin, combined.uncertainty)


def _ordered(margin: float) -> float:
    return math.inf if math.isnan(margin) else margin


def combined_uncertainty(*half_widths: float) -> float:
    """The half-width of the interval on a sum or difference of independent estimates:
    ``sqrt(sum of squared half-widths)`` (NaN if one is NaN). Estimates from the same words
    are positively correlated, so for a difference this is the wider, cautious interval."""
    return math.sqrt(sum(width * width for width in half_widths))


def wilson_interval(successes: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval on a proportion of ``successes`` in ``n`` trials (Wilson
    1927; Brown, Cai & DasGupta 2001 recommend it over the Wald interval for small ``n`` and
    proportions near 0 or 1): the centre ``(p + z²/2n) / (1 + z²/n)`` ±
    ``z sqrt(p (1 - p) / n + z²/4n²) / (1 + z²/n)``, ``p = successes / n``, ``z`` =
    :data:`Z95`. A share of 0 or 1 still gets an interval of positive width. ``(nan, nan)``
    if ``n`` is 0 or ``successes`` is NaN.

    References
    ----------
    .. [1] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
       inference. *JASA* 22(158), 209-212.
    .. [2] Brown, L. D., Cai, T. T. & DasGupta, A. (2001). Interval estimation for a binomial
       proportion. *Statistical Science* 16(2), 101-133.
    """
    if n <= 0 or math.isnan(successes):
        return math.nan, math.nan
    p, z2 = successes / n, Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def clopper_pearson_interval(p: float, n: int) -> tuple[float, float]:
    """The exact 95% binomial interval on a proportion ``p`` of ``n`` trials (Clopper &
    Pearson 1934), via ``scipy.stats.binomtest``; ``(nan, nan)`` if ``n`` is 0 or ``p`` NaN.

    References
    ----------
    .. [1] Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits
       illustrated in the case of the binomial. *Biometrika* 26(4), 404-413.
    """
    if n <= 0 or math.isnan(p):
        return math.nan, math.nan
    from scipy.stats import binomtest  # scipy only here: the command line imports this module

    interval = binomtest(round(p * n), int(n)).proportion_ci(0.95, method="exact")
    return float(interval.low), float(interval.high)


def proportion_half_width(p: float, n: int) -> float:
    """Half the width of the 95% Wilson interval (:func:`wilson_interval`) on a proportion
    ``p`` of ``n`` trials (a share of pairs or phrases); NaN if ``n`` is 0. Unlike the Wald
    interval's, it is positive at ``p`` = 0 or 1: a share of 0 of 38 is not known exactly."""
    return interval_half_width(*wilson_interval(p * n, n))


def interval_half_width(low: float, high: float) -> float:
    """Half the width of an interval ``[low, high]`` (NaN if either end is)."""
    return (high - low) / 2


def printed_range_margin(value: float, low: float, high: float, resolution: float) -> float:
    """How far ``value`` is inside a range the paper prints as ``low-high`` ("1-3 F1 points",
    "+1-5 F1", "20-50%"), whose ends are printed to ``resolution`` (1 for "1-3", .01 for
    ".20-.50").

    The one rounding rule for printed ranges: a value is in the range when it would print
    within it at the range's own precision (rounded half up), that is when
    ``low - resolution / 2 <= value <= high + resolution / 2``: 1.16 and 3.14 F1 points are in
    "1-3"; 0.4 and 3.6 are not. The margin is the distance to the nearer end of that interval,
    positive inside and negative outside (NaN if ``value`` is); a value on an end has margin 0.
    """
    half = resolution / 2
    return min(value - (low - half), high + half - value)


@dataclass(frozen=True)
class Cells:
    """The values of a paper's items from one column of the reproduction table: as published
    or as measured here, for the checks that rest on printed numbers (:class:`TableCheck`).

    Attributes
    ----------
    source
        ``published`` (the paper's values, uncertainty 0) or ``measured`` (this run's values and
        interval half-widths; NaN where an item is not measured).
    paper
        The paper's published items.
    values, uncertainties
        Item id → value and half-width of its 95% interval.
    """

    source: Source
    paper: PaperValues
    values: Mapping[str, float]
    uncertainties: Mapping[str, float]

    @classmethod
    def published(cls, paper: PaperValues) -> Cells:
        """The published values, each known exactly (uncertainty 0)."""
        values = {item.id: item.value for item in paper.items}
        return cls("published", paper, values, dict.fromkeys(values, 0.0))

    @classmethod
    def measured(cls, paper: PaperValues, table: pd.DataFrame) -> Cells:
        """This run's values and uncertainties (columns ``item``, ``measured``,
        ``uncertainty`` of the reproduction table)."""
        items = table["item"].tolist()
        values = dict(zip(items, table["measured"].astype(float), strict=True))
        spread = dict(zip(items, table["uncertainty"].astype(float), strict=True))
        return cls("measured", paper, values, spread)

    @property
    def one_model(self) -> bool:
        """Whether every cell holds the same model's value: a reproduction runs one model, so
        the measured column cannot compare the paper's models with each other."""
        return self.source == "measured"

    def value(self, id: str) -> float:
        """The item's value (NaN if not measured).

        Raises
        ------
        KeyError
            If the paper has no such item.
        """
        self.paper.item(id)
        return float(self.values.get(id, math.nan))

    def uncertainty(self, id: str) -> float:
        """The half-width of the item's 95% interval (0 published; NaN if none)."""
        self.paper.item(id)
        return float(self.uncertainties.get(id, math.nan))

    def across_models(self, what: str) -> Check | None:
        """``not measurable`` for a comparison of the paper's models on the measured column
        (see :attr:`one_model`), else None."""
        if not self.one_model:
            return None
        return Check(
            "not measurable",
            f"compares {what}; a reproduction runs one model: run it on each model and compare",
        )


TableFunction = Callable[[Cells], Check]


@dataclass(frozen=True)
class TableCheck:
    """A finding that rests on numbers the paper prints: the items it reads and the check over
    their values, evaluated on the published values and on this run's.

    Attributes
    ----------
    items
        The ids of the published items the check reads.
    check
        The check over :class:`Cells` (it reads only ``items``).
    """

    items: tuple[str, ...]
    check: TableFunction

    def rests_on(self, paper: PaperValues) -> str:
        """Where its numbers are printed: ``Table 2 (24 cells); text (2 numbers)``."""
        counts: dict[str, int] = {}
        for id in self.items:
            where = paper.item(id).location
            name = "text" if where.kind == "text" else f"{where.kind.title()} {where.number}"
            counts[name] = counts.get(name, 0) + 1
        return "; ".join(
            f"{name} ({count} {'numbers' if name == 'text' else 'cells'})"
            for name, count in counts.items()
        )


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
        Experiment name → why it did not finish (``stage <name> failed: <reason>``).
    table
        One row per published item (module notes).
    findings
        One row per finding: ``finding``, ``claim``, ``location``, ``verdict``, ``evidence``.
    unfinished
        Experiment name → what a failed experiment finished: its tables before the failing
        stage and the stages' costs (metadata ``stages``); not complete.
    skipped
        Experiment name → why it did not run: an option only the user can give was not given
        (:attr:`Experiment.requires`). A skipped experiment is not a failure.
    limit
        Quick mode (``--limit``, passed to every experiment); None: not limited.
    """

    paper: PaperValues
    model: str
    scale: Scale
    experiments: list[Experiment]
    runs: dict[str, Run]
    failures: dict[str, str]
    table: pd.DataFrame
    findings: pd.DataFrame
    unfinished: dict[str, Run] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    limit: int | None = None

    @property
    def quick_mode(self) -> str | None:
        """What a run with ``--limit`` says of itself (None: not limited)."""
        if self.limit is None:
            return None
        return (
            f"quick mode (--limit {self.limit}: every experiment on the first {self.limit} "
            "words, pairs or sentences of each set): no number is comparable with the paper, "
            f"and every finding's verdict is {NOT_COMPARABLE!r}"
        )

    def status(self, experiment: str) -> str:
        """``done``, ``failed`` or ``skipped``."""
        if experiment in self.failures:
            return "failed"
        return "skipped" if experiment in self.skipped else "done"


Runs = Mapping[str, Run]
"""The runs of a reproduction by experiment name (failed or skipped experiments are absent)."""
CheckFunction = Callable[[Runs], Check]
"""The check of a finding that rests on a figure or on prose: a function of the runs."""
FindingCheck = CheckFunction | TableCheck


class PaperReproduction(ABC):
    """One paper's reproduction (see the module notes)."""

    paper: ClassVar[str]

    @abstractmethod
    def experiments(self, scale: Scale) -> list[Experiment]:
        """The experiments to run, in order."""

    @abstractmethod
    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        """This run's value of ``item``."""

    def checks(self) -> Mapping[str, FindingCheck]:
        """Finding id → its check; findings without one are reported as not measurable."""
        return {}

    def basis(self) -> Mapping[str, str]:
        """Finding id → what a finding without printed numbers rests on (``Figure 2``,
        ``prose``); a :class:`TableCheck` names its own cells. Unlisted: ``prose``."""
        return {}

    def caveats(self, runs: Runs) -> Mapping[str, str]:
        """Finding id → what this run's setup means for the finding's verdict on it (e.g. a
        smoke sample that changes what its numbers measure), which the runner appends to the
        evidence of a measured verdict. Default: none."""
        return {}

    def named_models(self) -> Mapping[str, tuple[str, ...]]:
        """Finding id → the paper's model(s) the finding is about (hub ids or the paper's
        names), for :data:`NAMED_MODEL_RULE` (:func:`on_substitute`). Unlisted: a finding
        about no one model (a data set, a comparison of models)."""
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
