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
      weat: {context: bleached, tests: [1, 2], permutations: 1000}
      probe: {task: pos, repr: [mix, lex], train_sentences: 200, max_steps: 300}

A method's options are those of its config (``wordlens <method> --help`` lists them; they are
generated from the same declaration, :mod:`wordlens.options`), spelled as the field name, the
long option without dashes, or either with ``-``/``_`` (``svc-c`` or ``svc_c``, ``repr``
for ``representations``); a list may be a YAML list or a comma list. A model entry takes the
loading options of :class:`~wordlens.models.options.ModelOptions` (revision, device, dtype, bos,
token_budget, trust_remote_code, allow_pickle, unicode); the study sets the cache and each cell's
output directory. An entry with ``revisions`` (a directory of checkpoint folders or a hub id's
revisions, :mod:`wordlens.models.revisions`) is one entry per checkpoint, named
``<name>@<checkpoint>``, and ``wordlens study run`` writes a sweep across them for each method
(:mod:`wordlens.sweep`).

The file is validated (the top level by pydantic, the options by their declarations;
``study_json_schema`` prints the JSON Schema) and every error names the file and the line of the
offending value. Before any cell runs, the models and the inputs are checked too: a model that is
neither an alias, an existing local path nor a well-formed hub id (a misspelt alias gets "Did you
mean ...?"), and a method's file or data set that cannot be read (a lexicon with a rating that is
not a number, an unknown WEAT test), are refused together with the other problems.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from wordlens._files import read_text, unsafe_output_dir
from wordlens.errors import WordlensError
from wordlens.methods.registry import registered_methods
from wordlens.models.loading import local_model_files, model_spec_problem
from wordlens.models.options import LOADING_OPTIONS, ModelOptions
from wordlens.models.revisions import Checkpoint, LeftOut, checkpoints, left_out
from wordlens.options import (
    OptionError,
    config_values,
    options_json_schema,
    read_values,
)
from wordlens.study.records import cell_column

INVALID = "invalid study file:"
MODEL_KEYS = ("model", "name", *LOADING_OPTIONS)
SWEEP_KEYS = ("revision", "revisions")
"""Model options added with sweeps, left out of a cell's digest when unset."""
"""What a model entry may hold: the model, a display name and its loading options."""


class StudyFileError(WordlensError):
    """A study file that cannot be read or does not follow the schema."""


@dataclass(frozen=True)
class ModelEntry:
    """One model of the study and how to load it.

    Attributes
    ----------
    options
        The model and its loading options (no cache options: the study sets the cache).
    name
        Display name [the model].
    checkpoint
        The checkpoint this entry runs, when its study entry sweeps ``revisions``
        (:func:`wordlens.models.revisions.checkpoints`); its display name is then
        ``<name>@<checkpoint>``.
    swept
        The display name of the study entry that swept it (the sweep's report groups by it).
    left_out
        The folders of the swept directory that its ``revisions`` (``all``) did not take, with
        why (:func:`wordlens.models.revisions.left_out`); the sweep's report names them.
    """

    options: ModelOptions
    name: str | None = None
    checkpoint: Checkpoint | None = None
    swept: str | None = None
    left_out: tuple[LeftOut, ...] = ()

    @property
    def model(self) -> str:
        return self.options.required_model()

    @property
    def display_name(self) -> str:
        return self.name or self.model

    @property
    def slug(self) -> str:
        """Filesystem-safe name of the model's cell directories."""
        return slugify(self.display_name)

    def loading(self) -> dict[str, Any]:
        """The model and its loading options, as a study writes them (the cell digest)."""
        return {key: getattr(self.options, key) for key in ("model", *LOADING_OPTIONS)}

    def files(self) -> dict[str, str] | None:
        """What the model's files hold now, when it is local (a folder or a file; a sweep's
        checkpoint folder): :func:`~wordlens.models.loading.local_model_files`."""
        return local_model_files(self.model)


