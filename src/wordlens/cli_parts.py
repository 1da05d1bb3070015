"""Pieces of the ``wordlens`` command line kept out of :mod:`wordlens.cli` (which stays thin).

- :class:`Command` and :class:`Group`: typer's command classes whose ``--help`` shows help texts
  as written (typer reads them as Rich markup, which drops bracketed text such as ``[default:
  paper's]``) and no type beside a flag (``--no-cache``, ``--help``).
- :data:`CONTEXT`: ``-h`` as well as ``--help`` (inherited by every command).
- :func:`root_options`: the ``--version`` option of the ``wordlens`` command.
- :func:`parameters`: the typer parameters of one :class:`~wordlens.options.OptionSpec`, with
  hidden ones for its deprecated flags, and :func:`take_deprecated` to read those back.
- :data:`console` and :data:`errors` (stdout and stderr), which print text as written (no Rich
  markup: messages, titles and paths hold the user's text, ``q/[v2]/dup.yaml``), and
  :func:`say_error`, :func:`warn` and :func:`spinner`, which print on ``errors``.
- :func:`warnings_said`: the Python warnings of a command (former option values read, a run's
  notes, a cache shard moved aside) said as warning lines, once each, and not again when the
  command has printed them already.
"""

from __future__ import annotations

import inspect
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

from wordlens._version import __version__
from wordlens.errors import Terminated, WordlensError
from wordlens.methods.base import invoked_as
from wordlens.options import OptionSpec

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT: dict[str, Any] = {"help_option_names": ["-h", "--help"]}
"""Context settings of the ``wordlens`` group: its commands inherit them."""
# Tables are wide (a column per WEAT test): do not squeeze them to 80 columns when piped.
console = Console(width=None if sys.stdout.isatty() else 200, markup=False)
"""What a command prints (stdout): text as written, styles only where given (Rich ``Text``)."""
errors = Console(stderr=True, soft_wrap=True, markup=False)
"""Errors, warnings, spinners and stage lines (stderr), as :data:`console`."""
DEPRECATED = "__deprecated_"
"""Infix of the parameter name of a deprecated flag (``svc_c__deprecated_0`` for ``--c``)."""


@contextmanager
def _as_written(command: Any, ctx: Any) -> Iterator[None]:
    """While ``command``'s help is rendered: its help, its options' and its subcommands' help
    escaped for Rich markup (shown as written), and no type shown beside a flag."""
    params = [*command.get_params(ctx)]
    texts = [command, *params, *getattr(command, "commands", {}).values()]
    saved_help = [(item, item.help) for item in texts]
    flags = [param for param in params if getattr(param, "is_flag", False)]
    saved_metavar = [(param, param.metavar) for param in flags]
    try:
        for item in texts:
            if item.help:
                item.help = escape(item.help)
        for param in flags:
            param.metavar = ""  # typer shows `<bool>` unless a metavar is set
        yield
    finally:
        for item, text in saved_help:
            item.help = text
        for param, metavar in saved_metavar:
            param.metavar = metavar


class Command(TyperCommand):
    """A command whose ``--help`` shows its texts as written and flags without a type."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _as_written(self, ctx):
            super().format_help(ctx, formatter)


class Group(TyperGroup):
    """A group whose ``--help`` shows its texts as written and flags without a type, and whose
    runs record the command line."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        with _as_written(self, ctx):
            super().format_help(ctx, formatter)

    def main(self, args: Sequence[str] | None = None, *rest: Any, **options: Any) -> Any:
        """Run the command line ``args`` (None: the process's); each run it makes records it as
        ``wordlens`` and the arguments as given (:func:`~wordlens.methods.base.invoked_as`)."""
        given = list(sys.argv[1:] if args is None else args)
        with invoked_as({"argv": ["wordlens", *given]}):
            return super().main(given, *rest, **options)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"wordlens {__version__}")
        raise typer.Exit()


def root_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print the version and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
) -> None:
    """The options of ``wordlens`` itself (before the command)."""


