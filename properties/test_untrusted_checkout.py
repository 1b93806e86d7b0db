"""The checkout is untrusted (docs/contract.md §6).

Every way a checkout, its ``.git`` directory or the caller's environment can
make ``git status`` run a program is built for real here, against the git on
PATH, with a program that leaves a canary file behind. The canary must never
appear, whether the facts are collected through the API
(``collect_environment_facts``) or through ``a13n-skills env`` and
``a13n-skills manifest``. ``test_vector_is_live_under_plain_git`` shows that
each vector marked live really runs the program under a plain ``git status``
(the way the collector ran git before the fix), so a green test here means the
collector closed it, not that the vector was a dud.

Facts stay right where git can still be asked safely: on a normal repository
the collector agrees with git's own ``status`` (branch, upstream, ahead and
behind, every count), and a redirecting variable changes nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import cli_run
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.facts import GitStatus, parse_git_status
from a13n_harness.context.manifest import decode_manifest
from a13n_harness.environment.facts import (
    GIT_MEMORY_LIMIT_BYTES,
    collect_environment_facts,
    collect_git_status,
)
from bounded import run_bounded, wait_bounded
from cli_run import run_here
from harness.scratch import bounded

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git on PATH"),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell scripts stand in for hooks"),
]

REPO = Path(__file__).resolve().parent.parent
CORE = cli_run.CORE  # the package under test: the tree's core/ or the installed wheel
_IDENTITY = ("-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main")
# The git versions the liveness of each vector was checked on (it is a fact about git).
_LIVENESS_CHECKED_ON = ((2, 39),)
# The library's git timeout (wall time, by its contract) these tests give the collector: a
# fixed collector runs nothing that hangs, and its few git runs take a fraction of a CPU
# second, so twenty seconds is far more than a busy machine needs. Only a collector that
# lets a vector fire (a filter waiting on its input hangs git) waits it out.
_TIMEOUT = 20.0


def _isolated_environment(home: Path) -> dict[str, str]:
    """The environment the test's own git commands run in: nothing of the machine's."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return {
        **keep,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }


@dataclass
class Box:
    """A temporary world: the checkout, a canary, an evil program, a clean environment."""

    root: Path
    repo: Path
    canary: Path
    evil: Path
    environment: dict[str, str]

    def git(self, cwd: Path, *args: str, check: bool = True) -> bytes:
        result = run_bounded(
            ["git", *_IDENTITY, *args],
            cwd=cwd,
            env=self.environment,
            capture_output=True,
            cpu_seconds=60,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"git {args} failed: {result.stderr!r}")
        return result.stdout

    def config(self, *pairs: tuple[str, str], repo: Path | None = None) -> None:
        for key, value in pairs:
            self.git(repo or self.repo, "config", "--add", key, value)

    def stat_dirty(self, name: str = "a.txt", repo: Path | None = None) -> None:
        """Same content, new mtime: git must re-read the file (and filter it) to compare."""
        path = (repo or self.repo) / name
        os.utime(path, (946_684_800, 946_684_800))

    def script(self, name: str, body: str) -> Path:
        path = self.root / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
        return path


def _new_box(tmp_path: Path) -> Box:
    root = tmp_path
    home = root / "home"
    home.mkdir(parents=True)
    canary = root / "CANARY"
    evil = root / "evil.sh"
    # Leave a mark, then behave like a filter (copy stdin) so git carries on.
    evil.write_text(f'#!/bin/sh\necho "$0 $*" >> "{canary}"\nexec cat\n')
    evil.chmod(0o755)
    box = Box(root, root / "repo", canary, evil, _isolated_environment(home))
    box.repo.mkdir()
    box.git(box.repo, "init", "-q")
    (box.repo / "a.txt").write_text("".join(f"line {i}\n" for i in range(100)))
    (box.repo / "b.txt").write_text("b\n")
    box.git(box.repo, "add", ".")
    box.git(box.repo, "commit", "-q", "-m", "initial")
    return box


# ------------------------------------------------------------------ vectors
# A vector prepares the box and returns environment changes (None deletes).

Setup = Callable[[Box], dict[str, str | None]]


@dataclass(frozen=True)
class Vector:
    name: str
    setup: Setup
    live: bool  # runs the program under a plain ``git status`` on the checked git
    keeps_status: bool = True  # the collector can still report the status


VECTORS: list[Vector] = []


def vector(*, live: bool, keeps_status: bool = True) -> Callable[[Setup], Setup]:
    """Register a setup as the vector named after it (its name without the leading ``_``)."""

    def register(setup: Setup) -> Setup:
        VECTORS.append(Vector(setup.__name__.lstrip("_"), setup, live, keeps_status))
        return setup

    return register


@vector(live=True)
def _fsmonitor(box: Box) -> dict[str, str | None]:
    box.config(("core.fsmonitor", str(box.evil)))
    return {}


def _filter(kind: str) -> Setup:
    def setup(box: Box) -> dict[str, str | None]:
        (box.repo / ".gitattributes").write_text("* filter=x diff=x\n")
        box.config((f"filter.x.{kind}", str(box.evil)), ("filter.x.required", "true"))
        box.stat_dirty()
        return {}

    setup.__name__ = f"{kind}_filter"
    return setup


for _kind, _live in (("clean", True), ("process", True), ("smudge", False)):
    vector(live=_live)(_filter(_kind))


@vector(live=False)
def _textconv_and_diff_drivers(box: Box) -> dict[str, str | None]:
    (box.repo / ".gitattributes").write_text("* diff=x\n")
    box.config(("diff.x.textconv", str(box.evil)), ("diff.x.command", str(box.evil)))
    box.config(("diff.external", str(box.evil)))
    (box.repo / "a.txt").write_text("changed\n")
    return {}


_HOOKS = (
    "post-index-change",
    "pre-commit",
    "post-checkout",
    "reference-transaction",
    "fsmonitor-watchman",
    "pre-auto-gc",
)


@vector(live=False)
def _hooks(box: Box) -> dict[str, str | None]:
    for hook in _HOOKS:
        shutil.copy(box.evil, box.repo / ".git" / "hooks" / hook)
    box.stat_dirty()
    return {}


