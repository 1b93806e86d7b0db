"""The command line's scan without an event loop finds exactly what the library's async scan finds.

``a13n-skills catalog`` and ``manifest`` scan through a
:class:`~a13n_harness.environment.local.BlockingLocalFileOperator` driven by
:func:`~a13n_harness.environment.local.run_blocking` (no ``asyncio`` at
start-up). The discovery engine is the library's one; the
property below holds the two drivers to the same answer (items, diagnostics in
order, or the same error with the same code, message and location) on
workspaces drawn with valid, mismatched, truncated, invalid and hostile
``SKILL.md`` files (the frontmatter corpus), hidden entries, plain files, FIFOs,
links inside and links escaping the workspace, roots that are missing, files or
FIFOs, default and explicit roots, ``--invalid skip`` and ``error``. Its
negative control is a blocking scan that reads through host paths instead of
the confinement walk (the "second, simpler copy" the design rules out).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a13n_harness import cli as cli_module
from a13n_harness.capabilities import SkillManager, SkillScan, SkillsPolicy
from a13n_harness.cli import _lint as lint_module
from a13n_harness.cli import _workspace as workspace_module
from a13n_harness.cli import build_parser
from a13n_harness.cli._output import Progress
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import (
    FileNotFound,
    FileOperator,
    FileOperatorError,
    FileUnsupported,
    LocalFileOperator,
    MemoryFileOperator,
    MemoryNode,
    MemorySpecial,
    MemorySymlink,
)
from a13n_harness.environment.local import BlockingLocalFileOperator, run_blocking
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.discovery_strategies import (
    ShuffledCompletionOperator,
    skill_document,
    skill_trees,
)
from bounded import run_bounded
from cli_run import REPO, cli_environment, run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and FIFOs")

CORPUS = REPO / "corpus" / "fuzz_frontmatter"
# 64 KiB: past every read bound discovery uses first (32 KiB + 4 KiB), small
# enough that a drawn workspace is written in milliseconds.
_HOSTILE = tuple(sorted(path.name for path in CORPUS.glob("*.md") if path.stat().st_size <= 65_536))


class Corpus:
    """A ``SKILL.md`` taken from the frontmatter corpus, shown by name (not by its bytes)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Corpus({self.name!r})"


OUTSIDE_NAME = "outside"
"""A package folder beside the workspace, reachable only through an escaping link."""


class Escape:
    """A link leaving the workspace (relative ``../..`` or absolute), written on disk only."""

    def __init__(self, absolute: bool) -> None:
        self.absolute = absolute

    def __repr__(self) -> str:
        return f"Escape(absolute={self.absolute})"


Node = object
"""A drawn tree node: a ``MemoryNode`` (directories as dicts, whose values are nodes) or an
:class:`Escape`; typed loosely because dict values are invariant."""


@st.composite
def _root(draw: st.DrawFn) -> Node | None:
    kind = draw(
        st.sampled_from(
            ("tree", "tree", "tree", "tree", "tree", "missing", "file", "fifo", "escape")
        )
    )
    if kind == "missing":
        return None
    if kind == "file":
        return b"not a directory\n"
    if kind == "fifo":
        return MemorySpecial()
    if kind == "escape":
        return Escape(draw(st.booleans()))
    tree: dict[str, Node] = dict(draw(skill_trees(max_entries=8)))
    for name in draw(st.lists(st.sampled_from(("h1", "h2", "h3", "h4")), unique=True)):
        tree[name] = {"SKILL.md": Corpus(draw(st.sampled_from(_HOSTILE)))}
    # One tree in five escapes: an escape fails the whole scan, and most trees should not.
    escape = draw(st.sampled_from(("", "", "", "", "folder", "document")))
    if escape == "folder":
        tree["away"] = Escape(draw(st.booleans()))
    elif escape == "document":
        tree["away-doc"] = {"SKILL.md": Escape(draw(st.booleans()))}
    return tree


@st.composite
def workspaces(draw: st.DrawFn) -> tuple[dict[str, Node], tuple[str, ...], str]:
    """``({relative root: node}, explicit roots, invalid)``."""
    roots = {
        ".agents/skills": draw(_root()),
        ".claude/skills": draw(_root()),
    }
    layout = {name: node for name, node in roots.items() if node is not None}
    explicit = draw(
        st.sampled_from(
            (
                (),
                (),
                ("/.agents/skills",),
                ("/.claude/skills", "/.agents/skills"),
                ("/.agents/skills", "/missing"),
            )
        )
    )
    invalid = draw(st.sampled_from(("skip", "skip", "error")))
    return layout, explicit, invalid


