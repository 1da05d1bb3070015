"""A WEAT query: a user's own two target sets and two attribute sets (WEFE's ``Query``).

A query is written as a mapping, in Python or in a YAML or JSON file::

    title: Flowers vs. insects            # optional
    targets:
      flowers: [rose, tulip, daisy]
      insects: [ant, wasp, flea]
    attributes:
      pleasant: [love, peace, happy]
      unpleasant: [hate, war, ugly]

Exactly two named target sets (``X`` then ``Y``, in the order written) and two named attribute
sets (``A`` then ``B``). :meth:`Query.to_weat_test` makes the
:class:`~wordlens.resources.WeatTest` that ``wordlens weat --query FILE`` and
``wordlens.weat(model, query=...)`` run, numbered :data:`QUERY_ID` (0: no packaged test has
it) and without an original finding; its own checks refuse a word listed twice in a set and
target (or attribute) sets that share words.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wordlens._files import read_text, reading
from wordlens.errors import QueryError, WordlensError, shown_word
from wordlens.resources.wordsets import WeatTest, WordSet

QUERY_ID = 0
"""The test number of a query's WEAT test (the packaged tests are numbered 1-10)."""
_KEYS = ("title", "targets", "attributes")


@dataclass(frozen=True)
class Query:
    """Two named target sets and two named attribute sets, and an optional title.

    Attributes
    ----------
    targets
        Set name → words: exactly two sets, ``X`` and ``Y`` of the test in this order.
    attributes
        Set name → words: exactly two sets, ``A`` and ``B``.
    title
        What the results call the query [``"X vs. Y, A vs. B"`` from the set names].

    Raises
    ------
    QueryError
        If there are not two sets of each kind, a set has no words or a word is not text.
    WordSetError
        If a set repeats a word or the two target (attribute) sets share words.

    Examples
    --------
    >>> query = Query(
    ...     targets={"flowers": ["rose", "tulip"], "insects": ["ant", "wasp"]},
    ...     attributes={"pleasant": ["love", "peace"], "unpleasant": ["hate", "war"]},
    ... )
    >>> test = query.to_weat_test()
    >>> test.id, test.title, test.x
    (0, 'flowers vs. insects, pleasant vs. unpleasant', WordSet(name='flowers', words=('rose', 'tulip')))
    """  # noqa: E501

    targets: Mapping[str, tuple[str, ...]]
    attributes: Mapping[str, tuple[str, ...]]
    title: str | None = None

    def __post_init__(self) -> None:
        for key in ("targets", "attributes"):
            object.__setattr__(self, key, _sets(getattr(self, key), key, "query"))
        if self.title is not None and (not isinstance(self.title, str) or not self.title.strip()):
            raise QueryError(f"query: 'title' must be a non-empty text, not {self.title!r}")
        self.to_weat_test()  # the sets' own checks (repeats, shared words)

    @property
    def name(self) -> str:
        """The title, or ``"X vs. Y, A vs. B"`` from the set names."""
        if self.title:
            return self.title
        x, y = self.targets
        a, b = self.attributes
        return f"{x} vs. {y}, {a} vs. {b}"

    def first(self, n: int) -> Query:
        """The query with the first ``n`` words of each set (``--limit``, quick mode)."""
        targets = {name: words[:n] for name, words in self.targets.items()}
        attributes = {name: words[:n] for name, words in self.attributes.items()}
        return Query(targets, attributes, self.title)

    def to_weat_test(self) -> WeatTest:
        """The WEAT test of the query: number :data:`QUERY_ID`, its :attr:`name` as title."""
        (x, x_words), (y, y_words) = self.targets.items()
        (a, a_words), (b, b_words) = self.attributes.items()
        return WeatTest(
            QUERY_ID,
            self.name,
            WordSet(x, tuple(x_words)),
            WordSet(y, tuple(y_words)),
            WordSet(a, tuple(a_words)),
            WordSet(b, tuple(b_words)),
        )

    def as_dict(self) -> dict[str, Any]:
        """The query as written (title, then the sets as lists), JSON-ready."""
        return {
            "title": self.name,
            "targets": {name: list(words) for name, words in self.targets.items()},
            "attributes": {name: list(words) for name, words in self.attributes.items()},
        }

    @classmethod
    def from_dict(cls, document: object, where: str = "query") -> Query:
        """A query from a mapping with ``targets``, ``attributes`` and optionally ``title``.

        Raises
        ------
        QueryError, WordSetError
            As :class:`Query`, and for an unknown or missing key; the message starts with
            ``where`` (a file's path).
        """
        if not isinstance(document, Mapping):
            raise QueryError(
                f"{where}: a query is a mapping with 'targets' and 'attributes' (two named word "
                f"sets each) and optionally 'title', not {type(document).__name__}"
            )
        unknown = [str(key) for key in document if key not in _KEYS]
        if unknown:
            raise QueryError(f"{where}: unknown key(s) {unknown}; allowed: {', '.join(_KEYS)}")
        missing = [key for key in ("targets", "attributes") if key not in document]
        if missing:
            raise QueryError(
                f"{where}: no {' and no '.join(repr(key) for key in missing)}; a query names two "
                "target sets and two attribute sets, e.g. targets: {flowers: [rose, tulip], "
                "insects: [ant, wasp]}"
            )
        try:
            return cls(
                targets=_sets(document["targets"], "targets", where),
                attributes=_sets(document["attributes"], "attributes", where),
                title=document.get("title"),
            )
        except WordlensError as error:
            if str(error).startswith(where):
                raise
            raise type(error)(f"{where}: {error}") from None

    @classmethod
    def from_file(cls, path: str | Path) -> Query:
        """A query from a YAML file (``.json``: JSON), read with ``yaml.safe_load``.

        Raises
        ------
        QueryError
            If the file does not exist, is not valid YAML (JSON) or is not a query (see
            :meth:`from_dict`); the message names the file.
        InputFileError, FileEncodingError
            If the file cannot be read or is not UTF-8.
        """
        path = Path(path)
        if not path.exists():
            raise QueryError(f"{path}: no such query file")
        with reading(path, "query file"):
            text = read_text(path)
        if path.suffix.lower() == ".json":
            try:
                document = json.loads(text)
            except json.JSONDecodeError as error:
                raise QueryError(f"{path}: not valid JSON: {error}") from None
        else:
            import yaml

            try:
                document = yaml.safe_load(text)
            except yaml.YAMLError as error:
                raise QueryError(f"{path}: not valid YAML: {error}") from None
        if document is None:
            raise QueryError(f"{path}: the query file is empty")
        return cls.from_dict(document, str(path))

    @classmethod
    def coerce(cls, query: Query | Mapping[str, Any] | str | Path) -> Query:
        """``query`` as a :class:`Query`: itself, from a mapping, or from a file's path."""
        if isinstance(query, Query):
            return query
        if isinstance(query, Mapping):
            return cls.from_dict(query)
        if isinstance(query, str | Path):
            return cls.from_file(query)
        raise QueryError(f"query: a Query, a mapping or a file's path, not {type(query).__name__}")


