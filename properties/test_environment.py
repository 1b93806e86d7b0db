"""Environment routing, pinned scopes and the staleness rule (docs/contract.md §7)."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a13n_harness import Environment
from a13n_harness.capabilities import BoundSkillCatalog, FileSkillSource, SkillManager
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import (
    DirectoryEntry,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    FileStat,
    LocalDirectoryProvider,
    MemoryFileOperator,
    PinnedFiles,
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


# --- checks after every call and the final route check -------------------------------------------


class _Provider:
    """A FileProvider over an in-memory tree whose generation the test bumps at will."""

    def __init__(self, operator: MemoryFileOperator) -> None:
        self.generation = 1
        self._operator = operator

    def operator(self) -> MemoryFileOperator:
        return self._operator

    def retarget(self) -> None:
        self.generation += 1


class _RetargetsDuringCalls(MemoryFileOperator):
    """Bumps its provider's generation in the middle of every call (armed by the test)."""

    provider: _Provider | None = None

    def _during(self) -> None:
        if self.provider is not None:
            self.provider.retarget()

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        self._during()
        return await super().list_directory(path)

    async def read_bytes(self, path: str, limit: int) -> bytes:
        self._during()
        return await super().read_bytes(path, limit)

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        self._during()
        return [await super(_RetargetsDuringCalls, self).read_bytes(p, limit) for p in paths]

    @property
    def read_concurrency(self) -> int:
        return 1

    async def stat(self, path: str) -> FileStat:
        self._during()
        return await super().stat(path)

    async def write_bytes(self, path: str, data: bytes) -> None:
        self._during()
        await super().write_bytes(path, data)

    async def make_directory(self, path: str) -> None:
        self._during()
        await super().make_directory(path)

    async def remove(self, path: str) -> None:
        self._during()
        await super().remove(path)


_CALLS: dict[str, Callable[[PinnedFiles], Awaitable[object]]] = {
    "list_directory": lambda scope: scope.list_directory("/workspace/d"),
    "read_bytes": lambda scope: scope.read_bytes("/workspace/d/f", 10),
    "read_many": lambda scope: scope.read_many(["/workspace/d/f"], 10),
    "stat": lambda scope: scope.stat("/workspace/d/f"),
    "write_bytes": lambda scope: scope.write_bytes("/workspace/d/g", b"new"),
    "make_directory": lambda scope: scope.make_directory("/workspace/d/e"),
    "remove": lambda scope: scope.remove("/workspace/d/f"),
}


@pytest.mark.parametrize("method", sorted(_CALLS))
def test_a_retarget_during_a_pinned_call_is_stale_after_it(method: str) -> None:
    """PinnedFiles checks after every call: a provider retargeted *during* the call fails it."""
    operator = _RetargetsDuringCalls({"d": {"f": b"old"}})
    provider = _Provider(operator)

    async def run() -> None:
        async with Environment({"workspace": provider}) as environment:
            selection = environment.select_files("/workspace")
            async with environment.open_scope(selection) as scope:
                await _CALLS["list_directory"](scope)  # unarmed: the scope works
                operator.provider = provider
                with pytest.raises(DefinitionError) as caught:
                    await _CALLS[method](scope)
                assert caught.value.code == "skill_catalog_stale"
                assert provider.generation == 2  # retargeted during the call, not before it

    asyncio.run(run())


class _MutatesOnReread(MemoryFileOperator):
    """Runs ``change`` when the workspace's SKILL.md is read the second time (the final re-read)."""

    def __init__(self, tree: Mapping[str, object], change: Callable[[], None]) -> None:
        super().__init__(tree)
        self.change = change
        self.reads = 0

    async def read_bytes(self, path: str, limit: int) -> bytes:
        data = await super().read_bytes(path, limit)
        self.reads += 1
        if self.reads == 2:
            self.change()
        return data


_WORKSPACE = {".agents": {"skills": {"w": {"SKILL.md": skill_document("w", "kept")}}}}


@pytest.mark.parametrize("role", ["empty", "overridden", "skipped"])
@pytest.mark.parametrize("change", ["retarget", "remount", "unmount", "default"])
def test_the_final_route_check_covers_every_configured_root(role: str, change: str) -> None:
    """Seed step 5: after the final re-read every configured root must still route as it did,
    including an empty root, an overridden one and a skipped (unroutable) one."""
    shared_tree: dict[str, object] = {"skills": {}}
    if role == "overridden":
        shared_tree = {"skills": {"w": {"SKILL.md": skill_document("w", "beaten")}}}
    shared = _Provider(MemoryFileOperator(shared_tree))
    manager = SkillManager(
        (
            FileSkillSource("shared", ("/environment/shared/skills",), required=False),
            FileSkillSource("workspace", ("/workspace/.agents/skills",), required=False),
        )
    )
    environment = Environment(
        {"workspace": _Provider(MemoryFileOperator({}))}
        | ({} if role == "skipped" else {"shared": shared})
    )

    def mutate() -> None:
        if role == "skipped":
            environment.mount("shared", shared)  # an unroutable root becomes routable
        elif change == "retarget":
            shared.retarget()
        elif change == "remount":
            environment.mount("shared", shared)
        elif change == "unmount":
            environment.unmount("shared")
        else:
            environment.set_default("shared")

    async def run() -> None:
        async with environment:
            reread = _MutatesOnReread(_WORKSPACE, mutate)
            workspace = _Provider(reread)
            environment.mount("workspace", workspace)
            if change == "default":
                environment.mount("other", workspace)
                environment.set_default("other")
            with pytest.raises(DefinitionError) as caught:
                await manager.scan_environment(environment=environment)
            assert caught.value.code == "skill_catalog_stale"
            assert reread.reads == 2  # changed after every pinned call returned

    asyncio.run(run())
