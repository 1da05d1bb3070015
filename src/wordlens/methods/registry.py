"""The registry of methods: the command line, the study runner and ``wordlens methods`` read it.

Adding a method is one package under :mod:`wordlens.methods` and one line in :data:`BUILTIN`;
a separate distribution registers its own under the ``wordlens.methods`` entry-point group
(``name = "package.module:MethodClass"``). :func:`register` also registers a class at run time
(tests, notebooks).
"""

from __future__ import annotations

import importlib
import importlib.metadata
from typing import Any, TypeVar

from wordlens.errors import WordlensError
from wordlens.methods.base import Method
from wordlens.results import register_view

BUILTIN: tuple[str, ...] = (
    "wordlens.methods.weat",
    "wordlens.methods.vast",
    "wordlens.methods.intersectional",
    "wordlens.methods.likelihood_bias",
    "wordlens.methods.sense_bias",
    "wordlens.methods.asymmetry",
    "wordlens.methods.probing",
    "wordlens.methods.rnd",
    "wordlens.methods.rnsb",
    "wordlens.methods.mac",
    "wordlens.methods.ect",
    "wordlens.methods.ripa",
    "wordlens.methods.semaxis",
    "wordlens.methods.associations",
)
"""Modules of the methods that ship with wordlens, in the order commands are listed."""
ENTRY_POINTS = "wordlens.methods"

M = TypeVar("M", bound=type[Method[Any]])
_REGISTERED: dict[str, Method[Any]] = {}
_loaded = False


class UnknownMethodError(WordlensError, ValueError):
    """A method name that is not registered; names the registered ones."""


def register(method_class: M) -> M:
    """Register ``method_class`` under its ``name`` (a class decorator); a later registration
    of the same name replaces the earlier one."""
    method = method_class()
    _REGISTERED[method.name] = method
    register_view(method.name, method)
    return method_class


def unregister(name: str) -> None:
    """Remove the method registered as ``name`` (a run-time registration's undo); no error
    when there is none."""
    registered_methods()
    _REGISTERED.pop(name, None)
    register_view(name, None)


def registered_methods() -> dict[str, Method[Any]]:
    """Every registered method by name: the built-in ones, entry points, then run-time ones."""
    global _loaded
    if not _loaded:
        _loaded = True
        for module in BUILTIN:
            importlib.import_module(module)
        for entry_point in importlib.metadata.entry_points(group=ENTRY_POINTS):
            register(entry_point.load())
    return dict(sorted(_REGISTERED.items(), key=lambda item: _rank(item[1])))


def _rank(method: Method[Any]) -> int:
    """Position of the method's module in :data:`BUILTIN` (others after, in registration order:
    the sort is stable)."""
    module = type(method).__module__
    for index, builtin in enumerate(BUILTIN):
        if module == builtin or module.startswith(f"{builtin}."):
            return index
    return len(BUILTIN)


def get_method(name: str) -> Method[Any]:
    """The method registered as ``name``.

    Raises
    ------
    UnknownMethodError
        If there is none.
    """
    methods = registered_methods()
    if name not in methods:
        raise UnknownMethodError(f"unknown method {name!r}; known: {', '.join(methods)}")
    return methods[name]
