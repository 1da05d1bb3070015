r"""The edge-probing classifier of Tenney et al. (2019) [1]_ on frozen, stored hidden states.

A target is one span (part of speech, entities, ...) or two spans (dependencies, SRL, coreference,
relations) of a sentence's subtokens; the probe sees only the encoder's vectors, so what it can
label is what the vectors make linearly-ish accessible ([1]_, Section 3.1, Figure 1).

Architecture, as reconstructed from [1]_ (Section 3, Appendix C; the equations are numbered as
there) and the authors' code (jiant v1, ``jiant/modules/edge_probing.py``,
``jiant/modules/simple_modules.py``, ``jiant/config/defaults.conf``):

0. **Layers** ([1]_ Section 3.2, Appendix D eq. 4; Peters et al. 2018 [2]_ eq. 1). The stored
   vectors carry ``L`` layers per subtoken. ``mix`` learns one weighted sum,

   .. math:: \mathbf{e}_i = \gamma \sum_{\ell} \operatorname{softmax}(\mathbf{s})_\ell\,
             \mathbf{h}_i^{(\ell)}

   (:class:`ScalarMix`, ``s`` initialised to 0 and ``γ`` to 1, as AllenNLP's ``ScalarMix``);
   ``cat`` concatenates the ``L`` vectors (``L·D`` dimensions; the paper's *cat* is the top layer
   and the lexical layer, i.e. ``L = 2``); ``single`` takes the one stored layer as it is.
   jiant then applies dropout to the token vectors (``dropout = 0.2`` in ``defaults.conf``,
   ``SentenceEncoder``) and zeroes the padding positions.
1. **Projection** (eq. 1): :math:`\mathbf{s}^{(k)}_i = A^{(k)} \mathbf{e}_i`, one affine map to
   256 dimensions per span (``k = 1, 2``), so span 1 (e.g. a predicate) and span 2 (e.g. an
   argument) can extract different information. jiant implements it as a 1-D convolution of
   kernel width 1 over the subtoken sequence; the **word-level CNN** baseline of Section 4 widens
   the kernel to 3 or 5 (``edgeprobe_cnn_context`` 1 or 2), same padding, so a position sees
   ±1 or ±2 neighbours. Here every width is the same operator (:class:`SequenceProjection`,
   width 1 when ``cnn_width`` is None), computed as one affine map of the concatenated window
   (the function a ``Conv1d`` computes, several times faster on CPU); positions past the end of
   a sentence are zero before it, and each sentence is its own row, so nothing leaks across
   padding or sentences.
2. **Span pooling** (eq. 2): :math:`\mathbf{r}^{(k)} = \operatorname{Pool}(\mathbf{s}^{(k)}_{i_k},
   \dots, \mathbf{s}^{(k)}_{j_k - 1})`, the self-attentive pooling of Lee et al. (2017) [3]_ as
   AllenNLP's ``SelfAttentiveSpanExtractor``: a linear score per position, a softmax over the
   positions inside the span only, and the score-weighted sum of the projected vectors
   (:class:`SelfAttentiveSpanPooling`; one per span, since jiant builds ``span_extractor1`` and
   ``span_extractor2``).
3. **Classifier** (eq. 3): the pooled spans are concatenated and fed to a two-layer MLP with a
   sigmoid output per label, :math:`P(\text{label}) = \sigma(W_2\, f(W_1 [\mathbf{r}^{(1)};
   \mathbf{r}^{(2)}]))`. ``f`` is jiant's ``Classifier`` of type ``"mlp"``: ``Linear -> Tanh ->
   LayerNorm -> Dropout -> Linear``, with ``classifier_hid_dim = 256`` and
   ``classifier_dropout = 0.3`` (the ``edges-tmpl`` block of ``defaults.conf``). The probe
   returns logits; the loss is ``torch.nn.BCEWithLogitsLoss`` (binary cross-entropy per label,
   Appendix C).

Shapes: ``B`` sentences of at most ``T`` subtokens, ``L`` stored layers of ``D`` dimensions, ``N``
targets, ``K`` labels. Spans are half-open subtoken ranges ``[first, stop)`` within their
sentence; ``target_row`` says which of the ``B`` rows a target's sentence is.

References
----------
.. [1] Tenney, I., Xia, P., Chen, B., Wang, A., Poliak, A., McCoy, R. T., Kim, N., Van Durme, B.,
   Bowman, S. R., Das, D. & Pavlick, E. (2019). What do you learn from context? Probing for
   sentence structure in contextualized word representations. *ICLR*.
.. [2] Peters, M. E., Neumann, M., Iyyer, M., Gardner, M., Clark, C., Lee, K. & Zettlemoyer, L.
   (2018). Deep contextualized word representations. *NAACL*, 2227-2237.
.. [3] Lee, K., He, L., Lewis, M. & Zettlemoyer, L. (2017). End-to-end neural coreference
   resolution. *EMNLP*, 188-197.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
import numpy.typing as npt
import torch
from torch import Tensor, nn

from wordlens.errors import TargetError, WordlensError

Combine = Literal["mix", "cat", "single"]
COMBINE_MODES: tuple[str, ...] = get_args(Combine)

PROJECTION_DIM = 256
"""Eq. 1: the span vectors are projected to 256 dimensions ([1]_ Appendix C)."""
HIDDEN_DIM = 256
"""Eq. 3: jiant's ``classifier_hid_dim`` for edge probing (``edges-tmpl``)."""
CLASSIFIER_DROPOUT = 0.3
"""Eq. 3: jiant's ``classifier_dropout`` for edge probing (``edges-tmpl``)."""
INPUT_DROPOUT = 0.2
"""jiant's ``dropout`` (``defaults.conf``), applied to the token vectors before the probe."""


