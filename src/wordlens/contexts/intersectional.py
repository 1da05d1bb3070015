"""Intersectional contexts: phrases that combine social-group categories before a target word.

Omrani Sabbaghi, Wolfe & Caliskan (2023) [1]_ place one category of each of 12 social biases
(Table 1: age = young/old, ..., sex = male/female) before the word "person" in a fixed order,
"a young thin tall smart educated literate affluent white heterosexual christian cisgender male
person", and measure the vector of "person" (section 4.2):

- **combinations** (experiment 2, section 5.2): every choice of one category per bias in the fixed
  order, ``2^12 = 4,096`` phrases, each category in exactly ``2,048``;
  :func:`combination_phrases` yields them in :func:`itertools.product` order (the first category
  of every bias first, the last bias varying fastest);
- **permutations** (experiment 3, section 5.3): one category of each of a subset of biases (race,
  sex, religion, gender, sexual orientation) in every order, ``2^5 * 5! = 3,840`` phrases;
  :func:`permutation_phrases` yields, for each choice in product order, the choice's
  :func:`itertools.permutations`.

**The indefinite article agrees with the first category.** A template whose slot directly follows
"a" or "an" (any case; :data:`DEFAULT_TEMPLATE` is ``"a {categories} person"``) gets the article
the first category takes (:func:`wordlens.contexts.articles.indefinite_article`, by sound): "a
young ... person", "an old ... person", as in the authors' phrase files (shivaomrani/LLM-Bias,
``data/experiment-phrases/experiment2.txt``: 2,048 lines "a young ...", 2,048 "an old ...";
``experiment3.txt``: every first category takes "a"). The generated phrase sets equal those files
line for line (as sets; tested). A template without an article before the slot is used as
written.

A study (biases with their two categories, template, target word, the experiment-3 subset) is data:
the packaged default (``data/intersectional_biases.yaml``) or a user's YAML or CSV file
(:func:`load_study`), validated with :class:`StudyFormatError` naming the problem.

**Membership is by exact token.** Each :class:`Phrase` carries the categories it was built from,
so "male" is never found in a "female" phrase, nor "literate" in an "illiterate" one (the authors'
experiment-2 script tests ``'male' in phrase``, a substring match that also counts every "female"
phrase; that is not reproduced). Categories must be single whitespace-free tokens, distinct
(case-insensitively), and none may be a word of the template, so that a phrase's tokens determine
its categories too.

References
----------
.. [1] Omrani Sabbaghi, S., Wolfe, R. & Caliskan, A. (2023). Evaluating Biased Attitude
   Associations of Language Models in an Intersectional Context. *AAAI/ACM Conference on AI,
   Ethics, and Society (AIES)*, 542-553.
"""

from __future__ import annotations

import csv
import functools
import itertools
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from importlib import resources as package_files
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from wordlens._files import DEFAULT_ENCODING, ENCODING_HINT, read_text
from wordlens.contexts import Target
from wordlens.contexts.articles import with_article_for
from wordlens.errors import WordlensError

#: Where a phrase's categories go in a template.
SLOT = "{categories}"
DEFAULT_TEMPLATE = "a {categories} person"
DEFAULT_TARGET = "person"
#: Most phrases a generator builds unless told otherwise (2^k * k! grows fast: k = 7 is 645,120).
MAX_PHRASES = 100_000

#: An indefinite article (a whole word) followed by the whitespace before the slot.
_ARTICLE_BEFORE_SLOT = re.compile(r"(?<!\w)(an?)(\s+)$", re.IGNORECASE)

_PACKAGED = "intersectional_biases.yaml"
_YAML_KEYS = frozenset({"name", "citation", "template", "target", "biases", "strongest_biases"})
_CSV_COLUMNS = ("bias", "first", "second")
_TRUE = frozenset({"true", "yes", "1", "x"})
_FALSE = frozenset({"false", "no", "0", ""})


class StudyFormatError(WordlensError, ValueError):
    """An intersectional study (file or object) is malformed; the message says where and why."""


