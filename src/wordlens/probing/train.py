"""Training schedule of the edge probe on stored hidden states (Tenney et al. 2019 [1]_, App. C).

The encoder is frozen, so its hidden states are computed once and handed over as a
:class:`ProbingSplit`: every sentence's subtoken vectors back to back, one array or layer file per
layer (:mod:`wordlens.probing.layer_files`: a batch reads its rows of each layer it uses, so RAM
holds a batch, not the split), and the targets (spans and multi-hot labels) that point into them.
Training follows Appendix C of [1]_:

- a batch is **32 sentences** with all their targets (footnote 10; :func:`batches`), sentences
  of similar length batched together and the batches shuffled (AllenNLP's bucketing, which
  jiant used; a new order every epoch);
- **Adam**, initial learning rate **1e-4**, gradient clipping to a max norm of **5.0** (the paper
  says Adam; jiant v1's ``optimizer = adam`` was the AMSGrad variant — here plain Adam);
- validation on the dev split every **1000** steps (100 for the small tasks) by micro-averaged F1
  (:func:`wordlens.probing.metrics.micro_f1`, predictions ``probability >= threshold``);
- the learning rate is **halved after 5 validations without improvement**
  (``torch.optim.lr_scheduler.ReduceLROnPlateau`` with ``patience = lr_patience - 1``: it acts
  when the count of non-improving validations exceeds its patience, and then starts counting
  again), and training **stops after 20 validations without improvement** (counted since the last
  improvement), or at ``max_steps``;
- "improvement" is a strictly higher dev micro-F1 than the best so far; the weights of the best
  validation are kept and loaded back into the model at the end.

The paper leaves two details to its code, jiant v1 (``jiant/trainer.py`` and
``config/defaults.conf``), and they are taken from there:

- for the learning-rate schedule, an improvement must beat the best dev micro-F1 by more than
  ``lr_threshold = 1e-4`` (absolute; jiant's ``scheduler_threshold`` with
  ``threshold_mode = "abs"``); the early-stopping count and the kept weights use any strict gain;
- training also **stops once the halvings take the learning rate below**
  ``min_learning_rate = 1e-6`` (jiant's ``min_lr``), i.e. after the seventh halving.

Without them a large dev set never stops: on UD EWT (25K dev targets) gains of one or two targets
kept resetting the strict count for more than 60K steps. jiant also capped every run at
``max_vals`` validations (250 for the large edge-probing tasks); ``max_steps`` is that cap here,
off by default.

Determinism: ``torch.manual_seed(seed)`` at the start (dropout) and a
``numpy.random.default_rng(seed)`` for the sentence order (fresh length noise and batch order each
epoch), so two runs with the same seed, model initialization and data give the same
history. The model's own initialization is the caller's (seed torch before building it).

References
----------
.. [1] Tenney, I., Xia, P., Chen, B., Wang, A., Poliak, A., McCoy, R. T., Kim, N., Van Durme, B.,
   Bowman, S. R., Das, D. & Pavlick, E. (2019). What do you learn from context? Probing for
   sentence structure in contextualized word representations. *ICLR*.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

import numpy as np
import numpy.typing as npt
import pandas as pd
import torch
from torch import Tensor, nn

from wordlens._plural import counted
from wordlens.errors import EmptyInputError, TargetError, WordlensError
from wordlens.probing.layer_files import LayerFile
from wordlens.probing.metrics import micro_f1
from wordlens.probing.model import EdgeProbe, check_spans
from wordlens.progress import progress_bar

IntArray = npt.NDArray[np.int64]
FeatureLayer = LayerFile | npt.NDArray[np.float16 | np.float32]
"""One layer's vectors ``[n_subtokens_total, D]``: in memory, or a file read a batch at a time."""
StopReason = Literal["no_improvement", "min_learning_rate", "max_steps"]

SENTENCES_PER_BATCH = 32
"""Appendix C of [1]_: a batch is 32 sentences, each with all its targets."""
BUCKET_NOISE = 0.1
"""Relative noise on sentence lengths when bucketing training batches (AllenNLP's
``BucketIterator`` default ``padding_noise``)."""


