"""The lint gate checks every skill an agent would load (docs/contract.md §8 "What an agent
loads"; docs/rules.md).

One walk (``cli._workspace.walk_workspace``) defines what an agent loads for ``catalog``,
``manifest`` and ``lint``; lint checks a superset of what ``catalog --nested`` lists on every
tree (a property over generated trees, with a negative control: the walk lint had before
fails it). Every SKILL.md found is checked whatever discovery's precedence keeps; nothing the
gate cannot check passes silently; every ``--format`` writes a whole document whatever
happened, with run-level problems as coded lines on stderr.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a13n_harness.cli import _lint as lint_module
from a13n_harness.cli import _workspace as workspace_module
from a13n_harness.cli._lint import _Linter
from a13n_harness.cli._output import Progress
from a13n_harness.cli._workspace import (
    AGENT_FOLDERS,
    LAYOUT_ROOTS,
    SKILL_FILE,
    SKIPPED_FOLDERS,
    WorkspaceWalk,
    scan_workspace,
)
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import DirectoryEntry, FilePermissionDenied, LocalFileOperator
from a13n_harness.environment.local import BlockingLocalFileOperator, run_blocking
from a13n_harness.testing.controls import control_settings, property_fails
from cli_run import run_here

BIDI = "\u202e"


def skill(root: Path, folder: str, name: str | None = None, body: str = "Body.\n") -> Path:
    package = root / folder
    package.mkdir(parents=True, exist_ok=True)
    (package / SKILL_FILE).write_text(
        f"---\nname: {name or folder}\ndescription: Checks the gate.\n---\n{body}",
        encoding="utf-8",
    )
    return package


def lint_json(*args: str | os.PathLike[str], cwd: Path) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    result = run_here("lint", "--format", "json", *args, cwd=cwd)
    return result.returncode, json.loads(result.stdout), result.stderr.decode()


def rules_at(document: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return [(f["path"], f["rule"]) for f in document["findings"]]


# ------------------------------------------------ a virtual environment hides nothing


@pytest.mark.parametrize(
    "venv", [".agents/pyvenv.cfg", "pyvenv.cfg", ".agents/skills/pyvenv.cfg", "pkg/pyvenv.cfg"]
)
def test_a_pyvenv_cfg_never_hides_an_agent_folder(tmp_path: Path, venv: str) -> None:
    """An empty ``.agents/pyvenv.cfg`` beside ``.agents/skills/evil`` made lint skip the
    folder an agent reads: exit 0, "0 errors in 1 skill", while catalog listed ``evil``."""
    skill(tmp_path / "skills", "good")
    base = tmp_path / "pkg" if venv.startswith("pkg/") else tmp_path
    skill(base / ".agents" / "skills", "evil", body=f"Run {BIDI}this.\n")
    (tmp_path / venv).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / venv).write_text("home = /usr\n")
    code, document, _ = lint_json(cwd=tmp_path)
    evil = ("pkg/" if venv.startswith("pkg/") else "") + ".agents/skills/evil/SKILL.md"
    assert (evil, "skill_bidi_control") in rules_at(document), document
    assert code == 1


def test_agent_folders_below_a_virtual_environment_are_found(tmp_path: Path) -> None:
    skill(tmp_path / "env" / "lib" / ".claude" / "skills", "Deep")  # a broken name
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    skill(tmp_path / "env", "Venv")  # the environment's own folder: not a skill (as before)
    code, document, _ = lint_json(cwd=tmp_path)
    paths = {path for path, _ in rules_at(document)}
    assert "env/lib/.claude/skills/Deep/SKILL.md" in paths
    assert not any(path.startswith("env/Venv") or path == "env/SKILL.md" for path in paths)
    assert code == 1


# --------------------------------------------------------- linked agent roots


def test_a_linked_agent_root_inside_the_workspace_is_followed(tmp_path: Path) -> None:
    """``.agents/skills -> ../.venv/skills``: catalog lists it, lint said nothing."""
    skill(tmp_path / ".venv" / "skills", "hidden", name="Hidden")
    (tmp_path / ".agents").mkdir()
    os.symlink("../.venv/skills", tmp_path / ".agents" / "skills")
    code, document, _ = lint_json(cwd=tmp_path)
    assert (".agents/skills/hidden/SKILL.md", "skill_name_invalid") in rules_at(document)
    assert code == 1
    catalog = run_here("catalog", "--json", tmp_path)
    assert catalog.returncode == 0  # catalog skips the bad name, and lint reported it


def test_a_linked_agent_folder_inside_the_workspace_is_followed(tmp_path: Path) -> None:
    skill(tmp_path / "shared" / "claude" / "skills", "x", name="Y")
    os.symlink("shared/claude", tmp_path / ".claude")
    code, document, _ = lint_json(cwd=tmp_path)
    assert (".claude/skills/x/SKILL.md", "skill_name_invalid") in rules_at(document)
    assert code == 1


@pytest.mark.parametrize("link", [".claude/skills", ".agents", "pkg/.gemini/skills"])
def test_a_linked_agent_root_leaving_the_workspace_is_reported(tmp_path: Path, link: str) -> None:
    """``.claude/skills`` linked out of the repository: exit 0 and nothing reported."""
    workspace = tmp_path / "ws"
    skill(workspace / "skills", "good")
    outside = tmp_path / "outside"
    skill(outside / "skills", "Leak")
    target = outside / "skills" if link.endswith("skills") else outside
    (workspace / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, workspace / link)
    code, document, _ = lint_json(cwd=workspace)
    root = link if link.endswith("skills") else f"{link}/skills"
    assert (root, "skill_permission_denied") in rules_at(document), document
    assert "leads out of the workspace" in json.dumps(document)
    assert "Leak" not in json.dumps(document)  # nothing outside is read
    assert code == 1


# ------------------------------------------------------------- one name, two packages


def test_two_skills_with_one_name_are_both_checked_and_conflict(tmp_path: Path) -> None:
    """``skills/a`` and ``skills/b`` both ``name: a``: lint reported neither the conflict nor
    ``skills/b``'s own errors."""
    skill(tmp_path / "skills", "a")
    skill(tmp_path / "skills", "b", name="a")
    code, document, _ = lint_json(cwd=tmp_path)
    found = rules_at(document)
    assert ("skills/a/SKILL.md", "skill_name_conflict") in found
    assert ("skills/b/SKILL.md", "skill_name_conflict") in found
    assert ("skills/b/SKILL.md", "skill_name_mismatch") in found
    conflict = next(f for f in document["findings"] if f["rule"] == "skill_name_conflict")
    assert conflict["severity"] == "error"
    assert conflict["line"] == 2  # the name key
    assert document["summary"]["skills"] == 2
    assert code == 1
    alone = run_here("lint", "--format", "json", tmp_path / "skills" / "b")  # the control
    assert "skill_name_mismatch" in alone.stdout.decode()
    assert alone.returncode == 1


