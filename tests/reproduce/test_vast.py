"""Reproducing VAST (wordlens.reproduce.vast) at smoke scale on SmolLM2-135M and GloVe: every
published item has one row, measured values equal the method's own tables read here directly,
the findings follow the tables, and the layer mapping and the sample files behave."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wordlens.errors import WordlensError
from wordlens.methods.vast.config import VastConfig
from wordlens.models.options import ModelOptions
from wordlens.options import config_from_values
from wordlens.reproduce.base import (
    VERDICTS,
    Cells,
    Check,
    CheckFunction,
    Measured,
    NotMeasured,
    Reproduction,
    Runs,
    Source,
    TableCheck,
    requiring_intervals,
)
from wordlens.reproduce.published import load_published
from wordlens.reproduce.runner import _findings, _row, location_text, reproduce
from wordlens.reproduce.vast import (
    REPRODUCTION,
    SMOKE_LEXICON_WORDS,
    SMOKE_TOKENIZATION_WORDS,
    depth_layer,
    smoke_inputs,
)
from wordlens.resources import load_lexicon
from wordlens.results import Run

PAPER = load_published("vast")
CHECKS = REPRODUCTION.checks()


@dataclass(frozen=True)
class Done:
    """A reproduction and the directory it was written to."""

    reproduction: Reproduction
    out: Path

    def measured(self, item: str) -> float:
        table = self.reproduction.table
        row = table[table["item"] == item]
        assert len(row) == 1
        return float(row["measured"].iloc[0])

    def uncertainty(self, item: str) -> float:
        table = self.reproduction.table
        return float(table.loc[table["item"] == item, "uncertainty"].iloc[0])

    def note(self, item: str) -> str:
        table = self.reproduction.table
        return str(table.loc[table["item"] == item, "note"].iloc[0])

    def verdict(self, finding: str) -> str:
        findings = self.reproduction.findings
        return str(findings.loc[findings["finding"] == finding, "verdict"].iloc[0])

    def read(self, experiment: str, table: str) -> pd.DataFrame:
        """A table of an experiment, read from its parquet file (not through the module)."""
        return pd.read_parquet(self.out / experiment / f"vast_{table}.parquet")

    def runs(self) -> dict[str, Run]:
        """The experiments' runs read back from disk (copies the test may change)."""
        return {name: Run.read(self.out / name) for name in ("vast", "tokenization", "bias")}


def _reproduce(model: str, factory: pytest.TempPathFactory) -> Done:
    out = factory.mktemp(f"vast-{model}")
    return Done(reproduce("vast", ModelOptions(model), out, scale="smoke"), out)


@pytest.fixture(scope="module")
def smollm2_done(tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Done:
    return _reproduce("smollm2-135m", tmp_path_factory)


@pytest.fixture(scope="module")
def glove_done(tmp_path_factory: pytest.TempPathFactory, shared: Path) -> Done:
    return _reproduce("glove-6b-50d", tmp_path_factory)


def _bellezza(layers: pd.DataFrame, setting: str, layer: int) -> float:
    row = layers[
        (layers["lexicon"] == "bellezza-sample")
        & (layers["dimension"] == "valence")
        & (layers["pooling"] == "last")
        & (layers["setting"] == setting)
        & (layers["layer"] == layer)
    ]
    assert len(row) == 1
    return float(row["r"].iloc[0])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["smollm2_done", "glove_done"])
def test_every_item_has_one_row_and_every_finding_a_verdict(
    name: str, request: pytest.FixtureRequest
) -> None:
    done: Done = request.getfixturevalue(name)
    assert not done.reproduction.failures
    written = pd.read_parquet(done.out / "reproduction.parquet")
    assert written["item"].tolist() == [item.id for item in PAPER.items]
    for item in PAPER.items:
        row = written[written["item"] == item.id]
        assert len(row) == 1 and row["location"].iloc[0] == location_text(item)
        assert row["note"].iloc[0], item.id  # measured or not, the row says how or why
    findings = pd.read_parquet(done.out / "findings.parquet")
    assert findings["finding"].tolist() == [finding.id for finding in PAPER.findings]
    assert set(findings["verdict"]) <= set(VERDICTS)
    assert findings["evidence"].str.len().gt(0).all()
    assert (done.out / "report.html").is_file()


