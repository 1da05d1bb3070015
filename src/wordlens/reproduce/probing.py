"""Reproducing Tenney et al. (2019), *What do you learn from context?* (edge probing, the ``probe``
method) on one model.

Experiments
    One ``probe`` run per task wordlens has offline (the method runs one task at a time): ``dep``
    (UD English EWT, the paper's data, v2.15 for v2.2), ``rel`` (SemEval-2010 Task 8), ``spr``
    (UDS 1.0 proto-roles, the paper's SPR2), ``winograd`` (Definite Pronoun Resolution; the
    paper took its DNC recast) and ``pos`` (UD EWT's 17 UPOS tags: wordlens's free substitute for
    OntoNotes POS, which measures no item of the paper's but is reported in their reasons). Each
    probes the representations of Table 2 (``lex``, ``cat``, ``mix``) and the baselines of
    Figures 2 and 3 (``cnn3``, ``cnn5``, ``random-mix``: the randomized encoder). At paper scale
    Winograd runs five times (seeds 0-4) and its F1 is their mean (Appendix A: "the average over
    five runs"). Every other option keeps the method's defaults, jiant's (Appendix C).

Matching a published cell
    The paper's encoders are not this model: every column of Table 2 gets this model's probe of
    the same representation (the runner marks the rows of another model). ``Lex.``, ``cat`` and
    ``mix`` are this model's ``lex``, ``cat`` and ``mix``; ``Full`` is ``mix`` for ELMo (its
    scalar mix of layers) and ``cat`` for CoVe (its top layer beside its GloVe embeddings).
    ``Abs.`` against the same encoder's ``Lex.`` is the difference of this model's two probes;
    ``Abs.`` against another encoder (BERT vs ELMo, BERT-large vs BERT-base) is not measured.
    F1 is the test micro-F1 x 100. Table 3's counts are those of wordlens's loader of the task
    (:func:`~wordlens.probing.converters.load_probing_task`, all sentences: a property of the
    data, the same at both scales).

    Not measured: the OntoNotes 5.0 tasks (POS, constituents, entities, SRL and its core and
    non-core roles, OntoNotes coreference; LDC-licensed and not in wordlens's probe), SPR1
    (Teichert et al. 2017, on the Penn Treebank), the macro averages over the paper's ten tasks
    (the reason gives this run's average over the tasks it has), comparisons of two encoders,
    the bag-of-words baseline and the GPT clone trained on the Billion Word Benchmark.

Findings
    A claim about named tasks (SPR1 and SPR2; constituents and dependencies against SPR,
    Winograd and coreference) is checked on each named task that ran: one failing part makes it
    "does not hold", "holds" needs every part measured. A claim about the average over the
    paper's suite (mix vs cat, the randomized encoder) is checked on the average over the tasks
    that ran, and the evidence names them. A claim comparing encoders is not measurable on one
    model's run. Gains are ``mix - lex`` (the paper's contextual encoder over its lexical
    baseline).

Scales
    ``paper``: every sentence, jiant's steps and validations. ``smoke``:
    :data:`SMOKE_TRAIN_SENTENCES` training and :data:`SMOKE_EVAL_SENTENCES` dev and test
    sentences, :data:`SMOKE_STEPS` steps validated every :data:`SMOKE_VALIDATE_EVERY`, one
    Winograd run, and only Table 2's representations (the Figure 2 and 3 baselines train three
    more probes per task and load a second copy of the model); the F1 values of so short a
    training are near chance.

References
----------
.. [1] Tenney, I., Xia, P., Chen, B., Wang, A., Poliak, A., McCoy, R. T., Kim, N., Van Durme, B.,
   Bowman, S. R., Das, D. & Pavlick, E. (2019). What do you learn from context? Probing for
   sentence structure in contextualized word representations. *ICLR 2019*: Section 5 (Table 2,
   Figures 2-3), Appendices A-C (Table 3: the dataset statistics).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from wordlens.errors import WordlensError
from wordlens.reproduce.base import (
    Check,
    CheckFunction,
    Experiment,
    Measured,
    NotMeasured,
    PaperReproduction,
    Runs,
    Scale,
)
from wordlens.reproduce.published import PublishedItem

TASKS = {
    "edges-dep-ud-ewt": "dep",
    "edges-rel-semeval": "rel",
    "edges-spr2": "spr",
    "edges-dpr": "winograd",
}
"""The paper's tasks (jiant's names, the YAML's ``data``) that wordlens has offline."""
SUBSTITUTE = "pos"
"""UD EWT POS: run, but no item of the paper's (OntoNotes POS) is measured with it."""
TABLE2 = ("lex", "cat", "mix")
"""Table 2's representations."""
BASELINES = ("cnn3", "cnn5", "random-mix")
"""The baselines of Figures 2 and 3 (the CNNs over the lexical layer, the randomized encoder)."""
FULL = {"CoVe": "cat", "ELMo": "mix"}
"""This model's representation standing for the ``Full`` column of CoVe and ELMo."""
WINOGRAD_RUNS = 5
SMOKE_TRAIN_SENTENCES = 16
SMOKE_EVAL_SENTENCES = 8
SMOKE_STEPS = 4
SMOKE_VALIDATE_EVERY = 2
WEAK_GAIN = 5.0
"""F1 points: the paper's "only weakly captured (+1-5 F1 for ELMo)" on SPR."""
SYNTACTIC = ("edges-nonterminal-ontonotes", "edges-dep-ud-ewt")
SEMANTIC = ("edges-spr1", "edges-spr2", "edges-dpr", "edges-coref-ontonotes")
"""The tasks the conclusion names: syntactic (constituents, dependencies) and semantic (SPR,
Winograd, coreference)."""