@pytest.mark.parametrize("root", [".agents/skills", ".gemini/skills", "plugins/p/skills"])
def test_a_byte_identical_copy_under_another_folder_is_checked(tmp_path: Path, root: str) -> None:
    """Discovery takes two routes with one name and identical bytes for one package; lint
    checks the second folder too (its folder differs from its name)."""
    skill(tmp_path / root, "a")
    copy = tmp_path / root / "copy"
    copy.mkdir()
    (copy / SKILL_FILE).write_bytes((tmp_path / root / "a" / SKILL_FILE).read_bytes())
    code, document, _ = lint_json(cwd=tmp_path)
    found = rules_at(document)
    assert (f"{root}/copy/SKILL.md", "skill_name_mismatch") in found, found
    assert (f"{root}/copy/SKILL.md", "skill_name_conflict") in found
    assert code == 1


def test_one_package_by_two_routes_is_one_skill_and_no_conflict(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "a")
    os.symlink("a", tmp_path / "skills" / "alias")
    code, document, _ = lint_json(cwd=tmp_path)
    assert document["findings"] == []
    assert document["summary"]["skills"] == 1
    assert code == 0


# ----------------------------------------------------------------- depth and reads


def test_a_broken_agent_root_twelve_levels_down_is_checked(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*(f"d{i}" for i in range(12)))
    skill(deep / ".claude" / "skills", "x", name="Broken Name")
    code, document, _ = lint_json(cwd=tmp_path)
    shown = "/".join(f"d{i}" for i in range(12)) + "/.claude/skills/x/SKILL.md"
    assert (shown, "skill_name_invalid") in rules_at(document)
    assert code == 1


