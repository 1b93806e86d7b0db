"""Module attributes loaded on first use, so a command imports only the modules it needs."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence


def lazy_getattr(module: str, table: Mapping[str, str]) -> Callable[[str], object]:
    """A module's PEP 562 ``__getattr__`` for ``table`` (name -> defining module).

    The first access imports the defining module and stores the value in ``module``'s
    namespace, so later accesses are plain attribute reads.
    """
    namespace = importlib.import_module(module).__dict__

    def __getattr__(name: str) -> object:
        defining = table.get(name)
        if defining is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(defining), name)
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
