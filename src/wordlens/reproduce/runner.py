"""Run a paper's reproduction and write the reproduction table, the findings and the report.

``reproduce("vast", ModelOptions("gpt2"), out)`` runs the paper's experiments
(:meth:`~wordlens.reproduce.base.PaperReproduction.experiments`) with
:func:`wordlens.methods.base.run_method` into ``out/<experiment>/``, then writes

- ``reproduction.{parquet,csv,json}``: one row per published item of the paper
  (:mod:`wordlens.reproduce.published`) with its location, the published value and model, this
  run's measured value and model, the half-width of the run's interval on it (``uncertainty``),
  the difference, whether they agree to the paper's printed precision, and a note (another
  model, a missing data set, a smaller sample);
- ``findings.{parquet,csv,json}``: each finding of the paper with what it rests on (printed
  cells, a figure, prose), its verdict on this run with the margin, the uncertainty and the
  evidence, and ``published_verdict`` (with its margin and evidence): the same check on the
  published values, ``not measurable`` where the paper prints no number for it;
  ``self_contradiction`` marks a finding whose words the paper's own printed numbers do not
  support (its published verdict is ``does not hold``), ``quote`` gives those words;
- ``report.html``: the findings first (and where the paper's numbers do not support its words),
  then every table beside ours, the figures to compare by
  eye and the experiments with their departures.

An experiment that fails (a data set that is not here, a model the method cannot use) does not
stop the others: its error is kept, and the items it would measure say so.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from wordlens.errors import DeviceError, WordlensError
from wordlens.methods.base import output_dir, run_method, written_beside
from wordlens.methods.registry import get_method
from wordlens.models.options import ModelOptions
from wordlens.options import OptionError, config_from_values, option, option_specs
from wordlens.reproduce.base import (
    NOT_COMPARABLE,
    SCALES,
    Cells,
    Check,
    Experiment,
    Measured,
    NotMeasured,
    PaperReproduction,
    Reproduction,
    Runs,
    Scale,
    TableCheck,
    on_substitute,
    printed_range_margin,
    requiring_intervals,
    with_caveat,
)
from wordlens.reproduce.published import PAPERS, PaperValues, PublishedItem, load_published
from wordlens.results import Result, Run
from wordlens.stages import StageLog, stage_failure

if TYPE_CHECKING:  # imported where the tables are built: the command line imports this module
    import pandas as pd

Status = Callable[[str], AbstractContextManager[object]]
T = TypeVar("T")
_MODULES = {
    "vast": "wordlens.reproduce.vast",
    "sense-bias": "wordlens.reproduce.sense_bias",
    "intersectional": "wordlens.reproduce.intersectional",
    "asymmetry": "wordlens.reproduce.asymmetry",
    "probing": "wordlens.reproduce.probing",
}
"""Paper → the module whose ``REPRODUCTION`` reproduces it."""


def _quiet(text: str) -> AbstractContextManager[object]:
    return nullcontext()


@dataclass(frozen=True)
class ReproduceOptions:
    """What ``wordlens reproduce`` runs: which papers, at which scale."""

    papers: tuple[str, ...] = option((), f"Papers: {', '.join(PAPERS)}, or all.", argument=True)
    scale: Scale = option(
        "paper", "paper (the paper's sample sizes) or smoke (small samples: a quick check)."
    )
    set: tuple[str, ...] = option(
        (),
        "Method options for every experiment whose method has them, as OPTION=VALUE (comma "
        "list), e.g. swow_file=strength.SWOW-EN.R123.csv for the data you provide.",
    )

    def overrides(self) -> dict[str, str]:
        """``set`` as option → value.

        Raises
        ------
        WordlensError
            If an entry is not OPTION=VALUE.
        """
        pairs = [entry.split("=", 1) for entry in self.set]
        if any(len(pair) != 2 or not pair[0].strip() for pair in pairs):
            raise WordlensError(f"--set takes OPTION=VALUE entries, got {', '.join(self.set)}")
        return {name.strip(): value.strip() for name, value in pairs}

    def check(self) -> None:
        """At least one paper, each known (``all`` stands for every paper); ``set`` readable, and
        each of its options taken by an experiment of a chosen paper (before any model loads)."""
        check_overrides(
            [experiment for paper in self.chosen() for experiment in experiments_of(paper)],
            self.overrides(),
        )

    def chosen(self) -> tuple[str, ...]:
        """The papers, ``all`` expanded, in the order given.

        Raises
        ------
        WordlensError
            If none is given or one is unknown.
        """
        if not self.papers:
            raise WordlensError(f"name a paper to reproduce: {', '.join(PAPERS)} or all")
        chosen = PAPERS if "all" in self.papers else self.papers
        unknown = [paper for paper in chosen if paper not in PAPERS]
        if unknown:
            raise WordlensError(f"unknown paper {unknown[0]!r}; known: {', '.join(PAPERS)}, all")
        if self.scale not in SCALES:
            raise WordlensError(f"unknown scale {self.scale!r}: use {', '.join(SCALES)}")
        return tuple(dict.fromkeys(chosen))


def reproduction_of(paper: str) -> PaperReproduction:
    """The registered reproduction of ``paper`` (one of :data:`PAPERS`).

    Raises
    ------
    WordlensError
        If the paper is unknown.
    """
    if paper not in _MODULES:
        raise WordlensError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    reproduction: PaperReproduction = importlib.import_module(_MODULES[paper]).REPRODUCTION
    return reproduction


def experiments_of(paper: str) -> list[Experiment]:
    """``paper``'s experiments at paper scale (the smoke scale runs the same methods)."""
    return reproduction_of(paper).experiments("paper")


