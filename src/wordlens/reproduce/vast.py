"""Reproducing Wolfe & Caliskan (2022), VAST, on any model (``wordlens reproduce vast``).

Experiments, all with the authors' BOS choice (``conventions: paper``); the other options keep
the method's defaults, the authors' choices (:class:`~wordlens.methods.vast.config.VastConfig`),
except the pooling: the last subtoken only where the authors use it alone (``VAST.py:125, 344``;
all four for the tokenization experiment, ``VAST.py:217``), which also keeps the paper scale's
vectors within memory:

- ``vast``: VAST by layer for Bellezza, ANEW and Warriner in the four contextual settings, last
  subtoken (Figure 1), the PC-nullification sweep at the top and best layers
  (Table 1, Figure 3), the word-similarity validation (Figure 4) and the CoLA/POS probes of the
  top PCs ("Semantic Isolation");
- ``tokenization``: singly vs multiply tokenized Warriner words in the random setting, four
  poolings (Figure 2; "We report results for the random setting"; the bleached setting runs too:
  the method finds its best layer there);
- ``bias``: the ten WEAT tests before and after nullification, bleached setting (Figure 5).

The method does all of this in one run; three runs give the same numbers up to float rounding
(a word's random context depends only on the seed and the word, the WEAT permutations are seeded
per test, the PCs are fitted on the authors' population whatever the lexica) and let the smoke
scale shrink each part alone.

Layers. The paper numbers GPT-2's layers 0 (embeddings) to 12 (top). A layer the paper names is
read here at the same relative depth, ``floor(layer * top / 12 + 1/2)`` (layer 8 is SmolLM2's 20
of 30), except where the paper means its best or top layer: PCs are nullified "at the top and
highest scoring layers" (layer 8 is GPT-2's best), and the similarity validation uses the same
two. A layer found by a criterion (the best layer) is reported in GPT-2 layers (``layer * 12 /
top``) so that it compares with the paper's number; the note names the model's own layer. A
static model has one layer and no context: items at a middle layer are not measurable there, its
one layer stands for the top and for layer 0, and only the bleached setting runs (ValNorm).

Smoke scale. The same three experiments on seeded samples: 60 words of each lexicon (valence
only), 240 Warriner words for the tokenization experiment (a superset of the 60), 40 pairs of each
similarity set, 100 training and 100 test sentences per probe, 1,000 WEAT permutations, and PCs
fitted on the sampled words (the authors' population is every Bellezza, ANEW, Warriner and WEAT
word in every setting: minutes to embed). The samples are written once as files under
``$WORDLENS_HOME/reproduce/vast-smoke`` (:func:`smoke_inputs`): the method reads lexica and
similarity sets from files, and has no sample option.

Findings. Seven rest on numbers the paper prints and are checks over those cells
(:class:`~wordlens.reproduce.base.TableCheck`), judged on the published values and on this
run's: the layer-8 convergence and peak and the layer-11 divergence (Results:
Contextualization), Table 1's gains and its aligned-misaligned gap, the dominant neurons, the
word-similarity scores against prior work's printed best and the count of WEAT tests. The
tokenization curves (Figure 2) and the prose claims (autoencoders; the POS probes) are checks
over the runs. Every measured VAST or similarity cell carries the half-width of its 95% interval
(the tables' ``ci_low``, ``ci_high``: Fisher z on r), a probe's weighted F1 its bootstrap
interval over the test sentences (``f1_ci_low``, ``f1_ci_high``), a spread its two extremes' in
quadrature, the best layer the farthest layer the run cannot tell from it; a margin within its
uncertainty is inconclusive. The settings "within .01 of each other" are read to the printed
precision (a spread below .015 prints as .01), and settings further apart than that are "apart".
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wordlens._files import atomic_write_text, user_home
from wordlens.errors import WordlensError
from wordlens.methods.vast.experiments import best_layer, primary_pooling
from wordlens.models.base import Pooling
from wordlens.reproduce.base import (
    Cells,
    Check,
    CheckFunction,
    Experiment,
    FindingCheck,
    Measured,
    NotMeasured,
    PaperReproduction,
    Runs,
    Scale,
    TableCheck,
    all_hold,
    combined_uncertainty,
    interval_half_width,
    judge,
    missing,
    not_measurable,
    same_depth,
)
from wordlens.reproduce.published import PublishedItem
from wordlens.resources import load_lexicon, load_similarity
from wordlens.results import Run

#: GPT-2's top layer in the paper's numbering (0 = the embedding layer).
PAPER_TOP = 12
#: The lexica of the paper, in its order.
LEXICA = ("bellezza", "anew", "warriner")
#: The paper's PCs nullified for Table 1's "After" row (its caption) and the bias comparison.
TABLE1_K = 8
#: The paper's best layer of GPT-2, where it nullifies PCs besides the top layer.
PAPER_BEST = 8
#: Suffix of the smoke scale's sampled lexica and similarity sets (their names in the tables).
SAMPLE = "-sample"
SMOKE_SEED = 0
SMOKE_LEXICON_WORDS = 60
SMOKE_TOKENIZATION_WORDS = 240
SMOKE_PAIRS = 40
SMOKE_PROBE_SENTENCES = 100
SMOKE_PERMUTATIONS = 1_000
SIMILARITY_SETS = ("ws353", "simlex999", "rw", "men")

#: The paper-scale departures: Reddit is not available offline; the authors' NLTK tagger is not
#: used (:mod:`wordlens.methods.vast.top_pcs`).
_RANDOM_CORPUS = "random contexts from wordlens's English corpora, not Reddit"
_STATIC = "a static model has one layer and no context"
_NO_NEURONS = "the VAST method writes no per-neuron magnitudes of the top layer"


# --- experiments ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SmokeInputs:
    """The sample files of the smoke scale.

    Attributes
    ----------
    lexica
        Bellezza, ANEW and Warriner samples (``<name>-sample.csv``: word, valence).
    tokenization
        The Warriner sample of the tokenization experiment, named ``warriner.csv``: the method's
        tokenization experiment looks the lexicon up by that name.
    similarity
        Samples of the four similarity sets (``<name>-sample.txt``: word1 word2 score).
    """

    lexica: tuple[Path, ...]
    tokenization: Path
    similarity: tuple[Path, ...]


def smoke_inputs(root: Path | None = None) -> SmokeInputs:
    """Write (once; the same bytes every time) and return the smoke scale's sample files.

    Parameters
    ----------
    root
        Their folder; default ``$WORDLENS_HOME/reproduce/vast-smoke``.

    Raises
    ------
    WordlensError
        If the folder cannot be written.
    """
    folder = root or user_home() / "reproduce" / "vast-smoke"
    lexica = tuple(
        _write(folder / f"{name}{SAMPLE}.csv", _csv(_lexicon_sample(name, SMOKE_LEXICON_WORDS)))
        for name in LEXICA
    )
    tokenization = _write(
        folder / "tokenization" / "warriner.csv",
        _csv(_lexicon_sample("warriner", SMOKE_TOKENIZATION_WORDS)),
    )
    similarity = tuple(
        _write(folder / f"{name}{SAMPLE}.txt", _pairs(_similarity_sample(name)))
        for name in SIMILARITY_SETS
    )
    return SmokeInputs(lexica, tokenization, similarity)


def _sample_rows(n_rows: int, size: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    """``[min(size, n_rows)]`` row numbers, seeded, in file order; the first ``k`` rows of the
    permutation are drawn for every size, so a smaller sample is part of a larger one."""
    order = np.random.default_rng(SMOKE_SEED).permutation(n_rows)
    return np.sort(order[:size])


def _lexicon_sample(name: str, size: int) -> pd.DataFrame:
    data = load_lexicon(name).data.drop_duplicates("word")
    return data.iloc[_sample_rows(len(data), size)][["word", "valence"]]


def _similarity_sample(name: str) -> pd.DataFrame:
    data = load_similarity(name).data
    return data.iloc[_sample_rows(len(data), SMOKE_PAIRS)]


def _csv(frame: pd.DataFrame) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["word", "valence"])
    scores = frame["valence"].astype(float).tolist()
    writer.writerows((word, repr(score)) for word, score in zip(frame["word"], scores, strict=True))
    return buffer.getvalue()


def _pairs(frame: pd.DataFrame) -> str:
    scores = frame["score"].astype(float).tolist()
    pairs = zip(frame["word1"], frame["word2"], scores, strict=True)
    return "".join(f"{first} {second} {score!r}\n" for first, second, score in pairs)


def _write(path: Path, text: str) -> Path:
    try:
        if not path.is_file() or path.read_text("utf-8") != text:
            atomic_write_text(path, text)
    except OSError as error:
        raise WordlensError(
            f"cannot write the smoke scale's sample {path} ({error}): set WORDLENS_HOME to a "
            "writable directory"
        ) from error
    return path


def _experiments(scale: Scale) -> list[Experiment]:
    paper = {"conventions": "paper"}
    last = {"pooling": ("last",)}  # VAST.py:125, 344 (layers, nullification, bias)
    main = {**paper, **last, "tokenization": False, "weat": False}
    tokenization = {
        **paper,
        "lexica": ("warriner",),
        "settings": ("bleached", "random"),  # the method finds its best layer in bleached
        "similarity": (),
        "weat": False,
        "probes": False,
    }
    bias = {
        **paper,
        **last,
        "lexica": ("bellezza",),
        "settings": ("bleached",),
        "tokenization": False,
        "similarity": (),
        "probes": False,
    }
    departures = {
        "vast": f"{_RANDOM_CORPUS}; POS tags by wordlens's UD EWT tagger, not NLTK's",
        "tokenization": _RANDOM_CORPUS,
        "bias": "",
    }
    options: dict[str, dict[str, Any]] = {"vast": main, "tokenization": tokenization, "bias": bias}
    if scale == "smoke":
        _shrink(options, departures)
    return [
        Experiment(name, "vast", options[name], departures[name])
        for name in ("vast", "tokenization", "bias")
    ]


def _shrink(options: dict[str, dict[str, Any]], departures: dict[str, str]) -> None:
    """The smoke scale's samples, in place (see the module notes)."""
    files = smoke_inputs()
    sampled = {"pc_population": "lexicon"}
    options["vast"].update(
        sampled,
        lexica=tuple(map(str, files.lexica)),
        similarity=tuple(map(str, files.similarity)),
        probe_sentences=SMOKE_PROBE_SENTENCES,
        probe_test_sentences=SMOKE_PROBE_SENTENCES,
    )
    options["tokenization"].update(sampled, lexica=(str(files.tokenization),))
    options["bias"].update(sampled, lexica=(str(files.lexica[0]),), permutations=SMOKE_PERMUTATIONS)
    smaller = {
        "vast": f"smoke: {SMOKE_LEXICON_WORDS} words per lexicon (valence), {SMOKE_PAIRS} pairs "
        f"per similarity set, {SMOKE_PROBE_SENTENCES} training and test sentences per probe, "
        "PCs fitted on the sampled and polar words",
        "tokenization": f"smoke: {SMOKE_TOKENIZATION_WORDS} Warriner words, PCs fitted on them",
        "bias": f"smoke: {SMOKE_PERMUTATIONS:,} permutations, PCs fitted on "
        f"{SMOKE_LEXICON_WORDS} Bellezza and the polar words",
    }
    for name, text in smaller.items():
        departures[name] = "; ".join(part for part in (text, departures[name]) if part)


