"""Environment mode and direct mode, certified against the seed's run promises.

Each test kills a defect that the end-of-scan re-checks used to hide: the change it makes is
*not* visible at the end of the scan (a route moved and moved back, a change made before a
later root's first I/O, a read still running when the scan returned), or it is a mode the
other suites never ran (a ``/workspace`` root in direct mode, a materializer in direct mode).
Everything goes through public APIs (``SkillManager``, ``Environment``, ``SkillsCapability``),
so the tests survive refactors of discovery and the manager. The injected defects they kill
are ``mutants/400..409``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from a13n_harness import Environment, RunBindings
from a13n_harness.capabilities import (
    BoundSkillCatalog,
    FileSkillSource,
    SkillManager,
    SkillsCapability,
)
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import (
    DirectoryEntry,
    FileOperator,
    LocalDirectoryProvider,
    LocalFileOperator,
    MemoryFileOperator,
)
from a13n_harness.testing.discovery_strategies import skill_document
from bounded import until, wait_bounded


class _Provider:
    """A FileProvider over one operator whose generation the test bumps."""

    def __init__(self, operator: FileOperator) -> None:
        self.generation = 1
        self._operator = operator

    def operator(self) -> FileOperator:
        return self._operator

    def retarget(self) -> None:
        self.generation += 1


def _tree(*names: str, description: str = "d") -> dict[str, object]:
    return {name: {"SKILL.md": skill_document(name, description)} for name in names}


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


# --- seed steps 2-3: only pinned scopes, never the environment.files facade -----------------------


class _FlipsTheDefault(MemoryFileOperator):
    """Moves ``/workspace`` to another mount during its first listing and back at its first read.

    At the end of the scan the default route is what it was at the start: only a check made
    *after each pinned call* sees that the listing ran while ``/workspace`` meant another mount.
    """

    environment: Environment | None = None

    def __init__(self, tree: dict[str, object]) -> None:
        super().__init__(tree)
        self.listings = 0

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        result = await super().list_directory(path)
        self.listings += 1
        if self.listings == 1 and self.environment is not None:
            self.environment.set_default("other")
        return result

    async def read_bytes(self, path: str, limit: int) -> bytes:
        if self.environment is not None:
            self.environment.set_default("workspace")
        return await super().read_bytes(path, limit)


class _SpiedEnvironment(Environment):
    """Counts every use of the unpinned ``files`` facade."""

    facade_uses = 0

    @property
    def files(self) -> FileOperator:
        type(self).facade_uses += 1
        return super().files


def test_environment_scan_reads_only_through_pinned_scopes() -> None:
    """A default route moved during a listing and moved back fails the scan (seed steps 2-3)."""
    operator = _FlipsTheDefault({".agents": {"skills": _tree("alpha", "beta")}})
    provider = _Provider(operator)

    async def run() -> None:
        environment = _SpiedEnvironment({"workspace": provider, "other": provider})
        async with environment:
            operator.environment = environment
            with pytest.raises(DefinitionError) as caught:
                await SkillManager.default().scan_environment(environment=environment)
            assert caught.value.code == "skill_catalog_stale"
            # Negative control: the same scan with nothing moving succeeds.
            operator.environment = None
            environment.set_default("workspace")
            catalog = await SkillManager.default().scan_environment(environment=environment)
            assert [item.name for item in catalog.items] == ["alpha", "beta"]
        assert _SpiedEnvironment.facade_uses == 0

    asyncio.run(run())


# --- seed step 1: every route captured before any provider I/O -----------------------------------


class _RetargetsOnListing(MemoryFileOperator):
    """Retargets another provider when this operator's root is listed (armed by the test)."""

    other: _Provider | None = None

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        if self.other is not None:
            self.other.retarget()
        return await super().list_directory(path)