@dataclass(frozen=True)
class Bias:
    """One social bias and its two categories.

    Attributes
    ----------
    name
        E.g. ``"social class"``.
    first, second
        The categories; ``first`` is group A of the differential test, so a positive effect size
        means ``first`` is the more pleasant (stereotype-congruent in the paper's study).
    """

    name: str
    first: str
    second: str

    @property
    def categories(self) -> tuple[str, str]:
        return (self.first, self.second)

    @property
    def label(self) -> str:
        """``"first vs. second"``, as the paper's Table 2 names a test."""
        return f"{self.first} vs. {self.second}"


@dataclass(frozen=True)
class Phrase:
    """A generated context: the target word's span and the categories the phrase contains.

    Attributes
    ----------
    target
        The whole phrase with the span of the LAST occurrence of the study's target word.
    categories
        The categories in the phrase, in phrase order (exact tokens).
    """

    target: Target
    categories: tuple[str, ...]

    @property
    def text(self) -> str:
        return self.target.text

    def contains(self, category: str) -> bool:
        """Whether ``category`` is one of the phrase's categories (exact token, no substring)."""
        return category in self.categories


@dataclass(frozen=True)
class IntersectionalStudy:
    """Biases in phrase order, the template, the target word and the experiment-3 subset.

    Construction validates everything (see :func:`load_study`); an invalid study raises
    :class:`StudyFormatError`.

    Attributes
    ----------
    biases
        At least one, in the fixed order of the combination phrases.
    template
        Contains :data:`SLOT` once, with whitespace (or the text's edge) on both sides. An "a" or
        "an" right before the slot becomes the article the phrase's first category takes.
    target
        A single token occurring in the template outside the slot; its last occurrence in a
        phrase is measured.
    strongest_biases
        Names of the biases whose categories are permuted in experiment 3 (may be empty).
    name
        A label for reports.
    source
        Where the study was read from, for messages.
    """

    biases: tuple[Bias, ...]
    template: str = DEFAULT_TEMPLATE
    target: str = DEFAULT_TARGET
    strongest_biases: tuple[str, ...] = ()
    name: str = "custom"
    source: str = "<in memory>"

    def __post_init__(self) -> None:
        _validate(self)

    @property
    def categories(self) -> tuple[str, ...]:
        """Every category, bias by bias (first, second)."""
        return tuple(category for bias in self.biases for category in bias.categories)

    @property
    def target_after_categories(self) -> bool:
        """Whether the target word occurs after the slot, so a causal model's target vector can
        see the categories (the paper puts "person" last for this reason, section 4.2)."""
        return bool(_target_pattern(self.target).search(self.template.split(SLOT)[1]))

    def bias(self, name: str) -> Bias:
        """The bias called ``name``."""
        for bias in self.biases:
            if bias.name == name:
                return bias
        raise StudyFormatError(
            f"{self.source}: no bias named {name!r}; the study has "
            f"{', '.join(repr(b.name) for b in self.biases)}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "template": self.template,
            "target": self.target,
            "biases": [{"name": b.name, "categories": list(b.categories)} for b in self.biases],
            "strongest_biases": list(self.strongest_biases),
        }


def load_study(
    source: str | Path | None = None,
    *,
    template: str | None = None,
    target: str | None = None,
    strongest_biases: Sequence[str] | None = None,
    encoding: str = DEFAULT_ENCODING,
) -> IntersectionalStudy:
    """Read a study: the packaged default, or a user's YAML or CSV file.

    YAML (as the packaged ``data/intersectional_biases.yaml``): a mapping with ``biases`` (a list of
    ``{name: ..., categories: [first, second]}``) and optionally ``template``, ``target``,
    ``strongest_biases`` (a list of bias names), ``name`` and ``citation``; other keys are errors.
    CSV: a header with columns ``bias``, ``first``, ``second`` and optionally ``strongest``
    (true/false, yes/no, 1/0 or empty: whether the bias is in the experiment-3 subset); one row per
    bias, in phrase order.

    Parameters
    ----------
    source
        A ``.yaml``/``.yml`` or ``.csv`` file; None for the packaged study of the paper.
    template, target, strongest_biases
        Override the file's (or, for CSV, the default) template, target word and experiment-3
        subset.
    encoding
        The file's text encoding.

    Raises
    ------
    StudyFormatError
        If the file cannot be read or parsed, or the study is invalid: no bias, a bias without
        exactly two categories, a duplicate bias or category (case-insensitive), a category that is
        not a single whitespace-free token or is a word of the template, a template without the
        slot (or with it glued to other text) or without the target word, an unknown or repeated
        bias in ``strongest_biases``.
    FileEncodingError
        If the file is not valid ``encoding``; the message names the line.
    """
    study = _read(Path(source), encoding) if source is not None else default_study()
    overrides: dict[str, Any] = {}
    if template is not None:
        overrides["template"] = template
    if target is not None:
        overrides["target"] = target
    if strongest_biases is not None:
        overrides["strongest_biases"] = tuple(strongest_biases)
    return replace(study, **overrides) if overrides else study


