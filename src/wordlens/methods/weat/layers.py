"""WEAT bias tests (Caliskan, Bryson & Narayanan 2017) on any model, at every layer.

Each test word is embedded once — in the semantically bleached context ``"This is {word}"`` (May et
al. 2019; the VAST paper's setting for bias tests) or alone — and every test is evaluated at every
requested layer with :func:`wordlens.stats.weat`: effect size (sample std, ddof=1 by default),
one-sided permutation p-value as in Caliskan et al. when all partitions are enumerated, and
``(b + 1) / (m + 1)`` over the observed and ``m`` random partitions otherwise (Phipson & Smyth 2010:
never 0; :mod:`wordlens.stats.permutation`), the two-sided value beside it. The result's metadata
states the rule (``config.p_values``).

Words a static vocabulary lacks are dropped from their set and listed in the result's metadata;
a set left empty is an error. The sets are checked as given, before that, by
:class:`~wordlens.resources.WeatTest`: a word listed twice, or in both target (or both attribute)
sets, is a :class:`~wordlens.errors.WordSetError`. A test with fewer than 100 partitions of its
target words (:class:`~wordlens.errors.FewPartitionsWarning`), or with a NaN effect size
(:class:`~wordlens.errors.UndefinedStatisticWarning`), gets a warning naming the test, kept in
the metadata's ``notes``; the table's ``nan_reason`` says why d is NaN at a layer.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens.contexts import word_targets
from wordlens.errors import EmptyInputError, WordlensWarning
from wordlens.methods.association.vectors import refuse_twins, too_many_lost
from wordlens.methods.association.words import Contribution, empty_words, words_table
from wordlens.methods.weat.config import WeatConfig
from wordlens.models.base import WordEmbedder
from wordlens.resources import WeatTest, WordSet, load_weat_tests
from wordlens.results import Run
from wordlens.stages import Timings
from wordlens.stats import P_VALUE_RULE, WeatResult, weat
from wordlens.stats.diagnostics import few_partitions_warning, nan_warning

if TYPE_CHECKING:
    from wordlens.models.cache import ActivationCache


WEAT_COLUMNS = (
    "test",
    "title",
    "layer",
    "effect_size",
    "statistic",
    "p_one_sided",
    "p_two_sided",
    "n_x",
    "n_y",
    "n_a",
    "n_b",
    "n_partitions",
    "exact",
    "nan_reason",
)
"""The columns of the ``weat`` table, one row per test and layer (none when every test is
skipped)."""
WORD_KEYS = ("test",)
"""The columns of the ``words`` table before
:data:`~wordlens.methods.association.words.WORD_COLUMNS`."""
WORD_TOTALS = (
    "each target word's s(w, A, B) = mean over A of cos(w, a) - mean over B of cos(w, b): the "
    "statistic is their sum over X minus their sum over Y, the effect size their mean over X "
    "minus their mean over Y over their standard deviation over X ∪ Y (ddof as the config)"
)
"""How the ``words`` table's scores give the ``weat`` table's statistic and effect size."""


def _kept(word_set: WordSet, missing: set[str], test: WeatTest) -> list[str]:
    kept = [word for word in word_set.words if word not in missing]
    if not kept:
        raise EmptyInputError(
            f"WEAT test {test.id} ({test.title}): the model lacks or cannot tell apart every "
            f"word of {word_set.name!r} (not in its vocabulary, or read only as unknown tokens)"
        )
    return kept


def _query_sets(tests: Sequence[WeatTest]) -> dict[str, Any]:
    """``{"query": ...}``: the title and word sets of a user's own test (one without an original
    finding, e.g. a :class:`~wordlens.resources.Query`'s) as given, or {} if none."""
    own = [test for test in tests if test.original_finding is None]
    if not own:
        return {}
    test = own[0]
    return {
        "query": {
            "test": test.id,
            "title": test.title,
            "targets": {test.x.name: list(test.x.words), test.y.name: list(test.y.words)},
            "attributes": {test.a.name: list(test.a.words), test.b.name: list(test.b.words)},
        }
    }


