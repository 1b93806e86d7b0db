"""LocalFileOperator and MemoryFileOperator against a hostile file system (docs/contract.md §7).

The root is pinned when the operator is built; link targets are resolved
lexically inside the root however they are spelled; reads allocate for what a
file holds; no method recurses with the depth of a tree; bad arguments are
``DefinitionError``.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import os
import pickle
import sys
import tracemalloc
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

import pytest

from a13n_harness import Environment
from a13n_harness.capabilities import (
    FileSkillSource,
    SkillManager,
    SkillScan,
    SkillsPolicy,
    read_limit,
)
from a13n_harness.capabilities.discovery import discover
from a13n_harness.capabilities.pool import read_all
from a13n_harness.capabilities.verdicts import document_verdict
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import decisive_prefix, undecided
from a13n_harness.environment import (
    BatchReader,
    DirectoryEntry,
    FileNotFound,
    FileOperator,
    FileOperatorError,
    FilePermissionDenied,
    FileStat,
    LocalDirectoryProvider,
    LocalFileOperator,
    MemoryFileOperator,
    MemorySymlink,
    PinnedFiles,
    path_segments,
)
from a13n_harness.environment.paths import resolve_link_target
from a13n_harness.testing.discovery_strategies import skill_document

SOURCE = FileSkillSource("s", ("/skills",))
MANAGER = SkillManager((SOURCE,), policy=SkillsPolicy())


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(coroutine)


def _names(scan: SkillScan) -> list[tuple[str, str]]:
    return [(item.name, item.description) for item in scan.items]


def _workspace(base: Path, name: str, description: str) -> Path:
    _write(base / "skills" / name / "SKILL.md", skill_document(name, description))
    return base


# --- defect 2: the root is pinned when the operator is built -------------------------------------


def test_a_root_swapped_for_a_link_after_construction_is_not_followed(tmp_path: Path) -> None:
    """`mv ws ws.orig && ln -s elsewhere ws` between two scans: the second reads ws.orig."""
    workspace = _workspace(tmp_path / "ws", "mine", "the pinned tree")
    _workspace(tmp_path / "elsewhere", "theirs", "an outside tree")
    files = LocalFileOperator(workspace)
    before = _run(MANAGER.inspect(files=files))
    os.rename(workspace, tmp_path / "ws.orig")
    os.symlink(tmp_path / "elsewhere", workspace)
    after = _run(MANAGER.inspect(files=files))
    assert _names(after) == _names(before) == [("mine", "the pinned tree")]


def test_a_root_swapped_for_another_directory_is_not_read(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path / "ws", "mine", "the pinned tree")
    files = LocalFileOperator(workspace)
    os.rename(workspace, tmp_path / "ws.orig")
    _workspace(tmp_path / "ws", "theirs", "a new directory at the old path")
    assert _names(_run(MANAGER.inspect(files=files))) == [("mine", "the pinned tree")]


def test_a_long_lived_mount_keeps_its_pinned_root(tmp_path: Path) -> None:
    """An Environment mount (LocalDirectoryProvider) outlives a swap of its host path."""
    workspace = _workspace(tmp_path / "ws", "mine", "the pinned tree")
    _workspace(tmp_path / "elsewhere", "theirs", "an outside tree")
    manager = SkillManager((FileSkillSource("s", ("/workspace/skills",)),))

    async def run() -> None:
        async with Environment({"workspace": LocalDirectoryProvider(workspace)}) as environment:
            first = await manager.scan_environment(environment=environment)
            os.rename(workspace, tmp_path / "ws.orig")
            os.symlink(tmp_path / "elsewhere", workspace)
            second = await manager.scan_environment(environment=environment)
            assert [i.description for i in first.items] == ["the pinned tree"]
            assert [i.description for i in second.items] == ["the pinned tree"]

    _run(run())


def test_a_retargeted_provider_pins_its_new_root(tmp_path: Path) -> None:
    """Each generation of a LocalDirectoryProvider pins the directory it names when retargeted."""
    first = _workspace(tmp_path / "one", "one", "first target")
    second = _workspace(tmp_path / "two", "two", "second target")
    _workspace(tmp_path / "elsewhere", "theirs", "an outside tree")
    provider = LocalDirectoryProvider(first)
    provider.retarget(second)
    os.rename(second, tmp_path / "two.orig")
    os.symlink(tmp_path / "elsewhere", second)
    scan = _run(MANAGER.inspect(files=provider.operator()))
    assert _names(scan) == [("two", "second target")]


class _SwapAfterListing:
    """Delegates to a LocalFileOperator and swaps its host root right after the first listing."""

    def __init__(self, inner: LocalFileOperator, swap: Callable[[], None]) -> None:
        self.inner = inner
        self.swap = swap
        self.swapped = False

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        result = await self.inner.list_directory(path)
        if not self.swapped:
            self.swapped = True
            self.swap()
        return result

    async def read_bytes(self, path: str, limit: int) -> bytes:
        return await self.inner.read_bytes(path, limit)

    async def stat(self, path: str) -> FileStat:
        return await self.inner.stat(path)

    async def write_bytes(self, path: str, data: bytes) -> None:
        await self.inner.write_bytes(path, data)

    async def make_directory(self, path: str) -> None:
        await self.inner.make_directory(path)

    async def remove(self, path: str) -> None:
        await self.inner.remove(path)


def test_a_root_swapped_between_listing_and_reading_is_not_followed(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path / "ws", "mine", "the pinned tree")
    _workspace(tmp_path / "elsewhere", "mine", "an outside tree")

    def swap() -> None:
        os.rename(workspace, tmp_path / "ws.orig")
        os.symlink(tmp_path / "elsewhere", workspace)

    files = _SwapAfterListing(LocalFileOperator(workspace), swap)
    scan = _run(MANAGER.inspect(files=files))
    assert files.swapped
    assert _names(scan) == [("mine", "the pinned tree")]


def test_an_inner_directory_swapped_for_an_outside_link_is_refused(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path / "ws", "mine", "the pinned tree")
    _workspace(tmp_path / "elsewhere", "mine", "an outside tree")

    def swap() -> None:
        os.rename(workspace / "skills/mine", tmp_path / "moved")
        os.symlink(tmp_path / "elsewhere/skills/mine", workspace / "skills/mine")

    files = _SwapAfterListing(LocalFileOperator(workspace), swap)
    with pytest.raises(DefinitionError) as caught:
        _run(MANAGER.inspect(files=files))
    assert caught.value.code == "skill_permission_denied"


def test_a_missing_root_stays_missing_when_it_appears_later(tmp_path: Path) -> None:
    files = LocalFileOperator(tmp_path / "later")
    _workspace(tmp_path / "later", "late", "appeared after construction")
    with pytest.raises(FileNotFound):
        _run(files.list_directory("/"))


def test_the_operator_closes_its_root_descriptor(tmp_path: Path) -> None:
    """One descriptor per operator, released by close(), by ``with`` and by collection."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc/self/fd")
    real = os.path.realpath(tmp_path)

    def pinned() -> int:
        count = 0
        for name in os.listdir("/proc/self/fd"):
            try:
                count += os.readlink(f"/proc/self/fd/{name}") == real
            except OSError:
                continue
        return count

    assert pinned() == 0
    operators = [LocalFileOperator(tmp_path) for _ in range(20)]
    assert pinned() == 20
    for operator in operators[:10]:
        operator.close()
        operator.close()
    assert pinned() == 10
    with pytest.raises(DefinitionError):
        _run(operators[0].list_directory("/"))
    with LocalFileOperator(tmp_path) as scoped:
        assert _run(scoped.list_directory("/")) == []
        assert pinned() == 11
    assert pinned() == 10
    del operators, scoped, operator
    gc.collect()
    assert pinned() == 0