class ScalarMix(nn.Module):
    r"""ELMo-style scalar mix of layers, Peters et al. (2018) [2]_ eq. 1.

    :math:`\gamma \sum_\ell \operatorname{softmax}(\mathbf{s})_\ell\, \mathbf{h}^{(\ell)}`, with
    the scalars ``s`` initialised to 0 (equal weights) and ``γ`` to 1.

    Parameters
    ----------
    n_layers : int
        Number of layers ``L`` mixed, >= 1.
    """

    def __init__(self, n_layers: int) -> None:
        super().__init__()
        _require_positive(n_layers=n_layers)
        self.scalars = nn.Parameter(torch.zeros(n_layers))
        self.gamma = nn.Parameter(torch.ones(()))

    def weights(self) -> Tensor:
        """Mixing weights ``softmax(s)``, shape ``[L]``; they sum to 1."""
        return torch.softmax(self.scalars, dim=0)

    def forward(self, layers: Tensor) -> Tensor:
        """Mix ``layers`` of shape ``[..., L, D]`` into ``[..., D]``.

        Fastest when ``layers`` is a view of layer-major storage (``layers.movedim(-2, 0)``
        contiguous, as the batches of :mod:`wordlens.probing.train` are): the mix and its
        gradient are then one matrix-vector product each, with no copy of ``layers``.
        """
        mixed: Tensor = self.gamma * torch.tensordot(self.weights(), layers.movedim(-2, 0), dims=1)
        return mixed