@vector(live=False)
def _hooks_path(box: Box) -> dict[str, str | None]:
    hooks = box.root / "hooks"
    hooks.mkdir()
    for hook in _HOOKS:
        shutil.copy(box.evil, hooks / hook)
    box.config(("core.hooksPath", str(hooks)))
    box.stat_dirty()
    return {}


@vector(live=False)
def _pager(box: Box) -> dict[str, str | None]:
    box.config(("core.pager", str(box.evil)), ("pager.status", str(box.evil)))
    return {}


def _evil_config_file(box: Box) -> Path:
    path = box.root / "evil.gitconfig"
    path.write_text(f'[core]\n\tfsmonitor = "{box.evil}"\n')
    return path


@vector(live=True)
def _include_path(box: Box) -> dict[str, str | None]:
    box.config(("include.path", str(_evil_config_file(box))))
    return {}


@vector(live=True)
def _include_if(box: Box) -> dict[str, str | None]:
    evil = _evil_config_file(box)
    box.config((f"includeIf.gitdir:{box.repo}/.git.path", str(evil)))
    box.config(("includeIf.onbranch:main.path", str(evil)))
    return {}


def _submodule(kind: str) -> Setup:
    def setup(box: Box) -> dict[str, str | None]:
        upstream = box.root / "sub-origin"
        upstream.mkdir()
        box.git(upstream, "init", "-q")
        (upstream / "s.txt").write_text("s\n")
        box.git(upstream, "add", ".")
        box.git(upstream, "commit", "-q", "-m", "s")
        box.git(
            box.repo,
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            str(upstream),
            "sub",
        )
        box.git(box.repo, "commit", "-q", "-m", "sub")
        sub = box.repo / "sub"
        if kind == "fsmonitor":
            box.config(("core.fsmonitor", str(box.evil)), repo=sub)
        else:
            (sub / ".gitattributes").write_text("* filter=x\n")
            box.config(("filter.x.clean", str(box.evil)), repo=sub)
            box.stat_dirty("s.txt", repo=sub)
        return {}

    setup.__name__ = f"submodule_{kind}" if kind == "fsmonitor" else f"submodule_{kind}_filter"
    return setup


for _kind in ("fsmonitor", "clean"):
    vector(live=True)(_submodule(_kind))


def _lazy_fetch(box: Box) -> None:
    """A partial clone whose staged rename needs a blob that is missing: git fetches it."""
    blob = box.git(box.repo, "rev-parse", "HEAD:a.txt").decode().strip()
    box.git(box.repo, "mv", "a.txt", "c.txt")
    with (box.repo / "c.txt").open("a") as file:
        file.write("one more line\n")
    box.git(box.repo, "add", "c.txt")
    (box.repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    box.config(
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.promisor", "true"),
    )


@vector(live=True, keeps_status=False)
def _lazy_fetch_upload_pack(box: Box) -> dict[str, str | None]:
    _lazy_fetch(box)
    box.config(("remote.origin.url", str(box.root)), ("remote.origin.uploadpack", str(box.evil)))
    return {}


@vector(live=True, keeps_status=False)
def _lazy_fetch_ssh_command(box: Box) -> dict[str, str | None]:
    _lazy_fetch(box)
    box.config(("remote.origin.url", "ssh://example.invalid/x"), ("core.sshCommand", str(box.evil)))
    return {}


@vector(live=True, keeps_status=False)
def _lazy_fetch_ssh_from_environment(box: Box) -> dict[str, str | None]:
    _lazy_fetch(box)
    box.config(("remote.origin.url", "ssh://example.invalid/x"))
    return {"GIT_SSH_COMMAND": str(box.evil), "GIT_SSH": str(box.evil)}


@vector(live=True)
def _gitfile_elsewhere(box: Box) -> dict[str, str | None]:
    elsewhere = box.root / "elsewhere.git"
    shutil.move(box.repo / ".git", elsewhere)
    (box.repo / ".git").write_text(f"gitdir: {elsewhere}\n")
    box.config(("core.fsmonitor", str(box.evil)))
    return {}


@vector(live=True)
def _linked_worktree(box: Box) -> dict[str, str | None]:
    main = box.root / "main-checkout"
    shutil.move(box.repo, main)
    box.git(main, "worktree", "add", "-q", "-b", "topic", str(box.repo))
    box.config(("core.fsmonitor", str(box.evil)), repo=main)
    return {}


@vector(live=True)
def _worktree_config(box: Box) -> dict[str, str | None]:
    box.config(("core.repositoryformatversion", "1"), ("extensions.worktreeConfig", "true"))
    box.git(box.repo, "config", "--worktree", "core.fsmonitor", str(box.evil))
    return {}


@vector(live=True)
def _core_worktree(box: Box) -> dict[str, str | None]:
    elsewhere = box.root / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "untracked").write_text("x")
    box.config(("core.worktree", str(elsewhere)), ("core.fsmonitor", str(box.evil)))
    return {}


@vector(live=False, keeps_status=False)
def _config_value_injection(box: Box) -> dict[str, str | None]:
    """A value that would end its line in a config written without care."""
    injected = f"refs/heads/main\n[core]\n\tfsmonitor = {box.evil}\n"
    box.config(("branch.main.remote", "."), ("branch.main.merge", injected))
    return {}


@vector(live=True)
def _environment_config_parameters(box: Box) -> dict[str, str | None]:
    return {
        "GIT_CONFIG_PARAMETERS": f"'core.fsmonitor'='{box.evil}'",
    }


@vector(live=True)
def _environment_config_count(box: Box) -> dict[str, str | None]:
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.fsmonitor",
        "GIT_CONFIG_VALUE_0": str(box.evil),
    }


@vector(live=True)
def _environment_config_files(box: Box) -> dict[str, str | None]:
    evil = str(_evil_config_file(box))
    return {
        "GIT_CONFIG_GLOBAL": evil,
        "GIT_CONFIG_SYSTEM": evil,
        "GIT_CONFIG_NOSYSTEM": None,
        "GIT_CONFIG": evil,
    }


