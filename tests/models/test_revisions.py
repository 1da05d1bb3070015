"""Which checkpoints ``revisions`` names, in which order: checkpoint folders (by the step in their
names or their ``trainer_state.json``) and hub revisions (named, or listed from the local hub
cache offline). The folders are empty model directories (a ``config.json``): resolving
checkpoints reads no weights."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from huggingface_hub import constants
from typer.testing import CliRunner

from wordlens.cli import app
from wordlens.models.revisions import (
    Checkpoint,
    LeftOut,
    RevisionError,
    checkpoints,
    left_out,
    step_of,
)


def _folders(root: Path, *names: str) -> Path:
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "config.json").write_text("{}")
    return root


@pytest.mark.parametrize(
    ("name", "step"),
    [("step-1000", 1000), ("step1000", 1000), ("checkpoint-500", 500), ("step0", 0),
     ("final", None), ("run2-step-30", 30)],
)  # fmt: skip
def test_step_is_the_last_number_of_the_name(name: str, step: int | None) -> None:
    assert step_of(name) == step


def test_all_orders_folders_by_step_not_by_name(tmp_path: Path) -> None:
    root = _folders(tmp_path, "step-1000", "step-500", "step-0", "checkpoint-final")
    (root / "checkpoint-final" / "trainer_state.json").write_text(json.dumps({"global_step": 2000}))
    (root / "logs").mkdir()  # no config.json: not a checkpoint
    (root / "step-1500").mkdir()  # a checkpoint saved without its config.json
    (root / ".cache").mkdir()
    found = checkpoints(str(root), ["all"])
    assert [(c.name, c.step) for c in found] == [
        ("step-0", 0), ("step-500", 500), ("step-1000", 1000), ("checkpoint-final", 2000)
    ]  # fmt: skip
    assert all(c.revision is None and Path(c.model).parent == root for c in found)
    reason = "no config.json, so not a checkpoint folder"
    assert left_out(str(root), ["all"]) == [LeftOut("logs", reason), LeftOut("step-1500", reason)]
    assert left_out(str(root), ["step-0"]) == []  # named revisions run what they name


def test_folders_are_picked_by_name_or_step(tmp_path: Path) -> None:
    root = _folders(tmp_path, "step-0", "step-500", "step-1000")
    assert [c.name for c in checkpoints(str(root), ["1000", "step-0"])] == ["step-0", "step-1000"]


def test_unknown_and_repeated_checkpoints_are_refused_with_the_ones_there(tmp_path: Path) -> None:
    root = _folders(tmp_path, "step-0", "step-500")
    with pytest.raises(
        RevisionError, match=r"'step-7' not among the checkpoints .*step-0, step-500"
    ):
        checkpoints(str(root), ["step-7"])
    with pytest.raises(RevisionError, match="named already"):
        checkpoints(str(root), ["500", "step-500"])


def test_all_refuses_what_it_cannot_order(tmp_path: Path) -> None:
    root = _folders(tmp_path, "step-0", "final")
    with pytest.raises(RevisionError, match="cannot order final"):
        checkpoints(str(root), ["all"])
    # named one by one, a folder without a step runs last
    assert [c.name for c in checkpoints(str(root), ["final", "step-0"])] == ["step-0", "final"]
    twins = _folders(tmp_path / "twins", "step-5", "checkpoint-5")
    with pytest.raises(RevisionError, match="both step 5"):
        checkpoints(str(twins), ["all"])


def test_a_single_model_has_no_revisions(tmp_path: Path) -> None:
    single = _folders(tmp_path, "model") / "model"
    with pytest.raises(RevisionError, match="is one model"):
        checkpoints(str(single), ["all"])
    with pytest.raises(RevisionError, match="is one model"):
        checkpoints("glove-6b-50d", ["all"])
    with pytest.raises(RevisionError, match="name checkpoints"):
        checkpoints(str(tmp_path), [" "])


def test_hub_revisions_are_taken_as_named_in_step_order() -> None:
    found = checkpoints("EleutherAI/pythia-70m", ["step2000", "step0", "step1000"])
    assert found == [
        Checkpoint("step0", 0, "EleutherAI/pythia-70m", "step0"),
        Checkpoint("step1000", 1000, "EleutherAI/pythia-70m", "step1000"),
        Checkpoint("step2000", 2000, "EleutherAI/pythia-70m", "step2000"),
    ]


def test_all_hub_revisions_offline_are_those_in_the_local_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORDLENS_OFFLINE", "1")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    refs = tmp_path / "models--org--tiny" / "refs"
    refs.mkdir(parents=True)
    for name in ("main", "step20", "step3"):
        (refs / name).write_text("0" * 40)
    found = checkpoints("org/tiny", ["all"])
    assert [(c.name, c.step, c.revision) for c in found] == [
        ("step3", 3, "step3"), ("step20", 20, "step20")
    ]  # fmt: skip
    with pytest.raises(RevisionError, match=r"no revision named with a training step .*local"):
        checkpoints("org/absent", ["all"])


def test_revision_with_revisions_is_refused_before_any_model_loads() -> None:
    """A hub id that is not in the cache: loading it would fail otherwise (no network here)."""
    result = CliRunner().invoke(
        app, ["weat", "-m", "org/absent-model", "--revision", "main", "--revisions", "all"]
    )
    assert result.exit_code == 2
    assert result.output == (
        "error: revision 'main' with revisions: a sweep loads each checkpoint at its own "
        "revision, the one revisions names; leave out revision\n"
    )