def _write(path: Path, node: Node, outside: Path) -> None:
    if isinstance(node, dict):
        path.mkdir()
        for name, child in node.items():
            _write(path / name, child, outside)
    elif isinstance(node, bytes):
        path.write_bytes(node)
    elif isinstance(node, Corpus):
        path.write_bytes((CORPUS / node.name).read_bytes())
    elif isinstance(node, MemorySpecial):
        os.mkfifo(path)
    elif isinstance(node, MemorySymlink):
        os.symlink(node.target, path)
    elif isinstance(node, Escape):
        target = outside / "SKILL.md" if path.name == "SKILL.md" else outside
        os.symlink(target if node.absolute else os.path.relpath(target, path.parent), path)
    else:  # pragma: no cover - the strategy draws nothing else
        raise AssertionError(node)


@contextmanager
def on_disk(layout: dict[str, Node]) -> Iterator[Path]:
    """The workspace on disk, with a valid package beside it that only an escape reaches."""
    base = Path(tempfile.mkdtemp(prefix="cli-scan-"))
    try:
        outside = base / OUTSIDE_NAME
        outside.mkdir()
        (outside / "SKILL.md").write_bytes(skill_document("away", "outside the workspace"))
        workspace = base / "ws"
        workspace.mkdir()
        for relative, node in layout.items():
            (workspace / relative).parent.mkdir(parents=True, exist_ok=True)
            _write(workspace / relative, node, outside)
        yield workspace
    finally:
        shutil.rmtree(base)


Answer = SkillScan | tuple[str, str, str, str | None, int | None, int | None, str | None]


def _error(error: DefinitionError) -> Answer:
    return (
        type(error).__name__,
        error.code,
        str(error),
        error.path,
        error.line,
        error.column,
        error.reason,
    )


def cli_scan(workspace: Path, roots: Sequence[str], invalid: Literal["error", "skip"]) -> Answer:
    """What ``a13n-skills catalog`` scans: the blocking driver of ``cli._workspace``."""
    try:
        found = workspace_module.scan_workspace(str(workspace), roots, invalid, Progress())
    except DefinitionError as error:
        return _error(error)
    return found.scan


def library_scan(
    workspace: Path, roots: Sequence[str], invalid: Literal["error", "skip"]
) -> Answer:
    """The library's asynchronous scan through ``LocalFileOperator`` under ``asyncio.run``."""
    given = workspace_module.translate_roots(str(workspace), roots)
    manager = SkillManager(
        [workspace_module.source_for(tuple(given))], policy=SkillsPolicy.checkout(invalid=invalid)
    )
    try:
        with LocalFileOperator(workspace) as files:
            return asyncio.run(manager.inspect(files=files))
    except DefinitionError as error:
        return _error(workspace_module._as_given(error, given))


def check_same_scan(case: tuple[dict[str, Node], tuple[str, ...], str]) -> None:
    layout, roots, invalid = case
    assert invalid in ("skip", "error")
    policy: Literal["error", "skip"] = "skip" if invalid == "skip" else "error"
    with on_disk(layout) as workspace:
        assert cli_scan(workspace, roots, policy) == library_scan(workspace, roots, policy)


# Each example writes a small tree and scans it twice: a few milliseconds, but
# Hypothesis's too_slow check counts the writing; the ci profile draws 120.
_SCAN_SETTINGS = settings(suppress_health_check=(HealthCheck.too_slow,))


@_SCAN_SETTINGS
@given(workspaces())
def test_the_cli_scan_and_the_library_scan_agree_on_every_workspace(
    case: tuple[dict[str, Node], tuple[str, ...], str],
) -> None:
    """Same items and diagnostics in the same order, or the same error, whatever the tree."""
    check_same_scan(case)


_CHOSEN: list[tuple[dict[str, Node], tuple[str, ...], str]] = [
    # The root itself a package beside child packages, one hidden, one a FIFO.
    (
        {
            ".agents/skills": {
                "SKILL.md": skill_document("root-package", "the root"),
                "a": {"SKILL.md": skill_document("a", "first")},
                ".b": {"SKILL.md": skill_document("b", "hidden")},
                "c": {"SKILL.md": MemorySpecial()},
                "d": MemorySpecial(),
            }
        },
        (),
        "skip",
    ),
    # An escaping link to a package directory and to a document: permission denied.
    ({".agents/skills": {"away": Escape(False)}}, (), "skip"),
    ({".agents/skills": {"away": {"SKILL.md": Escape(True)}}}, (), "skip"),
    # The default roots as a FIFO and a file; an explicit root that is missing.
    ({".agents/skills": MemorySpecial(), ".claude/skills": b"x"}, (), "skip"),
    ({".agents/skills": {}}, ("/.agents/skills", "/missing"), "error"),
    # Bad frontmatter under --invalid error, and precedence across the two roots.
    ({".agents/skills": {"x": {"SKILL.md": b"---\nname: [\n---\n"}}}, (), "error"),
    (
        {
            ".agents/skills": {"x": {"SKILL.md": skill_document("x", "first")}},
            ".claude/skills": {"x": {"SKILL.md": skill_document("x", "second")}},
        },
        (),
        "skip",
    ),
]