@vector(live=True)
def _home_config(box: Box) -> dict[str, str | None]:
    home = box.root / "evil-home"
    (home / ".config" / "git").mkdir(parents=True)
    shutil.copy(_evil_config_file(box), home / ".gitconfig")
    shutil.copy(_evil_config_file(box), home / ".config" / "git" / "config")
    (home / ".config" / "git" / "attributes").write_text("* filter=y\n")
    box.stat_dirty()
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_GLOBAL": None,
        "GIT_CONFIG_NOSYSTEM": None,
    }


@vector(live=True)
def _environment_git_dir(box: Box) -> dict[str, str | None]:
    other = box.root / "other"
    other.mkdir()
    box.git(other, "init", "-q")
    box.config(("core.fsmonitor", str(box.evil)), repo=other)
    return {"GIT_DIR": str(other / ".git"), "GIT_WORK_TREE": str(other)}


@vector(live=False)
def _environment_programs(box: Box) -> dict[str, str | None]:
    exec_path = box.root / "exec-path"
    exec_path.mkdir()
    for name in ("git-status", "git-fsmonitor--daemon", "git-submodule", "git-remote-ssh"):
        shutil.copy(box.evil, exec_path / name)
    (box.repo / "a.txt").write_text("changed\n")
    programs = ("GIT_PAGER", "PAGER", "GIT_EXTERNAL_DIFF", "GIT_EDITOR", "GIT_ASKPASS")
    changes: dict[str, str | None] = dict.fromkeys((*programs, "SSH_ASKPASS"), str(box.evil))
    return {"GIT_EXEC_PATH": str(exec_path), **changes}


@vector(live=True)
def _environment_trace(box: Box) -> dict[str, str | None]:
    # GIT_TRACE and friends write to a file that the variable names.
    traces = ("GIT_TRACE", "GIT_TRACE_PERFORMANCE", "GIT_TRACE2", "GIT_TRACE2_EVENT")
    return dict.fromkeys(traces, str(box.canary))


@vector(live=True)
def _relative_path_entry(box: Box) -> dict[str, str | None]:
    """An empty PATH entry means the current directory; the checkout holds a ``git``."""
    shutil.copy(box.evil, box.repo / "git")
    return {"PATH": ":" + os.environ.get("PATH", "/usr/bin:/bin"), "CWD": str(box.repo)}


@vector(live=True)
def _path_entry_inside_checkout(box: Box) -> dict[str, str | None]:
    """A CI job put ``$PWD/bin`` on PATH; the pull request ships ``bin/git``."""
    (box.repo / "tools" / "bin").mkdir(parents=True)
    shutil.copy(box.evil, box.repo / "tools" / "bin" / "git")
    path = os.environ.get("PATH", "/usr/bin:/bin")
    return {"PATH": f"{box.repo}/tools/bin:{path}", "CWD": str(box.repo)}


def _apply(box: Box, changes: dict[str, str | None]) -> tuple[dict[str, str], Path]:
    """The box's environment with ``changes`` applied, and the working directory to use."""
    environment = dict(box.environment)
    cwd = box.root
    for key, value in changes.items():
        if key == "CWD":
            cwd = Path(value or box.root)
        elif value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return environment, cwd


def _prepared(tmp_path: Path, vector: Vector) -> tuple[Box, dict[str, str], Path]:
    box = _new_box(tmp_path)
    changes = vector.setup(box)
    environment, cwd = _apply(box, changes)
    assert not box.canary.exists(), "the set-up itself ran the program"
    return box, environment, cwd


def _canary(box: Box) -> str:
    return box.canary.read_text(errors="replace") if box.canary.exists() else ""


@pytest.mark.environment  # git's behaviour, not ours: the defences below run in every gate
@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.name)
def test_vector_is_live_under_plain_git(tmp_path: Path, vector: Vector) -> None:
    """Positive control: the way the collector used to run git does run the program."""
    version = run_bounded(
        ["git", "--version"], cpu_seconds=60, capture_output=True, check=True
    ).stdout
    numbers = tuple(int(n) for n in version.split()[2].split(b".")[:2])
    if not vector.live or numbers not in _LIVENESS_CHECKED_ON:
        pytest.skip("not a live vector for this git")
    box, environment, cwd = _prepared(tmp_path, vector)
    command = ["git", "--no-optional-locks", "status", "--porcelain=v2", "--branch", "-z"]
    checkout = box.repo if cwd == box.root else cwd
    # A new session, killed as a group: a live vector (a lazy fetch's upload-pack,
    # a filter) leaves grandchildren that outlive git's own timeout otherwise.
    process = subprocess.Popen(
        command,
        cwd=checkout,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )

    def ran_or_ended(seconds: float) -> bool:
        # Checked every twentieth of ``seconds``: the canary is there at once for most vectors.
        for _ in range(20):
            if box.canary.exists() or process.poll() is not None:
                return True
            time.sleep(seconds / 20)
        return False

    try:
        # Until the vector ran, or git ended (or hung: no progress), not for a wall-clock span
        # a busy machine may need all of before git reaches the vector.
        wait_bounded(ran_or_ended, cpu_seconds=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert box.canary.exists(), f"{vector.name} did not run anything under plain git"


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.name)
def test_collector_runs_nothing_the_checkout_configures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vector: Vector
) -> None:
    box, environment, cwd = _prepared(tmp_path, vector)
    for key in list(os.environ):
        if key not in environment:
            monkeypatch.delenv(key)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(cwd)
    facts = collect_environment_facts(box.repo, git_timeout=_TIMEOUT)
    assert _canary(box) == "", f"{vector.name} ran: {_canary(box)[:300]!r}"
    if vector.name == "linked_worktree":
        assert facts.git == GitStatus("topic", None, 0, 0, 0, 0, 0, 0, 0)
    elif vector.name in ("core_worktree", "environment_programs"):
        # The checkout is where .git is; core.worktree does not move it.
        assert facts.git is not None
        assert facts.git.branch == "main"
        assert facts.git.untracked == 0
    elif vector.keeps_status:
        assert facts.git is not None
        assert facts.git.branch == "main", facts.git
    else:
        assert facts.git is None or facts.git.branch == "main"


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.name)
def test_env_command_runs_nothing_the_checkout_configures(tmp_path: Path, vector: Vector) -> None:
    """The ``env`` command, run in this process with the vector's whole environment and working
    directory (``cli_run.run_here``: the collector reads the environment and the working
    directory when it is called, not when it is imported)."""
    box, environment, cwd = _prepared(tmp_path, vector)
    arguments = ("env", box.repo, "--git-timeout", str(_TIMEOUT))
    result = run_here(*arguments, cwd=cwd, whole_env=environment, cpu_seconds=120)
    assert result.returncode == 0, result.stderr
    assert _canary(box) == "", f"{vector.name} ran: {_canary(box)[:300]!r}"
    assert b"<git_status>" in result.stdout


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.name)
def test_manifest_command_runs_nothing_the_checkout_configures(
    tmp_path: Path, vector: Vector
) -> None:
    """The ``manifest`` command as ``env`` above, in this process (both commands run as a
    child of their own in ``test_env_and_manifest_commands_on_a_ref_linked_to_dev_zero``)."""
    box, environment, cwd = _prepared(tmp_path, vector)
    out = box.root / "manifest.json"
    arguments = ("manifest", box.repo, "-o", out, "--git-timeout", str(_TIMEOUT))
    result = run_here(*arguments, cwd=cwd, whole_env=environment, cpu_seconds=120)
    assert result.returncode == 0, result.stderr
    assert _canary(box) == "", f"{vector.name} ran: {_canary(box)[:300]!r}"
    manifest = decode_manifest(out.read_bytes())
    assert manifest.environment is not None
    if vector.keeps_status and vector.name != "linked_worktree":
        assert manifest.environment.git is not None
        assert manifest.environment.git.branch == "main"


