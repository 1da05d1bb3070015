"""A self-contained HTML report: headings, prose, embedded PNG figures and tables.

Everything is inline (figures as base64 data URIs, CSS in the page), so the single file can be
mailed, archived or opened offline. Text is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from wordlens._files import atomic_write_text
from wordlens._plural import counted
from wordlens.conventions import describe_bos
from wordlens.errors import OutputError
from wordlens.report import P_VALUE_COLUMNS, PERMUTATION_P_COLUMNS, format_p
from wordlens.results import Figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure as MplFigure

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; display: block;
        overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: right; }
th { background: #f4f4f4; } td:first-child, th:first-child { text-align: left; }
td.text, th.text { text-align: left; } td.prose { min-width: 12em; }
img { max-width: 100%; } .note { color: #555; font-size: 0.9em; }
dl { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; font-size: 0.9em; }
dt { font-weight: 600; }
footer { margin-top: 3em; border-top: 1px solid #ddd; color: #555; font-size: 0.8em; }
"""


def model_lines(meta: dict[str, Any]) -> dict[str, object]:
    """Headline lines of a run's model: name and size, fingerprint, and what its texts start
    with (``meta["conventions"]["bos"]``, :func:`wordlens.conventions.describe_bos`)."""
    model = meta["model"]
    return {
        "model": f"{model['name']} ({model['kind']}, {counted(model['n_layers'], 'layer')}, "
        f"{model['hidden_size']} d)",
        "fingerprint": model["fingerprint"],
        "texts start with": describe_bos(meta["conventions"]["bos"], model["kind"]),
    }


def listed(words: Sequence[str], limit: int | None = 20) -> str:
    """At most ``limit`` (None: all) of ``words``, comma-separated, then how many more."""
    if limit is None or len(words) <= limit:
        return ", ".join(words)
    return f"{', '.join(words[:limit])} and {len(words) - limit:,} more"


_TWIN_REASON = re.compile(r"^(the same .+?) as '")
"""A reason naming the word another word cannot be told apart from
(:func:`wordlens.models.base.indistinct_words`)."""


def listed_by_reason(
    words: Sequence[str], reasons: Mapping[str, str], limit: int | None = 20
) -> str:
    """``words`` grouped by why each is missing (``reasons``: word → reason; a word without one
    is "not in the vocabulary"), each group :func:`listed`: ``"only unknown tokens ('[UNK]'):
    🦄, 🐉; not in the vocabulary: xyz"``. Words the model cannot tell apart form one group,
    twins side by side: ``"the same token ids as another word: AIDS, aids, Coke, coke"`` (the
    result's metadata names each word's twins)."""
    groups: dict[str, list[str]] = {}
    twins: set[str] = set()
    for word in words:
        reason = reasons.get(word, "not in the vocabulary")
        twin = _TWIN_REASON.match(reason)
        if twin:
            reason = f"{twin.group(1)} as another word"
            twins.add(reason)
        groups.setdefault(reason, []).append(word)
    for reason in twins:  # twins side by side
        groups[reason].sort(key=lambda word: (word.casefold(), word))
    return "; ".join(f"{reason}: {listed(group, limit)}" for reason, group in groups.items())


