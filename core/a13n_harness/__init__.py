"""a13n-harness skills: discover Agent Skills and render a certified catalog of them."""

from typing import TYPE_CHECKING

from a13n_harness._lazy import lazy_attributes
from a13n_harness._version import __version__
from a13n_harness.context.errors import DefinitionError, FrontmatterError

if TYPE_CHECKING:  # loaded on first use, see below
    from a13n_harness.capabilities.bindings import RunBindings
    from a13n_harness.environment.environment import Environment

__all__ = ["DefinitionError", "Environment", "FrontmatterError", "RunBindings", "__version__"]

# Every command imports this package (docs/decisions.md, "What start-up still defers").
__getattr__, __dir__ = lazy_attributes(
    __name__,
    __all__,
    ("a13n_harness.environment.environment", "a13n_harness.capabilities.bindings"),
)