# ----------------------------------------------------------- facts stay right


def _plain_status(box: Box, repo: Path) -> GitStatus:
    return parse_git_status(box.git(repo, "status", "--porcelain=v2", "--branch", "-z"))


def test_facts_equal_plain_git_on_a_busy_clone(tmp_path: Path) -> None:
    """Upstream, ahead/behind, staged, unstaged, untracked, renamed: all as git says."""
    box = _new_box(tmp_path)
    clone = box.root / "clone"
    box.git(box.root, "clone", "-q", str(box.repo), str(clone))
    for name in ("x", "y"):
        (clone / name).write_text(name)
        box.git(clone, "add", name)
        box.git(clone, "commit", "-q", "-m", name)
    (box.repo / "z").write_text("z")
    box.git(box.repo, "add", "z")
    box.git(box.repo, "commit", "-q", "-m", "z")
    box.git(clone, "fetch", "-q")
    box.git(clone, "mv", "b.txt", "renamed b.txt")
    (clone / "a.txt").write_text("edited\n")
    (clone / "new").write_text("n")
    (clone / "staged").write_text("s")
    box.git(clone, "add", "staged")
    expected = _plain_status(box, clone)
    assert expected == GitStatus("main", "origin/main", 2, 1, 2, 1, 1, 0, 1)
    assert collect_git_status(clone) == expected
    subdirectory = clone / "deeper" / "still"
    subdirectory.mkdir(parents=True)
    (subdirectory / "f").write_text("f")
    assert collect_git_status(subdirectory) == _plain_status(box, clone)


@pytest.mark.parametrize(
    ("remote", "branch"),
    [('o"r.x', 'we"ird.\u00e9'), ("origin", "a]b#d;e"), ("r=1", "x=y")],
)
def test_upstream_survives_names_that_need_quoting(
    tmp_path: Path, remote: str, branch: str
) -> None:
    """Carried config values are quoted the way git reads them back."""
    box = _new_box(tmp_path)
    clone = box.root / "clone"
    box.git(box.root, "clone", "-q", "-o", remote, str(box.repo), str(clone))
    box.git(clone, "checkout", "-q", "-b", branch, "--track", f"{remote}/main")
    box.git(clone, "commit", "-q", "--allow-empty", "-m", "x")
    expected = _plain_status(box, clone)
    assert (expected.branch, expected.upstream, expected.ahead) == (branch, f"{remote}/main", 1)
    assert collect_git_status(clone) == expected


def test_facts_of_a_linked_worktree_and_a_packed_ref(tmp_path: Path) -> None:
    box = _new_box(tmp_path)
    box.git(box.repo, "pack-refs", "--all")
    box.git(box.repo, "worktree", "add", "-q", "-b", "topic", str(box.root / "wt"))
    (box.root / "wt" / "u").write_text("u")
    assert collect_git_status(box.root / "wt") == _plain_status(box, box.root / "wt")
    assert collect_git_status(box.repo) == GitStatus("main", None, 0, 0, 0, 0, 0, 0, 0)


def test_facts_of_a_split_index(tmp_path: Path) -> None:
    box = _new_box(tmp_path)
    box.git(box.repo, "update-index", "--split-index")
    (box.repo / "new").write_text("n")
    box.git(box.repo, "add", "new")
    (box.repo / "b.txt").write_text("changed\n")
    assert list((box.repo / ".git").glob("sharedindex.*"))
    expected = _plain_status(box, box.repo)
    assert (expected.staged, expected.unstaged) == (1, 1)
    assert collect_git_status(box.repo) == expected


def test_facts_honour_info_exclude_and_gitignore(tmp_path: Path) -> None:
    box = _new_box(tmp_path)
    (box.repo / ".git" / "info" / "exclude").write_text("*.excluded\n")
    (box.repo / ".gitignore").write_text("*.ignored\n")
    for name in ("a.excluded", "b.ignored", "c.untracked"):
        (box.repo / name).write_text("x")
    expected = _plain_status(box, box.repo)
    assert expected.untracked == 2  # .gitignore and c.untracked
    assert collect_git_status(box.repo) == expected


def test_ceiling_directories_stop_the_search_upwards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    box = _new_box(tmp_path)
    inner = box.repo / "deeper" / "still"
    inner.mkdir(parents=True)
    assert collect_git_status(inner) is not None
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", f"relative:{box.repo}")
    assert collect_git_status(inner) is None  # as git: never chdir up into a ceiling
    assert collect_git_status(box.repo) is not None  # the ceiling itself is still searched
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(box.repo / "deeper"))
    assert collect_git_status(inner) is None