@pytest.mark.parametrize("change", ["retarget", "remount", "default"])
def test_every_root_is_captured_before_any_provider_io(change: str) -> None:
    """A later root's route that moves while an earlier root is read is stale (seed step 1).

    The change is permanent and made before the later root's first I/O: a scan that captured
    the later root at its own first I/O would read the new route consistently and pass every
    end-of-scan check.
    """
    first = _RetargetsOnListing({"skills": _tree("alpha")})
    shared = _Provider(MemoryFileOperator({"skills": _tree("beta")}))
    manager = SkillManager(
        (
            FileSkillSource("first", ("/environment/first/skills",)),
            FileSkillSource("shared", ("/workspace/skills",)),
        )
    )

    async def run() -> None:
        environment = Environment({"first": _Provider(first), "shared": shared}, default="shared")
        async with environment:
            catalog = await manager.scan_environment(environment=environment)  # control
            assert [item.name for item in catalog.items] == ["alpha", "beta"]

            class Mover(_Provider):
                def retarget(self) -> None:
                    if change == "retarget":
                        shared.retarget()
                    elif change == "remount":
                        environment.mount("shared", shared)
                    else:
                        environment.mount("copy", shared)
                        environment.set_default("copy")

            first.other = Mover(first)
            with pytest.raises(DefinitionError) as caught:
                await manager.scan_environment(environment=environment)
            assert caught.value.code == "skill_catalog_stale"

    asyncio.run(run())


# --- the seed: "Cancellation joins the workers before releasing their file scopes" ----------------


def test_cancelling_an_environment_scan_joins_the_local_read_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scan cancelled while a LocalFileOperator read blocks in its thread returns only after
    that thread is done: no read runs against a scope the scan has closed."""
    for index in range(3):
        _write(tmp_path / f".agents/skills/s{index}/SKILL.md", skill_document(f"s{index}", "d"))
    entered = threading.Event()
    release = threading.Event()
    finished = threading.Event()
    real_read = os.read

    def blocking_read(fd: int, size: int) -> bytes:
        if threading.current_thread() is threading.main_thread() or entered.is_set():
            return real_read(fd, size)
        entered.set()
        assert not wait_bounded(release.wait, cpu_seconds=30), "never released"
        try:
            return real_read(fd, size)
        finally:
            finished.set()

    async def run() -> bool:
        environment = Environment({"workspace": LocalDirectoryProvider(tmp_path)})
        async with environment:
            monkeypatch.setattr(os, "read", blocking_read)
            task = asyncio.create_task(
                SkillManager.default().scan_environment(environment=environment)
            )
            await until(entered.is_set, cpu_seconds=30, what="the blocked read")
            task.cancel()
            # Turns of the loop, not a span of time: a scan that does not join its thread
            # returns within a few, while the read is still blocked (it is released only after).
            for _ in range(100):
                if task.done():
                    break
                await asyncio.sleep(0)
            returned_while_blocked = task.done()
            release.set()
            with pytest.raises(asyncio.CancelledError):
                await task
            return finished.is_set() and not returned_while_blocked

    assert asyncio.run(run()), "the scan returned while its read thread was still running"
    assert entered.is_set()  # negative control: a read really was blocked in its thread


# --- direct mode: no mount routing, materializers run, every call rediscovers ------------------


def test_direct_mode_has_no_mount_routing(tmp_path: Path) -> None:
    """In direct mode ``/workspace/x`` is the operator's ``/workspace/x``, never its ``/x``."""
    _write(tmp_path / "workspace/.agents/skills/inner/SKILL.md", skill_document("inner", "w"))
    _write(tmp_path / ".agents/skills/outer/SKILL.md", skill_document("outer", "o"))

    async def run() -> None:
        for files in (
            LocalFileOperator(tmp_path),
            MemoryFileOperator(
                {
                    "workspace": {".agents": {"skills": _tree("inner")}},
                    ".agents": {"skills": _tree("outer")},
                }
            ),
        ):
            items = await SkillManager.default().scan(files=files)
            assert [(i.name, i.path) for i in items] == [
                ("inner", "/workspace/.agents/skills/inner/SKILL.md")
            ]
            own = SkillManager((FileSkillSource("project", ("/.agents/skills",)),))
            assert [i.name for i in await own.scan(files=files)] == ["outer"]

    asyncio.run(run())


class _Publisher:
    """A trusted materializer that publishes one package beneath its root."""

    materializer_id = "publisher"

    def __init__(self, target_root: str) -> None:
        self.target_root = target_root
        self.seen: list[object] = []

    async def materialize(self, *, files: FileOperator) -> None:
        self.seen.append(files)
        await files.make_directory(f"{self.target_root}/managed")
        await files.write_bytes(
            f"{self.target_root}/managed/SKILL.md", skill_document("managed", "m")
        )


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_materializers_run_in_direct_mode(tmp_path: Path, kind: str) -> None:
    """``scan(files=...)`` and ``inspect(files=...)`` run the materializers first, through
    exactly the supplied operator."""
    (tmp_path / "skills").mkdir()

    async def run() -> None:
        files: FileOperator = (
            LocalFileOperator(tmp_path)
            if kind == "local"
            else MemoryFileOperator({"skills": _tree("plain")})
        )
        if kind == "local":
            _write(tmp_path / "skills/plain/SKILL.md", skill_document("plain", "p"))
        publisher = _Publisher("/skills")
        manager = SkillManager(
            (FileSkillSource("project", ("/skills",)),), materializers=(publisher,)
        )
        assert [i.name for i in await manager.scan(files=files)] == ["managed", "plain"]
        assert publisher.seen == [files]
        scan = await manager.inspect(files=files)
        assert [i.name for i in scan.items] == ["managed", "plain"]
        assert publisher.seen == [files, files]

    asyncio.run(run())


