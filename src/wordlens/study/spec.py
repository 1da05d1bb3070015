"""Study files: the models, methods and options of a whole study, in one YAML file.

A study file names the models and the methods, with each method's options; ``wordlens study run``
runs every (model, method) cell::

    name: small-study
    out: results/small-study        # default: wordlens-results/<name>; relative to this file
    models:
      - minilm-l6                     # an alias, local path or hub id ...
      - name: mlm                     # ... or a mapping with the loading options
        model: ../shared/models/minilm-l6-mlm
        dtype: float32
    methods:
      weat: {context: bleached, tests: [1, 2], n_samples: 1000}
      probe: {task: pos, repr: [mix, lex], train_sentences: 200, max_steps: 300}

A method's options are those of its command (``wordlens <method> --help``), spelled as the long
option without dashes or as the parameter name (``n-samples`` or ``n_samples``); a list stands
for a comma list (``tests: [1, 2]`` is ``--tests 1,2``). The model and its loading options come
from ``models``; the output directory from the study.

The file is validated against a schema (pydantic models; ``study_json_schema`` prints it as JSON
Schema) and every error names the file and the line of the offending value.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

import yaml
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, create_model

from wordlens._files import read_text
from wordlens.errors import WordlensError

MethodName = Literal[
    "weat", "vast", "intersectional", "likelihood-bias", "sense-bias", "asymmetry", "probe"
]
METHODS: tuple[str, ...] = get_args(MethodName)
"""Methods a study can run: the names of their ``wordlens`` commands."""

LOADING_OPTIONS = ("device", "dtype", "bos", "token_budget", "trust_remote_code")
"""Command parameters that come from the model entry, not from the method's options."""
STUDY_OPTIONS = ("model", "out", "no_cache", "cache_dir", "workdir", "shard")
"""Command parameters the study itself sets (or, for ``shard``, that stop a run half-way)."""


INVALID = "invalid study file:"


class StudyFileError(WordlensError):
    """A study file that cannot be read or does not follow the schema."""


class ModelEntry(BaseModel):
    """One model of the study and how to load it (the options of ``wordlens <method>``)."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1, description="Alias, local path or hub id.")
    name: str | None = Field(default=None, min_length=1, description="Display name [the model].")
    device: str = "cpu"
    dtype: Literal["float32", "float16", "bfloat16"] = "float32"
    bos: Literal["auto", "always", "never"] = "auto"
    token_budget: int | None = Field(default=None, ge=1)
    trust_remote_code: bool = False

    @property
    def display_name(self) -> str:
        return self.name or self.model

    @property
    def slug(self) -> str:
        """Filesystem-safe name of the model's cell directories."""
        return slugify(self.display_name)


class StudyFile(BaseModel):
    """The top level of a study file."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    out: Path | None = Field(default=None, description="Study directory [wordlens-results/<name>].")
    cache_dir: Path | None = Field(default=None, description="Activation cache [the user cache].")
    models: list[ModelEntry] = Field(
        min_length=1, description="Models: mappings, or plain strings (the `model` alone)."
    )
    methods: dict[MethodName, dict[str, Any] | None] = Field(min_length=1)


@dataclass(frozen=True)
class Cell:
    """One (model, method) cell of a study.

    Attributes
    ----------
    model : ModelEntry
    method : str
        A name of :data:`METHODS`.
    options : dict
        The method's options, validated, as keyword arguments of its command.
    out_dir : pathlib.Path
        Where the cell writes its tables and report.
    """

    model: ModelEntry
    method: str
    options: Mapping[str, Any]
    out_dir: Path

    @property
    def relative_dir(self) -> str:
        """The cell's directory inside the study directory (posix)."""
        return f"cells/{self.model.slug}/{self.method}"

    def digest(self) -> str:
        """sha256 of everything that shapes the cell's numbers: a changed option re-runs it."""
        content = {
            "model": self.model.model_dump(exclude={"name"}),
            "method": self.method,
            "options": dict(self.options),
        }
        return hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class Study:
    """A validated study: its file, directory, cache and cells (models × methods, in order)."""

    name: str
    path: Path
    out_dir: Path
    cache_dir: Path | None
    models: tuple[ModelEntry, ...]
    cells: tuple[Cell, ...]


