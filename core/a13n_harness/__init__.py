"""a13n-harness skills: discover Agent Skills and render a certified catalog of them."""

from a13n_harness._version import __version__
from a13n_harness.context.errors import DefinitionError, FrontmatterError

# Spelled here rather than imported from ``typing`` (mypy treats the name the same way):
# ``a13n-skills --version`` imports this package and must start as fast as a bare interpreter.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from a13n_harness.capabilities.bindings import RunBindings
    from a13n_harness.environment.environment import Environment

__all__ = ["DefinitionError", "Environment", "FrontmatterError", "RunBindings", "__version__"]


def __getattr__(name: str) -> object:
    import importlib

    # Imported on first use, so that importing the pure core pulls in no asyncio or os.
    if name == "Environment":
        return importlib.import_module("a13n_harness.environment.environment").Environment
    if name == "RunBindings":
        return importlib.import_module("a13n_harness.capabilities.bindings").RunBindings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
