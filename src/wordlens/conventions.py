"""Input conventions that change the numbers, the papers' choices, and the ``paper`` preset.

The first token a causal model sees matters: without a BOS token the first word of every text is
processed with no context at all, and its vectors are dominated by the first-position "attention
sink". wordlens' default (``bos="auto"``, :mod:`wordlens.models.hf`) prepends the tokenizer's BOS
token to a causal model's texts when the tokenizer adds none, which modern causal LMs were
trained with. The papers chose differently:

- VAST (Wolfe & Caliskan 2022) ran GPT-2 with no BOS token: ``helper_functions.py:66`` of
  wolferobert3/vast_aaai_2022 calls ``tokenizer(context, return_tensors=...)`` with GPT-2's
  tokenizer, which adds no special token. The paper preset is ``bos="never"``.
- The intersectional paper (Omrani Sabbaghi, Wolfe & Caliskan 2023) prepends the BOS token for its
  autoregressive models, GPT-Neo and XLNet (shivaomrani/LLM-Bias ``src/embedding_collector.py:
  28-37, 54-57``: ``ADD_BOS = True``, ``tokenizer(f'{tokenizer.bos_token}{word}')``), and not for
  its encoders, whose tokenizers add their own special tokens. That is what ``bos="auto"`` does.

Every VAST and intersectional result records the convention it ran with
(:func:`bos_convention`), and their reports state it in the headline (:func:`describe_bos`).
``wordlens vast|intersectional --conventions paper`` loads the model with the paper's choice.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from wordlens.errors import WordlensError
from wordlens.models.base import BosPolicy, ModelInfo

ConventionPreset = Literal["wordlens", "paper"]
CONVENTION_PRESETS: tuple[ConventionPreset, ...] = get_args(ConventionPreset)

#: The BOS policy that reproduces each paper's input, and where its authors' code shows it.
PAPER_BOS: dict[str, tuple[BosPolicy, str]] = {
    "vast": (
        "never",
        "no BOS token, as the VAST authors ran GPT-2 (vast_aaai_2022 helper_functions.py:66)",
    ),
    "intersectional": (
        "auto",
        "BOS token before autoregressive models' phrases, as the authors "
        "(LLM-Bias src/embedding_collector.py:28-37, 54-57)",
    ),
}


def bos_policy(method: str, preset: ConventionPreset, bos: BosPolicy) -> BosPolicy:
    """The BOS policy to load the model with for ``method`` under ``preset``.

    ``"wordlens"`` keeps ``bos``; ``"paper"`` gives the paper's policy (:data:`PAPER_BOS`).

    Raises
    ------
    WordlensError
        If the preset is unknown, or ``"paper"`` is combined with a ``bos`` other than the
        default ``"auto"`` that differs from the paper's.
    """
    if preset not in CONVENTION_PRESETS:
        raise WordlensError(
            f"unknown conventions {preset!r}; choose from {', '.join(CONVENTION_PRESETS)}"
        )
    if preset == "wordlens":
        return bos
    paper, why = PAPER_BOS[method]
    if bos not in ("auto", paper):
        raise WordlensError(
            f"--conventions paper sets --bos {paper} for {method} ({why}); "
            f"drop --bos {bos} or use --conventions wordlens"
        )
    return paper


def bos_convention(info: ModelInfo, method: str) -> dict[str, Any]:
    """What a model's texts start with, and whether that is the paper's choice, for results.

    Returns
    -------
    dict
        ``policy`` (``auto``/``always``/``never``, None for static vectors), ``bos_token`` (the
        token prepended, or None), ``paper_policy`` and ``paper_source`` (:data:`PAPER_BOS`),
        ``as_paper`` (the paper's policy was used, or the model has no BOS question: static
        vectors and encoders whose tokenizer adds its own special tokens).
    """
    paper, source = PAPER_BOS[method]
    policy = info.details.get("bos_policy")
    token = info.details.get("bos_token")
    if info.kind == "static":
        as_paper = True
    elif info.kind != "causal":
        as_paper = token is None and paper in ("auto", "never")
    else:
        as_paper = policy == paper
    return {
        "policy": policy,
        "bos_token": token,
        "paper_policy": paper,
        "paper_source": source,
        "as_paper": as_paper,
    }


def describe_bos(convention: dict[str, Any], kind: str) -> str:
    """One headline line: what the texts start with, and how that compares with the paper."""
    if kind == "static":
        return "static vectors: no context, no BOS"
    token = convention["bos_token"]
    start = (
        f"BOS token {token!r} prepended"
        if token is not None
        else "no BOS token added (the tokenizer's own special tokens only)"
    )
    if convention["as_paper"]:
        return f"{start} (--bos {convention['policy']}); as the paper: {convention['paper_source']}"
    return (
        f"{start} (--bos {convention['policy']}); the paper differs: "
        f"{convention['paper_source']}; --conventions paper reproduces it"
    )
