"""The interface every model implements: targets in, per-layer word vectors out.

Layers are numbered as Hugging Face ``hidden_states``: 0 is the embedding output and ``1..L`` the
blocks, so a model with ``L`` blocks has ``L + 1`` layers. A static model (GloVe, word2vec, ...) has
exactly one layer, 0.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from wordlens.contexts import Target, decontextualized_targets
from wordlens.errors import EmptyInputError, WordlensError, shown_word
from wordlens.unicode_forms import UnicodeForm, normalized

if TYPE_CHECKING:  # numpy only in annotations: the command line's configs import this module
    import numpy as np
    import numpy.typing as npt

    from wordlens.models.cache import ActivationCache

Pooling = Literal["first", "last", "mean", "max"]
POOLINGS: tuple[Pooling, ...] = get_args(Pooling)

ModelKind = Literal["causal", "masked", "encoder", "encoder-decoder", "static"]

_STATIC_LAYER_NOTES: ContextVar[list[str] | None] = ContextVar(
    "wordlens_static_layer_notes", default=None
)
"""The notes of :func:`static_layer_zero` while inside it."""


@contextmanager
def static_layer_zero() -> Iterator[list[str]]:
    """Inside, a static model asked for layers it does not have (a study's ``layers: [0, 6]``
    for every model) uses layer 0 instead of failing (:meth:`WordEmbedder.resolve_layers`);
    yields the notes that say so, one per time it happened."""
    notes: list[str] = []
    token = _STATIC_LAYER_NOTES.set(notes)
    try:
        yield notes
    finally:
        _STATIC_LAYER_NOTES.reset(token)


def static_layer_notes() -> list[str]:
    """The notes of :func:`static_layer_zero` so far (none outside it), without repeats."""
    return list(dict.fromkeys(_STATIC_LAYER_NOTES.get() or []))


#: Whether a causal model's texts start with a BOS token (:mod:`wordlens.models.hf`).
BosPolicy = Literal["auto", "always", "never"]
BOS_POLICIES: tuple[BosPolicy, ...] = get_args(BosPolicy)


@dataclass(frozen=True)
class Embeddings:
    """Word-in-context vectors of a batch of targets.

    Attributes
    ----------
    vectors
        float32 array ``[n_targets, n_layers, hidden]``; ``vectors[i, j]`` is target ``i`` at
        layer ``layers[j]``.
    n_subtokens
        int64 array ``[n_targets]``: how many subtokens each target spans (1 for static models).
    layers
        The hidden-state layer indices along axis 1.
    pooling
        How subtoken vectors were pooled into one word vector.
    """

    vectors: npt.NDArray[np.float32]
    n_subtokens: npt.NDArray[np.int64]
    layers: tuple[int, ...]
    pooling: Pooling

    def at_layer(self, layer: int) -> npt.NDArray[np.float32]:
        """The ``[n_targets, hidden]`` vectors of one hidden-state layer."""
        try:
            position = self.layers.index(layer)
        except ValueError:
            raise WordlensError(f"layer {layer} was not extracted (have {self.layers})") from None
        return self.vectors[:, position, :]


@dataclass(frozen=True)
class ModelInfo:
    """What identifies a loaded model; written into every result.

    ``fingerprint`` changes whenever anything that changes the vectors changes: the weights
    (content hash or hub revision), the dtype, the tokenizer and the input conventions (BOS).
    """

    name: str
    kind: ModelKind
    n_layers: int
    hidden_size: int
    fingerprint: str
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "n_layers": self.n_layers,
            "hidden_size": self.hidden_size,
            "fingerprint": self.fingerprint,
            **self.details,
        }


def check_pooling(pooling: str) -> Pooling:
    """Validate a pooling name."""
    if pooling not in POOLINGS:
        raise WordlensError(f"unknown pooling {pooling!r}; choose one of {', '.join(POOLINGS)}")
    return pooling


class WordEmbedder(ABC):
    """A model that maps targets (words in context) to per-layer vectors."""

    #: The Unicode form texts and words are put in before the model reads them
    #: (:func:`wordlens.contexts.normalized`); set by :func:`~wordlens.models.loading.load_model`.
    unicode_form: UnicodeForm = "NFC"

    def spelling(self, word: str) -> str:
        """``word`` as the model reads it: in :attr:`unicode_form`."""
        return normalized(word, self.unicode_form)

    @property
    @abstractmethod
    def info(self) -> ModelInfo:
        """Identity, size and fingerprint of the model."""

    @property
    def n_layers(self) -> int:
        """Number of hidden-state layers, embedding output included."""
        return self.info.n_layers

    def __repr__(self) -> str:
        """One line: class, name, kind, layers, width and, for a torch model, where it runs
        (``<HFEmbedder minilm-l6: encoder, 7 layers, 384 d, cpu, float32>``)."""
        try:
            info = self.info
        except Exception:  # a half-built model still prints
            return object.__repr__(self)
        parts = [info.kind, f"{info.n_layers} layer{'' if info.n_layers == 1 else 's'}"]
        parts.append(f"{info.hidden_size} d")
        if info.details.get("dtype") is not None:  # a static model's "cpu" says nothing
            parts += [str(info.details[key]) for key in ("device", "dtype") if key in info.details]
        return f"<{type(self).__name__} {info.name}: {', '.join(parts)}>"

    def resolve_layers(self, layers: Sequence[int] | None) -> tuple[int, ...]:
        """Validate requested layers (negative counts from the top); ``None`` means all.

        Inside :func:`static_layer_zero` (a study's cells: one ``layers`` for every model), a
        static model asked for layers it does not have uses layer 0, its only one, and says so
        in a note instead of failing."""
        if layers is None:
            return tuple(range(self.n_layers))
        notes = _STATIC_LAYER_NOTES.get()
        static = notes is not None and self.info.kind == "static" and self.n_layers == 1
        if static and notes is not None and any(layer not in (0, -1) for layer in layers):
            asked = ", ".join(map(str, layers))
            notes.append(
                f"layers {asked} asked: {self.info.name} is a static model with layer 0 only, "
                "so layer 0 is used"
            )
            return (0,)
        resolved = []
        for layer in layers:
            index = layer + self.n_layers if layer < 0 else layer
            if not 0 <= index < self.n_layers:
                raise WordlensError(
                    f"layer {layer} out of range for {self.info.name}, which has layers "
                    f"0..{self.n_layers - 1}"
                )
            resolved.append(index)
        if not resolved:
            raise EmptyInputError("no layers requested")
        return tuple(dict.fromkeys(resolved))

    def missing_words(self, words: Sequence[str], *, tell_apart: bool = True) -> list[str]:
        """The distinct words the model cannot embed or cannot tell apart, in order of first
        appearance: the keys of :meth:`missing_reasons`."""
        return list(self.missing_reasons(words, tell_apart=tell_apart))

    def inside_tokens(self, targets: Sequence[Target]) -> list[int]:
        """Indices of the targets whose span starts or ends inside one of the model's subtokens
        (:func:`wordlens.models.align.inside_tokens`); ``embed`` refuses them unless they allow
        it (:attr:`~wordlens.contexts.Target.shares_tokens`). None for a static model, which
        reads whole words."""
        return []

    def missing_reasons(self, words: Sequence[str], *, tell_apart: bool = True) -> dict[str, str]:
        """Why each word the model cannot embed, or cannot tell apart from another of ``words``,
        is left out: word → reason, in order of first appearance. None by default; models
        override this (a static vocabulary's unknown words, a tokenizer's unknown tokens).

        ``tell_apart`` also leaves out words the model reads as another word's subtokens: right
        when the words are read alone or in one template; off when each word is read in its own
        contexts (sense vectors from glosses), which tell them apart.
        """
        return {}

    @abstractmethod
    def embed(
        self,
        targets: Sequence[Target],
        layers: Sequence[int] | None = None,
        pooling: Pooling = "mean",
        *,
        cache: ActivationCache | None = None,
        progress: bool = False,
    ) -> Embeddings:
        """Vectors ``[n_targets, n_layers, hidden]`` of each target at the requested layers.

        Parameters
        ----------
        targets
            Words in context (see :mod:`wordlens.contexts`).
        layers
            Hidden-state layers to return (0 = embedding output); ``None`` for all.
        pooling
            How to pool a word's subtokens: ``first``, ``last``, ``mean`` or ``max``
            (element-wise over the word's own subtokens only).
        cache
            An on-disk activation cache; targets already cached are not recomputed.
        progress
            Show a progress bar.
        """

    def embed_poolings(
        self,
        targets: Sequence[Target],
        layers: Sequence[int] | None,
        poolings: Sequence[Pooling],
        *,
        cache: ActivationCache | None = None,
        progress: bool = False,
    ) -> dict[Pooling, Embeddings]:
        """Vectors of the same targets under several poolings (pooling → :class:`Embeddings`).

        With the activation cache, targets computed for one pooling are not recomputed for it
        again; models may override this to pool one forward pass several ways.
        """
        if not poolings:
            raise EmptyInputError("no pooling requested")
        return {
            pooling: self.embed(targets, layers, pooling, cache=cache, progress=progress)
            for pooling in dict.fromkeys(poolings)
        }

    def embed_words(
        self,
        words: Sequence[str],
        layers: Sequence[int] | None = None,
        pooling: Pooling = "mean",
        *,
        cache: ActivationCache | None = None,
        progress: bool = False,
    ) -> Embeddings:
        """Decontextualized vectors: each word embedded alone (after BOS for causal models)."""
        return self.embed(
            decontextualized_targets(words), layers, pooling, cache=cache, progress=progress
        )


#: How many of the other words an indistinct word's reason names.
_NAMED_TWINS = 3


def indistinct_words(
    words: Sequence[str],
    keys: Sequence[Hashable | None],
    sameness: str,
    spelling: Callable[[str], str] = str,
) -> dict[str, str]:
    """The distinct words whose key equals another distinct word's, with the reason.

    Two words a tokenizer maps to the same token ids (an uncased tokenizer's "AIDS" and "aids",
    two Chinese idioms of one known character and three unknown ones) get the same vectors: the
    model cannot tell them apart, so neither carries its own meaning.

    Parameters
    ----------
    words
        Distinct words.
    keys
        Per word, what the model sees of it (a tuple of token ids); ``None`` for a word left
        out for another reason.
    sameness
        How the reason names the shared key, e.g. ``"the same token ids"``.
    spelling
        The form in which the model reads a word (:meth:`WordEmbedder.spelling`): two words
        with one spelling ("café" composed and decomposed, read as NFC) are one word, not two
        the model cannot tell apart.

    Returns
    -------
    dict
        word → ``"<sameness> as 'x', 'y' and 2 more"``, in the order of ``words``.
    """
    groups: dict[Hashable, list[str]] = {}
    for word, key in zip(words, keys, strict=True):
        if key is not None:
            groups.setdefault(key, []).append(word)
    reasons = {}
    for word, key in zip(words, keys, strict=True):
        twins = (
            [other for other in groups.get(key, []) if spelling(other) != spelling(word)]
            if key is not None
            else []
        )
        if twins:
            named = ", ".join(shown_word(twin) for twin in twins[:_NAMED_TWINS])
            more = f" and {len(twins) - _NAMED_TWINS} more" if len(twins) > _NAMED_TWINS else ""
            reasons[word] = f"{sameness} as {named}{more}"
    return reasons