def test_every_direct_scan_rediscovers(tmp_path: Path) -> None:
    """One manager, one operator, three calls: each sees the tree as it is at that call."""
    _write(tmp_path / ".agents/skills/a/SKILL.md", skill_document("a", "first"))
    manager = SkillManager((FileSkillSource("project", ("/.agents/skills",)),))

    async def run() -> None:
        with LocalFileOperator(tmp_path) as files:
            first = await manager.scan(files=files)
            assert [(i.name, i.description) for i in first] == [("a", "first")]
            _write(tmp_path / ".agents/skills/a/SKILL.md", skill_document("a", "second"))
            _write(tmp_path / ".agents/skills/b/SKILL.md", skill_document("b", "new"))
            second = await manager.scan(files=files)
            assert [(i.name, i.description) for i in second] == [("a", "second"), ("b", "new")]
            (tmp_path / ".agents/skills/a/SKILL.md").unlink()
            third = await manager.inspect(files=files)
            assert [i.name for i in third.items] == ["b"]
            assert [d.code for d in third.diagnostics] == ["skill_entry_skipped"]

    asyncio.run(run())


def test_every_environment_scan_rediscovers(tmp_path: Path) -> None:
    """The same for ``scan_environment`` and ``SkillsCapability.prepare``."""
    _write(tmp_path / ".agents/skills/a/SKILL.md", skill_document("a", "first"))
    manager = SkillManager.default()

    async def run() -> None:
        async with Environment({"workspace": LocalDirectoryProvider(tmp_path)}) as environment:
            bindings = RunBindings.embedded(environment=environment)
            capability = SkillsCapability(manager)
            first = await capability.prepare(bindings)
            assert "first" in first.instructions
            _write(tmp_path / ".agents/skills/a/SKILL.md", skill_document("a", "second"))
            second = await capability.prepare(bindings)
            assert "second" in second.instructions
            assert "first" not in second.instructions
            catalog = await manager.scan_environment(environment=environment)
            assert [i.description for i in catalog.items] == ["second"]

    asyncio.run(run())


# --- require_current: the provider path is part of the route ------------------------------------


def test_the_provider_path_is_part_of_the_route(tmp_path: Path) -> None:
    """A bound item whose recorded provider path differs from where its path resolves now is
    stale, even with the same mount, mount id, generation and default route."""
    _write(tmp_path / ".agents/skills/a/SKILL.md", skill_document("a", "d"))

    async def run() -> None:
        async with Environment({"workspace": LocalDirectoryProvider(tmp_path)}) as environment:
            catalog = await SkillManager.default().scan_environment(environment=environment)
            catalog.require_current(environment)  # control: unchanged is current
            (item,) = catalog.items
            for field in ("directory", "document"):
                selection = getattr(item, field)
                moved = dataclasses.replace(selection, provider_path="/elsewhere/SKILL.md")
                assert environment.is_current(selection)
                assert not environment.is_current(moved)
                with pytest.raises(DefinitionError) as caught:
                    environment.require_current(moved)
                assert caught.value.code == "skill_catalog_stale"
                forged = BoundSkillCatalog(
                    (dataclasses.replace(item, **{field: moved}),),
                    catalog.diagnostics,
                    catalog.roots,
                )
                with pytest.raises(DefinitionError) as caught:
                    forged.require_current(environment)
                assert caught.value.code == "skill_catalog_stale"

    asyncio.run(run())


# --- the run fence: every selected item, exactly the SKILL.md reads ----------------------------


_MOUNTS = ("m0", "m1", "m2", "m3")