@dataclass(frozen=True)
class ProbingSplit:
    """Stored hidden states of one split and the edge-probing targets that point into them.

    Attributes
    ----------
    features : tuple of FeatureLayer, length ``L``
        Every sentence's subtoken vectors at each of the ``L`` layers the representation uses,
        ``[n_subtokens_total, D]`` float16 or float32 (a :class:`~wordlens.probing.layer_files.
        LayerFile` or an array), sentences back to back.
    sentence_offsets : numpy.ndarray of int64, shape ``[n_sentences + 1]``
        Rows of sentence ``i`` are ``offsets[i]:offsets[i + 1]`` of each layer; starts at 0, ends
        at ``n_subtokens_total``, non-decreasing.
    target_sentence : numpy.ndarray of int64, shape ``[n_targets]``
        Sentence of each target.
    span1 : numpy.ndarray of int64, shape ``[n_targets, 2]``
        Subtoken range ``[first, stop)`` within the target's sentence (0 = its first row).
    span2 : numpy.ndarray of int64, shape ``[n_targets, 2]``, or None
        Second span, None for single-span tasks.
    labels : numpy.ndarray of bool, shape ``[n_targets, n_labels]``
        Multi-hot label sets.
    label_names : tuple of str, length ``n_labels``
    distance : numpy.ndarray of int64, shape ``[n_targets]``
        Source-token distance between span1 and span2 (0 for single-span tasks), for Figure 3.

    Raises
    ------
    WordlensError
        If shapes or dtypes disagree, or offsets are not a partition of the feature rows.
    TargetError
        If a target names a missing sentence or a span that is empty or leaves its sentence.
    """

    features: tuple[FeatureLayer, ...]
    sentence_offsets: IntArray
    target_sentence: IntArray
    span1: IntArray
    span2: IntArray | None
    labels: npt.NDArray[np.bool_]
    label_names: tuple[str, ...]
    distance: IntArray

    def __post_init__(self) -> None:
        self._check_features()
        n_targets = len(self.target_sentence)
        _check_shape(self.target_sentence, (n_targets,), "target_sentence")
        _check_shape(self.labels, (n_targets, len(self.label_names)), "labels")
        _check_shape(self.distance, (n_targets,), "distance")
        if self.labels.dtype != np.bool_:
            raise WordlensError(f"labels must be bool (multi-hot); got {self.labels.dtype}")
        if (self.distance < 0).any():
            raise WordlensError("distance must be >= 0")
        if ((self.target_sentence < 0) | (self.target_sentence >= self.n_sentences)).any():
            raise TargetError(f"target_sentence must be in [0, {self.n_sentences})")
        lengths = torch.as_tensor(self.sentence_lengths[self.target_sentence])
        for name, span in (("span1", self.span1), ("span2", self.span2)):
            if span is not None:
                check_spans(torch.as_tensor(span), lengths, name)

    @property
    def n_sentences(self) -> int:
        return len(self.sentence_offsets) - 1

    @property
    def n_targets(self) -> int:
        return len(self.target_sentence)

    @property
    def n_layers(self) -> int:
        return len(self.features)

    @property
    def n_rows(self) -> int:
        """Subtoken rows, all sentences."""
        return int(self.features[0].shape[0])

    @property
    def dim(self) -> int:
        return int(self.features[0].shape[1])

    @property
    def n_labels(self) -> int:
        return len(self.label_names)

    @property
    def two_spans(self) -> bool:
        return self.span2 is not None

    @property
    def sentence_lengths(self) -> IntArray:
        """Subtokens per sentence, shape ``[n_sentences]``."""
        lengths: IntArray = np.diff(self.sentence_offsets)
        return lengths

    @cached_property
    def targets_by_sentence(self) -> tuple[IntArray, IntArray]:
        """Target ids sorted by sentence (stable) and their sentences in that order, both
        shape ``[n_targets]``; computed once, for :func:`batches`."""
        order: IntArray = np.argsort(self.target_sentence, kind="stable")
        return order, self.target_sentence[order]

    def sentences_with_targets(self) -> IntArray:
        """Ids of the sentences that have at least one target, increasing."""
        sentences: IntArray = np.unique(self.target_sentence)
        return sentences

    def _check_features(self) -> None:
        found = [(str(layer.dtype), list(layer.shape)) for layer in self.features]
        if len({str(shape) for _, shape in found}) != 1 or any(
            len(shape) != 2 or dtype not in ("float16", "float32") for dtype, shape in found
        ):
            raise WordlensError(
                "features must be one or more float16/float32 layers of one shape "
                f"[n_subtokens_total, dim]; got {found}"
            )
        offsets = self.sentence_offsets
        if (
            offsets.ndim != 1
            or len(offsets) < 1
            or offsets[0] != 0
            or offsets[-1] != self.n_rows
            or (np.diff(offsets) < 0).any()
        ):
            raise WordlensError(
                "sentence_offsets must be non-decreasing, start at 0 and end at the number of "
                f"feature rows ({self.n_rows})"
            )