@pytest.mark.parametrize("case", _CHOSEN)
def test_the_cli_scan_and_the_library_scan_agree_on_chosen_workspaces(
    case: tuple[dict[str, Node], tuple[str, ...], str],
) -> None:
    check_same_scan(case)


class _HostPathOperator(BlockingLocalFileOperator):
    """Broken: a blocking scan that reads ``root + path`` with plain ``open`` (links followed),
    the simple synchronous copy of discovery the design rules out."""

    __slots__ = ()

    async def read_bytes(self, path: str, limit: int) -> bytes:
        host = self.root + path
        if not os.path.exists(host):
            raise FileNotFound("no such file or directory", path=path)
        if not os.path.isfile(host):
            raise FileUnsupported("not a regular file", path=path)
        with open(host, "rb") as handle:
            return handle.read(limit)

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        results: list[bytes | FileOperatorError] = []
        for path in paths:
            try:
                results.append(await self.read_bytes(path, limit))
            except FileOperatorError as error:
                results.append(error)
        return results


def test_negative_control_a_blocking_scan_through_host_paths_fails_the_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(workspace_module, "BlockingLocalFileOperator", _HostPathOperator)
    property_fails(control_settings(given(workspaces())(check_same_scan)))


def _lint_answer(workspace: Path, roots: Sequence[str]) -> object:
    try:
        result = lint_module.lint([str(workspace)], roots, Progress())
    except DefinitionError as error:
        return _error(error)
    except OSError as error:
        return ("OSError", str(error))
    return result.findings, result.skills, lint_module.format_findings(result, "text", "0")


def check_same_lint(case: tuple[dict[str, Node], tuple[str, ...], str]) -> None:
    """``a13n-skills lint`` through the blocking driver and through ``asyncio.run`` with the
    asynchronous operator: the same findings, counts and text."""
    layout, roots, _ = case
    with on_disk(layout) as workspace:
        blocking = _lint_answer(workspace, roots)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(lint_module, "BlockingLocalFileOperator", LocalFileOperator)
            patch.setattr(lint_module, "run_blocking", asyncio.run)
            asynchronous = _lint_answer(workspace, roots)
        assert blocking == asynchronous


@_SCAN_SETTINGS
@given(workspaces())
def test_lint_through_the_blocking_driver_and_through_asyncio_agree(
    case: tuple[dict[str, Node], tuple[str, ...], str],
) -> None:
    check_same_lint(case)


def test_negative_control_lint_through_host_paths_fails_the_lint_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lint_module, "BlockingLocalFileOperator", _HostPathOperator)
    property_fails(control_settings(given(workspaces())(check_same_lint)))


# ------------------------------------------------------------------ the driver


def _memory_workspace(*names: str) -> MemoryFileOperator:
    packages: dict[str, MemoryNode] = {
        name: {"SKILL.md": skill_document(name, "a skill")} for name in names
    }
    return MemoryFileOperator({".agents": {"skills": packages}})


@pytest.mark.parametrize("operator", ["suspends", "task_group", "thread_pool"])
def test_run_blocking_refuses_a_scan_that_needs_an_event_loop(
    tmp_path: Path, operator: str
) -> None:
    """A scan that suspends (an operator awaiting the loop), starts a task group (three reads
    without a batch reader) or hands work to a thread (the asynchronous LocalFileOperator)
    is refused with a DefinitionError, never waited on, never half returned."""
    (tmp_path / ".agents" / "skills").mkdir(parents=True)
    files: FileOperator
    if operator == "suspends":  # one package: one read, in the caller's task, that suspends
        files = ShuffledCompletionOperator(_memory_workspace("a"), [1])
    elif operator == "task_group":
        files = _memory_workspace("a", "b", "c")
    else:
        files = LocalFileOperator(tmp_path)
    manager = SkillManager([workspace_module.source_for(())])
    with pytest.raises(DefinitionError) as caught:
        run_blocking(manager.inspect(files=files))
    assert caught.value.code == "skill_provider_failed"


