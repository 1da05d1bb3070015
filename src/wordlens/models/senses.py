r"""Sense embeddings: one vector per WordNet sense, loaded from a file or built from any model.

A :class:`SenseVectors` store maps sense keys (``black%3:00:02::``) to vectors of one or more
layers. It is filled either

- by :func:`load_sense_vectors` from the files static sense embeddings ship as: LMMS/ARES text
  (``sensekey v1 ... vn`` per line, with or without a ``count dim`` header line) or NumPy
  ``.npz`` with ``labels`` and ``vectors`` arrays (read with ``allow_pickle=False``), and written
  back by :meth:`SenseVectors.write`; or
- by :func:`build_sense_vectors` from any wordlens model: a sense's vector is the mean of the
  contextual vectors of its lemma in the sense's WordNet gloss and in those of its example
  sentences that contain the lemma.

**How the contexts are built.** The gloss alone does not contain the word, so the lemma is put
into a *gloss context* by ``gloss_template`` (default ``"{gloss}: {lemma}"``, e.g. "of or
belonging to a racial group having dark skin especially of sub-Saharan African origin: black").
The default puts the lemma *after* the gloss so that causal models, whose vector of a token sees
only the tokens before it, see the gloss too (with the lemma first, a causal model would give
every sense of a word the same gloss-context vector). Then each example sentence of the sense's
synset in which the lemma occurs as a whole word (as written, or capitalized at the start of a
sentence) is a context, the lemma's first occurrence being the target
(:func:`wordlens.contexts.target_from_word`); examples that use an inflected form or another lemma
of the synset are skipped. ``max_examples`` caps the examples per sense, drawn with a seeded
generator. All contexts of all senses are embedded in one :meth:`WordEmbedder.embed` call
(token-budget batching, activation cache, progress bar), and each sense's vector is the float64
mean of its contexts' vectors, stored as float32.

A static model ignores context, so every sense of a word gets the word's vector: sense-level
and word-level results then coincide, which makes it the sense-insensitive baseline.

**Word vectors from senses** (eq. 7 of Zhou, Kaneko & Bollegala 2022): a word's vector is the
mean of the vectors of all its senses in the store,

.. math:: \vec{w} = \frac{1}{M(w)} \sum_{i=1}^{M(w)} \vec{s}_i,

where the senses of ``w`` are the keys whose lemma (the part before ``%``) is ``w`` in lower
case with ``_`` for spaces.

References
----------
Loureiro, D. & Jorge, A. (2019). Language Modelling Makes Sense: Propagating Representations
through WordNet for Full-Coverage Word Sense Disambiguation. *ACL 2019* (LMMS).

Scarlini, B., Pasini, T. & Navigli, R. (2020). With More Contexts Comes Better Performance:
Contextualized Sense Embeddings for All-Round Word Sense Disambiguation. *EMNLP 2020* (ARES).

Zhou, Y., Kaneko, M. & Bollegala, D. (2022). Sense Embeddings are also Biased - Evaluating Social
Biases in Static and Contextualised Sense Embeddings. *ACL 2022*.
"""

from __future__ import annotations

import csv
import functools
import io
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wordlens._files import atomic_writer, decoding
from wordlens._plural import counted
from wordlens.contexts import GLOSS_TEMPLATE, Target, target_from_word
from wordlens.errors import EmptyInputError, OutputError, TargetError, WordlensError
from wordlens.models import output
from wordlens.models.base import Pooling, WordEmbedder, check_pooling
from wordlens.models.cache import ActivationCache
from wordlens.resources.wordnet import (
    Sense,
    UnknownSenseError,
    WordNet,
    lemma_form,
    load_wordnet,
)

FloatArray = npt.NDArray[np.float32]

_TEXT_SUFFIXES = (".txt", ".vec", ".vectors")


class SenseVectorFormatError(WordlensError, ValueError):
    """A sense-vector file is malformed; the message names the file (and line where known)."""


