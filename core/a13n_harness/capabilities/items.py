"""What a scan returns: items, diagnostics and the bound catalog (docs/contract.md §7)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from a13n_harness.context.errors import DefinitionError

if TYPE_CHECKING:  # annotations only: a direct scan does not load the Environment module
    from a13n_harness.environment import Environment, EnvironmentPath

__all__ = [
    "DIAGNOSTIC_CODES",
    "BoundSkillCatalog",
    "BoundSkillCatalogItem",
    "SkillCatalogItem",
    "SkillDiagnostic",
    "SkillScan",
]

DIAGNOSTIC_CODES: tuple[str, ...] = (
    "skill_root_skipped",  # a required=False root that is missing, unroutable or unsupported
    "skill_entry_skipped",  # a hidden entry, a file, a child without SKILL.md, an unusable name
    "skill_frontmatter_skipped",  # bad frontmatter under invalid="skip"
    "skill_name_mismatch",  # a package whose name differs from its folder (kept)
    "skill_description_truncated",  # a description cut to max_description_chars (kept)
    "skill_overridden",  # a package beaten by a later root or source of the same name
)
"""Codes of :class:`SkillDiagnostic`: things a scan tolerates. Not ``DefinitionError`` codes."""


@dataclass(frozen=True, slots=True)
class SkillDiagnostic:
    """One tolerated problem. Diagnostics come in scan order: source, root, entry name."""

    code: str
    message: str
    path: str
    source_id: str
    reason: str | None = None
    line: int | None = None
    column: int | None = None


@dataclass(frozen=True, slots=True)
class SkillCatalogItem:
    """One resolved skill package.

    ``path`` is its SKILL.md in the scanned namespace (the operator's in direct
    mode, the environment's in environment mode); ``root`` the configured root
    it was found below.
    """

    name: str
    description: str
    path: str
    source_id: str
    root: str
    description_truncated: bool = False

    @property
    def directory(self) -> str:
        """The package directory (``path`` without ``/SKILL.md``)."""
        return self.path[: -len("/SKILL.md")] or "/"


@dataclass(frozen=True, slots=True)
class SkillScan:
    """``inspect`` result: items sorted by name and every diagnostic, in scan order."""

    items: tuple[SkillCatalogItem, ...]
    diagnostics: tuple[SkillDiagnostic, ...]


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


@dataclass(frozen=True, slots=True)
class BoundSkillCatalog:
    """The result of ``scan_environment``: items sorted by name, diagnostics, configured roots."""

    items: tuple[BoundSkillCatalogItem, ...]
    diagnostics: tuple[SkillDiagnostic, ...]
    roots: tuple[str, ...]

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
