"""Exported names whose modules are imported on first use (PEP 562).

A module imports what its common path needs as usual, imports the rest only under
``if TYPE_CHECKING:`` (what mypy and readers see), lists every exported name once in
``__all__``, and names the modules it defers, in order. docs/decisions.md ("What start-up
still defers") says which and why; ``properties/test_packaging.py`` holds every name in
``__all__`` to the import that names it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType


def _load(module: str) -> ModuleType:
    """``module``, imported if it is not yet.

    Through ``__import__``, the interpreter's own import statement, rather than
    ``importlib.import_module``: the same import, but ``python -X importtime`` reports
    only imports that go through the former. Through the latter, every module a package
    loaded on first use was charged to the self time of the module that asked for a name
    (``cli._workspace`` showed 9 ms of its own, the cost of ``capabilities.sources``,
    ``items`` and ``manager`` it imports through ``a13n_harness.capabilities``).
    """
    __import__(module)
    return sys.modules[module]


def lazy_getattr(
    module: str, exported: Sequence[str], deferred: Sequence[str]
) -> Callable[[str], object]:
    """``module``'s PEP 562 ``__getattr__``: a name of ``exported`` that ``module`` does not
    define yet comes from the first of the ``deferred`` modules whose ``__all__`` lists it.

    The deferred modules are imported in the order given, each only when a name is asked
    for that no earlier one exports; the value is then stored in ``module``'s namespace, so
    later accesses are plain attribute reads.
    """
    namespace = sys.modules[module].__dict__
    names = frozenset(exported)

    def __getattr__(name: str) -> object:
        if name in names:
            for defining in deferred:
                source = _load(defining)
                if name in source.__all__:
                    value = getattr(source, name)
                    namespace[name] = value
                    return value
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


def lazy_attributes(
    package: str, exported: Sequence[str], deferred: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's ``__getattr__`` (:func:`lazy_getattr`) and ``__dir__`` (``exported``)."""

    def __dir__() -> list[str]:
        return sorted(exported)

    return lazy_getattr(package, exported, deferred), __dir__