# --- reading the runs ---------------------------------------------------------------------------


def rows(table: pd.DataFrame, **match: Any) -> pd.DataFrame:
    """The rows of ``table`` whose columns equal ``match``.

    Raises
    ------
    KeyError
        If none does.
    """
    chosen = table
    for column, value in match.items():
        chosen = chosen[chosen[column] == value]
    if chosen.empty:
        raise KeyError(f"no rows with {match}")
    return chosen


def one_row(table: pd.DataFrame, **match: Any) -> pd.Series:
    """The one row of ``table`` matching ``match``.

    Raises
    ------
    KeyError
        If no row matches.
    ValueError
        If several do.
    """
    chosen = rows(table, **match)
    if len(chosen) != 1:
        raise ValueError(f"{len(chosen)} rows with {match}, expected one")
    return chosen.iloc[0]


def named(names: pd.Series, name: str) -> str:
    """The name ``name`` has in a table: itself, or its smoke sample ``<name>-sample``.

    Raises
    ------
    KeyError
        If neither is there.
    """
    present = set(names)
    for candidate in (name, f"{name}{SAMPLE}"):
        if candidate in present:
            return candidate
    raise KeyError(f"no {name!r} rows (the run has {sorted(present)})")


def is_static(run: Run) -> bool:
    """Whether the run's model is static (one layer, no context)."""
    return bool(run.metadata["model"]["kind"] == "static")


def top_layer(run: Run) -> int:
    """The run's top layer (0 for a static model)."""
    return int(run.metadata["top_layer"])


def depth_layer(paper_layer: int, top: int) -> int:
    """This model's layer at GPT-2's relative depth ``paper_layer / 12`` (:func:`same_depth`)."""
    return same_depth(paper_layer, PAPER_TOP, top)


def gpt2_layers(layer: int, top: int) -> float:
    """This model's ``layer`` as a GPT-2 layer (same relative depth), for a layer criterion."""
    return layer * PAPER_TOP / top if top else 0.0


def pooling(run: Run) -> Pooling:
    """The pooling of the single-pooling experiments (``last`` where run, as the paper)."""
    return primary_pooling(run.metadata["poolings_run"])


def valence(run: Run, lexicon: str) -> pd.DataFrame:
    """The layers table's valence rows of ``lexicon`` (or its sample), primary pooling."""
    layers = run.tables["layers"]
    name = named(layers["lexicon"], lexicon)
    return rows(layers, lexicon=name, dimension="valence", pooling=pooling(run))


def half_width(row: pd.Series) -> float:
    """Half the width of a row's 95% interval (``ci_low``, ``ci_high``: a Fisher-z interval on
    Pearson's r, or the similarity table's interval on Spearman's rho)."""
    return interval_half_width(float(row["ci_low"]), float(row["ci_high"]))


def layer_cell(run: Run, lexicon: str, setting: str, layer: int) -> tuple[float, float]:
    """VAST of ``lexicon`` in ``setting`` at ``layer`` (raw vectors) and its interval's
    half-width."""
    row = one_row(valence(run, lexicon), setting=setting, layer=layer)
    return float(row["r"]), half_width(row)