def test_folders_past_the_depth_bound_are_an_error_not_a_silent_skip(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "good")
    levels = workspace_module.WALK_DEPTH + 3
    deep = tmp_path.joinpath(*(f"d{i}" for i in range(levels)))
    skill(deep / ".claude" / "skills", "x")
    code, document, _ = lint_json(cwd=tmp_path)
    overflow = [f for f in document["findings"] if f["rule"] == "skill_root_overflow"]
    assert len(overflow) == 1, document
    assert overflow[0]["severity"] == "error"
    assert overflow[0]["path"] == "/".join(f"d{i}" for i in range(workspace_module.WALK_DEPTH + 1))
    assert "--root" in overflow[0]["message"]
    assert code == 1
    catalog = run_here("catalog", "--nested", tmp_path)  # catalog --nested warns the same
    assert b"warning: " in catalog.stderr
    assert b"skill_root_overflow" in catalog.stderr


def _refusing(locked: str):  # type: ignore[no-untyped-def]
    """A ``list_directory`` that refuses the folder named ``locked``, as an unreadable one."""
    original = BlockingLocalFileOperator.list_directory

    async def list_directory(self: LocalFileOperator, path: str) -> Sequence[DirectoryEntry]:
        if path.rsplit("/", 1)[-1] == locked:
            raise FilePermissionDenied("permission denied", path=path)
        return await original(self, path)

    return list_directory


def test_an_unreadable_folder_in_the_walk_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder the walk cannot list was dropped without a word (exit 0)."""
    skill(tmp_path / "skills", "good")
    (tmp_path / "locked" / "pkg").mkdir(parents=True)
    monkeypatch.setattr(BlockingLocalFileOperator, "list_directory", _refusing("locked"))
    result = lint_module.lint([str(tmp_path)], [], Progress())
    found = [(f.path, f.rule, f.severity) for f in result.findings]
    assert (str(tmp_path / "locked"), "skill_permission_denied", "error") in found
    assert result.failed


def test_an_unreadable_folder_on_disk_is_reported(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every directory")
    skill(tmp_path / "skills", "good")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        code, document, _ = lint_json(cwd=tmp_path)
    finally:
        locked.chmod(0o755)
    assert ("locked", "skill_permission_denied") in rules_at(document)
    assert code == 1


def test_an_agent_root_that_is_not_a_directory_is_reported(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "good")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "skills").write_text("not a folder")
    code, document, _ = lint_json(cwd=tmp_path)
    assert (".claude/skills", "skill_entry_skipped") in rules_at(document)
    assert code == 0  # a warning: no agent loads anything from it


@pytest.mark.parametrize("link", [".claude/skills", ".agents"])
def test_an_agent_root_linked_to_nothing_is_reported(tmp_path: Path, link: str) -> None:
    skill(tmp_path / "skills", "good")
    (tmp_path / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink("nowhere", tmp_path / link)
    code, document, _ = lint_json(cwd=tmp_path)
    root = link if link.endswith("skills") else f"{link}/skills"
    assert (root, "skill_entry_skipped") in rules_at(document), document
    assert code == 0


def test_a_folder_without_skills_is_no_finding(tmp_path: Path) -> None:
    """The control: an agent folder without a skills folder (most .github) says nothing."""
    skill(tmp_path / "skills", "good")
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    code, document, _ = lint_json(cwd=tmp_path)
    assert document["findings"] == []
    assert code == 0


# ------------------------------------------------------------- a skill in a skill


def test_a_skill_md_inside_a_skill_folder_is_a_warning_naming_its_parent(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "pdf")
    skill(tmp_path / "skills" / "pdf" / "forms", "fill", name="Fill")
    code, document, _ = lint_json(cwd=tmp_path)
    nested = [f for f in document["findings"] if f["rule"] == "skill_nested"]
    assert [f["path"] for f in nested] == ["skills/pdf/forms/fill/SKILL.md"]
    assert nested[0]["severity"] == "warning"
    assert "skills/pdf" in nested[0]["message"]
    # It is checked too: the author meant a skill.
    assert ("skills/pdf/forms/fill/SKILL.md", "skill_name_invalid") in rules_at(document)
    assert code == 1


# ------------------------------------------------------------- the agents' roots


@pytest.mark.parametrize(
    "folder", [".agents", ".claude", ".github", ".gemini", ".cursor", ".codex"]
)
def test_every_documented_agent_root_is_linted_and_cataloged(tmp_path: Path, folder: str) -> None:
    skill(tmp_path / folder / "skills", "tool")
    catalog = json.loads(run_here("catalog", "--json", tmp_path).stdout)
    assert [s["name"] for s in catalog["skills"]] == ["tool"]
    skill(tmp_path / folder / "skills", "bad", name="Bad")
    code, document, _ = lint_json(cwd=tmp_path)
    assert (f"{folder}/skills/bad/SKILL.md", "skill_name_invalid") in rules_at(document)
    assert code == 1
    nested = json.loads(run_here("catalog", "--nested", "--json", tmp_path / "..").stdout)
    assert f"{tmp_path.name}/{folder}/skills" in nested["roots"]


# ------------------------------------------------------- whole documents, coded stderr

_CASES = {
    "missing PATH": (("does-not-exist",), "path_not_found"),
    "PATH is a file": (("README.md",), "path_not_a_directory"),
    "root climbing out": (("--root", "../outside"), "skill_root_invalid"),
    "absolute root outside": (("--root", "{outside}"), "skill_root_invalid"),
    "absolute root an outside file": (
        ("--root", "{outside}/outsider/SKILL.md"),
        "skill_root_invalid",
    ),
    "root missing": (("--root", "nowhere"), "skill_root_missing"),
    "no skills": ((), "no_skills_found"),
}


@pytest.mark.parametrize("form", ["text", "json", "sarif", "github"])
@pytest.mark.parametrize("case", sorted(_CASES))
def test_every_format_writes_a_whole_document_whatever_happened(
    tmp_path: Path, form: str, case: str
) -> None:
    """``lint --format sarif does-not-exist`` wrote 0 bytes (``upload-sarif`` then fails);
    ``no_skills_found`` and an outside root were printed on stdout only."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "README.md").write_text("read me")
    outside = tmp_path / "outside"
    skill(outside, "outsider")
    arguments, code = _CASES[case]
    typed = [a.replace("{outside}", str(outside)) for a in arguments]
    result = run_here("lint", "--format", form, *typed, cwd=workspace)
    assert result.returncode == 1
    lines = result.stderr.decode().splitlines()
    assert any(line.startswith(f"a13n-skills: {code}: ") for line in lines), lines
    if code == "skill_root_invalid":
        assert "does not exist" not in result.stderr.decode()
    out = result.stdout.decode()
    assert out.endswith("\n")
    if form == "json":
        document = json.loads(out)
        assert [f["rule"] for f in document["findings"]] == [code]
        assert document["summary"]["errors"] == 1
    elif form == "sarif":
        (sarif_run,) = json.loads(out)["runs"]
        (invocation,) = sarif_run["invocations"]
        assert invocation["executionSuccessful"] is False
        notes = invocation["toolExecutionNotifications"]
        assert [n["associatedRule"]["id"] for n in notes] == [code]
        assert sarif_run["results"] == []
    elif form == "github":
        first, summary = out.splitlines()
        assert first.startswith("::error ")
        assert f"title={code}::" in first
        assert summary == "1 error, 0 warnings in 0 skills"
    else:
        assert out.splitlines()[-1] == "1 error, 0 warnings in 0 skills"
    assert "Checks the gate" not in out  # nothing outside is read


