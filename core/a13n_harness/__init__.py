"""a13n-harness skills: discover Agent Skills and render a certified catalog of them."""

import importlib
from typing import TYPE_CHECKING

from a13n_harness.context.errors import DefinitionError, FrontmatterError

if TYPE_CHECKING:
    from a13n_harness.capabilities.bindings import RunBindings
    from a13n_harness.environment.environment import Environment

__all__ = ["DefinitionError", "Environment", "FrontmatterError", "RunBindings"]


def __getattr__(name: str) -> object:
    # Imported on first use, so that importing the pure core pulls in no asyncio or os.
    if name == "Environment":
        return importlib.import_module("a13n_harness.environment.environment").Environment
    if name == "RunBindings":
        return importlib.import_module("a13n_harness.capabilities.bindings").RunBindings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
