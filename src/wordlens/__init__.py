"""wordlens: what language models and word embeddings know about words, layer by layer.

The Python API is a few functions at the package root: :func:`load_model`, :func:`list_methods`,
one function per method (:func:`weat`, :func:`vast`, :func:`intersectional`,
:func:`likelihood_bias`, :func:`sense_bias`, :func:`asymmetry`, :func:`probe`), the generic
:func:`run` and :func:`read_run`, and :func:`compare` (several models and queries, ranked)
(:mod:`wordlens.api`); ``wordlens.methods()`` is
:func:`list_methods` too. They are imported on first use, so
``import wordlens`` loads neither torch nor pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wordlens._version import __version__

if TYPE_CHECKING:
    from wordlens.api import (
        associations,
        asymmetry,
        compare,
        ect,
        intersectional,
        likelihood_bias,
        list_methods,
        mac,
        probe,
        read_run,
        ripa,
        rnd,
        rnsb,
        run,
        semaxis,
        sense_bias,
        vast,
        weat,
    )
    from wordlens.models.loading import load_model

__all__ = [
    "__version__",
    "associations",
    "asymmetry",
    "compare",
    "ect",
    "intersectional",
    "likelihood_bias",
    "list_methods",
    "load_model",
    "mac",
    "probe",
    "read_run",
    "ripa",
    "rnd",
    "rnsb",
    "run",
    "semaxis",
    "sense_bias",
    "vast",
    "weat",
]


def __getattr__(name: str) -> Any:
    # Imported lazily: loading pulls in torch and transformers, which commands such as
    # `wordlens data list` do not need.
    if name == "load_model":
        from wordlens.models.loading import load_model

        return load_model
    if name == "methods":  # the package, callable: wordlens.methods() lists the methods
        import wordlens.methods

        return wordlens.methods
    if name in __all__:
        from wordlens import api

        return getattr(api, name)
    raise AttributeError(f"module 'wordlens' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