class SelfAttentiveSpanPooling(nn.Module):
    """Self-attentive span pooling, Lee et al. (2017) [3]_; [1]_ Appendix C eq. 2.

    As AllenNLP's ``SelfAttentiveSpanExtractor``: a linear scorer gives every position one score,
    a softmax over the positions inside the span (and only those) turns the scores into weights,
    and the span is the weighted sum of its vectors. All targets of a batch are pooled at once
    over the flat list of their ``M = Σ widths`` (target, position) pairs: a segment softmax
    (``scatter_reduce`` max, ``index_add`` sums) and a segment sum. The cost is linear in the
    positions actually pooled; a padded ``[N, W_max]`` grid would cost ``N · W_max``, and one
    long token (a URL of 30 subtokens) made that ten times larger on UD EWT batches.

    Parameters
    ----------
    dim : int
        Dimension ``P`` of the (projected) vectors pooled.
    """

    def __init__(self, dim: int) -> None:
        super().__init__()
        _require_positive(dim=dim)
        self.scorer = nn.Linear(dim, 1)

    def forward(self, sequence: Tensor, spans: Tensor, target_row: Tensor) -> Tensor:
        """Pool each target's span.

        Parameters
        ----------
        sequence : Tensor, shape ``[B, T, P]``
            Vectors of each sentence's positions.
        spans : Tensor of int64, shape ``[N, 2]``
            ``[first, stop)`` of each target within its row, ``0 <= first < stop <= T``.
        target_row : Tensor of int64, shape ``[N]``
            Row of ``sequence`` holding each target's sentence.

        Returns
        -------
        Tensor, shape ``[N, P]``
        """
        first = spans[:, 0]
        widths = spans[:, 1] - first
        n_targets = len(first)
        flat = sequence.flatten(end_dim=1)  # [B·T, P]
        pair_target = torch.repeat_interleave(torch.arange(n_targets, device=spans.device), widths)
        pair_start = torch.cumsum(widths, dim=0) - widths  # first pair of each target
        pair_offset = torch.arange(len(pair_target), device=spans.device) - pair_start[pair_target]
        pair_row = (target_row * sequence.shape[1] + first)[pair_target] + pair_offset  # [M]
        # index_select: its backward (index_add_) is several times faster on CPU than that of
        # advanced indexing (index_put_ with accumulation)
        pair_vectors = flat.index_select(0, pair_row)  # [M, P]
        scores = self.scorer(pair_vectors).squeeze(-1)  # [M]
        # softmax within each target's pairs; the max only shifts them (no gradient needed)
        span_max = torch.full((n_targets,), -torch.inf, dtype=scores.dtype, device=scores.device)
        span_max = span_max.scatter_reduce(0, pair_target, scores.detach(), "amax")
        exp_scores = torch.exp(scores - span_max[pair_target])
        totals = torch.zeros_like(span_max).index_add(0, pair_target, exp_scores)
        weights = exp_scores / totals[pair_target]  # [M]
        pooled = torch.zeros(
            (n_targets, flat.shape[1]), dtype=flat.dtype, device=flat.device
        ).index_add(0, pair_target, weights[:, None] * pair_vectors)
        return pooled


class SequenceProjection(nn.Module):
    """Eq. 1 projection, or the word-level CNN of [1]_ Section 4: one affine map of a window.

    Each position's output is an affine function of the ``width`` vectors centred on it (zeros
    beyond the sequence's ends): width 1 is the per-position projection of eq. 1, width
    ``2c + 1`` the convolution that sees ``c`` neighbours on each side (jiant's
    ``_make_cnn_layer``: ``Conv1d`` with kernel ``2c + 1`` and same padding). It is computed as
    a linear layer over the concatenated window, the same map as the convolution.

    Parameters
    ----------
    input_dim, output_dim : int
        Vector sizes before and after.
    width : int
        Window (kernel) width, odd and >= 1.
    """

    def __init__(self, input_dim: int, output_dim: int, width: int) -> None:
        super().__init__()
        _require_positive(input_dim=input_dim, output_dim=output_dim, width=width)
        if width % 2 == 0:
            raise WordlensError(f"the window width must be odd (centred); got {width}")
        self.width = width
        self.linear = nn.Linear(width * input_dim, output_dim)

    def forward(self, sequence: Tensor) -> Tensor:
        """Map ``[B, T, input_dim]`` to ``[B, T, output_dim]``."""
        context = self.width // 2
        padded = nn.functional.pad(sequence, (0, 0, context, context))  # [B, T + 2c, C]
        windows = padded.unfold(1, self.width, 1)  # [B, T, C, width]
        projected: Tensor = self.linear(windows.flatten(start_dim=2))
        return projected