@dataclass(frozen=True, eq=False)
class SenseVectors:
    """Vectors of WordNet senses, per layer.

    Attributes
    ----------
    keys
        Sense keys, one per row, unique, in lower case (``"nurse%2:29:00::"``).
    vectors
        float32 ``[n_senses, n_layers, dim]``; ``vectors[i, j]`` is sense ``keys[i]`` at layer
        ``layers[j]``. Files of static sense embeddings have one layer, 0.
    layers
        The layer of each position of axis 1 (hidden-state numbering for built vectors).
    source
        Where the vectors come from: a file path, or the model and method that built them.
    metadata
        How they were made (model fingerprint, template, pooling, contexts per sense, ...).
    """

    keys: tuple[str, ...]
    vectors: FloatArray
    layers: tuple[int, ...] = (0,)
    source: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.vectors.ndim != 3:
            raise WordlensError(
                f"sense vectors must have shape [n_senses, n_layers, dim]; got {self.vectors.shape}"
            )
        if self.vectors.shape[0] != len(self.keys) or self.vectors.shape[1] != len(self.layers):
            raise WordlensError(
                f"{counted(len(self.keys), 'key')} and {counted(len(self.layers), 'layer')} do not "
                f"match vectors of shape {self.vectors.shape}"
            )
        if not self.keys:
            raise EmptyInputError("a sense-vector store needs at least one sense")
        malformed = [key for key in self.keys if "%" not in key or key != key.lower()]
        if malformed:
            raise SenseVectorFormatError(
                f"{len(malformed)} label(s) are not lower-case WordNet sense keys "
                f"(lemma%ss_type:lex_filenum:lex_id:head_word:head_id): {malformed[:5]}"
            )
        repeated = sorted(key for key, count in Counter(self.keys).items() if count > 1)
        if repeated:
            raise SenseVectorFormatError(f"sense keys listed more than once: {repeated[:5]}")

    @property
    def dim(self) -> int:
        """Vector size."""
        return int(self.vectors.shape[2])

    def __len__(self) -> int:
        return len(self.keys)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower() in self._row_of

    def has_word(self, word: str) -> bool:
        """Whether the store holds at least one sense of ``word``."""
        return lemma_form(word) in self._rows_of_lemma

    def senses_of(self, word: str) -> tuple[str, ...]:
        """The keys of ``word``'s senses in the store (their lemma is ``word``), in store order.

        Raises
        ------
        UnknownSenseError
            If the store has no sense of ``word``.
        """
        rows = self._word_rows(word)
        return tuple(self.keys[row] for row in rows)

    def sense_vectors(self, keys: Sequence[str]) -> FloatArray:
        """Vectors ``[len(keys), n_layers, dim]`` of the given senses.

        Raises
        ------
        UnknownSenseError
            Naming every key the store lacks (and the senses it has of the same lemma).
        """
        missing = [key for key in keys if key.lower() not in self._row_of]
        if missing:
            hints = {
                key: self.senses_of(key.split("%")[0]) if self.has_word(key.split("%")[0]) else ()
                for key in missing[:5]
            }
            raise UnknownSenseError(
                f"{len(missing)} sense key(s) not in the store ({self.source or 'unnamed'}): "
                + "; ".join(
                    f"{key!r} (store has {list(have) or 'no sense of its lemma'})"
                    for key, have in hints.items()
                )
            )
        rows = [self._row_of[key.lower()] for key in keys]
        return np.asarray(self.vectors[rows])

    def word_vectors(self, words: Sequence[str]) -> FloatArray:
        """Eq. 7: each word's vector ``[len(words), n_layers, dim]``, the mean of its senses'.

        Raises
        ------
        UnknownSenseError
            Naming every word without a sense in the store.
        """
        missing = [word for word in words if not self.has_word(word)]
        if missing:
            raise UnknownSenseError(
                f"{len(missing)} word(s) have no sense in the store "
                f"({self.source or 'unnamed'}): {missing[:10]}"
            )
        means = [
            self.vectors[self._word_rows(word)].astype(np.float64).mean(axis=0) for word in words
        ]
        return np.stack(means).astype(np.float32)

    def word_sense_groups(self, words: Sequence[str]) -> list[npt.NDArray[np.int64]]:
        """For each word, the store rows of its senses (for max-over-senses comparisons)."""
        return [self._word_rows(word) for word in words]

    def at_layer(self, layer: int) -> SenseVectors:
        """The same senses at one layer only."""
        if layer not in self.layers:
            raise WordlensError(f"layer {layer} is not in these sense vectors (have {self.layers})")
        position = self.layers.index(layer)
        return SenseVectors(
            self.keys,
            np.ascontiguousarray(self.vectors[:, position : position + 1]),
            (layer,),
            self.source,
            self.metadata,
        )

    def write(self, path: Path) -> Path:
        """Write the store: ``.npz`` keeps every layer and the metadata; a text file (``.txt``,
        ``.vec``) holds one layer as ``key v1 ... vn`` lines (9 significant digits, exact for
        float32).

        Raises
        ------
        WordlensError
            For a text file and more than one layer, or an unknown suffix.
        OutputError
            If the file cannot be written.
        """
        suffix = path.suffix.lower()
        if suffix != ".npz" and suffix not in _TEXT_SUFFIXES:
            raise WordlensError(
                f"unknown sense-vector format {path.suffix!r}: use .npz or a text suffix "
                f"({', '.join(_TEXT_SUFFIXES)})"
            )
        if suffix != ".npz" and len(self.layers) != 1:
            raise WordlensError(
                f"a text file holds one layer; these vectors have {len(self.layers)} "
                f"({self.layers}): write .npz, or pick one with .at_layer(layer)"
            )
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_writer(path) as stream:
                stream.write(self._npz_bytes() if suffix == ".npz" else self._text_bytes())
        except OSError as error:
            raise OutputError(f"cannot write sense vectors to {path}: {error}") from error
        return path

    def _npz_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(
            buffer,
            labels=np.array(self.keys),
            vectors=self.vectors,
            layers=np.array(self.layers, dtype=np.int64),
            metadata=np.array(json.dumps({"source": self.source, **self.metadata}, default=str)),
        )
        return buffer.getvalue()

    def _text_bytes(self) -> bytes:
        table = pd.DataFrame(self.vectors[:, 0, :], index=pd.Index(self.keys))
        text = table.to_csv(sep=" ", header=False, float_format="%.9g", quoting=csv.QUOTE_NONE)
        return text.encode("utf-8")

    def _word_rows(self, word: str) -> npt.NDArray[np.int64]:
        rows = self._rows_of_lemma.get(lemma_form(word))
        if rows is None:
            raise UnknownSenseError(
                f"no sense of {word!r} in the store ({self.source or 'unnamed'}, "
                f"{len(self.keys)} senses)"
            )
        return rows

    @functools.cached_property
    def _row_of(self) -> dict[str, int]:
        return {key: row for row, key in enumerate(self.keys)}

    @functools.cached_property
    def _rows_of_lemma(self) -> dict[str, npt.NDArray[np.int64]]:
        grouped: dict[str, list[int]] = {}
        for row, key in enumerate(self.keys):
            grouped.setdefault(key.split("%")[0], []).append(row)
        return {lemma: np.array(rows, dtype=np.int64) for lemma, rows in grouped.items()}