@functools.cache
def default_study() -> IntersectionalStudy:
    """The paper's study: Table 1's 12 biases in its fixed order, template "a {categories}
    person" (the article agreeing with the first category: "a young ...", "an old ...")."""
    resource = package_files.files("wordlens.contexts").joinpath("data", _PACKAGED)
    return _from_mapping(yaml.safe_load(resource.read_text("utf-8")), f"packaged {_PACKAGED}")


def count_combinations(n_biases: int) -> int:
    """Phrases of the combination design: ``2 ** n_biases``."""
    return int(2**n_biases)


def count_permutations(n_biases: int) -> int:
    """Phrases of the permutation design: ``2 ** n_biases * n_biases!``."""
    return int(2**n_biases * math.factorial(n_biases))


def combination_phrases(
    study: IntersectionalStudy, *, max_phrases: int = MAX_PHRASES
) -> list[Phrase]:
    """Every choice of one category per bias, in the study's fixed order (experiment 2).

    Parameters
    ----------
    study
        The biases, template and target.
    max_phrases
        Refuse to build more phrases than this.

    Returns
    -------
    list of Phrase
        ``2 ** len(study.biases)`` phrases in :func:`itertools.product` order (the first category
        of every bias first; the last bias varies fastest). Each category is in exactly half.

    Raises
    ------
    StudyFormatError
        If there would be more than `max_phrases` phrases.
    """
    _check_size(count_combinations(len(study.biases)), max_phrases, "combination")
    choices = itertools.product(*(bias.categories for bias in study.biases))
    return [_phrase(study, categories) for categories in choices]


def permutation_phrases(
    study: IntersectionalStudy,
    biases: Sequence[str] | None = None,
    *,
    max_phrases: int = MAX_PHRASES,
) -> list[Phrase]:
    """One category of each chosen bias, in every order (experiment 3).

    Parameters
    ----------
    study
        The biases, template and target.
    biases
        Names of the biases to permute; None for ``study.strongest_biases``.
    max_phrases
        Refuse to build more phrases than this.

    Returns
    -------
    list of Phrase
        ``2^k * k!`` phrases for ``k`` biases: for each choice in :func:`itertools.product` order
        (biases in the given order, the last varying fastest), its :func:`itertools.permutations`.

    Raises
    ------
    StudyFormatError
        If no bias is chosen, a name is unknown or repeated, or there would be more than
        `max_phrases` phrases.
    """
    names = tuple(study.strongest_biases if biases is None else biases)
    chosen = [study.bias(name) for name in _unique_names(names, study.source)]
    if not chosen:
        raise StudyFormatError(
            f"{study.source}: no biases to permute; name them (strongest_biases in the study "
            "file, or the biases argument)"
        )
    _check_size(count_permutations(len(chosen)), max_phrases, "permutation")
    return [
        _phrase(study, order)
        for choice in itertools.product(*(bias.categories for bias in chosen))
        for order in itertools.permutations(choice)
    ]


def membership_table(phrases: Sequence[Phrase], categories: Iterable[str]) -> pd.DataFrame:
    """Which phrase contains which category, by exact token.

    Parameters
    ----------
    phrases
        Generated phrases.
    categories
        Column order.

    Returns
    -------
    pandas.DataFrame
        Boolean ``[n_phrases, n_categories]``, one column per category.
    """
    return pd.DataFrame(
        {category: [phrase.contains(category) for phrase in phrases] for category in categories},
        dtype=bool,
    )


