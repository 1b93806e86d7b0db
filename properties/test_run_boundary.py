"""The run boundary by construction (docs/contract.md §7, "The run boundary").

A run's model and tool calls go through ``prepared.model_call`` / ``prepared.tool_call`` (or
``with prepared.boundary(kind):``), its tools read through ``prepared.files``: the fence is
checked before and after each call, nothing is dispatched once the run is stale, and reads of
a selected ``SKILL.md`` are observed without the Host calling ``observe_read``. Each scenario
runs twice: as written, and with the fence removed (``check_boundary`` a no-op), where its
assertion must fail (the negative control). Selection is fresh for each root, resumed and
child run, and prepared skills are never persisted.
"""

from __future__ import annotations

import asyncio
import contextlib
import pickle
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from a13n_harness import Environment, RunBindings
from a13n_harness.capabilities import (
    FileSkillSource,
    ObservedFiles,
    PreparedSkills,
    SkillManager,
    SkillsCapability,
)
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import LocalDirectoryProvider
from a13n_harness.testing.discovery_strategies import skill_document

MANAGER = SkillManager.default(
    (FileSkillSource("shared", ("/environment/shared/skills",), required=False),)
)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path, Path]:
    """workspace (alpha, beta), shared (delta), and a second copy of the workspace."""
    workspace, shared, copy = tmp_path / "w", tmp_path / "s", tmp_path / "copy"
    for base in (workspace, copy):
        for name in ("alpha", "beta"):
            _write(base / f".agents/skills/{name}/SKILL.md", skill_document(name, f"Use {name}."))
        _write(base / ".agents/skills/alpha/checklist.md", b"- check\n")
    _write(shared / "skills/delta/SKILL.md", skill_document("delta", "Shared."))
    return workspace, shared, copy


class _Run:
    """One run's environment and prepared skills, for a scenario."""

    def __init__(self, environment: Environment, prepared: PreparedSkills) -> None:
        self.environment = environment
        self.prepared = prepared
        self.dispatched: list[str] = []


async def _start(
    trees: tuple[Path, Path, Path], selection: frozenset[str] | None = frozenset({"alpha"})
) -> tuple[_Run, LocalDirectoryProvider, LocalDirectoryProvider]:
    workspace = LocalDirectoryProvider(trees[0])
    shared = LocalDirectoryProvider(trees[1])
    environment = Environment({"workspace": workspace, "shared": shared})
    await environment.__aenter__()
    bindings = RunBindings.embedded(environment=environment, skill_selection=selection)
    prepared = await SkillsCapability(MANAGER).prepare(bindings)
    return _Run(environment, prepared), workspace, shared


def _scenario(body: Callable[..., object], trees: tuple[Path, Path, Path]) -> object:
    async def run() -> object:
        started = await _start(trees)
        try:
            return await body(*started)  # type: ignore[misc]
        finally:
            await started[0].environment.__aexit__(None, None, None)

    return asyncio.run(run())


# --- model and tool calls ------------------------------------------------------------------------


async def _stale_before_the_call(
    run: _Run, workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
) -> tuple[str | None, list[str]]:
    async def model(prompt: str) -> str:
        run.dispatched.append(prompt)
        return "answer"

    assert await run.prepared.model_call(model, "turn 1") == "answer"
    workspace.retarget(workspace.path)  # the selected skill's mount serves a new generation
    code = None
    try:
        await run.prepared.model_call(model, "turn 2")
    except DefinitionError as error:
        code = error.code
    return code, run.dispatched


def test_a_stale_run_dispatches_no_model_call(trees: tuple[Path, Path, Path]) -> None:
    assert _scenario(_stale_before_the_call, trees) == ("skill_catalog_stale", ["turn 1"])


def test_negative_control_without_the_fence_the_model_call_is_dispatched(
    trees: tuple[Path, Path, Path], no_fence: Callable[[], None]
) -> None:
    no_fence()
    assert _scenario(_stale_before_the_call, trees) == (None, ["turn 1", "turn 2"])