def load_sense_vectors(path: Path) -> SenseVectors:
    """Read sense vectors from an ``.npz`` file or an LMMS/ARES text file.

    ``.npz``: arrays ``labels`` (sense keys, a string array) and ``vectors`` (``[n, dim]`` as
    LMMS ships them, or ``[n, n_layers, dim]`` with ``layers`` as :meth:`SenseVectors.write`
    writes them); read without unpickling. Any other suffix is text: one ``key v1 ... vn`` line
    per sense, separated by whitespace, optionally after a ``count dim`` header line (ARES),
    whose numbers are then checked.

    Raises
    ------
    SenseVectorFormatError
        If the file is malformed (ragged or non-numeric lines, a header that does not match,
        object arrays, repeated or non-key labels), naming the file.
    WordlensError
        If the file does not exist.
    """
    if not path.is_file():
        raise WordlensError(f"sense-vector file not found: {path}")
    reader = _read_npz if path.suffix.lower() == ".npz" else _read_text
    with decoding(path):
        keys, vectors, layers, metadata = reader(path)
    try:
        return SenseVectors(
            tuple(key.lower() for key in keys),
            vectors,
            layers,
            source=str(metadata.pop("source", path)),
            metadata=metadata,
        )
    except (WordlensError, ValueError) as error:
        raise SenseVectorFormatError(f"{path}: {error}") from error


_Parsed = tuple[list[str], FloatArray, tuple[int, ...], dict[str, Any]]


def _read_npz(path: Path) -> _Parsed:
    try:
        with np.load(path, allow_pickle=False) as archive:
            missing = {"labels", "vectors"} - set(archive.files)
            if missing:
                raise SenseVectorFormatError(
                    f"{path}: an .npz of sense vectors needs arrays 'labels' and 'vectors'; "
                    f"missing {sorted(missing)} (has {sorted(archive.files)})"
                )
            labels = [str(label) for label in archive["labels"]]
            vectors = np.asarray(archive["vectors"], dtype=np.float32)
            stored_layers = archive["layers"] if "layers" in archive.files else None
            metadata = json.loads(str(archive["metadata"])) if "metadata" in archive.files else {}
    except ValueError as error:  # object arrays need pickle, which is refused
        raise SenseVectorFormatError(f"{path}: cannot read without unpickling ({error})") from error
    if vectors.ndim == 2:
        vectors = vectors[:, np.newaxis, :]
    layers = (0,) if stored_layers is None else tuple(int(layer) for layer in stored_layers)
    return labels, vectors, layers, metadata