def test_the_scratch_directory_is_removed_every_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch_parent = tmp_path / "tmp"
    scratch_parent.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch_parent))
    box = _new_box(tmp_path / "ok")
    assert collect_git_status(box.repo) is not None
    hanging = _new_box(tmp_path / "hanging")
    os.mkfifo(hanging.repo / ".git" / "packed-refs")
    assert collect_git_status(hanging.repo, timeout=1.0) is None
    assert list(scratch_parent.iterdir()) == []
    assert (box.repo / ".git" / "objects").is_dir()  # links removed, never their targets


@pytest.mark.parametrize("timeout", [0.0, -1.0, float("nan"), float("-inf")])
def test_no_time_to_run_git_is_unknown(tmp_path: Path, timeout: float) -> None:
    box = _new_box(tmp_path)
    assert collect_git_status(box.repo, timeout=timeout) is None


def test_an_infinite_timeout_is_bounded_and_works(tmp_path: Path) -> None:
    box = _new_box(tmp_path)
    status = collect_git_status(box.repo, timeout=float("inf"))
    assert status == GitStatus("main", None, 0, 0, 0, 0, 0, 0, 0)


class _BadPath:
    """A PathLike whose ``__fspath__`` returns neither str nor bytes."""

    def __fspath__(self) -> object:
        return 5


@pytest.mark.parametrize("cwd", [None, 5, b"/tmp", ["/tmp"], 3.5, _BadPath()])
def test_a_cwd_that_is_not_a_str_path_is_context_value_invalid(cwd: object) -> None:
    for call in (
        lambda: collect_git_status(cwd),  # type: ignore[arg-type]
        lambda: collect_environment_facts(cwd),  # type: ignore[arg-type]
    ):
        with pytest.raises(DefinitionError) as raised:
            call()
        assert (raised.value.code, raised.value.reason) == ("context_value_invalid", "cwd")


@pytest.mark.parametrize("timeout", [None, True, "5", [5]])
def test_a_timeout_that_is_not_a_number_is_git_status_invalid(
    tmp_path: Path, timeout: object
) -> None:
    for call in (
        lambda: collect_git_status(tmp_path, timeout),  # type: ignore[arg-type]
        lambda: collect_environment_facts(tmp_path, git_timeout=timeout),  # type: ignore[arg-type]
    ):
        with pytest.raises(DefinitionError) as raised:
            call()
        assert (raised.value.code, raised.value.reason) == ("git_status_invalid", "timeout")


def test_inside_the_git_directory_is_not_a_worktree(tmp_path: Path) -> None:
    box = _new_box(tmp_path)
    assert collect_git_status(box.repo / ".git") is None
    assert collect_git_status(box.repo / ".git" / "refs") is None


def test_unknown_repository_extension_is_unknown(tmp_path: Path) -> None:
    box = _new_box(tmp_path)
    box.config(("core.repositoryformatversion", "1"), ("extensions.somethingNew", "true"))
    assert collect_git_status(box.repo) is None


def _returns_promptly(path: Path, fifo: Path) -> GitStatus | None:
    """``collect_git_status(path)`` in a thread; fail (and unblock it) if it blocks."""
    outcome: list[GitStatus | None] = []
    worker = threading.Thread(
        target=lambda: outcome.append(collect_git_status(path, timeout=2.0)), daemon=True
    )
    worker.start()

    def returned(seconds: float) -> bool:
        worker.join(seconds)
        return not worker.is_alive()

    # Blocked is no progress: the wait ends then, whatever the machine's load, and so does a
    # collector that spins (its CPU budget).
    reason = wait_bounded(returned, cpu_seconds=30)
    if reason:
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"collecting facts blocked on the FIFO {fifo.name} ({reason})")
    return outcome[0]


@pytest.mark.parametrize("name", ["HEAD", "config", "commondir", "index", "packed-refs"])
def test_a_fifo_in_the_git_directory_does_not_hang(tmp_path: Path, name: str) -> None:
    box = _new_box(tmp_path)
    fifo = box.repo / ".git" / name
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)
    assert _returns_promptly(box.repo, fifo) in (None, GitStatus("main", None, 0, 0, 0, 0, 0, 0, 0))