def test_a_missing_path_does_not_stop_the_other_paths(tmp_path: Path) -> None:
    skill(tmp_path, "a", name="b")
    code, document, stderr = lint_json("does-not-exist", tmp_path / "a", cwd=tmp_path)
    assert [f["rule"] for f in document["findings"]] == ["path_not_found", "skill_name_mismatch"]
    assert stderr.splitlines() == [
        "a13n-skills: path_not_found: does-not-exist: no such file or directory"
    ]
    assert code == 1


def test_github_format_places_a_configuration_error_at_its_file_and_line(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "a")
    (tmp_path / ".a13n-skills.toml").write_text("[lint]\nbroken = [\n")
    result = run_here("lint", "--format", "github", cwd=tmp_path)
    assert result.returncode == 1
    first = result.stdout.decode().splitlines()[0]
    assert first.startswith("::error file=.a13n-skills.toml,line="), first
    assert ",col=" in first
    assert "title=lint_config_invalid::" in first
    assert any(
        line.startswith("a13n-skills: lint_config_invalid: ")
        for line in result.stderr.decode().splitlines()
    )


@pytest.mark.parametrize("form", ["text", "github"])
def test_a_configuration_that_is_no_regular_file_is_placed_at_its_path(
    tmp_path: Path, form: str
) -> None:
    """A configuration error names a file even when that path is a folder: text keeps its
    ``path:1:1`` line on stdout, github its ``file`` and ``line``."""
    skill(tmp_path / "skills", "a")
    named = tmp_path / "c.toml"
    named.mkdir()
    result = run_here("lint", "--format", form, "--config", named, tmp_path)
    assert result.returncode == 1
    first = result.stdout.decode().splitlines()[0]
    if form == "text":
        assert first.startswith(f"{named}:1:1: error: lint_config_invalid: "), first
    else:
        assert first.startswith("::error file="), first
        assert ",line=1,col=1,title=lint_config_invalid::" in first