class StudyFile(BaseModel):
    """The top level of a study file (models and methods are checked against their options)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    out: Path | None = Field(default=None, description="Study directory [wordlens-results/<name>].")
    cache_dir: Path | None = Field(default=None, description="Activation cache [the user cache].")
    models: list[dict[str, Any]] = Field(
        min_length=1, description="Models: mappings, or plain strings (the `model` alone)."
    )
    methods: dict[str, dict[str, Any] | None] = Field(min_length=1)

    @field_validator("out", "cache_dir", mode="before")
    @classmethod
    def _not_null(cls, value: object) -> object:
        """A folder given as null (``out: ~``: YAML's null, not the home folder) is an error,
        not the default."""
        if value is None:
            raise ValueError(
                "is null (in YAML a bare ~ is null, not the home folder): leave the key out for "
                "the default, or write a folder"
            )
        return value


@dataclass(frozen=True)
class Cell:
    """One (model, method) cell of a study.

    Attributes
    ----------
    model : ModelEntry
    method : str
        A registered method's name (:func:`wordlens.methods.registry.registered_methods`).
    config : object
        The method's config, validated.
    out_dir : pathlib.Path
        Where the cell writes its tables and report.
    relative_dir : str
        ``out_dir`` inside the study's (or sweep's) directory, posix
        (``cells/<model>/<method>``, ``cells/<model>/<method>/<query>`` for a method listing
        several queries; a sweep's ``revisions/<checkpoint>``).
    query : str or None
        The name of the cell's query (its file's stem) when the method lists several; None
        otherwise.
    """

    model: ModelEntry
    method: str
    config: Any
    out_dir: Path
    relative_dir: str
    query: str | None = None

    @property
    def column(self) -> str:
        """The cell's column in the study's tables (:func:`~.records.cell_column`)."""
        return cell_column(self.method, self.query)

    @property
    def options(self) -> dict[str, Any]:
        """Every option of the cell's method, defaults included, as JSON-ready values."""
        return config_values(self.config)

    def digest(self) -> str:
        """sha256 of everything that shapes the cell's numbers: a changed option (or default)
        re-runs it. The device does not (the numbers agree across devices to float rounding, as
        the activation cache assumes), so a cell done on a CPU is not run again on a GPU; nor
        does ``allow_pickle`` (which weights files may load, not what they hold), nor a
        ``revision`` or ``revisions`` left unset, so cells done before these options existed
        stay done."""
        model = {
            key: value
            for key, value in self.model.loading().items()
            if key not in ("device", "allow_pickle") and not (key in SWEEP_KEYS and value is None)
        }
        content = {"model": model, "method": self.method, "options": self.options}
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


def study_left_out(study: Study) -> list[str]:
    """``skipped runs of /ckpts: no config.json, so not a checkpoint folder``: each folder that a
    model entry's ``revisions`` (``all``) left out of its sweep, with why, once per entry."""
    lines: dict[str, None] = {}
    for cell in study.cells:
        for folder in cell.model.left_out:
            lines[f"skipped {folder.name} of {cell.model.swept}: {folder.reason}"] = None
    return list(lines)