@dataclass(frozen=True)
class ProbeBatch:
    """Padded tensors of a batch of sentences and all their targets (inputs of ``EdgeProbe``).

    Attributes
    ----------
    features : Tensor of float32, shape ``[B, T, L, D]``
        Right-padded with zeros. Built by :func:`batches` as a view of layer-major storage
        (``features.movedim(2, 0)`` is contiguous), which makes the scalar mix one
        matrix-vector product.
    mask : Tensor of bool, shape ``[B, T]``
        True at each sentence's own positions.
    span1 : Tensor of int64, shape ``[N, 2]``
    span2 : Tensor of int64, shape ``[N, 2]``, or None
    target_row : Tensor of int64, shape ``[N]``
        Row (0..B-1) of each target's sentence.
    labels : Tensor of float32, shape ``[N, K]``
        Multi-hot labels as 0/1 (the target of ``BCEWithLogitsLoss``).
    target_index : numpy.ndarray of int64, shape ``[N]``
        Index of each target in the split.
    """

    features: Tensor
    mask: Tensor
    span1: Tensor
    span2: Tensor | None
    target_row: Tensor
    labels: Tensor
    target_index: IntArray

    def to(self, device: torch.device) -> ProbeBatch:
        """The same batch with its tensors on ``device``."""
        return ProbeBatch(
            features=self.features.to(device),
            mask=self.mask.to(device),
            span1=self.span1.to(device),
            span2=None if self.span2 is None else self.span2.to(device),
            target_row=self.target_row.to(device),
            labels=self.labels.to(device),
            target_index=self.target_index,
        )

    def logits(self, model: EdgeProbe) -> Tensor:
        """``model``'s logits for this batch's targets, ``[N, K]``."""
        logits: Tensor = model(self.features, self.mask, self.span1, self.span2, self.target_row)
        return logits


def batches(
    split: ProbingSplit, sentence_ids: npt.ArrayLike, batch_size: int = SENTENCES_PER_BATCH
) -> Iterator[ProbeBatch]:
    """Batches of ``batch_size`` sentences, in the order given, with all their targets.

    Parameters
    ----------
    split : ProbingSplit
    sentence_ids : array_like of int, shape ``[S]``
        Sentences to batch, in order (consecutive chunks of ``batch_size``). A sentence without
        targets still occupies a row; :func:`train_probe` and :func:`predict` pass only
        :meth:`ProbingSplit.sentences_with_targets`.
    batch_size : int, default 32
        Sentences per batch ([1]_ Appendix C); the last batch may be smaller.

    Yields
    ------
    ProbeBatch
        On the CPU; features converted to float32.
    """
    sentences = np.asarray(sentence_ids, dtype=np.int64)
    if sentences.ndim != 1 or ((sentences < 0) | (sentences >= split.n_sentences)).any():
        raise WordlensError(f"sentence_ids must be 1-D ids in [0, {split.n_sentences})")
    if batch_size < 1:
        raise WordlensError(f"batch_size must be at least 1; got {batch_size}")
    by_sentence, sorted_sentence = split.targets_by_sentence
    first_target = np.searchsorted(sorted_sentence, sentences, side="left")
    stop_target = np.searchsorted(sorted_sentence, sentences, side="right")
    for start in range(0, len(sentences), batch_size):
        chunk = slice(start, start + batch_size)
        target_index = np.concatenate(
            [
                by_sentence[first:stop]
                for first, stop in zip(first_target[chunk], stop_target[chunk], strict=True)
            ]
        )
        n_targets_per_row = stop_target[chunk] - first_target[chunk]
        yield _make_batch(split, sentences[chunk], target_index, n_targets_per_row)


