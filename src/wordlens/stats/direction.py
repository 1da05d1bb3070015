r"""A learned concept direction per layer (maximum-margin valence subspace) and projections on it.

Omrani Sabbaghi, Wolfe & Caliskan (2023) [1]_ (section 4.1) learn the valence dimension of an
embedding space with a linear support vector classifier trained on the decontextualized vectors of
the 25 pleasant (label 1) and 25 unpleasant (label 0) WEAT words; the unit-normalized coefficient
vector is the direction, and a word's valence association is its scalar projection on it (eq. 1):

.. math:: \operatorname{comp}_{\vec{v}} \vec{w} = \frac{\vec{w} \cdot \vec{v}}{\|\vec{v}\|}

Choices the paper leaves open, and the defaults taken from the authors' code
(``weat_functions.my_svc`` in shivaomrani/LLM-Bias), all parameters of :class:`DirectionSettings`:

- **C = 5**, ``sklearn.svm.LinearSVC`` with its squared hinge loss, L2 penalty, a fitted intercept
  and the dual solver (``dual=True``, the solver of the authors' scikit-learn; there are fewer
  training vectors than dimensions).
- **Column normalization**: before fitting, each feature column is scaled to unit L2 norm over the
  training vectors (``sklearn.preprocessing.normalize(X, axis=0)``); a column that is zero in
  every training vector stays zero. The direction is the coefficient vector learned in that scaled
  space, and projections are dot products with the **raw** vectors, as in the authors' code (so
  the direction is not the classifier's decision normal in raw space when scaling is on).
- **Class balance**: none by default (the WEAT groups have 25 words each); ``"balanced"``
  weighs classes inversely to their size for unequal groups.
- **Orientation**: LinearSVC's coefficient already points to label 1 on the training data, but
  with column scaling the raw-space projections need not agree; the direction is flipped at a
  layer where the mean raw projection of the positive words is below that of the negative words,
  and the flip is recorded (:attr:`Direction.flipped`).
- **max_iter = 10,000** (scikit-learn's default 1,000 often stops early on transformer vectors);
  a fit that stops at ``max_iter`` is recorded as not converged, not warned about.
- **seed**: ``random_state`` of the dual coordinate descent (its sample order).

Missing values: NaN or infinite training vectors raise :class:`~wordlens.errors.WordlensError`
(the classifier cannot be fitted). Where the training vectors are all equal at a layer (constant
vectors, or a layer that does not vary), no direction exists: the layer's direction is NaN, its
projections are NaN, and :attr:`Direction.defined` is False there. Projecting a vector that
contains NaN gives NaN; projecting a zero vector gives 0 (the dot product is defined, unlike a
cosine).

References
----------
.. [1] Omrani Sabbaghi, S., Wolfe, R. & Caliskan, A. (2023). Evaluating Biased Attitude
   Associations of Language Models in an Intersectional Context. *AAAI/ACM Conference on AI,
   Ethics, and Society (AIES)*, 542-553.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from wordlens.errors import WordlensError
from wordlens.stats.association import (
    RELATIVE_TOLERANCE,
    FloatArray,
    _drop_layer_axis,
    _layers_first,
)

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
ClassWeight = Literal["balanced"] | None


@dataclass(frozen=True)
class DirectionSettings:
    """How the direction is learned (defaults: the authors' code; see the module notes).

    Attributes
    ----------
    c : float, default 5.0
        Inverse regularization strength ``C`` of the linear SVC, > 0.
    normalize_columns : bool, default True
        Scale each feature column to unit L2 norm over the training vectors before fitting.
    class_weight : {None, "balanced"}, default None
        ``LinearSVC(class_weight=...)``: None weighs every vector equally.
    max_iter : int, default 10_000
        Most iterations of the solver, >= 1.
    seed : int, default 0
        ``random_state`` of the solver.
    """

    c: float = 5.0
    normalize_columns: bool = True
    class_weight: ClassWeight = None
    max_iter: int = 10_000
    seed: int = 0

    def __post_init__(self) -> None:
        if not (np.isfinite(self.c) and self.c > 0):
            raise WordlensError(f"C must be a positive number; got {self.c}")
        if self.class_weight not in (None, "balanced"):
            raise WordlensError(
                f"class_weight must be None or 'balanced'; got {self.class_weight!r}"
            )
        if self.max_iter < 1:
            raise WordlensError(f"max_iter must be at least 1; got {self.max_iter}")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, eq=False)
class Direction:
    """A unit direction per layer, learned from two groups of vectors.

    Attributes
    ----------
    vectors : FloatArray, shape ``[n_layers, d]``
        Unit direction of each layer (NaN where undefined), oriented so that the positive group
        projects above the negative group on average.
    flipped : numpy.ndarray of bool, shape ``[n_layers]``
        Whether the classifier's coefficient vector was negated to get that orientation.
    train_accuracy : FloatArray, shape ``[n_layers]``
        Share of training vectors the fitted classifier labels correctly (NaN where undefined).
    n_iter : numpy.ndarray of int64, shape ``[n_layers]``
        Solver iterations (0 where undefined).
    converged : numpy.ndarray of bool, shape ``[n_layers]``
        Whether the solver stopped before ``settings.max_iter``.
    defined : numpy.ndarray of bool, shape ``[n_layers]``
        False where the training vectors were all equal, so no direction exists.
    n_positive, n_negative : int
        Training vectors per group.
    layered : bool
        Whether the training input had a layer axis (``[n, n_layers, d]``); projections of
        ``[n, d]`` input then have no layer axis.
    settings : DirectionSettings
        How it was learned.
    """

    vectors: FloatArray
    flipped: BoolArray
    train_accuracy: FloatArray
    n_iter: IntArray
    converged: BoolArray
    defined: BoolArray
    n_positive: int
    n_negative: int
    layered: bool
    settings: DirectionSettings = field(default_factory=DirectionSettings)

    @property
    def n_layers(self) -> int:
        return int(self.vectors.shape[0])

    def project(self, vectors: npt.ArrayLike) -> FloatArray:
        """Scalar projections (eq. 1) on this direction (:func:`scalar_projection`)."""
        return scalar_projection(vectors, self)


def fit_direction(
    positive: npt.ArrayLike,
    negative: npt.ArrayLike,
    settings: DirectionSettings | None = None,
) -> Direction:
    """Learn the maximum-margin direction separating two groups, at every layer (section 4.1).

    One ``LinearSVC`` per layer on the ``n_positive + n_negative`` vectors (label 1 for the
    positive group), optionally after column normalization; the coefficient vector scaled to unit
    length is the direction, flipped where needed so the positive group's mean raw projection is
    above the negative group's (see the module notes).

    Parameters
    ----------
    positive : array_like, shape ``[n_positive, d]`` or ``[n_positive, n_layers, d]``
        Vectors of the positive pole (e.g. the 25 pleasant words), float32 or float64.
    negative : array_like, shape ``[n_negative, d]`` or ``[n_negative, n_layers, d]``
        Vectors of the negative pole, with the same layers and size.
    settings : DirectionSettings, optional
        C, column normalization, class weights, iterations and seed; the defaults if None.

    Returns
    -------
    Direction
        ``vectors`` of shape ``[n_layers, d]`` (``n_layers = 1`` for ``[n, d]`` input).

    Raises
    ------
    EmptyInputError
        If a group has no vectors or the vectors have size 0.
    WordlensError
        If the groups' shapes disagree, or a training vector contains NaN or infinity.
    """
    settings = settings or DirectionSettings()
    sets, layered = _layers_first(positive=positive, negative=negative)
    positive_sets, negative_sets = sets["positive"], sets["negative"]  # [L, n, d]
    _check_finite(positive_sets, "positive")
    _check_finite(negative_sets, "negative")
    n_positive, n_negative = positive_sets.shape[1], negative_sets.shape[1]
    labels = np.concatenate([np.ones(n_positive, dtype=np.int64), np.zeros(n_negative, np.int64)])
    fits = [
        _fit_layer(np.concatenate([pos, neg]), labels, settings)
        for pos, neg in zip(positive_sets, negative_sets, strict=True)
    ]
    vectors = np.stack([fit.vector for fit in fits])
    return Direction(
        vectors=vectors,
        flipped=np.array([fit.flipped for fit in fits]),
        train_accuracy=np.array([fit.accuracy for fit in fits]),
        n_iter=np.array([fit.n_iter for fit in fits], dtype=np.int64),
        converged=np.array([fit.n_iter < settings.max_iter for fit in fits]),
        defined=np.asarray(np.isfinite(vectors).all(axis=1)),
        n_positive=n_positive,
        n_negative=n_negative,
        layered=layered,
        settings=settings,
    )


def scalar_projection(vectors: npt.ArrayLike, direction: Direction | npt.ArrayLike) -> FloatArray:
    r"""Scalar projection of each vector on a direction, per layer (eq. 1 of [1]_).

    .. math:: \operatorname{comp}_{\vec{v}} \vec{w} = \frac{\vec{w} \cdot \vec{v}}{\|\vec{v}\|}

    Parameters
    ----------
    vectors : array_like, shape ``[n, d]`` or ``[n, n_layers, d]``
        Raw vectors (no scaling is applied).
    direction : Direction or array_like of shape ``[d]`` / ``[n_layers, d]``
        The direction of each layer; any length (it is divided by its norm).

    Returns
    -------
    FloatArray, shape ``[n]`` or ``[n, n_layers]``
        Float64 projections; a ``[n, d]`` input against a one-layer direction gives ``[n]``.
        NaN where the vector or the direction contains NaN, or the direction is zero.

    Raises
    ------
    WordlensError
        If the vectors are not 2-D/3-D, or their layer count or size differs from the direction's.
    """
    values = np.asarray(vectors, dtype=np.float64)
    unit = _unit_directions(direction)  # [L, d]
    if values.ndim not in (2, 3):
        raise WordlensError(
            f"vectors must have shape [n, d] or [n, n_layers, d]; got {values.shape}"
        )
    layered = values.ndim == 3
    layered_values = values if layered else values[:, np.newaxis, :]
    if layered_values.shape[1:] != unit.shape:
        raise WordlensError(
            f"vectors of shape {values.shape} do not match a direction of {unit.shape[0]} "
            f"layer(s) of size {unit.shape[1]}"
        )
    projections: FloatArray = np.einsum("nld,ld->nl", layered_values, unit)
    return _drop_layer_axis(projections, layered)


def _unit_directions(direction: Direction | npt.ArrayLike) -> FloatArray:
    """Directions ``[L, d]`` scaled to unit length (NaN for a zero or NaN direction)."""
    raw = direction.vectors if isinstance(direction, Direction) else direction
    array = np.asarray(raw, dtype=np.float64)
    if array.ndim == 1:
        array = array[np.newaxis]
    if array.ndim != 2 or array.shape[1] == 0:
        raise WordlensError(f"a direction must have shape [d] or [n_layers, d]; got {array.shape}")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        unit: FloatArray = array / norms
    return unit


@dataclass(frozen=True)
class _LayerFit:
    vector: FloatArray
    flipped: bool
    accuracy: float
    n_iter: int


def _fit_layer(training: FloatArray, labels: IntArray, settings: DirectionSettings) -> _LayerFit:
    """Fit one layer's classifier on ``training [n, d]`` and orient its unit coefficient."""
    # imported here: scikit-learn takes 0.15 s to import, and only fitted directions need it
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import normalize
    from sklearn.svm import LinearSVC

    features = normalize(training, axis=0) if settings.normalize_columns else training
    if _rows_equal(features):
        undefined = np.full(training.shape[1], np.nan)
        return _LayerFit(undefined, flipped=False, accuracy=np.nan, n_iter=0)
    classifier = LinearSVC(
        C=settings.c,
        class_weight=settings.class_weight,
        max_iter=settings.max_iter,
        random_state=settings.seed,
        dual=True,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # recorded as `converged` instead
        classifier.fit(features, labels)
    coefficients = classifier.coef_[0].astype(np.float64)
    largest = np.abs(coefficients).max()
    if largest == 0.0:
        undefined = np.full(training.shape[1], np.nan)
        return _LayerFit(undefined, flipped=False, accuracy=np.nan, n_iter=int(classifier.n_iter_))
    scaled = coefficients / largest  # a tiny but nonzero w's norm would underflow to 0
    unit = scaled / np.linalg.norm(scaled)
    raw_projections = training @ unit
    flipped = bool(raw_projections[labels == 1].mean() < raw_projections[labels == 0].mean())
    return _LayerFit(
        -unit if flipped else unit,
        flipped=flipped,
        accuracy=float(classifier.score(features, labels)),
        n_iter=int(classifier.n_iter_),
    )


def _rows_equal(features: FloatArray) -> bool:
    """Whether all rows of ``[n, d]`` are equal up to rounding (no direction separates them)."""
    spread = float(np.ptp(features, axis=0).max())
    scale = float(np.abs(features).max())
    return spread <= RELATIVE_TOLERANCE * scale


def _check_finite(vectors: FloatArray, name: str) -> None:
    """Raise if a training vector ``[L, n, d]`` holds NaN or infinity, naming rows and layers."""
    bad = ~np.isfinite(vectors).all(axis=2)  # [L, n]
    if bad.any():
        rows = sorted(set(np.nonzero(bad)[1].tolist()))
        layers = sorted(set(np.nonzero(bad)[0].tolist()))
        raise WordlensError(
            f"{name} vectors {rows[:10]} contain NaN or infinity (at layer position(s) "
            f"{layers[:10]}); a direction cannot be fitted on them"
        )