_ONTONOTES = (
    "OntoNotes 5.0 (LDC2013T19) is licensed and wordlens's probe has no OntoNotes task (tasks: "
    "pos, dep, rel, spr, winograd); converting it needs jiant's probing/data scripts and a new "
    "task in wordlens.probing.converters"
)
_SPR1 = (
    "SPR1 (Teichert et al. 2017) is annotated on the Penn Treebank (LDC-licensed) and is not in "
    "wordlens; its SPR2 (UDS 1.0) is task 'spr'"
)
_MACRO = "the macro average of the paper's ten tasks needs the OntoNotes tasks and SPR1"
_ONE_MODEL = "a reproduction runs one model: run it on each model and compare"
_DEPARTURES = {
    "pos": "UD EWT UPOS (17 tags), not OntoNotes POS (48 tags): measures no published item",
    "dep": "UD EWT v2.15, not v2.2",
    "rel": "SemEval's 6,900 / 1,100 train/dev split drawn with seed 0 (the paper's is not "
    "published)",
    "spr": "UDS 1.0 proto-roles on EWT (SPR2 as jiant: argument edges, argument head words)",
    "winograd": "DPR itself, not its DNC recast",
}


@dataclass(frozen=True)
class _Scores:
    """One task's test micro-F1 x 100 per representation (the mean over its runs)."""

    task: str
    f1: Mapping[str, float]
    runs: int

    def gain(self, representation: str, baseline: str = "lex") -> float:
        return self.f1[representation] - self.f1[baseline]