def _make_batch(
    split: ProbingSplit,
    sentences: IntArray,
    target_index: IntArray,
    n_targets_per_row: IntArray,
) -> ProbeBatch:
    lengths = split.sentence_lengths[sentences]
    positions = np.arange(int(lengths.max()))
    inside = positions[None, :] < lengths[:, None]  # [B, T]
    rows = split.sentence_offsets[sentences][:, None] + positions[None, :]  # [B, T]
    # layer-major storage [L, B, T, D] seen as [B, T, L, D]: the scalar mix reads it in place
    layer_major = torch.zeros(
        (split.n_layers, len(sentences), len(positions), split.dim), dtype=torch.float32
    )
    mask = torch.from_numpy(inside)
    read = rows[inside]  # [n]: the batch's rows, one layer at a time
    for layer, source in zip(layer_major, split.features, strict=True):
        layer[mask] = torch.from_numpy(np.asarray(source[read])).float()  # [n, D]
    return ProbeBatch(
        features=layer_major.permute(1, 2, 0, 3),
        mask=mask,
        span1=torch.from_numpy(split.span1[target_index]),
        span2=None if split.span2 is None else torch.from_numpy(split.span2[target_index]),
        target_row=torch.from_numpy(np.repeat(np.arange(len(sentences)), n_targets_per_row)),
        labels=torch.from_numpy(split.labels[target_index].astype(np.float32)),
        target_index=target_index,
    )


@dataclass(frozen=True)
class TrainConfig:
    """Training schedule ([1]_ Appendix C defaults).

    Attributes
    ----------
    batch_size : int, default 32
        Sentences per batch.
    learning_rate : float, default 1e-4
        Initial Adam learning rate.
    clip_norm : float, default 5.0
        Maximum global gradient norm.
    validate_every : int, default 1000
        Steps between validations (the paper uses 100 for SPR1, SPR2 and Winograd).
    lr_patience : int, default 5
        Halve the learning rate after this many validations without improvement.
    stop_patience : int, default 20
        Stop after this many validations without improvement.
    lr_threshold : float, default 1e-4
        Dev micro-F1 gain over the best that counts as an improvement for the learning-rate
        schedule (jiant's ``scheduler_threshold``, absolute).
    min_learning_rate : float, default 1e-6
        Stop once the learning rate falls below this (jiant's ``min_lr``).
    max_steps : int or None, default None
        Stop after this many steps (with a last validation) even if still improving.
    seed : int, default 0
        Seeds torch (dropout) and the sentence order.
    threshold : float, default 0.5
        A label is predicted where its probability is ``>= threshold``.
    """

    batch_size: int = SENTENCES_PER_BATCH
    learning_rate: float = 1e-4
    clip_norm: float = 5.0
    validate_every: int = 1000
    lr_patience: int = 5
    stop_patience: int = 20
    lr_threshold: float = 1e-4
    min_learning_rate: float = 1e-6
    max_steps: int | None = None
    seed: int = 0
    threshold: float = 0.5

    def __post_init__(self) -> None:
        counts = {
            "batch_size": self.batch_size,
            "validate_every": self.validate_every,
            "lr_patience": self.lr_patience,
            "stop_patience": self.stop_patience,
            "max_steps": 1 if self.max_steps is None else self.max_steps,
        }
        for name, value in counts.items():
            if value < 1:
                raise WordlensError(f"{name} must be at least 1; got {value}")
        positive = {
            "learning_rate": self.learning_rate,
            "clip_norm": self.clip_norm,
            "min_learning_rate": self.min_learning_rate,
        }
        for name, rate in positive.items():
            if not (math.isfinite(rate) and rate > 0):
                raise WordlensError(f"{name} must be a positive number; got {rate}")
        if not (math.isfinite(self.lr_threshold) and self.lr_threshold >= 0):
            raise WordlensError(f"lr_threshold must be >= 0; got {self.lr_threshold}")
        if self.min_learning_rate >= self.learning_rate:
            raise WordlensError(
                f"min_learning_rate ({self.min_learning_rate}) must be below learning_rate "
                f"({self.learning_rate})"
            )
        if not 0.0 < self.threshold < 1.0:
            raise WordlensError(f"threshold must be in (0, 1); got {self.threshold}")