@pytest.mark.slow
def test_smollm2_values_equal_the_methods_tables(smollm2_done: Done) -> None:
    """Table 1, a layer-11 score, a layer-8 spread, the multiply tokenized layer-8 score and
    the WEAT count, each recomputed here from the experiments' parquet files."""
    done = smollm2_done
    layers = done.read("vast", "layers")
    assert layers["layer"].max() == 30  # SmolLM2: 30 layers; GPT-2's 8 is 20, 11 is 28 (27.5)
    assert done.measured("table1-before-bleached") == _bellezza(layers, "bleached", 30)
    assert done.measured("text-layer11-random") == _bellezza(layers, "random", 28)
    spread = [_bellezza(layers, s, 20) for s in ("bleached", "misaligned", "random")]
    assert done.measured("text-layer8-settings-within-01-bellezza") == pytest.approx(
        max(spread) - min(spread), abs=1e-15
    )
    sweep = done.read("vast", "nullification")
    after = sweep[
        (sweep["lexicon"] == "bellezza-sample")
        & (sweep["dimension"] == "valence")
        & (sweep["setting"] == "aligned")
        & (sweep["layer"] == 30)
        & (sweep["representation"] == "nullified")
        & (sweep["k"] == 8)
    ]
    assert done.measured("table1-after-aligned") == float(after["r"].iloc[0])
    # the cell's uncertainty: half its Fisher-z interval
    half = (float(after["ci_high"].iloc[0]) - float(after["ci_low"].iloc[0])) / 2
    assert done.uncertainty("table1-after-aligned") == pytest.approx(half)
    tokenization = done.read("tokenization", "tokenization")
    multiply = tokenization[
        (tokenization["words"] == "multiply tokenized")
        & (tokenization["pooling"] == "last")
        & (tokenization["layer"] == 20)
    ]
    assert done.measured("text-multiply-tokenized-layer8") == float(multiply["r"].iloc[0])
    weat = done.read("bias", "weat")
    top = weat[weat["layer"] == 30]
    raw = top[top["representation"] == "raw"].set_index("test")["effect_size"]
    nulled = top[(top["representation"] == "nullified") & (top["k_nullified"] == 8)]
    larger = nulled.set_index("test")["effect_size"] > raw.loc[nulled["test"]].to_numpy()
    assert len(larger) == 10
    assert done.measured("text-weat-tests-more-biased") == int(larger.sum())
    # the count's uncertainty: the tests whose change is within the two d's bootstrap
    # half-widths (in quadrature) could go either way
    before = top[top["representation"] == "raw"].set_index("test").loc[nulled["test"]]
    after_tests = nulled.set_index("test")
    change = after_tests["effect_size"] - before["effect_size"]
    spread = np.hypot(
        (after_tests["effect_size_ci_high"] - after_tests["effect_size_ci_low"]) / 2,
        (before["effect_size_ci_high"] - before["effect_size_ci_low"]) / 2,
    )
    sure, possible = int((change > spread).sum()), int((change + spread > 0).sum())
    count = int(larger.sum())
    assert done.uncertainty("text-weat-tests-more-biased") == max(count - sure, possible - count)
    assert done.measured("text-bellezza-size") == 399 and done.measured("text-ws353-size") == 353
    # counts of the full Warriner lexicon are not claimed from a sample
    assert pd.isna(done.measured("text-warriner-singly-tokenized"))
    assert f"sample of {SMOKE_TOKENIZATION_WORDS}" in done.note("text-warriner-singly-tokenized")


@pytest.mark.slow
def test_singly_tokenized_words_do_not_peak_at_layer_0_in_smollm2(smollm2_done: Done) -> None:
    """A finding that fails on a real model: SmolLM2's singly tokenized Warriner words score
    far higher in the middle layers than in layer 0 (GPT-2: highest in layer 0)."""
    done = smollm2_done
    assert done.verdict("singly-tokenized-encoded-early") == "does not hold"
    tokenization = done.read("tokenization", "tokenization")
    single = tokenization[
        (tokenization["words"] == "singly tokenized") & (tokenization["pooling"] == "last")
    ]
    assert single["r"].max() > single.loc[single["layer"] == 0, "r"].iloc[0] + 0.1
    # causal model: the autoencoder claim is not measurable here
    assert done.verdict("autoencoders-diverge-from-first-layer") == "not measurable"


