"""Frozen-encoder features for edge probing: every subtoken's vector at every layer, computed once.

Tenney et al. (2019, Section 3) train the probe on fixed contextual vectors of each (sub)token;
the encoder is never updated, so its vectors are computed once per sentence and model, stored
in the activation cache (:mod:`wordlens.models.cache`, a ``subtokens-float16`` store: one cache
row per subtoken, keyed by the sha256 of the sentence's input ids and the position) and reused
by every representation (top, cat, mix, single layers, lexical, CNN) and every rerun.

The features of one call are written to disk as its batches are read or computed, layer-major:
one memory-mapped file per layer (:mod:`wordlens.probing.layer_files`), so RAM holds one batch,
never the split x the layers (smollm2-135m on the UD EWT training split: 8.7 GiB). With a cache,
the files stay in ``<cache>/<fingerprint>/probing-features/<key>`` (removed with the cache entry
by ``wordlens cache clear``), named by a digest of the model fingerprint, the layers and every
sentence's input ids, and a rerun reads them without touching the activation cache; a folder
left incomplete by an interrupted run is rebuilt from the cache.

An interrupted extraction resumes: batches are planned over all sentences, cached or not, and a
batch is written as one shard, so a rerun computes exactly the missing batches, with the same
composition, and its vectors are bit-identical to an uninterrupted run's. Each batch is claimed
in the cache before it is computed, so two extractions on one cache compute it once
(:mod:`wordlens.models.batch_runs`).

Vectors are stored in float16 (half the space of float32: UD EWT train with minilm-l6 is
285K subtoken rows x 7 layers x 384, 1.5 GB); the probe reads them as float32.

The lexical layer (the ``lex``, ``cat`` and CNN representations,
:data:`~wordlens.probing.representations.LEXICAL`) is not a hidden state: it is the word-piece
embedding rows without position and token-type embeddings (:func:`lexical_vectors`). It is
appended after the hidden states when asked for (``lexical=True``) and is computed from the input
ids whenever the layer files are built (one table lookup and a normalization: milliseconds for UD
EWT), never read from or written to the activation cache. The cache holds hidden states only,
keyed by hidden-state layer, so the embedding output (hidden state 0, which adds position and
token-type embeddings) can never stand in for the lexical vectors.

The randomized encoder (:func:`randomize_encoder`, paper Section 4 "Randomized ELMo") keeps the
lexical layer and replaces every weight matrix above it with a random orthonormal matrix.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import torch

from wordlens.errors import EmptyInputError, TargetError, WordlensError
from wordlens.models.batch_runs import BatchWork, run_batches
from wordlens.models.cache import ActivationCache, CacheStore, Claim, batch_name
from wordlens.models.hf import Encoded, HFEmbedder, batches_by_token_budget
from wordlens.probing.layer_files import LayerFile, spill, spill_key
from wordlens.probing.representations import LEXICAL
from wordlens.probing.retokenize import Retokenized, retokenize
from wordlens.progress import progress_bar

#: The activation-cache "pooling" of per-subtoken rows (its store holds float16 vectors).
SUBTOKEN_STORE = "subtokens"
#: Input ids per call of :func:`lexical_vectors` (bounds its float32 working memory).
LEXICAL_CHUNK = 65536
#: The folder of layer files in a model's activation-cache entry.
FEATURES_FOLDER = "probing-features"


@dataclass(frozen=True)
class SentenceFeatures:
    """Every sentence's subtoken vectors, sentences back to back, one file per layer.

    Attributes
    ----------
    files
        Per layer of ``layers``, its vectors ``[n_rows, dim]`` float16 on disk
        (:class:`~wordlens.probing.layer_files.LayerFile`): row ``sentence_offsets[i] + p`` is
        subtoken ``p`` of sentence ``i`` (special tokens and BOS included, as the model read it).
    sentence_offsets
        ``[n_sentences + 1]`` int64.
    layers
        The layers of ``files``: hidden-state indices (0 = the embedding output), then
        :data:`~wordlens.probing.representations.LEXICAL` when the lexical layer was asked for.
    retokenized
        Per sentence, its input ids and each source token's subtoken range.
    computed
        Sentences computed by this call; the others came from the cache (a sentence with the
        same input ids as one cached before, e.g. "Thank you ." in two splits, is read).
    lexical_layer
        How the lexical layer was computed (:func:`lexical_layer`), or ``None`` without it.
    """

    files: tuple[LayerFile, ...]
    sentence_offsets: npt.NDArray[np.int64]
    layers: tuple[int, ...]
    retokenized: tuple[Retokenized, ...]
    computed: int
    lexical_layer: str | None = None

    @property
    def n_rows(self) -> int:
        """Subtoken rows, all sentences."""
        return int(self.sentence_offsets[-1])

    def layer(self, layer: int) -> LayerFile:
        """The file of one layer (a hidden-state index or
        :data:`~wordlens.probing.representations.LEXICAL`).

        Raises
        ------
        WordlensError
            If the features do not hold that layer.
        """
        if layer not in self.layers:
            raise WordlensError(
                f"the features hold layers {list(self.layers)} ({LEXICAL} = the lexical layer), "
                f"not {layer}"
            )
        return self.files[self.layers.index(layer)]


def sentence_key(input_ids: Sequence[int]) -> str:
    """Cache key of a sentence: sha256 of its input ids (the model's own tokens)."""
    return hashlib.sha256(json.dumps(list(input_ids)).encode()).hexdigest()[:32]


def sentence_features(
    embedder: HFEmbedder,
    sentences: Sequence[Sequence[str]],
    *,
    folder: Path | None = None,
    layers: Sequence[int] | None = None,
    retokenized: Sequence[Retokenized] | None = None,
    cache: ActivationCache | None = None,
    lexical: bool = False,
    progress: bool = False,
) -> SentenceFeatures:
    """The subtoken vectors of tokenized sentences at ``layers`` (default all), in layer files
    (module notes): read from ``folder`` when an earlier call wrote them there, else from the
    cache where it has them and from forward passes of the frozen model for the rest, a batch
    of sentences at a time; with ``lexical``, the lexical layer after them
    (:func:`lexical_vectors`, never cached).

    Parameters
    ----------
    embedder
        The model (masked, causal or encoder; a causal model's vectors see the left context only).
    sentences
        Source tokens of each sentence (the model reads them joined by single spaces).
    folder
        Where the layer files go, in a subfolder named by their content; ``None``: the cache's
        entry for this model (``<cache>/<fingerprint>/probing-features``).
    layers
        Hidden-state layers to keep (0 = lexical); ``None`` for all.
    retokenized
        The sentences already retokenized by this model's tokenizer (e.g. the features of
        another model with the same tokenizer: the randomized encoder); ``None`` retokenizes.
    cache
        The activation cache; ``None`` computes everything and stores nothing.
    lexical
        Append the lexical layer (:data:`~wordlens.probing.representations.LEXICAL`) to axis 1.
    progress
        Show a progress bar over the sentences computed.

    Raises
    ------
    EmptyInputError
        If there are no sentences.
    TargetError
        If a sentence is longer than the model's maximum input (its index is named).
    WordlensError
        If neither ``folder`` nor ``cache`` is given; with ``lexical``, if the model's lexical
        layer cannot be located or is not of the hidden size (see :func:`lexical_vectors`).
    """
    if not sentences:
        raise EmptyInputError("no sentences to encode")
    if folder is None and cache is None:
        raise WordlensError("the probing features need a folder or an activation cache")
    layer_ids = embedder.resolve_layers(layers)
    if retokenized is None:
        retokenized = tuple(
            retokenize(tokens, embedder.tokenizer, bos_token_id=embedder.bos_token_id)
            for tokens in sentences
        )
    elif len(retokenized) != len(sentences):
        raise WordlensError(f"{len(retokenized)} retokenized sentences for {len(sentences)}")
    lengths = [len(item.input_ids) for item in retokenized]
    too_long = [i for i, length in enumerate(lengths) if length > (embedder.max_length or length)]
    if too_long:
        raise TargetError(
            f"{len(too_long)} sentence(s) exceed {embedder.info.name}'s maximum of "
            f"{embedder.max_length} tokens (first: sentence {too_long[0]}, {lengths[too_long[0]]} "
            "tokens); split or drop them"
        )
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    all_layers = (*layer_ids, LEXICAL) if lexical else layer_ids
    store = _store(cache, embedder, layer_ids)
    if folder is None:
        assert store is not None  # refused above without a cache
        folder = store.path.parent / FEATURES_FOLDER
    key = spill_key(
        {
            "fingerprint": embedder.info.fingerprint,
            "layers": list(all_layers),
            "dim": embedder.info.hidden_size,
            "input_ids": [list(item.input_ids) for item in retokenized],
        }
    )

    def build(partial: Path) -> int:
        files = [
            LayerFile.create(
                partial / _file_name(layer), int(offsets[-1]), embedder.info.hidden_size
            )
            for layer in all_layers
        ]
        work = _FeatureWork(files[: len(layer_ids)], offsets, retokenized, layer_ids, store)
        batches = batches_by_token_budget(
            lengths, embedder.token_budget, embedder.max_batch_targets
        )
        with progress_bar(progress, len(sentences), f"features {embedder.info.name}") as advance:
            # every batch is read from the cache or computed on the current backend, each
            # claimed in the cache first (wordlens.models.batch_runs); this process writes
            work.advance = advance
            run_batches(feature_batch, embedder, batches, work)
        if lexical:
            ids = np.concatenate(
                [np.asarray(item.input_ids, dtype=np.int64) for item in retokenized]
            )
            for start in range(0, len(ids), LEXICAL_CHUNK):
                chunk = slice(start, start + LEXICAL_CHUNK)
                files[-1].write(chunk, lexical_vectors(embedder, ids[chunk]))
        return work.computed

    written, computed = spill(folder, key, build)
    return SentenceFeatures(
        tuple(LayerFile.open(written / _file_name(layer)) for layer in all_layers),
        offsets,
        all_layers,
        tuple(retokenized),
        computed or 0,
        lexical_layer=lexical_layer(embedder.model) if lexical else None,
    )


def _file_name(layer: int) -> str:
    """The layer file of a hidden-state index or of the lexical layer."""
    return "lexical.npy" if layer == LEXICAL else f"layer-{layer}.npy"


@torch.inference_mode()
def lexical_vectors(
    embedder: HFEmbedder, input_ids: npt.NDArray[np.int64]
) -> npt.NDArray[np.float16]:
    """The lexical layer of input ids: ``[n_ids, hidden]`` float16, one row per id.

    As jiant v1.3.2's lexical representation (``lex_seq``, used by ``transformers_output_mode``
    ``only`` and ``cat``): for a BERT-like model whose input-embedding table sits in an
    embeddings block with a ``LayerNorm``, ``embeddings.LayerNorm(embeddings.word_embeddings(
    ids))`` (``jiant/huggingface_transformers_interface/modules.py:295-296``; RoBERTa
    ``:353-354``, ALBERT ``:408-409``; jiant v1.0.0 ``jiant/bert/utils.py:117-118``): the
    word-piece embeddings without the position and token-type embeddings that hidden state 0
    adds, and without dropout (jiant applies none; v1.0.0 ``utils.py:119-122`` says so). For a
    model without an embedding LayerNorm (causal LMs such as Llama, GPT-2), the rows of the input
    embedding table (``get_input_embeddings()``), as jiant's GPT-2 ``self.model.wte(ids)``
    (``modules.py:600``) and OpenAI GPT ``tokens_embed(ids)`` (``:538``); jiant v1.3.2 has no
    Llama wrapper, so Llama follows its GPT-2 rule. A model that scales its embeddings inside
    its forward pass (Gemma's sqrt(d)) is read unscaled.

    The vector of an id does not depend on its context, so the ids of sentences are looked up
    back to back, without padding, all at once (:func:`sentence_features` passes
    :data:`LEXICAL_CHUNK` at a time).

    Raises
    ------
    WordlensError
        If the input embeddings cannot be located, or their dimension is not the hidden size
        (ALBERT's factorized 128-d embeddings: the features hold one dimension for all layers).
    """
    table, norm = _lexical_modules(embedder.model)
    dim = int(table.weight.shape[1])
    if dim != embedder.info.hidden_size:
        raise WordlensError(
            f"{embedder.info.name}: the input embeddings have {dim} dimensions, the hidden states "
            f"{embedder.info.hidden_size}; the lexical layer needs them equal"
        )
    rows = table(torch.from_numpy(input_ids).to(embedder.device))  # [n_ids, dim]
    if norm is not None:
        rows = norm(rows)
    out: npt.NDArray[np.float16] = rows.to(torch.float16).cpu().numpy()
    return out


def lexical_layer(model: torch.nn.Module) -> str:
    """How :func:`lexical_vectors` computes the lexical layer of ``model``, in module names, e.g.
    ``"embeddings.LayerNorm(embeddings.word_embeddings(ids))"`` or ``"embed_tokens(ids)"``
    (written into the result metadata)."""
    table, norm = _lexical_modules(model)
    names = {module: name for name, module in model.named_modules()}
    looked_up = f"{names[table]}(ids)"
    if norm is None:
        return f"{looked_up}: the input-embedding rows (the model has no embedding LayerNorm)"
    return f"{names[norm]}({looked_up})"


def _lexical_modules(model: torch.nn.Module) -> tuple[torch.nn.Embedding, torch.nn.Module | None]:
    """The input-embedding table and, when its parent is an embeddings block holding a
    ``LayerNorm`` (BERT, RoBERTa, DistilBERT, ...), that normalization; else ``None``."""
    name, table = _input_embeddings(model)
    if not isinstance(table, torch.nn.Embedding):
        raise WordlensError(
            f"the input embeddings of {type(model).__name__} are a {type(table).__name__}, "
            "not an embedding table"
        )
    parent = name.rpartition(".")[0]
    norm = None
    if parent and "embed" in parent.rsplit(".", 1)[-1]:
        found = getattr(model.get_submodule(parent), "LayerNorm", None)
        norm = found if isinstance(found, torch.nn.Module) else None
    return table, norm


@dataclass(frozen=True)
class FeatureBatch:
    """Sentences of one batch (their whole input ids as the span) and the layers kept: the
    payload of :func:`feature_batch`."""

    items: tuple[Encoded, ...]
    layers: tuple[int, ...]


def feature_batch(embedder: HFEmbedder, payload: FeatureBatch) -> npt.NDArray[np.float16]:
    """The backend operation of probing features (:mod:`wordlens.models.backend`): every
    subtoken's vector ``[total subtokens, layers, dim]`` in float16, sentences back to back
    (:meth:`~wordlens.models.hf.HFEmbedder.hidden_states`)."""
    states = embedder.hidden_states(payload.items, payload.layers)  # [layers, rows, dim]
    vectors: npt.NDArray[np.float16] = states.permute(1, 0, 2).to(torch.float16).cpu().numpy()
    return vectors


class _FeatureWork(BatchWork[FeatureBatch, npt.NDArray[np.float16]]):
    """The batches of :func:`sentence_features`: a unit is a sentence, its rows one per subtoken
    in each of ``files`` (the hidden-state layer files, ``[rows, dim]`` each), read from
    ``store`` or computed and written to the files a batch at a time."""

    def __init__(
        self,
        files: Sequence[LayerFile],
        offsets: npt.NDArray[np.int64],
        retokenized: Sequence[Retokenized],
        layers: tuple[int, ...],
        store: CacheStore | None,
    ) -> None:
        self.files, self.offsets, self.retokenized = files, offsets, retokenized
        self.layers, self.store = layers, store
        self.row_keys = [
            [
                f"{sentence_key(item.input_ids)}:{position}"
                for position in range(len(item.input_ids))
            ]
            for item in retokenized
        ]
        self.done = np.zeros(len(retokenized), dtype=bool)
        self.computed = 0
        self.advance: Callable[[int], None] = lambda _n: None

    def rows(self, sentences: Sequence[int] | npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The rows of ``sentences`` in the files, in order."""
        return np.concatenate(
            [np.arange(self.offsets[i], self.offsets[i + 1]) for i in sentences]
        ).astype(np.int64)

    def read(self, sentences: Sequence[int]) -> None:
        """Write the sentences not done yet whose every row the cache holds to the files."""
        wanted = np.array([i for i in sentences if not self.done[i]], dtype=np.int64)
        if self.store is None or not len(wanted):
            return
        if not self.store.contains([self.row_keys[i][0] for i in wanted]).any():
            return  # no row of them cached (the first row of each sentence tells)
        keys = [key for i in wanted for key in self.row_keys[i]]
        vectors = np.zeros((len(keys), len(self.layers), self.files[0].dim), np.float16)
        found = self.store.read_into(keys, vectors, np.zeros(len(keys), dtype=np.int64))
        lengths = self.offsets[wanted + 1] - self.offsets[wanted]
        complete = np.logical_and.reduceat(found, np.cumsum(lengths) - lengths)
        self._place(wanted[complete], vectors[np.repeat(complete, lengths)])

    def claim(self, batch: Sequence[int], *, wait: bool) -> Claim | None:
        if self.store is None:
            return Claim(None)
        name = batch_name([str(self.store.path)], [self.row_keys[i][0] for i in batch])
        return self.store.claim(name, wait=wait)

    def todo(self, batch: Sequence[int]) -> list[int]:
        before = int((~self.done[list(batch)]).sum())
        if self.store is not None:
            self.store.refresh()
            self.read(batch)
        units = [i for i in batch if not self.done[i]]
        self.advance(before - len(units))
        return units

    def payload(self, units: Sequence[int]) -> FeatureBatch:
        items = []
        for i in units:
            ids = list(self.retokenized[i].input_ids)
            items.append(Encoded(ids, (0, len(ids))))
        return FeatureBatch(tuple(items), self.layers)

    def finish(self, units: Sequence[int], result: npt.NDArray[np.float16]) -> None:
        self._place(units, result)
        if self.store is not None:
            self.store.write(
                [key for i in units for key in self.row_keys[i]],
                result,
                np.ones(len(result), dtype=np.int64),
            )
        self.computed += len(units)
        self.advance(len(units))

    def _place(
        self, units: Sequence[int] | npt.NDArray[np.int64], vectors: npt.NDArray[np.float16]
    ) -> None:
        """Write the vectors ``[rows of units, layers, dim]`` of ``units`` to the files."""
        if not len(units):
            return
        rows = self.rows(units)
        for layer, file in enumerate(self.files):
            file.write(rows, vectors[:, layer])
        self.done[np.asarray(units, dtype=np.int64)] = True


def _store(
    cache: ActivationCache | None, embedder: HFEmbedder, layers: Sequence[int]
) -> CacheStore | None:
    if cache is None:
        return None
    return cache.store(
        model=embedder.info.name,
        fingerprint=embedder.info.fingerprint,
        pooling=SUBTOKEN_STORE,
        layers=layers,
        hidden_size=embedder.info.hidden_size,
        dtype="float16",
    )


def randomize_encoder(embedder: HFEmbedder, seed: int = 0) -> HFEmbedder:
    """The same architecture with random weights above the lexical layer (paper Section 4).

    Every parameter outside the module that holds the input embeddings is re-drawn: matrices
    (and higher-order weights, flattened to matrices) as random orthonormal matrices
    (:func:`torch.nn.init.orthogonal_`; non-square ones orthogonal along the smaller dimension,
    as the paper's footnote 7), vectors as normalization scales of 1 and biases of 0. The
    whole embeddings block is kept (word, position and type embeddings and their normalization),
    so the lexical layer (:func:`lexical_vectors`, read by ``lex``, ``cat`` and the CNNs) and
    hidden state 0 are both identical to the trained model's, and every layer above differs.

    The model is changed in place; the returned embedder shares it, with ``-random<seed>``
    appended to the fingerprint so its vectors never mix with the trained model's in the cache.

    Raises
    ------
    WordlensError
        If the model's input-embedding module cannot be located.
    """
    model = embedder.model
    lexical = _lexical_prefix(model)
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if name.startswith(lexical) or _is_embedding(name):
                continue
            if parameter.ndim >= 2:
                random = torch.empty(parameter.shape[0], parameter[0].numel())
                torch.nn.init.orthogonal_(random, generator=generator)
                parameter.copy_(random.reshape(parameter.shape))
            elif name.endswith("bias"):
                parameter.zero_()
            else:
                parameter.fill_(1.0)
    info = dataclasses.replace(
        embedder.info,
        name=f"{embedder.info.name} (randomized, seed {seed})",
        fingerprint=f"{embedder.info.fingerprint}-random{seed}",
        details={**embedder.info.details, "randomized_seed": seed, "kept": lexical},
    )
    embedder._info = info
    if embedder.load_spec is not None:  # a worker process loads, then randomizes, the same way
        embedder.load_spec = embedder.load_spec.randomized(seed)
    return embedder


def _is_embedding(name: str) -> bool:
    """Whether a parameter belongs to an embedding table outside the lexical block (GPT-2's
    position table ``wpe`` beside ``wte``): part of hidden state 0, so kept."""
    module = name.rsplit(".", 2)[-2] if "." in name else name
    return "embed" in module or module in {"wpe", "wte"}


def _lexical_prefix(model: torch.nn.Module) -> str:
    """Name prefix of the module that makes hidden state 0: the parent of the input-embedding
    table when it is an embeddings block (BERT's ``embeddings.``), else the table itself."""
    name, _ = _input_embeddings(model)
    parent = name.rpartition(".")[0]
    if parent and "embed" in parent.rsplit(".", 1)[-1]:
        return f"{parent}."
    return name


def _input_embeddings(model: torch.nn.Module) -> tuple[str, torch.nn.Module]:
    """The module name and module of ``model.get_input_embeddings()``.

    Raises
    ------
    WordlensError
        If the model has no input embeddings among its modules.
    """
    table = model.get_input_embeddings()  # type: ignore[operator]
    names: dict[torch.nn.Module, str] = {module: name for name, module in model.named_modules()}
    if table not in names:
        raise WordlensError(f"cannot find the input embeddings of {type(model).__name__}")
    return names[table], table