def test_a_root_typed_through_a_linked_working_directory(tmp_path: Path) -> None:
    """``--root "$PWD/skills"`` with the working directory entered through a link: ``$PWD``
    keeps the link, the workspace's own path does not (it was ``skill_root_missing``)."""
    real = tmp_path / "real"
    skill(real / "skills", "a", name="b")
    os.symlink(real, tmp_path / "link")
    logical = str(tmp_path / "link")
    environment = {"PWD": logical}
    for command in (("catalog",), ("lint",)):
        result = run_here(
            *command, "--root", f"{logical}/skills", cwd=tmp_path / "link", env=environment
        )
        assert b"skill_root_missing" not in result.stderr, result.stderr
        if command == ("lint",):
            assert b"skill_name_mismatch" in result.stdout
        else:
            assert result.returncode == 0
            assert b"- b:" in result.stdout


# ------------------------------------------------ the superset property over trees

_SEGMENTS = ("skills", "pkg", "deep", "node_modules", ".venv", ".hidden", *AGENT_FOLDERS[:4])
_NAMES = ("a", "b", "c")
_folders = st.lists(st.sampled_from(_SEGMENTS), max_size=4).map("/".join)
_actions = st.one_of(
    st.tuples(
        st.just("agent-skill"),
        _folders,
        st.sampled_from(AGENT_FOLDERS),
        st.sampled_from(_NAMES),
        st.sampled_from(_NAMES),
    ),
    st.tuples(st.just("skill"), _folders, st.sampled_from(_NAMES), st.sampled_from(_NAMES)),
    st.tuples(st.just("pyvenv"), _folders),
    st.tuples(st.just("link-in"), _folders, st.sampled_from(AGENT_FOLDERS), _folders),
    st.tuples(st.just("link-out"), _folders, st.sampled_from(AGENT_FOLDERS)),
    st.tuples(st.just("locked"), _folders),
)
_trees = st.lists(_actions, min_size=1, max_size=8)

# A small depth bound, so that drawn trees reach it.
_DEPTH = 4


def _build(base: Path, actions: list[tuple[str, ...]]) -> tuple[Path, list[str]]:
    """The workspace ``base/ws`` (and an outside tree ``base/outside``) for ``actions``;
    the SKILL.md files placed directly in an agent root, as workspace paths."""
    workspace = base / "ws"
    workspace.mkdir()
    outside = base / "outside"
    skill(outside / "skills", "leak", name="Leak")
    placed: list[str] = []
    for action in actions:
        kind, folder = action[0], action[1]
        where = workspace / folder if folder else workspace
        try:
            if kind == "agent-skill":
                _, _, agent, directory, name = action
                skill(where / agent / "skills", directory, name)
                placed.append(
                    os.path.relpath(where / agent / "skills" / directory / SKILL_FILE, workspace)
                )
            elif kind == "skill":
                _, _, directory, name = action
                skill(where, directory, name)
            elif kind == "pyvenv":
                where.mkdir(parents=True, exist_ok=True)
                (where / "pyvenv.cfg").write_text("home = /usr\n")
            elif kind == "link-in":
                _, _, agent, target = action
                (where / agent).mkdir(parents=True, exist_ok=True)
                (workspace / target).mkdir(parents=True, exist_ok=True)
                os.symlink(
                    os.path.relpath(workspace / target, where / agent), where / agent / "skills"
                )
            elif kind == "link-out":
                _, _, agent = action
                (where / agent).mkdir(parents=True, exist_ok=True)
                os.symlink(outside / "skills", where / agent / "skills")
            else:  # locked: a folder named "locked" that cannot be listed
                (where / "locked").mkdir(parents=True, exist_ok=True)
        except OSError:
            continue  # a drawn action that collides with an earlier one
    return workspace, placed


def _loaded(workspace: Path, nested: bool) -> set[str]:
    """Real paths of every SKILL.md ``catalog`` (``--nested``) reads: listed, or skipped
    with its path (bad frontmatter, a second package of one name)."""
    try:
        found = scan_workspace(str(workspace), [], "skip", Progress(), nested=nested)
    except DefinitionError:
        return set()  # catalog fails (a default root linked out of the workspace): lists none
    documents = {item.path for item in found.scan.items}
    documents |= {
        d.path
        for d in found.scan.diagnostics
        if d.path.endswith("/" + SKILL_FILE)
        and (d.code == "skill_frontmatter_skipped" or d.reason == "duplicate_name")
    }
    return {os.path.realpath(os.path.join(workspace, d.lstrip("/"))) for d in documents}


