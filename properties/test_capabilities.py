"""SkillsCapability and RunBindings (SPEC section 7, seed "Use Skills in a Harness Run")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from a13n_harness import Environment, RunBindings
from a13n_harness.capabilities import (
    FileSkillSource,
    PreparedSkills,
    SkillManager,
    SkillsCapability,
)
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.render import render_catalog
from a13n_harness.environment import LocalDirectoryProvider
from a13n_harness.testing.discovery_strategies import skill_document


def _tree(base: Path) -> None:
    for name in ("alpha", "beta", "gamma"):
        path = base / ".agents/skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(skill_document(name, f"Use {name} <now> & then."))
    other = base / "shared/skills/delta/SKILL.md"
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_bytes(skill_document("delta", "Shared."))


MANAGER = SkillManager.default(
    (FileSkillSource("shared", ("/environment/shared/skills",), required=False),)
)


def prepare(base: Path, selection: frozenset[str] | None, **tokens: int) -> PreparedSkills:
    async def run() -> PreparedSkills:
        mounts = {
            "workspace": LocalDirectoryProvider(base),
            "shared": LocalDirectoryProvider(base / "shared"),
        }
        async with Environment(mounts) as environment:
            bindings = RunBindings.embedded(
                environment=environment, skill_selection=selection, **tokens
            )
            return await SkillsCapability(MANAGER).prepare(bindings)

    return asyncio.run(run())


def test_selection_none_exposes_the_whole_catalog(tmp_path: Path) -> None:
    _tree(tmp_path)
    prepared = prepare(tmp_path, None)
    assert [p.name for p in prepared.skill_paths] == ["alpha", "beta", "delta", "gamma"]
    expected = render_catalog(
        SkillCatalog(
            tuple(
                CatalogEntry(p.name, item.description, p.document.path)
                for p, item in zip(prepared.skill_paths, prepared.catalog.items, strict=True)
            ),
            roots=MANAGER.roots,
        ),
        (200_000 - 16_000) // 20,
    )
    assert prepared.instructions == expected.text
    assert prepared.rendering == expected
    assert "&lt;now&gt; &amp; then." in prepared.instructions
    assert prepared.rendering.form == "listing"


def test_empty_selection_gives_no_instructions_and_no_paths(tmp_path: Path) -> None:
    _tree(tmp_path)
    prepared = prepare(tmp_path, frozenset())
    assert prepared.instructions == ""
    assert prepared.skill_paths == ()


def test_unknown_selection_fails_before_rendering(tmp_path: Path) -> None:
    _tree(tmp_path)
    with pytest.raises(DefinitionError) as caught:
        prepare(tmp_path, frozenset({"alpha", "nope"}))
    assert caught.value.code == "skill_selection_unknown"
    with pytest.raises(DefinitionError):
        RunBindings.embedded(environment=Environment(), skill_selection="alpha")  # type: ignore[arg-type]


def test_budget_comes_from_the_allowance(tmp_path: Path) -> None:
    _tree(tmp_path)
    prepared = prepare(tmp_path, None, context_tokens=2_000, response_reserve_tokens=0)
    assert prepared.rendering.budget_bytes == 100
    assert len(prepared.instructions.encode()) <= 100
    assert prepared.rendering.form in {"minimal", "empty", "listing"}
    with pytest.raises(DefinitionError) as caught:
        RunBindings.embedded(environment=Environment(), context_tokens=-1)
    assert caught.value.code == "allowance_invalid"


def test_observe_read_and_boundary_fence(tmp_path: Path) -> None:
    _tree(tmp_path)

    async def run() -> None:
        workspace = LocalDirectoryProvider(tmp_path)
        shared = LocalDirectoryProvider(tmp_path / "shared")
        async with Environment({"workspace": workspace, "shared": shared}) as environment:
            bindings = RunBindings.embedded(
                environment=environment, skill_selection=frozenset({"alpha"})
            )
            prepared = await SkillsCapability(MANAGER).prepare(bindings)
            assert prepared.observe_read("/workspace/.agents/skills/alpha/SKILL.md")
            assert not prepared.observe_read("/workspace/.agents/skills/beta/SKILL.md")
            assert prepared.observed_reads == ("alpha",)
            shared.retarget(tmp_path / "shared")  # delta is not selected: no fence
            prepared.check_boundary(environment)
            workspace.retarget(tmp_path)
            with pytest.raises(DefinitionError) as caught:
                prepared.check_boundary(environment)
            assert caught.value.code == "skill_catalog_stale"

    asyncio.run(run())
