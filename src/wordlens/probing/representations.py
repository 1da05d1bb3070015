"""What the probe reads: the representations of Tenney et al. (2019, Section 3.2 and Section 4).

Names (``wordlens probe --repr``, comma-separated):

``top``
    The top layer.
``lex``
    The lexical layer (:data:`LEXICAL`), the paper's lexical baseline: "for GPT and for BERT, we
    use the learned subword embeddings from the full model" (Section 4, "Lexical Baselines").
    As jiant v1.3.2 computes it (``transformers_output_mode = "only"``,
    ``jiant/huggingface_transformers_interface/modules.py:295-296`` for BERT, ``:353-354``
    RoBERTa, ``:408-409`` ALBERT): the word-piece embedding rows passed through the embeddings'
    LayerNorm, without the position and token-type embeddings that hidden state 0 adds; for a
    model without an embedding LayerNorm (a causal LM such as Llama), the rows of the input
    embedding table, as jiant's GPT-2 (``modules.py:600``, ``self.model.wte(ids)``). See
    :func:`wordlens.probing.features.lexical_vectors`.
``cat``
    The top layer concatenated with the lexical layer (paper Section 3.2, "cat"), in jiant's
    order: ``torch.cat([available_layers[-1], lex_seq], dim=2)`` (``modules.py:147``), with the
    same ``lex_seq`` as ``lex``.
``mix``
    A learned scalar mix of every hidden state, 0 to the top (Peters et al. 2018, eq. 1; the
    paper's "mix"). Hidden state 0 here is the model's embedding output (word, position and
    token-type embeddings, normalized), as in jiant v1.3.2, which mixes
    ``hidden_states[: max_layer + 1]`` (``modules.py:140``, ``:149``). (jiant v1.0.0, the
    paper's release, mixed ``[h_lex] + encoded_layers`` instead, ``jiant/bert/utils.py:140``:
    the lexical layer in place of hidden state 0.)
``layer:K``
    Hidden state ``K`` alone (layer-wise curves); ``layers`` expands to every layer.
    ``layer:0`` is the embedding output, not the lexical layer.
``cnn3``, ``cnn5``
    The lexical layer under a convolution of width 3 or 5 replacing the projection (paper Section
    4, "Word-level CNN": "we extend our lexical baseline").
``random-<name>``
    Any of the above on the randomized encoder: same architecture, random orthonormal weights
    above the lexical layer (paper Section 4; :func:`wordlens.probing.features.randomize_encoder`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from wordlens.errors import WordlensError

Combine = Literal["mix", "cat", "single"]

RANDOM_PREFIX = "random-"
LEXICAL = -1
"""Layer id of the lexical layer (jiant's ``lex_seq``): not a hidden state, so no index of
``hidden_states``; the features store it after the hidden states."""
_NAMES = ("top", "lex", "cat", "mix", "layer:K", "layers", "cnn3", "cnn5")


@dataclass(frozen=True)
class Representation:
    """One representation: the layers the probe reads and how it combines them.

    Attributes
    ----------
    name
        As written, e.g. ``"mix"``, ``"layer:3"``, ``"random-top"``.
    layers
        Layers read, in order: hidden-state indices (0 = the embedding output) or
        :data:`LEXICAL`.
    combine
        ``mix`` (scalar mix), ``cat`` (concatenation) or ``single`` (one layer).
    cnn_width
        Width of the convolution replacing the projection, or ``None``.
    randomized
        Whether the vectors come from the randomized encoder.
    """

    name: str
    layers: tuple[int, ...]
    combine: Combine
    cnn_width: int | None = None
    randomized: bool = False


def parse_representation(name: str, n_layers: int) -> list[Representation]:
    """The representation(s) a name stands for (``layers``: one per layer) for a model with
    ``n_layers`` hidden states (embedding output included).

    Raises
    ------
    WordlensError
        If the name or the layer is unknown.
    """
    text = name.strip().lower()
    randomized = text.startswith(RANDOM_PREFIX)
    base = text.removeprefix(RANDOM_PREFIX)
    prefix = RANDOM_PREFIX if randomized else ""
    top = n_layers - 1
    fixed: dict[str, tuple[tuple[int, ...], Combine, int | None]] = {
        "top": ((top,), "single", None),
        "lex": ((LEXICAL,), "single", None),
        "cat": ((top, LEXICAL), "cat", None),
        "mix": (tuple(range(n_layers)), "mix", None),
        "cnn3": ((LEXICAL,), "single", 3),
        "cnn5": ((LEXICAL,), "single", 5),
    }
    if base in fixed:
        layers, combine, width = fixed[base]
        return [Representation(f"{prefix}{base}", layers, combine, width, randomized)]
    if base == "layers":
        return [
            Representation(f"{prefix}layer:{layer}", (layer,), "single", None, randomized)
            for layer in range(n_layers)
        ]
    if base.startswith("layer:"):
        try:
            layer = int(base.removeprefix("layer:"))
        except ValueError:
            raise WordlensError(f"cannot read the layer of {name!r}: use e.g. layer:3") from None
        if not 0 <= layer < n_layers:
            raise WordlensError(f"{name!r}: the model has layers 0 to {top}")
        return [Representation(f"{prefix}layer:{layer}", (layer,), "single", None, randomized)]
    raise WordlensError(
        f"unknown representation {name!r}; choose from {', '.join(_NAMES)}, each optionally "
        f"prefixed by {RANDOM_PREFIX!r}"
    )


def parse_representations(names: str, n_layers: int) -> list[Representation]:
    """A comma-separated list of names, expanded and with repeats dropped (first kept).

    Raises
    ------
    WordlensError
        If the list is empty or a name is unknown.
    """
    parsed: dict[str, Representation] = {}
    for name in (part for part in names.split(",") if part.strip()):
        for representation in parse_representation(name, n_layers):
            parsed.setdefault(representation.name, representation)
    if not parsed:
        raise WordlensError("no representation given; e.g. --repr mix,cat,lex")
    return list(parsed.values())
