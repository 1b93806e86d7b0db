"""The code examples of seeds/skill-discovery-in-a-host.md, run as written.

Each example is pasted verbatim (between the BEGIN/END markers) and then
exercised against a real tree. SPEC section 7: "The seed is normative".
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

# ---- BEGIN seed example: Scan a Direct FileOperator ----------------------------
from a13n_harness.capabilities import (
    FileSkillSource,
    SkillCatalogItem,
    SkillManager,
)
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import FileOperator


async def scan_cli_skills(
    files: FileOperator,
) -> tuple[SkillCatalogItem, ...]:
    manager = SkillManager(
        (
            FileSkillSource(
                "project",
                ("/.agents/skills",),
                required=False,
            ),
        )
    )
    return await manager.scan(files=files)


# ---- END seed example ------------------------------------------------------------

# ---- BEGIN seed example: Scan an Entered Environment ----------------------------
from a13n_harness import Environment  # noqa: E402
from a13n_harness.capabilities import (  # noqa: E402
    BoundSkillCatalog,
)


async def scan_environment_skills(
    environment: Environment,
) -> BoundSkillCatalog:
    manager = SkillManager.default()
    catalog = await manager.scan_environment(environment=environment)

    # Call again immediately before consuming catalog paths after any await.
    catalog.require_current(environment)
    return catalog


# ---- END seed example ------------------------------------------------------------


def _additional_sources_manager() -> SkillManager:
    # ---- BEGIN seed example: Add Explicit Sources --------------------------------
    from a13n_harness.capabilities import (  # noqa: PLC0415
        FileSkillSource,
        SkillManager,
    )

    manager = SkillManager.default(
        additional_sources=(
            FileSkillSource(
                "organization",
                ("/environment/shared/skills",),
                required=True,
            ),
        )
    )
    # ---- END seed example ----------------------------------------------------------
    assert isinstance(manager, SkillManager)
    return manager


# ---- BEGIN seed example: Materialize Managed Skills -----------------------------


class ManagedSkillMaterializer:
    materializer_id = "managed-snapshot"
    target_root = "/workspace/.agents/skills"

    async def materialize(self, *, files: FileOperator) -> None:
        # Verify the Host-owned package manifest and digest first.
        # Then publish only beneath target_root through `files`.
        ...


# ---- END seed example ------------------------------------------------------------

from a13n_harness.environment import LocalDirectoryProvider  # noqa: E402

SEED_SKILL = b"""---
name: code-review
description: Review a code change for correctness and maintainability.
---

# Code review

Follow the repository review workflow.
"""


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _seed_tree(base: Path) -> None:
    skills = base / ".agents" / "skills"
    _write(skills / "SKILL.md", b"---\nname: skills-home\ndescription: The root package.\n---\n")
    _write(skills / "code-review" / "SKILL.md", SEED_SKILL)
    _write(skills / "code-review" / "checklist.md", b"- [ ] tests\n")
    _write(
        skills / "release" / "SKILL.md", b"---\nname: release\ndescription: Cut a release.\n---\n"
    )


def test_seed_scan_cli_skills_reads_the_seed_layout(tmp_path: Path) -> None:
    """The seed's package layout: the root and each immediate child are packages."""
    from a13n_harness.environment import LocalFileOperator  # noqa: PLC0415

    _seed_tree(tmp_path)
    items = asyncio.run(scan_cli_skills(LocalFileOperator(tmp_path)))
    assert [(item.name, item.path) for item in items] == [
        ("code-review", "/.agents/skills/code-review/SKILL.md"),
        ("release", "/.agents/skills/release/SKILL.md"),
        ("skills-home", "/.agents/skills/SKILL.md"),
    ]
    assert items[0].description == "Review a code change for correctness and maintainability."
    assert {item.source_id for item in items} == {"project"}


def test_seed_scan_cli_skills_missing_root_is_empty(tmp_path: Path) -> None:
    """required=False: the missing root is skipped, never substituted."""
    from a13n_harness.environment import LocalFileOperator  # noqa: PLC0415

    assert asyncio.run(scan_cli_skills(LocalFileOperator(tmp_path))) == ()