def _phrase(study: IntersectionalStudy, categories: Sequence[str]) -> Phrase:
    """The phrase of ``categories`` with the span of the target's last occurrence; an indefinite
    article right before the slot is the one the first category takes."""
    before, after = study.template.split(SLOT)
    text = _agree_article(before, categories[0]) + " ".join(categories) + after
    last = list(_target_pattern(study.target).finditer(text))[-1]
    return Phrase(Target(text, last.start(), last.end()), tuple(categories))


def _agree_article(before: str, word: str) -> str:
    """``before`` (the template up to the slot) with a final "a"/"an" replaced by the article
    `word` takes, in the same case; unchanged when it does not end with one."""
    article = _ARTICLE_BEFORE_SLOT.search(before)
    if article is None:
        return before
    return before[: article.start(1)] + with_article_for(article.group(1), word) + article.group(2)


def _check_size(count: int, max_phrases: int, design: str) -> None:
    if count > max_phrases:
        raise StudyFormatError(
            f"the {design} design has {count:,} phrases, more than max_phrases={max_phrases:,}; "
            "use fewer biases or raise the limit"
        )


@functools.cache
def _target_pattern(word: str) -> re.Pattern[str]:
    """Whole-word pattern of ``word`` (as :func:`wordlens.contexts.target_from_word` matches)."""
    return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")


def _validate(study: IntersectionalStudy) -> None:
    """Raise :class:`StudyFormatError` for the first problem found in ``study``."""
    where = study.source
    if not study.biases:
        raise StudyFormatError(f"{where}: a study needs at least one bias")
    _unique_names([bias.name for bias in study.biases], where)
    _validate_template(study.template, study.target, where)
    template_words = set(study.template.replace(SLOT, " ").split())
    seen: dict[str, str] = {}
    for bias in study.biases:
        for category in bias.categories:
            _validate_category(category, bias.name, template_words, study.target, where)
            folded = category.casefold()
            if folded in seen:
                raise StudyFormatError(
                    f"{where}: duplicate category {category!r} (bias {bias.name!r}; already in "
                    f"bias {seen[folded]!r}, compared case-insensitively)"
                )
            seen[folded] = bias.name
    for name in _unique_names(study.strongest_biases, where):
        study.bias(name)


def _unique_names(names: Sequence[str], where: str) -> tuple[str, ...]:
    """``names`` if each is a non-empty string listed once, else raise."""
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise StudyFormatError(f"{where}: a bias name must be a non-empty string; got {name!r}")
    repeated = sorted({name for name in names if list(names).count(name) > 1})
    if repeated:
        raise StudyFormatError(f"{where}: bias name(s) listed more than once: {repeated}")
    return tuple(names)


def _validate_template(template: str, target: str, where: str) -> None:
    if not isinstance(template, str) or template.count(SLOT) != 1:
        raise StudyFormatError(
            f"{where}: the template must contain the slot {SLOT} exactly once; got {template!r}"
        )
    before, after = template.split(SLOT)
    if (before and not before[-1].isspace()) or (after and not after[0].isspace()):
        raise StudyFormatError(
            f"{where}: the slot {SLOT} must be separated from the rest of the template by "
            f"whitespace, so that every category is a token of its own; got {template!r}"
        )
    if not isinstance(target, str) or not target or target.split() != [target] or "{" in target:
        raise StudyFormatError(
            f"{where}: the target must be a single word without whitespace or braces; "
            f"got {target!r}"
        )
    if not _target_pattern(target).search(before + " " + after):
        raise StudyFormatError(
            f"{where}: the target word {target!r} does not occur (as a whole word) in the "
            f"template {template!r} outside the slot"
        )


def _validate_category(
    category: object, bias: str, template_words: set[str], target: str, where: str
) -> None:
    if not isinstance(category, str) or not category or category.split() != [category]:
        raise StudyFormatError(
            f"{where}: category {category!r} of bias {bias!r} is not a single token (a non-empty "
            "word without whitespace)"
        )
    if "{" in category or "}" in category:
        raise StudyFormatError(f"{where}: category {category!r} of bias {bias!r} has braces")
    if category in template_words or _target_pattern(target).search(category):
        raise StudyFormatError(
            f"{where}: category {category!r} of bias {bias!r} is a word of the template or "
            f"contains the target word {target!r}, so phrases would be ambiguous"
        )


