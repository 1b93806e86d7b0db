"""The bound catalog: what ``scan_environment`` returns (docs/contract.md §7).

Its own module so that a direct scan (``inspect``, the command line's) does not define
it; :mod:`a13n_harness.capabilities.items` still exports both names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment.operator import plain_fields

if TYPE_CHECKING:  # annotations only
    from a13n_harness.capabilities.items import SkillDiagnostic
    from a13n_harness.environment import Environment, EnvironmentPath

__all__ = ["BoundSkillCatalog", "BoundSkillCatalogItem"]


@dataclass(frozen=True, slots=True)
class BoundSkillCatalogItem:
    """A skill resolved through an entered Environment, with the route it was read through."""

    name: str
    description: str
    path: str
    source_id: str
    root: str
    description_truncated: bool
    directory: EnvironmentPath
    document: EnvironmentPath
    mount_id: str
    observed_generation: int
    disable_model_invocation: bool = False  # user-only: not in the model's catalog (§10)

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


@dataclass(frozen=True, slots=True)
class BoundSkillCatalog:
    """The result of ``scan_environment``: items sorted by name, diagnostics, configured roots."""

    items: tuple[BoundSkillCatalogItem, ...]
    diagnostics: tuple[SkillDiagnostic, ...]
    roots: tuple[str, ...]

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values

    def item(self, name: str) -> BoundSkillCatalogItem | None:
        """The item called ``name``, if any."""
        for candidate in self.items:
            if candidate.name == name:
                return candidate
        return None

    def require_current(self, environment: Environment) -> None:
        """Raise ``skill_catalog_stale`` if a route any item depends on changed.

        Reselects only the items' directory and document paths: a change to an
        unrelated mount never invalidates the catalog; a change to the mount
        selection, mount id, provider generation, default route or provider
        path of a represented path always does.
        """
        for entry in self.items:
            for selection in (entry.directory, entry.document):
                if not environment.is_current(selection):
                    raise DefinitionError(
                        "skill_catalog_stale",
                        f"the route of skill {entry.name!r} changed since the scan",
                        path=selection.path,
                    )

    def restricted(self, names: frozenset[str] | None) -> BoundSkillCatalog:
        """The same catalog keeping only ``names`` (all when ``None``)."""
        if names is None:
            return self
        return BoundSkillCatalog(
            tuple(entry for entry in self.items if entry.name in names),
            self.diagnostics,
            self.roots,
        )