# --- defect 3: link targets are resolved lexically inside the root ------------------------------


def _inside_spellings(root: str) -> list[str]:
    return [
        f"/{root}/store/real",
        f"/{root}/store/real/",
        f"//{root}/store/real",
        f"/./{root}/store/real",
        f"/{root}//store///real",
        f"/{root}/./store/./real/.",
        f"/{root}/store/../store/real",
        f"/{root}/nothing/../store/real",
        f"/{root}/../{root.rsplit('/', 1)[-1]}/store/real",
        "../store/real",
        "../store/real/",
        ".././store//real",
        "../store/x/../real",
        "../skills/../store/real/.",
    ]


@pytest.mark.parametrize("index", range(len(_inside_spellings("r"))))
def test_link_targets_inside_are_followed_however_spelled(tmp_path: Path, index: int) -> None:
    base = tmp_path / "ws"
    root = str(base).lstrip("/")
    target = _inside_spellings(root)[index]
    _write(base / "store/real/SKILL.md", skill_document("real", "followed"))
    (base / "skills").mkdir()
    os.symlink(target, base / "skills/real")
    scan = _run(MANAGER.inspect(files=LocalFileOperator(base)))
    assert _names(scan) == [("real", "followed")], target


MEMORY_SPELLINGS = [
    "/store/real",
    "/store/real/",
    "//store/real",
    "/./store/real",
    "/store//real",
    "/./store/./real/.",
    "/store/../store/real",
    "/nothing/../store/real",
    "/../store/real",
    "../store/real",
    "../store/real/",
    ".././store//real",
    "../store/x/../real",
    "../skills/../store/real/.",
]