def option_names(method: str) -> set[str]:
    """Every name (and alias) of the registered ``method``'s options."""
    config_type = get_method(method).config_type
    return {alias for spec in option_specs(config_type) for alias in spec.aliases()}


def check_overrides(experiments: Sequence[Experiment], overrides: Mapping[str, Any]) -> None:
    """Refuse an override that no experiment takes (a typo in ``swow_file=`` would otherwise
    run without the user's data), or whose value an experiment that takes it cannot read
    (``seed=abc``, ``seed=-1``: every such experiment would fail, after its model loaded).

    Raises
    ------
    WordlensError
        Naming the unknown options and the options each experiment's method takes.
    OptionError
        Naming the value and the experiment (:func:`experiment_config`).
    """
    takes: dict[str, list[str]] = {}
    for experiment in experiments:
        takes.setdefault(experiment.method, []).append(experiment.name)
    accepted = {method: option_names(method) for method in takes}
    unknown = sorted(set(overrides) - set().union(*accepted.values()))
    if unknown:
        listed = "; ".join(
            f"{', '.join(names)} ({method}): {', '.join(sorted(accepted[method]))}"
            for method, names in takes.items()
        )
        raise WordlensError(
            f"--set {', '.join(unknown)}: no experiment takes "
            f"{'it' if len(unknown) == 1 else 'them'}. The experiments take: {listed}"
        )
    for experiment in experiments:
        given = _given(experiment, overrides)
        if given and experiment.skipped_because(given) is None:
            experiment_config(experiment, given)


def experiment_config(experiment: Experiment, given: Mapping[str, Any]) -> Any:
    """The config of ``experiment``'s method: its options with the user's ``given`` ones
    (:func:`_given`) over them.

    Raises
    ------
    OptionError
        If a value cannot be read or is not allowed: ``--set seed=abc: not an integer: 'abc'
        (experiment weat)`` for one of ``given``; an experiment's own options as they are.
    """
    config_type = get_method(experiment.method).config_type
    try:
        return config_from_values(config_type, {**experiment.options, **given}, python=True)
    except OptionError as error:
        if error.option not in given:
            raise
        entry = f"--set {error.option}={given[error.option]}"
        raise OptionError(entry, f"{error.detail} (experiment {experiment.name})") from None