def load_study(path: Path, *, check_inputs: bool = True) -> Study:
    """Read and validate a study file.

    Every problem is found before any model loads, and all of them are named at once.

    Parameters
    ----------
    path
        The study file.
    check_inputs
        Also check what the cells will read: each model is an alias, an existing local path or
        a well-formed Hugging Face hub id (:func:`~wordlens.models.loading.model_spec_problem`,
        with the closest alias for a misspelt one), and each method reads its files and data
        sets (:meth:`~wordlens.methods.base.Method.read_inputs`: lexica, templates, evocation
        data, ...). ``study status`` and ``study report``, which read results only, turn it off.

    Raises
    ------
    StudyFileError
        If the file is missing, is not YAML, breaks the schema, or (``check_inputs``) names a
        model or an input that cannot be; the message names the file and the line of each
        offending value.
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
    problems: list[str] = []
    models = tuple(
        _model_entry(entry, index, path, lines, problems, check_inputs)
        for index, entry in enumerate(parsed.models)
    )
    configs = {
        method: _query_configs(method, options or {}, path, lines, problems, check_inputs)
        for method, options in parsed.methods.items()
    }
    if problems:
        raise StudyFileError(INVALID + "".join(f"\n  {problem}" for problem in problems))
    entries = tuple(checkpoint for entry in models if entry is not None for checkpoint in entry)
    _check_unique([m.slug for m in entries], "model", path, lines, ("models",))
    base = path.parent
    out_dir = _under(base, parsed.out or Path("wordlens-results") / parsed.name)
    unsafe = unsafe_output_dir(out_dir)
    if unsafe is not None:
        message = f"{out_dir} is {unsafe}: give the study a folder of its own"
        raise StudyFileError(_located(path, lines, ("out",), message))
    cells = [
        Cell(model, method, config, out_dir / relative, relative, query)
        for method, by_query in configs.items()
        for model in entries
        for query, config in by_query.items()
        for relative in [f"cells/{model.slug}/{method}" + (f"/{slugify(query)}" if query else "")]
    ]
    cache_dir = None if parsed.cache_dir is None else _under(base, parsed.cache_dir)
    return Study(parsed.name, path, out_dir, cache_dir, entries, tuple(cells))


def _model_entry(
    entry: Mapping[str, Any],
    index: int,
    path: Path,
    lines: Mapping[tuple[str | int, ...], int],
    problems: list[str],
    check_model: bool = False,
) -> list[ModelEntry] | None:
    """A model entry checked against :data:`MODEL_KEYS` and the options' declarations, and
    (``check_model``) its model against :func:`~wordlens.models.loading.model_spec_problem`;
    one entry per checkpoint when it sweeps ``revisions`` (:func:`swept_entries`); None (and a
    line in ``problems``) when it is invalid."""
    where: tuple[str | int, ...] = ("models", index)
    name = entry.get("name")
    if name is not None and (not isinstance(name, str) or not name):
        problems.append(_located(path, lines, (*where, "name"), "a non-empty text"))
        return None
    if not isinstance(entry.get("model"), str) or not entry["model"]:
        problems.append(
            _located(path, lines, (*where, "model"), "Field required (a non-empty text)")
        )
        return None
    values = {key: value for key, value in entry.items() if key != "name"}
    for key in values:
        if key not in MODEL_KEYS:
            message = f"not a model option (options: {', '.join(MODEL_KEYS)})"
            problems.append(_located(path, lines, (*where, key), message))
            return None
    try:
        options = ModelOptions(**read_values(ModelOptions, values, study=True))
    except OptionError as error:
        problems.append(_located(path, lines, (*where, error.option), error.detail))
        return None
    except WordlensError as error:
        problems.append(_located(path, lines, where, str(error)))
        return None
    problem = model_spec_problem(options.required_model()) if check_model else None
    if problem is not None:
        problems.append(_located(path, lines, (*where, "model"), problem))
        return None
    try:
        return swept_entries(ModelEntry(options, name))
    except WordlensError as error:
        problems.append(_located(path, lines, (*where, "revisions"), str(error)))
        return None


def swept_entries(entry: ModelEntry) -> list[ModelEntry]:
    """``entry`` itself, or one entry per checkpoint when its options sweep ``revisions``: the
    checkpoint's model (and hub revision), no ``revisions``, named ``<name>@<checkpoint>``.

    Raises
    ------
    RevisionError
        If the revisions name no checkpoint of the model (:func:`checkpoints`).
    """
    revisions = entry.options.revisions
    if revisions is None:
        return [entry]
    points = checkpoints(entry.model, revisions)
    skipped = tuple(left_out(entry.model, revisions))
    return [
        checkpoint_entry(
            entry.options, point, f"{entry.display_name}@{point.name}", entry.display_name, skipped
        )
        for point in points
    ]


def checkpoint_entry(
    options: ModelOptions,
    checkpoint: Checkpoint,
    name: str,
    swept: str,
    skipped: tuple[LeftOut, ...] = (),
) -> ModelEntry:
    """The entry that runs ``checkpoint`` of the model ``options`` sweeps: its model (and hub
    revision), no ``revisions``, the other options kept; shown as ``name``. ``skipped``: the
    folders the sweep left out."""
    chosen = options.replace(model=checkpoint.model, revision=checkpoint.revision, revisions=None)
    return ModelEntry(chosen, name, checkpoint, swept, skipped)


def _query_configs(
    method: str,
    options: Mapping[str, Any],
    path: Path,
    lines: Mapping[tuple[str | int, ...], int],
    problems: list[str],
    read_inputs: bool = False,
) -> dict[str | None, Any]:
    """The method's config (:func:`_method_config`) keyed by None, or, when its ``query`` lists
    several files, one config per query keyed by the file's stem (the cells' and the
    comparison's name of the query); empty when a config is invalid."""
    queries = options.get("query")
    if not isinstance(queries, list):
        config = _method_config(method, options, path, lines, problems, read_inputs)
        return {} if config is None else {None: config}
    names = [Path(str(query)).stem for query in queries]
    if len(set(names)) < len(names):
        where = ("methods", method, "query")
        problems.append(_located(path, lines, where, "two queries with the same file name"))
        return {}
    configs = {
        name: _method_config(
            method, {**options, "query": query}, path, lines, problems, read_inputs
        )
        for name, query in zip(names, queries, strict=True)
    }
    return {name: config for name, config in configs.items() if config is not None}


