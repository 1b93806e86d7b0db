"""Environment routing, pinned scopes and the staleness rule (SPEC section 7)."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a13n_harness import Environment
from a13n_harness.capabilities import BoundSkillCatalog, FileSkillSource, SkillManager
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import (
    FilePermissionDenied,
    FileProviderError,
    LocalDirectoryProvider,
    MemoryFileOperator,
)
from a13n_harness.testing.discovery_strategies import skill_document


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture(scope="module")
def trees() -> Iterator[tuple[Path, Path, Path]]:
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        dirs = (base / "a", base / "b", base / "c")
        for index, directory in enumerate(dirs):
            _write(directory / ".agents/skills/w/SKILL.md", skill_document("w", f"tree {index}"))
            _write(directory / "skills/s/SKILL.md", skill_document("s", f"tree {index}"))
        yield dirs


MANAGER = SkillManager(
    (
        FileSkillSource("workspace", ("/workspace/.agents/skills",), required=False),
        FileSkillSource("shared", ("/environment/shared/skills",), required=False),
    )
)

NAMES = ("workspace", "shared", "other")


@dataclass
class Model:
    """An independent model of the routes: name -> (incarnation, provider index)."""

    mounts: dict[str, tuple[int, int]]
    generations: list[int]
    default: str = "workspace"
    counter: int = field(default=100)

    def route(self, mount: str, default_route: bool) -> tuple[str, int, int, int] | None:
        name = self.default if default_route else mount
        if name not in self.mounts:
            return None
        incarnation, provider = self.mounts[name]
        return (name, incarnation, provider, self.generations[provider])


operations = st.lists(
    st.one_of(
        st.tuples(st.just("mount"), st.sampled_from(NAMES), st.integers(0, 2)),
        st.tuples(st.just("unmount"), st.sampled_from(NAMES), st.just(0)),
        st.tuples(st.just("retarget"), st.just(""), st.integers(0, 2)),
        st.tuples(st.just("set_default"), st.sampled_from(NAMES), st.just(0)),
    ),
    max_size=6,
)


@settings(max_examples=80)
@given(ops=operations)
def test_require_current_raises_exactly_when_a_relevant_route_changed(
    trees: tuple[Path, Path, Path], ops: list[tuple[str, str, int]]
) -> None:
    """skill_catalog_stale exactly when a route an item depends on changed, never otherwise."""

    async def run() -> None:
        providers = [LocalDirectoryProvider(directory) for directory in trees]
        environment = Environment({"workspace": providers[0], "shared": providers[1]})
        async with environment:
            catalog = await MANAGER.scan_environment(environment=environment)
            model = Model({"workspace": (0, 0), "shared": (1, 1)}, [1, 1, 1])
            captured = {
                item.name: model.route(item.document.mount, item.document.default_route)
                for item in catalog.items
            }
            assert sorted(captured) == ["s", "w"]
            for operation, name, index in ops:
                if operation == "mount":
                    environment.mount(name, providers[index])
                    model.counter += 1
                    model.mounts[name] = (model.counter, index)
                elif operation == "unmount":
                    if name in model.mounts:
                        environment.unmount(name)
                        del model.mounts[name]
                elif operation == "retarget":
                    providers[index].retarget(trees[index])
                    model.generations[index] += 1
                else:
                    environment.set_default(name)
                    model.default = name
            expected_stale = any(
                model.route(item.document.mount, item.document.default_route) != captured[item.name]
                for item in catalog.items
            )
            if expected_stale:
                with pytest.raises(DefinitionError) as caught:
                    catalog.require_current(environment)
                assert caught.value.code == "skill_catalog_stale"
            else:
                catalog.require_current(environment)

    asyncio.run(run())


def test_unrelated_mount_changes_do_not_invalidate(trees: tuple[Path, Path, Path]) -> None:
    async def run() -> None:
        provider = LocalDirectoryProvider(trees[0])
        unrelated = LocalDirectoryProvider(trees[2])
        async with Environment({"workspace": provider, "x": unrelated}) as environment:
            catalog = await SkillManager.default().scan_environment(environment=environment)
            environment.mount("y", LocalDirectoryProvider(trees[1]))
            environment.mount("x", unrelated)
            unrelated.retarget(trees[1])
            environment.unmount("x")
            environment.mount("z", unrelated)
            catalog.require_current(environment)
            provider.retarget(trees[0])
            with pytest.raises(DefinitionError) as caught:
                catalog.require_current(environment)
            assert caught.value.code == "skill_catalog_stale"

    asyncio.run(run())


def test_each_stale_cause(trees: tuple[Path, Path, Path]) -> None:
    async def scan(environment: Environment) -> BoundSkillCatalog:
        return await SkillManager.default().scan_environment(environment=environment)

    async def run() -> None:
        for change in ("remount", "retarget", "default", "unmount"):
            provider = LocalDirectoryProvider(trees[0])
            async with Environment({"workspace": provider, "b": provider}) as environment:
                catalog = await scan(environment)
                assert [i.name for i in catalog.items] == ["w"]
                if change == "remount":
                    environment.mount("workspace", provider)
                elif change == "retarget":
                    provider.retarget(trees[0])
                elif change == "default":
                    environment.set_default("b")  # same provider, another mount
                else:
                    environment.unmount("workspace")
                with pytest.raises(DefinitionError) as caught:
                    catalog.require_current(environment)
                assert caught.value.code == "skill_catalog_stale", change

    asyncio.run(run())


def test_routing_and_selection(trees: tuple[Path, Path, Path]) -> None:
    async def run() -> None:
        environment = Environment({"workspace": LocalDirectoryProvider(trees[0])})
        with pytest.raises(DefinitionError):
            environment.select_files("/workspace/x")
        async with environment:
            selection = environment.select_files("/workspace/.agents")
            assert (selection.mount, selection.provider_path, selection.default_route) == (
                "workspace",
                "/.agents",
                True,
            )
            other = environment.select_files("/environment/workspace")
            assert (other.provider_path, other.default_route) == ("/", False)
            for bad, code in (
                ("/elsewhere", "skill_root_unroutable"),
                ("/environment/none/x", "skill_root_unroutable"),
                ("/environment", "skill_root_unroutable"),
                ("/workspace/../x", "skill_root_invalid"),
            ):
                with pytest.raises(DefinitionError) as caught:
                    environment.select_files(bad)
                assert caught.value.code == code
            data = await environment.files.read_bytes("/workspace/.agents/skills/w/SKILL.md", 100)
            assert data.startswith(b"---")
            with pytest.raises(DefinitionError):
                environment.unmount("nope")
            with pytest.raises(DefinitionError):
                environment.mount("a/b", LocalDirectoryProvider(trees[0]))
        with pytest.raises(DefinitionError) as caught:
            await SkillManager.default().scan_environment(environment=environment)
        assert caught.value.code == "skill_root_unroutable"

    asyncio.run(run())


def test_pinned_scope_refuses_other_mounts_and_moved_routes(trees: tuple[Path, Path, Path]) -> None:
    async def run() -> None:
        provider = LocalDirectoryProvider(trees[0])
        async with Environment({"workspace": provider}) as environment:
            selection = environment.select_files("/workspace/.agents/skills")
            async with environment.open_scope(selection) as scope:
                assert len(await scope.list_directory("/workspace/.agents/skills")) == 1
                with pytest.raises(FilePermissionDenied):
                    await scope.list_directory("/environment/workspace/.agents")
                provider.retarget(trees[1])
                with pytest.raises(DefinitionError) as caught:
                    await scope.list_directory("/workspace/.agents/skills")
                assert caught.value.code == "skill_catalog_stale"
            with pytest.raises(FileProviderError):
                await scope.read_bytes("/workspace/.agents/skills/w/SKILL.md", 10)

    asyncio.run(run())


def test_unroutable_roots_follow_required(trees: tuple[Path, Path, Path]) -> None:
    async def run() -> None:
        async with Environment({"workspace": LocalDirectoryProvider(trees[0])}) as environment:
            manager = SkillManager.default(
                (FileSkillSource("org", ("/environment/shared/skills",), required=False),)
            )
            catalog = await manager.scan_environment(environment=environment)
            assert [(d.code, d.path) for d in catalog.diagnostics] == [
                ("skill_root_skipped", "/environment/shared/skills")
            ]
            required = SkillManager.default(
                (FileSkillSource("org", ("/environment/shared/skills",), required=True),)
            )
            with pytest.raises(DefinitionError) as caught:
                await required.scan_environment(environment=environment)
            assert caught.value.code == "skill_root_unroutable"

    asyncio.run(run())


def test_a_route_change_during_the_scan_fails_it(trees: tuple[Path, Path, Path]) -> None:
    """A provider retargeted while reads are in flight: skill_catalog_stale, never a mix."""

    class Retargeting(LocalDirectoryProvider):
        def __init__(self, path: Path) -> None:
            super().__init__(path)
            self.reads = 0

        def operator(self) -> MemoryFileOperator:
            outer = self
            tree = {".agents": {"skills": {"w": {"SKILL.md": skill_document("w", "d")}}}}

            class Operator(MemoryFileOperator):
                async def read_bytes(self, path: str, limit: int) -> bytes:
                    outer.reads += 1
                    if outer.reads == 1:
                        outer.retarget(trees[1])
                    return await super().read_bytes(path, limit)

            return Operator(tree)

    async def run() -> None:
        provider = Retargeting(trees[0])
        async with Environment({"workspace": provider}) as environment:
            with pytest.raises(DefinitionError) as caught:
                await SkillManager.default().scan_environment(environment=environment)
            assert caught.value.code == "skill_catalog_stale"

    asyncio.run(run())
