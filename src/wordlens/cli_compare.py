"""A method's command on several models or queries: ``wordlens weat -m A -m B --query q1.yaml
--query q2.yaml`` runs a comparison (:mod:`wordlens.comparison`) instead of one run."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from wordlens.cli_listings import emit, run_listing
from wordlens.cli_parts import console, errors, say_error, spinner, warn
from wordlens.errors import WordlensError
from wordlens.methods.base import Method
from wordlens.models.options import ModelOptions
from wordlens.options import OptionError

LAYER_CHOICE_HELP = (
    "With several models or queries: the layer each model is ranked at: 'last', 'best' (per "
    "metric, the layer of strongest association) or a layer number; static vectors have layer "
    "0 only, used whatever the choice."
)


@dataclass(frozen=True)
class Compared:
    """The models and queries a command was given (``--model`` and ``--query`` repeated).

    Attributes
    ----------
    models
        Every ``--model``, in order (empty when none was given).
    queries
        Every ``--query`` as a file, or ``[None]`` when none was given (or the method takes
        none).
    """

    models: list[str]
    queries: list[Path | None]

    @property
    def several(self) -> bool:
        """Whether there is more than one model or query: a comparison."""
        return len(self.models) > 1 or len(self.queries) > 1


def compared_values(values: dict[str, Any]) -> Compared:
    """Take the repeated ``model`` and ``query`` out of a command's ``values``, leaving the
    first of each there (what a single run reads)."""
    models = list(values.get("model") or [])
    values["model"] = models[0] if models else None
    queries: list[Path | None] = [None]
    if "query" in values:
        given = list(values["query"] or [])
        values["query"] = given[0] if given else None
        queries = [None if text == "none" else Path(text) for text in given] or [None]
    return Compared(models, queries)


def layer_choice_parameter() -> inspect.Parameter:
    """The ``--layer-choice`` option of a method's command (:data:`LAYER_CHOICE_HELP`)."""
    return inspect.Parameter(
        "layer_choice",
        inspect.Parameter.KEYWORD_ONLY,
        default="last",
        annotation=Annotated[
            str, typer.Option("--layer-choice", help=LAYER_CHOICE_HELP, metavar="<last|best|N>")
        ],
    )


def check_single(compared: Compared, layer_choice: str) -> None:
    """Say that ``--layer-choice`` does nothing in a single run."""
    if not compared.several and layer_choice != "last":
        warn(
            f"--layer-choice {layer_choice} ranks models in a comparison (several --model or "
            "--query); one run reports every layer"
        )


def run_compared(
    method: Method[Any],
    model: ModelOptions,
    config: Any,
    compared: Compared,
    out_dir: Path,
    layer_choice: str,
    as_json: bool,
) -> None:
    """Run the comparison, print its rankings (or, with ``as_json``, its tables as JSON) and
    where it is; exit 1 when a run failed (the others are written)."""
    from wordlens.comparison.rankings import parse_layer_choice
    from wordlens.comparison.report import comparison_console
    from wordlens.comparison.runner import cell_finished, cell_started, run_comparison

    if model.plan:
        raise WordlensError("--plan plans one run: give one --model and one --query")
    try:
        choice = parse_layer_choice(layer_choice)
    except ValueError as error:
        raise OptionError("--layer-choice", str(error)) from None
    comparison, written = run_comparison(
        method, model, compared.models, compared.queries, config, out_dir,
        layer_choice=choice, progress=True, status=spinner,
        on_cell=lambda state: errors.print(cell_started(state), markup=False),
        on_done=lambda record: errors.print(cell_finished(record), markup=False),
    )  # fmt: skip
    if as_json:
        emit(run_listing(comparison, written), True, console)
    else:
        for renderable in comparison_console(comparison):
            console.print(renderable)
        console.print(f"report: {out_dir / 'report.html'} ({len(written)} files in {out_dir})")
    if comparison.failed:
        say_error(f"{len(comparison.failed)} of {len(comparison.tables['cells'])} runs failed")
        raise typer.Exit(1)