def reproduce(
    paper: str,
    model: ModelOptions,
    out_dir: Path,
    *,
    scale: Scale = "paper",
    overrides: Mapping[str, Any] | None = None,
    progress: bool = False,
    status: Status = _quiet,
    on_experiment: Callable[[Experiment], None] | None = None,
) -> Reproduction:
    """Run ``paper``'s experiments on ``model`` and write the reproduction into ``out_dir``.

    ``overrides`` sets method options in every experiment whose method has them (the data a user
    provides, e.g. ``{"swow_file": path}``).

    Raises
    ------
    WordlensError
        If the paper is unknown, an override is an option of no experiment or has a value an
        experiment cannot read, or ``out_dir`` cannot be written (before anything runs).
    DeviceError
        If the model's device is unknown or not available here: raised by the first experiment's
        model load, before any weights load, rather than recorded as that experiment's failure
        (every experiment would fail alike, leaving a report with nothing measured).
    KeyboardInterrupt
        Passed on: finished experiments keep their outputs and the activation cache.
    """
    import pandas as pd

    definition = reproduction_of(paper)
    published = load_published(paper)
    experiments = definition.experiments(scale)
    check_overrides(experiments, overrides or {})
    output_dir(out_dir)
    runs: dict[str, Run] = {}
    failures: dict[str, str] = {}
    unfinished: dict[str, Run] = {}
    skipped: dict[str, str] = {}
    for experiment in experiments:
        given = _given(experiment, overrides)
        reason = experiment.skipped_because(given)
        if reason is not None:
            skipped[experiment.name] = reason
            continue
        if on_experiment is not None:
            on_experiment(experiment)
        method = get_method(experiment.method)
        log = StageLog(progress)
        try:
            config = experiment_config(experiment, given)
            run, _ = run_method(
                method,
                model,
                config,
                out_dir / experiment.name,
                progress=progress,
                status=status,
                stage_log=log,
            )
        except DeviceError:
            raise  # every experiment would fail alike: stop at the first model load instead
        except Exception as error:  # a failed stage stops its experiment only
            failures[experiment.name] = stage_failure(error)
            unfinished[experiment.name] = Run(
                experiment.method, dict(log.tables), {"stages": log.as_metadata()}, False
            )
            continue
        runs[experiment.name] = run
    model_name = model.required_model()
    departs = any(experiment.departure for experiment in experiments)
    departures = "the runs depart from the paper (see Experiments)" if departs else ""
    table = pd.DataFrame(
        [
            _row(
                published.paper, item, definition.measure(item, runs), model_name, runs, departures
            )
            for item in published.items
        ]
    )
    findings = _findings(published, definition, runs, table, scale, model_name)
    if model.limit is not None:  # a limited run is no verdict on the paper
        table, findings = _not_comparable(table, findings, model.limit)
    reproduction = Reproduction(
        published,
        model_name,
        scale,
        experiments,
        runs,
        failures,
        table,
        findings,
        unfinished,
        skipped,
        model.limit,
    )
    _write(reproduction, out_dir)
    return reproduction


def plan_reproduction(
    paper: str,
    model: ModelOptions,
    *,
    scale: Scale = "paper",
    overrides: Mapping[str, Any] | None = None,
    status: Status = _quiet,
) -> dict[str, dict[str, Any] | str]:
    """Each experiment's plan (:meth:`~wordlens.methods.base.Method.plan`, as
    :meth:`~wordlens.plan.Plan.as_metadata`), or why it has none; nothing runs, nothing is
    written."""
    experiments = reproduction_of(paper).experiments(scale)
    check_overrides(experiments, overrides or {})
    planned = replace(model, plan=True)
    plans: dict[str, dict[str, Any] | str] = {}
    for experiment in experiments:
        method = get_method(experiment.method)
        given = _given(experiment, overrides)
        reason = experiment.skipped_because(given)
        if reason is not None:
            plans[experiment.name] = reason
            continue
        config = experiment_config(experiment, given)
        try:
            run, _ = run_method(method, planned, config, None, status=status)
        except WordlensError as error:
            plans[experiment.name] = str(error)
            continue
        plans[experiment.name] = run.metadata["plan"]
    return plans


