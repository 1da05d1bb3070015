r"""What the top principal components of a top layer encode: CoLA acceptability and next-word POS.

VAST (Wolfe & Caliskan 2022, "Semantic Isolation" and Results) finds that a few dominating
directions of GPT-2's top layer mask word-level semantics, and asks what they encode instead with
two probes on the Corpus of Linguistic Acceptability (CoLA; Warstadt, Singh & Bowman 2019):

1. **Acceptability** (:func:`run_cola_probe`): a logistic regression predicts whether a sentence is
   acceptable from the top-layer vector of the sentence's last token.
2. **Part of speech** (:func:`run_pos_probe`): on acceptable sentences only, a logistic regression
   predicts the POS of the sentence's last word from the top-layer vector of (i) that word and
   (ii) the word before it; once binary (noun vs. not) and once over all tags.

Each probe compares three representations of the same vectors :math:`X` for each number of
components :math:`k`, with :math:`\mu` and :math:`U_k` (top-:math:`k` right singular vectors) fitted
on the centred *training* vectors:

- ``unaltered``: :math:`X` (reported once, with ``k = 0``);
- ``top_pcs``: the top-:math:`k` PC projection, as its coordinates :math:`(X - \mu) U_k`
  (``[n, k]``, the reference's ``PCA.fit_transform`` output). The projection in the original
  space, :math:`(X - \mu) U_k U_k^\top`, is the same points (:math:`U_k` has orthonormal
  columns); the coordinates are cheaper and better conditioned for the classifier (fitting on
  the ``[n, d]`` rank-:math:`k` projection was 30-60x slower with lbfgs);
- ``pcs_removed``: the mean subtracted and the top :math:`k` PCs nullified,
  :math:`(X - \mu) - (X - \mu) U_k U_k^\top` (Mu & Viswanath 2018);

plus a ``majority`` row (``k = 0``): the most frequent training label predicted for every test
item. The paper's reading: if the top PCs alone predict acceptability, or predict the *next*
word's POS better from the previous word than from the word itself, they encode sentence-level
syntax useful for next-word prediction.

Protocol (after the authors' ``CoLA_Test.py`` and ``helper_functions.pca_transform`` in
``wolferobert3/vast_aaai_2022``), with the choices made here:

- **Splits**: train on ``in_domain_train`` (8,551 sentences), test on ``out_of_domain_dev`` (516),
  as the reference does; ``n_train``/``n_test`` draw seeded random samples of them.
- **Vectors**: ``model.embed(..., layers=[layer], pooling="last")`` with ``layer=-1`` (the top
  layer) by default. CoLA: the target spans the whole (stripped) sentence, so ``last`` pooling
  gives the sentence's last token (usually the final punctuation), as the reference's
  ``get_last_token_embeddings``. POS: the target is the word's span; ``last`` pooling gives its
  last subtoken, which for a causal model is the position that predicts the next token.
- **Words**: sentences are split by :func:`wordlens.resources.tagger.tokenize`, the tokenization
  the tagger was trained on (EWT/Treebank: clitics and inner hyphens split). A *word* is a token
  with at least one letter or digit, so the *last word* is the last such token (``"propose"`` in
  "... we propose.", never the period or a closing quote; the reference strips trailing
  punctuation instead) and the *previous word* the word token before it (punctuation between them
  is skipped). Targets are built from these character spans directly (``target_from_word``'s
  whole-word search cannot find clitics such as ``n't``). Sentences with fewer than two words are
  dropped and counted in the metadata. A clitic may lie inside a subtoken it shares with its
  neighbours (``shouldn`` ``'`` ``t`` in BERT's WordPiece): its vector is that of the whole
  subtokens that cover it (:attr:`~wordlens.contexts.Target.shares_tokens`), and the metadata
  counts and lists such targets (``inside_tokens``; 27 of 3,000 training sentences' last words on
  MiniLM and SmolLM2, all ``n't``).
- **Labels**: UPOS tags from :func:`wordlens.resources.load_tagger` (NLTK's averaged perceptron
  trained on UD English EWT; 0.938 accuracy on EWT dev with all training sentences) where the
  reference used NLTK's pretrained tagger with the 12-tag universal tagset; the whole sentence is
  tagged and the last word's tag kept. *Noun* is ``NOUN`` or ``PROPN`` (the universal tagset's
  ``NOUN`` includes proper nouns); the multiclass task uses the UPOS tags that occur.
- **PCs**: fitted once on the training vectors and applied to the test vectors with the training
  mean and directions. (The reference fits a second PCA on the test vectors; directions fitted
  separately have arbitrary signs and order, so a classifier's weights would not carry over.)
- **Classifier**: each feature standardized with the training mean and standard deviation
  (scikit-learn ``StandardScaler``: top-layer vectors have a few huge dimensions), then
  ``LogisticRegression`` (lbfgs, L2, ``C=1``, multinomial for several classes) with a fixed
  ``max_iter`` and ``random_state=seed``, no class weights (the reference's weights
  ``1 - 1/count`` are all close to 1). Reported: weighted F1 on the test split (scikit-learn
  ``f1_score(average="weighted")``, 0 for a class never predicted) with its 95% percentile
  bootstrap interval over the test examples (2,000 resamples of the ``n_test`` examples, the
  fitted classifier held fixed: how much the score depends on which test sentences were drawn,
  :func:`~wordlens.stats.bootstrap.weighted_f1_interval`), and whether lbfgs converged.

References
----------
Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for contextualizing
language models. *AAAI 2022*, 36(10), 11477-11485.

Warstadt, A., Singh, A., & Bowman, S. R. (2019). Neural network acceptability judgments. *TACL*, 7,
625-641.

Mu, J., & Viswanath, P. (2018). All-but-the-top: Simple and effective postprocessing for word
representations. *ICLR 2018*.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from wordlens.contexts import Target
from wordlens.errors import EmptyInputError, WordlensError
from wordlens.models.base import WordEmbedder
from wordlens.models.cache import ActivationCache
from wordlens.resources import PosTagger, load_cola, load_tagger
from wordlens.resources.cola import ColaSplit
from wordlens.results import Result
from wordlens.stages import Timings
from wordlens.stats import fit_principal_components
from wordlens.stats.bootstrap import weighted_f1_interval

FloatArray = npt.NDArray[np.float64]
Labels = npt.NDArray[Any]

NOUN_TAGS = frozenset({"NOUN", "PROPN"})
POS_SOURCES = ("last_word", "previous_word")  # whose vector predicts the last word's POS
DEFAULT_K_VALUES = tuple(range(1, 13))  # VAST: 0-12 PCs of GPT-2's 768-d top layer
_WORD = re.compile(r"\w")
_CITATION = (
    "Wolfe, R., & Caliskan, A. (2022). VAST: The valence-assessing semantics test for "
    "contextualizing language models. AAAI 2022."
)


@dataclass(frozen=True)
class _Split:
    """Features ``[n, d]`` and labels ``[n]`` of one split."""

    x: FloatArray
    y: Labels


def run_cola_probe(
    model: WordEmbedder,
    k_values: Iterable[int] = DEFAULT_K_VALUES,
    *,
    layer: int = -1,
    n_train: int | None = None,
    n_test: int | None = None,
    seed: int = 0,
    max_iter: int = 1000,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> Result:
    """Predict CoLA acceptability from the last token's vector, its top PCs, or the rest.

    Parameters
    ----------
    model
        A contextual model (static vectors have no sentence context).
    k_values
        Numbers of top PCs, each in ``1 .. min(n_train - 1, hidden_size)``.
    layer
        Hidden-state layer (negative counts from the top; default the top layer).
    n_train, n_test
        Seeded random samples of ``in_domain_train`` and ``out_of_domain_dev``; ``None`` for all
        8,551 and 516 sentences.
    seed
        Seed of the samples and of the logistic regression.
    max_iter
        lbfgs iterations of each logistic regression.
    cache, progress
        Activation cache and progress bar for the embedding.

    Returns
    -------
    Result
        ``top_pcs_cola``: one row per representation and ``k`` with columns ``task`` (``cola``),
        ``source`` (``last_token``), ``representation``, ``k``, ``f1_weighted``, ``f1_ci_low``,
        ``f1_ci_high`` (its 95% bootstrap interval over the ``n_test`` test sentences),
        ``converged``, ``n_train``, ``n_test``.
    """
    _check_contextual(model)
    timings = Timings()
    train = _sample(load_cola("in_domain_train"), n_train, seed, "in_domain_train")
    test = _sample(load_cola("out_of_domain_dev"), n_test, seed, "out_of_domain_dev")
    ks = _checked_k(k_values, len(train), model.info.hidden_size)
    with timings.stage("embed"):
        x_train, x_test = (
            _embed(model, [Target(s, 0, len(s)) for s in split["sentence"]], layer, cache, progress)
            for split in (train, test)
        )
    with timings.stage("probe"):
        rows = _probe(
            ("cola", "last_token"),
            _Split(x_train, train["label"].to_numpy()),
            _Split(x_test, test["label"].to_numpy()),
            ks,
            seed,
            max_iter,
        )
    config = _config(model, layer, ks, n_train, n_test, seed, max_iter)
    metadata = {**config, "timings_s": timings.seconds}
    return Result("top_pcs_cola", pd.DataFrame(rows), metadata)


def run_pos_probe(
    model: WordEmbedder,
    k_values: Iterable[int] = DEFAULT_K_VALUES,
    *,
    layer: int = -1,
    n_train: int | None = None,
    n_test: int | None = None,
    seed: int = 0,
    max_iter: int = 1000,
    tagger: PosTagger | None = None,
    cache: ActivationCache | None = None,
    progress: bool = False,
) -> Result:
    """Predict the POS of an acceptable CoLA sentence's last word from that word's or the
    previous word's vector, their top PCs, or the rest; binary (noun or not) and multiclass.

    Parameters
    ----------
    model
        A contextual model.
    k_values
        Numbers of top PCs, each in ``1 .. min(n_train - 1, hidden_size)``.
    layer
        Hidden-state layer (default the top layer).
    n_train, n_test
        Seeded random samples of the acceptable sentences of ``in_domain_train`` (6,023) and
        ``out_of_domain_dev`` (354), drawn before dropping sentences of fewer than two words;
        ``None`` for all.
    seed, max_iter
        As in :func:`run_cola_probe`.
    tagger
        The tagger that labels the last words; default :func:`~wordlens.resources.load_tagger`
        (all EWT training sentences, trained once and cached).
    cache, progress
        Activation cache and progress bar for the embedding.

    Returns
    -------
    Result
        ``top_pcs_pos``: columns as in :func:`run_cola_probe`, with ``task`` ``pos_binary`` or
        ``pos_multiclass`` and ``source`` ``last_word`` or ``previous_word``.
    """
    _check_contextual(model)
    timings = Timings()
    with timings.stage("tag"):
        chosen = tagger or load_tagger()
        sizes: dict[ColaSplit, int | None] = {
            "in_domain_train": n_train,
            "out_of_domain_dev": n_test,
        }
        splits = {
            name: _last_words(_sample(_acceptable(name), n, seed, name), chosen)
            for name, n in sizes.items()
        }
    train, test = splits["in_domain_train"], splits["out_of_domain_dev"]
    ks = _checked_k(k_values, len(train), model.info.hidden_size)
    with timings.stage("embed"):
        x_train, x_test = (
            _embed_sources(model, split, layer, cache, progress) for split in (train, test)
        )
    rows: list[dict[str, Any]] = []
    with timings.stage("probe"):
        for source in POS_SOURCES:
            for task, labels in _pos_tasks(train["upos"], test["upos"]):
                rows += _probe(
                    (task, source),
                    _Split(x_train[source], labels[0]),
                    _Split(x_test[source], labels[1]),
                    ks,
                    seed,
                    max_iter,
                )
    config = _config(model, layer, ks, n_train, n_test, seed, max_iter)
    metadata = {
        **config,
        "tagger": asdict(chosen.info),
        "noun_tags": sorted(NOUN_TAGS),
        "dropped_sentences": {name: split.attrs["dropped"] for name, split in splits.items()},
        "inside_tokens": _inside_tokens(model, splits),
        "upos_counts": {
            name: split["upos"].value_counts().to_dict() for name, split in splits.items()
        },
        "timings_s": timings.seconds,
    }
    return Result("top_pcs_pos", pd.DataFrame(rows), metadata)


def _check_contextual(model: WordEmbedder) -> None:
    if model.info.kind == "static":
        raise WordlensError(
            f"{model.info.name} is a static model: the top-PC probes read words in sentence "
            "context from a contextual model's layer"
        )


def _checked_k(k_values: Iterable[int], n_train: int, hidden_size: int) -> list[int]:
    ks = sorted(set(k_values))
    if not ks:
        raise EmptyInputError("no numbers of principal components (k_values) given")
    limit = min(n_train - 1, hidden_size)
    bad = [k for k in ks if not 1 <= k <= limit]
    if bad:
        raise WordlensError(
            f"k_values {bad} out of range: each must be in 1..{limit} (at most n_train - 1 = "
            f"{n_train - 1} and the hidden size {hidden_size})"
        )
    return ks


def _sample(frame: pd.DataFrame, n: int | None, seed: int, name: str) -> pd.DataFrame:
    """A seeded random sample of ``n`` rows (all when ``None``), in file order."""
    if n is None:
        return frame.reset_index(drop=True)
    if not 2 <= n <= len(frame):
        raise WordlensError(f"sample size {n} for {name} must be in 2..{len(frame)}")
    rows = np.sort(np.random.default_rng(seed).choice(len(frame), size=n, replace=False))
    return frame.iloc[rows].reset_index(drop=True)


def _acceptable(split: ColaSplit) -> pd.DataFrame:
    cola = load_cola(split)
    return cola[cola["label"] == 1]


def _last_words(sentences: pd.DataFrame, tagger: PosTagger) -> pd.DataFrame:
    """Targets of the last and previous word of each sentence and the last word's UPOS tag.

    Returns columns ``last_word`` and ``previous_word`` (:class:`~wordlens.contexts.Target`) and
    ``upos``; ``attrs["dropped"]`` counts sentences with fewer than two words.
    """
    rows = []
    for sentence in sentences["sentence"]:
        words = [token for token in tagger.tag_text(sentence) if _WORD.search(token.form)]
        if len(words) >= 2:
            previous, last = words[-2], words[-1]
            rows.append(
                (
                    Target(sentence, last.start, last.end, shares_tokens=True),
                    Target(sentence, previous.start, previous.end, shares_tokens=True),
                    last.upos,
                )
            )
    table = pd.DataFrame(rows, columns=[*POS_SOURCES, "upos"])
    table.attrs["dropped"] = len(sentences) - len(table)
    return table


def _inside_tokens(
    model: WordEmbedder, splits: Mapping[ColaSplit, pd.DataFrame]
) -> dict[str, dict[str, Any]]:
    """Per split and source, how many targets share a subtoken with their neighbours (a clitic
    such as ``n't``, whose vector is that of the whole subtokens covering it), and which."""
    counted: dict[str, dict[str, Any]] = {}
    for name, split in splits.items():
        for source in POS_SOURCES:
            targets = list(split[source])
            inside = model.inside_tokens(targets)
            counted.setdefault(name, {})[source] = {
                "n": len(inside),
                "words": sorted({targets[i].word for i in inside}),
            }
    return counted


def _pos_tasks(train: pd.Series, test: pd.Series) -> list[tuple[str, tuple[Labels, Labels]]]:
    """Labels of the binary (noun or not) and multiclass (UPOS) tasks, train then test."""
    return [
        ("pos_binary", (train.isin(NOUN_TAGS).to_numpy(), test.isin(NOUN_TAGS).to_numpy())),
        ("pos_multiclass", (train.to_numpy(), test.to_numpy())),
    ]


def _embed(
    model: WordEmbedder,
    targets: Sequence[Target],
    layer: int,
    cache: ActivationCache | None,
    progress: bool,
) -> FloatArray:
    """``[n, hidden]`` float64 vectors of the targets' last subtokens at ``layer``."""
    embeddings = model.embed(targets, [layer], "last", cache=cache, progress=progress)
    return np.asarray(embeddings.vectors[:, 0, :], dtype=np.float64)


def _embed_sources(
    model: WordEmbedder,
    split: pd.DataFrame,
    layer: int,
    cache: ActivationCache | None,
    progress: bool,
) -> dict[str, FloatArray]:
    """``[n, hidden]`` vectors of each source's targets (:data:`POS_SOURCES`), from one call.

    Embedding the last and the previous word of the sentences together lets a causal model
    compute each sentence's head once: the previous word's context is a prefix of the last
    word's (prefix reuse, :mod:`wordlens.models.prefix`).
    """
    targets = [target for source in POS_SOURCES for target in split[source]]
    vectors = _embed(model, targets, layer, cache, progress)
    return dict(zip(POS_SOURCES, np.split(vectors, len(POS_SOURCES)), strict=True))


def _probe(
    label: tuple[str, str],
    train: _Split,
    test: _Split,
    ks: Sequence[int],
    seed: int,
    max_iter: int,
) -> list[dict[str, Any]]:
    """Rows of the majority baseline, the unaltered vectors, and each ``k``'s top PCs and rest."""
    basis = fit_principal_components(train.x, max(ks))
    majority = DummyClassifier(strategy="most_frequent").fit(train.x, train.y)
    predictions = [
        ("majority", 0, majority.predict(test.x), True),
        ("unaltered", 0, *_fit_predict(train, test, seed, max_iter)),
    ]
    for k in ks:
        for name, transform in (("top_pcs", basis.scores), ("pcs_removed", basis.remove)):
            fitted = _fit_predict(
                _Split(transform(train.x, k), train.y),
                _Split(transform(test.x, k), test.y),
                seed,
                max_iter,
            )
            predictions.append((name, k, *fitted))
    task, source = label
    return [
        {
            "task": task,
            "source": source,
            "representation": name,
            "k": k,
            "f1_weighted": _f1(test.y, predicted),
            **_f1_interval(test.y, predicted, seed),
            "converged": converged,
            "n_train": len(train.y),
            "n_test": len(test.y),
        }
        for name, k, predicted, converged in predictions
    ]


def _f1_interval(truth: Labels, predicted: Labels, seed: int) -> dict[str, float]:
    """``f1_ci_low``, ``f1_ci_high``: the 95% percentile bootstrap interval of the weighted F1
    over the test examples (:func:`~wordlens.stats.bootstrap.weighted_f1_interval`, seeded by
    the probe's seed; the classifier held fixed)."""
    low, high = weighted_f1_interval(truth, predicted, seed=seed)
    return {"f1_ci_low": low, "f1_ci_high": high}


def _fit_predict(train: _Split, test: _Split, seed: int, max_iter: int) -> tuple[Labels, bool]:
    """Test predictions of standardized logistic regression, and whether lbfgs converged."""
    classifier = make_pipeline(
        StandardScaler(), LogisticRegression(max_iter=max_iter, random_state=seed)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # reported in the table instead
        classifier.fit(train.x, train.y)
    converged = bool(np.all(classifier[-1].n_iter_ < max_iter))
    return classifier.predict(test.x), converged


def _f1(truth: Labels, predicted: Labels) -> float:
    return float(f1_score(truth, predicted, average="weighted", zero_division=0))


def _config(
    model: WordEmbedder,
    layer: int,
    ks: Sequence[int],
    n_train: int | None,
    n_test: int | None,
    seed: int,
    max_iter: int,
) -> dict[str, Any]:
    return {
        "method": "top-PC probes on CoLA (VAST, Wolfe & Caliskan 2022)",
        "citation": _CITATION,
        "model": model.info.as_dict(),
        "config": {
            "layer": model.resolve_layers([layer])[0],
            "pooling": "last",
            "k_values": list(ks),
            "train_split": "in_domain_train",
            "test_split": "out_of_domain_dev",
            "n_train_requested": n_train,
            "n_test_requested": n_test,
            "seed": seed,
            "classifier": (
                f"StandardScaler + LogisticRegression(lbfgs, C=1, max_iter={max_iter}, "
                f"random_state={seed}), no class weights"
            ),
            "pcs": "SVD of the mean-centred training vectors; applied to train and test",
            "metric": "weighted F1 on the test split (zero_division=0)",
        },
    }