async def _stale_during_the_call(
    run: _Run, workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
) -> tuple[str | None, list[str]]:
    """A tool call during which the route moves: its result is never handed back."""
    delivered: list[str] = []

    def tool(argument: str) -> str:  # a plain function: tool_call accepts both kinds
        run.dispatched.append(argument)
        workspace.retarget(workspace.path)
        return f"result of {argument}"

    code = None
    try:
        delivered.append(await run.prepared.tool_call(tool, "look"))
    except DefinitionError as error:
        code = error.code
    return code, delivered


def test_a_route_change_during_a_tool_call_withholds_its_result(
    trees: tuple[Path, Path, Path],
) -> None:
    assert _scenario(_stale_during_the_call, trees) == ("skill_catalog_stale", [])


def test_negative_control_without_the_fence_the_tool_result_is_delivered(
    trees: tuple[Path, Path, Path], no_fence: Callable[[], None]
) -> None:
    no_fence()
    assert _scenario(_stale_during_the_call, trees) == (None, ["result of look"])


async def _moved_and_moved_back(
    run: _Run, _workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
) -> list[str | None]:
    """The default route moves away during a model call and back before the next one."""
    environment = run.environment
    environment.mount("elsewhere", LocalDirectoryProvider(Path(_workspace.path)))
    codes: list[str | None] = []

    async def model(prompt: str) -> str:
        run.dispatched.append(prompt)
        if prompt == "turn 1":
            environment.set_default("elsewhere")
        return prompt

    for prompt in ("turn 1", "turn 2"):
        try:
            await run.prepared.model_call(model, prompt)
            codes.append(None)
        except DefinitionError as error:
            codes.append(error.code)
        environment.set_default("workspace")  # back where the catalog was bound
    assert run.dispatched == ["turn 1"]
    return codes


def test_a_stale_run_stays_stale_when_the_route_moves_back(
    trees: tuple[Path, Path, Path],
) -> None:
    assert _scenario(_moved_and_moved_back, trees) == [
        "skill_catalog_stale",
        "skill_catalog_stale",
    ]


async def _boundary_block(
    run: _Run, workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
) -> tuple[list[str], list[str | None]]:
    """``with prepared.boundary("tool"):`` for code that is not passed as a callable."""
    codes: list[str | None] = []
    for step in ("one", "two"):
        try:
            with run.prepared.boundary("tool"):
                run.dispatched.append(step)
            codes.append(None)
        except DefinitionError as error:
            codes.append(error.code)
        workspace.retarget(workspace.path)
    return run.dispatched, codes


def test_the_boundary_block_never_runs_once_stale(trees: tuple[Path, Path, Path]) -> None:
    assert _scenario(_boundary_block, trees) == (["one"], [None, "skill_catalog_stale"])


def test_negative_control_without_the_fence_the_block_runs(
    trees: tuple[Path, Path, Path], no_fence: Callable[[], None]
) -> None:
    no_fence()
    assert _scenario(_boundary_block, trees) == (["one", "two"], [None, None])


def test_an_unrelated_mount_change_does_not_stop_the_run(trees: tuple[Path, Path, Path]) -> None:
    async def body(
        run: _Run, _workspace: LocalDirectoryProvider, shared: LocalDirectoryProvider
    ) -> list[str]:
        shared.retarget(shared.path)  # delta is not selected
        run.environment.mount("new", LocalDirectoryProvider(trees[2]))
        await run.prepared.model_call(run.dispatched.append, "turn")
        assert not run.prepared.stale
        return run.dispatched

    assert _scenario(body, trees) == ["turn"]


# --- reads through the Environment's files -------------------------------------------------------


async def _tool_reads(
    run: _Run, workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
) -> tuple[tuple[str, ...], str | None]:
    files = run.prepared.files
    skills = "/workspace/.agents/skills"
    assert (await files.read_bytes(f"{skills}/alpha/SKILL.md", 1 << 16)).startswith(b"---")
    await files.read_bytes(f"{skills}/alpha/checklist.md", 1 << 16)  # not the SKILL.md
    await files.read_bytes(f"{skills}/beta/SKILL.md", 1 << 16)  # not selected
    assert sorted(e.name for e in await files.list_directory(skills)) == ["alpha", "beta"]
    workspace.retarget(workspace.path)
    code = None
    try:
        await files.read_bytes(f"{skills}/alpha/SKILL.md", 1 << 16)
    except DefinitionError as error:
        code = error.code
    return run.prepared.observed_reads, code