class ProbingReproduction(PaperReproduction):
    """Tenney et al. (2019) on one model (see the module notes)."""

    paper = "probing"

    def experiments(self, scale: Scale) -> list[Experiment]:
        """One probe per task (five seeds of Winograd at paper scale)."""
        options: dict[str, Any] = {"representations": [*TABLE2, *BASELINES]}
        smoke = ""
        if scale == "smoke":
            options = {
                "representations": list(TABLE2),
                "train_sentences": SMOKE_TRAIN_SENTENCES,
                "eval_sentences": SMOKE_EVAL_SENTENCES,
                "max_steps": SMOKE_STEPS,
                "validate_every": SMOKE_VALIDATE_EVERY,
            }
            smoke = (
                f"smoke: {SMOKE_TRAIN_SENTENCES} training and {SMOKE_EVAL_SENTENCES} dev and test "
                f"sentences, {SMOKE_STEPS} steps (validated every {SMOKE_VALIDATE_EVERY}), one "
                "Winograd run, no CNN or randomized baselines (Figures 2 and 3)"
            )
        experiments = []
        for task in (SUBSTITUTE, *TASKS.values()):
            seeds = range(WINOGRAD_RUNS if task == "winograd" and scale == "paper" else 1)
            departure = "; ".join(part for part in (smoke, _DEPARTURES[task]) if part)
            experiments += [
                Experiment(
                    _name(task, seed), "probe", options | {"task": task, "seed": seed}, departure
                )
                for seed in seeds
            ]
        return experiments

    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        """This run's value of the item's cell (see the module notes)."""
        if item.quantity in ("n_labels", "n_examples", "n_tokens", "n_targets"):
            return _statistic(item)
        unavailable = _unavailable(item.data, runs)
        if unavailable is not None:
            return unavailable
        scores = _scores(runs, TASKS[item.data])
        if item.location.kind == "text":
            return _text_item(item, scores)
        return _table2(item, scores)

    def checks(self) -> Mapping[str, CheckFunction]:
        """Every finding of the paper (see the module notes)."""
        across = {
            "elmo-gpt-comparable": "ELMo with GPT",
            "lexical-beats-glove-except-winograd": "ELMo's and GPT's lexical layers with GloVe",
            "bert-base-beats-gpt": "BERT-base with GPT",
            "bert-large-best": "BERT-large with BERT-base and ELMo",
            "bert-large-coref-gain": "BERT-large with ELMo",
            "gpt-genre-effect-small": "GPT trained on two corpora with ELMo",
        }
        checks: dict[str, CheckFunction] = {
            finding: _across_models(what) for finding, what in across.items()
        }
        return checks | {
            "syntax-more-than-semantics": check_syntax_over_semantics,
            "mix-beats-cat": check_mix_beats_cat,
            "srl-gain-from-core-roles": _needs_ontonotes("SRL's core and non-core roles"),
            "spr-weakly-captured": check_spr_weak,
            "relation-classification-gains": check_relation_gains,
            "orthonormal-encoder-helps": check_orthonormal,
            "cnn-matches-elmo-on-constituents": _needs_ontonotes("constituent labeling"),
            "elmo-holds-up-with-distance": check_distance,
        }


REPRODUCTION = ProbingReproduction()


def _name(task: str, seed: int) -> str:
    """The experiment of ``task`` and seed (``winograd``, ``winograd-seed1``, ...)."""
    return task if seed == 0 else f"{task}-seed{seed}"


# --- measuring an item ---------------------------------------------------------------------------


def _unavailable(data: str, runs: Runs) -> NotMeasured | None:
    """Why the task ``data`` has no value here, or None."""
    if data in TASKS:
        task = TASKS[data]
        return None if task in runs else NotMeasured(f"experiment {task!r} did not run")
    if data == "edges-spr1":
        return NotMeasured(_SPR1)
    if data.startswith("macro average"):
        return NotMeasured(f"{_MACRO}; this run's mean over {_partial_means(runs)}")
    if "ontonotes" in data:
        pos = _substitute(runs) if data == "edges-pos-ontonotes" else ""
        return NotMeasured(_ONTONOTES + pos)
    return NotMeasured(f"a number about {data}, not one task wordlens has")


def _substitute(runs: Runs) -> str:
    """This run's UD EWT POS F1 (another data set), for the reason of an OntoNotes POS item."""
    if SUBSTITUTE not in runs:
        return ""
    f1 = _scores(runs, SUBSTITUTE).f1
    shown = ", ".join(f"{name} {f1[name]:.1f}" for name in ("lex", "cat", "mix") if name in f1)
    return f"; on UD EWT UPOS, another data set (experiment 'pos'), this model's F1: {shown}"


def _partial_means(runs: Runs) -> str:
    """The mean F1 per representation over the tasks that ran, as text."""
    tasks = [_scores(runs, task) for task in TASKS.values() if task in runs]
    if not tasks:
        return "no task"
    names = ", ".join(s.task for s in tasks)
    means = ", ".join(
        f"{name} {sum(s.f1[name] for s in tasks) / len(tasks):.1f}"
        for name in ("lex", "cat", "mix")
        if all(name in s.f1 for s in tasks)
    )
    return f"{names}: {means}"