def _read(path: Path, encoding: str) -> IntersectionalStudy:
    """A study from a YAML or CSV file."""
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".csv"):
        raise StudyFormatError(f"{path}: a study file must be .yaml, .yml or .csv")
    try:
        text = read_text(path, encoding, hint=ENCODING_HINT)
    except OSError as error:
        raise StudyFormatError(f"{path}: cannot read the study file: {error}") from error
    if suffix == ".csv":
        return _from_csv(text, str(path))
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise StudyFormatError(f"{path}: not valid YAML: {error}") from error
    return _from_mapping(document, str(path))


def _from_mapping(document: object, where: str) -> IntersectionalStudy:
    """A study from a parsed YAML document."""
    if not isinstance(document, dict):
        raise StudyFormatError(f"{where}: the study must be a YAML mapping with a 'biases' list")
    unknown = sorted(set(map(str, document)) - _YAML_KEYS)
    if unknown:
        raise StudyFormatError(
            f"{where}: unknown key(s) {unknown}; allowed: {', '.join(sorted(_YAML_KEYS))}"
        )
    entries = document.get("biases")
    if not isinstance(entries, list) or not entries:
        raise StudyFormatError(f"{where}: 'biases' must be a non-empty list")
    strongest = document.get("strongest_biases") or []
    if not isinstance(strongest, list):
        raise StudyFormatError(f"{where}: 'strongest_biases' must be a list of bias names")
    return IntersectionalStudy(
        biases=tuple(_bias_entry(entry, index, where) for index, entry in enumerate(entries, 1)),
        template=document.get("template", DEFAULT_TEMPLATE),
        target=document.get("target", DEFAULT_TARGET),
        strongest_biases=tuple(strongest),
        name=str(document.get("name", Path(where).stem)),
        source=where,
    )


def _bias_entry(entry: object, index: int, where: str) -> Bias:
    if not isinstance(entry, dict) or set(entry) != {"name", "categories"}:
        raise StudyFormatError(
            f"{where}: bias {index} must be a mapping with exactly the keys 'name' and "
            f"'categories'; got {entry!r}"
        )
    categories = entry["categories"]
    if not isinstance(categories, list) or len(categories) != 2:
        raise StudyFormatError(
            f"{where}: bias {index} ({entry['name']!r}) needs exactly two categories "
            f"[first, second]; got {categories!r}"
        )
    return Bias(entry["name"], categories[0], categories[1])


def _from_csv(text: str, where: str) -> IntersectionalStudy:
    """A study from CSV text (columns bias, first, second[, strongest])."""
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise StudyFormatError(f"{where}: empty file; expected a header bias,first,second")
    header = [column.strip() for column in rows[0]]
    missing = [column for column in _CSV_COLUMNS if column not in header]
    if missing:
        raise StudyFormatError(f"{where}: line 1: the header lacks column(s) {missing}")
    biases: list[Bias] = []
    strongest: list[str] = []
    for line, row in _data_rows(rows, where):
        values = dict(zip(header, (value.strip() for value in row), strict=True))
        biases.append(Bias(values["bias"], values["first"], values["second"]))
        if _flag(values.get("strongest", ""), where, line):
            strongest.append(values["bias"])
    return IntersectionalStudy(
        biases=tuple(biases),
        strongest_biases=tuple(strongest),
        name=Path(where).stem,
        source=where,
    )


def _data_rows(rows: list[list[str]], where: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of the non-blank data rows, each as wide as the header."""
    for line, row in enumerate(rows[1:], start=2):
        if not any(value.strip() for value in row):
            continue
        if len(row) != len(rows[0]):
            raise StudyFormatError(
                f"{where}: line {line}: {len(row)} field(s), but the header has {len(rows[0])}"
            )
        yield line, row


def _flag(value: str, where: str, line: int) -> bool:
    folded = value.casefold()
    if folded not in _TRUE | _FALSE:
        raise StudyFormatError(
            f"{where}: line {line}: 'strongest' must be true/false, yes/no, 1/0 or empty; "
            f"got {value!r}"
        )
    return folded in _TRUE
