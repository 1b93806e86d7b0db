"""a13n-harness skills: discover Agent Skills and render a certified catalog of them."""

from typing import TYPE_CHECKING

from a13n_harness._lazy import lazy_attributes
from a13n_harness._version import __version__
from a13n_harness.context.errors import DefinitionError, FrontmatterError

if TYPE_CHECKING:
    from a13n_harness.capabilities.bindings import RunBindings
    from a13n_harness.environment.environment import Environment

__all__ = ["DefinitionError", "Environment", "FrontmatterError", "RunBindings", "__version__"]

# Loaded on first use (docs/decisions.md, "What start-up defers"): importing the pure core
# pulls in no asyncio or os.
_LAZY = {
    "Environment": "a13n_harness.environment.environment",
    "RunBindings": "a13n_harness.capabilities.bindings",
}
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