def _read_text(path: Path) -> _Parsed:
    with path.open(encoding="utf-8") as handle:
        first = handle.readline().split()
    header = len(first) == 2 and all(token.isdigit() for token in first)
    try:
        table = pd.read_csv(
            path,
            sep=r"\s+",
            header=None,
            skiprows=1 if header else 0,
            index_col=0,
            dtype={0: str},
            quoting=csv.QUOTE_NONE,
            engine="c",
        )
        vectors = table.to_numpy(dtype=np.float32)
    except UnicodeDecodeError:
        raise  # named with its line by the caller
    except (pd.errors.ParserError, ValueError) as error:
        raise SenseVectorFormatError(
            f"{path}: not 'sensekey v1 ... vn' lines of one size ({error})"
        ) from error
    if np.isnan(vectors).any():
        row = int(np.nonzero(np.isnan(vectors).any(axis=1))[0][0])
        raise SenseVectorFormatError(
            f"{path}, line {row + 1 + int(header)}: missing or non-numeric values"
        )
    if header and (int(first[0]), int(first[1])) != vectors.shape:
        raise SenseVectorFormatError(
            f"{path}: the header says {first[0]} senses of {first[1]} values, the file has "
            f"{vectors.shape[0]} of {vectors.shape[1]}"
        )
    return [str(key) for key in table.index], vectors[:, np.newaxis, :], (0,), {}