@pytest.mark.parametrize("target", MEMORY_SPELLINGS)
def test_memory_link_targets_inside_are_followed_however_spelled(target: str) -> None:
    tree = {
        "store": {"real": {"SKILL.md": skill_document("real", "followed")}},
        "skills": {"real": MemorySymlink(target)},
    }
    scan = _run(MANAGER.inspect(files=MemoryFileOperator(tree)))
    assert _names(scan) == [("real", "followed")], target


@pytest.mark.parametrize(
    "spelling",
    [
        "/{parent}/outside/real",
        "//{parent}/outside/real",
        "/./{parent}//outside/real/",
        "/{root}/../outside/real",
        "/{root}/store/../../outside/real",
        "../../outside/real",
        "../store/../../outside/real",
    ],
)
def test_link_targets_outside_are_refused_however_spelled(tmp_path: Path, spelling: str) -> None:
    base = tmp_path / "ws"
    target = spelling.format(parent=str(tmp_path).lstrip("/"), root=str(base).lstrip("/"))
    _write(tmp_path / "outside/real/SKILL.md", skill_document("real", "outside"))
    _write(base / "store/real/SKILL.md", skill_document("real", "inside"))
    (base / "skills").mkdir()
    os.symlink(target, base / "skills/real")
    with pytest.raises(DefinitionError) as caught:
        _run(MANAGER.inspect(files=LocalFileOperator(base)))
    assert caught.value.code == "skill_permission_denied", target


# --- defect 4: allocation, recursion, argument types --------------------------------------------


@pytest.mark.parametrize("limit", [2**63, 2**64, 10**30, 2**31])
def test_read_bytes_allocates_for_the_file_not_the_limit(tmp_path: Path, limit: int) -> None:
    _write(tmp_path / "small", b"ab")
    files = LocalFileOperator(tmp_path)
    tracemalloc.start()
    try:
        data = _run(files.read_bytes("/small", limit))
        many = _run(files.read_many(["/small"], limit))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert data == b"ab"
    assert list(many) == [b"ab"]
    assert peak < 8 * 1024 * 1024
    assert _run(MemoryFileOperator({"small": b"ab"}).read_bytes("/small", limit)) == b"ab"


def test_read_bytes_reads_a_file_that_grew_since_it_was_measured(tmp_path: Path) -> None:
    """A file whose size says 0 (procfs-like) or that grows is still read up to the limit."""
    big = os.urandom(300_000)
    _write(tmp_path / "big", big)
    files = LocalFileOperator(tmp_path)
    assert _run(files.read_bytes("/big", 10**9)) == big
    assert _run(files.read_bytes("/big", 123_457)) == big[:123_457]
    assert _run(files.read_bytes("/big", 0)) == b""


DEPTH = 1_500


def _deep_directories(base: Path, depth: int) -> None:
    base.mkdir()
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            os.close(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
    finally:
        os.close(fd)


def test_remove_of_a_deep_tree_does_not_recurse(tmp_path: Path) -> None:
    """400 levels under a recursion limit of 150: a recursive remove fails, an iterative one not.

    (400, not 1,500: a tree left behind by a failing run must stay removable by
    pytest's own recursive clean-up.)
    """
    _deep_directories(tmp_path / "deep", 400)
    files = LocalFileOperator(tmp_path)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)
    try:
        _run(files.remove("/deep"))
    finally:
        sys.setrecursionlimit(limit)
    assert not (tmp_path / "deep").exists()


def _deep_tree(depth: int) -> dict[str, object]:
    tree: dict[str, object] = {"f": b"x"}
    for _ in range(depth):
        tree = {"d": tree, "f": b"x"}
    return tree


