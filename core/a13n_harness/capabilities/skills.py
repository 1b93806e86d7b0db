"""``SkillsCapability``: one bound catalog turned into run instructions and fences.

:meth:`SkillsCapability.prepare` scans the run's environment (always the
Environment-aware mode), checks the selection (an unknown name is
``skill_selection_unknown`` before anything is rendered), renders the
selected items with the longest-prefix renderer at
``catalog_allowance(context_tokens, response_reserve_tokens)`` and certifies
the rendering with ``verify_rendering``: UTF-8 bytes by default, the bound
``token_counter``'s tokens when there is one (``render_catalog_counted`` and
``verify_rendering_counted``). The pointer routes only where the run may go
(docs/contract.md §7): with a selection, ``R`` is the selected packages' folders; without
one, the configured roots that were scanned (a skipped optional root is not
named). The resulting
:class:`PreparedSkills` fences the *selected* items only: a route change that
affects an unselected skill does not stop the run.
"""

from __future__ import annotations

from dataclasses import dataclass

from a13n_harness.capabilities.bindings import RunBindings
from a13n_harness.capabilities.bound import BoundSkillCatalog
from a13n_harness.capabilities.manager import SkillManager
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.render import RenderedCatalog, render_catalog, verify_rendering
from a13n_harness.context.tokens import (
    CountedRendering,
    render_catalog_counted,
    verify_rendering_counted,
)
from a13n_harness.environment import Environment, EnvironmentPath

__all__ = ["PreparedSkills", "SkillPath", "SkillsCapability"]


@dataclass(frozen=True, slots=True)
class SkillPath:
    """Where a selected skill lives in the entered environment."""

    name: str
    directory: EnvironmentPath
    document: EnvironmentPath


class PreparedSkills:
    """The prepared skills of one run: instructions, paths, catalog, rendering and read log."""

    __slots__ = ("_documents", "_observed", "catalog", "instructions", "rendering", "skill_paths")

    def __init__(
        self,
        instructions: str,
        skill_paths: tuple[SkillPath, ...],
        catalog: BoundSkillCatalog,
        rendering: RenderedCatalog | CountedRendering,
    ) -> None:
        if (
            not isinstance(instructions, str)
            or not isinstance(skill_paths, tuple)
            or not all(isinstance(path, SkillPath) for path in skill_paths)
            or not isinstance(catalog, BoundSkillCatalog)
            or not isinstance(rendering, RenderedCatalog | CountedRendering)
        ):
            raise DefinitionError(
                "catalog_invalid",
                "PreparedSkills needs instructions (str), a tuple of SkillPath, "
                "a BoundSkillCatalog and a rendering",
                reason="prepared",
            )
        self.instructions = instructions
        self.skill_paths = skill_paths
        self.catalog = catalog
        self.rendering = rendering
        self._documents = {path.document.path: path.name for path in skill_paths}
        self._observed: list[str] = []

    def observe_read(self, path: str | EnvironmentPath) -> bool:
        """Record a read of a selected SKILL.md; returns whether ``path`` was one."""
        text: object = path.path if isinstance(path, EnvironmentPath) else path
        if not isinstance(text, str):  # no selected SKILL.md has such a path
            return False
        name = self._documents.get(text)
        if name is None:
            return False
        self._observed.append(name)
        return True

    @property
    def observed_reads(self) -> tuple[str, ...]:
        """Names of the selected skills whose SKILL.md was read, in read order."""
        return tuple(self._observed)

    def check_boundary(self, environment: Environment) -> None:
        """The model/tool-boundary fence: ``skill_catalog_stale`` if a selected route changed."""
        self.catalog.require_current(environment)


def _routes(
    catalog: BoundSkillCatalog, selected: BoundSkillCatalog, selection: frozenset[str] | None
) -> tuple[str, ...]:
    """The pointer's ``R``: where the run may look for more skills (contract §7).

    With a selection, the selected packages' folders (in name order): the
    roots also hold skills the run did not select. Without one, the configured
    roots minus those skipped (``skill_root_skipped``), each named once.
    """
    if selection is not None:
        return tuple(item.directory.path for item in selected.items)
    skipped = {d.path for d in catalog.diagnostics if d.code == "skill_root_skipped"}
    return tuple(dict.fromkeys(root for root in catalog.roots if root not in skipped))


class SkillsCapability:
    """Adapts a :class:`SkillManager` into run selection, instructions, paths and fences."""

    __slots__ = ("_manager",)

    def __init__(self, manager: SkillManager) -> None:
        if not isinstance(manager, SkillManager):
            raise DefinitionError(
                "catalog_invalid", "SkillsCapability needs a SkillManager", reason="manager"
            )
        self._manager = manager

    @property
    def manager(self) -> SkillManager:
        return self._manager

    async def prepare(self, bindings: RunBindings) -> PreparedSkills:
        """Scan, select, render and certify; see the module docstring."""
        if not isinstance(bindings, RunBindings):
            raise DefinitionError(
                "catalog_invalid",
                f"prepare needs RunBindings, got {type(bindings).__name__}",
                reason="bindings",
            )
        catalog = await self._manager.scan_environment(environment=bindings.environment)
        selection = bindings.skill_selection
        if selection is not None:
            known = {item.name for item in catalog.items}
            unknown = sorted(selection - known)
            if unknown:
                raise DefinitionError(
                    "skill_selection_unknown",
                    f"selected skills not in the catalog: {', '.join(map(repr, unknown))}",
                )
        selected = catalog.restricted(selection)
        listing = SkillCatalog(
            entries=tuple(
                CatalogEntry(item.name, item.description, item.path) for item in selected.items
            ),
            roots=_routes(catalog, selected, selection),
        )
        rendering: RenderedCatalog | CountedRendering
        counter = bindings.token_counter
        if counter is None:
            budget = bindings.allowance_bytes
            rendering = render_catalog(listing, budget)
            verify_rendering(listing, budget, rendering)
        else:
            budget = bindings.allowance_tokens
            rendering = render_catalog_counted(listing, budget, counter)
            verify_rendering_counted(listing, budget, rendering, counter)
        paths = tuple(
            SkillPath(item.name, item.directory, item.document) for item in selected.items
        )
        return PreparedSkills(rendering.text, paths, selected, rendering)