def slugify(text: str) -> str:
    """``../shared/models/minilm-l6-mlm`` → ``minilm-l6-mlm``; ``org/model`` → ``org--model``."""
    path = Path(text)
    base = path.name if (path.is_absolute() or text.startswith(".")) else text.replace("/", "--")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-.")
    return slug or "model"


def load_study(path: Path) -> Study:
    """Read and validate a study file.

    Raises
    ------
    StudyFileError
        If the file is missing, is not YAML, or breaks the schema; the message names the file
        and the line of each offending value.
    """
    try:
        text = read_text(path)
    except OSError as error:
        raise StudyFileError(f"cannot read study file {path}: {error}") from error
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise StudyFileError(f"{path}: not valid YAML: {error}") from error
    if not isinstance(raw, dict):
        raise StudyFileError(f"{path}: a study file is a mapping (name, models, methods)")
    lines = _value_lines(root)
    if isinstance(raw.get("models"), list):
        raw["models"] = [{"model": m} if isinstance(m, str) else m for m in raw["models"]]
    try:
        parsed = StudyFile.model_validate(raw)
    except ValidationError as error:
        raise StudyFileError(_describe(error, path, lines, ())) from None
    models = tuple(parsed.models)
    _check_unique([m.slug for m in models], "model", path, lines, ("models",))
    base = path.parent
    out_dir = _under(base, parsed.out or Path("wordlens-results") / parsed.name)
    cells, problems = [], []
    for method, options in parsed.methods.items():
        try:
            validated = validate_options(method, options or {}, path, lines)
        except StudyFileError as error:
            problems.append(str(error).removeprefix(INVALID))
            continue
        for model in models:
            cell_dir = out_dir / "cells" / model.slug / method
            cells.append(Cell(model, method, validated, cell_dir))
    if problems:
        raise StudyFileError(INVALID + "".join(problems))
    cache_dir = None if parsed.cache_dir is None else _under(base, parsed.cache_dir)
    return Study(parsed.name, path, out_dir, cache_dir, models, tuple(cells))


def validate_options(
    method: str,
    options: Mapping[str, Any],
    path: Path = Path("<study>"),
    lines: Mapping[tuple[str | int, ...], int] | None = None,
) -> dict[str, Any]:
    """A method's options checked against its command's parameters, as keyword arguments.

    Raises
    ------
    StudyFileError
        Naming the option, the file and its line.
    """
    schema = method_schema(method)
    joined = {key: _joined(value) for key, value in options.items()}
    try:
        validated = schema.model_validate(joined)
    except ValidationError as error:
        raise StudyFileError(_describe(error, path, lines or {}, ("methods", method))) from None
    return validated.model_dump(exclude_unset=True)


def method_schema(method: str) -> type[BaseModel]:
    """The options of ``wordlens <method>`` as a pydantic model (extra keys forbidden), built
    from the command's signature: same names, types and defaults; the command's long option
    name is accepted as an alias (``repr`` for ``representations``)."""
    command = method_command(method)
    hints = get_type_hints(command, include_extras=True)
    fields: dict[str, Any] = {}
    for parameter in inspect.signature(command).parameters.values():
        if parameter.name in LOADING_OPTIONS or parameter.name in STUDY_OPTIONS:
            continue
        annotation, option = _split_annotation(hints[parameter.name])
        aliases = [parameter.name, parameter.name.replace("_", "-"), *option]
        fields[parameter.name] = (
            annotation,
            Field(
                parameter.default,
                validation_alias=AliasChoices(*dict.fromkeys(aliases)),
            ),
        )
    model: type[BaseModel] = create_model(
        f"{method.title().replace('-', '')}Options",
        __config__=ConfigDict(extra="forbid"),
        **fields,
    )
    return model


