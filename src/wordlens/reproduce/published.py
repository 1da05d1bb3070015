"""The published numbers of the five papers wordlens implements, as data.

Each paper has a file ``wordlens/reproduce/papers/<paper>.yaml`` (shipped as package data) with:

- ``paper``, ``title``, ``citation`` and ``file`` (the plain-text extraction of the paper, a file
  name in the shared ``papers`` folder);
- ``quantities``: name -> what it measures; every item's ``quantity`` is one of them;
- ``items``: every number of the paper's tables, the figure values its source gives, and the
  result numbers stated in its text, each with its ``location`` (``kind`` ``table``, ``figure``
  or ``text``), ``quantity``, ``value``, ``model`` (a Hugging Face hub id where one exists,
  ``null`` for numbers about data alone), ``data``, ``setting`` (what identifies the cell) and
  ``text`` (a short quote of the header or sentence). ``printed`` is the number as the paper
  prints it (``".32"``, ``"116K"``), given where it differs from the value written plainly;
  ``relation`` says whether the paper states the value exactly (``eq``), approximately
  (``approx``: "nearly", "about"), as a bound (``lt``, ``le``, ``gt``, ``ge``: "less than",
  "within", "more than", "at least") or as a range from ``value`` to ``upper`` (``range``);
  ``correction`` explains a value that departs from what is printed (e.g. a minus sign lost in
  the extraction) and ``note`` any other reading of an ambiguous cell;
- ``figures``: the figures whose values the text does not give (caption and what they plot);
- ``findings``: the paper's qualitative claims, each with a quote and its section;
- ``lost``: tables and passages whose numbers were lost in the text extraction.

:func:`load_published` reads and validates a file: required keys, unique lower-case ids, numeric
values that match their printed form, known location kinds and declared quantities; a malformed
entry raises :class:`~wordlens.errors.PublishedValuesError` naming the file and the entry.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from importlib import resources as package_files
from types import MappingProxyType
from typing import Any, NoReturn

from wordlens.errors import PublishedValuesError

#: The papers, in the order of the shared ``papers`` folder (files 000 to 004).
PAPERS: tuple[str, ...] = ("vast", "sense-bias", "intersectional", "asymmetry", "probing")

#: Location kinds of items and figures; ``appendix`` is allowed only in ``lost``.
KINDS: tuple[str, ...] = ("table", "figure", "text")
LOST_KINDS: tuple[str, ...] = (*KINDS, "appendix")

#: How the paper states a value: exactly, approximately, as a bound, or as a range.
RELATIONS: tuple[str, ...] = ("eq", "approx", "lt", "le", "gt", "ge", "range")

Scalar = str | int | float | bool | None

_PACKAGE = "wordlens.reproduce"
_FOLDER = "papers"
_ID = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")
_FILE = re.compile(r"\d{3}_[0-9a-f]{16}\.txt")
_NUMBER = r"(\d[\d,]*(?:\.\d*)?|\.\d+)"
_PRINTED = re.compile(rf"([+-]?)\s*{_NUMBER}\s*([%KkMB]?)")
_PRINTED_RANGE = re.compile(rf"{_NUMBER}\s*[-\u2013]\s*{_NUMBER}\s*([%KkMB]?)")
_SCALES = {"": 1.0, "%": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9}
_TOP_KEYS = {"paper", "title", "citation", "file", "quantities", "items", "figures", "findings"}
_ITEM_KEYS = {"id", "location", "quantity", "value", "model", "data", "setting", "text"}
_ITEM_OPTIONAL = {"printed", "relation", "upper", "correction", "note"}
_LOCATION_KEYS = {"kind", "number", "section", "row", "column", "panel", "series", "x"}


@dataclass(frozen=True)
class Location:
    """Where a number or figure is in the paper.

    ``number`` is the table's or figure's number (``None`` for text), ``section`` the section of
    a number stated in the text; ``row``/``column`` name a table cell and ``panel``/``series``/
    ``x`` a point of a figure (``panel`` also names a block of a table's rows, as in "BERT:
    -base, -large").
    """

    kind: str
    number: int | None = None
    section: str | None = None
    row: str | None = None
    column: str | None = None
    panel: str | None = None
    series: str | None = None
    x: Scalar = None


@dataclass(frozen=True)
class PublishedItem:
    """One number the paper publishes (a table cell, a figure value, a number in its text)."""

    id: str
    location: Location
    quantity: str
    value: float
    model: str | None
    data: str
    setting: Mapping[str, Scalar]
    text: str
    printed: str
    relation: str = "eq"
    upper: float | None = None
    correction: str | None = None
    note: str | None = None

    @property
    def resolution(self) -> float:
        """One unit of the last printed digit, in the value's units (``".32"`` -> 0.01,
        ``"116K"`` -> 1000.0, ``"8,421"`` -> 1.0): the precision the paper reports."""
        printed = self.printed.strip()
        ranged = _PRINTED_RANGE.fullmatch(printed)
        single = _PRINTED.fullmatch(printed.replace("\u2212", "-"))
        if ranged is not None:
            number, suffix = ranged.group(1), ranged.group(3)
        elif single is not None:
            number, suffix = single.group(2), single.group(3)
        else:  # a corrected value whose printed form is not a plain number
            return 0.0
        decimals = len(number.split(".")[1]) if "." in number else 0
        return 10.0**-decimals * _SCALES[suffix]


@dataclass(frozen=True)
class PublishedFigure:
    """A figure whose values the text does not give."""

    id: str
    location: Location
    caption: str
    shows: str


@dataclass(frozen=True)
class Finding:
    """A qualitative claim of the paper, with a quote and the section it is in."""

    id: str
    claim: str
    quote: str
    location: str


@dataclass(frozen=True)
class LostNumbers:
    """A table or passage whose numbers were lost in the text extraction."""

    location: Location
    note: str


@dataclass(frozen=True)
class PaperValues:
    """Everything one paper publishes (see the module docstring)."""

    paper: str
    title: str
    citation: str
    file: str
    quantities: Mapping[str, str]
    items: tuple[PublishedItem, ...]
    figures: tuple[PublishedFigure, ...]
    findings: tuple[Finding, ...]
    lost: tuple[LostNumbers, ...]

    def item(self, id: str) -> PublishedItem:
        """The item with this id.

        Raises
        ------
        KeyError
            If the paper has no such item.
        """
        for item in self.items:
            if item.id == id:
                return item
        raise KeyError(f"{self.paper}: no item {id!r}")

    def table(self, number: int) -> tuple[PublishedItem, ...]:
        """The items of table ``number``, in the order of the file."""
        return tuple(
            item
            for item in self.items
            if item.location.kind == "table" and item.location.number == number
        )


def load_published(paper: str) -> PaperValues:
    """The published numbers of ``paper`` (one of :data:`PAPERS`), read from the package.

    Raises
    ------
    PublishedValuesError
        If ``paper`` is not one of :data:`PAPERS`, or its file is malformed; the message names
        the file and the entry.
    """
    if paper not in PAPERS:
        raise PublishedValuesError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    return _load(paper)


@functools.cache
def _load(paper: str) -> PaperValues:
    name = f"{paper}.yaml"
    source = f"wordlens/reproduce/{_FOLDER}/{name}"
    text = package_files.files(_PACKAGE).joinpath(_FOLDER, name).read_text("utf-8")
    values = read_paper_values(text, source)
    if values.paper != paper:
        raise PublishedValuesError(f"{source}: 'paper' is {values.paper!r}, expected {paper!r}")
    return values


def read_paper_values(text: str, source: str) -> PaperValues:
    """Parse and validate the YAML ``text`` of one paper's file; ``source`` names it in errors.

    Raises
    ------
    PublishedValuesError
        If the text is not YAML or an entry is malformed.
    """
    import yaml  # here, not at the top: the command line imports this module

    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise PublishedValuesError(f"{source}: not YAML ({error})") from None
    where = _Where(source, "the file")
    mapping = _mapping(document, where, required=_TOP_KEYS, optional={"lost"})
    quantities = _quantities(mapping["quantities"], where)
    items = tuple(
        _item(entry, _Where(source, f"items[{index}]"), quantities)
        for index, entry in enumerate(_list(mapping["items"], where.at("items")))
    )
    figures = tuple(
        _figure(entry, _Where(source, f"figures[{index}]"))
        for index, entry in enumerate(_list(mapping.get("figures", []), where.at("figures")))
    )
    findings = tuple(
        _finding(entry, _Where(source, f"findings[{index}]"))
        for index, entry in enumerate(_list(mapping.get("findings", []), where.at("findings")))
    )
    lost = tuple(
        _lost(entry, _Where(source, f"lost[{index}]"))
        for index, entry in enumerate(_list(mapping.get("lost", []), where.at("lost")))
    )
    _check_unique([*items, *figures, *findings], source)
    values = PaperValues(
        paper=_text(mapping["paper"], where.at("paper")),
        title=_text(mapping["title"], where.at("title")),
        citation=_text(mapping["citation"], where.at("citation")),
        file=_text(mapping["file"], where.at("file")),
        quantities=quantities,
        items=items,
        figures=figures,
        findings=findings,
        lost=lost,
    )
    if not _FILE.fullmatch(values.file):
        where.fail(
            f"'file' must name a paper text such as 000_<16 hex digits>.txt: {values.file!r}"
        )
    return values


def printed_number(printed: str) -> float:
    """The number a printed form stands for: ``".32"`` -> 0.32, ``"-.05"`` -> -0.05,
    ``"8,421"`` -> 8421, ``"116K"`` -> 116000, ``"3%"`` -> 3 (percent points).

    Raises
    ------
    ValueError
        If ``printed`` is not a number in one of these forms.
    """
    match = _PRINTED.fullmatch(printed.strip().replace("\u2212", "-"))
    if match is None:
        raise ValueError(f"not a printed number: {printed!r}")
    sign, number, suffix = match.groups()
    value = float(number.replace(",", "")) * _SCALES[suffix]
    return -value if sign == "-" else value


def printed_range(printed: str) -> tuple[float, float]:
    """The two ends of a printed range: ``"1-3"`` -> (1, 3), ``"80-90%"`` -> (80, 90).

    Raises
    ------
    ValueError
        If ``printed`` is not such a range.
    """
    match = _PRINTED_RANGE.fullmatch(printed.strip())
    if match is None:
        raise ValueError(f"not a printed range: {printed!r}")
    low, high, suffix = match.groups()
    scale = _SCALES[suffix]
    return float(low.replace(",", "")) * scale, float(high.replace(",", "")) * scale


@dataclass(frozen=True)
class _Where:
    """The file and entry an error is about."""

    source: str
    entry: str

    def at(self, key: str) -> _Where:
        return _Where(self.source, f"{self.entry}, {key!r}")

    def fail(self, problem: str) -> NoReturn:
        raise PublishedValuesError(f"{self.source}: {self.entry}: {problem}")


def _mapping(
    value: Any,
    where: _Where,
    *,
    required: AbstractSet[str],
    optional: AbstractSet[str] = frozenset(),
) -> dict[str, Any]:
    if not isinstance(value, dict):
        where.fail(f"expected a mapping, got {type(value).__name__}")
    missing = sorted(required - set(value))
    if missing:
        where.fail(f"missing {', '.join(map(repr, missing))}")
    unknown = sorted(set(value) - required - optional, key=str)
    if unknown:
        where.fail(f"unknown key(s) {', '.join(map(repr, unknown))}")
    return dict(value)


def _list(value: Any, where: _Where) -> list[Any]:
    if not isinstance(value, list):
        where.fail(f"expected a list, got {type(value).__name__}")
    return list(value)


def _text(value: Any, where: _Where) -> str:
    if not isinstance(value, str) or not value.strip():
        where.fail(f"expected a non-empty string, got {value!r}")
    return str(value)


def _number(value: Any, where: _Where) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        where.fail(f"expected a finite number, got {value!r}")
    return float(value)


def _quantities(value: Any, where: _Where) -> Mapping[str, str]:
    if not isinstance(value, dict) or not value:
        where.fail("'quantities' must map each quantity name to its description")
    for name, description in value.items():
        if not isinstance(name, str) or not _ID.fullmatch(name):
            where.fail(f"quantity name {name!r} is not lower-case letters, digits, '-' and '_'")
        _text(description, where.at(f"quantities.{name}"))
    return MappingProxyType(dict(value))


def _location(value: Any, where: _Where, kinds: tuple[str, ...]) -> Location:
    mapping = _mapping(value, where, required={"kind"}, optional=_LOCATION_KEYS - {"kind"})
    kind = mapping["kind"]
    if kind not in kinds:
        where.fail(f"location kind {kind!r} is not one of {', '.join(kinds)}")
    number = mapping.get("number")
    if kind in ("table", "figure"):
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            where.fail(f"a {kind} location needs a 'number' >= 1, got {number!r}")
    elif number is not None:
        where.fail(f"a {kind} location has no 'number'")
    if kind == "text":
        _text(mapping.get("section"), where.at("section"))
    for key in ("section", "row", "column", "panel", "series"):
        if key in mapping:
            _text(mapping[key], where.at(key))
    x = mapping.get("x")
    if x is not None and not isinstance(x, str | int | float):
        where.fail(f"location 'x' must be a number or a string, got {x!r}")
    return Location(
        kind=kind,
        number=number,
        section=mapping.get("section"),
        row=mapping.get("row"),
        column=mapping.get("column"),
        panel=mapping.get("panel"),
        series=mapping.get("series"),
        x=x,
    )


def _named(entry: Any, where: _Where) -> _Where:
    """Errors about an entry with an id name it by its id too."""
    if isinstance(entry, dict) and isinstance(entry.get("id"), str):
        return _Where(where.source, f"{where.entry} (id {entry['id']!r})")
    return where


def _identifier(value: Any, where: _Where) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        where.fail(f"'id' must be lower-case letters and digits joined by '-' or '_': {value!r}")
    return value


def _item(entry: Any, where: _Where, quantities: Mapping[str, str]) -> PublishedItem:
    where = _named(entry, where)
    mapping = _mapping(entry, where, required=_ITEM_KEYS, optional=_ITEM_OPTIONAL)
    id = _identifier(mapping["id"], where)
    quantity = _text(mapping["quantity"], where.at("quantity"))
    if quantity not in quantities:
        where.fail(f"quantity {quantity!r} is not declared under 'quantities'")
    value = _number(mapping["value"], where.at("value"))
    model = mapping["model"]
    if model is not None:
        model = _text(model, where.at("model"))
    setting = mapping["setting"]
    if not isinstance(setting, dict) or not all(
        isinstance(key, str) and (val is None or isinstance(val, str | int | float))
        for key, val in setting.items()
    ):
        where.fail(f"'setting' must map names to scalars, got {setting!r}")
    relation = mapping.get("relation", "eq")
    if relation not in RELATIONS:
        where.fail(f"relation {relation!r} is not one of {', '.join(RELATIONS)}")
    upper = mapping.get("upper")
    if (relation == "range") != (upper is not None):
        where.fail("'upper' is given exactly when the relation is 'range'")
    if upper is not None and _number(upper, where.at("upper")) <= value:
        where.fail(f"'upper' ({upper}) must exceed 'value' ({value})")
    raw = mapping["value"]
    printed = mapping.get("printed", str(raw) if isinstance(raw, int) else repr(float(raw)))
    correction = mapping.get("correction")
    _check_printed(_text(printed, where.at("printed")), value, upper, correction, where)
    return PublishedItem(
        id=id,
        location=_location(mapping["location"], where.at("location"), KINDS),
        quantity=quantity,
        value=value,
        model=model,
        data=_text(mapping["data"], where.at("data")),
        setting=MappingProxyType(dict(setting)),
        text=_text(mapping["text"], where.at("text")),
        printed=printed,
        relation=relation,
        upper=None if upper is None else float(upper),
        correction=None if correction is None else _text(correction, where.at("correction")),
        note=None if mapping.get("note") is None else _text(mapping["note"], where.at("note")),
    )


def _check_printed(
    printed: str, value: float, upper: float | None, correction: Any, where: _Where
) -> None:
    """The printed form must stand for the value (both ends for a range), unless a
    ``correction`` explains why the value departs from it."""
    if correction is not None:
        return
    try:
        ends = printed_range(printed) if upper is not None else (printed_number(printed),)
    except ValueError as error:
        where.fail(f"'printed': {error}")
    expected = (value, upper) if upper is not None else (value,)
    if not all(
        math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
        for a, b in zip(ends, expected, strict=True)
    ):
        where.fail(f"'printed' {printed!r} does not match the value {value!r}")


def _figure(entry: Any, where: _Where) -> PublishedFigure:
    where = _named(entry, where)
    mapping = _mapping(entry, where, required={"id", "location", "caption", "shows"})
    id = _identifier(mapping["id"], where)
    location = _location(mapping["location"], where.at("location"), ("figure",))
    return PublishedFigure(
        id=id,
        location=location,
        caption=_text(mapping["caption"], where.at("caption")),
        shows=_text(mapping["shows"], where.at("shows")),
    )


def _finding(entry: Any, where: _Where) -> Finding:
    where = _named(entry, where)
    mapping = _mapping(entry, where, required={"id", "claim", "quote", "location"})
    id = _identifier(mapping["id"], where)
    return Finding(
        id=id,
        claim=_text(mapping["claim"], where.at("claim")),
        quote=_text(mapping["quote"], where.at("quote")),
        location=_text(mapping["location"], where.at("location")),
    )


def _lost(entry: Any, where: _Where) -> LostNumbers:
    mapping = _mapping(entry, where, required={"location", "note"})
    return LostNumbers(
        location=_location(mapping["location"], where.at("location"), LOST_KINDS),
        note=_text(mapping["note"], where.at("note")),
    )


def _check_unique(entries: list[PublishedItem | PublishedFigure | Finding], source: str) -> None:
    seen: set[str] = set()
    for entry in entries:
        if entry.id in seen:
            raise PublishedValuesError(f"{source}: id {entry.id!r} is used more than once")
        seen.add(entry.id)