def test_memory_operator_handles_deep_trees_without_recursion() -> None:
    files = MemoryFileOperator({"deep": _deep_tree(DEPTH)})
    deep_path = "/deep" + "/d" * DEPTH + "/f"
    assert _run(files.read_bytes(deep_path, 10)) == b"x"
    _run(files.remove("/deep"))
    assert _run(files.list_directory("/")) == []


def _all_calls(files: FileOperator) -> list[Callable[[], Coroutine[Any, Any, object]]]:
    hostile: list[object] = [
        None,
        5,
        b"/x",
        "x",
        "/a//b",
        "/a/../b",
        "/\x00",
        "/\udc80",
        ["/x"],
        1.5,
        True,
    ]
    limits: list[object] = [-1, True, 1.5, "5", None, 2**200, -(2**70)]
    calls: list[Callable[[], Coroutine[Any, Any, object]]] = []
    for value in hostile:
        calls.append(lambda v=value: files.list_directory(v))  # type: ignore[misc]
        calls.append(lambda v=value: files.read_bytes(v, 10))  # type: ignore[misc]
        calls.append(lambda v=value: files.stat(v))  # type: ignore[misc]
        calls.append(lambda v=value: files.write_bytes(v, b"x"))  # type: ignore[misc]
        calls.append(lambda v=value: files.make_directory(v))  # type: ignore[misc]
        calls.append(lambda v=value: files.remove(v))  # type: ignore[misc]
        calls.append(lambda v=value: files.write_bytes("/w", v))  # type: ignore[misc]
        if isinstance(files, BatchReader):
            calls.append(lambda v=value: files.read_many(v, 10))  # type: ignore[misc]
    for limit in limits:
        calls.append(lambda v=limit: files.read_bytes("/f", v))  # type: ignore[misc]
        if isinstance(files, BatchReader):
            calls.append(lambda v=limit: files.read_many(["/f"], v))  # type: ignore[misc]
    calls.append(lambda: files.write_bytes("/w", 10**10))  # type: ignore[arg-type]
    return calls


@pytest.mark.parametrize("kind", ["local", "memory"])
def test_bad_arguments_raise_only_definition_errors(tmp_path: Path, kind: str) -> None:
    _write(tmp_path / "f", b"data")
    files: FileOperator = (
        LocalFileOperator(tmp_path) if kind == "local" else MemoryFileOperator({"f": b"data"})
    )
    for call in _all_calls(files):
        try:
            result = _run(call())
        except DefinitionError:
            continue
        assert not isinstance(result, BaseException)
        if isinstance(result, list):
            assert all(isinstance(r, bytes | FileOperatorError) for r in result)


@pytest.mark.parametrize("root", [5, None, b"/tmp", "/a\x00b", "", ["/"], 1.5])
def test_bad_operator_and_provider_roots_are_definition_errors(root: object) -> None:
    for build in (LocalFileOperator, LocalDirectoryProvider):
        with pytest.raises(DefinitionError):
            build(root)  # type: ignore[arg-type]


def test_environment_arguments_raise_only_definition_errors(tmp_path: Path) -> None:
    with pytest.raises(DefinitionError):
        Environment(5)  # type: ignore[arg-type]
    with pytest.raises(DefinitionError):
        Environment({"w": 5})  # type: ignore[dict-item]
    provider = LocalDirectoryProvider(tmp_path)
    with pytest.raises(DefinitionError):
        provider.retarget(None)  # type: ignore[arg-type]
    assert provider.generation == 1

    async def run() -> None:
        async with Environment({"workspace": provider}) as environment:
            for bad in (None, 5, "/workspace", object()):
                with pytest.raises(DefinitionError):
                    environment.require_current(bad)  # type: ignore[arg-type]
                assert environment.is_current(bad) is False  # type: ignore[arg-type]
                with pytest.raises(DefinitionError):
                    async with environment.open_scope(bad):  # type: ignore[arg-type]
                        pass
            for name in (None, 5, b"w"):
                with pytest.raises(DefinitionError):
                    environment.unmount(name)  # type: ignore[arg-type]
                with pytest.raises(DefinitionError):
                    environment.mount(name, provider)  # type: ignore[arg-type]
            with pytest.raises(DefinitionError):
                environment.mount("x", 5)  # type: ignore[arg-type]
            selection = environment.select_files("/workspace")
            async with environment.open_scope(selection) as scope:
                for bad in (None, 5, "/workspace", b"/workspace"):
                    with pytest.raises(DefinitionError):
                        await scope.read_many(bad, 10)  # type: ignore[arg-type]
                for bad in (None, "5", -1, True, 1.5):
                    with pytest.raises(DefinitionError):
                        await scope.read_bytes("/workspace/x", bad)  # type: ignore[arg-type]
                    with pytest.raises(DefinitionError):
                        await scope.read_many(["/workspace/x"], bad)  # type: ignore[arg-type]

    _run(run())


