"""a13n-harness skills: discover Agent Skills and render a certified catalog of them."""

from a13n_harness.context.errors import DefinitionError, FrontmatterError

__all__ = ["DefinitionError", "FrontmatterError"]