def _method_config(
    method: str,
    options: Mapping[str, Any],
    path: Path,
    lines: Mapping[tuple[str | int, ...], int],
    problems: list[str],
    read_inputs: bool = False,
) -> Any:
    """The method's config from a study's options, and (``read_inputs``) the files and data
    sets it names read (:meth:`~wordlens.methods.base.Method.read_inputs`); None (and lines in
    ``problems``) when the method is unknown, an option is invalid or an input cannot be read."""
    where: tuple[str | int, ...] = ("methods", method)
    methods = registered_methods()
    if method not in methods:
        known = ", ".join(methods)
        problems.append(_located(path, lines, (*where, "<key>"), f"unknown method; known: {known}"))
        return None
    config_type = methods[method].config_type
    values: dict[str, Any] = {}
    failed = False
    for key, value in options.items():
        try:
            values.update(read_values(config_type, {key: value}, study=True))
        except OptionError as error:
            problems.append(_located(path, lines, (*where, key), error.detail))
            failed = True
    if failed:
        return None
    try:
        config = config_type(**values)
        check = getattr(config, "check", None)
        if check is not None:
            check()
        if read_inputs:
            methods[method].read_inputs(config)
    except WordlensError as error:
        problems.append(_located(path, lines, where, str(error)))
        return None
    return config


def method_options(method: str, options: Mapping[str, Any]) -> Any:
    """The config of ``method`` from study-style options (for tests and the Python API).

    Raises
    ------
    StudyFileError
        If the method is unknown or an option is invalid.
    """
    problems: list[str] = []
    config = _method_config(method, options, Path("<study>"), {}, problems)
    if problems:
        raise StudyFileError(INVALID + "".join(f"\n  {problem}" for problem in problems))
    return config


def study_json_schema() -> dict[str, Any]:
    """JSON Schema of a study file (method options and model entries from their declarations)."""
    schema = StudyFile.model_json_schema()
    schema["properties"]["methods"]["properties"] = {
        name: options_json_schema(method.config_type)
        for name, method in registered_methods().items()
    }
    for options in schema["properties"]["methods"]["properties"].values():
        if "query" in options["properties"]:  # one file, or several: a comparison
            one = options["properties"]["query"]
            several = {"type": "array", "items": one, "minItems": 1}
            options["properties"]["query"] = {"anyOf": [one, several]}
    schema["properties"]["methods"]["additionalProperties"] = False
    entry = options_json_schema(ModelOptions)
    entry["properties"] = {
        key: value for key, value in entry["properties"].items() if key in MODEL_KEYS
    }
    entry["properties"]["name"] = {"type": "string", "description": "Display name [the model]."}
    entry["required"] = ["model"]
    schema["properties"]["models"]["items"] = {"anyOf": [entry, {"type": "string"}]}
    return schema


def _located(
    path: Path,
    lines: Mapping[tuple[str | int, ...], int],
    location: tuple[str | int, ...],
    message: str,
) -> str:
    """``file:line: where: message`` for a value at ``location`` in the YAML document."""
    line = _nearest_line(location, lines)
    where = ".".join(str(part) for part in location if part != "<key>")
    return f"{path}:{line}: {where}: {message}"


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
