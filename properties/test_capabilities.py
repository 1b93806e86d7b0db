"""SkillsCapability and RunBindings (docs/contract.md §7, "Running with skills")."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
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
from a13n_harness.context.render import RenderedCatalog, render_catalog
from a13n_harness.context.tokens import CountedRendering, TokenCounter, render_catalog_counted
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


def prepare(
    base: Path,
    selection: frozenset[str] | None,
    *,
    context_tokens: int = 200_000,
    response_reserve_tokens: int = 16_000,
    token_counter: TokenCounter | None = None,
) -> PreparedSkills:
    async def run() -> PreparedSkills:
        mounts = {
            "workspace": LocalDirectoryProvider(base),
            "shared": LocalDirectoryProvider(base / "shared"),
        }
        async with Environment(mounts) as environment:
            bindings = RunBindings.embedded(
                environment=environment,
                skill_selection=selection,
                context_tokens=context_tokens,
                response_reserve_tokens=response_reserve_tokens,
                token_counter=token_counter,
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
    assert isinstance(prepared.rendering, RenderedCatalog)
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


# ------------------------------------------------------------- routing (contract §7)


def _pointer(instructions: str) -> str:
    return next(line for line in instructions.splitlines() if "available (list " in line)


def test_with_a_selection_the_pointer_names_the_selected_folders_only(tmp_path: Path) -> None:
    """The roots hold skills the run did not select: the pointer must not send the model there."""
    _tree(tmp_path)
    prepared = prepare(tmp_path, frozenset({"alpha"}))
    assert _pointer(prepared.instructions) == (
        "1 skill available (list /workspace/.agents/skills/alpha/ to see all)"
    )
    two = prepare(tmp_path, frozenset({"gamma", "delta"}))
    assert _pointer(two.instructions) == (
        "2 skills available (list /environment/shared/skills/delta/ and "
        "/workspace/.agents/skills/gamma/ to see all)"
    )
    tiny = prepare(tmp_path, frozenset({"alpha"}), context_tokens=1_000, response_reserve_tokens=0)
    assert tiny.instructions == "/workspace/.agents/skills/alpha/ has 1 skill\n"


def test_without_a_selection_the_pointer_names_only_the_scanned_roots(tmp_path: Path) -> None:
    """An optional root that was skipped (here: its mount's directory is missing) is not named."""
    _tree(tmp_path)
    (tmp_path / "shared/skills/delta/SKILL.md").unlink()
    (tmp_path / "shared/skills/delta").rmdir()
    (tmp_path / "shared/skills").rmdir()
    prepared = prepare(tmp_path, None)
    assert [d.code for d in prepared.catalog.diagnostics] == ["skill_root_skipped"]
    assert _pointer(prepared.instructions) == (
        "3 skills available (list /workspace/.agents/skills/ to see all)"
    )
    full = prepare_full(tmp_path)
    assert _pointer(full.instructions) == (
        "3 skills available (list /workspace/.agents/skills/ to see all)"
    )


def prepare_full(base: Path) -> PreparedSkills:
    """Both roots configured, the shared mount absent altogether (unroutable, skipped)."""

    async def run() -> PreparedSkills:
        async with Environment({"workspace": LocalDirectoryProvider(base)}) as environment:
            bindings = RunBindings.embedded(environment=environment)
            return await SkillsCapability(MANAGER).prepare(bindings)

    return asyncio.run(run())


# ------------------------------------------- token-counted budgets (contract §9)


@dataclass(frozen=True)
class QuarterCounter:
    """One token per four UTF-8 bytes, rounded up per line: English-like density."""

    line_additive: bool = True

    def count(self, text: str) -> int:
        return sum(-(-len(line.encode()) // 4) for line in text.splitlines(keepends=True))


def test_a_bound_token_counter_budgets_the_catalog_in_its_tokens(tmp_path: Path) -> None:
    """``RunBindings.embedded(token_counter=...)``: render_catalog_counted at the allowance."""
    _tree(tmp_path)
    by_bytes = prepare(tmp_path, None, context_tokens=4_000, response_reserve_tokens=0)
    counter = QuarterCounter()
    by_tokens = prepare(
        tmp_path, None, context_tokens=4_000, response_reserve_tokens=0, token_counter=counter
    )  # allowance (4,000 - 0) // 20 = 200
    rendering = by_tokens.rendering
    assert isinstance(rendering, CountedRendering)
    assert rendering.budget_tokens == 200
    assert rendering.tokens == counter.count(by_tokens.instructions) <= 200
    assert by_tokens.instructions == rendering.text
    assert by_bytes.rendering.listed < rendering.listed == 4
    listing = SkillCatalog(
        tuple(
            CatalogEntry(item.name, item.description, item.path) for item in by_tokens.catalog.items
        ),
        roots=MANAGER.roots,
    )
    assert rendering == render_catalog_counted(listing, 200, counter)


@pytest.mark.parametrize("counter", [5, "cl100k_base", object()])
def test_a_token_counter_that_is_not_one_is_refused(counter: object) -> None:
    with pytest.raises(DefinitionError) as caught:
        RunBindings.embedded(environment=Environment(), token_counter=counter)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "counter")
