"""``SkillManager``: materialize, discover, resolve and bind skills (docs/contract.md §7).

Two modes with one engine (:mod:`a13n_harness.capabilities.discovery`):

* :meth:`SkillManager.scan` / :meth:`SkillManager.inspect` use exactly the
  supplied operator; they never build or probe an Environment. A document that
  changes between parse and the final re-read is ``skill_document_changed``.
* :meth:`SkillManager.scan_environment` captures every root's route with
  ``select_files`` before any I/O, opens one pinned scope per routed root, does
  all I/O through those scopes, re-reads every final document through them, and
  before returning checks that every configured root still routes exactly as it
  did (including empty, skipped and overridden roots). Any change is
  ``skill_catalog_stale``; nothing is retried or rescanned.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from a13n_harness.capabilities.discovery import (
    Discovery,
    confirm_unchanged,
    discover,
)
from a13n_harness.capabilities.items import SkillCatalogItem, SkillScan
from a13n_harness.capabilities.sources import (
    FileSkillSource,
    SkillsPolicy,
    check_materializers,
    check_policy,
    check_sources,
)
from a13n_harness.context._checks import describe, plain_str
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment.local import LocalFileOperator, run_in_place

if TYPE_CHECKING:  # loaded by scan_environment, not by a direct scan (the command line's)
    from a13n_harness.capabilities.bound import BoundSkillCatalog
    from a13n_harness.capabilities.sources import SkillMaterializer, SkillSource
    from a13n_harness.environment import Environment, EnvironmentPath, FileOperator

__all__ = ["DEFAULT_WORKSPACE_ROOT", "SkillManager"]

DEFAULT_WORKSPACE_ROOT = "/workspace/.agents/skills"

_DEFAULT_POLICY = SkillsPolicy()


class SkillManager:
    """Sources, policy and materializers; see the module docstring.

    Construction checks: source ids are unique (``skill_root_invalid``, reason
    ``duplicate_source``); every materializer's ``target_root`` equals a
    configured root (``skill_materializer_root``).
    """

    __slots__ = ("_materializers", "_policy", "_roots", "_sources")

    def __init__(
        self,
        sources: Sequence[SkillSource],
        *,
        policy: SkillsPolicy = _DEFAULT_POLICY,
        materializers: Sequence[SkillMaterializer] = (),
    ) -> None:
        self._sources = check_sources(sources)
        ids = [source.source_id for source in self._sources]
        if len(set(ids)) != len(ids):
            raise DefinitionError(
                "skill_root_invalid", f"source ids must be unique: {ids}", reason="duplicate_source"
            )
        self._policy = check_policy(policy)
        roots: list[str] = []
        for source in self._sources:
            for root in source.roots:
                if root not in roots:
                    roots.append(root)
        self._roots = tuple(roots)
        self._materializers = check_materializers(materializers)
        for materializer in self._materializers:
            if plain_str(materializer.target_root) not in self._roots:
                raise DefinitionError(
                    "skill_materializer_root",
                    f"materializer {describe(materializer.materializer_id)} targets "
                    f"{describe(materializer.target_root)}, which is not a configured root",
                    path=str(materializer.target_root),
                )

    @classmethod
    def default(
        cls,
        additional_sources: Sequence[SkillSource] = (),
        *,
        policy: SkillsPolicy = _DEFAULT_POLICY,
        materializers: Sequence[SkillMaterializer] = (),
    ) -> SkillManager:
        """The canonical workspace source (not required), then ``additional_sources``."""
        workspace = FileSkillSource("workspace", (DEFAULT_WORKSPACE_ROOT,), required=False)
        extra = check_sources(additional_sources)
        return cls((workspace, *extra), policy=policy, materializers=materializers)

    @property
    def sources(self) -> tuple[SkillSource, ...]:
        return self._sources

    @property
    def roots(self) -> tuple[str, ...]:
        """Every configured root in source then root order; a root shared by sources once."""
        return self._roots

    @property
    def policy(self) -> SkillsPolicy:
        return self._policy

    @property
    def materializers(self) -> tuple[SkillMaterializer, ...]:
        return self._materializers

    async def _direct(self, files: FileOperator) -> Discovery:
        if type(files) is LocalFileOperator and not self._materializers:
            # The library's own operator, and no Host code to await: the whole scan is
            # one job on a file thread (run_in_place), one thread hop instead of one per
            # listing and batch of reads. The same discovery, the same calls, in order.
            return await run_in_place(lambda: self._discover_direct(files))
        return await self._discover_direct(files)

    async def _discover_direct(self, files: FileOperator) -> Discovery:
        def access(_root: str) -> FileOperator:
            return files

        found = await discover(self._sources, self._policy, self._materializers, access)
        await confirm_unchanged(found.skills, self._policy, access, "skill_document_changed")
        return found

    async def inspect(self, *, files: FileOperator) -> SkillScan:
        """Scan through ``files``: items sorted by name and every diagnostic in scan order."""
        found = await self._direct(files)
        return SkillScan(tuple([skill.item for skill in found.skills]), found.diagnostics)

    async def scan(self, *, files: FileOperator) -> tuple[SkillCatalogItem, ...]:
        """Scan through ``files``: items sorted by name."""
        return (await self.inspect(files=files)).items

    async def scan_environment(self, *, environment: Environment) -> BoundSkillCatalog:
        """Scan through pinned scopes of an entered ``environment``; see the module docstring."""
        # Imported here: a direct scan (the command line's) loads neither module.
        from a13n_harness.capabilities.bound import (  # noqa: PLC0415
            BoundSkillCatalog,
            BoundSkillCatalogItem,
        )
        from a13n_harness.environment import Environment  # noqa: PLC0415

        if not isinstance(environment, Environment) or not environment.entered:
            raise DefinitionError(
                "skill_root_unroutable", "the environment is not entered", reason="not_entered"
            )
        captured: dict[str, EnvironmentPath | None] = {}
        for root in self._roots:
            try:
                captured[root] = environment.select_files(root)
            except DefinitionError as error:
                if error.code != "skill_root_unroutable":
                    raise
                captured[root] = None
        async with contextlib.AsyncExitStack() as stack:
            scopes: dict[str, FileOperator] = {}
            for root, selection in captured.items():
                if selection is not None:
                    scopes[root] = await stack.enter_async_context(
                        environment.open_scope(selection)
                    )

            def access(root: str) -> FileOperator | None:
                return scopes.get(root)

            found = await discover(self._sources, self._policy, self._materializers, access)
            await confirm_unchanged(found.skills, self._policy, access, "skill_catalog_stale")
            for root, selection in captured.items():
                if selection is None:
                    try:
                        environment.select_files(root)
                    except DefinitionError:
                        continue
                    raise DefinitionError(
                        "skill_catalog_stale", "a skipped root became routable", path=root
                    )
                environment.require_current(selection)
            items: list[BoundSkillCatalogItem] = []
            for skill in found.skills:
                item = skill.item
                root_selection = captured[item.root]
                assert root_selection is not None
                directory = environment.select_files(item.directory)
                document = environment.select_files(item.path)
                for selection in (directory, document):
                    if selection.route[:3] != root_selection.route[:3] or (
                        selection.default_route != root_selection.default_route
                    ):
                        raise DefinitionError(
                            "skill_catalog_stale",
                            "a skill path no longer routes through its root's mount",
                            path=selection.path,
                        )
                items.append(
                    BoundSkillCatalogItem(
                        name=item.name,
                        description=item.description,
                        path=item.path,
                        source_id=item.source_id,
                        root=item.root,
                        description_truncated=item.description_truncated,
                        directory=directory,
                        document=document,
                        mount_id=document.mount_id,
                        observed_generation=document.generation,
                        disable_model_invocation=item.disable_model_invocation,
                    )
                )
        return BoundSkillCatalog(tuple(items), found.diagnostics, self._roots)