def test_a_gitfile_that_is_a_fifo_does_not_hang(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    os.mkfifo(work / ".git")
    assert _returns_promptly(work, work / ".git") is None


# ------------------------------------------------------ memory: files git reads without end

# Each file of the checkout's git directory that git would read (or that the sandbox
# links, copies or reads itself), replaced by a link to a device that never ends.
DEVICE_LINKED = [
    "refs/heads/main",
    "refs/remotes/origin/main",
    "refs/remotes/origin/HEAD",
    "objects/info/alternates",
    "packed-refs",
    "index",
    "shallow",
    "info/exclude",
    "config",
    "HEAD",
    "commondir",
]
_PEAK_PROBE = """
import dataclasses, json, resource, sys
sys.path.insert(0, sys.argv[1])
from a13n_harness.environment.facts import collect_git_status
status = collect_git_status(sys.argv[2], timeout=float(sys.argv[3]))
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
listed = None if status is None else list(dataclasses.astuple(status))
print(json.dumps({"status": listed, "peak_kib": peak}))
"""
# The probe's own address-space limit: if the sandbox let git read /dev/zero, git
# stops here instead of eating the machine (the test stays bounded without the fix).
_PROBE_ADDRESS_SPACE = 3 * 2**30


def _collect_with_peak(repo: Path, timeout: float = _TIMEOUT) -> tuple[list[object] | None, int]:
    """``collect_git_status(repo)`` in a child held to 3 GiB of address space; the
    status and the peak resident size (bytes) of the git processes it ran."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (_PROBE_ADDRESS_SPACE, _PROBE_ADDRESS_SPACE))

    result = run_bounded(
        [sys.executable, "-c", _PEAK_PROBE, str(CORE), str(repo), str(timeout)],
        capture_output=True,
        cpu_seconds=120,
        preexec_fn=limit,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    answer = json.loads(result.stdout)
    return answer["status"], answer["peak_kib"] * 1024


def _clone_with_upstream(box: Box) -> Path:
    clone = box.root / "clone"
    box.git(box.root, "clone", "-q", str(box.repo), str(clone))
    box.git(clone, "commit", "-q", "--allow-empty", "-m", "ahead")
    return clone


@pytest.mark.parametrize("name", DEVICE_LINKED)
def test_a_git_file_linked_to_dev_zero_is_unknown_in_bounded_memory(
    tmp_path: Path, name: str
) -> None:
    """``refs/heads/<branch>``, ``refs/remotes/origin/<branch>`` or
    ``objects/info/alternates`` linked to ``/dev/zero`` made ``git status`` grow past
    900 MiB in under a second, until the timeout (up to an hour) stopped it. Every file
    git is given is now a regular file within a bound, or the fact is unknown; git is
    never run on such a checkout."""
    box = _new_box(tmp_path)
    clone = _clone_with_upstream(box)
    before = collect_git_status(clone)  # the control: known before the link (no peak needed)
    assert before is not None
    assert (before.branch, before.upstream, before.ahead) == ("main", "origin/main", 1)
    target = clone / ".git" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists() or target.is_symlink():
        target.unlink()
    target.symlink_to("/dev/zero")
    status, peak = _collect_with_peak(clone)
    assert status is None
    assert peak < 128 * 2**20, f"git reached {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize(
    ("name", "size"),
    [
        ("refs/heads/main", 4097),
        ("packed-refs", 2**30),
        ("info/exclude", 2**30),
        ("config", 2**30),
        ("objects/info/alternates", 2**30),
    ],
)
def test_a_git_file_past_its_bound_is_unknown(tmp_path: Path, name: str, size: int) -> None:
    """A regular file is not enough: a sparse file of a GiB is read whole by git too."""
    box = _new_box(tmp_path)
    clone = _clone_with_upstream(box)
    target = clone / ".git" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "ab") as file:
        file.truncate(size)
    status, peak = _collect_with_peak(clone)
    assert status is None
    assert peak < 128 * 2**20, f"git reached {peak / 2**20:.0f} MiB"


def test_a_checkout_that_borrows_objects_is_unknown(tmp_path: Path) -> None:
    """``objects/info/alternates`` naming another object directory (``clone --shared``)
    leads outside the checkout: git is not let follow it, and the fact is unknown. An
    alternates file holding only comments borrows nothing and changes nothing."""
    box = _new_box(tmp_path)
    shared = box.root / "shared"
    box.git(box.root, "clone", "-q", "--shared", str(box.repo), str(shared))
    alternates = shared / ".git" / "objects" / "info" / "alternates"
    assert alternates.read_text().strip().startswith(str(box.repo))
    assert _plain_status(box, shared).branch == "main"  # git itself follows them
    assert collect_git_status(shared) is None
    clone = _clone_with_upstream(box)
    alternates = clone / ".git" / "objects" / "info" / "alternates"
    alternates.write_text("# nothing borrowed\n\n")
    assert collect_git_status(clone) == _plain_status(box, clone)
    # Named but not needed (every object is also in the clone): still never followed,
    # and the decision is the same, unknown (not a status computed without them).
    alternates.write_text(f"{box.repo / '.git' / 'objects'}\n")
    assert _plain_status(box, clone).branch == "main"
    assert collect_git_status(clone) is None


def test_git_runs_under_its_own_memory_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the file checks miss, git's heap is bounded: each git child runs with
    ``RLIMIT_DATA`` at ``GIT_MEMORY_LIMIT_BYTES``, set in the child before git starts."""
    real_git = shutil.which("git")
    assert real_git is not None
    box = _new_box(tmp_path / "box")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marks = tmp_path / "limits"
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\nulimit -d >> "{marks}"\nexec "{real_git}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert collect_git_status(box.repo) == GitStatus("main", None, 0, 0, 0, 0, 0, 0, 0)
    limits = marks.read_text().split()
    assert limits, "git never ran"
    assert set(limits) == {str(GIT_MEMORY_LIMIT_BYTES // 1024)}, limits


def test_a_git_that_allocates_without_end_stops_at_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit itself, end to end: a ``git`` that allocates a GiB (a stand-in for any
    input the checks did not foresee) fails at the limit, and the fact is unknown."""
    box = _new_box(tmp_path / "box")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    greedy = bin_dir / "git"
    greedy.write_text(
        f"#!{sys.executable}\nimport sys\nblock = bytearray(2**30)\nsys.stdout.write('# x')\n"
    )
    greedy.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    status, peak = _collect_with_peak(box.repo)
    assert status is None
    assert peak < 600 * 2**20, f"git reached {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("name", ["refs/heads/main", "objects/info/alternates"])
def test_env_and_manifest_commands_on_a_ref_linked_to_dev_zero(tmp_path: Path, name: str) -> None:
    """The console script as a CI gate runs it: the git fact is unknown, promptly, and the
    git children stay small (the commands run held to 3 GiB of address space)."""
    box = _new_box(tmp_path)
    target = box.repo / ".git" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        target.unlink()
    target.symlink_to("/dev/zero")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (_PROBE_ADDRESS_SPACE, _PROBE_ADDRESS_SPACE))

    # The command, then the peak resident size of it and everything it ran (git included).
    peak_of = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "sys.stderr.buffer.write(done.stderr)\n"
        "sys.stdout.buffer.write(done.stdout)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stderr.write(f'\\npeak_kib={peak}\\n')\n"
        "raise SystemExit(done.returncode)\n"
    )
    for command in (["env", str(box.repo)], ["manifest", str(box.repo)]):
        result = run_bounded(
            [sys.executable, "-c", peak_of, sys.executable, "-m", "a13n_harness.cli", *command],
            env={**box.environment, "PYTHONPATH": str(CORE)},
            capture_output=True,
            cpu_seconds=120,
            preexec_fn=limit,
        )
        assert result.returncode == 0, result.stderr
        peak = int(result.stderr.decode().rsplit("peak_kib=", 1)[1]) * 1024
        assert peak < 192 * 2**20, f"the command and git reached {peak / 2**20:.0f} MiB"
        if command[0] == "env":
            assert b"<git_status>not a git repository</git_status>" in result.stdout
        else:
            manifest = decode_manifest(result.stdout)
            assert manifest.environment is not None
            assert manifest.environment.git is None


# ------------------------------- the sandbox's edges: limits, links and carried values

_LOWER_HARD_PROBE = """
import json, resource, sys
sys.path.insert(0, sys.argv[1])
hard = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))
from a13n_harness.environment.facts import collect_git_status
status = collect_git_status(sys.argv[2])
print(json.dumps(None if status is None else status.branch))
"""


@pytest.mark.parametrize("below", [1, 2**20, 256 * 2**20])
def test_git_runs_bounded_under_a_lower_hard_memory_limit_of_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, below: int
) -> None:
    """A caller already held to a data limit below ``GIT_MEMORY_LIMIT_BYTES`` (a CI job's
    cgroup-less ulimit) cannot raise it: git runs at the caller's own hard limit, and the fact
    is known. A limit set above it makes the child fail before git starts (unknown)."""
    real_git = shutil.which("git")
    assert real_git is not None
    box = _new_box(tmp_path / "box")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marks = tmp_path / "limits"
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\nulimit -d >> "{marks}"\nexec "{real_git}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    hard = (GIT_MEMORY_LIMIT_BYTES - below) // 1024 * 1024  # ulimit -d reports KiB
    # Under a CPU budget, not a wall-clock timeout: a busy machine must not fail the test.
    result = bounded([sys.executable, "-c", _LOWER_HARD_PROBE, str(CORE), str(box.repo), str(hard)])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == "main", result.stderr
    assert set(marks.read_text().split()) == {str(hard // 1024)}


@pytest.mark.parametrize(
    "name", ["refs/heads/main", "refs/remotes/origin/main", "refs/heads/topic/feature"]
)
def test_a_loose_ref_that_is_a_link_to_a_regular_file_is_not_followed(
    tmp_path: Path, name: str
) -> None:
    """A loose ref linked to a regular file (anywhere: outside the checkout too) is a link
    all the same: git is not given what it names, and the fact is unknown. Only a link to a
    device was tried before, which the regular-file check refuses on its own."""
    box = _new_box(tmp_path)
    clone = _clone_with_upstream(box)
    assert collect_git_status(clone) is not None
    target = clone / ".git" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    head = box.git(clone, "rev-parse", "HEAD")
    elsewhere = tmp_path / "elsewhere-ref"
    elsewhere.write_bytes(head)
    if target.exists() or target.is_symlink():
        target.unlink()
    target.symlink_to(elsewhere)
    assert collect_git_status(clone) is None
    # Control: the same bytes as a regular file are an ordinary ref.
    target.unlink()
    target.write_bytes(head)
    assert collect_git_status(clone) is not None


@pytest.mark.parametrize(
    ("key", "value", "content"),
    [
        ("core.excludesFile", "evil", "*.txt\n"),
        ("core.excludesFile", "x", "*\n"),
        ("core.attributesFile", "evil", "*.txt filter=evil\n"),
    ],
)
def test_a_carried_key_with_a_short_relative_file_value_changes_nothing(
    tmp_path: Path, key: str, value: str, content: str
) -> None:
    """A value short and plain enough to pass as inert (``evil``) that names a file of the
    checkout: the key is not carried into git's configuration, so the file is not read (the
    untracked count is the same as without the key). An absolute path, the only form tried
    before, is refused by the value filter whatever the key."""
    box = _new_box(tmp_path)
    for name in ("one.txt", "two.txt"):
        (box.repo / name).write_text(name)
    (box.repo / value).write_text(content)
    baseline = collect_git_status(box.repo)
    assert baseline is not None
    assert baseline.untracked == 3
    box.config((key, value))
    assert collect_git_status(box.repo) == baseline
    assert not box.canary.exists()


# ------------------------------------------- links inside .git that leave the checkout


def _busy_clone(box: Box) -> Path:
    """A clone holding every kind of file git reads: loose objects and a pack, loose
    and packed refs, an upstream it is ahead of, an index, ``info/exclude`` and a
    ``shallow``-free history; plus untracked and excluded files in its work tree."""
    box.git(box.repo, "gc", "-q")  # the clone gets a pack
    clone = _clone_with_upstream(box)  # and a loose commit of its own
    (clone / "new.txt").write_text("n\n")
    box.git(clone, "add", "new.txt")  # a loose blob, a staged file
    (clone / "guess.txt").write_text("g\n")
    (clone / "kept.txt").write_text("k\n")
    (clone / ".git" / "info").mkdir(exist_ok=True)
    (clone / ".git" / "info" / "exclude").write_text("kept.txt\n")
    return clone


def _every_entry(gitdir: Path) -> list[str]:
    """Every file and folder below ``gitdir`` (relative, parents first), at any depth."""
    found = []
    for path in sorted(gitdir.rglob("*")):
        found.append(path.relative_to(gitdir).as_posix())
    return found


@contextlib.contextmanager
def _moved_behind_link(
    gitdir: Path, name: str, away: Path, *, relative: bool = False
) -> Iterator[None]:
    """``gitdir/name`` moved to ``away`` and replaced by a link to it; put back after."""
    entry = gitdir / name
    away.parent.mkdir(parents=True, exist_ok=True)
    os.rename(entry, away)
    target = os.path.relpath(away, entry.parent) if relative else str(away)
    entry.symlink_to(target)
    try:
        yield
    finally:
        entry.unlink()
        os.rename(away, entry)


def test_objects_linked_to_another_store_give_no_facts(tmp_path: Path) -> None:
    """``.git/objects`` (or ``objects/pack``) linked to another repository's store made
    the collector compute facts from that repository: unknown now, as for alternates."""
    box = _new_box(tmp_path)
    clone = _busy_clone(box)
    other = box.root / "other"
    box.git(box.root, "clone", "-q", str(clone), str(other))
    box.git(other, "gc", "-q")
    assert collect_git_status(clone) == _plain_status(box, clone)
    with _moved_behind_link(clone / ".git", "objects", box.root / "mine" / "objects"):
        shutil.rmtree(box.root / "mine" / "objects")
        shutil.copytree(other / ".git" / "objects", box.root / "mine" / "objects")
        assert _plain_status(box, clone).branch == "main"  # git follows the link
        assert collect_git_status(clone) is None
    box.git(clone, "gc", "-q")
    with _moved_behind_link(clone / ".git" / "objects", "pack", box.root / "mine" / "pack"):
        shutil.rmtree(box.root / "mine" / "pack")
        shutil.copytree(other / ".git" / "objects" / "pack", box.root / "mine" / "pack")
        assert _plain_status(box, clone).branch == "main"
        assert collect_git_status(clone) is None


def test_info_exclude_linked_outside_is_no_oracle(tmp_path: Path) -> None:
    """``.git/info/exclude`` linked to an outside file told, through the untracked count,
    whether a guessed line was in it; and a link to a missing file answered otherwise."""
    box = _new_box(tmp_path)
    clone = _busy_clone(box)
    secret = box.root / "secret"
    answers = []
    with _moved_behind_link(clone / ".git" / "info", "exclude", secret):
        for content in ("guess.txt\n", "other\n", None):
            if content is None:
                secret.unlink()
            else:
                secret.write_text(content)
            answers.append(collect_git_status(clone))
        secret.write_text("kept.txt\n")
    assert answers == [None, None, None]


def test_no_file_or_folder_of_git_is_read_through_a_link_that_leaves(tmp_path: Path) -> None:
    """Every file and folder of a busy clone's git directory, at any depth, in turn moved
    out of the checkout behind a link: the facts are the same whether the outside path
    exists or not (no oracle), and either unknown or the facts of the clone itself (the
    files git never reads: hooks, logs, ``description``). A link that stays inside is
    followed: the facts are the clone's."""
    box = _new_box(tmp_path)
    clone = _busy_clone(box)
    clean = collect_git_status(clone)
    assert clean == _plain_status(box, clone)
    assert clean is not None
    assert (clean.ahead, clean.staged, clean.untracked) == (1, 1, 1)
    gitdir = clone / ".git"
    unknown = []
    for name in _every_entry(gitdir):
        away = box.root / "outside" / name
        with _moved_behind_link(gitdir, name, away):
            existing = collect_git_status(clone)
            os.rename(away, away.with_name(away.name + ".gone"))
            missing = collect_git_status(clone)
            os.rename(away.with_name(away.name + ".gone"), away)
        assert existing == missing, name
        assert existing in (None, clean), name
        if existing is None:
            unknown.append(name)
    # The files git reads are among those that made the fact unknown.
    for name in ("objects", "objects/pack", "info/exclude", "packed-refs", "index", "HEAD"):
        assert name in unknown, name
    assert "config" in unknown
    assert "description" not in unknown
    assert "hooks" not in unknown