@dataclass
class Report:
    """An HTML report assembled section by section, in the one page frame every report shares:
    title, the sections, and a provenance footer (model and fingerprint, method, wordlens
    version, when) from the run's ``metadata``.
    """

    title: str
    parts: list[str] = field(default_factory=list)
    metadata: dict[str, Any] | None = None
    figures: list[Figure] = field(default_factory=list)
    """The figures added, in order (:meth:`wordlens.results.Run.figures` shows them)."""

    def heading(self, text: str) -> None:
        self.parts.append(f"<h2>{html.escape(text)}</h2>")

    def paragraph(self, text: str, *, note: bool = False) -> None:
        css = ' class="note"' if note else ""
        self.parts.append(f"<p{css}>{html.escape(text)}</p>")

    def figure(self, image: bytes | MplFigure | Figure, alt: str = "", caption: str = "") -> None:
        """Add a figure: a PNG, a matplotlib figure (kept, so that it is also written as SVG
        and PDF), or a report's figure made already (:func:`~wordlens.report.figures.as_figure`:
        its title is the alt text, its caption is shown); ``caption`` (default: ``alt``) says
        what is plotted and is shown below it."""
        from wordlens.report.figures import as_figure

        if isinstance(image, Figure):
            shown, caption = image, image.caption
        else:
            shown = as_figure(image, alt, caption)
        self.figures.append(shown)
        encoded = base64.b64encode(shown.png).decode("ascii")
        self.parts.append(
            f'<img alt="{html.escape(shown.title)}" src="data:image/png;base64,{encoded}">'
        )
        if caption:
            self.parts.append(f'<p class="caption">{html.escape(caption)}</p>')

    def table(
        self,
        frame: pd.DataFrame,
        *,
        float_format: str = "{:.3f}",
        links: Mapping[str, str] | None = None,
    ) -> None:
        """``frame`` as a table: floats in ``float_format``, p-values (:data:`P_VALUE_COLUMNS`)
        by :func:`~wordlens.report.format_p` (over the row's ``n_partitions`` where it has one):
        ``< 0.001``, never ``0.000``. ``links`` maps a column to the column of addresses its
        cells link to (that column is not shown; a missing address leaves the cell as text)."""
        links = dict(links or {})
        text = _text_columns(frame.drop(columns=list(links.values())))
        frame = _p_values_shown(frame)
        if links:
            frame = _linked(frame, links)
        formatters = {
            column: float_format.format
            for column in frame.columns
            if pd.api.types.is_float_dtype(frame[column])
        }
        shown = frame.to_html(
            index=False, formatters=formatters, border=0, na_rep="–", escape=not links
        )
        self.parts.append(_classed_cells(shown, text))

    def definitions(self, items: dict[str, Any]) -> None:
        rows = "".join(
            f"<dt>{html.escape(str(key))}</dt><dd>{html.escape(str(value))}</dd>"
            for key, value in items.items()
        )
        self.parts.append(f"<dl>{rows}</dl>")

    def render(self) -> str:
        """The page: the sections, then where the run's time went (when its metadata records
        ``stages``, :mod:`wordlens.stages`), then the footer."""
        quick = (self.metadata or {}).get("quick_mode")
        shown = [f'<p class="note">{html.escape(quick.capitalize())}.</p>'] if quick else []
        body = "\n".join([*shown, *self.parts, *self._stages()])
        return (
            f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title><style>{_STYLE}</style></head>"
            f"<body><h1>{html.escape(self.title)}</h1>\n{body}\n{self._footer()}</body></html>\n"
        )

    def _stages(self) -> list[str]:
        """The section "Where the time went": the run's stages, their wall and CPU seconds
        and peak memory (none without recorded stages)."""
        from wordlens.plan import estimates_beside
        from wordlens.plan import summary_line as summary
        from wordlens.stages import stages_table, summary_line

        stages = (self.metadata or {}).get("stages")
        if not stages:
            return []
        section = Report(self.title)
        section.heading("Where the time went")
        section.paragraph(
            "Each stage's wall and CPU seconds (the process, every thread), its peak resident "
            "memory and, on a GPU, its peak device memory; an indented stage runs inside the "
            "one above it. " + summary_line(stages)
        )
        table = stages_table(stages).drop(columns="depth")
        plan = (self.metadata or {}).get("plan")
        if plan is not None:  # planned with --with-plan: the estimate beside the measured time
            table.insert(1, "estimate_s", estimates_beside(stages, plan))
            section.paragraph(f"Planned before the run ({summary(plan)}).")
        section.table(table, float_format="{:,.2f}")
        return section.parts

    def _footer(self) -> str:
        """Provenance: model, fingerprint, method, wordlens version and time of writing."""
        from datetime import UTC, datetime

        from wordlens._version import __version__

        meta = self.metadata or {}
        model = meta.get("model")
        parts = []
        if isinstance(model, dict) and "name" in model:
            parts.append(f"model {model['name']} ({model.get('fingerprint', 'no fingerprint')})")
        if "method" in meta:
            parts.append(f"method {meta['method']}")
        parts.append(f"wordlens {__version__}")
        parts.append(f"written {datetime.now(UTC).isoformat(timespec='seconds')}")
        return f"<footer>{html.escape(' · '.join(parts))}</footer>"

    def write(self, path: Path) -> Path:
        """Write the page atomically; raises OutputError if it cannot."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, self.render())
        except OSError as error:
            raise OutputError(f"cannot write report {path}: {error}") from error
        return path


_PROSE_CHARACTERS = 40
"""A text column whose values average more characters than this is prose (a claim, the
evidence): it gets room to read as lines, not a column of single words."""


def _text_columns(frame: pd.DataFrame) -> dict[int, str]:
    """Position → class of each column of text, not numbers: ``"text"`` (left-aligned, as
    text is read), or ``"text prose"`` for long text (:data:`_PROSE_CHARACTERS`)."""
    classes = {}
    for position, column in enumerate(frame.columns):
        values = frame[column]
        if column in P_VALUE_COLUMNS or not (
            pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)
        ):
            continue
        lengths = values.dropna().astype(str).str.len()
        long = not lengths.empty and lengths.mean() > _PROSE_CHARACTERS
        classes[position] = "text prose" if long else "text"
    return classes


def _classed_cells(table: str, classes: Mapping[int, str]) -> str:
    """``table`` (pandas' ``to_html``, no index) with ``class="..."`` on the header and data
    cells of the columns in ``classes`` (position → class)."""
    if not classes:
        return table

    def row(match: re.Match[str]) -> str:
        parts = re.split(r"<(t[hd])>", match.group(0))
        out = [parts[0]]
        for position, (tag, rest) in enumerate(zip(parts[1::2], parts[2::2], strict=True)):
            name = classes.get(position)
            out += [f'<{tag} class="{name}">' if name else f"<{tag}>", rest]
        return "".join(out)

    return re.sub(r"<tr[^>]*>.*?</tr>", row, table, flags=re.DOTALL)


def _linked(frame: pd.DataFrame, links: Mapping[str, str]) -> pd.DataFrame:
    """``frame`` as HTML to show unescaped: its text and column names escaped, each column of
    ``links`` (column → column of addresses, dropped) as links."""
    shown = frame.drop(columns=list(links.values()))
    for column in shown.columns:
        values = shown[column]
        if pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values):
            shown[column] = [None if pd.isna(v) else html.escape(str(v)) for v in values]
    for column, addresses in links.items():
        shown[column] = [
            text if pd.isna(address) else f'<a href="{html.escape(str(address))}">{text}</a>'
            for text, address in zip(shown[column], frame[addresses], strict=True)
        ]
    return shown.rename(columns=lambda name: html.escape(str(name)))


def _p_values_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its float p-value columns as text (:func:`format_p`)."""
    columns = [
        column
        for column in frame.columns
        if column in P_VALUE_COLUMNS and pd.api.types.is_float_dtype(frame[column])
    ]
    if not columns:
        return frame
    partitions = frame["n_partitions"] if "n_partitions" in frame.columns else None
    shown = frame.copy()
    for column in columns:
        # the partitions bound the permutation p-values; a test's p_value has its own source
        counts = (
            list(partitions)
            if partitions is not None and column in PERMUTATION_P_COLUMNS
            else [None] * len(frame)
        )
        shown[column] = [format_p(p, n) for p, n in zip(frame[column], counts, strict=True)]
    return shown