def test_permission_denied_is_raised_for_outside_links_even_when_missing(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    os.symlink("/nonexistent/secret", tmp_path / "ws/probe")
    with pytest.raises(FilePermissionDenied):
        _run(LocalFileOperator(tmp_path / "ws").read_bytes("/probe", 10))


_HOSTILE: list[object] = [None, 5, -1, 2**63, True, 1.5, "x", b"x", [[]], {"a": 1}, object(), int]


# An id of its own for object(): its repr holds an address, different in every process.
@pytest.mark.parametrize(
    "value", _HOSTILE, ids=lambda value: "object()" if type(value) is object else repr(value)
)
def test_engine_functions_refuse_hostile_arguments_with_definition_errors(value: object) -> None:
    """discover, read_all, read_limit, decisive_prefix, path helpers, SkillManager, PinnedFiles."""
    files = MemoryFileOperator({"a": b"x"})
    policy = SkillsPolicy()
    calls: list[Callable[[], object]] = [
        lambda: path_segments(value),  # type: ignore[arg-type]
        lambda: resolve_link_target(value, "a", ()),  # type: ignore[arg-type]
        lambda: resolve_link_target((), value, ()),  # type: ignore[arg-type]
        lambda: resolve_link_target((), "a", value),  # type: ignore[arg-type]
        lambda: read_limit(value),  # type: ignore[arg-type]
        lambda: decisive_prefix(value, 10, 10),  # type: ignore[arg-type]
        lambda: decisive_prefix(b"x", value, 10),  # type: ignore[arg-type]
        lambda: undecided(value, 10),  # type: ignore[arg-type]
        lambda: document_verdict(b"x", 10, value),  # type: ignore[arg-type]
        lambda: SkillManager(value),  # type: ignore[arg-type]
        lambda: SkillManager((SOURCE,), materializers=value),  # type: ignore[arg-type]
        lambda: SkillManager.default(value),  # type: ignore[arg-type]
        lambda: PinnedFiles(value, value, value),  # type: ignore[arg-type]
        lambda: _run(read_all(files, value, 10)),  # type: ignore[arg-type]
        lambda: _run(read_all(files, ["/a"], value)),  # type: ignore[arg-type]
        lambda: _run(read_all(files, ["/a"], 10, workers=value)),  # type: ignore[arg-type]
        lambda: _run(read_all(files, ["/a"], 10, on_result=value)),  # type: ignore[arg-type]
        lambda: _run(discover(value, policy, (), lambda _: files)),  # type: ignore[arg-type]
        lambda: _run(discover((SOURCE,), value, (), lambda _: files)),  # type: ignore[arg-type]
        lambda: _run(discover((SOURCE,), policy, value, lambda _: files)),  # type: ignore[arg-type]
        lambda: _run(discover((SOURCE,), policy, (), value)),  # type: ignore[arg-type]
        lambda: _run(discover((SOURCE,), policy, (), lambda _: value)),  # type: ignore[arg-type,return-value]
    ]
    for call in calls:
        try:
            call()
        except DefinitionError:
            continue


def test_a_failing_result_callback_is_a_definition_error_not_an_exception_group() -> None:
    def explode(index: int, outcome: object) -> None:
        raise KeyError(index)

    with pytest.raises(DefinitionError):
        _run(read_all(MemoryFileOperator({"a": b"x"}), ["/a"] * 20, 10, on_result=explode))


def test_copies_share_the_pin_and_pickling_is_refused(tmp_path: Path) -> None:
    files = LocalFileOperator(tmp_path)
    assert copy.copy(files) is files
    assert copy.deepcopy(files) is files
    with pytest.raises(DefinitionError):
        pickle.dumps(files)
    files.close()