def _scores(runs: Runs, task: str) -> _Scores:
    """``task``'s F1 x 100 per representation, the mean over its seeds that ran."""
    tables = [
        runs[name].tables["scores"]
        for name in (_name(task, seed) for seed in range(WINOGRAD_RUNS))
        if name in runs
    ]
    if not tables:
        raise KeyError(f"experiment {task!r} did not run")
    joined = pd.concat(tables, ignore_index=True)
    means = joined.groupby("representation")["test_micro_f1"].mean()
    return _Scores(task, {str(k): 100.0 * float(v) for k, v in means.items()}, len(tables))


def _representation(encoder: str, column: str) -> str:
    """This model's representation of the paper's ``encoder`` and ``column`` (lex, full,
    cat, mix)."""
    return FULL.get(encoder, "mix") if column == "full" else column


def _runs_note(scores: _Scores) -> str:
    return f" (mean of {scores.runs} runs)" if scores.runs > 1 else ""


def _table2(item: PublishedItem, scores: _Scores) -> Measured | NotMeasured:
    """Table 2: the F1 of this model's probe, or the difference to its lexical baseline."""
    encoder = str(item.setting["encoder"])
    name = _representation(encoder, str(item.setting["representation"]))
    baseline = item.setting.get("baseline")
    if name not in scores.f1:
        return NotMeasured(f"no {name!r} probe in experiment {scores.task!r}")
    where = f"experiment {scores.task!r}{_runs_note(scores)}"
    if item.quantity == "micro_f1":
        return Measured(
            scores.f1[name], f"test micro-F1 x 100 of this model's {name} probe, {where}"
        )
    if baseline != f"{encoder} lex":
        return NotMeasured(f"compares {encoder} with {baseline}: {_ONE_MODEL}")
    return Measured(
        scores.gain(name),
        f"F1 of this model's {name} probe minus its lex probe ({scores.f1[name]:.1f} - "
        f"{scores.f1['lex']:.1f}), {where}",
    )


def _text_item(item: PublishedItem, scores: _Scores) -> Measured | NotMeasured:
    """A number of the text about one task: ELMo's relative error reduction on SemEval is
    measured (``mix`` over ``lex``); the bag-of-words baseline and the distances the extraction
    lost are not."""
    encoder, baseline = str(item.setting.get("encoder")), str(item.setting.get("baseline"))
    if "bag of words" in encoder:
        return NotMeasured("the bag-of-words baseline is not in wordlens's probe")
    if item.quantity != "error_reduction_pct" or (encoder, baseline) != ("ELMo full", "ELMo lex"):
        return NotMeasured(f"compares {encoder} with {baseline}; not measured ({item.note or ''})")
    lex, mix = scores.f1["lex"], scores.f1["mix"]
    if lex >= 100.0:
        return NotMeasured("the lexical baseline leaves no error to reduce (F1 100)")
    return Measured(
        100.0 * (mix - lex) / (100.0 - lex),
        f"100 x (mix - lex) / (100 - lex) with this model's F1 mix {mix:.1f}, lex {lex:.1f}, "
        f"experiment {scores.task!r}",
    )


@functools.cache
def _task_statistics(task: str) -> dict[str, dict[str, int]]:
    """Per split: sentences, tokens and targets of wordlens's loader; ``labels`` over all."""
    from wordlens.probing.converters import load_probing_task

    statistics: dict[str, dict[str, int]] = {}
    labels: set[str] = set()
    for split in ("train", "dev", "test"):
        examples = load_probing_task(task, split)
        statistics[split] = {
            "n_examples": len(examples),
            "n_tokens": sum(len(e.tokens) for e in examples),
            "n_targets": sum(len(e.targets) for e in examples),
        }
        labels |= {label for e in examples for t in e.targets for label in t.labels}
    statistics["all"] = {"n_labels": len(labels)}
    return statistics