def build_sense_vectors(
    model: WordEmbedder,
    sense_keys: Sequence[str],
    layers: Sequence[int] | None = None,
    pooling: Pooling = "mean",
    *,
    gloss_template: str = GLOSS_TEMPLATE,
    max_examples: int | None = None,
    seed: int = 0,
    wordnet: WordNet | None = None,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> SenseVectors:
    """Sense vectors from any model: the mean vector of the lemma in its sense's contexts.

    See the module notes for how the contexts are built.

    Parameters
    ----------
    model
        Any loaded model (a static one gives every sense of a word the word's vector).
    sense_keys
        WordNet 3.0 sense keys; repeats are kept once.
    layers
        Hidden-state layers; None for all.
    pooling
        Subtoken pooling of the lemma's tokens (first, last, mean, max).
    gloss_template
        The gloss context, with exactly one ``{lemma}`` (the target) and one ``{gloss}``.
    max_examples
        Most example sentences per sense (None: all); when a sense has more, a seeded draw
        without replacement picks them.
    seed
        Seed of that draw.
    wordnet
        The WordNet to read senses from; :func:`~wordlens.resources.wordnet.load_wordnet` if None.
    cache
        Activation cache for the context vectors.
    progress
        Show a progress bar while embedding.

    Returns
    -------
    SenseVectors
        One row per kept sense; ``metadata`` has the model, template, pooling, seed, the number
        of contexts of each sense and the senses dropped because the model cannot embed their
        lemma (static vocabularies).

    Raises
    ------
    UnknownSenseError
        If a key is not a WordNet 3.0 sense.
    WordlensError
        If ``max_examples`` is negative.
    EmptyInputError
        If no keys are given, or the model can embed none of their lemmas.
    TargetError
        If the template does not hold ``{lemma}`` and ``{gloss}`` exactly once each.
    """
    _check_template(gloss_template)
    if max_examples is not None and max_examples < 0:
        raise WordlensError(f"max_examples must be at least 0 or None; got {max_examples}")
    unique_keys = list(dict.fromkeys(key.lower() for key in sense_keys))
    if not unique_keys:
        raise EmptyInputError("no sense keys to build vectors for")
    source = wordnet or load_wordnet()
    senses = [source.sense(key) for key in unique_keys]
    # each lemma is read in its own gloss and examples, which tell "black" from "Black" apart
    missing = set(model.missing_words([sense.lemma for sense in senses], tell_apart=False))
    kept = [sense for sense in senses if sense.lemma not in missing]
    if not kept:
        raise EmptyInputError(
            f"{model.info.name} cannot embed any lemma of the {len(senses)} senses"
        )
    rng = np.random.default_rng(seed)
    contexts = [sense_contexts(sense, gloss_template, max_examples, rng) for sense in kept]
    counts = np.array([len(targets) for targets in contexts], dtype=np.int64)
    embeddings = model.embed(
        [target for targets in contexts for target in targets],
        layers,
        check_pooling(pooling),
        cache=cache,
        progress=progress,
    )
    vectors = context_means(embeddings.vectors, counts)
    metadata = {
        "method": "mean contextual vector of the lemma in its gloss and example sentences",
        "model": model.info.as_dict(),
        "gloss_template": gloss_template,
        "pooling": pooling,
        "max_examples": max_examples,
        "seed": seed,
        "wordnet": f"WordNet {source.version} ({source.root})",
        "contexts_per_sense": dict(zip((s.key for s in kept), counts.tolist(), strict=True)),
        "dropped_senses": sorted(sense.key for sense in senses if sense.lemma in missing),
    }
    return SenseVectors(
        tuple(sense.key for sense in kept),
        vectors,
        embeddings.layers,
        source=f"built from {model.info.name} ({model.info.fingerprint})",
        metadata=metadata,
    )


def context_means(
    contexts: FloatArray, counts: npt.NDArray[np.int64], block_bytes: int | None = None
) -> FloatArray:
    """The float64 mean of each run of consecutive rows, stored as float32, a block at a time.

    The contexts of all senses can be large (the paper-scale sense-bias reproduction embeds
    62,590 contexts at the 7 layers of minilm-l6: 673 MB of float32, which the extraction spills
    to a file), so they are never converted to float64 at once: each block of whole runs, about
    ``block_bytes`` of float64, is summed and divided before the next is read. The result is the
    same, bit for bit, as one ``np.add.reduceat`` over all the rows.

    Parameters
    ----------
    contexts : FloatArray, shape ``[sum(counts), n_layers, dim]``
        The rows, run after run (e.g. the memory map of an extraction's output).
    counts : int array, shape ``[n_runs]``
        Rows of each run, each at least 1.
    block_bytes
        About how many bytes of float64 rows one block converts, at least one run a block
        (``None``: :data:`wordlens.models.output.IN_MEMORY_BYTES`, the size up to which an
        extraction keeps its output in RAM).

    Returns
    -------
    FloatArray, shape ``[n_runs, n_layers, dim]``
    """
    ends = np.cumsum(counts)
    starts = ends - counts
    means = np.empty((len(counts), *contexts.shape[1:]), dtype=np.float32)
    limit = output.IN_MEMORY_BYTES if block_bytes is None else block_bytes
    rows_per_block = max(1, limit // (8 * int(np.prod(contexts.shape[1:], dtype=np.int64))))
    first = 0
    while first < len(counts):
        stop = int(np.searchsorted(ends, starts[first] + rows_per_block, side="right"))
        last = max(first + 1, stop)
        block = np.asarray(contexts[starts[first] : ends[last - 1]], dtype=np.float64)
        sums = np.add.reduceat(block, starts[first:last] - starts[first], axis=0)
        means[first:last] = sums / counts[first:last, np.newaxis, np.newaxis]
        first = last
    return means


def sense_contexts(
    sense: Sense,
    gloss_template: str = GLOSS_TEMPLATE,
    max_examples: int | None = None,
    rng: np.random.Generator | None = None,
) -> list[Target]:
    """The targets whose vectors make up a sense's vector: the gloss context, then examples.

    Parameters
    ----------
    sense
        A WordNet sense.
    gloss_template
        With one ``{lemma}`` and one ``{gloss}``; the target is the ``{lemma}`` slot.
    max_examples
        Most examples kept (None: all); a draw from `rng` picks them when there are more.
    rng
        Generator for that draw (needed only when examples must be dropped).

    Returns
    -------
    list of Target
        The gloss context first, then each example (in WordNet order) that contains the lemma as
        a whole word, as written or capitalized, targeting its first occurrence.
    """
    _check_template(gloss_template)
    prefix, suffix = (
        part.replace("{gloss}", sense.definition) for part in gloss_template.split("{lemma}")
    )
    gloss = Target(prefix + sense.lemma + suffix, len(prefix), len(prefix) + len(sense.lemma))
    examples = [target for text in sense.examples if (target := _example_target(text, sense.lemma))]
    if max_examples == 0:
        examples = []
    elif max_examples is not None and len(examples) > max_examples:
        if rng is None:
            raise WordlensError("a random generator is needed to draw examples")
        chosen = np.sort(rng.choice(len(examples), size=max_examples, replace=False))
        examples = [examples[index] for index in chosen]
    return [gloss, *examples]


def _example_target(text: str, lemma: str) -> Target | None:
    """The lemma's first whole-word occurrence in an example (as written or capitalized)."""
    for form in dict.fromkeys((lemma, lemma[:1].upper() + lemma[1:])):
        try:
            return target_from_word(text, form)
        except TargetError:
            continue
    return None


def _check_template(template: str) -> None:
    if template.count("{lemma}") != 1 or template.count("{gloss}") != 1:
        raise TargetError(
            "a gloss template needs '{lemma}' and '{gloss}' exactly once each, e.g. "
            f"{GLOSS_TEMPLATE!r}; got {template!r}"
        )