def _set(table: pd.DataFrame, where: pd.Series, column: str, value: float) -> pd.DataFrame:
    changed = table.copy()
    changed.loc[where, column] = value
    return changed


def _run_check(finding: str) -> CheckFunction:
    check = CHECKS[finding]
    assert not isinstance(check, TableCheck), finding
    return check


def _measured_cells(runs: Runs) -> Cells:
    """The measured column of the reproduction table, built from ``runs`` as the runner does."""
    measured = [REPRODUCTION.measure(item, runs) for item in PAPER.items]
    table = pd.DataFrame(
        {
            "item": [item.id for item in PAPER.items],
            "measured": [m.value if isinstance(m, Measured) else math.nan for m in measured],
            "uncertainty": [
                m.uncertainty if isinstance(m, Measured) else math.nan for m in measured
            ],
        }
    )
    return Cells.measured(PAPER, table)


@pytest.mark.slow
def test_verdicts_follow_the_tables(smollm2_done: Done) -> None:
    """Change a copy of a run's table and the verdict (and a measured value) follows."""
    runs: Runs = smollm2_done.runs()
    tokenization = runs["tokenization"]
    singly = _run_check("singly-tokenized-encoded-early")
    assert singly(runs).verdict == smollm2_done.verdict("singly-tokenized-encoded-early")
    assert singly(runs).margin < 0  # layer 0 below the middle layers
    table = tokenization.tables["tokenization"]
    layer0 = (table["words"] == "singly tokenized") & (table["layer"] == 0)
    changed = copy.copy(tokenization)
    changed.tables = {**tokenization.tables, "tokenization": _set(table, layer0, "r", 0.99)}
    assert singly({**runs, "tokenization": changed}).verdict == "holds"
    vast = runs["vast"]
    sweep = vast.tables["nullification"]
    top8 = (sweep["layer"] == 30) & (sweep["k"] == 8) & (sweep["representation"] == "nullified")
    recovers = CHECKS["nullifying-top-pcs-recovers-semantics"]
    assert isinstance(recovers, TableCheck)
    for r, verdict in ((0.95, "holds"), (-0.95, "does not hold")):
        run = copy.copy(vast)
        changed_sweep = _set(sweep, top8, "r", r)  # with a narrow interval, as at r = ±.95
        changed_sweep = _set(changed_sweep, top8, "ci_low", r - 0.02)
        changed_sweep = _set(changed_sweep, top8, "ci_high", r + 0.02)
        run.tables = {**vast.tables, "nullification": changed_sweep}
        check = recovers.check(_measured_cells({**runs, "vast": run}))
        assert check.verdict == verdict
        assert check.evidence.count(f"-> {'.95' if r > 0 else '-.95'}") == 4  # four settings
        assert check.uncertainty > 0.02  # the raw cells' Fisher-z intervals count too
        measured = REPRODUCTION.measure(PAPER.item("table1-after-bleached"), {**runs, "vast": run})
        assert isinstance(measured, Measured) and measured.value == r
    without = {name: run for name, run in runs.items() if name != "bias"}
    absent = REPRODUCTION.measure(PAPER.item("text-weat-tests-more-biased"), without)
    assert not isinstance(absent, Measured) and "'bias' did not run" in absent.reason
    bias = CHECKS["nullifying-exposes-bias"]
    assert isinstance(bias, TableCheck)
    assert bias.check(_measured_cells(without)).verdict == "not measurable"


@pytest.mark.slow
def test_glove_by_layer_findings_are_not_measurable(glove_done: Done) -> None:
    """A static model has one layer and no context: by-layer and contextual findings are not
    measurable; its one layer stands for the top (Table 1, bleached) and ValNorm is measured."""
    done = glove_done
    for finding in (
        "layer8-encodes-word-semantics",
        "settings-diverge-in-upper-layers",
        "singly-tokenized-encoded-early",
        "multiply-tokenized-encoded-late",
        "context-matters-after-nullifying",
        "top-pcs-of-prior-word-predict-pos",
    ):
        assert done.verdict(finding) == "not measurable", finding
    # measured on the bleached setting, the only one a static model runs (60 words at smoke
    # scale: the verdict may be inconclusive within the Fisher-z intervals)
    assert done.verdict("nullifying-top-pcs-recovers-semantics") != "not measurable"
    layers = done.read("vast", "layers")
    bellezza = layers[(layers["lexicon"] == "bellezza-sample") & (layers["layer"] == 0)]
    assert done.measured("table1-before-bleached") == float(bellezza["r"].iloc[0])
    assert done.measured("text-valnorm-static-best") >= float(bellezza["r"].iloc[0])
    for item in (
        "table1-before-aligned",
        "text-layer11-bleached",
        "text-multiply-tokenized-layer8",
    ):
        assert pd.isna(done.measured(item)) and "static" in done.note(item)


