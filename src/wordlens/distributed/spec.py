"""Running the loader call a :class:`~wordlens.models.spec.ModelSpec` records: how a worker
process loads its own copy of the driver's model.

The record itself (:class:`~wordlens.models.spec.ModelSpec`, :func:`~wordlens.models.spec.
model_spec`) lives in :mod:`wordlens.models.spec`, below the loaders that set it. Replaying it
needs the loaders (:mod:`wordlens.models.loading`, :mod:`wordlens.models.scoring`) and the
randomization of :mod:`wordlens.probing.features`, so it lives here, above them: the model and
probing modules import nothing from :mod:`wordlens.distributed`. They are imported when
:func:`load_from_spec` runs (on a worker), so that importing :mod:`wordlens.distributed`, as the
study runner and the command line do, does not import torch and transformers.
"""

from __future__ import annotations

from typing import Any

from wordlens.errors import WordlensError
from wordlens.models.spec import ModelSpec


def load_from_spec(spec: ModelSpec) -> Any:
    """Run the loader call that ``spec`` records and return the loaded object (a word embedder,
    randomized when the spec says so, or an :class:`~wordlens.models.scoring.LMScorer`).

    Raises
    ------
    WordlensError
        What the loader raises, or a randomization asked of a model that is not a transformer.
    """
    from wordlens.models.hf import HFEmbedder
    from wordlens.models.loading import load_model
    from wordlens.models.scoring import load_scorer
    from wordlens.probing.features import randomize_encoder

    if spec.loader == "scorer":
        return load_scorer(spec.source, **dict(spec.options))
    model = load_model(spec.source, **dict(spec.options))
    if spec.randomized_seed is None:
        return model
    if not isinstance(model, HFEmbedder):
        raise WordlensError(f"{spec.source} is not a transformer: it cannot be randomized")
    return randomize_encoder(model, spec.randomized_seed)