class EdgeProbe(nn.Module):
    """Edge-probing classifier (module notes; [1]_ Section 3.1 and Appendix C eqs. 1-3).

    Parameters
    ----------
    input_dim : int
        Dimension ``D`` of each stored layer vector.
    n_layers : int
        Number ``L`` of stored layers per subtoken.
    n_labels : int
        Number ``K`` of labels (one sigmoid output each).
    combine : {"mix", "cat", "single"}
        How the ``L`` layers become one vector: learned scalar mix, concatenation (``L·D``), or
        the only layer (``L`` must be 1).
    two_spans : bool
        Whether targets have a second span (eq. 1-2 then use separate projection and pooling
        parameters per span).
    cnn_width : int or None, default None
        None: the affine projection of eq. 1. An odd width (3 or 5 in the paper): the word-level
        CNN of Section 4 replaces it.
    projection_dim : int, default 256
        Size of the projected span vectors (eq. 1).
    hidden_dim : int, default 256
        Hidden size of the MLP (eq. 3; jiant ``classifier_hid_dim``).
    dropout : float, default 0.3
        Dropout inside the MLP (jiant ``classifier_dropout``).
    input_dropout : float, default 0.2
        Dropout on the combined token vectors (jiant ``dropout``).
    """

    def __init__(
        self,
        input_dim: int,
        n_layers: int,
        n_labels: int,
        *,
        combine: Combine,
        two_spans: bool,
        cnn_width: int | None = None,
        projection_dim: int = PROJECTION_DIM,
        hidden_dim: int = HIDDEN_DIM,
        dropout: float = CLASSIFIER_DROPOUT,
        input_dropout: float = INPUT_DROPOUT,
    ) -> None:
        super().__init__()
        _require_positive(
            input_dim=input_dim,
            n_layers=n_layers,
            n_labels=n_labels,
            projection_dim=projection_dim,
            hidden_dim=hidden_dim,
        )
        _require_probability(dropout=dropout, input_dropout=input_dropout)
        if combine not in COMBINE_MODES:
            raise WordlensError(f"combine must be one of {COMBINE_MODES}; got {combine!r}")
        if combine == "single" and n_layers != 1:
            raise WordlensError(f"combine='single' needs exactly one layer; got {n_layers}")
        if cnn_width is not None and (cnn_width < 3 or cnn_width % 2 == 0):
            raise WordlensError(f"cnn_width must be None or an odd width >= 3; got {cnn_width}")
        self.input_dim = input_dim
        self.n_layers = n_layers
        self.n_labels = n_labels
        self.combine = combine
        self.two_spans = two_spans
        self.cnn_width = cnn_width
        self.mix = ScalarMix(n_layers) if combine == "mix" else None
        combined_dim = input_dim * n_layers if combine == "cat" else input_dim
        n_spans = 2 if two_spans else 1
        width = 1 if cnn_width is None else cnn_width
        self.input_dropout = nn.Dropout(input_dropout)
        self.projections = nn.ModuleList(
            SequenceProjection(combined_dim, projection_dim, width) for _ in range(n_spans)
        )
        self.poolings = nn.ModuleList(
            SelfAttentiveSpanPooling(projection_dim) for _ in range(n_spans)
        )
        self.classifier = nn.Sequential(
            nn.Linear(n_spans * projection_dim, hidden_dim),
            nn.Tanh(),
            nn.LayerNorm(hidden_dim),
            nn.Dropout(dropout),
            nn.Linear(hidden_dim, n_labels),
        )

    def forward(
        self,
        features: Tensor,
        mask: Tensor,
        span1: Tensor,
        span2: Tensor | None,
        target_row: Tensor,
    ) -> Tensor:
        """Label logits of every target.

        Parameters
        ----------
        features : Tensor of float32, shape ``[B, T, L, D]``
            Stored hidden states of ``B`` right-padded sentences.
        mask : Tensor of bool, shape ``[B, T]``
            True at each sentence's own positions (a prefix of each row).
        span1 : Tensor of int64, shape ``[N, 2]``
            First span ``[first, stop)`` of each target, within its sentence.
        span2 : Tensor of int64, shape ``[N, 2]``, or None
            Second span; required exactly when the probe has ``two_spans``.
        target_row : Tensor of int64, shape ``[N]``
            Row of ``features`` holding each target's sentence.

        Returns
        -------
        Tensor, shape ``[N, K]``
            Logits; ``torch.sigmoid`` gives the label probabilities.

        Raises
        ------
        WordlensError
            If the shapes disagree with the probe or each other.
        TargetError
            If a span is empty or runs outside its sentence.
        """
        spans = self._spans(span1, span2)
        self._check_inputs(features, mask, spans, target_row)
        tokens = self.input_dropout(self._combine_layers(features))
        tokens = tokens * mask[..., None].to(tokens.dtype)  # padding positions are zero
        pooled = [
            pooling(projection(tokens), span, target_row)
            for projection, pooling, span in zip(
                self.projections, self.poolings, spans, strict=True
            )
        ]
        logits: Tensor = self.classifier(torch.cat(pooled, dim=-1))
        return logits

    def mix_weights(self) -> npt.NDArray[np.float64] | None:
        """Learned scalar-mix weights ``softmax(s)``, shape ``[L]``; None unless mixing."""
        if self.mix is None:
            return None
        with torch.no_grad():
            return self.mix.weights().detach().cpu().double().numpy()

    def _combine_layers(self, features: Tensor) -> Tensor:
        """``[B, T, L, D]`` to ``[B, T, C]`` (``C = D``, or ``L·D`` for ``cat``)."""
        if self.mix is not None:
            mixed: Tensor = self.mix(features)
            return mixed
        return features.flatten(start_dim=2)

    def _spans(self, span1: Tensor, span2: Tensor | None) -> tuple[Tensor, ...]:
        if self.two_spans != (span2 is not None):
            expected = "two spans (span2 given)" if self.two_spans else "one span (span2=None)"
            raise WordlensError(f"this probe takes {expected}")
        return (span1,) if span2 is None else (span1, span2)

    def _check_inputs(
        self, features: Tensor, mask: Tensor, spans: tuple[Tensor, ...], target_row: Tensor
    ) -> None:
        if features.ndim != 4 or tuple(features.shape[2:]) != (self.n_layers, self.input_dim):
            raise WordlensError(
                f"features must have shape [B, T, {self.n_layers}, {self.input_dim}]; "
                f"got {list(features.shape)}"
            )
        if tuple(mask.shape) != tuple(features.shape[:2]) or mask.dtype != torch.bool:
            raise WordlensError(
                f"mask must be bool of shape {list(features.shape[:2])}; "
                f"got {mask.dtype} {list(mask.shape)}"
            )
        if target_row.ndim != 1 or bool(
            ((target_row < 0) | (target_row >= features.shape[0])).any()
        ):
            raise WordlensError(f"target_row must be 1-D with rows in [0, {features.shape[0]})")
        lengths = mask.sum(dim=1)[target_row]
        for number, span in enumerate(spans, start=1):
            check_spans(span, lengths, f"span{number}")