def _given(experiment: Experiment, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """The user's ``--set`` values that are options of ``experiment``'s method."""
    names = option_names(experiment.method)
    return {name: value for name, value in (overrides or {}).items() if name in names}


def location_text(item: PublishedItem) -> str:
    """``Table 1, row Before, column Random``; ``Figure 2, series gpt2, x 3``; ``text, Results``."""
    where = item.location
    head = "text" if where.kind == "text" else f"{where.kind.title()} {where.number}"
    parts = [
        f"{name} {value}"
        for name, value in (
            ("section", where.section),
            ("panel", where.panel),
            ("row", where.row),
            ("column", where.column),
            ("series", where.series),
            ("x", where.x),
        )
        if value is not None
    ]
    return ", ".join([head, *parts])


def _row(
    paper: str,
    item: PublishedItem,
    measured: Measured | NotMeasured,
    model_name: str,
    runs: Runs,
    departures: str,
) -> dict[str, Any]:
    value = measured.value if isinstance(measured, Measured) else math.nan
    uncertainty = measured.uncertainty if isinstance(measured, Measured) else math.nan
    same_model = _same_model(item.model, model_name, runs)
    notes = [measured.note if isinstance(measured, Measured) else measured.reason]
    if isinstance(measured, Measured) and item.model is not None and not same_model:
        notes.append(f"the paper's model is {item.model}: the same experiment on another model")
    if isinstance(measured, Measured) and departures:
        notes.append(departures)
    return {
        "paper": paper,
        "item": item.id,
        "location": location_text(item),
        "quantity": item.quantity,
        "published": item.value,
        "printed": item.printed,
        "relation": item.relation,
        "paper_model": item.model or "",
        "data": item.data,
        "setting": json.dumps(dict(item.setting), sort_keys=True),
        "measured": value,
        "uncertainty": uncertainty,
        "model": model_name,
        "difference": value - item.value if isinstance(measured, Measured) else math.nan,
        "agrees": _agrees(item, value) if isinstance(measured, Measured) else None,
        "same_model": same_model,
        "note": "; ".join(note for note in notes if note),
    }


def _agrees(item: PublishedItem, value: float) -> bool:
    """Whether ``value`` agrees with the published number as the paper states it: to its
    printed precision (``eq``, ``approx``), within a bound (``lt``..``ge``) or a range."""
    if math.isnan(value):
        return False
    resolution = _resolution(item)
    if item.relation == "range" and item.upper is not None:
        return printed_range_margin(value, item.value, item.upper, resolution) >= -_ROUNDING
    half = resolution / 2 + _ROUNDING  # a value printed as .32 is in [.315, .325]
    published = item.value
    bounds = {
        "lt": value < published + half,
        "le": value <= published + half,
        "gt": value > published - half,
        "ge": value >= published - half,
    }
    return bool(bounds.get(item.relation, abs(value - published) <= half))


_ROUNDING = 1e-12
"""Floating-point slack at the ends of a printed number's interval (.315 is in ".32")."""


def _resolution(item: PublishedItem) -> float:
    """The printed precision; for a corrected value (printed "34", read as .34), the precision
    of the value as corrected."""
    if item.correction is None:
        return item.resolution
    decimals = repr(item.value).partition(".")[2].rstrip("0")
    return 10.0 ** -len(decimals)


def _same_model(paper_model: str | None, model_name: str, runs: Runs) -> bool:
    """Whether this run's model is the paper's (by hub id or loaded name)."""
    if paper_model is None:
        return False
    return paper_model.lower() in _model_names(model_name, runs)


def _model_names(model_name: str, runs: Runs) -> set[str]:
    """This run's model as given and as each run loaded it (a hub id for an alias), lower
    case."""
    names = {model_name.lower()}
    for run in runs.values():
        model = run.metadata.get("model")
        if isinstance(model, dict) and "name" in model:
            names.add(str(model["name"]).lower())
    return names


def _findings(
    published: PaperValues,
    definition: PaperReproduction,
    runs: Runs,
    table: pd.DataFrame,
    scale: Scale = "paper",
    model_name: str = "",
) -> pd.DataFrame:
    """One row per finding: its verdict on this run and on the published values.

    The run's checks are evaluated within :func:`~wordlens.reproduce.base.requiring_intervals`
    at smoke scale (a margin without an interval is inconclusive); the reproduction's caveats
    on this run (:meth:`~wordlens.reproduce.base.PaperReproduction.caveats`) follow their
    evidence, and a finding about a named model of the paper measured on ``model_name`` is
    marked by :func:`~wordlens.reproduce.base.on_substitute`."""
    import pandas as pd

    checks = definition.checks()
    basis = definition.basis()
    named = definition.named_models()
    caveats = definition.caveats(runs)
    on_published = Cells.published(published)
    on_measured = Cells.measured(published, table)
    unprinted = Check("not measurable", "the paper prints no number for it")
    rows = []
    for finding in published.findings:
        check = checks.get(finding.id)
        if isinstance(check, TableCheck):
            rests_on = check.rests_on(published)
            with requiring_intervals(scale == "smoke"):
                measured = _evaluated(check.check, on_measured)
            paper = _evaluated(check.check, on_published)
        elif check is None:
            rests_on, measured, paper = basis.get(finding.id, "prose"), _NO_CHECK, unprinted
        else:
            rests_on = basis.get(finding.id, "prose")
            with requiring_intervals(scale == "smoke"):
                measured = _evaluated(check, runs)
            paper = unprinted
        measured = with_caveat(measured, caveats.get(finding.id, ""))
        measured = on_substitute(
            measured, named.get(finding.id, ()), model_name, sorted(_model_names(model_name, runs))
        )
        rows.append(
            {
                "finding": finding.id,
                "claim": finding.claim,
                "quote": finding.quote,
                "location": finding.location,
                "rests_on": rests_on,
                "verdict": measured.verdict,
                "margin": measured.margin,
                "uncertainty": measured.uncertainty,
                "evidence": measured.evidence,
                "published_verdict": paper.verdict,
                "published_margin": paper.margin,
                "published_evidence": paper.evidence,
                "self_contradiction": paper.verdict == "does not hold",
            }
        )
    return pd.DataFrame(rows)


_NO_CHECK = Check("not measurable", "no check: the experiment is not in wordlens")


def _not_comparable(
    table: pd.DataFrame, findings: pd.DataFrame, limit: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A reproduction run with ``--limit``: no published number agrees or disagrees (``agrees``
    None, the note saying why) and every finding's verdict is :data:`NOT_COMPARABLE`, the check
    it would have had kept in its evidence."""
    said = f"not comparable with the paper (--limit {limit})"
    table = table.assign(
        agrees=None, note=[f"{note}; {said}" if note else said for note in table["note"]]
    )
    findings = findings.assign(
        evidence=[
            f"{said}; on this limited run the check gives: {verdict} ({evidence})"
            for verdict, evidence in zip(findings["verdict"], findings["evidence"], strict=True)
        ],
        verdict=NOT_COMPARABLE,
    )
    return table, findings


def _evaluated(check: Callable[[T], Check], on: T) -> Check:
    """The check's outcome on ``on``; ``not measurable`` if the tables lack what it needs."""
    try:
        return check(on)
    except (KeyError, ValueError) as error:
        return Check("not measurable", f"the tables lack what it needs ({error})")


def _stages_of(reproduction: Reproduction, experiment: str) -> list[dict[str, Any]]:
    """The recorded stages of ``experiment`` (finished or failed part-way); none if it never
    started one."""
    run = reproduction.runs.get(experiment) or reproduction.unfinished.get(experiment)
    return [] if run is None else list(run.metadata.get("stages", []))


def _write(reproduction: Reproduction, out_dir: Path) -> list[Path]:
    from wordlens.reproduce.report import reproduction_report

    metadata = {
        "paper": reproduction.paper.paper,
        "citation": reproduction.paper.citation,
        "model": reproduction.model,
        "scale": reproduction.scale,
        "limit": reproduction.limit,
        **({"quick_mode": reproduction.quick_mode} if reproduction.quick_mode else {}),
        "experiments": [
            {
                "name": e.name,
                "method": e.method,
                "options": dict(e.options),
                "departure": e.departure,
                "status": reproduction.status(e.name),
                "error": reproduction.failures.get(e.name) or reproduction.skipped.get(e.name),
                "stages": _stages_of(reproduction, e.name),
            }
            for e in reproduction.experiments
        ],
    }
    with written_beside(out_dir, "reproduction.json") as staged:
        written = Result("reproduction", reproduction.table, metadata).write(staged)
        written += Result("findings", reproduction.findings, metadata).write(staged)
        written.append(reproduction_report(reproduction).write(staged / "report.html"))
    return [out_dir / path.name for path in written]