def _statistic(item: PublishedItem) -> Measured | NotMeasured:
    """Table 3 (Appendix B): a count of the task's data as wordlens loads it."""
    if item.data not in TASKS:
        return NotMeasured(_SPR1 if item.data == "edges-spr1" else _ONTONOTES)
    task = TASKS[item.data]
    split = str(item.setting.get("split") or "all")
    try:
        value = _task_statistics(task)[split][item.quantity]
    except WordlensError as error:
        return NotMeasured(f"task {task!r} could not be loaded: {error}")
    where = "labels over its three splits" if split == "all" else f"its {split} split"
    return Measured(float(value), f"wordlens's task {task!r}, {where} ({_DEPARTURES[task]})")


# --- checks --------------------------------------------------------------------------------------


def _across_models(what: str) -> CheckFunction:
    def check(runs: Runs) -> Check:
        return Check(
            "not measurable",
            f"compares {what}; {_ONE_MODEL}. This model's mean F1 over {_partial_means(runs)}",
        )

    return check


def _needs_ontonotes(what: str) -> CheckFunction:
    def check(runs: Runs) -> Check:
        return Check("not measurable", f"{what}: {_ONTONOTES}")

    return check


def _task_scores(runs: Runs, datas: Sequence[str]) -> tuple[dict[str, _Scores], list[str]]:
    """The scores of the tasks of ``datas`` that ran, and the ones that did not (named)."""
    found, absent = {}, []
    for data in datas:
        task = TASKS.get(data)
        if task is not None and task in runs:
            found[data] = _scores(runs, task)
        else:
            absent.append(data)
    return found, absent


def _parts(failed: Sequence[str], passed: Sequence[str], unmeasured: Sequence[str]) -> Check:
    """A claim of several parts: does not hold if one fails, holds if all are measured and
    hold, else not measurable."""
    texts = (
        ("fails: ", failed),
        ("holds: ", passed),
        ("not measured: ", unmeasured),
    )
    evidence = "; ".join(head + ", ".join(parts) for head, parts in texts if parts)
    if failed:
        return Check("does not hold", evidence)
    return Check("not measurable" if unmeasured else "holds", evidence)


def check_syntax_over_semantics(runs: Runs) -> Check:
    """Conclusion: the gain over the lexical baseline (``mix - lex``) is larger on every
    syntactic task (constituents, dependencies) than on every semantic one (SPR1, SPR2,
    Winograd, OntoNotes coreference)."""
    syntactic, absent_syntactic = _task_scores(runs, SYNTACTIC)
    semantic, absent_semantic = _task_scores(runs, SEMANTIC)
    failed: list[str] = []
    passed: list[str] = []
    for high in syntactic.values():
        for low in semantic.values():
            text = f"{high.task} +{high.gain('mix'):.1f} > {low.task} +{low.gain('mix'):.1f}"
            (passed if high.gain("mix") > low.gain("mix") else failed).append(text)
    return _parts(failed, passed, [*absent_syntactic, *absent_semantic])


def _average_gain(runs: Runs, representation: str, baseline: str) -> tuple[float, str]:
    """The mean over the tasks that ran of ``representation - baseline`` (F1 points)."""
    tasks = [_scores(runs, task) for task in TASKS.values() if task in runs]
    tasks = [s for s in tasks if representation in s.f1 and baseline in s.f1]
    if not tasks:
        return math.nan, f"no task has a {representation} and a {baseline} probe"
    gains = [s.gain(representation, baseline) for s in tasks]
    parts = ", ".join(f"{s.task} {gain:+.1f}" for s, gain in zip(tasks, gains, strict=True))
    mean = sum(gains) / len(gains)
    return (
        mean,
        f"{representation} - {baseline}: mean {mean:+.1f} over {len(tasks)} tasks ({parts})",
    )


def _on_average(mean: float, text: str, holds: bool) -> Check:
    note = " (the paper averages its ten tasks; the OntoNotes ones and SPR1 are not here)"
    if math.isnan(mean):
        return Check("not measurable", text)
    return Check("holds" if holds else "does not hold", text + note)


