"""Real training-checkpoint fixtures built offline from one trained model.

:func:`interpolated_checkpoints` writes a series of Hugging Face model folders that walk from a
random initialisation to a trained model (``interpolate``) or from a trained model into noise
(``perturb``), so that a method run on each checkpoint has a known trend. :func:`hub_revision_cache`
lays such folders out as the Hugging Face hub cache keeps revisions of one hub id (Pythia's
``step0`` ... ``step143000`` branches), so ``load_model(hub_id, revision=...)`` loads them offline.

Offline hub revisions in-process (``huggingface_hub`` 2.4 reads ``HF_HUB_CACHE`` and
``HF_HUB_OFFLINE`` into ``huggingface_hub.constants`` at import time; transformers 5 and
``huggingface_hub`` read those module attributes at call time, wordlens reads the environment)::

    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache_dir))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache_dir))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

A subprocess needs only the two environment variables.

Measured on minilm-l6 (bellezza, bleached, mean pooling; WEAT test 1, 1,000 permutations), α
(0, 0.2, 0.45, 1.0) gives a strictly increasing WEAT effect size at every layer (about -0.4, 0.15,
1.1, 1.4) and VAST r at layer 2 (0.36, 0.69, 0.79, 0.86); past α≈0.5 the model is nearly the
trained one. ``perturb`` with σ (0, 0.5, 1, 2) lowers VAST r at layers 1-5 strictly (layer 2:
0.86, 0.74, 0.33, 0.21) but not WEAT's effect size.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

#: What a checkpoint series walks along: from random weights to the trained ones, or from the
#: trained weights into noise.
Mode = Literal["interpolate", "perturb"]


def interpolated_checkpoints(
    source: Path,
    out_dir: Path,
    fractions: Sequence[float],
    *,
    seed: int = 0,
    steps: Sequence[int] | None = None,
    trainer_state: bool = False,
    mode: Mode = "interpolate",
    dtype: str | None = None,
) -> list[Path]:
    """Write one Hugging Face model folder per fraction, a fake training run of ``source``.

    Parameters
    ----------
    source
        A Hugging Face model folder (``config.json``, weights, tokenizer).
    out_dir
        Where the folders ``step-<step>`` go (created when missing).
    fractions
        ``interpolate``: α per checkpoint; every floating-point weight is ``(1-α)·R + α·W``, W
        the trained weight and R a random initialisation of the same architecture (one R for
        all α), so α=0 is the random model and α=1 the trained one. ``perturb``: σ per
        checkpoint; every floating-point weight is ``W + σ·std(W)·N(0, 1)`` (std per tensor,
        one noise draw for all σ), so σ=0 is the trained model.
    seed
        Seed of the random initialisation or the noise.
    steps
        The step of each checkpoint (default 0, 1000, 2000, ...).
    trainer_state
        Also write ``trainer_state.json`` with ``{"global_step": step}`` (HF Trainer's file).
    mode
        ``interpolate`` or ``perturb`` (see ``fractions``).
    dtype
        Save the weights as this torch dtype (``float16``, ``bfloat16``); ``None`` keeps the
        source's.

    Returns
    -------
    list of Path
        The checkpoint folders, in the order of ``fractions``.
    """
    import torch
    import transformers
    from transformers import AutoConfig, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    steps = list(steps) if steps is not None else [1000 * i for i in range(len(fractions))]
    if len(steps) != len(fractions):
        raise ValueError(f"{len(steps)} steps for {len(fractions)} fractions")
    config = AutoConfig.from_pretrained(source)
    architectures = getattr(config, "architectures", None) or ["AutoModel"]
    model_class: Any = getattr(transformers, architectures[0])
    model = model_class.from_pretrained(source, dtype=torch.float32)
    trained = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    generator = torch.Generator().manual_seed(seed)
    if mode == "interpolate":
        torch.manual_seed(seed)
        start = model_class(config).state_dict()
    elif mode == "perturb":
        start = {
            name: torch.randn(tensor.shape, generator=generator) * tensor.std()
            if tensor.is_floating_point() and tensor.numel() > 1
            else torch.zeros_like(tensor)
            for name, tensor in trained.items()
        }
    else:
        raise ValueError(f"unknown mode {mode!r}")
    tokenizer = AutoTokenizer.from_pretrained(source)
    out_dir.mkdir(parents=True, exist_ok=True)
    folders = []
    for fraction, step in zip(fractions, steps, strict=True):
        weights = {}
        for name, tensor in trained.items():
            if not tensor.is_floating_point():
                weights[name] = tensor
            elif mode == "interpolate":
                weights[name] = (1 - fraction) * start[name] + fraction * tensor
            else:
                weights[name] = tensor + fraction * start[name]
        model.load_state_dict(weights)
        folder = out_dir / f"step-{step}"
        saved = model.to(getattr(torch, dtype)) if dtype else model
        saved.save_pretrained(folder, safe_serialization=True)
        model.to(torch.float32)
        tokenizer.save_pretrained(folder)
        if trainer_state:
            (folder / "trainer_state.json").write_text(json.dumps({"global_step": step}) + "\n")
        folders.append(folder)
    return folders


def fake_commit(hub_id: str, revision: str) -> str:
    """A stable 40-hex commit hash for ``revision`` of ``hub_id``."""
    return hashlib.sha1(f"{hub_id}@{revision}".encode()).hexdigest()


def hub_revision_cache(hub_id: str, cache_dir: Path, revisions: Mapping[str, Path]) -> Path:
    """Lay model folders out as the Hugging Face hub cache keeps revisions of one hub id.

    Writes ``cache_dir/models--<org>--<name>/refs/<revision>`` (a fake commit hash from
    :func:`fake_commit`) and ``snapshots/<hash>/`` with the folder's files copied in (no blobs,
    which the cache does not need to resolve a file).

    Parameters
    ----------
    hub_id
        ``org/name``.
    cache_dir
        The cache root (what ``HF_HUB_CACHE`` names).
    revisions
        Revision name (a branch such as ``step1000``) → model folder.

    Returns
    -------
    Path
        The repository's folder ``cache_dir/models--<org>--<name>``.
    """
    repo = cache_dir / ("models--" + hub_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    for revision, folder in revisions.items():
        commit = fake_commit(hub_id, revision)
        (repo / "refs" / revision).write_text(commit)
        snapshot = repo / "snapshots" / commit
        if snapshot.exists():
            shutil.rmtree(snapshot)
        shutil.copytree(folder, snapshot)
    return repo


def cached_revisions(hub_id: str, cache_dir: Path) -> list[str]:
    """The revisions of ``hub_id`` in the local hub cache, offline, sorted by name.

    ``huggingface_hub.scan_cache_dir(cache_dir)`` gives each cached repo's ``revisions`` with
    their ``refs``; it reads only the disk.
    """
    from huggingface_hub import scan_cache_dir

    refs: set[str] = set()
    for repo in scan_cache_dir(cache_dir).repos:
        if repo.repo_id == hub_id and repo.repo_type == "model":
            for revision in repo.revisions:
                refs.update(revision.refs)
    return sorted(refs)