@pytest.mark.parametrize("moved", [0, 1, 2])
def test_the_boundary_fence_checks_every_selected_item(moved: int) -> None:
    """Three selected skills on three mounts: moving any one of them fails ``check_boundary``;
    moving the mount of an unselected skill does not."""
    providers = {
        m: _Provider(MemoryFileOperator({"skills": _tree(f"s{i}")})) for i, m in enumerate(_MOUNTS)
    }
    manager = SkillManager(
        tuple(FileSkillSource(m, (f"/environment/{m}/skills",)) for m in _MOUNTS)
    )

    async def run() -> None:
        async with Environment(providers) as environment:
            bindings = RunBindings.embedded(
                environment=environment, skill_selection=frozenset({"s0", "s1", "s2"})
            )
            prepared = await SkillsCapability(manager).prepare(bindings)
            providers["m3"].retarget()  # s3 is not selected: not the run's route
            prepared.check_boundary(environment)
            providers[_MOUNTS[moved]].retarget()
            with pytest.raises(DefinitionError) as caught:
                prepared.check_boundary(environment)
            assert caught.value.code == "skill_catalog_stale"
            assert caught.value.path is not None
            assert caught.value.path.startswith(f"/environment/{_MOUNTS[moved]}/")

    asyncio.run(run())


_NEAR_MISSES = (
    "/workspace/.agents/skills/alpha/checklist.md",
    "/workspace/.agents/skills/alpha/SKILL.md.bak",
    "/workspace/.agents/skills/alpha/skill.md",
    "/workspace/.agents/skills/alpha/sub/SKILL.md",
    "/workspace/.agents/skills/alpha",
    "/workspace/.agents/skills/alpha/",
    "/workspace/.agents/skills/alphabet/SKILL.md",
    "/workspace/.agents/skills/SKILL.md",
    "/workspace/.agents/skills/alpha//SKILL.md",
    "/workspace/.agents/skills/alpha/./SKILL.md",
    "/environment/workspace/.agents/skills/alpha/SKILL.md",
    "workspace/.agents/skills/alpha/SKILL.md",
)


def test_observe_read_counts_only_the_selected_skill_md(tmp_path: Path) -> None:
    """Only the exact document path of a selected skill is a read of its SKILL.md."""
    _write(tmp_path / ".agents/skills/alpha/SKILL.md", skill_document("alpha", "a"))
    _write(tmp_path / ".agents/skills/alpha/checklist.md", b"- check\n")
    _write(tmp_path / ".agents/skills/alphabet/SKILL.md", skill_document("alphabet", "b"))

    async def run() -> None:
        async with Environment({"workspace": LocalDirectoryProvider(tmp_path)}) as environment:
            bindings = RunBindings.embedded(
                environment=environment, skill_selection=frozenset({"alpha"})
            )
            prepared = await SkillsCapability(SkillManager.default()).prepare(bindings)
            for path in _NEAR_MISSES:
                assert not prepared.observe_read(path), path
            assert not prepared.observed_reads
            assert prepared.observe_read("/workspace/.agents/skills/alpha/SKILL.md")
            assert prepared.observe_read(prepared.skill_paths[0].document)
            assert prepared.observed_reads == ("alpha", "alpha")

    asyncio.run(run())


# --- precedence before selection ----------------------------------------------------------------


def test_a_selected_name_is_the_precedence_winner() -> None:
    """Selecting a name defined by two sources exposes the later source's definition: its
    description, its paths, its route in the fence (the beaten one's route is not fenced)."""
    early = _Provider(MemoryFileOperator({"skills": _tree("w", description="beaten")}))
    late = _Provider(MemoryFileOperator({"skills": _tree("w", description="winner")}))
    manager = SkillManager(
        (
            FileSkillSource("early", ("/environment/early/skills",)),
            FileSkillSource("late", ("/environment/late/skills",)),
        )
    )

    async def run() -> None:
        async with Environment({"early": early, "late": late}) as environment:
            for selection in (None, frozenset({"w"})):
                bindings = RunBindings.embedded(environment=environment, skill_selection=selection)
                prepared = await SkillsCapability(manager).prepare(bindings)
                (item,) = prepared.catalog.items
                assert (item.source_id, item.description) == ("late", "winner")
                assert "winner" in prepared.instructions
                assert "beaten" not in prepared.instructions
                (path,) = prepared.skill_paths
                assert path.document.path == "/environment/late/skills/w/SKILL.md"
                assert not prepared.observe_read("/environment/early/skills/w/SKILL.md")
                early.retarget()  # the beaten definition's route is not the run's
                prepared.check_boundary(environment)
                late.retarget()
                with pytest.raises(DefinitionError) as caught:
                    prepared.check_boundary(environment)
                assert caught.value.code == "skill_catalog_stale"

    asyncio.run(run())
