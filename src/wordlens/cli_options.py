"""The commands generated from option declarations (:func:`options_command`): a method's, and
``embed`` and ``reproduce``, whose options are a config's and the model options'."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from wordlens.cli_compare import compared_values
from wordlens.cli_parts import (
    force_parameter,
    handle_errors,
    parameters,
    take_deprecated,
    warn,
    warnings_said,
)
from wordlens.methods.base import check_output_dir
from wordlens.models.options import ModelOptions
from wordlens.options import config_from_values, option_specs

Body = Callable[..., None]
"""What a generated command does with the model options, its config and ``--out``, then the set
it adds the lines it prints that repeat a Python warning to (a run's notes, so that the warning
is not said again: :func:`~wordlens.cli_parts.warnings_said`), and its ``extra`` options'
values by name."""


def options_command(
    config_type: type[Any],
    body: Body,
    *,
    help: str,
    model_options: Sequence[str],
    model_required: bool,
    out: inspect.Parameter,
    out_folder: bool = True,
    extra: Sequence[inspect.Parameter] = (),
    compares: bool = False,
) -> Callable[..., None]:
    """A command whose options are ``config_type``'s and the named :class:`ModelOptions`
    fields (with ``--model``), plus ``out``; it reads them (:func:`config_from_values`) and
    calls ``body``. With ``out_folder`` (``--out`` names a folder) it takes ``--force`` too,
    and refuses a folder that is not safe to write into without it
    (:func:`~wordlens.methods.base.check_output_dir`). With ``compares``, ``--model`` and
    ``--query`` may be repeated: the config and model options hold the first, and ``body``
    gets every one as ``compared`` (:class:`~wordlens.cli_compare.Compared`)."""
    model_specs = [
        spec for spec in option_specs(ModelOptions) if spec.name in ("model", *model_options)
    ]
    specs = [*option_specs(config_type), *model_specs[1:]]
    repeated = {"model", "query"} if compares else set()
    found = [*parameters(model_specs[0], required=model_required, repeated=compares), out]
    found += [force_parameter()] if out_folder else []
    found += extra
    found += [p for spec in specs for p in parameters(spec, repeated=spec.name in repeated)]
    model_names = [spec.name for spec in model_specs]
    arguments = [spec.name for spec in option_specs(config_type) if spec.info.argument]

    def command(**values: Any) -> None:
        for warning in take_deprecated(values, specs):
            warn(warning)
        for name in arguments:  # no positional arguments given: typer passes None
            if values[name] is None:
                del values[name]
        out_path = values.pop("out")
        force = values.pop("force", False)
        extras = {parameter.name: values.pop(parameter.name) for parameter in extra}
        if compares:
            extras["compared"] = compared_values(values)
        with warnings_said(warn) as printed:
            model_values = {name: values.pop(name) for name in model_names}
            model = config_from_values(ModelOptions, model_values)
            config = config_from_values(config_type, values)
            if out_folder:
                check_output_dir(out_path, force=force)
            body(model, config, out_path, printed, **extras)

    command.__signature__ = inspect.Signature(found)  # type: ignore[attr-defined]
    command.__annotations__ = {parameter.name: parameter.annotation for parameter in found}
    command.__doc__ = help
    return handle_errors(command)