@pytest.mark.parametrize(
    "name", ["objects", "objects/pack", "info", "info/exclude", "packed-refs", "index", "refs"]
)
def test_a_link_that_stays_inside_the_git_directory_is_followed(tmp_path: Path, name: str) -> None:
    box = _new_box(tmp_path)
    clone = _busy_clone(box)
    clean = collect_git_status(clone)
    gitdir = clone / ".git"
    with _moved_behind_link(gitdir, name, gitdir / "kept" / name.replace("/", "-"), relative=True):
        assert _plain_status(box, clone) == clean
        assert collect_git_status(clone) == clean


def test_a_chain_of_links_that_leaves_on_its_second_hop(tmp_path: Path) -> None:
    """``objects/pack`` links to a folder inside, itself a link out of the checkout."""
    box = _new_box(tmp_path)
    clone = _busy_clone(box)
    box.git(clone, "gc", "-q")
    gitdir = clone / ".git"
    outside = box.root / "outside-pack"
    os.rename(gitdir / "objects" / "pack", outside)
    (gitdir / "hop").symlink_to(outside)
    (gitdir / "objects" / "pack").symlink_to("../hop")
    assert _plain_status(box, clone).branch == "main"
    assert collect_git_status(clone) is None


def test_a_loose_object_or_pack_file_linked_outside(tmp_path: Path) -> None:
    """Links below the object directory's entries (a loose object, a pack's index) are
    read by git as it meets them: the fact is unknown when one leaves."""
    box = _new_box(tmp_path)
    clone = _busy_clone(box)
    gitdir = clone / ".git"
    loose = next(p for p in (gitdir / "objects").glob("??/*"))
    pack = next((gitdir / "objects" / "pack").glob("*.idx"))
    for path in (loose, pack):
        name = path.relative_to(gitdir).as_posix()
        with _moved_behind_link(gitdir, name, box.root / "out" / path.name):
            assert collect_git_status(clone) is None, name