def check_spans(spans: Tensor, lengths: Tensor, name: str) -> None:
    """Check that every span is a non-empty ``[first, stop)`` range inside its sentence.

    Parameters
    ----------
    spans : Tensor of int, shape ``[N, 2]``
    lengths : Tensor of int, shape ``[N]``
        Subtokens in each target's sentence.
    name : str
        What the spans are, for the message.

    Raises
    ------
    WordlensError
        If ``spans`` is not ``[N, 2]``.
    TargetError
        Naming the first target whose span is empty or leaves its sentence.
    """
    if tuple(spans.shape) != (len(lengths), 2):
        raise WordlensError(f"{name} must have shape [{len(lengths)}, 2]; got {list(spans.shape)}")
    outside = (spans[:, 0] < 0) | (spans[:, 1] <= spans[:, 0]) | (spans[:, 1] > lengths)
    if bool(outside.any()):
        bad = int(torch.nonzero(outside)[0, 0])
        raise TargetError(
            f"{name} of target {bad} is {spans[bad].tolist()}: spans must be non-empty "
            f"[first, stop) ranges inside their sentence ({int(lengths[bad])} subtokens)"
        )


def _require_positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise WordlensError(f"{name} must be at least 1; got {value}")


def _require_probability(**values: float) -> None:
    for name, value in values.items():
        if not 0.0 <= value < 1.0:
            raise WordlensError(f"{name} must be in [0, 1); got {value}")