def test_the_blocking_operator_never_suspends(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"abc")
    with BlockingLocalFileOperator(tmp_path) as files:
        assert files.read_concurrency == 1
        assert run_blocking(files.read_bytes("/a", 2)) == b"ab"
        assert [e.name for e in run_blocking(files.list_directory("/"))] == ["a"]
        assert run_blocking(files.read_many(["/a", "/b"], 9))[0] == b"abc"
        assert repr(files).startswith("BlockingLocalFileOperator(")


def _refusal(call: Callable[[], object]) -> tuple[str, str, str | None]:
    try:
        call()
    except DefinitionError as error:
        return type(error).__name__, str(error), error.path
    raise AssertionError("no refusal")


@pytest.mark.parametrize("root", ["missing", "file", "closed"])
def test_the_blocking_operator_refuses_what_the_async_one_refuses(
    tmp_path: Path, root: str
) -> None:
    """A root that could not be opened (missing, a file) and a closed operator: every call is
    refused with the same error as through ``LocalFileOperator``."""
    (tmp_path / "file").write_bytes(b"x")
    host = tmp_path / ("file" if root == "file" else "missing" if root == "missing" else "")
    blocking, asynchronous = BlockingLocalFileOperator(host), LocalFileOperator(host)
    if root == "closed":
        blocking.close()
        asynchronous.close()
    assert _refusal(lambda: run_blocking(blocking.list_directory("/"))) == _refusal(
        lambda: asyncio.run(asynchronous.list_directory("/"))
    )
    assert _refusal(lambda: run_blocking(blocking.read_bytes("/x", 9))) == _refusal(
        lambda: asyncio.run(asynchronous.read_bytes("/x", 9))
    )


# ------------------------------------------------------- end to end, as a user runs it


@pytest.mark.parametrize(
    "shape",
    ["fifo_document", "fifo_child", "fifo_root", "link_to_fifo_document", "fifo_root_document"],
)
def test_catalog_never_blocks_on_a_fifo(tmp_path: Path, shape: str) -> None:
    """A FIFO where discovery looks is skipped (or the root refused) at once, never opened."""
    workspace = tmp_path / "ws"
    skills = workspace / ".agents" / "skills"
    skills.mkdir(parents=True)
    (skills / "ok").mkdir()
    (skills / "ok" / "SKILL.md").write_bytes(skill_document("ok", "fine"))
    if shape == "fifo_document":
        (skills / "piped").mkdir()
        os.mkfifo(skills / "piped" / "SKILL.md")
    elif shape == "fifo_child":
        os.mkfifo(skills / "piped")
    elif shape == "fifo_root":
        os.mkfifo(workspace / ".claude")
    elif shape == "link_to_fifo_document":
        os.mkfifo(tmp_path / "ws" / "pipe")
        (skills / "linked").mkdir()
        (skills / "linked" / "SKILL.md").symlink_to("../../../pipe")
    else:
        os.mkfifo(skills / "SKILL.md")
    result = run_cli("catalog", workspace, cpu_seconds=30)
    assert result.returncode == 0, result.stderr
    assert b"- ok: fine" in result.stdout


# What neither scanning command needs: the reads take the confinement walk alone, so no
# ctypes for the openat2 fast path; locks come from _thread, not the threading module.
_NO_SCAN_NEEDS = ("ctypes", "threading")
_NOT_AT_START_UP = {
    # The scan runs without an event loop, its thread pool, the Environment module; the
    # block needs no json.
    "catalog": (
        "asyncio",
        "concurrent.futures",
        "json",
        "a13n_harness.environment.environment",
        *_NO_SCAN_NEEDS,
    ),
    # pre-commit starts lint at every commit: the same scan and reads, no event loop. (It
    # finds the checkout with environment.facts, whose subprocess brings threading.)
    "lint": (
        "asyncio",
        "concurrent.futures",
        "a13n_harness.environment.environment",
        "ctypes",
    ),
}


def _main_probe(report: str) -> str:
    """A script that runs ``main(sys.argv[1:])`` with its standard output silenced, then
    writes the value of the expression ``report`` (a str) to the real standard output."""
    return (
        "import sys, os\n"
        "from a13n_harness.cli import main\n"
        "keep = os.dup(1)\n"
        "os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
        "code = main(sys.argv[1:])\n"
        f"os.write(keep, ({report}).encode())\n"
        "raise SystemExit(code)\n"
    )


def _probe(*arguments: str) -> subprocess.CompletedProcess[bytes]:
    """Run ``python ARGUMENTS`` with the CLI tests' environment; it must exit 0."""
    result = run_bounded(
        [sys.executable, *arguments],
        env=cli_environment(),
        capture_output=True,
        cpu_seconds=60,
    )
    assert result.returncode == 0, result.stderr
    return result