def _sets(value: object, key: str, where: str) -> dict[str, tuple[str, ...]]:
    """Two named word sets, checked: names and words texts, no set empty."""
    if not isinstance(value, Mapping) or len(value) != 2:
        count = f"{len(value)} set(s)" if isinstance(value, Mapping) else type(value).__name__
        raise QueryError(
            f"{where}: {key!r} must name exactly two word sets ({{name: [words], name: "
            f"[words]}}), not {count}"
        )
    sets: dict[str, tuple[str, ...]] = {}
    for name, words in value.items():
        if not isinstance(name, str) or not name.strip():
            raise QueryError(f"{where}: {key}: a set's name must be a text, not {name!r}")
        if isinstance(words, str) or not isinstance(words, list | tuple):
            raise QueryError(f"{where}: {key}: set {name!r} must be a list of words, not {words!r}")
        if not words:
            raise QueryError(f"{where}: {key}: set {name!r} has no words")
        bad = [word for word in words if not isinstance(word, str) or not word.strip()]
        if bad:
            shown = ", ".join(shown_word(w) if isinstance(w, str) else repr(w) for w in bad[:10])
            raise QueryError(
                f"{where}: {key}: set {name!r} has word(s) that are not text: {shown} (in YAML, "
                "quote words such as 'yes', 'no', 'null' or numbers)"
            )
        sets[name] = tuple(words)
    return sets
