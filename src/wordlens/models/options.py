"""How to load a model, declared once for every command, the study file and the Python API.

:class:`ModelOptions` holds the model (alias, local path or hub id) and its loading options
(device, dtype, BOS policy, token budget, activation cache, trust-remote-code, pickle weights,
Unicode form); its
fields are declared with :func:`wordlens.options.option`, so the command line's ``--device`` and a
study's ``device:`` are generated from the same declaration. A method asks it for what it needs:
:meth:`ModelOptions.embedder`, :meth:`ModelOptions.scorer` or :meth:`ModelOptions.cache`.

A model that is already loaded (the Python API's ``wordlens.weat(model, ...)`` with a model from
:func:`wordlens.load_model`) travels as :class:`LoadedModel`, a :class:`ModelOptions` that hands
it back instead of loading it again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from wordlens._files import ensure_writable_dir
from wordlens.errors import CacheError, WordlensError
from wordlens.models.device import DEVICE_CHOICES, check_device
from wordlens.options import option
from wordlens.unicode_forms import UNICODE_FORMS, UnicodeForm

if TYPE_CHECKING:
    from wordlens.models.base import BosPolicy, WordEmbedder
    from wordlens.models.cache import ActivationCache
    from wordlens.models.scoring import LMScorer
    from wordlens.models.spec import ModelSpec

DTypeName = Literal["float32", "float16", "bfloat16"]
BosName = Literal["auto", "always", "never"]
Status = Callable[[str], AbstractContextManager[object]]
"""Shows ``text`` while a model loads (the command line's spinner); no-op by default."""

LOADING_OPTIONS = (
    "revision",
    "revisions",
    "device",
    "dtype",
    "bos",
    "token_budget",
    "trust_remote_code",
    "allow_pickle",
    "unicode",
)
"""The options that shape which weights load and how they run (a study takes them from a model
entry)."""
CACHE_OPTIONS = ("no_cache", "cache_dir")
"""The activation-cache options (a study sets the cache for all its cells)."""
RUN_OPTIONS = ("backend", "plan", "with_plan", "limit")
"""Where a command's runs go and whether they are planned first (a study has its own
``--backend`` and plans nothing)."""
BackendName = Literal["local", "ray"]


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
    revision
        The hub revision of a hub id (:func:`wordlens.models.loading.load_model`); not with
        ``revisions``.
    revisions
        The checkpoints a sweep runs on (:func:`wordlens.models.revisions.checkpoints`): each
        run gets these options with ``model`` (and ``revision``) of one checkpoint and no
        ``revisions``.
    device, dtype, bos, token_budget, trust_remote_code, allow_pickle, unicode
        As :func:`wordlens.models.loading.load_model` (``unicode`` applies to word vectors;
        sentence scores read sentences as given).
    backend
        ``local``, or ``ray`` (:mod:`wordlens.distributed`).
    limit
        Quick mode: a method that takes it (:attr:`~wordlens.methods.base.Method.limits`, which
        says what it keeps) runs on the first ``limit`` words, pairs or sentences of each set;
        ``wordlens reproduce`` passes it to every experiment; None: all.
    plan, with_plan
        Print the run's plan (:mod:`wordlens.plan`) and stop; plan first, then run, keeping the
        plan's estimates beside the measured times.
    no_cache, cache_dir
        The activation cache (:class:`wordlens.models.cache.ActivationCache`); every command
        that loads a model takes them, and those that score sentences (``likelihood-bias``,
        ``asymmetry``'s language models) keep no activations, so for them they change nothing.
    """

    model: str | None = option(
        None, "Alias (see `wordlens models`), local path or hub id.", short="m"
    )
    revision: str | None = option(
        None, "Hub revision (branch, tag or commit) of a hub id [its default branch]."
    )
    revisions: tuple[str, ...] | None = option(
        None,
        "Run once per training checkpoint and compare them (a sweep): 'all', or folder names or "
        "steps of a directory of checkpoint folders, or hub revisions (step0,step1000).",
    )
    device: str = option(
        "auto",
        f"Torch device: {DEVICE_CHOICES}; results record the one used.",
    )
    dtype: DTypeName = option("float32", "Weights dtype: float32, float16, bfloat16.")
    bos: BosName = option(
        "auto", "Causal models: prepend BOS when the tokenizer adds none (auto), always, never."
    )
    token_budget: int | None = option(
        None,
        "Max batch size x padded length per forward pass [default: 1024 on CPU; on a GPU, sized "
        "from its free memory].",
        none="default",
        minimum=1,
    )
    no_cache: bool = option(False, "Do not read or write the activation cache.", flag="no-cache")
    cache_dir: Path | None = option(
        None, "Activation cache directory [default: $WORDLENS_HOME/activations]."
    )
    trust_remote_code: bool = option(
        False, "Allow a hub model's own code to run (only for repositories you trust)."
    )
    allow_pickle: bool = option(
        False,
        "Load weights stored only as a pickle (pytorch_model.bin), tensors only (torch's "
        "weights_only loader) [default: safetensors weights only].",
    )
    unicode: UnicodeForm = option(
        "NFC",
        "Unicode form words and their texts are read in: NFC (composed and decomposed 'café' "
        "are one word) or as-given.",
    )
    backend: BackendName = option(
        "local",
        "Where it runs: local, or ray (a Ray started here; with --revisions each checkpoint is "
        "one Ray task, else forward passes run on Ray actors).",
    )
    plan: bool = option(
        False,
        "Print the stages, their work (texts, tokens, passes, permutations) and their time "
        "estimated from a short calibration on the device, then stop without running them.",
        flag="plan",
    )
    with_plan: bool = option(
        False,
        "Plan first (as --plan), then run: the report puts each stage's estimate beside its "
        "measured time.",
        flag="with-plan",
    )

    limit: int | None = option(
        None,
        "Quick mode: the first N words, pairs or sentences of each set (each method says "
        "which); the run records it, and its report and console say it is not comparable with "
        "the paper.",
        minimum=1,
    )

    def __post_init__(self) -> None:
        check_device(self.device)
        if self.dtype not in get_args(DTypeName):
            raise WordlensError(f"unknown dtype {self.dtype!r}: use float32, float16 or bfloat16")
        if self.bos not in get_args(BosName):
            raise WordlensError(f"unknown BOS policy {self.bos!r}: use auto, always or never")
        if self.backend not in get_args(BackendName):
            raise WordlensError(f"unknown backend {self.backend!r}: use local or ray")
        if self.revision is not None and self.revisions is not None:
            raise WordlensError(
                f"revision {self.revision!r} with revisions: a sweep loads each checkpoint at "
                "its own revision, the one revisions names; leave out revision"
            )
        if self.unicode not in UNICODE_FORMS:
            raise WordlensError(
                f"unknown Unicode form {self.unicode!r}: use {' or '.join(UNICODE_FORMS)}"
            )

    def replace(self, **changes: object) -> ModelOptions:
        """The same options with some changed (e.g. another ``model`` or ``bos``)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def required_model(self) -> str:
        """The model, or an error saying one is needed."""
        if self.model is None:
            raise WordlensError("no model given: pass --model (an alias, local path or hub id)")
        return self.model

    def one_model(self) -> str:
        """:meth:`required_model`, refused when ``revisions`` asks for a sweep: what loads one
        model cannot run several checkpoints.

        Raises
        ------
        WordlensError
            Without a model, or with ``revisions``.
        """
        if self.revisions is not None:
            raise WordlensError(
                "--revisions runs a method once per checkpoint, and this loads one model: load "
                "one checkpoint (its folder, or --revision for a hub id)"
            )
        return self.required_model()

    def embedder(self, *, bos: BosPolicy | None = None, status: Status = _quiet) -> WordEmbedder:
        """The model as a word embedder (:func:`wordlens.models.loading.load_model`); ``bos``
        overrides the option (a method's paper conventions)."""
        from wordlens.models.loading import load_model

        model = self.one_model()
        with status(f"loading {model}"):
            return load_model(
                model,
                revision=self.revision,
                device=self.device,
                dtype=self.dtype,
                bos=bos or self.bos,
                token_budget=self.token_budget,
                trust_remote_code=self.trust_remote_code,
                unicode=self.unicode,
                allow_pickle=self.allow_pickle,
            )

    def scorer(self, *, status: Status = _quiet) -> LMScorer:
        """The model as a sentence scorer (:func:`wordlens.models.scoring.load_scorer`)."""
        from wordlens.models.scoring import load_scorer

        model = self.one_model()
        with status(f"loading {model}"):
            return load_scorer(
                model,
                revision=self.revision,
                device=self.device,
                dtype=self.dtype,
                token_budget=self.token_budget,
                trust_remote_code=self.trust_remote_code,
                bos=self.bos,
                allow_pickle=self.allow_pickle,
            )

    def fresh_embedder(self, *, status: Status = _quiet) -> WordEmbedder:
        """A copy of the model that the caller may change in place (edge probing's randomized
        encoder): here a new :meth:`embedder`, loaded again."""
        return self.embedder(status=status)

    def loaded(self) -> WordEmbedder | LMScorer | None:
        """The model when it is already loaded (:class:`LoadedModel`); None here."""
        return None

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


@dataclass(frozen=True)
class LoadedModel(ModelOptions):
    """A model that is already loaded, with the cache options: :meth:`embedder` and
    :meth:`scorer` hand it back, so nothing loads it again.

    Build it with :meth:`around`. ``model`` and the loading options are the ones the model was
    loaded with, as its load spec records them (:func:`wordlens.models.spec.model_spec`; a
    static model records none: its name, and the defaults, which it ignores).

    Attributes
    ----------
    given
        The model: a word embedder (:func:`wordlens.models.loading.load_model`) or a sentence
        scorer (:func:`wordlens.models.scoring.load_scorer`).
    """

    given: WordEmbedder | LMScorer = dataclasses.field(kw_only=True, repr=False)

    @classmethod
    def around(cls, given: WordEmbedder | LMScorer, **options: Any) -> LoadedModel:
        """``given`` with cache options (``no_cache``, ``cache_dir``).

        Raises
        ------
        WordlensError
            If a loading option is given: they apply when a model loads, and this one is loaded.
        """
        clash = sorted(set(options) & set(LOADING_OPTIONS))
        if clash:
            raise WordlensError(
                f"{', '.join(clash)}: loading options apply when wordlens loads the model, and "
                f"{given.info.name} is already loaded; pass its name instead, or load it with "
                "these options"
            )
        spec = _load_spec(given)
        recorded = dict(spec.options) if spec is not None else {}
        loading = {name: recorded[name] for name in LOADING_OPTIONS if name in recorded}
        source = spec.source if spec is not None else given.info.name
        return cls(model=source, **loading, **options, given=given)

    def replace(self, **changes: object) -> ModelOptions:
        """The same options with some changed; another ``model`` is loaded by name (a plain
        :class:`ModelOptions` with these loading options)."""
        if "model" not in changes:
            return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
        kept = {field.name: getattr(self, field.name) for field in dataclasses.fields(ModelOptions)}
        return ModelOptions(**{**kept, **changes})

    def embedder(self, *, bos: BosPolicy | None = None, status: Status = _quiet) -> WordEmbedder:
        """The model itself.

        Raises
        ------
        WordlensError
            If it is a sentence scorer, or a transformer loaded with another BOS policy than
            ``bos`` (a method's paper conventions): its texts would not start as asked.
        """
        from wordlens.models.base import WordEmbedder

        if not isinstance(self.given, WordEmbedder):
            raise WordlensError(
                f"{self.model} is loaded as a sentence scorer (load_scorer) and this method "
                "needs word vectors: pass the model's name, or a model from load_model"
            )
        wanted = bos or self.bos
        spec = _load_spec(self.given)
        if spec is not None and spec.loader == "model" and wanted != self.bos:
            raise WordlensError(
                f"{self.model} was loaded with bos={self.bos!r} and this run needs "
                f"bos={wanted!r} (the method's paper conventions): pass the model's name, or "
                f"load it with load_model(..., bos={wanted!r})"
            )
        return self.given

    def scorer(self, *, status: Status = _quiet) -> LMScorer:
        """The model itself.

        Raises
        ------
        WordlensError
            If it is a word embedder (:func:`~wordlens.models.loading.load_model` loads no
            language-model head).
        """
        from wordlens.models.base import WordEmbedder

        if isinstance(self.given, WordEmbedder):
            raise WordlensError(
                f"{self.model} is loaded as word vectors (load_model) and this method scores "
                "sentences with a language model's head: pass the model's name, or a model "
                "from wordlens.models.scoring.load_scorer"
            )
        return self.given

    def fresh_embedder(self, *, status: Status = _quiet) -> WordEmbedder:
        """A new copy of the model, loaded again as its load spec records, so that changing it
        leaves the given one as it is.

        Raises
        ------
        WordlensError
            As :meth:`embedder`, or if the model has no load spec (built by hand).
        """
        from wordlens.models.loading import load_model
        from wordlens.models.spec import model_spec

        self.embedder()
        spec = model_spec(self.given)
        with status(f"loading {spec.source}"):
            return load_model(spec.source, **dict(spec.options))

    def loaded(self) -> WordEmbedder | LMScorer:
        """The given model."""
        return self.given


def _load_spec(model: object) -> ModelSpec | None:
    """The load spec a loader recorded on ``model``, or None (static models, hand-built ones)."""
    from wordlens.models.spec import ModelSpec

    spec = getattr(model, "load_spec", None)
    return spec if isinstance(spec, ModelSpec) else None