def test_seed_scan_environment_skills(tmp_path: Path) -> None:
    _seed_tree(tmp_path)

    async def run() -> BoundSkillCatalog:
        async with Environment({"workspace": LocalDirectoryProvider(tmp_path)}) as environment:
            return await scan_environment_skills(environment)

    catalog = asyncio.run(run())
    assert [item.name for item in catalog.items] == ["code-review", "release", "skills-home"]
    item = catalog.items[0]
    assert item.path == "/workspace/.agents/skills/code-review/SKILL.md"
    assert item.document.path == item.path
    assert item.directory.path == "/workspace/.agents/skills/code-review"
    assert item.document.provider_path == "/.agents/skills/code-review/SKILL.md"
    assert item.mount_id == item.document.mount_id
    assert item.observed_generation == 1


def test_seed_additional_sources(tmp_path: Path) -> None:
    """Later-source precedence, and required=True for the organization root."""
    _seed_tree(tmp_path)
    shared = tmp_path / "shared"
    _write(
        shared / "skills" / "code-review" / "SKILL.md",
        b"---\nname: code-review\ndescription: The organization's review.\n---\n",
    )
    manager = _additional_sources_manager()
    assert manager.roots == ("/workspace/.agents/skills", "/environment/shared/skills")

    async def run(mount_shared: bool) -> BoundSkillCatalog:
        mounts = {"workspace": LocalDirectoryProvider(tmp_path)}
        if mount_shared:
            mounts["shared"] = LocalDirectoryProvider(shared)
        async with Environment(mounts) as environment:
            return await manager.scan_environment(environment=environment)

    catalog = asyncio.run(run(True))
    review = catalog.item("code-review")
    assert review is not None
    assert review.source_id == "organization"
    assert review.description == "The organization's review."
    assert [d.code for d in catalog.diagnostics] == ["skill_overridden"]
    with pytest.raises(DefinitionError) as caught:
        asyncio.run(run(False))
    assert caught.value.code == "skill_root_unroutable"


class _PublishingMaterializer(ManagedSkillMaterializer):
    """The seed's materializer, filled in: publishes one package beneath target_root."""

    async def materialize(self, *, files: FileOperator) -> None:
        await files.make_directory(self.target_root + "/managed")
        await files.write_bytes(
            self.target_root + "/managed/SKILL.md",
            b"---\nname: managed\ndescription: Published by the Host.\n---\n",
        )


def test_seed_materializer_publishes_before_discovery(tmp_path: Path) -> None:
    async def run() -> BoundSkillCatalog:
        manager = SkillManager.default(materializers=(_PublishingMaterializer(),))
        async with Environment({"workspace": LocalDirectoryProvider(tmp_path)}) as environment:
            return await manager.scan_environment(environment=environment)

    catalog = asyncio.run(run())
    assert [item.name for item in catalog.items] == ["managed"]
    assert (tmp_path / ".agents/skills/managed/SKILL.md").exists()
    # The seed's own (empty) materializer is accepted as written.
    SkillManager.default(materializers=(ManagedSkillMaterializer(),))


def test_seed_materializer_root_must_be_configured() -> None:
    class Elsewhere(ManagedSkillMaterializer):
        target_root = "/workspace/other"

    with pytest.raises(DefinitionError) as caught:
        SkillManager.default(materializers=(Elsewhere(),))
    assert caught.value.code == "skill_materializer_root"


def test_seed_run_bindings_and_capability(tmp_path: Path) -> None:
    """The 'Use Skills in a Harness Run' example with a real environment."""
    _seed_tree(tmp_path)

    async def run() -> tuple[str, tuple[str, ...]]:
        manager = SkillManager.default()
        async with Environment({"workspace": LocalDirectoryProvider(tmp_path)}) as environment:
            environment_binding = environment
            # ---- BEGIN seed example: Use Skills in a Harness Run -------------------
            from a13n_harness import RunBindings  # noqa: PLC0415
            from a13n_harness.capabilities import (  # noqa: PLC0415
                SkillsCapability,
            )

            skills = SkillsCapability(manager)

            bindings = RunBindings.embedded(
                environment=environment_binding,
                skill_selection=frozenset({"code-review", "release"}),
            )
            # ---- END seed example --------------------------------------------------
            prepared = await skills.prepare(bindings)
            prepared.check_boundary(environment)
            return prepared.instructions, tuple(p.name for p in prepared.skill_paths)

    instructions, names = asyncio.run(run())
    assert names == ("code-review", "release")
    assert "- code-review: Review a code change" in instructions
    assert "(file: /workspace/.agents/skills/release/SKILL.md)" in instructions
    assert "skills-home" not in instructions