def check_mix_beats_cat(runs: Runs) -> Check:
    """Section 5: the scalar mix beats ``cat`` on average over the tasks."""
    mean, text = _average_gain(runs, "mix", "cat")
    return _on_average(mean, text, mean > 0)


def check_spr_weak(runs: Runs) -> Check:
    """Section 5: the gain on SPR1 and SPR2 is small, at most :data:`WEAK_GAIN` F1 points."""
    found, absent = _task_scores(runs, ("edges-spr1", "edges-spr2"))
    failed: list[str] = []
    passed: list[str] = []
    for scores in found.values():
        text = f"{scores.task} mix - lex {scores.gain('mix'):+.1f} (weak: <= {WEAK_GAIN:g})"
        (passed if scores.gain("mix") <= WEAK_GAIN else failed).append(text)
    return _parts(failed, passed, absent)


def check_relation_gains(runs: Runs) -> Check:
    """Section 5: relation classification gains a lot from context (its ``mix - lex`` above
    the mean over the tasks), largely from key words (the bag-of-words baseline, not here)."""
    found, absent = _task_scores(runs, ("edges-rel-semeval",))
    mean, text = _average_gain(runs, "mix", "lex")
    if absent or math.isnan(mean):
        return Check("not measurable", f"experiment 'rel' did not run; {text}")
    gain = found["edges-rel-semeval"].gain("mix")
    part = [f"rel mix - lex {gain:+.1f} vs the {text}"]
    bow = ["the bag-of-words baseline (not in wordlens's probe)"]
    return _parts([], part, bow) if gain > mean else _parts(part, [], bow)


def check_orthonormal(runs: Runs) -> Check:
    """Figure 2, on average over the tasks: the randomized encoder (``random-mix``) beats the
    lexical baseline, and the trained weights account for most of the gain (``mix -
    random-mix`` > ``random-mix - lex``)."""
    random, random_text = _average_gain(runs, "random-mix", "lex")
    learned, learned_text = _average_gain(runs, "mix", "random-mix")
    if math.isnan(random) or math.isnan(learned):
        return Check("not measurable", f"{random_text}; {learned_text}")
    failed: list[str] = []
    passed: list[str] = []
    (passed if random > 0 else failed).append(random_text)
    (passed if learned > random else failed).append(f"{learned_text} > the randomized gain")
    check = _parts(failed, passed, [])
    note = " (the paper averages its ten tasks; the OntoNotes ones and SPR1 are not here)"
    return Check(check.verdict, check.evidence + note)


def _distance_drop(by_distance: pd.DataFrame, representation: str) -> tuple[float, str]:
    """F1 x 100 in the shortest minus in the longest distance bin with targets."""
    rows = by_distance[
        (by_distance["representation"] == representation) & (by_distance["n_targets"] > 0)
    ].sort_values("distance_low")
    if len(rows) < 2:
        return math.nan, f"{representation}: no probe scored in two distance bins"
    first, last = rows.iloc[0], rows.iloc[-1]
    drop = 100.0 * (float(first["micro_f1"]) - float(last["micro_f1"]))
    return drop, (
        f"{representation} {100 * first['micro_f1']:.1f} (distance {first['bin']}) to "
        f"{100 * last['micro_f1']:.1f} ({last['bin']}): drop {drop:.1f}"
    )


def check_distance(runs: Runs) -> Check:
    """Figure 3, dependency labeling: the F1 of ``mix`` falls less from the shortest to the
    longest head distance than that of each of ``cnn3``, ``cnn5`` and ``random-mix``."""
    if "dep" not in runs:
        return Check("not measurable", "experiment 'dep' did not run")
    by_distance = runs["dep"].tables["by_distance"]
    full, full_text = _distance_drop(by_distance, "mix")
    failed: list[str] = []
    passed: list[str] = []
    unmeasured: list[str] = []
    for baseline in BASELINES:
        drop, text = _distance_drop(by_distance, baseline)
        if math.isnan(drop) or math.isnan(full):
            unmeasured.append(text)
        else:
            (passed if drop > full else failed).append(text)
    check = _parts(failed, passed, unmeasured)
    return Check(check.verdict, f"{full_text}; baselines {check.evidence}")