def out_parameter(default: Path | None, help: str) -> inspect.Parameter:
    """The ``--out`` option (required when ``default`` is None)."""
    return inspect.Parameter(
        "out",
        inspect.Parameter.KEYWORD_ONLY,
        default=inspect.Parameter.empty if default is None else default,
        annotation=Annotated[Path, typer.Option(help=help)],
    )


def json_parameter() -> inspect.Parameter:
    """The ``--json`` option of a method's command: its result tables as one JSON document on
    stdout and nothing else there (progress, stages and notes go to stderr)."""
    return inspect.Parameter(
        "as_json",
        inspect.Parameter.KEYWORD_ONLY,
        default=False,
        annotation=Annotated[
            bool,
            typer.Option(
                "--json",
                help="Print the result tables as one JSON document on stdout (nothing else "
                "there: progress and notes go to stderr), for scripts; the files are written "
                "all the same.",
            ),
        ],
    )


def force_parameter() -> inspect.Parameter:
    """The ``--force`` option of a command whose ``--out`` is a folder."""
    return inspect.Parameter(
        "force",
        inspect.Parameter.KEYWORD_ONLY,
        default=False,
        annotation=Annotated[
            bool,
            typer.Option(
                help="Write into --out even if it is a filesystem root, the home folder or a "
                "folder that holds other files than results of wordlens (its files are kept)."
            ),
        ],
    )


REPEATED_HELP = "Repeat to compare several (ranked by bias as WEFE ranks them)."
"""What the help of a flag that may be repeated adds (``--model``, ``--query``)."""
_TYPE_NAMES = {str: "str", int: "int", float: "float", Path: "path"}
_LONGEST_CHOICES = 24
"""Choices longer than this together (``random|bleached|aligned|misaligned``) show as
``<choice>``: the help text lists them, and the help column keeps its width."""


def metavar(spec: OptionSpec) -> str | None:
    """What ``--help`` shows beside a flag: the type its values are read as, not the text typer
    reads them through (``<int>`` for ``--token-budget``, ``<path>`` for ``--query``), the
    choices (``<template|none>``, or ``<choice>`` when they are long), a list as ``<int,...>``
    and layers as ``<layers>``; None for a flag without a value."""
    if spec.item_type is bool and not spec.is_list:
        return None
    if spec.info.parse == "layers":
        return "<layers>"
    choices = "|".join(spec.choices)
    named = choices if choices and len(choices) <= _LONGEST_CHOICES else "choice"
    item = named if spec.choices else _TYPE_NAMES[spec.item_type]
    return f"<{item},...>" if spec.is_list else f"<{item}>"


def parameters(
    spec: OptionSpec, *, required: bool = False, repeated: bool = False
) -> list[inspect.Parameter]:
    """The typer parameter for ``spec`` (lists, choices and ``None`` words are read as text,
    :meth:`OptionSpec.read`; everything else as its own type), then a hidden one per deprecated
    flag (see :func:`take_deprecated`). ``repeated``: the flag may be given several times (a
    comparison's ``--model`` and ``--query``), read as a list of texts (None when not given)."""
    if spec.info.argument:
        annotation: Any = Annotated[list[str] | None, typer.Argument(help=spec.info.help)]
        return [
            inspect.Parameter(
                spec.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation
            )
        ]
    textual = spec.is_list or bool(spec.choices) or (spec.optional and spec.info.none is not None)
    default = spec.text(spec.default) if textual else spec.default
    kind: Any = str if textual else spec.base
    if repeated:
        kind, default = list[str] | None, None
    elif spec.optional and default is None:
        kind = kind | None
    declarations = []
    if spec.info.flag is not None or spec.info.short is not None:
        flag = spec.info.flag or spec.name.replace("_", "-")
        declarations.append("/".join(f"--{half}" for half in flag.split("/")))
    if spec.info.short is not None:
        declarations.append(f"-{spec.info.short}")
    # a None decided at run time: the help says what it is, not "[default: default]"
    shown = not (spec.default is None and spec.info.none == "default")
    found = [
        inspect.Parameter(
            spec.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if required else default,
            annotation=Annotated[
                kind,
                typer.Option(
                    *declarations,
                    help=f"{spec.info.help} {REPEATED_HELP}" if repeated else spec.info.help,
                    show_default=shown,
                    metavar=metavar(spec),
                ),
            ],
        )
    ]
    for index, old in enumerate(spec.info.deprecated):
        option = typer.Option(f"--{old}", hidden=True, help=f"Deprecated: --{spec.flag}.")
        found.append(
            inspect.Parameter(
                f"{spec.name}{DEPRECATED}{index}",
                inspect.Parameter.KEYWORD_ONLY,
                default=None,
                annotation=Annotated[(str if textual else spec.base) | None, option],
            )
        )
    return found


