"""The checkpoints of a model that a sweep runs a method on, in training order.

``revisions`` names them (``--revisions`` on the command line, ``revisions:`` in a study's model
entry, ``revisions=`` in Python), for one of two kinds of model:

- **a directory of checkpoint folders** (a training run's output: ``step-1000/``,
  ``checkpoint-500/``, ...; a folder is a checkpoint when it holds ``config.json``). ``all`` takes
  every folder; names (``step-1000``) or steps (``1000``) pick some. Folders are ordered by their
  training step: the last number in the folder's name, else ``global_step`` in its
  ``trainer_state.json`` (the file the Hugging Face ``Trainer`` writes);
- **a Hugging Face hub id**: revisions as the hub names them (Pythia publishes its checkpoints as
  branches ``step0`` ... ``step143000``), each loaded with ``revision=`` by
  :func:`~wordlens.models.loading.load_model`. ``all`` lists the hub's branches and tags that name a
  step (``huggingface_hub.list_repo_refs``); offline (``WORDLENS_OFFLINE``/``HF_HUB_OFFLINE``),
  the revisions in the local hub cache.

A checkpoint whose step cannot be read is refused under ``all`` (the sweep could not order it);
named one by one, it runs after the ones with a step, in the order given. The folders ``all``
leaves out (no ``config.json``) are named with why (:func:`left_out`), so a sweep can say so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wordlens._files import is_offline
from wordlens.errors import WordlensError

ALL = "all"
"""The ``revisions`` value that takes every checkpoint."""

_LAST_NUMBER = re.compile(r"(\d+)\D*$")


class RevisionError(WordlensError):
    """``revisions`` that name no checkpoint of the model, or checkpoints that cannot be ordered."""


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint of a sweep.

    Attributes
    ----------
    name
        The folder's name or the hub revision (``step-1000``, ``step1000``): the run's directory
        and its label in the sweep's table.
    step
        The training step (None when neither the name nor ``trainer_state.json`` gives one).
    model
        What :func:`~wordlens.models.loading.load_model` loads: the folder's path, or the hub id.
    revision
        The hub revision (None for a folder).
    """

    name: str
    step: int | None
    model: str
    revision: str | None = None


@dataclass(frozen=True)
class LeftOut:
    """A folder of a directory of checkpoint folders that ``all`` does not run.

    Attributes
    ----------
    name
        The folder's name.
    reason
        Why it is not a checkpoint (``no config.json``).
    """

    name: str
    reason: str


def step_of(name: str) -> int | None:
    """The training step a checkpoint's name carries: its last number (``checkpoint-500`` →
    500, ``step1000`` → 1000, ``final`` → None)."""
    found = _LAST_NUMBER.search(name)
    return None if found is None else int(found.group(1))


def is_checkpoint_directory(path: Path) -> bool:
    """Whether ``path`` is a directory of checkpoint folders (folders holding ``config.json``)."""
    return path.is_dir() and any(_checkpoint_folders(path))


def checkpoints(model: str, revisions: Sequence[str]) -> list[Checkpoint]:
    """The checkpoints ``revisions`` names, in training order (see the module notes).

    Parameters
    ----------
    model
        A directory of checkpoint folders, or a Hugging Face hub id.
    revisions
        ``["all"]``, or folder names, steps or hub revisions.

    Returns
    -------
    list of Checkpoint
        Ordered by step (checkpoints without one last, in the order given).

    Raises
    ------
    RevisionError
        If ``revisions`` is empty, names no checkpoint of ``model`` (listing the ones it has), names
        one twice, or ``all`` meets checkpoints without a step or two with the same step; if
        ``model`` is a single model (an alias, a file, a model directory) rather than a directory
        of checkpoints or a hub id.
    """
    wanted = _wanted(revisions)
    if not wanted:
        raise RevisionError("revisions: name checkpoints (step0,step1000) or 'all'")
    path = Path(model).expanduser()
    if path.exists() or _is_alias(model):
        if not is_checkpoint_directory(path):
            raise RevisionError(
                f"revisions: {model} is one model, not a directory of checkpoint folders (folders "
                "holding config.json, such as step-1000/) nor a Hugging Face hub id; run it "
                "without revisions, or point to the folder that holds its checkpoints"
            )
        found = [_folder_checkpoint(folder) for folder in _checkpoint_folders(path)]
    elif wanted == [ALL]:
        found = hub_checkpoints(model)
    else:
        found = [Checkpoint(name, step_of(name), model, name) for name in dict.fromkeys(wanted)]
    if wanted == [ALL]:
        _check_orderable(found, model)
        return _ordered(found)
    return _ordered(_selected(found, wanted, model))


def left_out(model: str, revisions: Sequence[str]) -> list[LeftOut]:
    """The folders of a directory of checkpoint folders that ``revisions`` ``all`` does not run,
    with why: each folder without ``config.json`` (hidden folders aside), by name.

    Parameters
    ----------
    model, revisions
        As :func:`checkpoints` takes them.

    Returns
    -------
    list of LeftOut
        Empty for named revisions (they run what they name or fail) and for a hub id.
    """
    path = Path(model).expanduser()
    if _wanted(revisions) != [ALL] or not path.is_dir():
        return []
    return [
        LeftOut(folder.name, "no config.json, so not a checkpoint folder")
        for folder in sorted(path.iterdir())
        if folder.is_dir()
        and not folder.name.startswith(".")
        and not (folder / "config.json").exists()
    ]