def _tested(
    test: WeatTest,
    words: list[list[str]],
    vectors: list[npt.NDArray[np.float32]],
    layers: Sequence[int],
    config: WeatConfig,
) -> tuple[WeatResult, list[str]]:
    """:func:`wordlens.stats.weat` of one test, its warnings given with the test's name and the
    model's layer numbers; their messages."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WordlensWarning)  # given below, with the test's name
        outcome = weat(
            *vectors, n_samples=config.permutations, seed=config.seed, ddof=config.ddof, words=words
        )
    found = (
        few_partitions_warning(
            len(words[0]), len(words[1]), "target words", config.ddof, config.permutations
        ),
        nan_warning(outcome.nan_reason, layers, "the effect size and p-values"),
    )
    notes = []
    for warning in found:
        if warning is not None:
            note = f"WEAT test {test.id} ({test.title}): {warning}"
            warnings.warn(type(warning)(note), stacklevel=3)
            notes.append(note)
    return outcome, notes


def run_weat(
    model: WordEmbedder,
    tests: Sequence[WeatTest] | None = None,
    config: WeatConfig | None = None,
    *,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> Run:
    """Run WEAT tests at each layer of ``model``.

    Parameters
    ----------
    model
        Any loaded model; static models have the single layer 0 and ignore the context.
    tests
        The tests to run; default ``config.tests`` (the ten of Caliskan et al. 2017 when None).
    config
        [the defaults] Layers, context, template, pooling, permutations, seed and ddof
        (:class:`~wordlens.methods.weat.config.WeatConfig`; effect size and p-values as
        :func:`wordlens.stats.weat`).
    cache
        Activation cache (every word is computed once across runs).
    progress
        Show a progress bar while embedding.

    Returns
    -------
    Run
        Table ``weat``: one row per test and layer with effect size, statistic, p-values, set
        sizes and ``nan_reason`` (why d is NaN; ``""`` where it is a number). Table ``words``:
        one row per test, target word and layer, its ``s(w, A, B)`` (``score``; columns
        ``test``, ``layer``, ``set``, ``word``, ``quantity``, ``score``), whose sum over ``X``
        minus that over ``Y`` is the statistic (metadata ``word_scores`` says so). Metadata
        ``dropped_words``, ``notes`` (per test, the warnings given) and ``skipped`` (per test
        skipped under ``config.max_missing``, why; it has no rows), and for a test of your
        own (no ``original_finding``, e.g. a query's) ``query``: its title and word sets.

    Warns
    -----
    FewPartitionsWarning
        For a test with fewer than 100 partitions of its target words (after words the model
        lacks are left out): how many, and what the one-sided p can be.
    UndefinedStatisticWarning
        For a test whose effect size is NaN at some layer, with the reason.

    Raises
    ------
    EmptyInputError
        If no test is chosen or a set loses every word (and ``config.max_missing`` does not
        skip the test).
    """
    config = config or WeatConfig()
    chosen = list(tests) if tests is not None else load_weat_tests(config.tests)
    layers, context, template = config.layers, config.context, config.template
    pooling, n_samples, seed, ddof = config.pooling, config.permutations, config.seed, config.ddof
    if not chosen:
        raise EmptyInputError("no WEAT tests selected")
    timings = Timings()
    all_words = list(
        dict.fromkeys(
            word
            for test in chosen
            for word_set in (test.x, test.y, test.a, test.b)
            for word in word_set.words
        )
    )
    unreadable = set(model.missing_words(all_words, tell_apart=False))
    present = [word for word in all_words if word not in unreadable]
    use_context = context == "template" and model.info.kind != "static"
    targets = word_targets(present, "none" if model.info.kind == "static" else context, template)
    with timings.stage("embed"):
        embeddings = model.embed(targets, layers, pooling, cache=cache, progress=progress)
    row_of = {word: row for row, word in enumerate(present)}

    def vectors(words: list[str]) -> npt.NDArray[np.float32]:
        return np.asarray(embeddings.vectors[[row_of[w] for w in words]])  # [n, layers, dim]

    rows: list[dict[str, Any]] = []
    word_tables: list[pd.DataFrame] = []
    dropped: dict[str, list[str]] = {}
    why_missing: dict[str, str] = {}
    notes: dict[str, list[str]] = {}
    skipped: dict[str, str] = {}
    with timings.stage("statistics"):
        for test in chosen:
            # words told apart within the test: "Bill" here and "bill" in another test are two
            words = [word for ws in (test.x, test.y, test.a, test.b) for word in ws.words]
            why = model.missing_reasons(words)
            why_missing.update(why)
            missing = set(why)
            lost = [word for word in words if word in missing]
            if lost:
                dropped[str(test.id)] = lost
            word_sets = (test.x, test.y, test.a, test.b)
            reason = too_many_lost(
                {ws.name: ws.words for ws in word_sets},
                {ws.name: [w for w in ws.words if w in missing] for ws in word_sets},
                config.max_missing,
            )
            if reason:
                skipped[str(test.id)] = reason
                continue
            sets = [_kept(word_set, missing, test) for word_set in word_sets]
            refuse_twins(
                dict(zip("XYAB", ("targets", "targets", "attributes", "attributes"), strict=True)),
                dict(zip("XYAB", sets, strict=True)),
                {word: embeddings.vectors[row_of[word]] for words in sets for word in words},
                model,
                f"WEAT test {test.id} ({test.title}), sets X, Y, A, B: ",
            )
            outcome, found = _tested(
                test, sets, [vectors(s) for s in sets], list(embeddings.layers), config
            )
            if found:
                notes[str(test.id)] = found
            word_tables.append(_words(test, sets, outcome, embeddings.layers))
            for column, layer in enumerate(embeddings.layers):
                rows.append(
                    {
                        "test": test.id,
                        "title": test.title,
                        "layer": layer,
                        "effect_size": float(outcome.effect_size[column]),
                        "statistic": float(outcome.statistic[column]),
                        "p_one_sided": float(outcome.p_one_sided[column]),
                        "p_two_sided": float(outcome.p_two_sided[column]),
                        "n_x": len(sets[0]),
                        "n_y": len(sets[1]),
                        "n_a": len(sets[2]),
                        "n_b": len(sets[3]),
                        "n_partitions": outcome.n_partitions,
                        "exact": outcome.exact,
                        "nan_reason": str(outcome.nan_reason[column]),
                    }
                )
    metadata = {
        "method": "WEAT (Caliskan, Bryson & Narayanan 2017)",
        "model": model.info.as_dict(),
        "config": {
            "context": context if model.info.kind != "static" else "none (static model)",
            "template": template if use_context else None,
            "pooling": pooling,
            "layers": list(embeddings.layers),
            "permutations": n_samples,
            "seed": seed,
            "ddof": ddof,
            "max_missing": config.max_missing,
            "effect_size": f"Cohen's d with sample std (ddof={ddof})",
            "p_values": P_VALUE_RULE,
        },
        "tests": [test.id for test in chosen],
        **_query_sets(chosen),
        "dropped_words": dropped,
        "why_dropped": {word: why_missing[word] for words in dropped.values() for word in words},
        "notes": notes,
        "skipped": skipped,
        "word_scores": WORD_TOTALS,
        "timings_s": timings.seconds,
    }
    every_word = (
        pd.concat(word_tables, ignore_index=True) if word_tables else empty_words(WORD_KEYS)
    )
    tables = {"weat": pd.DataFrame(rows, columns=WEAT_COLUMNS), "words": every_word}
    return Run("weat", tables, metadata)


def _words(
    test: WeatTest, sets: list[list[str]], outcome: WeatResult, layers: Sequence[int]
) -> pd.DataFrame:
    """The ``words`` rows of one test: each target word's ``s(w, A, B)`` (Caliskan et al.
    2017, Methods) at every layer, from ``outcome`` (the very scores its statistic sums)."""
    n_x = len(sets[0])
    scores = outcome.word_scores  # [n_x + n_y, n_layers]
    contribution = Contribution(
        f"s(w, {test.a.name}, {test.b.name})",
        {test.x.name: scores[:n_x], test.y.name: scores[n_x:]},
    )
    return words_table(
        {"test": test.id}, layers, {test.x.name: sets[0], test.y.name: sets[1]}, [contribution]
    )
