"""The discovery API's usage examples (docs/contract.md §7), run as written; the run scenarios.

Each example is pasted verbatim (between the BEGIN/END markers) and then
exercised against a real tree.
The end of the file plays the scenarios of docs/contract.md §7 and §4: the
oversized catalog at a 200K/16K window, the small model at 8,192/1,024, and
materializers running in order through one pinned scope.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
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

from a13n_harness import RunBindings  # noqa: E402
from a13n_harness.capabilities import PreparedSkills, SkillsCapability, SkillsPolicy  # noqa: E402
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog  # noqa: E402
from a13n_harness.context.render import reference_render  # noqa: E402
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


# ----------------------------------------------------------------------------------
# The run scenarios

SCENARIO_ROOTS = ("/workspace/.agents/skills", "/workspace/.claude/skills")
DESCRIPTION = ("Handles one step of the release & review flow <safely>; " * 20)[:1000]


def _oversized_tree(base: Path) -> list[CatalogEntry]:
    """300 skills with 1,000-byte descriptions over two roots (150 each: a root holds at most
    256 entries), plus one broken package in the first root. Returns the valid entries."""
    entries = []
    for index in range(300):
        root = SCENARIO_ROOTS[index % 2]
        name = f"skill-{index:03d}"
        folder = base / root.removeprefix("/workspace/") / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: '{DESCRIPTION}'\n---\nBody.\n"
        )
        entries.append(CatalogEntry(name, DESCRIPTION, f"{root}/{name}/SKILL.md"))
    broken = base / ".agents/skills/broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: broken\ndescription: [unclosed\n---\n")
    return sorted(entries, key=lambda entry: entry.name)


def _prepare_scenario(base: Path, context_tokens: int, reserve_tokens: int) -> PreparedSkills:
    manager = SkillManager(
        (FileSkillSource("workspace", SCENARIO_ROOTS, required=False),),
        policy=SkillsPolicy(invalid="skip"),
    )

    async def run() -> PreparedSkills:
        async with Environment({"workspace": LocalDirectoryProvider(base)}) as environment:
            bindings = RunBindings.embedded(
                environment=environment,
                context_tokens=context_tokens,
                response_reserve_tokens=reserve_tokens,
            )
            return await SkillsCapability(manager).prepare(bindings)

    return asyncio.run(run())


def test_seed_oversized_catalog_fits_the_allowance_at_200k(tmp_path: Path) -> None:
    """300 skills plus one broken at 200K/16K: a strict prefix, the omitted count, the pointer."""
    entries = _oversized_tree(tmp_path)
    prepared = _prepare_scenario(tmp_path, 200_000, 16_000)
    allowance = (200_000 - 16_000) // 20
    rendering = prepared.rendering
    assert (rendering.form, rendering.listed, rendering.omitted, rendering.total) == (
        "listing",
        7,
        293,
        300,
    )
    assert len(prepared.instructions.encode()) <= allowance == 9_200
    expected = reference_render(SkillCatalog(tuple(entries), 0, SCENARIO_ROOTS), allowance)
    assert prepared.instructions == expected.text
    lines = prepared.instructions.splitlines()
    listed = [line.split(":", 1)[0].removeprefix("- ") for line in lines if line.startswith("- ")]
    assert listed == [entry.name for entry in entries[:7]]
    assert lines[-3:] == [
        "293 more skills not listed.",
        "300 skills available (list /workspace/.agents/skills/ and /workspace/.claude/skills/ "
        "to see all)",
        "</skills_instructions>",
    ]
    assert "broken" not in prepared.instructions
    [diagnostic] = prepared.catalog.diagnostics
    assert (diagnostic.code, diagnostic.path, diagnostic.reason) == (
        "skill_frontmatter_skipped",
        "/workspace/.agents/skills/broken/SKILL.md",
        "yaml_syntax",
    )
    assert len(prepared.skill_paths) == 300


def test_seed_small_models_still_learn_that_skills_exist(tmp_path: Path) -> None:
    """8,192/1,024: exactly render((8192 - 1024) // 20), the pointer present, no entry listed."""
    entries = _oversized_tree(tmp_path)
    prepared = _prepare_scenario(tmp_path, 8_192, 1_024)
    allowance = (8_192 - 1_024) // 20
    expected = reference_render(SkillCatalog(tuple(entries), 0, SCENARIO_ROOTS), allowance)
    assert (
        prepared.instructions
        == expected.text
        == (
            "<skills_instructions>\n"
            "## Skills\n"
            "A skill is a folder of instructions with a SKILL.md file. "
            "Read a listed skill's SKILL.md before you use it.\n"
            "300 more skills not listed.\n"
            "300 skills available (list /workspace/.agents/skills/ and /workspace/.claude/skills/ "
            "to see all)\n"
            "</skills_instructions>\n"
        )
    )
    assert (prepared.rendering.form, prepared.rendering.listed) == ("listing", 0)
    assert len(prepared.instructions.encode()) <= allowance == 358


@dataclass
class _OrderedMaterializer:
    """Publishes one package; the second one also reads what the first published."""

    materializer_id: str
    log: list[tuple[str, object]] = field(default_factory=list)
    target_root: str = "/workspace/.agents/skills"

    async def materialize(self, *, files: FileOperator) -> None:
        self.log.append((self.materializer_id, files))
        if self.materializer_id == "second":
            seen = await files.read_bytes(self.target_root + "/first/SKILL.md", 4_096)
            assert b"name: first" in seen
        await files.make_directory(f"{self.target_root}/{self.materializer_id}")
        await files.write_bytes(
            f"{self.target_root}/{self.materializer_id}/SKILL.md",
            f"---\nname: {self.materializer_id}\ndescription: Managed.\n---\n".encode(),
        )


def test_seed_two_materializers_run_in_order_through_one_pinned_scope(tmp_path: Path) -> None:
    log: list[tuple[str, object]] = []
    first = _OrderedMaterializer("first", log)
    second = _OrderedMaterializer("second", log)
    manager = SkillManager.default(materializers=(first, second))
    workspace = LocalDirectoryProvider(tmp_path)

    async def run() -> PreparedSkills:
        async with Environment({"workspace": workspace}) as environment:
            bindings = RunBindings.embedded(environment=environment)
            return await SkillsCapability(manager).prepare(bindings)

    prepared = asyncio.run(run())
    assert [name for name, _ in log] == ["first", "second"]
    assert log[0][1] is log[1][1]  # the same pinned scope object, not a reopened path
    assert [path.name for path in prepared.skill_paths] == ["first", "second"]
    assert (
        (tmp_path / ".agents/skills/second/SKILL.md").read_bytes().startswith(b"---\nname: second")
    )
