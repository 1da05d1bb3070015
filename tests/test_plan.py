"""A plan before the run (:mod:`wordlens.plan`): the work a plan states is the work the run then
counts in its own forward passes (:func:`wordlens.stages.add_work`), its estimates sit beside
the measured times, ``--plan`` runs and writes nothing, and the linear cost fit recovers a cost
whose fixed and per-unit parts are known."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.test_cli_json import run_wordlens
from tests.test_stages import QUICK_VAST, small_lexicon
from wordlens.methods.base import run_method
from wordlens.methods.probing.config import ProbeConfig
from wordlens.methods.registry import get_method
from wordlens.methods.vast.config import VastConfig
from wordlens.models.options import ModelOptions
from wordlens.options import config_from_values
from wordlens.plan import LinearCost, estimates_beside, forward_passes
from wordlens.reproduce.runner import plan_reproduction


def test_the_linear_cost_fit_recovers_a_known_fixed_and_per_unit_cost() -> None:
    def call(n: int) -> float:  # 50 ms a call plus 2 ms a unit, slept (no CPU noise)
        time.sleep(0.05 + 0.002 * n)
        return float(n)

    cost = LinearCost.fitted(call, (1, 10, 60))
    assert cost.fixed == pytest.approx(0.05, abs=0.02)
    assert cost.per_unit == pytest.approx(0.002, rel=0.25)
    assert cost.seconds(1000) == pytest.approx(2.05, rel=0.25)


def test_forward_passes_follow_the_token_budget() -> None:
    class Budgeted:
        token_budget = 100

    # 10 texts of 10 tokens: 10 a pass; 25 of 30 tokens: 3 a pass (9 passes)
    assert forward_passes(Budgeted(), [10] * 10) == 1  # type: ignore[arg-type]
    assert forward_passes(Budgeted(), [30] * 25) == 9  # type: ignore[arg-type]
    assert forward_passes(object(), [5]) is None  # type: ignore[arg-type]


def test_estimates_go_beside_the_first_top_level_stage_of_their_name() -> None:
    stages = [
        {"name": "embed", "depth": 1},
        {"name": "similarity", "depth": 0},
        {"name": "embed", "depth": 0},
        {"name": "embed", "depth": 0},
    ]
    plan = {"stages": [{"name": "embed", "estimate_s": 3.0}, {"name": "x", "estimate_s": 1.0}]}
    shown = estimates_beside(stages, plan)
    assert shown[2] == 3.0
    assert all(value != value for value in (shown[0], shown[1], shown[3]))  # NaN


@pytest.mark.slow
def test_a_vast_plan_states_the_work_the_run_then_does(tmp_path: Path, shared: Path) -> None:
    """The plan's texts of the embedding stage are the rows the run's forward passes compute
    (an encoder without the cache: one row per text), its tokens are within 15% of the
    positions they compute (the plan counts from a 32-word sample, the passes pad) and its
    passes a lower bound within a factor of 2."""
    method = get_method("vast")
    config = config_from_values(
        VastConfig, {**QUICK_VAST, "lexica": [str(small_lexicon(tmp_path))]}
    )
    model = ModelOptions("minilm-l6", no_cache=True, with_plan=True)
    run, _ = run_method(method, model, config, tmp_path / "out")
    planned = {stage["name"]: stage for stage in run.metadata["plan"]["stages"]}
    recorded = {stage["name"]: stage for stage in run.metadata["stages"] if stage["depth"] == 0}
    assert set(planned) <= set(recorded)  # every planned stage runs, under its name
    embed_plan, embed_run = planned["embed:bleached"], recorded["embed:bleached"]
    assert embed_plan["work"]["texts"] == embed_run["work"]["sequences"]
    positions = embed_run["work"]["token_positions"]
    assert embed_plan["work"]["tokens"] == pytest.approx(positions, rel=0.15)
    # passes: a lower bound (the engine splits a batch's passes further by width)
    passes = embed_run["work"]["forward_passes"]
    assert (
        embed_plan["work"]["forward_passes"] <= passes <= 2 * embed_plan["work"]["forward_passes"]
    )
    assert all(planned[name]["estimate_s"] > 0 for name in ("embed:bleached", "layers"))
    report = (tmp_path / "out" / "report.html").read_text()
    assert "Where the time went" in report and "estimate_s" in report
    assert "Planned before the run (plan: " in report


@pytest.mark.slow
def test_plan_prints_the_stages_and_writes_nothing(tmp_path: Path, shared: Path) -> None:
    out = tmp_path / "out"
    lexicon = str(small_lexicon(tmp_path))
    args = ["vast", "-m", "minilm-l6", "--lexica", lexicon, "--settings", "bleached"]
    args += ["--no-tokenization", "--similarity", "none", "--no-weat", "--no-probes"]
    done = run_wordlens(*args, "--plan", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "embed:bleached" in done.stdout and "nullification" in done.stdout
    assert "plan: " in done.stdout and "estimated" in done.stdout
    assert not out.exists()  # nothing ran, nothing was written
    refused = run_wordlens("weat", "-m", "glove-6b-50d", "--plan", "--out", str(out))
    assert refused.returncode != 0
    assert "wordlens weat cannot plan its run yet; --plan and --with-plan work on: probe, vast" in (
        " ".join(refused.stderr.split())
    )


@pytest.mark.slow
def test_a_reproduction_plans_each_experiment_and_runs_none(shared: Path) -> None:
    plans = plan_reproduction("vast", ModelOptions("glove-6b-50d"), scale="smoke")
    assert set(plans) == {"vast", "tokenization", "bias"}
    for plan in plans.values():
        assert not isinstance(plan, str)
        assert plan["stages"][0]["name"] == "contexts:bleached"
        assert plan["total_s"] > 0


@pytest.mark.slow
def test_a_probe_plan_states_the_sentences_tokens_and_steps_the_run_then_does(
    tmp_path: Path, shared: Path
) -> None:
    """Edge probing's plan: ``data`` counts the sentences the run loads, ``features`` the
    subtokens its forward passes compute (within 15%: the plan counts the joined sentences'
    tokens, the run the retokenized words'), and each ``train`` stage the steps the run takes:
    its cap, which 20 steps validated every 10 reach before early stopping can act."""
    config = config_from_values(
        ProbeConfig,
        {
            "task": "winograd",
            "representations": ["lex", "mix"],
            "train_sentences": 48,
            "eval_sentences": 16,
            "max_steps": 20,
            "validate_every": 10,
        },
    )
    model = ModelOptions("minilm-l6", no_cache=True, with_plan=True)
    run, _ = run_method(get_method("probe"), model, config, tmp_path / "out")
    planned = {stage["name"]: stage for stage in run.metadata["plan"]["stages"]}
    recorded = {stage["name"]: stage for stage in run.metadata["stages"] if stage["depth"] == 0}
    assert list(planned) == ["data", "features", "train lex", "train mix"]
    assert set(planned) <= set(recorded)
    counts = run.metadata["counts"]
    assert planned["data"]["work"]["texts"] == sum(c["sentences"] for c in counts.values())
    positions = recorded["features"]["work"]["token_positions"]
    assert planned["features"]["work"]["tokens"] == pytest.approx(positions, rel=0.15)
    for name in ("train lex", "train mix"):
        assert planned[name]["work"]["probe_steps"] == 20 == recorded[name]["work"]["probe_steps"]
        assert planned[name]["estimate_s"] > 0
        assert "at most 20 steps (2 validations)" in planned[name]["basis"]