def spread_cell(
    run: Run, lexicon: str, settings: tuple[str, ...], layer: int
) -> tuple[float, float]:
    """Largest difference between the VAST scores of ``settings`` at ``layer``, and the
    half-width of its interval (the highest and lowest scores' half-widths in quadrature)."""
    cells = [layer_cell(run, lexicon, setting, layer) for setting in settings]
    high = max(cells, key=lambda cell: cell[0])
    low = min(cells, key=lambda cell: cell[0])
    return high[0] - low[0], combined_uncertainty(high[1], low[1])


def nullified_cell(run: Run, lexicon: str, setting: str, layer: int, k: int) -> tuple[float, float]:
    """VAST of ``lexicon`` in ``setting`` at ``layer`` with the mean and ``k`` top PCs removed,
    and its interval's half-width."""
    table = run.tables["nullification"]
    row = one_row(
        table,
        lexicon=named(table["lexicon"], lexicon),
        dimension="valence",
        setting=setting,
        layer=layer,
        representation="nullified",
        k=k,
    )
    return float(row["r"]), half_width(row)


def nullified_r(run: Run, lexicon: str, setting: str, layer: int, k: int) -> float:
    """VAST of ``lexicon`` in ``setting`` at ``layer`` with the mean and ``k`` top PCs removed."""
    return nullified_cell(run, lexicon, setting, layer, k)[0]


def lexicon_best(run: Run, lexicon: str) -> int:
    """The lexicon's best bleached layer, where the method nullifies besides the top."""
    layers = run.tables["layers"]
    return best_layer(layers, named(layers["lexicon"], lexicon), "bleached", pooling(run))


def peak_row(table: pd.DataFrame, column: str = "r") -> pd.Series:
    """The row of the highest ``column`` in ``table``."""
    return table.iloc[int(np.nanargmax(table[column].to_numpy(dtype=float)))]


def tokenization_rows(run: Run, words: str, pooling_name: str = "last") -> pd.DataFrame:
    """Layer rows of the tokenization table for ``words`` (singly/multiply tokenized)."""
    return rows(run.tables["tokenization"], words=words, pooling=pooling_name).sort_values("layer")


def f2(number: float) -> str:
    """A correlation as the paper prints it: ``.76``, ``-.05``."""
    text = f"{number:.2f}"
    return text.replace("0.", ".", 1)


def where(layer: int, top: int) -> str:
    """``layer 20 of 30 (GPT-2's 8.0)``; ``its one layer`` for a static model (``top == 0``)."""
    if top == 0:
        return "its one layer (static vectors)"
    return f"layer {layer} of {top} (GPT-2's {gpt2_layers(layer, top):.1f})"


# --- measuring the published items ---------------------------------------------------------------

Measure = Callable[[PublishedItem, Runs], Measured | NotMeasured]
FromRun = Callable[[PublishedItem, Run], Measured | NotMeasured]

_NO_TOKENIZATION = NotMeasured(f"{_STATIC}: no subtokens, so no tokenization experiment")


