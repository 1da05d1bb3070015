"""Paper methods: one package each, registered in :mod:`wordlens.methods.registry`.

The package is callable: ``wordlens.methods()`` is :func:`wordlens.list_methods` (a function of
that name at the package root would be replaced by this package as soon as it is imported).
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wordlens.methods.base import Method


class _CallablePackage(types.ModuleType):
    """This package, which ``wordlens.methods()`` calls."""

    def __call__(self) -> dict[str, Method[Any]]:
        """The registered methods by name (:func:`wordlens.list_methods`)."""
        from wordlens.methods.registry import registered_methods

        return registered_methods()


sys.modules[__name__].__class__ = _CallablePackage