def test_tool_reads_through_the_files_are_observed_and_fenced(
    trees: tuple[Path, Path, Path],
) -> None:
    assert _scenario(_tool_reads, trees) == (("alpha",), "skill_catalog_stale")


def test_negative_control_without_the_fence_a_stale_read_goes_through(
    trees: tuple[Path, Path, Path], no_fence: Callable[[], None]
) -> None:
    no_fence()
    assert _scenario(_tool_reads, trees) == (("alpha", "alpha"), None)


# --- selection fresh for each root, resumed and child run; never persisted -----------------------


def test_a_child_run_prepares_its_own_selection(trees: tuple[Path, Path, Path]) -> None:
    """Parent {alpha}, child {beta, delta} in one entered environment: separate instructions,
    paths, observations and fences; the child's route change stops the child only."""

    async def run() -> None:
        workspace = LocalDirectoryProvider(trees[0])
        shared = LocalDirectoryProvider(trees[1])
        async with Environment({"workspace": workspace, "shared": shared}) as environment:
            parent_bindings = RunBindings.embedded(
                environment=environment, skill_selection=frozenset({"alpha"})
            )
            capability = SkillsCapability(MANAGER)
            parent = await capability.prepare(parent_bindings)
            child_bindings = RunBindings.embedded(
                environment=environment, skill_selection=frozenset({"beta", "delta"})
            )
            child = await capability.prepare(child_bindings)
            assert [p.name for p in parent.skill_paths] == ["alpha"]
            assert [p.name for p in child.skill_paths] == ["beta", "delta"]
            assert "alpha" in parent.instructions
            assert "beta" not in parent.instructions
            assert "alpha" not in child.instructions
            assert "delta" in child.instructions
            await child.files.read_bytes("/environment/shared/skills/delta/SKILL.md", 4096)
            assert child.observed_reads == ("delta",)
            assert parent.observed_reads == ()
            data = await parent.files.read_bytes("/environment/shared/skills/delta/SKILL.md", 4096)
            assert data.startswith(b"---")
            assert parent.observed_reads == ()  # delta is not the parent's
            shared.retarget(shared.path)  # the child's delta moved
            with pytest.raises(DefinitionError) as caught:
                await child.model_call(lambda: "child turn")
            assert caught.value.code == "skill_catalog_stale"
            assert await parent.model_call(lambda: "parent turn") == "parent turn"
            # A resumed child prepares again: a fresh scan of the routes as they are now.
            resumed = await capability.prepare(child_bindings)
            assert await resumed.model_call(lambda: "resumed turn") == "resumed turn"
            assert resumed.observed_reads == ()

    asyncio.run(run())


def test_prepared_skills_are_never_persisted(trees: tuple[Path, Path, Path]) -> None:
    async def body(
        run: _Run, _workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
    ) -> str:
        with pytest.raises(DefinitionError) as caught:
            pickle.dumps(run.prepared)
        assert caught.value.reason == "prepared"
        return caught.value.code

    assert _scenario(body, trees) == "catalog_invalid"


def _kinds() -> Iterator[str]:
    yield from ("model", "tool", "files")


def test_fence_arguments_are_checked(trees: tuple[Path, Path, Path]) -> None:
    async def body(
        run: _Run, _workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
    ) -> list[str | None]:
        codes: list[str | None] = []
        for kind in (*_kinds(), "turn", 3):
            try:
                with run.prepared.boundary(kind):  # type: ignore[arg-type]
                    pass
                codes.append(None)
            except DefinitionError as error:
                codes.append(error.code)
        with pytest.raises(DefinitionError):
            await run.prepared.tool_call("not callable")  # type: ignore[call-overload]
        return codes

    assert _scenario(body, trees) == [None, None, None, "catalog_invalid", "catalog_invalid"]


# --- a call that raises, and every file call after a retarget ------------------------------------