def test_layers_at_the_same_relative_depth() -> None:
    assert depth_layer(8, 30) == 20 and depth_layer(11, 30) == 28  # 27.5 rounds up
    assert depth_layer(5, 30) == 13 and depth_layer(12, 30) == 30 and depth_layer(0, 30) == 0
    assert depth_layer(8, 6) == 4 and depth_layer(8, 12) == 8 and depth_layer(8, 0) == 0


def test_experiments_at_both_scales(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same three experiments at both scales, the authors' conventions; smoke only shrinks
    samples, and says so."""
    monkeypatch.setenv("WORDLENS_HOME", str(tmp_path))
    paper, smoke = REPRODUCTION.experiments("paper"), REPRODUCTION.experiments("smoke")
    assert [e.name for e in paper] == [e.name for e in smoke] == ["vast", "tokenization", "bias"]
    for experiment in (*paper, *smoke):
        assert experiment.method == "vast" and experiment.options["conventions"] == "paper"
    assert "pc_population" not in paper[0].options and paper[0].options["weat"] is False
    assert paper[2].departure == "" and "Reddit" in paper[0].departure
    assert all(e.departure.startswith("smoke:") for e in smoke)
    for experiment in (*paper, *smoke):  # every option valid, checked as before a run
        config_from_values(VastConfig, experiment.options)
    assert smoke[0].options["lexica"][0] == str(
        tmp_path / "reproduce/vast-smoke/bellezza-sample.csv"
    )


def test_smoke_samples_are_seeded_and_nested(tmp_path: Path) -> None:
    first = smoke_inputs(tmp_path)
    stamp = first.tokenization.stat().st_mtime_ns
    again = smoke_inputs(tmp_path)
    assert again == first and first.tokenization.stat().st_mtime_ns == stamp  # not rewritten
    sample = pd.read_csv(first.lexica[2], keep_default_na=False, dtype={"word": str})
    larger = pd.read_csv(first.tokenization, keep_default_na=False, dtype={"word": str})
    assert len(sample) == SMOKE_LEXICON_WORDS and len(larger) == SMOKE_TOKENIZATION_WORDS
    assert set(sample["word"]) <= set(larger["word"])
    warriner = load_lexicon("warriner").data.set_index("word")["valence"]
    assert (warriner.loc[sample["word"]].to_numpy() == sample["valence"].to_numpy()).all()
    assert first.tokenization.name == "warriner.csv"  # the tokenization experiment's name


def test_smoke_samples_in_an_unwritable_home(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    with pytest.raises(WordlensError, match="set WORDLENS_HOME to a writable directory"):
        smoke_inputs(blocked / "vast-smoke")


def test_names_in_the_tables_at_both_scales() -> None:
    from wordlens.reproduce.vast import named

    assert named(pd.Series(["bellezza", "anew"]), "anew") == "anew"
    assert named(pd.Series(["anew-sample", "warriner"]), "anew") == "anew-sample"
    with pytest.raises(KeyError, match="no 'men' rows"):
        named(pd.Series(["ws353-sample", "mens"]), "men")


# --- the findings' checks on printed values (no model: the paper's own numbers, perturbed) ------


def _cells(
    changes: dict[str, float] | None = None,
    uncertainties: dict[str, float] | None = None,
    source: Source = "published",
) -> Cells:
    """The paper's published values with ``changes``; uncertainty 0 except ``uncertainties``."""
    values = {item.id: item.value for item in PAPER.items} | (changes or {})
    spread = dict.fromkeys(values, 0.0) | (uncertainties or {})
    return Cells(source, PAPER, values, spread)


def _table_check(finding: str) -> TableCheck:
    check = CHECKS[finding]
    assert isinstance(check, TableCheck), finding
    return check


def _verdict_of(finding: str, cells: Cells) -> Check:
    return _table_check(finding).check(cells)


def test_findings_rest_on_the_printed_cells_or_name_their_figure() -> None:
    """Findings with printed numbers are checks over those cells; the others say what they rest
    on (Figure 2 for the tokenization curves, prose for the autoencoder and POS claims)."""
    printed = {finding for finding, check in CHECKS.items() if isinstance(check, TableCheck)}
    assert printed == {
        "layer8-encodes-word-semantics",
        "settings-diverge-in-upper-layers",
        "nullifying-top-pcs-recovers-semantics",
        "context-matters-after-nullifying",
        "few-neurons-dominate-top-layer",
        "beats-prior-word-similarity",
        "nullifying-exposes-bias",
    }
    basis = REPRODUCTION.basis()
    assert set(basis) == set(CHECKS) - printed
    assert basis["last-subtoken-beats-mean"] == "Figure 2"
    assert basis["autoencoders-diverge-from-first-layer"].startswith("prose")
    assert _table_check("nullifying-top-pcs-recovers-semantics").rests_on(PAPER) == (
        "Table 1 (8 cells)"
    )


def test_layer8_check_requires_the_peak_at_layer_8() -> None:
    """The audit: agreeing within .01 at depth 8 is not enough, layer 8 must be where the
    semantics peaks ('best encodes'). The paper's values hold; a model whose settings agree at
    depth 8 but peak at depth 11 does not; a peak the run cannot place is inconclusive."""
    finding = "layer8-encodes-word-semantics"
    paper = _verdict_of(finding, _cells())
    assert paper.verdict == "holds" and paper.margin == pytest.approx(0.005)
    assert "'layer 8 of GPT-2 best encodes word-level semantics'" in paper.evidence
    elsewhere = _verdict_of(finding, _cells({"text-gpt2-best-layer": 11.0}))
    assert elsewhere.verdict == "does not hold" and elsewhere.margin == pytest.approx(-2.5)
    assert "GPT-2's 11.0" in elsewhere.evidence
    near = _verdict_of(finding, _cells({"text-gpt2-best-layer": 8.4}))  # rounds to 8
    assert near.verdict == "holds"
    vague = _cells({"text-gpt2-best-layer": 8.0}, {"text-gpt2-best-layer": 1.0}, "measured")
    assert _verdict_of(finding, vague).verdict == "inconclusive"  # layers 7-9 tied
    apart = _verdict_of(finding, _cells({"text-layer8-settings-within-01-warriner": 0.03}))
    assert apart.verdict == "does not hold" and apart.margin == pytest.approx(-0.015)


def test_upper_layer_divergence_on_the_papers_values() -> None:
    finding = "settings-diverge-in-upper-layers"
    assert _verdict_of(finding, _cells()).margin == pytest.approx(0.04)  # .76 - .72
    swapped = _cells({"text-layer11-misaligned": 0.75})
    assert _verdict_of(finding, swapped).verdict == "does not hold"
    flat = {f"text-layer11-{setting}": 0.76 for setting in ("random", "aligned", "misaligned")}
    assert _verdict_of(finding, _cells(flat)).verdict == "does not hold"


def test_table1_checks_on_the_papers_values() -> None:
    recovers = "nullifying-top-pcs-recovers-semantics"
    assert _verdict_of(recovers, _cells()).margin == pytest.approx(0.4)  # misaligned .14 -> .54
    fell = _verdict_of(recovers, _cells({"table1-after-random": 0.10}))
    assert fell.verdict == "does not hold" and "random .17 -> .10" in fell.evidence
    noisy = _cells(uncertainties={"table1-before-random": 0.3, "table1-after-random": 0.3})
    assert _verdict_of(recovers, noisy).verdict == "inconclusive"  # .41 within .42
    static = {
        item.id: math.nan
        for item in PAPER.items
        if item.id.startswith("table1-") and not item.id.endswith("bleached")
    }
    alone = _verdict_of(recovers, _cells(static, source="measured"))
    assert alone.verdict == "holds" and "(random, aligned, misaligned not measured)" in (
        alone.evidence
    )
    context = "context-matters-after-nullifying"
    assert _verdict_of(context, _cells()).margin == pytest.approx(0.85 - 0.54 - 0.015)
    close = _cells({"table1-after-misaligned": 0.84})
    assert _verdict_of(context, close).verdict == "does not hold"  # within .01: no context


def test_similarity_is_judged_against_prior_works_printed_best() -> None:
    """Prior work's numbers are not measured (NaN on the measured column): the bar is the
    printed one on both columns."""
    finding = "beats-prior-word-similarity"
    prior = {"text-ws353-prior-best": math.nan, "text-simlex999-prior-best": math.nan}
    ours = {"text-ws353-layer8": 0.70, "text-simlex999-layer8": 0.40}
    below = _verdict_of(finding, _cells(prior | ours, {"text-simlex999-layer8": 0.02}, "measured"))
    assert below.verdict == "does not hold" and "simlex999 .40 ± .02 vs .45" in below.evidence
    level = _cells(prior | {"text-simlex999-layer8": 0.46}, {"text-simlex999-layer8": 0.05})
    assert _verdict_of(finding, level).verdict == "inconclusive"


def test_counts_of_the_text() -> None:
    assert _verdict_of("nullifying-exposes-bias", _cells()).margin == 0.5  # 8 of 10
    seven = _cells({"text-weat-tests-more-biased": 7.0}, source="measured")
    assert _verdict_of("nullifying-exposes-bias", seven).verdict == "does not hold"
    unmeasured = _cells({"text-top-layer-dominant-neurons": math.nan}, source="measured")
    assert _verdict_of("few-neurons-dominate-top-layer", unmeasured).verdict == "not measurable"
    many = _cells({"text-top-layer-dominant-neurons": 40.0})
    assert _verdict_of("few-neurons-dominate-top-layer", many).verdict == "does not hold"


def _encoder_run(spreads: dict[str, list[float]], half: float = 0.005) -> Runs:
    """A masked LM's ``vast`` run with 6 layers whose bleached, misaligned and random scores
    spread by ``spreads[lexicon][layer - 1]`` (the same at layer 0), each ±``half``."""
    rows = []
    for lexicon, gaps in spreads.items():
        for layer, gap in enumerate([0.0, *gaps]):
            for setting, r in zip(
                ("bleached", "misaligned", "random"), (0.6, 0.6 - gap, 0.6), strict=True
            ):
                rows.append(
                    {
                        "lexicon": lexicon,
                        "dimension": "valence",
                        "pooling": "last",
                        "setting": setting,
                        "layer": layer,
                        "r": r,
                        "ci_low": r - half,
                        "ci_high": r + half,
                    }
                )
    metadata = {"model": {"kind": "masked"}, "top_layer": 6, "poolings_run": ["last"]}
    return {"vast": Run("vast", {"layers": pd.DataFrame(rows)}, metadata)}


def test_autoencoders_must_diverge_in_every_layer_and_lexicon() -> None:
    """The audit: a spread above .01 in any one lexicon at layer 1 passed. The paper contrasts
    autoencoders, where 'settings diverge ... from the first layer', with the causal LMs'
    'convergence followed by divergence': the settings must be apart (beyond the printed .01) in
    every layer from 1 and every lexicon."""
    check = CHECKS["autoencoders-diverge-from-first-layer"]
    assert not isinstance(check, TableCheck)
    apart = dict.fromkeys(("bellezza", "anew", "warriner"), [0.10] * 6)
    holds = check(_encoder_run(apart))
    assert holds.verdict == "holds" and holds.margin == pytest.approx(0.085)
    # diverged at layer 1 in Bellezza only, converged elsewhere: passed the old check
    one = {**dict.fromkeys(("anew", "warriner"), [0.0] * 6), "bellezza": [0.10] * 6}
    assert check(_encoder_run(one)).verdict == "does not hold"
    # diverged at layer 1 in every lexicon, then converging in a middle layer (a causal LM's
    # pattern): passed the old check
    converging = dict.fromkeys(
        ("bellezza", "anew", "warriner"), [0.10, 0.05, 0.0, 0.05] + [0.1] * 2
    )
    failed = check(_encoder_run(converging))
    assert failed.verdict == "does not hold" and "at layer 3" in failed.evidence
    noisy = check(_encoder_run(dict.fromkeys(("bellezza", "anew", "warriner"), [0.03] * 6), 0.02))
    assert noisy.verdict == "inconclusive"  # .015 past the bar, ±.028


def _lexicon_population_runs(raw: float, after: float) -> dict[str, Run]:
    """A smoke-like ``vast`` run (PCs fitted on the Bellezza sample and the polar words, 110
    vectors) with Bellezza's bleached top-layer r raw and with 8 PCs nullified, and a ``bias``
    run fitted on the same population."""
    cell = {"lexicon": "bellezza-sample", "dimension": "valence", "setting": "bleached"}
    layers = pd.DataFrame(
        [
            {
                **cell,
                "pooling": "last",
                "layer": 6,
                "r": raw,
                "ci_low": raw - 0.1,
                "ci_high": raw + 0.1,
            }
        ]
    )
    nullification = pd.DataFrame(
        [
            {
                **cell,
                "layer": 6,
                "representation": "nullified",
                "k": k,
                "r": r,
                "ci_low": r - 0.1,
                "ci_high": r + 0.1,
            }
            for k, r in ((0, raw), (8, after))
        ]
    )
    population = {"name": "lexicon", "n_rows": {"bellezza-sample": 110}}
    metadata = {
        "model": {"kind": "causal"},
        "top_layer": 6,
        "poolings_run": ["last"],
        "pc_population": population,
    }
    tables = {"layers": layers, "nullification": nullification}
    return {
        "vast": Run("vast", tables, metadata),
        "bias": Run("vast", {}, metadata),
    }


def test_nullification_verdicts_say_their_pcs_are_fitted_on_the_scored_words() -> None:
    """At smoke scale the PCs are fitted on the 110 Bellezza and polar vectors that are scored:
    r falls as PCs are nullified (a smoke run: .76 raw, -.44 after 8), and the four findings on
    nullified vectors say so; the authors' population gives no caveat."""
    runs = _lexicon_population_runs(0.76, -0.44)
    caveats = REPRODUCTION.caveats(runs)
    assert set(caveats) == {
        "nullifying-top-pcs-recovers-semantics",
        "context-matters-after-nullifying",
        "beats-prior-word-similarity",
        "nullifying-exposes-bias",
    }
    recovers = caveats["nullifying-top-pcs-recovers-semantics"]
    assert "fitted on the 110 vectors of the scored Bellezza sample" in recovers
    assert "(Bellezza, bleached, top layer: r +0.76 raw, -0.44 with 8 PCs nullified)" in recovers
    assert "r +0.76" not in caveats["nullifying-exposes-bias"]  # the bias run has no r table
    authors = {
        name: Run(run.method, run.tables, {**run.metadata, "pc_population": {"name": "authors"}})
        for name, run in runs.items()
    }
    assert REPRODUCTION.caveats(authors) == {}
    # the runner puts the caveat after the verdict's evidence
    paper = load_published("vast")
    after = {"table1-after-aligned": 0.85, "table1-after-misaligned": 0.54}
    table = pd.DataFrame(
        [
            _row(
                "vast",
                item,
                Measured(after[item.id], "", 0.01) if item.id in after else NotMeasured("no"),
                "gpt2",
                {},
                "",
            )
            for item in paper.items
        ]
    )
    findings = _findings(paper, REPRODUCTION, runs, table, "smoke", "gpt2").set_index("finding")
    assert findings.loc["context-matters-after-nullifying", "verdict"] == "holds"
    evidence = str(findings.loc["context-matters-after-nullifying", "evidence"])
    assert evidence.endswith(f"; {recovers}")
    assert "measured on" not in evidence  # GPT-2's finding, run on GPT-2


def test_the_count_of_more_biased_tests_carries_the_tests_it_cannot_tell() -> None:
    """Text: '8 of 10 bias tests ... higher bias effect sizes'. A test's change (d with 8 PCs
    nullified minus raw, top layer) within the two d's bootstrap half-widths in quadrature
    could go either way: the count's uncertainty is how far that moves it."""
    changes = [0.5, 0.4, 0.3, 0.05, 0.02, -0.03, 0.6, 0.45, -0.5, 0.35]  # 8 rise
    half = 0.1  # each d ± 0.1: a change within ± 0.141 is undecided
    rows = []
    for test, change in enumerate(changes, start=1):
        for representation, k, d in (("raw", 0, 0.5), ("nullified", 8, 0.5 + change)):
            rows.append(
                {
                    "test": test,
                    "layer": 6,
                    "representation": representation,
                    "k_nullified": k,
                    "effect_size": d,
                    "effect_size_ci_low": d - half,
                    "effect_size_ci_high": d + half,
                }
            )
    metadata = {"model": {"kind": "causal"}, "top_layer": 6}
    runs = {"bias": Run("vast", {"weat": pd.DataFrame(rows)}, metadata)}
    item = load_published("vast").item("text-weat-tests-more-biased")
    measured = REPRODUCTION.measure(item, runs)
    assert isinstance(measured, Measured)
    undecided = sum(abs(c) <= math.hypot(half, half) for c in changes)  # 0.05, 0.02, -0.03
    assert (measured.value, undecided) == (8, 3)
    # sure: 6 beyond their interval; possibly: 6 + the 3 undecided = 9
    assert measured.uncertainty == max(8 - 6, 9 - 8)
    cells = replace(
        Cells.published(load_published("vast")),
        values={"text-weat-tests-more-biased": 8.0},
        uncertainties={"text-weat-tests-more-biased": measured.uncertainty},
    )
    check = _table_check("nullifying-exposes-bias").check(cells)
    assert check.verdict == "inconclusive" and check.margin == 0.5
    # without the interval columns, no uncertainty (inconclusive at smoke scale)
    bare = pd.DataFrame(rows).drop(columns=["effect_size_ci_low", "effect_size_ci_high"])
    old = REPRODUCTION.measure(item, {"bias": Run("vast", {"weat": bare}, metadata)})
    assert isinstance(old, Measured) and math.isnan(old.uncertainty)


def _pos_run(gains: dict[tuple[str, int], float], half: float, *, intervals: bool = True) -> Runs:
    """A ``vast`` run whose top-PC POS probes score 0.5 from the last word and ``0.5 + gain``
    from the previous word, each ± ``half`` (without the interval columns: an older run)."""
    rows = [
        {
            "task": task,
            "source": source,
            "representation": "top_pcs",
            "k": k,
            "f1_weighted": f1,
            "f1_ci_low": f1 - half,
            "f1_ci_high": f1 + half,
            "n_test": 354,
        }
        for (task, k), gain in gains.items()
        for source, f1 in (("last_word", 0.5), ("previous_word", 0.5 + gain))
    ]
    table = pd.DataFrame(rows)
    if not intervals:
        table = table.drop(columns=["f1_ci_low", "f1_ci_high"])
    return {"vast": Run("vast", {"pos": table}, {"model": {"kind": "causal"}})}


def test_prior_word_pos_is_judged_within_the_probes_bootstrap_intervals() -> None:
    """'The top PCs of the prior word always better predict the POS': every (task, k) gain
    judged within the two probes' half-widths in quadrature; the weakest part decides."""
    check = _run_check("top-pcs-of-prior-word-predict-pos")
    gains = {("pos_binary", 1): 0.2, ("pos_binary", 2): 0.1, ("pos_multiclass", 1): 0.15}
    half = 0.05  # a gain within hypot(.05, .05) = .0707 is undecided
    held = check(_pos_run(gains, half))
    assert held.verdict == "holds" and held.margin == pytest.approx(0.1)
    assert held.uncertainty == pytest.approx(math.sqrt(2 * half**2))
    assert "354 test sentences" in held.evidence
    inside = check(_pos_run({**gains, ("pos_binary", 2): 0.06}, half))
    assert inside.verdict == "inconclusive" and inside.margin == pytest.approx(0.06)
    failed = check(_pos_run({**gains, ("pos_multiclass", 1): -0.08}, half))
    assert failed.verdict == "does not hold" and "not in pos_multiclass k=1" in failed.evidence
    bare = _pos_run(gains, half, intervals=False)
    assert math.isnan(check(bare).uncertainty) and check(bare).verdict == "holds"
    with requiring_intervals():
        assert check(bare).verdict == "inconclusive"
        assert check(_pos_run(gains, half)).verdict == "holds"