def take_deprecated(values: dict[str, Any], specs: Sequence[OptionSpec]) -> list[str]:
    """Move the values given with deprecated flags to their options (removing the hidden
    parameters from ``values``); returns a warning per deprecated flag used."""
    said = []
    for spec in specs:
        for index, old in enumerate(spec.info.deprecated):
            value = values.pop(f"{spec.name}{DEPRECATED}{index}", None)
            if value is not None:
                values[spec.name] = value
                said.append(f"--{old} is deprecated: use --{spec.flag}")
    return said


def labelled(label: str, style: str, text: str) -> Text:
    """``label`` in ``style`` (``error:`` in bold red), then ``text`` as written."""
    return Text.assemble((label, style), " ", text)


def say_error(text: str) -> None:
    """Print ``error: text`` on stderr."""
    errors.print(labelled("error:", "bold red", text), highlight=False)


def warn(text: str) -> None:
    """Print ``warning: text`` on stderr."""
    errors.print(labelled("warning:", "yellow", text), highlight=False)


def spinner(text: str) -> AbstractContextManager[object]:
    """A spinner on stderr showing ``text`` as written while it lasts."""
    return errors.status(Text(text))


@contextmanager
def warnings_said(say: Callable[[str], None]) -> Iterator[set[str]]:
    """Inside, the Python warnings given (a former option value read, :class:`OptionInfo`'s
    ``renamed``; a run's notes; a damaged cache shard moved aside) are kept instead of printed
    with their class and source line; at the end, even when the command fails, each message is
    given to ``say`` as one line, once, unless it is in the yielded set: the lines the command
    has printed itself (a run's notes under its tables), which it adds there."""
    printed: set[str] = set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FutureWarning)
        try:
            yield printed
        finally:
            for text in dict.fromkeys(str(warning.message) for warning in caught):
                if text not in printed:
                    say(text)


def handle_errors(function: F) -> F:
    """Turn wordlens errors into a one-line message and exit code 2; Ctrl-C into 130 and SIGTERM
    into 143 (SIGTERM raises :class:`~wordlens.errors.Terminated` in the main thread while the
    command runs, so it unwinds as Ctrl-C does and finished batches stay in the cache); Python
    warnings into ``warning:`` lines, once each (:func:`~wordlens.cli_parts.warnings_said`)."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        previous = _on_sigterm(_raise_terminated)
        try:
            with warnings_said(warn):
                return function(*args, **kwargs)
        except WordlensError as error:
            say_error(str(error))
            raise typer.Exit(2) from error
        except Terminated:
            errors.print("terminated (SIGTERM); " + _KEPT)
            raise typer.Exit(143) from None
        except KeyboardInterrupt:
            errors.print("interrupted; " + _KEPT)
            raise typer.Exit(130) from None
        finally:
            _on_sigterm(previous)

    return wrapper  # type: ignore[return-value]


_KEPT = "finished batches are kept in the activation cache, so a rerun resumes"
_SignalHandler = Callable[[int, Any], Any] | int | None


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated


def _on_sigterm(handler: _SignalHandler) -> _SignalHandler:
    """Install ``handler`` for SIGTERM (main thread only); returns the one it replaces."""
    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)