def _raising_call_overlapping_a_move(trees: tuple[Path, Path, Path], kind: str) -> list[str | None]:
    """A model or tool call moves the default route away and raises; the route moves back
    before the next call. The failed call's own exception is kept, and the move it
    overlapped still makes the run stale: the next call is never dispatched."""

    async def body(
        run: _Run, workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
    ) -> list[str | None]:
        environment = run.environment
        environment.mount("elsewhere", LocalDirectoryProvider(Path(workspace.path)))
        outcomes: list[str | None] = []

        async def call(prompt: str) -> str:
            run.dispatched.append(prompt)
            if prompt == "turn 1":
                environment.set_default("elsewhere")
                raise TimeoutError("the provider timed out")
            return prompt

        fenced = run.prepared.model_call if kind == "model" else run.prepared.tool_call
        for prompt in ("turn 1", "turn 2"):
            try:
                await fenced(call, prompt)
                outcomes.append(None)
            except TimeoutError:
                outcomes.append("TimeoutError")
            except DefinitionError as error:
                outcomes.append(error.code)
            environment.set_default("workspace")  # back where the catalog was bound
        return outcomes

    result = _scenario(body, trees)
    assert isinstance(result, list)
    return result


@pytest.mark.parametrize("kind", ["model", "tool"])
def test_a_call_that_raises_still_records_the_route_change_it_overlapped(
    trees: tuple[Path, Path, Path], kind: str
) -> None:
    assert _raising_call_overlapping_a_move(trees, kind) == ["TimeoutError", "skill_catalog_stale"]


@pytest.mark.parametrize("kind", ["model", "tool"])
def test_negative_control_without_the_latch_on_failure_the_next_call_is_made(
    trees: tuple[Path, Path, Path], kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    @contextlib.contextmanager
    def boundary(self: PreparedSkills, kind: str = "model") -> Iterator[None]:
        self.check_boundary()
        yield  # a raising block skips the check after it: nothing latches the move
        self.check_boundary()

    monkeypatch.setattr(PreparedSkills, "boundary", boundary)
    assert _raising_call_overlapping_a_move(trees, kind) == ["TimeoutError", None]


FILE_CALLS: dict[str, Callable[[ObservedFiles, str], Awaitable[object]]] = {
    "list_directory": lambda files, path: files.list_directory(path),
    "read_bytes": lambda files, path: files.read_bytes(f"{path}/SKILL.md", 4096),
    "stat": lambda files, path: files.stat(f"{path}/SKILL.md"),
    "write_bytes": lambda files, path: files.write_bytes(f"{path}/new.md", b"x"),
    "make_directory": lambda files, path: files.make_directory(f"{path}/new"),
    "remove": lambda files, path: files.remove(f"{path}/checklist.md"),
}


def _file_call_after_a_retarget(
    trees: tuple[Path, Path, Path], method: str
) -> tuple[str | None, list[str]]:
    async def body(
        run: _Run, workspace: LocalDirectoryProvider, _shared: LocalDirectoryProvider
    ) -> tuple[str | None, list[str]]:
        files = run.prepared.files
        workspace.retarget(workspace.path)
        code = None
        try:
            await FILE_CALLS[method](files, "/workspace/.agents/skills/alpha")
        except DefinitionError as error:
            code = error.code
        return code, sorted(p.name for p in (trees[0] / ".agents/skills/alpha").iterdir())

    result = _scenario(body, trees)
    assert isinstance(result, tuple)
    return result


UNTOUCHED = ["SKILL.md", "checklist.md"]


@pytest.mark.parametrize("method", sorted(FILE_CALLS))
def test_every_file_call_is_checked_after_a_retarget(
    trees: tuple[Path, Path, Path], method: str
) -> None:
    assert _file_call_after_a_retarget(trees, method) == ("skill_catalog_stale", UNTOUCHED)


@pytest.mark.parametrize("method", sorted(FILE_CALLS))
def test_negative_control_without_the_fence_every_file_call_goes_through(
    trees: tuple[Path, Path, Path], method: str, no_fence: Callable[[], None]
) -> None:
    no_fence()
    code, names = _file_call_after_a_retarget(trees, method)
    assert code is None
    changed = {"write_bytes": ["new.md"], "make_directory": ["new"], "remove": []}
    expected = sorted(
        [name for name in UNTOUCHED if not (method == "remove" and name == "checklist.md")]
        + changed.get(method, [])
    )
    assert names == expected
