"""Every measured verdict with its uncertainty (issue 38): intervals on shares and counts
(Wilson, Clopper-Pearson), the smoke-scale rule for a margin without an interval, and the one
rule for a finding about a named model. Each interval is checked against an independent
derivation (scipy's binomial test, the beta quantiles of the exact interval)."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping

import pandas as pd
import pytest
from scipy import stats

from wordlens.reproduce.base import (
    NAMED_MODEL_RULE,
    NO_INTERVAL,
    SMOKE_RULE,
    Check,
    Experiment,
    FindingCheck,
    Measured,
    NotMeasured,
    PaperReproduction,
    Reproduction,
    Runs,
    Scale,
    clopper_pearson_interval,
    judge,
    on_substitute,
    proportion_half_width,
    requiring_intervals,
    wilson_interval,
)
from wordlens.reproduce.published import PAPERS, PublishedItem, load_published
from wordlens.reproduce.report import reproduction_report
from wordlens.reproduce.runner import _findings, _row, reproduction_of

# ---------------------------------------------------------------- shares and counts


@pytest.mark.parametrize(("k", "n"), [(0, 38), (38, 38), (5, 38), (19, 38), (1, 1), (3, 384)])
def test_wilson_interval_is_scipys(k: int, n: int) -> None:
    expected = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    low, high = wilson_interval(k, n)
    assert (low, high) == (pytest.approx(expected.low), pytest.approx(expected.high))
    assert proportion_half_width(k / n, n) == pytest.approx((expected.high - expected.low) / 2)


def test_a_share_of_zero_or_all_is_not_known_exactly() -> None:
    # Wald's interval is a point at 0 and 1; Wilson's is not: 0 of 38 is [0, .0918]
    assert proportion_half_width(0.0, 38) == pytest.approx(0.0918 / 2, abs=1e-4)
    assert proportion_half_width(1.0, 38) == pytest.approx(proportion_half_width(0.0, 38))
    assert math.isnan(proportion_half_width(0.5, 0))
    assert all(math.isnan(end) for end in wilson_interval(math.nan, 10))


@pytest.mark.parametrize(("k", "n"), [(0, 100), (100, 100), (400, 10_000), (7, 64)])
def test_clopper_pearson_is_the_beta_quantiles(k: int, n: int) -> None:
    low = stats.beta.ppf(0.025, k, n - k + 1) if k > 0 else 0.0
    high = stats.beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    assert clopper_pearson_interval(k / n, n) == (pytest.approx(low), pytest.approx(high))
    assert all(math.isnan(end) for end in clopper_pearson_interval(0.5, 0))


# ---------------------------------------------------------------- the smoke-scale rule


def test_without_an_interval_the_sign_decides_only_outside_smoke_scale() -> None:
    assert judge(0.3, math.nan, "r").verdict == "holds"
    with requiring_intervals():
        check = judge(1.47, math.nan, "syntactic +2.0 vs semantic +0.5")
        assert check.verdict == "inconclusive"
        assert check.evidence == f"syntactic +2.0 vs semantic +0.5 ({NO_INTERVAL})"
        assert (check.margin, math.isnan(check.uncertainty)) == (1.47, True)
        assert judge(-0.7, math.nan, "").evidence == NO_INTERVAL
        # an interval, or a value known exactly, still decides; NaN is still not measurable
        assert judge(1.47, 0.5, "").verdict == "holds"
        assert judge(-1.0, 0.0, "").verdict == "does not hold"
        assert judge(math.nan, math.nan, "").verdict == "not measurable"
        with requiring_intervals(False):
            assert judge(0.3, math.nan, "").verdict == "holds"
        assert judge(0.3, math.nan, "").verdict == "inconclusive"  # restored
    assert judge(0.3, math.nan, "").verdict == "holds"  # and reset on leaving


# ---------------------------------------------------------------- the named-model rule


def test_a_finding_about_another_model_is_judged_and_marked() -> None:
    check = Check("holds", "d = -0.2", -0.2, 0.1)
    marked = on_substitute(check, ("t5-base",), "sentence-transformers/all-MiniLM-L6-v2")
    assert marked.verdict == "holds" and (marked.margin, marked.uncertainty) == (-0.2, 0.1)
    assert marked.evidence == (
        "measured on sentence-transformers/all-MiniLM-L6-v2, not t5-base: d = -0.2"
    )
    two = on_substitute(check, ("albert-base-v2", "roberta-base"), "gpt2")
    assert two.evidence.startswith("measured on gpt2, not albert-base-v2 / roberta-base: ")
    # the paper's own model (by hub id or by its last path part), no model, not measurable
    assert on_substitute(check, ("EleutherAI/gpt-neo-1.3B",), "gpt-neo-1.3B") == check
    assert on_substitute(check, ("gpt-neo-1.3B",), "EleutherAI/GPT-Neo-1.3B") == check
    assert on_substitute(check, (), "gpt2") == check
    # an alias that loaded the paper's model (its hub id among the run's names)
    loaded = ["google-bert/bert-base-uncased"]
    assert on_substitute(check, ("bert-base-uncased",), "bert-base", loaded) == check
    assert on_substitute(check, ("bert-large-uncased",), "bert-base", loaded) != check
    absent = Check("not measurable", "compares two models")
    assert on_substitute(absent, ("t5-base",), "gpt2") == absent


# ---------------------------------------------------------------- the runner applies both


class _Fixed(PaperReproduction):
    """A reproduction of VAST's findings whose first two checks are given margins without an
    interval, the first about GPT-2."""

    paper = "vast"

    def __init__(self, margins: Mapping[str, tuple[float, float]]) -> None:
        self.margins = margins

    def experiments(self, scale: Scale) -> list[Experiment]:
        return []

    def measure(self, item: PublishedItem, runs: Runs) -> Measured | NotMeasured:
        return NotMeasured("not run")

    def checks(self) -> Mapping[str, FindingCheck]:
        def fixed(margin: float, uncertainty: float) -> FindingCheck:
            return lambda runs: judge(margin, uncertainty, "a margin")

        return {id: fixed(*pair) for id, pair in self.margins.items()}

    def named_models(self) -> Mapping[str, tuple[str, ...]]:
        return dict.fromkeys(list(self.margins)[:1], ("gpt2",))


def test_the_runner_requires_intervals_at_smoke_scale_and_marks_substitutes() -> None:
    paper = load_published("vast")
    first, second = (finding.id for finding in paper.findings[:2])
    definition = _Fixed({first: (0.4, math.nan), second: (0.4, 0.1)})
    table = pd.DataFrame(
        [_row("vast", item, NotMeasured("not run"), "gpt2", {}, "") for item in paper.items]
    )

    def verdicts(scale: Scale, model: str) -> pd.DataFrame:
        return _findings(paper, definition, {}, table, scale, model).set_index("finding")

    paper_scale, smoke = verdicts("paper", "gpt2"), verdicts("smoke", "gpt2")
    assert paper_scale.loc[first, "verdict"] == "holds"
    assert smoke.loc[first, "verdict"] == "inconclusive"
    assert smoke.loc[first, "evidence"] == f"a margin ({NO_INTERVAL})"
    assert smoke.loc[second, "verdict"] == "holds"  # it has an interval
    on_minilm = verdicts("paper", "minilm-l6")
    assert on_minilm.loc[first, "evidence"] == "measured on minilm-l6, not gpt2: a margin"
    assert on_minilm.loc[second, "evidence"] == "a margin"  # about no named model


def test_the_report_states_both_rules() -> None:
    paper = load_published("vast")
    table = pd.DataFrame(
        [_row("vast", item, NotMeasured("not run"), "gpt2", {}, "") for item in paper.items]
    )
    findings = _findings(paper, _Fixed({}), {}, table, "smoke", "gpt2")
    for scale, expected in (("smoke", True), ("paper", False)):
        reproduction = Reproduction(paper, "gpt2", scale, [], {}, {}, table, findings)
        page = html.unescape(reproduction_report(reproduction).render())
        assert (SMOKE_RULE in page) is expected
        assert NAMED_MODEL_RULE in page


@pytest.mark.parametrize("paper", PAPERS)
def test_every_paper_names_the_models_of_its_findings(paper: str) -> None:
    """The one named-model rule is fed by every paper: each listed finding is the paper's,
    with at least one model named; findings that compare models are left out (they are not
    measurable on one run, and a mark would say nothing)."""
    named = reproduction_of(paper).named_models()
    findings = {finding.id for finding in load_published(paper).findings}
    assert named and set(named) <= findings
    assert all(
        models and all(isinstance(m, str) and m for m in models) for models in named.values()
    )
