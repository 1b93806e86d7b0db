"""Package attributes loaded on first use, so a command imports only the modules it needs."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence


def lazy_attributes(
    package: str, table: Mapping[str, str], names: Sequence[str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` for ``table`` (name -> defining module)."""
    namespace = importlib.import_module(package).__dict__

    def __getattr__(name: str) -> object:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(names)

    return __getattr__, __dir__
