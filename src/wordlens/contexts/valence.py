"""Valence-aligned and misaligned contexts: VAST's semantically aligned and misaligned settings.

Wolfe & Caliskan (2022, section "Contextual Settings") give each word a template chosen by its
human valence rating on the 1-9 scale:

=============  ============================================================
1.00-2.49      It is very unpleasant to think of WORD
2.50-3.99      It is unpleasant to think of WORD
4.00-5.99      It is neither pleasant nor unpleasant to think of WORD
6.00-7.49      It is pleasant to think of WORD
7.50-9.00      It is very pleasant to think of WORD
=============  ============================================================

In the *aligned* setting a word gets the template of its own bin; in the *misaligned* setting
the template of the mirrored bin (first <-> fifth, second <-> fourth; the middle bin keeps its
own).

**Bins.** Bins are numbered 0-4 here. Bin ``i`` is the half-open interval
``[edges[i], edges[i + 1])``, the last one closed, ``[7.5, 9.0]``: a rating on an edge opens the
upper bin, as the paper's table reads (2.49 is in bin 0, 2.50 in bin 1, 7.50 in bin 4, and both
scale ends 1.0 and 9.0 are inside). The authors' code (``embedding_collection.py``) closes bins
on the other side (``valence <= 2.5`` is bin 0) and says "think about WORD"; wordlens follows the
paper. The templates and edges are data (``data/vast_templates.json``); a replacement file must
have six increasing edges from 1 to 9 and five templates, each with one ``{word}``.

**Other scales.** A lexicon on scale ``[lo, hi]`` is mapped onto 1-9 linearly before binning:

.. math:: v_9 = 1 + 8 \\, (v - lo) / (hi - lo)

so Bellezza's 1-5 ratings become ``2 v - 1`` (as the authors' code rescaled them) and the German
ANGST -3..3 ratings ``1 + 4 (v + 3) / 3``.

References
----------
Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022*.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources as package_files
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from wordlens._files import DEFAULT_ENCODING, ENCODING_HINT, read_text
from wordlens.contexts import PLACEHOLDER, Target, targets_from_template
from wordlens.errors import EmptyInputError, LexiconFormatError, WordlensError

#: The reference scale of the template bins.
NINE_POINT = (1.0, 9.0)
N_BINS = 5
_DATA = "vast_templates.json"


@dataclass(frozen=True)
class ValenceTemplates:
    """Five valence bins on the 1-9 scale and the template of each.

    Attributes
    ----------
    edges
        Six increasing bin edges, ``edges[0] == 1`` and ``edges[-1] == 9``.
    templates
        Five templates, each with one ``{word}``, from most unpleasant to most pleasant.
    source
        Where they were read from.
    """

    edges: tuple[float, ...]
    templates: tuple[str, ...]
    source: str

    def bins(self, values9: npt.ArrayLike) -> npt.NDArray[np.int64]:
        """Bin (0-4) of each rating on the 1-9 scale (``[n]`` in, ``[n]`` out).

        Raises
        ------
        WordlensError
            For a rating outside 1-9 or not finite.
        """
        values = np.asarray(values9, dtype=np.float64)
        _check_range(values, NINE_POINT)
        return np.searchsorted(self.edges[1:-1], values, side="right").astype(np.int64)


def load_templates(
    path: Path | None = None, *, encoding: str = DEFAULT_ENCODING
) -> ValenceTemplates:
    """The VAST templates shipped with wordlens, or a replacement JSON file.

    The file is a JSON object with ``edges`` (six increasing numbers from 1 to 9) and
    ``templates`` (five strings, each containing ``{word}`` once); other keys (``citation``,
    ``note``) are ignored. ``encoding`` is the file's text encoding.

    Raises
    ------
    LexiconFormatError
        If the file is not such an object; the message names the file and the problem.
    FileEncodingError
        If the file is not valid ``encoding``; the message names the line.
    """
    if path is None:
        source = f"wordlens/contexts/data/{_DATA}"
        text = package_files.files("wordlens.contexts").joinpath("data", _DATA).read_text("utf-8")
    else:
        source = str(path)
        try:
            text = read_text(Path(path), encoding, hint=ENCODING_HINT)
        except OSError as error:
            raise LexiconFormatError(f"{path}: cannot read the template file ({error})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise LexiconFormatError(f"{source}: not JSON ({error})") from None
    edges, templates = _parse(source, document)
    return ValenceTemplates(edges, templates, source)


def _parse(source: str, document: Any) -> tuple[tuple[float, ...], tuple[str, ...]]:
    if not isinstance(document, dict) or not {"edges", "templates"} <= set(document):
        raise LexiconFormatError(f"{source}: expected a JSON object with 'edges' and 'templates'")
    edges, templates = document["edges"], document["templates"]
    if not isinstance(edges, list) or len(edges) != N_BINS + 1:
        raise LexiconFormatError(f"{source}: 'edges' must list {N_BINS + 1} numbers: {edges!r}")
    if not all(isinstance(e, int | float) and not isinstance(e, bool) for e in edges):
        raise LexiconFormatError(f"{source}: 'edges' must be numbers: {edges!r}")
    if any(low >= high for low, high in itertools.pairwise(edges)):
        raise LexiconFormatError(f"{source}: 'edges' must increase strictly: {edges!r}")
    if (edges[0], edges[-1]) != NINE_POINT:
        raise LexiconFormatError(
            f"{source}: 'edges' must cover the 1-9 scale, from 1 to 9: {edges!r}"
        )
    if not isinstance(templates, list) or len(templates) != N_BINS:
        raise LexiconFormatError(f"{source}: 'templates' must list {N_BINS} strings")
    bad = [t for t in templates if not isinstance(t, str) or t.count(PLACEHOLDER) != 1]
    if bad:
        raise LexiconFormatError(
            f"{source}: every template must contain {PLACEHOLDER!r} exactly once: {bad!r}"
        )
    return tuple(float(e) for e in edges), tuple(templates)


def rescale_to_nine(values: npt.ArrayLike, scale: tuple[float, float]) -> npt.NDArray[np.float64]:
    """Map ratings on ``scale = (lo, hi)`` linearly onto 1-9: ``1 + 8 (v - lo) / (hi - lo)``.

    Parameters
    ----------
    values
        Ratings ``[n]``.
    scale
        The lexicon's ``(min, max)``, e.g. ``Lexicon.scale["valence"]``.

    Returns
    -------
    numpy.ndarray
        float64 ``[n]`` on 1-9.

    Raises
    ------
    WordlensError
        If ``lo >= hi``, a bound is not finite, or a rating lies outside the scale.
    """
    low, high = float(scale[0]), float(scale[1])
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise WordlensError(f"a scale is (min, max) with min < max, both finite: {scale!r}")
    ratings = np.asarray(values, dtype=np.float64)
    _check_range(ratings, (low, high))
    result: npt.NDArray[np.float64] = 1.0 + 8.0 * (ratings - low) / (high - low)
    return result


def _check_range(values: npt.NDArray[np.float64], scale: tuple[float, float]) -> None:
    outside = ~np.isfinite(values) | (values < scale[0]) | (values > scale[1])
    if outside.any():
        shown = ", ".join(f"{v:g}" for v in values[outside][:5])
        raise WordlensError(
            f"{int(outside.sum())} rating(s) outside the scale {scale[0]:g}..{scale[1]:g}: {shown}"
        )


def valence_bin(
    values: npt.ArrayLike,
    scale: tuple[float, float],
    templates: ValenceTemplates | None = None,
) -> npt.NDArray[np.int64]:
    """Template bin (0-4) of each rating: rescaled to 1-9, then binned (``[n]`` -> ``[n]``)."""
    chosen = templates if templates is not None else load_templates()
    return chosen.bins(rescale_to_nine(values, scale))


def misaligned_bin(bins: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The mirrored bin, ``4 - bin``: 0 <-> 4, 1 <-> 3, 2 stays."""
    return (N_BINS - 1) - np.asarray(bins, dtype=np.int64)