def test_no_file_of_a_linked_worktrees_git_directory_is_read_through_a_link_that_leaves(
    tmp_path: Path,
) -> None:
    """The per-worktree git directory (``.git/worktrees/<name>``: ``HEAD``, ``index``,
    ``commondir``, ``gitdir``) and the ``.git`` file of the worktree, each in turn moved
    out behind a link: the same facts whether the outside path exists or not, unknown or
    the worktree's own."""
    box = _new_box(tmp_path)
    worktree = box.root / "wt"
    box.git(box.repo, "worktree", "add", "-q", "-b", "topic", str(worktree))
    (worktree / "u").write_text("u")
    clean = collect_git_status(worktree)
    assert clean == _plain_status(box, worktree)
    gitdir = box.repo / ".git" / "worktrees" / "wt"
    unknown = []
    for name in _every_entry(gitdir):
        away = box.root / "outside" / name
        with _moved_behind_link(gitdir, name, away):
            existing = collect_git_status(worktree)
            os.rename(away, away.with_name(away.name + ".gone"))
            missing = collect_git_status(worktree)
            os.rename(away.with_name(away.name + ".gone"), away)
        assert existing == missing, name
        assert existing in (None, clean), name
        if existing is None:
            unknown.append(name)
    for name in ("HEAD", "commondir", "index"):
        assert name in unknown, name
