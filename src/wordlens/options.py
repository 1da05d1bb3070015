"""Options of a method: one config dataclass whose fields carry default, help and allowed values.

A method's config is a frozen dataclass; each field is declared with :func:`option`, which keeps
the default (the only place it lives), the help text, the command-line flag and how a text value
is read. The command line (:mod:`wordlens.cli`), the study file (:mod:`wordlens.study.spec`) and
the Python API all go through :func:`config_from_values`, so an option means the same everywhere::

    @dataclass(frozen=True)
    class WeatConfig:
        tests: tuple[int, ...] | None = option(None, "Caliskan et al. test numbers, or 'all'.",
                                               none="all")
        n_samples: int = option(100_000, "Permutation partitions.")

Field types: ``str``, ``int``, ``float``, ``bool``, ``pathlib.Path``, a ``Literal`` of strings
(its values are the allowed ones), ``tuple[T, ...]`` (a comma list on the command line, a list
or a comma list in a study file), each optionally ``| None``. A ``None`` default is shown and
written as the field's ``none`` word (``all``, ``default``); ``layers``-style fields also accept
ranges (``parse="layers"``: ``'0,6,-1'``, ``'2-5'``).
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
import types
import typing
import warnings
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import MISSING, dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args, get_origin

from wordlens.errors import WordlensError

C = TypeVar("C")
Parse = Literal["list", "layers"]
SEED_MAX = 2**32 - 1
"""The largest seed numpy's generators, scikit-learn's and pandas' random states all take (the
smallest is 0)."""


class OptionError(WordlensError, ValueError):
    """An option value that cannot be read or is not allowed; names the option."""

    def __init__(self, option: str, detail: str) -> None:
        super().__init__(f"{option}: {detail}")
        self.option = option
        self.detail = detail


@dataclass(frozen=True)
class OptionInfo:
    """What :func:`option` records on a config field.

    Attributes
    ----------
    help
        One line for ``--help`` and the study schema.
    flag
        The long command-line flag without dashes [the field name with ``-``]; for a ``bool``,
        ``"weat/no-weat"`` style pairs are allowed.
    short
        A one-letter alias (``"m"``), or None.
    none
        The word that stands for ``None`` (``"all"``, ``"default"``, ``"none"``), or None when the
        field is never None.
    parse
        ``"layers"``: comma lists with ranges (``2-5``) and negative indices.
    study
        False for options a study sets itself (``workdir``) or that stop a run half-way
        (``shard``): they are on the command line only.
    argument
        On the command line, the positional arguments (a tuple field) instead of an option.
    deprecated
        Former flags (without dashes) still read, hidden from ``--help``: the command line
        accepts ``--<old>`` (with a warning), and a study file the key ``<old>`` and a Python
        call the keyword ``<old>`` (``-`` as ``_``), each with a ``FutureWarning``.
    renamed
        Former values of a ``Literal`` field, ``(old, new)`` pairs: ``old`` is still read as
        ``new`` (with a ``FutureWarning``), hidden from ``--help``.
    minimum, maximum
        The smallest and largest value a number (or each number of a list) may take, inclusive;
        None: no bound. Every way an option is given (command line, study file, Python call)
        refuses a value outside them with an :class:`OptionError`, before any model loads.

    A ``none`` word of ``"default"`` stands for a default decided at run time: ``--help`` shows
    no ``[default: default]`` for it, so its help says what the default is.
    """

    help: str
    flag: str | None = None
    short: str | None = None
    none: str | None = None
    parse: Parse = "list"
    study: bool = True
    argument: bool = False
    deprecated: tuple[str, ...] = ()
    renamed: tuple[tuple[str, str], ...] = ()
    minimum: float | None = None
    maximum: float | None = None


def option(
    default: Any,
    help: str,
    *,
    flag: str | None = None,
    short: str | None = None,
    none: str | None = None,
    parse: Parse = "list",
    study: bool = True,
    argument: bool = False,
    deprecated: tuple[str, ...] = (),
    renamed: tuple[tuple[str, str], ...] = (),
    minimum: float | None = None,
    maximum: float | None = None,
) -> Any:
    """A config field with its default and help (see :class:`OptionInfo`)."""
    info = OptionInfo(
        help, flag, short, none, parse, study, argument, deprecated, renamed, minimum, maximum
    )
    return dataclasses.field(default=default, metadata={"option": info})


@dataclass(frozen=True)
class OptionSpec:
    """One resolved option of a config: field name, type and :class:`OptionInfo`.

    Attributes
    ----------
    name
        The field name (a Python identifier, the study key).
    base
        The field type without ``| None``: ``str``, ``int``, ``float``, ``bool``, ``Path``, a
        ``Literal`` or ``tuple[T, ...]``.
    optional
        Whether None is allowed.
    default
        The field's default.
    info
        Help, flag and reading rules.
    """

    name: str
    base: Any
    optional: bool
    default: Any
    info: OptionInfo

    @property
    def flag(self) -> str:
        """The long flag without dashes (the ``on`` half of a bool pair)."""
        return (self.info.flag or self.name.replace("_", "-")).split("/")[0]

    @property
    def is_list(self) -> bool:
        return get_origin(self.base) is tuple

    @property
    def item_type(self) -> Any:
        """The element type of a tuple field, else the field type."""
        return get_args(self.base)[0] if self.is_list else self.base

    @property
    def choices(self) -> tuple[str, ...]:
        """The allowed values of a ``Literal`` field (of a tuple's items), else ()."""
        item = self.item_type
        return tuple(get_args(item)) if get_origin(item) is Literal else ()

    def aliases(self) -> tuple[str, ...]:
        """Names a study file may use for this option: field name, flag and deprecated flags,
        each with ``-`` and ``_``."""
        flags = (self.flag, *self.info.deprecated)
        names = (
            self.name,
            self.name.replace("_", "-"),
            *flags,
            *(flag.replace("-", "_") for flag in flags),
        )
        return tuple(dict.fromkeys(names))

    def text(self, value: Any) -> str | None:
        """``value`` as the command line writes it (``('a', 'b')`` → ``'a,b'``)."""
        if value is None:
            return self.info.none
        if isinstance(value, tuple):
            return ",".join(map(str, value)) if value else "none"
        return str(value)

    def read(self, value: Any) -> Any:
        """``value`` from the command line (text) or a study file (YAML) as the field's type.

        Raises
        ------
        OptionError
            If it cannot be read, or is not one of the allowed values.
        """
        if value is None or (self.info.none is not None and _is_word(value, self.info.none)):
            if not self.optional:
                raise OptionError(f"--{self.flag}", "a value is required")
            return None
        if self.is_list:
            try:
                items = _split(value, self.info.parse == "layers")
            except ValueError:
                raise OptionError(
                    f"--{self.flag}", f"cannot read layers {value!r}: use 'all', '0,6,-1' or '2-5'"
                ) from None
            return tuple(self._scalar(item) for item in items)
        return self._scalar(value)

    def _scalar(self, value: Any) -> Any:
        kind = self.item_type
        choices = self.choices
        try:
            if choices:
                text = _renamed(str(value).strip(), self.flag, dict(self.info.renamed))
                if text not in choices:
                    label = self.flag.replace("-", " ")
                    raise ValueError(f"unknown {label} {text!r}: use {', '.join(choices)}")
                return text
            if kind is bool:
                return _boolean(value)
            if kind in (int, float):
                return _bounded(_number(value, kind), self.info.minimum, self.info.maximum)
            if kind is Path:
                return Path(value)
            if kind is str:
                if not isinstance(value, str | int | float) or isinstance(value, bool):
                    raise ValueError(f"not a text: {value!r}")
                return str(value)
        except ValueError as error:
            raise OptionError(f"--{self.flag}", str(error)) from None
        raise TypeError(f"option {self.name}: unsupported type {kind!r}")


def option_specs(config_type: type[Any]) -> tuple[OptionSpec, ...]:
    """The options of a config dataclass, in field order (read once per class: resolving its
    type hints was a third of a static model's association run).

    Raises
    ------
    TypeError
        If a field was not declared with :func:`option` or has an unsupported type (a bug in
        the method, not the user's input).
    """
    # a class is hashable, though typeshed does not say so of type[Any]
    return _option_specs(typing.cast(Hashable, config_type))


@functools.cache
def _option_specs(config_type: Any) -> tuple[OptionSpec, ...]:
    hints = typing.get_type_hints(config_type)
    specs = []
    for field in dataclasses.fields(config_type):
        info = field.metadata.get("option")
        if not isinstance(info, OptionInfo):
            raise TypeError(f"{config_type.__name__}.{field.name} is not declared with option()")
        base, optional = _without_none(hints[field.name])
        default = field.default if field.default is not MISSING else None
        specs.append(OptionSpec(field.name, base, optional, default, info))
    return tuple(specs)


def check_bounds(config: Any) -> None:
    """Refuse a number of ``config`` outside its option's declared bounds (:class:`OptionInfo`'s
    ``minimum`` and ``maximum``): values read by :func:`read_values` are checked as they are
    read, and a config's ``check()`` calls this for one built directly.

    Raises
    ------
    OptionError
        Naming the option's flag and the bound.
    """
    for spec in option_specs(type(config)):
        value = getattr(config, spec.name)
        if value is None or (spec.info.minimum is None and spec.info.maximum is None):
            continue
        for number in value if spec.is_list else (value,):
            try:
                _bounded(number, spec.info.minimum, spec.info.maximum)
            except ValueError as error:
                raise OptionError(f"--{spec.flag}", str(error)) from None


def read_values(
    config_type: type[Any],
    values: Mapping[str, Any],
    *,
    study: bool = False,
    python: bool = False,
) -> dict[str, Any]:
    """Option values given by name, flag or alias, read as their fields' types.

    Parameters
    ----------
    config_type
        The method's config dataclass (or :class:`~wordlens.models.options.ModelOptions`).
    values
        Text (command line) or YAML values (study file): ``{"tests": "1,7"}`` or
        ``{"tests": [1, 7]}``.
    study
        The values come from a study file: errors name the key as written, and options
        declared ``study=False`` are refused.
    python
        The values are a Python call's keywords (:mod:`wordlens.api`): errors name the
        keyword (``tests``), not the command-line flag (``--tests``).

    Returns
    -------
    dict
        Field name → value.

    Raises
    ------
    OptionError
        If a key is not an option (naming the known ones and, when one is close, suggesting
        it: ``did you mean n_samples?``) or a value cannot be read.
    """
    specs = option_specs(config_type)
    by_alias = {alias: spec for spec in specs for alias in spec.aliases()}
    chosen: dict[str, Any] = {}
    for key, value in values.items():
        spec = by_alias.get(key)
        if spec is None or (study and not spec.info.study):
            known = [spec.name for spec in specs if spec.info.study or not study]
            detail = f"not an option{' of a study' if study else ''} ({', '.join(known)})"
            close = difflib.get_close_matches(str(key).replace("-", "_"), known, n=1)
            raise OptionError(key, detail + (f"; did you mean {close[0]}?" if close else ""))
        if str(key).replace("_", "-") in spec.info.deprecated:
            new = spec.name if python or study else f"--{spec.flag}"
            warnings.warn(
                f"{key} is deprecated and will be removed in the next release: use {new}",
                FutureWarning,
                stacklevel=2,
            )
        try:
            chosen[spec.name] = spec.read(value)
        except OptionError as error:
            raise OptionError(key if study or python else error.option, error.detail) from None
    return chosen


def config_from_values(
    config_type: type[C], values: Mapping[str, Any], *, python: bool = False
) -> C:
    """A config from option values (:func:`read_values`); the others keep their defaults.
    The config's own ``check()`` (cross-option rules), if it has one, runs last.

    With ``python`` (a Python call's keywords), an :class:`OptionError` of the config's own
    rules names the field (``bootstrap``) instead of its flag (``--bootstrap``).

    Raises
    ------
    OptionError
        As :func:`read_values`.
    WordlensError
        From ``check()``.
    """
    read = read_values(config_type, values, python=python)
    try:
        config = config_type(**read)
        check: Callable[[], None] | None = getattr(config, "check", None)
        if check is not None:
            check()
    except OptionError as error:
        if not python:
            raise
        names = {f"--{spec.flag}": spec.name for spec in option_specs(config_type)}
        raise OptionError(names.get(error.option, error.option), error.detail) from None
    return config


def keyword_names(*config_types: type[Any]) -> dict[str, str]:
    """Each command-line flag of these configs (deprecated ones included) → how a Python call
    writes it: ``"--swow-file"`` → ``"swow_file"``, ``"--no-weat"`` → ``"weat=False"``."""
    names: dict[str, str] = {}
    for config_type in config_types:
        for spec in option_specs(config_type):
            on, _, off = (spec.info.flag or spec.name.replace("_", "-")).partition("/")
            names.update({f"--{flag}": spec.name for flag in (on, *spec.info.deprecated)})
            if off:
                names[f"--{off}"] = f"{spec.name}=False"
    return names


@contextmanager
def keywords_in_errors(*config_types: type[Any]) -> Iterator[None]:
    """Inside, a :class:`~wordlens.errors.WordlensError` raised names the options of
    ``config_types`` as a Python call writes them (:func:`keyword_names`), not as flags: the
    message of a rule checked anywhere in a run (``swow needs the user's SWOW-EN file
    (--swow-file)``) reads right from :mod:`wordlens.api` too. The same error object is
    re-raised, its type and traceback kept. A message that already names a flag's keyword
    (``pass --trust-remote-code (trust_remote_code=True in Python)``) keeps that flag."""
    names = keyword_names(*config_types)
    try:
        yield
    except WordlensError as error:
        if error.args and isinstance(error.args[0], str):
            text = error.args[0]
            error.args = (flags_as_keywords(text, names), *error.args[1:])
            if isinstance(error, OptionError):
                error.option = flags_as_keywords(error.option, names, text)
                error.detail = flags_as_keywords(error.detail, names, text)
        raise


def flags_as_keywords(text: str, names: Mapping[str, str], whole: str | None = None) -> str:
    """``text`` with each flag of ``names`` (:func:`keyword_names`) written as its Python
    keyword (``--max-missing`` → ``max_missing``); a flag whose keyword ``whole`` (the whole
    message, [``text``]) names already stays, as the message says both forms on purpose."""
    context = _FLAG.sub("", text if whole is None else whole)

    def keyword(match: re.Match[str]) -> str:
        name = names.get(match.group())
        said = name is None or name.split("=")[0] in context
        return match.group() if said or name is None else name

    return _FLAG.sub(keyword, text)


def keywords_in_metadata(value: Any, names: Mapping[str, str]) -> Any:
    """``value`` (a run's metadata, or part of it) with the flags of every text in it written
    as Python keywords (:func:`flags_as_keywords`): the reasons a run stored (``skipped: ...
    more than --max-missing 0.1``) read right from Python too."""
    if isinstance(value, str):
        return flags_as_keywords(value, names)
    if isinstance(value, dict):
        return {key: keywords_in_metadata(item, names) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(keywords_in_metadata(item, names) for item in value)
    return value


_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
"""A long flag in free text (``--swow-file``), not a dash pair inside a word."""


def options_json_schema(config_type: type[Any], *, study: bool = True) -> dict[str, Any]:
    """JSON Schema of a config's options as a study file writes them (a list may also be a
    comma list; a ``None`` default may be written as its word), extra keys forbidden."""
    properties = {}
    for spec in option_specs(config_type):
        if study and not spec.info.study:
            continue
        former = tuple(old for old, _ in spec.info.renamed)
        item = _json_type(spec.item_type, spec.choices + former)
        bounds = {"minimum": spec.info.minimum, "maximum": spec.info.maximum}
        item.update({key: bound for key, bound in bounds.items() if bound is not None})
        forms: list[dict[str, Any]] = (
            [{"type": "array", "items": item}, {"type": "string"}] if spec.is_list else [item]
        )
        if spec.optional:
            forms.append({"type": "null"})
            if spec.info.none is not None:
                forms.append({"const": spec.info.none})
        described: dict[str, Any] = {"description": spec.info.help}
        described["default"] = _json_ready(spec.default)
        shape = {"anyOf": forms} if len(forms) > 1 else forms[0]
        properties[spec.name] = {**described, **shape}
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _json_type(kind: Any, choices: tuple[str, ...]) -> dict[str, Any]:
    if choices:
        return {"enum": list(choices)}
    names = {bool: "boolean", int: "integer", float: "number", str: "string", Path: "string"}
    return {"type": names[kind]}


def config_values(config: Any) -> dict[str, Any]:
    """A config's fields as JSON-ready values (paths as text), for metadata and digests."""
    return {
        field.name: _json_ready(getattr(config, field.name)) for field in dataclasses.fields(config)
    }


def _json_ready(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return [_json_ready(item) for item in value]
    return value


def _split(value: Any, ranges: bool) -> list[Any]:
    """A comma list (text) or a YAML list as items; ``'none'`` or ``''`` → []; with ``ranges``,
    ``'2-5'`` → 2, 3, 4, 5."""
    if isinstance(value, list | tuple):
        parts: list[Any] = list(value)
    elif isinstance(value, str):
        if value.strip().lower() in ("", "none"):
            return []
        parts = [part.strip() for part in value.split(",") if part.strip()]
    else:
        parts = [value]
    if not ranges:
        return parts
    items: list[Any] = []
    for part in parts:
        text = str(part)
        if "-" in text[1:]:
            low, high = text[0] + text[1:].split("-", 1)[0], text[1:].split("-", 1)[1]
            items.extend(range(int(low), int(high) + 1))
        else:
            items.append(int(text))
    return items


def _number(value: Any, kind: type[int] | type[float]) -> int | float:
    """``value`` (text or number) as an int or a float; a ValueError saying which it is not."""
    what = "an integer" if kind is int else "a number"
    if isinstance(value, bool) or (
        kind is int and isinstance(value, float) and not value.is_integer()
    ):
        raise ValueError(f"not {what}: {value!r}")
    try:
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError(f"not {what}: {value!r}") from None


def _bounded(number: float, minimum: float | None, maximum: float | None) -> Any:
    """``number`` if it lies within the bounds (inclusive; NaN lies within none); a ValueError
    naming the bound it is outside of."""
    if minimum is not None and not number >= minimum:
        raise ValueError(f"must be >= {minimum:,}, not {number:,}")
    if maximum is not None and not number <= maximum:
        raise ValueError(f"must be <= {maximum:,}, not {number:,}")
    return number


def _renamed(text: str, flag: str, renamed: Mapping[str, str]) -> str:
    """``text``, or the value it was renamed to (with a ``FutureWarning`` naming both)."""
    if text not in renamed:
        return text
    new = renamed[text]
    warnings.warn(
        f"{flag} {text!r} is deprecated and will be removed in the next release: use {new!r}",
        FutureWarning,
        stacklevel=4,
    )
    return new


def _is_word(value: Any, word: str) -> bool:
    return isinstance(value, str) and value.strip().lower() == word


def _boolean(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1", "on"):
        return True
    if text in ("false", "no", "0", "off"):
        return False
    raise ValueError(f"not true or false: {value!r}")


def _without_none(annotation: Any) -> tuple[Any, bool]:
    """``T | None`` → (T, True); ``T`` → (T, False)."""
    if get_origin(annotation) in (typing.Union, types.UnionType):
        members = [member for member in get_args(annotation) if member is not type(None)]
        if len(members) == 1:
            return members[0], len(members) < len(get_args(annotation))
    return annotation, False