def aligned_targets(
    words: Sequence[str],
    values: npt.ArrayLike,
    scale: tuple[float, float],
    templates: ValenceTemplates | None = None,
) -> list[Target]:
    """Each word in the template of its own valence bin (VAST's aligned setting).

    Parameters
    ----------
    words
        The words ``[n]``.
    values
        Their valence ratings ``[n]`` on ``scale``.
    scale
        ``(min, max)`` of the ratings; rescaled to 1-9 (see the module documentation).
    templates
        The bins and templates; the packaged VAST ones by default.

    Raises
    ------
    EmptyInputError
        If there are no words.
    WordlensError
        If ``words`` and ``values`` differ in length, or a rating is outside the scale.
    """
    return _fill(words, values, scale, templates, misaligned=False)


def misaligned_targets(
    words: Sequence[str],
    values: npt.ArrayLike,
    scale: tuple[float, float],
    templates: ValenceTemplates | None = None,
) -> list[Target]:
    """Each word in the template of the mirrored bin (VAST's misaligned setting).

    Same parameters and errors as :func:`aligned_targets`.
    """
    return _fill(words, values, scale, templates, misaligned=True)


def _fill(
    words: Sequence[str],
    values: npt.ArrayLike,
    scale: tuple[float, float],
    templates: ValenceTemplates | None,
    *,
    misaligned: bool,
) -> list[Target]:
    """Put each word into the template of its bin, or of the mirrored bin if ``misaligned``."""
    ratings = np.asarray(values, dtype=np.float64)
    if not words:
        raise EmptyInputError("no words to put into valence templates")
    if ratings.shape != (len(words),):
        raise WordlensError(f"{len(words)} words but valence ratings of shape {ratings.shape}")
    chosen = templates if templates is not None else load_templates()
    bins = valence_bin(ratings, scale, chosen)
    if misaligned:
        bins = misaligned_bin(bins)
    return [
        targets_from_template([word], chosen.templates[int(b)])[0]
        for word, b in zip(words, bins, strict=True)
    ]