@dataclass(frozen=True, eq=False)
class TrainResult:
    """What :func:`train_probe` did.

    Attributes
    ----------
    best_state : dict of str to Tensor
        The model's state at the best validation (already loaded into the model).
    best_step : int
        Step of that validation.
    best_dev_micro_f1 : float
        Its dev micro-F1.
    history : pandas.DataFrame
        One row per validation: ``step``, ``train_loss`` (mean loss of the steps since the
        previous validation), ``dev_micro_f1``, ``improved``, ``learning_rate`` (after this
        validation's update: the rate the next steps use).
    steps : int
        Optimizer steps run.
    stop_reason : {"no_improvement", "min_learning_rate", "max_steps"}
    seconds : float
        Wall-clock time of the whole training.
    """

    best_state: dict[str, Tensor]
    best_step: int
    best_dev_micro_f1: float
    history: pd.DataFrame
    steps: int
    stop_reason: StopReason
    seconds: float


def train_probe(
    model: EdgeProbe,
    train: ProbingSplit,
    dev: ProbingSplit,
    config: TrainConfig | None = None,
    *,
    progress: bool = False,
) -> TrainResult:
    """Train ``model`` on ``train``, validating on ``dev`` ([1]_ Appendix C; module notes).

    Parameters
    ----------
    model : EdgeProbe
        Built for the splits' layers, dimension, span count and labels; trained in place on the
        device its parameters are on.
    train, dev : ProbingSplit
        Training and validation data with the same labels.
    config : TrainConfig, optional
        Schedule; default the paper's.
    progress : bool, default False
        Draw a progress bar of the steps (its total is ``max_steps``, else the fewest steps
        after which training can stop, ``validate_every * stop_patience``).

    Returns
    -------
    TrainResult
        The model holds the best validation's weights and is left in eval mode.

    Raises
    ------
    WordlensError
        If the model or the two splits disagree.
    EmptyInputError
        If a split has no targets.
    """
    config = config or TrainConfig()
    _check_compatible(model, train, dev)
    started = time.perf_counter()
    torch.manual_seed(config.seed)
    order_rng = np.random.default_rng(config.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer,
        mode="max",
        factor=0.5,
        patience=config.lr_patience - 1,
        threshold=config.lr_threshold,
        threshold_mode="abs",
        eps=0.0,
    )
    loss_function = nn.BCEWithLogitsLoss()
    device = next(model.parameters()).device
    history: list[dict[str, float | int | bool]] = []
    recent_losses: list[float] = []
    best_f1, best_step, best_state = -math.inf, 0, _copy_state(model)
    validations_without_improvement = 0
    stop_reason: StopReason = "max_steps"
    total = config.max_steps or config.validate_every * config.stop_patience
    with progress_bar(progress, total, "training edge probe") as advance:
        for step, batch in enumerate(training_batches(train, config.batch_size, order_rng), 1):
            recent_losses.append(
                train_step(model, batch.to(device), optimizer, loss_function, config.clip_norm)
            )
            advance(1)
            at_max_steps = config.max_steps is not None and step >= config.max_steps
            if step % config.validate_every != 0 and not at_max_steps:
                continue
            dev_f1 = dev_micro_f1(model, dev, config)
            improved = dev_f1 > best_f1
            if improved:
                best_f1, best_step, best_state = dev_f1, step, _copy_state(model)
                validations_without_improvement = 0
            else:
                validations_without_improvement += 1
            scheduler.step(dev_f1)
            history.append(
                {
                    "step": step,
                    "train_loss": float(np.mean(recent_losses)),
                    "dev_micro_f1": dev_f1,
                    "improved": improved,
                    "learning_rate": float(optimizer.param_groups[0]["lr"]),
                }
            )
            recent_losses = []
            if validations_without_improvement >= config.stop_patience:
                stop_reason = "no_improvement"
                break
            if optimizer.param_groups[0]["lr"] < config.min_learning_rate:
                stop_reason = "min_learning_rate"
                break
            if at_max_steps:
                break
    model.load_state_dict(best_state)
    model.eval()
    return TrainResult(
        best_state=best_state,
        best_step=best_step,
        best_dev_micro_f1=best_f1,
        history=pd.DataFrame(history),
        steps=step,
        stop_reason=stop_reason,
        seconds=time.perf_counter() - started,
    )