def method_command(method: str) -> Callable[..., Any]:
    """The undecorated function of ``wordlens <method>`` (errors propagate as exceptions)."""
    from wordlens import cli

    if method not in METHODS:
        raise StudyFileError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    command: Callable[..., Any] = inspect.unwrap(getattr(cli, method.replace("-", "_")))
    return command


def study_json_schema() -> dict[str, Any]:
    """JSON Schema of a study file (method options as in each method's schema)."""
    schema = StudyFile.model_json_schema()
    schema["properties"]["methods"]["properties"] = {
        method: method_schema(method).model_json_schema(by_alias=False) for method in METHODS
    }
    return schema


def _split_annotation(annotation: Any) -> tuple[Any, list[str]]:
    """``Annotated[T, typer.Option("--repr", ...)]`` → ``(T, ["repr"])``."""
    if get_origin(annotation) is not Annotated:
        return annotation, []
    base, *metadata = get_args(annotation)
    names = []
    for item in metadata:
        # with Annotated, typer.Option("--repr") holds the flag as its first argument, `default`
        declarations = [*(getattr(item, "param_decls", None) or ()), getattr(item, "default", "")]
        for declaration in declarations:
            for flag in str(declaration).split("/"):
                if flag.startswith("--") and not flag.startswith("--no-"):
                    names.append(flag[2:])
    return base, names


def _joined(value: Any) -> Any:
    """A YAML list of scalars stands for the command's comma list."""
    if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
        return ",".join(str(v) for v in value)
    return value


def _under(base: Path, path: Path) -> Path:
    """``path`` relative to ``base`` (the study file's folder), ``..`` folded away."""
    expanded = path.expanduser()
    return Path(os.path.normpath(expanded if expanded.is_absolute() else base / expanded))


def _check_unique(
    slugs: Sequence[str],
    what: str,
    path: Path,
    lines: Mapping[tuple[str | int, ...], int],
    where: tuple[str | int, ...],
) -> None:
    seen: dict[str, int] = {}
    for index, slug in enumerate(slugs):
        if slug in seen:
            line = lines.get((*where, index), 0)
            raise StudyFileError(
                f"{path}:{line}: {what} {index + 1} has the same directory name {slug!r} as "
                f"{what} {seen[slug] + 1}; give one of them a distinct `name`"
            )
        seen[slug] = index


def _value_lines(node: yaml.Node | None) -> dict[tuple[str | int, ...], int]:
    """Line (1-based) of every value in a composed YAML document, keyed by its path."""
    lines: dict[tuple[str | int, ...], int] = {}

    def visit(current: yaml.Node, where: tuple[str | int, ...]) -> None:
        lines[where] = current.start_mark.line + 1
        if isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                visit(value, (*where, str(key.value)))
                lines.setdefault((*where, str(key.value), "<key>"), key.start_mark.line + 1)
        elif isinstance(current, yaml.SequenceNode):
            for index, item in enumerate(current.value):
                visit(item, (*where, index))

    if node is not None:
        visit(node, ())
    return lines


def _describe(
    error: ValidationError,
    path: Path,
    lines: Mapping[tuple[str | int, ...], int],
    prefix: tuple[str | int, ...],
) -> str:
    """One line per schema violation: ``file:line: where: what``."""
    messages = []
    for problem in error.errors():
        location = (*prefix, *_yaml_location(problem["loc"]))
        line = _nearest_line(location, lines)
        where = ".".join(str(part) for part in location) or "(top level)"
        messages.append(f"{path}:{line}: {where}: {problem['msg']}")
    return INVALID + "".join(f"\n  {message}" for message in messages)


def _yaml_location(location: tuple[str | int, ...]) -> tuple[str | int, ...]:
    """Drop pydantic's ``[key]`` tag (an invalid mapping key) from an error location."""
    return tuple(part for part in location if part != "[key]")


def _nearest_line(
    location: tuple[str | int, ...], lines: Mapping[tuple[str | int, ...], int]
) -> int:
    """Line of the deepest part of ``location`` present in the file (a missing key: its
    parent's)."""
    for depth in range(len(location), -1, -1):
        line = lines.get(location[:depth])
        if line is not None:
            return line
    return 1
