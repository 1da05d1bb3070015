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
"""

from __future__ import annotations

import csv
import io
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
    Check,
    CheckFunction,
    Experiment,
    Measured,
    NotMeasured,
    PaperReproduction,
    Runs,
    Scale,
    Verdict,
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
#: The paper's prior best GPT-2 similarity scores (Introduction), beaten by its layer-8 CWEs.
PRIOR_BEST = {"ws353": 0.64, "simlex999": 0.45}

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
    last = {"poolings": ("last",)}  # VAST.py:125, 344 (layers, nullification, bias)
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
    options["bias"].update(sampled, lexica=(str(files.lexica[0]),), n_samples=SMOKE_PERMUTATIONS)
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


def value(table: pd.DataFrame, column: str, **match: Any) -> float:
    """``column`` of the one row matching ``match``.

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
    return float(chosen[column].iloc[0])


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


def layer_r(run: Run, lexicon: str, setting: str, layer: int) -> float:
    """VAST of ``lexicon`` in ``setting`` at ``layer`` (raw vectors)."""
    return value(valence(run, lexicon), "r", setting=setting, layer=layer)


def spread(run: Run, lexicon: str, settings: tuple[str, ...], layer: int) -> float:
    """Largest difference between the VAST scores of ``settings`` at ``layer``."""
    scores = [layer_r(run, lexicon, setting, layer) for setting in settings]
    return max(scores) - min(scores)


def nullified_r(run: Run, lexicon: str, setting: str, layer: int, k: int) -> float:
    """VAST of ``lexicon`` in ``setting`` at ``layer`` with the mean and ``k`` top PCs removed."""
    table = run.tables["nullification"]
    return value(
        table,
        "r",
        lexicon=named(table["lexicon"], lexicon),
        dimension="valence",
        setting=setting,
        layer=layer,
        representation="nullified",
        k=k,
    )


def lexicon_best(run: Run, lexicon: str) -> int:
    """The lexicon's best bleached layer, where the method nullifies besides the top."""
    layers = run.tables["layers"]
    return best_layer(layers, named(layers["lexicon"], lexicon), "bleached", pooling(run))


def peak(table: pd.DataFrame, column: str = "r") -> tuple[int, float]:
    """The layer of the highest ``column`` in ``table`` and that value."""
    best = table.iloc[int(np.nanargmax(table[column].to_numpy(dtype=float)))]
    return int(best["layer"]), float(best[column])


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
    return Measured(layer_r(run, item.data, setting, layer), note)


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
    score = nullified_r(run, item.data, setting, layer, k)
    return Measured(score, f"{role}: {where(layer, top)}, {k} PCs nullified, {pooling(run)}")