@pytest.mark.parametrize("command", sorted(_NOT_AT_START_UP))
def test_commands_import_no_event_loop_at_start_up(tmp_path: Path, command: str) -> None:
    """The start-up bound: what a command does not need, it does not import."""
    skills = tmp_path / ".agents" / "skills"
    for name in ("one", "two"):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_bytes(skill_document(name, "a skill"))
    names = sorted(_NOT_AT_START_UP[command])
    probe = _main_probe(f"' '.join(n for n in {names!r} if n in sys.modules)")
    result = _probe("-c", probe, command, str(tmp_path))
    assert result.stdout.decode() == ""


def test_the_encoder_compiles_no_pattern_and_builds_no_table_at_import() -> None:
    """Every catalog entry goes through the encoder; plain ASCII text needs none of its
    patterns, so importing it compiles none (the astral class cost milliseconds) and
    builds no table over the escaped code points."""
    probe = (
        "import re, sys\n"
        "import a13n_harness.context.errors\n"
        "before = len(re._cache)\n"
        "import a13n_harness.context.encoder as encoder\n"
        "tables = [n for n, v in vars(encoder).items()\n"
        "          if n[:2] != '__' and isinstance(v, dict) and len(v) > 16]\n"
        "print(len(re._cache) - before, tables)\n"
        "assert encoder.encode_value('plain text') == 'plain text'\n"
        "print(len(re._cache) - before)\n"
    )
    result = _probe("-c", probe)
    assert result.stdout.decode().split("\n") == ["0 []", "0", ""]


def test_importtime_charges_every_module_catalog_imports_to_itself() -> None:
    """``python -X importtime`` sees only imports made by the import statement; the
    packages' names loaded on first use must go through it, or their modules' cost shows
    as the self time of whoever asked (``cli._workspace`` showed 9 ms that were
    ``capabilities.sources``, ``items`` and ``manager``)."""
    probe = _main_probe("' '.join(sorted(n for n in sys.modules if n.startswith('a13n_harness')))")
    result = _probe("-X", "importtime", "-c", probe, "catalog", str(REPO / "corpus"))
    imported = set(result.stdout.decode().split())
    timed = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "a13n_harness.capabilities.sources" in imported
    assert sorted(imported - timed) == []


# ---------------------------------------------------- start-up: the plain command line


_TOKENS = st.one_of(
    st.sampled_from(
        ("catalog", "lint", "-", "--", "--json", "--root", "/x", "--invalid", "skip", "-1", "-h")
    ),
    st.text(max_size=6),
)
_ARGVS = st.one_of(
    st.lists(_TOKENS, max_size=4),
    st.tuples(st.just("catalog"), _TOKENS).map(list),
    st.just(["catalog"]),
)


def check_plain_catalog(
    plain: Callable[[Sequence[str]], argparse.Namespace | None], argv: list[str]
) -> None:
    """Where the plain path answers, argparse gives the same attributes; ``catalog`` and
    ``catalog WORKSPACE`` (WORKSPACE not an option) are always answered."""
    taken = plain(argv)
    if argv == ["catalog"] or (
        len(argv) == 2 and argv[0] == "catalog" and not argv[1].startswith("-")
    ):
        assert taken is not None
    if taken is not None:
        try:
            parsed = build_parser().parse_args(argv)
        except SystemExit:
            raise AssertionError(f"argparse refuses {argv!r}; the plain path took it") from None
        assert vars(taken) == vars(parsed)


@given(_ARGVS)
def test_the_plain_catalog_command_line_parses_as_argparse_does(argv: list[str]) -> None:
    check_plain_catalog(cli_module._plain_catalog, argv)


def _dash_workspace_taken(arguments: Sequence[str]) -> argparse.Namespace | None:
    """Broken: a second argument that is an option (``catalog --json``) taken as the folder."""
    if len(arguments) == 2 and arguments[0] == "catalog":
        defaults = vars(build_parser().parse_args(["catalog"]))
        return argparse.Namespace(**{**defaults, "workspace": arguments[1]})
    return cli_module._plain_catalog(arguments)


def test_negative_control_a_plain_path_taking_an_option_for_a_folder_fails_the_property() -> None:
    def broken(argv: list[str]) -> None:
        check_plain_catalog(_dash_workspace_taken, argv)

    property_fails(control_settings(given(_ARGVS)(broken)))


def test_the_plain_catalog_command_line_builds_no_parser() -> None:
    probe = _main_probe("str({'shutil', 'argparse'} & set(sys.modules))")
    result = _probe("-c", probe, "catalog", str(REPO / "corpus"))
    assert result.stdout == b"set()"
