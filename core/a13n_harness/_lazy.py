"""Module attributes loaded on first use, so a command imports only the modules it needs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
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


def lazy_getattr(module: str, table: Mapping[str, str]) -> Callable[[str], object]:
    """A module's PEP 562 ``__getattr__`` for ``table`` (name -> defining module).

    The first access imports the defining module and stores the value in ``module``'s
    namespace, so later accesses are plain attribute reads.
    """
    namespace = _load(module).__dict__

    def __getattr__(name: str) -> object:
        defining = table.get(name)
        if defining is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(_load(defining), name)
        namespace[name] = value
        return value

    return __getattr__


def lazy_attributes(
    package: str, table: Mapping[str, str], names: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` (``names``) for ``table``."""

    def __dir__() -> list[str]:
        return sorted(names)

    return lazy_getattr(package, table), __dir__
