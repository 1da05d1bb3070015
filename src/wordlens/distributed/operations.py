"""The operations a backend maps over batches: one forward pass each, model in, arrays out.

Each is a module-level function ``operation(model, payload) -> result`` (picklable by reference,
so a Ray worker imports it) over a frozen payload that holds one planned batch exactly as the
driver's loop planned it. The driver keeps everything else — planning, cache reads and writes,
placing results — so an operation runs the same code in process and on a worker.

- :func:`embed_batch` — word vectors (:meth:`wordlens.models.hf.HFEmbedder.embed_poolings`);
- :func:`log_probs_batch` — masked/causal scoring passes (:class:`wordlens.models.scoring.LMScorer`,
  :func:`wordlens.models.contextual_conditionals.run_shard`);
- :func:`feature_batch` — probing features (:func:`wordlens.probing.features.sentence_features`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import torch

if TYPE_CHECKING:
    from wordlens.models.base import Pooling
    from wordlens.models.hf import Encoded, HFEmbedder
    from wordlens.models.scoring import LMScorer, ModelRow


@dataclass(frozen=True)
class WordVectorBatch:
    """Targets of one batch (tokenized), the layers kept and the poolings applied."""

    items: tuple[Encoded, ...]
    layers: tuple[int, ...]
    poolings: tuple[Pooling, ...]


@dataclass(frozen=True)
class LogProbBatch:
    """Rows of one scoring pass; ``weighted`` for AULA's attention-weighted log-probabilities."""

    rows: tuple[ModelRow, ...]
    weighted: bool = False


@dataclass(frozen=True)
class FeatureBatch:
    """Sentences of one batch (their whole input ids as the span) and the layers kept."""

    items: tuple[Encoded, ...]
    layers: tuple[int, ...]


def embed_batch(
    embedder: HFEmbedder, payload: WordVectorBatch
) -> tuple[dict[Pooling, npt.NDArray[np.float32]], npt.NDArray[np.int64]]:
    """Pooled vectors ``[batch, layers, dim]`` per pooling and subtoken counts ``[batch]``
    (:meth:`~wordlens.models.hf.HFEmbedder.forward`)."""
    return embedder.forward(payload.items, payload.layers, payload.poolings)


def log_probs_batch(scorer: LMScorer, payload: LogProbBatch) -> npt.NDArray[np.float64]:
    """``log P(target)`` at every read position of the rows, in row order ``[n_reads]``
    (:meth:`~wordlens.models.scoring.LMScorer.read_log_probs`)."""
    return scorer.read_log_probs(payload.rows, weighted=payload.weighted)


def feature_batch(embedder: HFEmbedder, payload: FeatureBatch) -> npt.NDArray[np.float16]:
    """Every subtoken's vector ``[total subtokens, layers, dim]`` in float16, sentences back to
    back (:meth:`~wordlens.models.hf.HFEmbedder.hidden_states`)."""
    states = embedder.hidden_states(payload.items, payload.layers)  # [layers, rows, dim]
    vectors: npt.NDArray[np.float16] = states.permute(1, 0, 2).to(torch.float16).cpu().numpy()
    return vectors