def _wanted(revisions: Sequence[str]) -> list[str]:
    """The revisions named, stripped, the empty ones left out."""
    return [text.strip() for text in revisions if text.strip()]


def hub_checkpoints(hub_id: str) -> list[Checkpoint]:
    """Every revision of ``hub_id`` that names a step: the hub's branches and tags, or offline
    those in the local Hugging Face cache.

    Raises
    ------
    RevisionError
        If none is found (naming where wordlens looked).
    """
    names = _cached_revisions(hub_id) if is_offline() else _hub_revisions(hub_id)
    found = [
        Checkpoint(name, step_of(name), hub_id, name) for name in names if step_of(name) is not None
    ]
    if not found:
        where = "the local Hugging Face cache" if is_offline() else "the hub's branches and tags"
        raise RevisionError(
            f"revisions all: {hub_id} has no revision named with a training step in {where} "
            f"(found: {', '.join(sorted(names)) or 'none'}); name the revisions instead"
        )
    return found


def _hub_revisions(hub_id: str) -> list[str]:
    """The branches and tags of ``hub_id`` on the hub (falling back to the local cache when the
    hub gives no answer)."""
    from huggingface_hub import list_repo_refs
    from huggingface_hub.errors import HfHubHTTPError

    try:
        refs = list_repo_refs(hub_id)
    except HfHubHTTPError as error:
        raise RevisionError(
            f"revisions all: cannot list the revisions of {hub_id}: {error}"
        ) from error
    except Exception:  # no answer: the transport errors of the hub's HTTP client
        return _cached_revisions(hub_id)
    return [ref.name for ref in (*refs.branches, *refs.tags)]


def _cached_revisions(hub_id: str) -> list[str]:
    """The revisions of ``hub_id`` the local Hugging Face cache holds (its ``refs/`` files)."""
    from huggingface_hub import constants

    refs = Path(constants.HF_HUB_CACHE) / f"models--{hub_id.replace('/', '--')}" / "refs"
    if not refs.is_dir():
        return []
    return sorted(str(file.relative_to(refs)) for file in refs.rglob("*") if file.is_file())


def _is_alias(model: str) -> bool:
    from wordlens.models.loading import ALIASES

    return model in ALIASES


def _checkpoint_folders(path: Path) -> list[Path]:
    return sorted(
        folder for folder in path.iterdir() if folder.is_dir() and (folder / "config.json").exists()
    )


def _folder_checkpoint(folder: Path) -> Checkpoint:
    """A checkpoint folder with its step: from its name, else its ``trainer_state.json``."""
    step = step_of(folder.name)
    state = folder / "trainer_state.json"
    if step is None and state.is_file():
        try:
            step = int(json.loads(state.read_text(encoding="utf-8"))["global_step"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise RevisionError(f"cannot read the training step in {state}: {error}") from error
    return Checkpoint(folder.name, step, str(folder.absolute()))


def _selected(found: list[Checkpoint], wanted: list[str], model: str) -> list[Checkpoint]:
    """The checkpoints named in ``wanted``: by name, or by step."""
    by_name = {checkpoint.name: checkpoint for checkpoint in found}
    by_step = {checkpoint.step: checkpoint for checkpoint in found if checkpoint.step is not None}
    chosen: list[Checkpoint] = []
    unknown = []
    for text in wanted:
        match = by_name.get(text) or (by_step.get(int(text)) if text.isdigit() else None)
        if match is None:
            unknown.append(text)
        elif match in chosen:
            raise RevisionError(f"revisions: {text!r} names {match.name}, named already")
        else:
            chosen.append(match)
    if unknown:
        names = ", ".join(checkpoint.name for checkpoint in _ordered(found)[:20])
        raise RevisionError(
            f"revisions: {', '.join(map(repr, unknown))} not among the checkpoints of {model} "
            f"({len(found)}: {names}{', ...' if len(found) > 20 else ''}); name folders or steps, "
            "or 'all'"
        )
    return chosen


def _check_orderable(found: list[Checkpoint], model: str) -> None:
    """Refuse checkpoints ``all`` cannot order: without a step, or two with one step."""
    unordered = [checkpoint.name for checkpoint in found if checkpoint.step is None]
    if unordered:
        raise RevisionError(
            f"revisions all: cannot order {', '.join(unordered)} in {model}: no number in the "
            "name and no trainer_state.json with global_step; rename them (step-<n>) or name "
            "the checkpoints to run"
        )
    steps: dict[int | None, str] = {}
    for checkpoint in found:
        if checkpoint.step in steps:
            raise RevisionError(
                f"revisions all: {steps[checkpoint.step]} and {checkpoint.name} in {model} are "
                f"both step {checkpoint.step}; name the checkpoints to run"
            )
        steps[checkpoint.step] = checkpoint.name


def _ordered(found: list[Checkpoint]) -> list[Checkpoint]:
    """By step; checkpoints without one after them, in their given order."""
    stepped = sorted(
        (checkpoint for checkpoint in found if checkpoint.step is not None),
        key=lambda checkpoint: checkpoint.step or 0,
    )
    return [*stepped, *(checkpoint for checkpoint in found if checkpoint.step is None)]