@_from("tokenization")
def _tokenized(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    if "tokenization" not in run.tables:
        return _NO_TOKENIZATION
    singly = str(item.setting["tokenization"]).startswith("singly")
    words = "singly tokenized" if singly else "multiply tokenized"
    series = tokenization_rows(run, words)
    top = top_layer(run)
    if item.setting.get("criterion") == "peak":
        layer, score = peak(series)
        return Measured(score, f"{words}, last subtoken: the peak, at {where(layer, top)}")
    layer = depth_layer(_paper_layer(item), top)
    score = value(series, "r", layer=layer)
    return Measured(score, f"{words}, last subtoken, random setting: {where(layer, top)}")


@_from("vast")
def _spread(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    if is_static(run):
        return NotMeasured(f"{_STATIC}: one setting, one layer")
    settings = tuple(str(item.setting["setting"]).split(", "))
    top = top_layer(run)
    layer = depth_layer(_paper_layer(item), top)
    note = f"{', '.join(settings)} at {where(layer, top)}, {pooling(run)} subtoken"
    return Measured(spread(run, item.data, settings, layer), note)


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
    layer, score = best_semantic_layer(run)
    top = top_layer(run)
    note = (
        f"the layer of the highest VAST averaged over the bleached, misaligned and random "
        f"settings and the three lexica ({f2(score)}): {where(layer, top)}; value in GPT-2 layers"
    )
    return Measured(gpt2_layers(layer, top), note)


def best_semantic_layer(run: Run) -> tuple[int, float]:
    """The layer of the highest mean VAST over the converging settings and the three lexica."""
    scores = pd.concat([valence(run, lexicon) for lexicon in LEXICA])
    scores = scores[scores["setting"].isin(("bleached", "misaligned", "random"))]
    return peak(scores.groupby("layer")["r"].mean().reset_index())


@_from("vast")
def _valnorm(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    if not is_static(run):
        return NotMeasured("ValNorm scores static word embeddings: run with one (glove-6b-50d)")
    scores = {lexicon: layer_r(run, lexicon, "bleached", 0) for lexicon in LEXICA}
    listed = ", ".join(f"{name} {f2(score)}" for name, score in scores.items())
    return Measured(max(scores.values()), f"the best of the three lexica ({listed})")


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
        score = value(table, "f1_weighted", representation=representation, k=k, **match)
    except KeyError:
        ks = sorted(set(rows(table, **match)["k"]) - {0})
        return NotMeasured(f"the method probes k = {', '.join(map(str, ks))} PCs, not {k}")
    return Measured(score, f"{match['source']}, {representation}, k = {k}: weighted F1, top layer")


def _similarity(item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
    if item.setting.get("source") == "prior_work":
        return NotMeasured("a number of prior work the paper compares with, not its experiment")
    return _similarity_of_run(item, runs)


@_from("vast")
def _similarity_of_run(item: PublishedItem, run: Run) -> Measured | NotMeasured:
    cell = similarity_cell(run, item.data, int(item.setting["pcs_nullified"] or 0))
    return cell if isinstance(cell, NotMeasured) else Measured(*cell)


def similarity_cell(run: Run, name: str, k: int) -> tuple[float, str] | NotMeasured:
    """Spearman of set ``name`` at the run's best bleached layer, ``k`` PCs nullified."""
    table = run.tables.get("similarity")
    if table is None:
        return NotMeasured("the run has no similarity table")
    layer, top = int(run.metadata["best_bleached_layer"]), top_layer(run)
    chosen = rows(table, set=named(table["set"], name), layer=layer)
    ks = sorted(int(x) for x in chosen["k_nullified"].dropna())
    if k not in ks:
        return NotMeasured(
            f"the method scores similarity raw and with k = {', '.join(map(str, ks))} PCs "
            f"nullified (the top layer's best k), not k = {k}"
        )
    score = value(chosen, "spearman", k_nullified=k)
    note = f"the best bleached layer (GPT-2's is 8): {where(layer, top)}, {k} PCs nullified"
    return score, note


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
    return Measured(more, note)


def biased_tests(run: Run) -> tuple[int, int, int]:
    """How many WEAT tests have a larger effect size at the top layer after nullifying
    :data:`TABLE1_K` PCs than raw, of how many, and the layer."""
    table = run.tables["weat"]
    layer = top_layer(run)
    raw = rows(table, representation="raw", layer=layer).set_index("test")["effect_size"]
    after = rows(table, representation="nullified", layer=layer, k_nullified=TABLE1_K)
    gained = after.set_index("test")["effect_size"] > raw.reindex(after["test"]).to_numpy()
    return int(gained.sum()), len(gained), layer


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


def _needs(*names: str) -> Callable[[Callable[[Runs], Check]], CheckFunction]:
    """A check that is 'not measurable' when one of the experiments ``names`` did not run."""

    def wrap(check: Callable[[Runs], Check]) -> CheckFunction:
        def checked(runs: Runs) -> Check:
            return not_measurable(runs, *names) or check(runs)

        return checked

    return wrap


def _verdict(holds: bool) -> Verdict:
    return "holds" if holds else "does not hold"


@_needs("vast")
def check_convergence(runs: Runs) -> Check:
    """layer8-encodes-word-semantics: the bleached, misaligned and random scores within .01 at
    GPT-2's depth 8/12, for all three lexica (to the printed precision: below .015)."""
    run = runs["vast"]
    if is_static(run):
        return Check("not measurable", f"{_STATIC}: one setting, one layer")
    top = top_layer(run)
    layer = depth_layer(PAPER_BEST, top)
    spreads = {lx: spread(run, lx, ("bleached", "misaligned", "random"), layer) for lx in LEXICA}
    best, score = best_semantic_layer(run)
    listed = ", ".join(f"{lx} {f2(value)}" for lx, value in spreads.items())
    evidence = (
        f"spread of the three settings at {where(layer, top)}: {listed}; the best layer "
        f"(mean of settings and lexica) is {where(best, top)}, {f2(score)}"
    )
    return Check(_verdict(all(round(s, 2) <= 0.01 for s in spreads.values())), evidence)


@_needs("vast")
def check_divergence(runs: Runs) -> Check:
    """settings-diverge-in-upper-layers: at GPT-2's depth 11/12 (Bellezza) misaligned < random <
    aligned and bleached, and the settings spread wider than at depth 8/12."""
    run = runs["vast"]
    if is_static(run):
        return Check("not measurable", f"{_STATIC}: one setting, one layer")
    top = top_layer(run)
    upper, middle = depth_layer(11, top), depth_layer(PAPER_BEST, top)
    settings = ("misaligned", "random", "aligned", "bleached")
    scores = {setting: layer_r(run, "bellezza", setting, upper) for setting in settings}
    ordered = scores["misaligned"] < scores["random"] < min(scores["aligned"], scores["bleached"])
    wide, narrow = (spread(run, "bellezza", settings, layer) for layer in (upper, middle))
    listed = ", ".join(f"{setting} {f2(score)}" for setting, score in scores.items())
    evidence = (
        f"Bellezza at {where(upper, top)}: {listed}; spread of the settings {f2(wide)} there, "
        f"{f2(narrow)} at {where(middle, top)}"
    )
    return Check(_verdict(ordered and wide > narrow), evidence)


@_needs("vast")
def check_autoencoders(runs: Runs) -> Check:
    """autoencoders-diverge-from-first-layer: for a masked LM or encoder, the bleached,
    misaligned and random scores differ by more than .01 at layer 1 already."""
    run = runs["vast"]
    kind = run.metadata["model"]["kind"]
    if kind not in ("masked", "encoder"):
        return Check(
            "not measurable",
            f"the claim is about autoencoders (masked LMs such as RoBERTa); this model is {kind}: "
            "run with one (e.g. minilm-l6)",
        )
    gap = max(spread(run, lx, ("bleached", "misaligned", "random"), 1) for lx in LEXICA)
    return Check(
        _verdict(round(gap, 2) > 0.01), f"largest spread of the settings at layer 1: {f2(gap)}"
    )


def _tokenization_run(runs: Runs) -> Run | Check:
    run = runs["tokenization"]
    if "tokenization" not in run.tables:
        return Check("not measurable", f"{_STATIC}: no subtokens, so no tokenization experiment")
    return run


@_needs("tokenization")
def check_singly_early(runs: Runs) -> Check:
    """singly-tokenized-encoded-early: singly tokenized words peak at layer 0."""
    run = _tokenization_run(runs)
    if isinstance(run, Check):
        return run
    series = tokenization_rows(run, "singly tokenized")
    layer, score = peak(series)
    first = value(series, "r", layer=0)
    evidence = (
        f"singly tokenized, last subtoken: layer 0 {f2(first)}, peak {f2(score)} at "
        f"{where(layer, top_layer(run))}"
    )
    return Check(_verdict(layer == 0), evidence)


@_needs("tokenization")
def check_multiply_late(runs: Runs) -> Check:
    """multiply-tokenized-encoded-late: multiply tokenized words peak at GPT-2's depth 8/12 or
    later (the peak's depth rounds to 8 or more GPT-2 layers), below the singly tokenized peak."""
    run = _tokenization_run(runs)
    if isinstance(run, Check):
        return run
    top = top_layer(run)
    layer, score = peak(tokenization_rows(run, "multiply tokenized"))
    single_layer, single = peak(tokenization_rows(run, "singly tokenized"))
    late = round(gpt2_layers(layer, top)) >= PAPER_BEST
    evidence = (
        f"multiply tokenized peak {f2(score)} at {where(layer, top)}; singly tokenized peak "
        f"{f2(single)} at {where(single_layer, top)}"
    )
    return Check(_verdict(late and score < single), evidence)


@_needs("tokenization")
def check_last_beats_mean(runs: Runs) -> Check:
    """last-subtoken-beats-mean: for multiply tokenized words the last subtoken's peak VAST is
    above the mean's."""
    run = _tokenization_run(runs)
    if isinstance(run, Check):
        return run
    last = tokenization_rows(run, "multiply tokenized", "last")
    mean = tokenization_rows(run, "multiply tokenized", "mean")
    above = int((last["r"].to_numpy() > mean["r"].to_numpy()).sum())
    (last_layer, last_peak), (mean_layer, mean_peak) = peak(last), peak(mean)
    evidence = (
        f"multiply tokenized peaks: last {f2(last_peak)} (layer {last_layer}), mean "
        f"{f2(mean_peak)} (layer {mean_layer}); last above mean at {above} of {len(last)} layers"
    )
    return Check(_verdict(last_peak > mean_peak), evidence)


def _table1(run: Run) -> dict[str, tuple[float, float]]:
    """Setting → (before, after) at the top layer, Bellezza: raw vs :data:`TABLE1_K` PCs."""
    top = top_layer(run)
    return {
        setting: (
            layer_r(run, "bellezza", setting, top),
            nullified_r(run, "bellezza", setting, top, TABLE1_K),
        )
        for setting in run.metadata["settings_run"]
    }


@_needs("vast")
def check_nullifying_recovers(runs: Runs) -> Check:
    """nullifying-top-pcs-recovers-semantics: Bellezza's top-layer VAST rises after nullifying
    8 PCs in every setting run."""
    table = _table1(runs["vast"])
    listed = ", ".join(f"{s} {f2(b)} -> {f2(a)}" for s, (b, a) in table.items())
    return Check(
        _verdict(all(a > b for b, a in table.values())),
        f"Bellezza, top layer, raw -> {TABLE1_K} PCs nullified: {listed}",
    )


@_needs("vast")
def check_context_after(runs: Runs) -> Check:
    """context-matters-after-nullifying: after nullifying 8 PCs at the top layer, aligned scores
    above misaligned, their 95% intervals apart."""
    run = runs["vast"]
    if is_static(run):
        return Check("not measurable", f"{_STATIC}: no aligned or misaligned setting")
    table, top = run.tables["nullification"], top_layer(run)
    match = {
        "lexicon": named(table["lexicon"], "bellezza"),
        "dimension": "valence",
        "layer": top,
        "representation": "nullified",
        "k": TABLE1_K,
    }
    aligned = rows(table, setting="aligned", **match).iloc[0]
    misaligned = rows(table, setting="misaligned", **match).iloc[0]
    evidence = (
        f"Bellezza, top layer, {TABLE1_K} PCs nullified: aligned {f2(aligned['r'])} "
        f"[{f2(aligned['ci_low'])}, {f2(aligned['ci_high'])}], misaligned {f2(misaligned['r'])} "
        f"[{f2(misaligned['ci_low'])}, {f2(misaligned['ci_high'])}]"
    )
    return Check(_verdict(bool(aligned["ci_low"] > misaligned["ci_high"])), evidence)


@_needs("vast")
def check_prior_word_pos(runs: Runs) -> Check:
    """top-pcs-of-prior-word-predict-pos: for every task and k, the prior word's top PCs predict
    the last word's POS better than the last word's own top PCs."""
    table = runs["vast"].tables.get("pos")
    if table is None:
        return Check("not measurable", f"{_STATIC}: the probes need sentence contexts")
    top = rows(table, representation="top_pcs")
    pivot = top.pivot_table(index=["task", "k"], columns="source", values="f1_weighted")
    better = pivot["previous_word"] > pivot["last_word"]
    worse = [f"{task} k={k}" for task, k in better.index[~better.to_numpy()].tolist()]
    evidence = (
        f"prior word's top PCs better in {int(better.sum())} of {len(better)} (task, k) pairs"
        + (f"; not in {', '.join(worse)}" if worse else "")
    )
    return Check(_verdict(bool(better.all())), evidence)


def check_neurons(runs: Runs) -> Check:
    """few-neurons-dominate-top-layer: not in the method's tables."""
    return Check("not measurable", _NO_NEURONS)


@_needs("vast")
def check_similarity(runs: Runs) -> Check:
    """beats-prior-word-similarity: at the best bleached layer with 2 PCs nullified (else the
    method's k), WS-353 above .64 and SimLex-999 above .45."""
    run = runs["vast"]
    table = run.tables.get("similarity")
    if table is None:
        return Check("not measurable", "the run has no similarity table")
    ks = {int(k) for k in table["k_nullified"].dropna()}
    k = 2 if 2 in ks else max(ks)
    scores = {}
    notes = []
    for name, prior in PRIOR_BEST.items():
        cell = similarity_cell(run, name, k)
        if isinstance(cell, NotMeasured):
            return Check("not measurable", cell.reason)
        scores[name] = cell[0]
        notes.append(f"{name} {f2(cell[0])} vs {f2(prior)}")
    layer = int(run.metadata["best_bleached_layer"])
    evidence = (
        f"{where(layer, top_layer(run))}, bleached, {k} PCs nullified"
        + ("" if k == 2 else " (the method's k; the paper's 2 is not run)")
        + f": {'; '.join(notes)}"
    )
    return Check(_verdict(all(scores[n] > p for n, p in PRIOR_BEST.items())), evidence)


@_needs("bias")
def check_bias(runs: Runs) -> Check:
    """nullifying-exposes-bias: at least 8 of the 10 WEAT tests have larger effect sizes at the
    top layer after nullifying 8 PCs than raw."""
    more, total, layer = biased_tests(runs["bias"])
    evidence = (
        f"{more} of {total} tests larger at layer {layer} with {TABLE1_K} PCs nullified than raw"
    )
    return Check(_verdict(more >= 8), evidence)


class VastReproduction(PaperReproduction):
    """Wolfe & Caliskan (2022) on any model (see the module notes)."""

    paper = "vast"

    def experiments(self, scale: Scale) -> list[Experiment]:
        """The ``vast``, ``tokenization`` and ``bias`` runs (samples at ``smoke`` scale)."""
        return _experiments(scale)

    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        """This run's value of ``item`` (see the module notes for layers and static models)."""
        try:
            return _MEASURES[item.quantity](item, runs)
        except (KeyError, ValueError) as error:
            return NotMeasured(f"the run's tables lack this cell ({error})")

    def checks(self) -> Mapping[str, CheckFunction]:
        return {
            "layer8-encodes-word-semantics": check_convergence,
            "settings-diverge-in-upper-layers": check_divergence,
            "autoencoders-diverge-from-first-layer": check_autoencoders,
            "singly-tokenized-encoded-early": check_singly_early,
            "multiply-tokenized-encoded-late": check_multiply_late,
            "last-subtoken-beats-mean": check_last_beats_mean,
            "nullifying-top-pcs-recovers-semantics": check_nullifying_recovers,
            "context-matters-after-nullifying": check_context_after,
            "top-pcs-of-prior-word-predict-pos": check_prior_word_pos,
            "few-neurons-dominate-top-layer": check_neurons,
            "beats-prior-word-similarity": check_similarity,
            "nullifying-exposes-bias": check_bias,
        }


REPRODUCTION = VastReproduction()