def predict(
    model: EdgeProbe, split: ProbingSplit, batch_size: int = SENTENCES_PER_BATCH
) -> npt.NDArray[np.float32]:
    """Label probabilities of every target of ``split``, shape ``[n_targets, n_labels]``.

    Runs in eval mode (no dropout) without gradients; the model is left in eval mode. Rows follow
    the split's target order.
    """
    model.eval()
    device = next(model.parameters()).device
    probabilities = np.zeros((split.n_targets, split.n_labels), dtype=np.float32)
    sentences = split.sentences_with_targets()
    by_length = sentences[np.argsort(split.sentence_lengths[sentences], kind="stable")]
    with torch.inference_mode():
        for batch in batches(split, by_length, batch_size):
            logits = batch.to(device).logits(model)
            probabilities[batch.target_index] = torch.sigmoid(logits).float().cpu().numpy()
    return probabilities


def dev_micro_f1(model: EdgeProbe, split: ProbingSplit, config: TrainConfig) -> float:
    """Micro-F1 of ``model`` on ``split`` with labels predicted at ``config.threshold``."""
    predicted = predict(model, split, config.batch_size) >= config.threshold
    return micro_f1(split.labels, predicted)


def training_batches(
    split: ProbingSplit, batch_size: int, order_rng: np.random.Generator
) -> Iterator[ProbeBatch]:
    """Training batches forever, bucketed by length as AllenNLP's ``BucketIterator`` (which
    jiant v1 trained with): each epoch the sentences with targets are sorted by their length
    times a random factor in ``1 ± BUCKET_NOISE``, cut into batches, and the batches are visited
    in a fresh random order. Sentences of a batch have similar lengths, so little of a padded
    batch is padding (on UD EWT with 32 random sentences, about two thirds of it was)."""
    sentences = split.sentences_with_targets()
    lengths = split.sentence_lengths[sentences]
    while True:
        noise = order_rng.uniform(1 - BUCKET_NOISE, 1 + BUCKET_NOISE, len(sentences))
        by_length = sentences[np.argsort(lengths * noise, kind="stable")]
        starts = np.arange(0, len(by_length), batch_size)
        for start in order_rng.permutation(starts):
            yield from batches(split, by_length[start : start + batch_size], batch_size)


def train_step(
    model: EdgeProbe,
    batch: ProbeBatch,
    optimizer: torch.optim.Optimizer,
    loss_function: nn.Module,
    clip_norm: float,
) -> float:
    """One optimizer step on ``batch``; returns its loss."""
    model.train()
    optimizer.zero_grad()
    loss: Tensor = loss_function(batch.logits(model), batch.labels)
    loss.backward()  # type: ignore[no-untyped-call]
    nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    optimizer.step()
    return float(loss.detach())


def _copy_state(model: nn.Module) -> dict[str, Tensor]:
    return {name: value.detach().clone() for name, value in model.state_dict().items()}


def _check_compatible(model: EdgeProbe, train: ProbingSplit, dev: ProbingSplit) -> None:
    for name, split in (("train", train), ("dev", dev)):
        if split.n_targets == 0:
            raise EmptyInputError(f"the {name} split has no targets")
        if (split.n_layers, split.dim, split.two_spans) != (
            model.n_layers,
            model.input_dim,
            model.two_spans,
        ):
            raise WordlensError(
                f"the {name} split has {counted(split.n_layers, 'layer')} of "
                f"{counted(split.dim, 'dimension')} and "
                f"{'two spans' if split.two_spans else 'one span'} per target; the probe expects "
                f"{model.n_layers} x {model.input_dim} and "
                f"{'two spans' if model.two_spans else 'one span'}"
            )
        if split.n_labels != model.n_labels:
            raise WordlensError(
                f"the {name} split has {split.n_labels} labels; the probe has {model.n_labels}"
            )
    if train.label_names != dev.label_names:
        raise WordlensError("train and dev splits must have the same label names, in order")


def _check_shape(array: npt.NDArray[np.generic], shape: tuple[int, ...], name: str) -> None:
    if array.shape != shape:
        raise WordlensError(f"{name} must have shape {list(shape)}; got {list(array.shape)}")