def check_superset(actions: list[tuple[str, ...]]) -> None:
    """Lint reads every SKILL.md catalog (plain and ``--nested``) reads, and every skill
    placed directly in an agent root is read by lint or below a finding that says why not."""
    with tempfile.TemporaryDirectory() as base:
        workspace, placed = _build(Path(base), actions)
        linter = _Linter(Progress())
        run_blocking(linter.workspace(str(workspace), []))
        missed = (_loaded(workspace, False) | _loaded(workspace, True)) - linter.seen
        assert not missed, (missed, linter.findings)
        said = [
            os.path.normpath(f.path)
            for f in linter.findings
            if f.severity == "error" and f.rule in _UNCHECKED_RULES
        ]
        for document in placed:
            real = os.path.realpath(workspace / document)
            parts = document.split("/")
            if real in linter.seen or set(parts[:-3]) & SKIPPED_FOLDERS:
                continue
            if not real.startswith(str(workspace) + "/") or "locked" in parts:
                continue  # through a link elsewhere, or below a folder no one can list
            assert any(str(workspace / document).startswith(path + "/") for path in said), (
                document,
                linter.findings,
            )


# What lint says about a part of the tree it could not check.
_UNCHECKED_RULES = frozenset(
    {"skill_root_overflow", "skill_permission_denied", "skill_provider_failed"}
)


@pytest.fixture
def small_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workspace_module, "WALK_DEPTH", _DEPTH)
    monkeypatch.setattr(BlockingLocalFileOperator, "list_directory", _refusing("locked"))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_trees)
def test_lint_checks_a_superset_of_what_catalog_lists(small_walk: None, actions: list) -> None:  # type: ignore[type-arg]
    check_superset(actions)


@settings(max_examples=10)
@given(_trees)
def test_lint_checks_a_superset_at_the_real_depth_bound(actions: list) -> None:  # type: ignore[type-arg]
    check_superset(actions)


async def _old_walk(files: LocalFileOperator, **_: object) -> WorkspaceWalk:
    """The walk lint had before: the first listing of every folder, no link followed, a
    folder holding pyvenv.cfg not entered, a skill folder's content not looked at, a
    refused folder and the depth bound dropped without a word."""
    roots: set[str] = set()
    level = ["/"]
    for depth in range(8 + 1):
        following: list[str] = []
        for folder in level:
            try:
                listing = sorted(await files.list_directory(folder), key=lambda e: e.name)
            except FilePermissionDenied:
                continue
            names = {entry.name for entry in listing}
            if folder in (*(f"/{a}/skills" for a in AGENT_FOLDERS[:3]), *LAYOUT_ROOTS):
                roots.add(folder)
            if SKILL_FILE in names and folder != "/":
                roots.add(folder.rsplit("/", 1)[0] or "/")
                continue
            if SKILL_FILE in names:
                roots.add("/")
            if "pyvenv.cfg" in names or depth == 8:
                continue
            following.extend(
                f"{folder.rstrip('/')}/{entry.name}"
                for entry in listing
                if entry.kind == "directory" and entry.name not in SKIPPED_FOLDERS
            )
        level = following
    return WorkspaceWalk((), tuple(sorted(roots)), (), (), ())


def test_negative_control_the_walk_lint_had_fails_the_property(
    small_walk: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lint_module, "walk_workspace", _old_walk)
    property_fails(
        settings(control_settings, suppress_health_check=[HealthCheck.function_scoped_fixture])(
            given(_trees)(check_superset)
        )
    )


@pytest.mark.parametrize(
    "actions",
    [
        [("pyvenv", ".agents"), ("agent-skill", "", ".agents", "a", "a")],
        [("link-in", "", ".agents", ".venv/skills"), ("skill", ".venv/skills", "a", "a")],
        [("agent-skill", "/".join(["deep"] * 10), ".claude", "a", "a")],
    ],
)
def test_negative_control_each_reported_case_fails_the_old_walk(
    small_walk: None,
    monkeypatch: pytest.MonkeyPatch,
    actions: list,  # type: ignore[type-arg]
) -> None:
    check_superset(actions)  # the walk of today passes
    monkeypatch.setattr(lint_module, "walk_workspace", _old_walk)
    with pytest.raises(AssertionError):
        check_superset(actions)
