"""How to load a model, declared once for every command, the study file and the Python API.

:class:`ModelOptions` holds the model (alias, local path or hub id) and its loading options
(device, dtype, BOS policy, token budget, activation cache, trust-remote-code); its fields are
declared with :func:`wordlens.options.option`, so the command line's ``--device`` and a
study's ``device:`` are generated from the same declaration. A method asks it for what it needs:
:meth:`ModelOptions.embedder`, :meth:`ModelOptions.scorer` or :meth:`ModelOptions.cache`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from wordlens._files import ensure_writable_dir
from wordlens.errors import CacheError, WordlensError
from wordlens.options import option

if TYPE_CHECKING:
    from wordlens.models.base import BosPolicy, WordEmbedder
    from wordlens.models.cache import ActivationCache
    from wordlens.models.scoring import LMScorer

DTypeName = Literal["float32", "float16", "bfloat16"]
BosName = Literal["auto", "always", "never"]
Status = Callable[[str], AbstractContextManager[object]]
"""Shows ``text`` while a model loads (the command line's spinner); no-op by default."""

LOADING_OPTIONS = ("device", "dtype", "bos", "token_budget", "trust_remote_code")
"""The options that shape how weights load and run (a study takes them from a model entry)."""
CACHE_OPTIONS = ("no_cache", "cache_dir")
"""The activation-cache options (a study sets the cache for all its cells)."""


def _quiet(text: str) -> AbstractContextManager[object]:
    return nullcontext()


@dataclass(frozen=True)
class ModelOptions:
    """A model and how to load it.

    Attributes
    ----------
    model
        Alias (``wordlens models``), local path or hub id; None only for methods that can run
        without one (``sense-bias --senses``).
    device, dtype, bos, token_budget, trust_remote_code
        As :func:`wordlens.models.loading.load_model`.
    no_cache, cache_dir
        The activation cache (:class:`wordlens.models.cache.ActivationCache`).
    """

    model: str | None = option(
        None, "Alias (see `wordlens models`), local path or hub id.", short="m"
    )
    device: str = option("cpu", "Torch device: cpu, cuda, cuda:1, mps.")
    dtype: DTypeName = option("float32", "Weights dtype: float32, float16, bfloat16.")
    bos: BosName = option(
        "auto", "Causal models: prepend BOS when the tokenizer adds none (auto), always, never."
    )
    token_budget: int | None = option(
        None,
        "Max batch size x padded length per forward pass [default: 1024 on CPU].",
        none="default",
    )
    no_cache: bool = option(False, "Do not read or write the activation cache.", flag="no-cache")
    cache_dir: Path | None = option(
        None, "Activation cache directory [default: $WORDLENS_HOME/activations]."
    )
    trust_remote_code: bool = option(
        False, "Allow a hub model's own code to run (only for repositories you trust)."
    )

    def __post_init__(self) -> None:
        if self.dtype not in get_args(DTypeName):
            raise WordlensError(f"unknown dtype {self.dtype!r}: use float32, float16 or bfloat16")
        if self.bos not in get_args(BosName):
            raise WordlensError(f"unknown BOS policy {self.bos!r}: use auto, always or never")

    def replace(self, **changes: object) -> ModelOptions:
        """The same options with some changed (e.g. another ``model`` or ``bos``)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def required_model(self) -> str:
        """The model, or an error saying one is needed."""
        if self.model is None:
            raise WordlensError("no model given: pass --model (an alias, local path or hub id)")
        return self.model

    def embedder(self, *, bos: BosPolicy | None = None, status: Status = _quiet) -> WordEmbedder:
        """The model as a word embedder (:func:`wordlens.models.loading.load_model`); ``bos``
        overrides the option (a method's paper conventions)."""
        from wordlens.models.loading import load_model

        model = self.required_model()
        with status(f"loading {model}"):
            return load_model(
                model,
                device=self.device,
                dtype=self.dtype,
                bos=bos or self.bos,
                token_budget=self.token_budget,
                trust_remote_code=self.trust_remote_code,
            )

    def scorer(self, *, status: Status = _quiet) -> LMScorer:
        """The model as a sentence scorer (:func:`wordlens.models.scoring.load_scorer`)."""
        from wordlens.models.scoring import load_scorer

        model = self.required_model()
        with status(f"loading {model}"):
            return load_scorer(
                model,
                device=self.device,
                dtype=self.dtype,
                token_budget=self.token_budget,
                trust_remote_code=self.trust_remote_code,
            )

    def cache(self) -> ActivationCache | None:
        """The activation cache, its directory created and checked writable (call it before
        loading a model, so that an unwritable cache fails at once); None with ``no_cache``.

        Raises
        ------
        CacheError
            If the directory cannot be created or written.
        """
        from wordlens.models.cache import ActivationCache

        if self.no_cache:
            return None
        cache = ActivationCache(self.cache_dir)
        try:
            ensure_writable_dir(cache.root)
        except OSError as error:
            raise CacheError(
                f"activation cache directory {cache.root} is not writable ({error}); choose "
                "another with --cache-dir or WORDLENS_HOME, or pass --no-cache"
            ) from error
        return cache