def _from(experiment: str) -> Callable[[FromRun], Measure]:
    """A measure of one experiment's run; NotMeasured naming it when it did not run."""

    def wrap(measure: FromRun) -> Measure:
        def measured(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
            return missing(runs, experiment) or measure(item, runs[experiment])

        return measured

    return wrap


def _unnamed(item: PublishedItem) -> NotMeasured | None:
    """Items whose lexicon, setting or number of PCs the paper does not name match no cell."""
    unnamed = [
        what
        for what, absent in (
            ("lexicon", item.data == "unspecified"),
            ("setting", item.setting.get("setting") == "unspecified"),
            ("number of PCs nullified", "pcs_nullified" not in item.setting),
        )
        if absent
    ]
    if not unnamed:
        return None
    return NotMeasured(
        f"the paper does not name the {' or '.join(unnamed)} of this number (its appendix, not "
        "in the extraction, may): no cell to match"
    )


def _paper_layer(item: PublishedItem) -> int:
    layer = item.setting.get("layer")
    if not isinstance(layer, int):
        raise ValueError(f"{item.id}: no layer")
    return layer


def _vast_r(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    """A VAST score: of the tokenization experiment, or of the layers or nullification table."""
    unnamed = _unnamed(item)
    if unnamed is not None:
        return unnamed
    if item.setting.get("tokenization"):
        return _tokenized(item, runs)
    return _scored(item, runs)


@_from("vast")
def _scored(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    setting = str(item.setting["setting"])
    if is_static(run) and setting != "bleached":
        return NotMeasured(f"{_STATIC}: only the bleached setting runs (ValNorm)")
    k = int(item.setting.get("pcs_nullified") or 0)
    if k:
        return _nullified(item, run, setting, k)
    top = top_layer(run)
    layer = _at_depth(_paper_layer(item), top, static=is_static(run))
    if layer is None:
        return NotMeasured(f"{_STATIC}: no layer at GPT-2's layer {_paper_layer(item)} of 12")
    note = f"{where(layer, top)}, {pooling(run)} subtoken, raw vectors"
    if layer == top and not is_static(run):
        centred = nullified_r(run, item.data, setting, layer, 0)
        note += f"; mean-centred only (k = 0 of the sweep): {f2(centred)}"
    score, half = layer_cell(run, item.data, setting, layer)
    return Measured(score, note, half)


def _at_depth(paper_layer: int, top: int, *, static: bool) -> int | None:
    """This model's layer for the paper's ``paper_layer``; a static model's one layer stands for
    the embedding and top layers only."""
    if static:
        return 0 if paper_layer in (0, PAPER_TOP) else None
    return depth_layer(paper_layer, top)


def _nullified(item: PublishedItem, run: Run, setting: str, k: int) -> Measured | NotMeasured:
    """Nullification cells: the paper nullifies at its top layer (12) and best layer (8)."""
    paper_layer = _paper_layer(item)
    top = top_layer(run)
    if paper_layer == PAPER_TOP:
        layer, role = top, "the top layer"
    elif paper_layer == PAPER_BEST:
        layer, role = lexicon_best(run, item.data), "the best bleached layer (GPT-2's is 8)"
    else:
        return NotMeasured(f"the method nullifies at the top and best layers only: {paper_layer}")
    score, half = nullified_cell(run, item.data, setting, layer, k)
    return Measured(score, f"{role}: {where(layer, top)}, {k} PCs nullified, {pooling(run)}", half)


@_from("tokenization")
def _tokenized(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    if "tokenization" not in run.tables:
        return _NO_TOKENIZATION
    singly = str(item.setting["tokenization"]).startswith("singly")
    words = "singly tokenized" if singly else "multiply tokenized"
    series = tokenization_rows(run, words)
    top = top_layer(run)
    if item.setting.get("criterion") == "peak":
        row = peak_row(series)
        note = f"{words}, last subtoken: the peak, at {where(int(row['layer']), top)}"
        return Measured(float(row["r"]), note, half_width(row))
    layer = depth_layer(_paper_layer(item), top)
    row = one_row(series, layer=layer)
    note = f"{words}, last subtoken, random setting: {where(layer, top)}"
    return Measured(float(row["r"]), note, half_width(row))


@_from("vast")
def _spread(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    if is_static(run):
        return NotMeasured(f"{_STATIC}: one setting, one layer")
    settings = tuple(str(item.setting["setting"]).split(", "))
    top = top_layer(run)
    layer = depth_layer(_paper_layer(item), top)
    note = f"{', '.join(settings)} at {where(layer, top)}, {pooling(run)} subtoken"
    gap, half = spread_cell(run, item.data, settings, layer)
    return Measured(gap, note, half)


def _layer_index(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    if item.data == "unspecified":
        return NotMeasured(
            "the paper does not name the lexicon, and its criterion is not precise (at layer 0, "
            "the context-free embeddings, the settings coincide by construction)"
        )
    return _best_layer(item, runs)


@_from("vast")
def _best_layer(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    if is_static(run):
        return NotMeasured(f"{_STATIC}: no layer to single out")
    best = best_semantic_layer(run)
    top = top_layer(run)
    tied = f"{min(best.tied)}-{max(best.tied)}" if len(best.tied) > 1 else str(best.layer)
    note = (
        f"the layer of the highest VAST averaged over the bleached, misaligned and random "
        f"settings and the three lexica ({f2(best.score)}): {where(best.layer, top)}; value in "
        f"GPT-2 layers; uncertainty: the farthest layer whose mean is within the interval of its "
        f"difference from the peak (layers {tied} of {top})"
    )
    return Measured(gpt2_layers(best.layer, top), note, best.uncertainty(top))


@dataclass(frozen=True)
class BestLayer:
    """The layer where the converging settings score highest, and the layers the run cannot
    tell from it.

    Attributes
    ----------
    layer
        The layer of the highest mean VAST (bleached, misaligned and random; three lexica).
    score
        That mean.
    tied
        The layers whose mean is within the 95% interval of its difference from the peak's (the
        two means' half-widths in quadrature), the peak included.
    """

    layer: int
    score: float
    tied: tuple[int, ...]

    def uncertainty(self, top: int) -> float:
        """The half-width of the run's interval on the best layer, in GPT-2 layers: the
        farthest tied layer's distance from the peak."""
        return max(gpt2_layers(abs(layer - self.layer), top) for layer in self.tied)


def best_semantic_layer(run: Run) -> BestLayer:
    """The layer of the highest mean VAST over the converging settings and the three lexica,
    with the layers within the run's uncertainty of it (:class:`BestLayer`)."""
    scores = pd.concat([valence(run, lexicon) for lexicon in LEXICA])
    scores = scores[scores["setting"].isin(("bleached", "misaligned", "random"))].copy()
    scores["half"] = (scores["ci_high"] - scores["ci_low"]) / 2
    means = scores.groupby("layer")[["r", "half"]].mean().reset_index()
    best = peak_row(means)
    gap = float(best["r"]) - means["r"]
    within = gap <= [combined_uncertainty(float(best["half"]), half) for half in means["half"]]
    tied = tuple(int(layer) for layer in means.loc[within, "layer"])
    return BestLayer(int(best["layer"]), float(best["r"]), tied)


@_from("vast")
def _valnorm(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    if not is_static(run):
        return NotMeasured("ValNorm scores static word embeddings: run with one (glove-6b-50d)")
    scores = {lexicon: layer_cell(run, lexicon, "bleached", 0) for lexicon in LEXICA}
    listed = ", ".join(f"{name} {f2(score)}" for name, (score, _) in scores.items())
    best = max(scores.values(), key=lambda cell: cell[0])
    return Measured(best[0], f"the best of the three lexica ({listed})", best[1])


_PROBE_FEATURES = {
    "top PCs": "top_pcs",
    "PCs nullified": "pcs_removed",
    "unaltered CWE": "unaltered",
}
_PROBE_TASKS = {
    "acceptability": "cola",
    "noun vs not noun": "pos_binary",
    "multiclass": "pos_multiclass",
}
_PROBE_WORDS = {"last": "last_token", "prior": "previous_word"}


@_from("vast")
def _probe(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    task = _PROBE_TASKS[str(item.setting["task"])]
    table = run.tables.get("cola" if task == "cola" else "pos")
    if table is None:
        return NotMeasured(f"{_STATIC}: the probes need sentence contexts")
    representation = _PROBE_FEATURES[str(item.setting["features"])]
    k = int(item.setting["n_pcs"] or 0)
    match = {"task": task, "source": _PROBE_WORDS[str(item.setting["word"])]}
    try:
        score, half = probe_f1(one_row(table, representation=representation, k=k, **match))
    except KeyError:
        ks = sorted(set(rows(table, **match)["k"]) - {0})
        return NotMeasured(f"the method probes k = {', '.join(map(str, ks))} PCs, not {k}")
    note = f"{match['source']}, {representation}, k = {k}: weighted F1, top layer"
    return Measured(score, note, half)


def _similarity(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    if item.setting.get("source") == "prior_work":
        return NotMeasured("a number of prior work the paper compares with, not its experiment")
    return _similarity_of_run(item, runs)


@_from("vast")
def _similarity_of_run(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    return similarity_cell(run, item.data, int(item.setting["pcs_nullified"] or 0))


def similarity_cell(run: Run, name: str, k: int) -> Measured | NotMeasured:
    """Spearman of set ``name`` at the run's best bleached layer with ``k`` PCs nullified, and
    its interval's half-width; where the method did not nullify ``k`` PCs (it scores raw and
    with the top layer's best k), its own k, named in the note."""
    table = run.tables.get("similarity")
    if table is None:
        return NotMeasured("the run has no similarity table")
    layer, top = int(run.metadata["best_bleached_layer"]), top_layer(run)
    chosen = rows(table, set=named(table["set"], name), layer=layer)
    ks = sorted(int(x) for x in chosen["k_nullified"].dropna())
    if not ks:
        return NotMeasured("the method scored this set with no PCs nullified only")
    used = k if k in ks else max(ks)
    row = one_row(chosen, k_nullified=used)
    note = f"the best bleached layer (GPT-2's is 8): {where(layer, top)}, {used} PCs nullified"
    if used != k:
        note += f" (the method's k, the top layer's best; the paper's {k} is not run)"
    return Measured(float(row["spearman"]), note, half_width(row))


def _count(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    unit = str(item.setting["unit"])
    if unit == "words" and item.data in LEXICA:
        words = len(load_lexicon(item.data))
        return Measured(words, "distinct words of wordlens's lexicon (the authors' file)")
    if unit == "word pairs":
        return Measured(len(load_similarity(item.data)), "pairs of wordlens's registered file")
    if unit == "words per polar group":
        return _polar_words(item, runs)
    if unit.endswith("tokenized words"):
        return _tokenized_count(item, runs)
    if unit.startswith("WEAT bias tests"):
        return _biased_tests(item, runs)
    if item.data == "simlex999":
        return NotMeasured("wordlens's SimLex-999 file has no part-of-speech column")
    return _not_in_tables(item, runs)


@_from("tokenization")
def _polar_words(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    polar = run.metadata["contexts"].get("tokenization_polar_words")
    if polar is None:
        return _NO_TOKENIZATION
    return Measured(
        len(polar["pleasant"]),
        f"singly tokenized pleasant and unpleasant words, balanced "
        f"({len(polar['multiply_tokenized_removed'])} multiply tokenized removed, "
        f"{len(polar['balanced_out'])} balanced out)",
    )


@_from("tokenization")
def _tokenized_count(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    polar = run.metadata["contexts"].get("tokenization_polar_words")
    if polar is None:
        return _NO_TOKENIZATION
    unit = str(item.setting["unit"])
    count = polar["n_single_lexicon" if unit.startswith("singly") else "n_multi_lexicon"]
    words = int(run.metadata["lexicon_words"]["warriner"]["n_words"])
    full = len(load_lexicon("warriner"))
    if words != full:
        return NotMeasured(
            f"the run tokenized a sample of {words:,} of Warriner's {full:,} words "
            f"({count:,} of them {unit}): run --scale paper"
        )
    return Measured(count, f"of Warriner's {full:,} words, by this model's tokenizer")


@_from("bias")
def _biased_tests(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    more, total, layer = biased_tests(run)
    note = f"of {total} tests, at the top layer ({layer}): {TABLE1_K} PCs nullified vs raw"
    sure, possible = biased_tests_range(run)
    if math.isnan(sure):
        return Measured(more, note + " (the run has no interval on d)")
    note += (
        f"; uncertainty: {sure:.0f} to {possible:.0f} tests as the changes within the two d's "
        "bootstrap half-widths (in quadrature) go one way or the other"
    )
    return Measured(more, note, max(more - sure, possible - more))


def biased_tests(run: Run) -> tuple[int, int, int]:
    """How many WEAT tests have a larger effect size at the top layer after nullifying
    :data:`TABLE1_K` PCs than raw, of how many, and the layer."""
    table = run.tables["weat"]
    layer = top_layer(run)
    raw = rows(table, representation="raw", layer=layer).set_index("test")["effect_size"]
    after = rows(table, representation="nullified", layer=layer, k_nullified=TABLE1_K)
    gained = after.set_index("test")["effect_size"] > raw.reindex(after["test"]).to_numpy()
    return int(gained.sum()), len(gained), layer


def biased_tests_range(run: Run) -> tuple[float, float]:
    """The fewest and most WEAT tests whose effect size after nullifying :data:`TABLE1_K` PCs
    exceeds the raw one at the top layer, as each change within its interval (the two d's
    bootstrap half-widths over the target words, in quadrature) goes either way; NaN from a
    run without ``effect_size_ci_low``."""
    table = run.tables["weat"]
    if "effect_size_ci_low" not in table:
        return math.nan, math.nan
    layer = top_layer(run)
    raw = rows(table, representation="raw", layer=layer).set_index("test")
    after = rows(table, representation="nullified", layer=layer, k_nullified=TABLE1_K)
    after = after.set_index("test")
    before = raw.reindex(after.index)

    def half(frame: pd.DataFrame) -> pd.Series:
        return (frame["effect_size_ci_high"] - frame["effect_size_ci_low"]) / 2

    change = after["effect_size"] - before["effect_size"]
    spread = np.hypot(half(after), half(before))
    return float((change > spread).sum()), float((change + spread > 0).sum())


def _not_in_tables(item: PublishedItem, runs: Runs) -> NotMeasured:
    if item.quantity == "cosine_similarity":
        return NotMeasured("prior work (Ethayarajh 2019); the VAST tables hold no raw cosines")
    if "singly tokenized" in str(item.setting.get("unit")):
        return NotMeasured("the VAST tables do not count the subtokens of the similarity words")
    return NotMeasured(_NO_NEURONS)


_MEASURES: dict[str, Measure] = {
    "vast_r": _vast_r,
    "vast_r_spread": _spread,
    "layer_index": _layer_index,
    "valnorm_r": _valnorm,
    "weighted_f1": _probe,
    "pos_f1": _probe,
    "spearman": _similarity,
    "count": _count,
    "cosine_similarity": _not_in_tables,
    "percent": _not_in_tables,
}


# --- the findings -----------------------------------------------------------------------------

#: "within .01 of each other" (Results: Contextualization) to the printed precision: a spread
#: below .015 prints as .01. The settings converge within it and diverge beyond it.
WITHIN = 0.01 + 0.005
#: A layer found by a criterion is "layer 8" when it rounds to GPT-2's 8 (half a GPT-2 layer).
HALF_LAYER = 0.5
#: The three settings whose scores converge in GPT-2's layer 8 (Results: Contextualization).
CONVERGING = ("bleached", "misaligned", "random")
TABLE1_SETTINGS = ("random", "bleached", "aligned", "misaligned")
_SPREADS = {lexicon: f"text-layer8-settings-within-01-{lexicon}" for lexicon in LEXICA}
_BEST_LAYER = "text-gpt2-best-layer"
_LAYER11 = {setting: f"text-layer11-{setting}" for setting in TABLE1_SETTINGS}
_BEFORE = {setting: f"table1-before-{setting}" for setting in TABLE1_SETTINGS}
_AFTER = {setting: f"table1-after-{setting}" for setting in TABLE1_SETTINGS}
#: Similarity set → (this paper's layer-8 score, GPT-2's prior best), items of the text.
_SIMILARITY = {
    "ws353": ("text-ws353-layer8", "text-ws353-prior-best"),
    "simlex999": ("text-simlex999-layer8", "text-simlex999-prior-best"),
}
_NEURONS = "text-top-layer-dominant-neurons"
_BIASED = "text-weat-tests-more-biased"


def _needs(*names: str) -> Callable[[Callable[[Runs], Check]], CheckFunction]:
    """A check that is 'not measurable' when one of the experiments ``names`` did not run."""

    def wrap(check: Callable[[Runs], Check]) -> CheckFunction:
        def checked(runs: Runs) -> Check:
            return not_measurable(runs, *names) or check(runs)

        return checked

    return wrap


def _cell(cells: Cells, id: str) -> tuple[float, float]:
    return cells.value(id), cells.uncertainty(id)


def _above(
    high: tuple[float, float], low: tuple[float, float], evidence: str, by: float = 0.0
) -> Check:
    """``high - low - by`` judged with the two half-widths in quadrature."""
    return judge(high[0] - low[0] - by, combined_uncertainty(high[1], low[1]), evidence)


def _counted(count: float) -> str:
    """A count as the evidence writes it (``not measured`` for NaN)."""
    return "not measured" if math.isnan(count) else f"{count:g}"


def _pm(cell: tuple[float, float]) -> str:
    """``.76 ± .04`` (just ``.76`` when the uncertainty is 0, on the published values)."""
    number, half = cell
    return f2(number) if half == 0 else f"{f2(number)} ± {f2(half)}"


def check_convergence(cells: Cells) -> Check:
    """layer8-encodes-word-semantics (Results: Contextualization): "VAST finds that layer 8 of
    GPT-2 best encodes word-level semantics. rho in bleached, misaligned, and random settings
    are within .01 of each other in layer 8 for all three lexica."

    Two parts, both required: (1) in each of the three lexica the spread of the three settings
    at GPT-2's depth 8 is within .01 to the printed precision (below :data:`WITHIN`; margin
    ``.015 - spread``); (2) that depth is where word-level semantics peaks ("best encodes"):
    the layer of the highest VAST averaged over the three settings and lexica rounds to GPT-2's
    layer 8 (margin ``0.5 - |best - 8|`` GPT-2 layers; its uncertainty is the run's interval
    on the best layer: the farthest layer it cannot tell from the peak).
    """
    parts = []
    for lexicon, id in _SPREADS.items():
        spread_, half = _cell(cells, id)
        parts.append(judge(WITHIN - spread_, half, f"{lexicon} {_pm((spread_, half))}"))
    best, half = _cell(cells, _BEST_LAYER)
    parts.append(
        judge(
            HALF_LAYER - abs(best - PAPER_BEST),
            half,
            f"best layer (highest mean VAST of the three settings and lexica): GPT-2's "
            f"{best:.1f}" + ("" if half == 0 else f" ± {half:.1f}") + f", needs {PAPER_BEST} "
            f"± {HALF_LAYER} (the paper: 'layer 8 of GPT-2 best encodes word-level semantics')",
        )
    )
    return all_hold(
        parts,
        "spread of the bleached, misaligned and random settings at GPT-2's depth 8, needs below "
        "the printed .01 (.015; the paper: 'within .01 of each other in layer 8 for all three "
        "lexica')",
    )


def check_divergence(cells: Cells) -> Check:
    """settings-diverge-in-upper-layers (Results: Contextualization, Bellezza assumed): "Figure 1
    shows that differences do arise in the upper layers. The decline by layer 11 is sharpest for
    the misaligned setting, to .55, followed by the random setting, to .72 ... Scores for aligned
    and bleached settings stay high, at .77 and .76".

    Three parts at layer 11: random above misaligned; aligned and bleached (the lower of the two)
    above random; and the spread of the three settings that converge at layer 8 (bleached,
    misaligned, random) wider than their layer-8 spread ("differences do arise"). Each margin is
    a difference of scores, its uncertainty the two half-widths in quadrature.
    """
    score = {setting: _cell(cells, id) for setting, id in _LAYER11.items()}
    staying = min((score["aligned"], score["bleached"]), key=lambda cell: cell[0])
    upper = [score[setting] for setting in CONVERGING]
    high, low = max(upper, key=lambda c: c[0]), min(upper, key=lambda c: c[0])
    wide = (high[0] - low[0], combined_uncertainty(high[1], low[1]))
    narrow = _cell(cells, _SPREADS["bellezza"])
    listed = ", ".join(f"{setting} {_pm(cell)}" for setting, cell in score.items())
    return all_hold(
        [
            _above(score["random"], score["misaligned"], "random above misaligned"),
            _above(staying, score["random"], "aligned and bleached above random"),
            _above(
                wide,
                narrow,
                f"spread of bleached, misaligned and random {_pm(wide)} at layer 11 vs "
                f"{_pm(narrow)} at layer 8",
            ),
        ],
        f"Bellezza at GPT-2's depth 11: {listed} (the paper: 'sharpest for the misaligned "
        "setting, to .55, followed by the random setting, to .72', aligned and bleached 'stay "
        "high')",
    )


@_needs("vast")
def check_autoencoders(runs: Runs) -> Check:
    """autoencoders-diverge-from-first-layer (Results: Contextualization, prose; the results are
    in the appendix, not in the extraction): "The same pattern of convergence followed by
    divergence exists in other causal LMs ... On the other hand, settings diverge in autoencoders
    like RoBERTa from the first layer."

    For a masked LM or encoder, the settings never converge: in every layer from the first
    (layer 1) to the top and in each of the three lexica, the bleached, misaligned and random
    scores spread beyond the paper's convergence tolerance ("within .01", to the printed
    precision: :data:`WITHIN`). The margin is the narrowest spread's excess over it, the
    uncertainty its extreme scores' half-widths in quadrature.
    """
    run = runs["vast"]
    kind = run.metadata["model"]["kind"]
    if kind not in ("masked", "encoder"):
        return Check(
            "not measurable",
            f"the claim is about autoencoders (masked LMs such as RoBERTa); this model is {kind}: "
            "run with one (e.g. minilm-l6)",
        )
    top = top_layer(run)
    parts, narrowest = [], []
    for lexicon in LEXICA:
        cells = {layer: spread_cell(run, lexicon, CONVERGING, layer) for layer in range(1, top + 1)}
        parts += [judge(gap - WITHIN, half, "") for gap, half in cells.values()]
        layer = min(cells, key=lambda at: cells[at][0])
        narrowest.append(f"{lexicon} {_pm(cells[layer])} at layer {layer}")
    return all_hold(
        parts,
        f"narrowest spread of the bleached, misaligned and random settings over layers 1-{top}: "
        f"{', '.join(narrowest)}; diverging needs above the printed .01 (.015) in every layer "
        "and lexicon (the paper: 'settings diverge in autoencoders like RoBERTa from the first "
        "layer', unlike the causal LMs' 'convergence followed by divergence')",
    )


def _tokenization_run(runs: Runs) -> Run | Check:
    run = runs["tokenization"]
    if "tokenization" not in run.tables:
        return Check("not measurable", f"{_STATIC}: no subtokens, so no tokenization experiment")
    return run


def _peak_cell(table: pd.DataFrame) -> tuple[int, tuple[float, float]]:
    """The layer of the highest VAST in ``table`` and (that score, its half-width)."""
    row = peak_row(table)
    return int(row["layer"]), (float(row["r"]), half_width(row))


@_needs("tokenization")
def check_singly_early(runs: Runs) -> Check:
    """singly-tokenized-encoded-early (Results: Tokenization, Figure 2): singly tokenized words
    "for which rho is highest in layer 0" (Abstract). Margin: the layer-0 score minus the best
    score of the other layers (random setting, last subtoken), their half-widths in quadrature.
    """
    run = _tokenization_run(runs)
    if isinstance(run, Check):
        return run
    series = tokenization_rows(run, "singly tokenized")
    row = one_row(series, layer=0)
    first = (float(row["r"]), half_width(row))
    layer, later = _peak_cell(series[series["layer"] > 0])
    return _above(
        first,
        later,
        f"singly tokenized, last subtoken: layer 0 {_pm(first)}, best later layer {_pm(later)} "
        f"at {where(layer, top_layer(run))} (the paper: 'rho is highest in layer 0')",
    )


@_needs("tokenization")
def check_multiply_late(runs: Runs) -> Check:
    """multiply-tokenized-encoded-late (Abstract, Results: Tokenization, Figure 2): "multiply
    tokenized words are not semantically encoded until layer 8, where they achieve Pearson's
    rho of .46", below the singly tokenized words' (".46 in layer 8, compared to .70 in layer 0",
    Discussion).

    Two parts: the best score from GPT-2's depth 8 on (layers that round to 8 or more) above
    the best before it; and the singly tokenized peak above the multiply tokenized one. Margins
    are differences of scores, with the two half-widths in quadrature.
    """
    run = _tokenization_run(runs)
    if isinstance(run, Check):
        return run
    top = top_layer(run)
    multiply = tokenization_rows(run, "multiply tokenized")
    late = multiply["layer"].map(lambda layer: gpt2_layers(layer, top) >= PAPER_BEST - HALF_LAYER)
    late_layer, late_peak = _peak_cell(multiply[late])
    early_layer, early_peak = _peak_cell(multiply[~late])
    _, multiply_peak = _peak_cell(multiply)
    single_layer, single_peak = _peak_cell(tokenization_rows(run, "singly tokenized"))
    return all_hold(
        [
            _above(
                late_peak,
                early_peak,
                f"multiply tokenized best from depth 8 {_pm(late_peak)} at "
                f"{where(late_layer, top)}, before it {_pm(early_peak)} at "
                f"{where(early_layer, top)}",
            ),
            _above(
                single_peak,
                multiply_peak,
                f"singly tokenized peak {_pm(single_peak)} at {where(single_layer, top)} above "
                f"the multiply tokenized {_pm(multiply_peak)}",
            ),
        ],
        "last subtoken, random setting (the paper: 'not semantically encoded until layer 8')",
    )


@_needs("tokenization")
def check_last_beats_mean(runs: Runs) -> Check:
    """last-subtoken-beats-mean (Results: Tokenization, Figure 2): "The last subtoken outperforms
    the mean". Margin: the last subtoken's peak VAST minus the mean's, for multiply tokenized
    words, their half-widths in quadrature."""
    run = _tokenization_run(runs)
    if isinstance(run, Check):
        return run
    last = tokenization_rows(run, "multiply tokenized", "last")
    mean = tokenization_rows(run, "multiply tokenized", "mean")
    above = int((last["r"].to_numpy() > mean["r"].to_numpy()).sum())
    (last_layer, last_peak), (mean_layer, mean_peak) = _peak_cell(last), _peak_cell(mean)
    return _above(
        last_peak,
        mean_peak,
        f"multiply tokenized peaks: last {_pm(last_peak)} (layer {last_layer}), mean "
        f"{_pm(mean_peak)} (layer {mean_layer}); last above mean at {above} of {len(last)} "
        "layers (the paper: 'The last subtoken outperforms the mean')",
    )


def check_nullifying_recovers(cells: Cells) -> Check:
    """nullifying-top-pcs-recovers-semantics (Table 1: "Nullifying 8 top PCs recovers word-level
    semantics"; Introduction: "after post-processing, the score improves to .76, with similar
    improvements for all contextual settings").

    In every setting of Table 1 the top layer's Bellezza VAST after nullifying 8 PCs is above
    the raw score (margin: the gain, the two half-widths in quadrature). Settings the run does
    not measure (a static model runs the bleached setting only) are named and left out; none
    measured is not measurable.
    """
    parts, unmeasured = [], []
    for setting in TABLE1_SETTINGS:
        before, after = _cell(cells, _BEFORE[setting]), _cell(cells, _AFTER[setting])
        if math.isnan(before[0]) and math.isnan(after[0]):
            unmeasured.append(setting)
            continue
        parts.append(_above(after, before, f"{setting} {_pm(before)} -> {_pm(after)}"))
    note = f" ({', '.join(unmeasured)} not measured)" if unmeasured else ""
    return all_hold(
        parts,
        f"Bellezza, top layer, raw -> {TABLE1_K} PCs nullified{note}; each must rise (the paper: "
        "'improvements for all contextual settings')",
    )


def check_context_after(cells: Cells) -> Check:
    """context-matters-after-nullifying (Results: Semantic Isolation, Table 1): "Word-level
    semantics are exposed in the top layer after nullifying PCs, but are influenced by context,
    as the Aligned VAST score improves to .85, but the Misaligned score only to .54."

    Influenced by context: the aligned score above the misaligned one by more than the paper's
    tolerance for settings that agree ("within .01", printed precision: :data:`WITHIN`); the
    two half-widths in quadrature.
    """
    aligned, misaligned = _cell(cells, _AFTER["aligned"]), _cell(cells, _AFTER["misaligned"])
    return _above(
        aligned,
        misaligned,
        f"Bellezza, top layer, {TABLE1_K} PCs nullified: aligned {_pm(aligned)}, misaligned "
        f"{_pm(misaligned)}; the gap must exceed the printed .01 (.015) within which the paper "
        "calls settings converged (the paper: 'influenced by context, as the Aligned VAST score "
        "improves to .85, but the Misaligned score only to .54')",
        by=WITHIN,
    )


@_needs("vast")
def check_prior_word_pos(runs: Runs) -> Check:
    """top-pcs-of-prior-word-predict-pos (Results: Semantic Isolation, prose: no F1 of the last
    word's top PCs is printed): "the top PCs of the prior word always better predict the POS of
    the last word than the top PCs of the last word itself". "Always": every task and k.

    Each (task, k) is a part: the previous word's top-PC weighted F1 minus the last word's, its
    uncertainty the two probes' bootstrap half-widths over the test sentences in quadrature
    (:func:`probe_f1`; the two probes score the same sentences, so their F1s are positively
    correlated and this interval on the difference is the wider, cautious one). The verdict is
    :func:`all_hold`'s: the weakest part decides."""
    table = runs["vast"].tables.get("pos")
    if table is None:
        return Check("not measurable", f"{_STATIC}: the probes need sentence contexts")
    top = rows(table, representation="top_pcs")
    parts, gains = [], []
    for (task, k), pair in top.groupby(["task", "k"], sort=True):
        previous = probe_f1(one_row(pair, source="previous_word"))
        last = probe_f1(one_row(pair, source="last_word"))
        gain = previous[0] - last[0]
        parts.append(judge(gain, combined_uncertainty(previous[1], last[1]), ""))
        gains.append((f"{task} k={k}", gain))
    n_test = int(top["n_test"].iloc[0])
    worse = [name for name, gain in gains if gain <= 0]
    name, smallest = min(gains, key=lambda named_gain: named_gain[1])
    evidence = (
        f"prior word's top PCs better in {len(gains) - len(worse)} of {len(gains)} (task, k) "
        f"pairs; smallest gain {smallest:+.3f} ({name}); weighted F1 on {n_test} test "
        "sentences, 95% bootstrap intervals"
        + (f"; not in {', '.join(worse)}" if worse else "")
        + " (the paper: 'always better predict')"
    )
    return all_hold(parts, evidence)


def probe_f1(row: pd.Series) -> tuple[float, float]:
    """A top-PC probe's weighted F1 and the half-width of its 95% bootstrap interval over the
    test sentences (``f1_ci_low``, ``f1_ci_high``; NaN for a run without them)."""
    if "f1_ci_low" not in row:
        return float(row["f1_weighted"]), math.nan
    return float(row["f1_weighted"]), interval_half_width(
        float(row["f1_ci_low"]), float(row["f1_ci_high"])
    )


def check_neurons(cells: Cells) -> Check:
    """few-neurons-dominate-top-layer (Experiments: Semantic Isolation): "In GPT-2's top layer, 8
    neurons make up more than 80% of the length of the 768-dimensional vector"; the abstract's
    "a few neurons with values having greater magnitude than the rest".

    The number of neurons that together make up more than 80% of the top layer's length must be
    at most the paper's 8 (of 768; margin ``8.5 - count``, counts being whole). The VAST method
    writes no per-neuron magnitudes, so the measured column has no count.
    """
    count = cells.value(_NEURONS)
    return judge(
        TABLE1_K + 0.5 - count,
        cells.uncertainty(_NEURONS),
        f"neurons that make up more than 80% of the top layer's length: {_counted(count)}; at "
        "most 8 (of 768) needed (the paper: '8 neurons make up more than 80% of the length')",
    )


def check_similarity(cells: Cells) -> Check:
    """beats-prior-word-similarity (Results: Validations of VAST; Introduction): layer-8
    bleached CWEs with two PCs nulled "score .50 on SL-999 and .66 on WS-353, outperforming the
    previous best GPT-2 results"; "improve to .66 on WordSim-353 over GPT-2's prior best of .64,
    and to .50 on SimLex-999 over its best of .45".

    On each set the score is above prior work's printed best (a fixed bar: prior work's number,
    read as printed on both columns). Margin: the difference; uncertainty: the score's interval.
    """
    parts = []
    for name, (ours, prior_id) in _SIMILARITY.items():
        score = _cell(cells, ours)
        prior = cells.paper.item(prior_id).value
        parts.append(_above(score, (prior, 0.0), f"{name} {_pm(score)} vs {f2(prior)}"))
    return all_hold(
        parts,
        "Spearman at the best bleached layer, PCs nullified, vs GPT-2's prior best (the paper: "
        "'outperforming the previous best GPT-2 results')",
    )


def check_bias(cells: Cells) -> Check:
    """nullifying-exposes-bias (Introduction; Results: Bias, Figure 5): "8 of 10 bias tests on
    GPT-2 exhibit higher bias effect sizes after doing so". At least 8 of the 10 WEAT tests have
    a larger effect size at the top layer with 8 PCs nullified than raw (margin ``count - 7.5``,
    counts being whole; uncertainty: how far the count could move as the changes within their
    intervals go either way, :func:`biased_tests_range`)."""
    count = cells.value(_BIASED)
    return judge(
        count - (TABLE1_K - 0.5),
        cells.uncertainty(_BIASED),
        f"WEAT tests larger at the top layer with {TABLE1_K} PCs nullified than raw: "
        f"{_counted(count)} of 10; at least 8 needed (the paper: '8 of 10 bias tests on GPT-2 "
        "exhibit higher bias effect sizes')",
    )


NULLIFIED_FINDINGS = {
    "vast": (
        "nullifying-top-pcs-recovers-semantics",
        "context-matters-after-nullifying",
        "beats-prior-word-similarity",
    ),
    "bias": ("nullifying-exposes-bias",),
}
"""The findings that read PC-nullified vectors, by the experiment whose PCs they use."""


def population_caveats(runs: Runs) -> dict[str, str]:
    """Finding → the caveat of a run whose PCs are fitted on the scored lexicon (the smoke
    scale's ``pc_population: lexicon``, e.g. 60 Bellezza and 50 polar words: 110 vectors): the
    top PCs of so few vectors include the valence they share, so nullifying them lowers r as k
    grows (the authors fit on every Bellezza, ANEW, Warriner and WEAT word). The caveat gives
    the population's size and, for the ``vast`` run, the largest fall of Bellezza's top-layer r
    from raw to :data:`TABLE1_K` PCs nullified (:func:`_largest_fall`). None for the authors'
    population or a static model."""
    caveats: dict[str, str] = {}
    for experiment, findings in NULLIFIED_FINDINGS.items():
        run = runs.get(experiment)
        population = run.metadata.get("pc_population", {}) if run is not None else {}
        if run is None or population.get("name") != "lexicon" or is_static(run):
            continue
        sizes = population.get("n_rows", {})
        size = next((n for name, n in sizes.items() if "bellezza" in name), None)
        text = (
            f"the PCs are fitted on the {size or 'few'} vectors of the scored Bellezza sample and "
            "the polar words themselves (smoke scale; the authors fit on every Bellezza, ANEW, "
            "Warriner and WEAT word), so nullifying them removes the valence the scored words "
            "share and r falls as k grows"
        )
        if experiment == "vast":
            text += _largest_fall(run)
        caveats |= dict.fromkeys(findings, text + ": a property of the smoke population")
    return caveats


def _largest_fall(run: Run) -> str:
    """`` (Bellezza, aligned, top layer: r +0.75 raw, -0.11 with 8 PCs nullified)``: the
    Table 1 setting whose top-layer r falls most from raw to :data:`TABLE1_K` PCs nullified;
    '' if the run has none of the cells."""
    top, falls = top_layer(run), {}
    for setting in TABLE1_SETTINGS:
        try:
            raw = layer_cell(run, "bellezza", setting, top)[0]
            falls[setting] = raw, nullified_r(run, "bellezza", setting, top, TABLE1_K)
        except (KeyError, ValueError):  # a setting the run lacks
            continue
    if not falls:
        return ""
    setting = max(falls, key=lambda name: falls[name][0] - falls[name][1])
    raw, after = falls[setting]
    return (
        f" (Bellezza, {setting}, top layer: r {raw:+.2f} raw, {after:+.2f} with {TABLE1_K} PCs "
        "nullified)"
    )


class VastReproduction(PaperReproduction):
    """Wolfe & Caliskan (2022) on any model (see the module notes)."""

    paper = "vast"

    def experiments(self, scale: Scale) -> list[Experiment]:
        """The ``vast``, ``tokenization`` and ``bias`` runs (samples at ``smoke`` scale)."""
        return _experiments(scale)

    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        """This run's value of ``item`` and the half-width of its interval (see the module
        notes for layers and static models)."""
        try:
            return _MEASURES[item.quantity](item, runs)
        except (KeyError, ValueError) as error:
            return NotMeasured(f"the run's tables lack this cell ({error})")

    def checks(self) -> Mapping[str, FindingCheck]:
        """Finding → its check: over the printed cells (:class:`TableCheck`) where the paper
        prints the numbers, else over the runs (:meth:`basis` says what they rest on)."""
        layer11 = tuple(_LAYER11.values())
        table1 = tuple(
            id for setting in TABLE1_SETTINGS for id in (_BEFORE[setting], _AFTER[setting])
        )
        similarity = tuple(id for pair in _SIMILARITY.values() for id in pair)
        return {
            "layer8-encodes-word-semantics": TableCheck(
                (*_SPREADS.values(), _BEST_LAYER), check_convergence
            ),
            "settings-diverge-in-upper-layers": TableCheck(
                (*layer11, _SPREADS["bellezza"]), check_divergence
            ),
            "autoencoders-diverge-from-first-layer": check_autoencoders,
            "singly-tokenized-encoded-early": check_singly_early,
            "multiply-tokenized-encoded-late": check_multiply_late,
            "last-subtoken-beats-mean": check_last_beats_mean,
            "nullifying-top-pcs-recovers-semantics": TableCheck(table1, check_nullifying_recovers),
            "context-matters-after-nullifying": TableCheck(
                (_AFTER["aligned"], _AFTER["misaligned"]), check_context_after
            ),
            "top-pcs-of-prior-word-predict-pos": check_prior_word_pos,
            "few-neurons-dominate-top-layer": TableCheck((_NEURONS,), check_neurons),
            "beats-prior-word-similarity": TableCheck(similarity, check_similarity),
            "nullifying-exposes-bias": TableCheck((_BIASED,), check_bias),
        }

    def caveats(self, runs: Runs) -> Mapping[str, str]:
        """The nullification findings of a run whose PCs are fitted on the scored words
        themselves (the smoke scale's ``pc_population: lexicon``): :func:`population_caveats`."""
        return population_caveats(runs)

    def named_models(self) -> Mapping[str, tuple[str, ...]]:
        """Every finding is about GPT-2 except the one about autoencoders ("such as
        RoBERTa"); judged on this run's model and marked when it is another
        (:data:`~wordlens.reproduce.base.NAMED_MODEL_RULE`)."""
        about = dict.fromkeys(self.checks(), ("gpt2",))
        about["autoencoders-diverge-from-first-layer"] = ("roberta-base",)
        return about

    def basis(self) -> Mapping[str, str]:
        """What the findings checked over the runs rest on: Figure 2 (tokenization) or prose."""
        return {
            "autoencoders-diverge-from-first-layer": "prose (Results: Contextualization; the "
            "autoencoder results are in the appendix, not in the extraction)",
            "singly-tokenized-encoded-early": "Figure 2",
            "multiply-tokenized-encoded-late": "Figure 2",
            "last-subtoken-beats-mean": "Figure 2",
            "top-pcs-of-prior-word-predict-pos": "prose (Results: Semantic Isolation)",
        }


REPRODUCTION = VastReproduction()
