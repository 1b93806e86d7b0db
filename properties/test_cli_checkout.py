"""The command line on checkouts as users have them (docs/contract.md §8).

One shared workspace discovery for ``catalog``, ``manifest`` and ``lint``: checkout mode
(skip and keep going, list to exhaustion), the documented default roots, ``--root`` as
users type it, ``--nested``, lint's bounded workspace walk, and a "no skills found"
notice that is never silent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.manifest import decode_manifest
from a13n_harness.context.render import catalog_allowance, render_catalog
from cli_run import run_here


def run(*args: str | os.PathLike[str], cwd: Path | None = None):  # type: ignore[no-untyped-def]
    return run_here(*args, cwd=cwd)


def skill(root: Path, folder: str, name: str | None = None, description: str = "d") -> Path:
    package = root / folder
    package.mkdir(parents=True, exist_ok=True)
    (package / "SKILL.md").write_text(
        f"---\nname: {name or folder}\ndescription: {description}\n---\n# {folder}\n"
    )
    return package


# ------------------------------------------------------------- the seed's scenario


def test_300_skills_and_one_broken_skill_in_one_root(tmp_path: Path) -> None:
    """The checkout seed's headline scenario through the command line: 300 skills with
    1,000-byte descriptions plus one broken skill in one root, a 200K/16K model."""
    root = tmp_path / ".agents" / "skills"
    descriptions = {}
    for index in range(300):
        name = f"skill-{index:03d}"
        descriptions[name] = (f"{name} " + "x" * 1_000)[:1_000]
        skill(root, name, description=descriptions[name])
    broken = root / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: [unclosed\n---\n")
    result = run("catalog", tmp_path, "--context-tokens", "200000", "--reserve-tokens", "16000")
    assert result.returncode == 0, result.stderr
    allowance = catalog_allowance(200_000, 16_000)
    catalog = SkillCatalog(
        tuple(
            CatalogEntry(name, descriptions[name], f".agents/skills/{name}/SKILL.md")
            for name in sorted(descriptions)
        ),
        0,
        (".agents/skills",),
    )
    expected = render_catalog(catalog, allowance)
    assert result.stdout.decode() == expected.text
    assert 0 < expected.listed < 300  # a strict prefix...
    assert expected.omitted == 300 - expected.listed  # ...and the exact omitted count
    listed = [line for line in expected.text.splitlines() if line.startswith("- ")]
    assert listed == sorted(listed)  # in name order
    assert f"{expected.omitted} more" in expected.text or str(expected.omitted) in expected.text
    warnings = [line for line in result.stderr.decode().splitlines() if "warning" in line]
    assert len(warnings) == 1
    assert "broken/SKILL.md" in warnings[0]
    assert "skill_frontmatter_skipped" in warnings[0]
    summary = result.stderr.decode().splitlines()[-1]
    assert summary.startswith(f"listed={expected.listed} omitted={expected.omitted} total=300 ")


def test_more_than_512_skills_are_one_catalog(tmp_path: Path) -> None:
    for index in range(600):
        skill(tmp_path / "skills", f"s-{index:03d}")
    result = run("catalog", tmp_path, "--root", "skills", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert len(document["skills"]) == 600


# --------------------------------------------------- one escaping link among five


def _five_and_a_link(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    root = workspace / ".claude" / "skills"
    for name in ("a", "b", "d"):
        skill(root, name)
    skill(root, "e", name="Bad-Name")  # lint: a real error that must not be hidden
    skill(tmp_path / "dotfiles", "c")
    os.symlink(tmp_path / "dotfiles" / "c", root / "c")
    return workspace


def test_catalog_skips_one_escaping_link_and_lists_the_rest(tmp_path: Path) -> None:
    workspace = _five_and_a_link(tmp_path)
    result = run("catalog", workspace, "--invalid", "skip", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert [s["name"] for s in document["skills"]] == ["a", "b", "d"]
    assert {(d["path"], d["reason"]) for d in document["diagnostics"]} >= {
        (".claude/skills/c", "link_escapes"),
        (".claude/skills/e/SKILL.md", "name_invalid"),
    }
    text = run("catalog", workspace)
    assert text.returncode == 0
    warnings = [line for line in text.stderr.decode().splitlines() if "warning" in line]
    assert any(".claude/skills/c: skill_entry_skipped" in line for line in warnings)
    assert run("catalog", workspace, "--invalid", "error").returncode == 1
    # manifest shares the discovery.
    manifest = run("manifest", workspace)
    assert manifest.returncode == 0, manifest.stderr
    names = [e.name for e in decode_manifest(manifest.stdout).skill_catalog.entries]
    assert names == ["a", "b", "d"]


def test_four_skills_and_one_escaping_link(tmp_path: Path) -> None:
    """The issue's case as written: five entries, one a link out of the workspace."""
    workspace = tmp_path / "ws"
    for name in ("a", "b", "d", "e"):
        skill(workspace / ".claude" / "skills", name)
    skill(tmp_path / "dotfiles", "c")
    os.symlink(tmp_path / "dotfiles" / "c", workspace / ".claude" / "skills" / "c")
    result = run("catalog", workspace, "--invalid", "skip")
    assert result.returncode == 0
    listed = [line for line in result.stdout.decode().splitlines() if line.startswith("- ")]
    assert [line.split(":")[0] for line in listed] == ["- a", "- b", "- d", "- e"]
    warnings = [line for line in result.stderr.decode().splitlines() if "warning" in line]
    assert warnings == [
        "a13n-skills: warning: "
        + str(workspace / ".claude/skills/c")
        + ": skill_entry_skipped: SKILL.md is refused: symbolic link leads outside the root"
    ]


def test_lint_reports_every_other_skills_findings_past_an_escaping_link(tmp_path: Path) -> None:
    workspace = _five_and_a_link(tmp_path)
    result = run("lint", cwd=workspace)
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith(".claude/skills/c/SKILL.md:1:1: error: skill_permission_denied: ")
    assert any(
        line.startswith(".claude/skills/e/SKILL.md:2:7: error: skill_name_invalid: ")
        for line in lines
    )
    assert lines[-1].endswith("in 4 skills")


# ------------------------------------------------------------------ roots as typed


@pytest.mark.parametrize(
    "typed", ["skills", "skills/", "./skills", "./skills/", "/skills", "/skills/", "x/../skills"]
)
def test_a_root_as_users_type_it(tmp_path: Path, typed: str) -> None:
    skill(tmp_path / "skills", "a")
    expected = run("catalog", tmp_path, "--root", "/skills")
    assert expected.returncode == 0
    for cwd, workspace in ((tmp_path, "."), (tmp_path.parent, tmp_path.name)):
        result = run("catalog", workspace, "--root", typed, cwd=cwd)
        assert (result.returncode, result.stdout) == (0, expected.stdout), result.stderr


def test_a_host_path_inside_the_workspace_is_a_root(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "a")
    expected = run("catalog", tmp_path, "--root", "/skills")
    typed_forms = (
        str(tmp_path / "skills"),
        f"{tmp_path}/skills/",
        str(tmp_path.resolve() / "skills"),
    )
    for typed in typed_forms:
        result = run("catalog", tmp_path, "--root", typed)
        assert (result.returncode, result.stdout) == (0, expected.stdout), result.stderr
    whole = run("catalog", tmp_path / "skills", "--root", str(tmp_path / "skills"))
    assert whole.returncode == 0
    assert b"- a:" in whole.stdout


@pytest.mark.parametrize("typed", ["..", "../x", "skills/../../x", "./../ws"])
def test_a_root_outside_the_workspace_is_refused_as_given(tmp_path: Path, typed: str) -> None:
    workspace = tmp_path / "ws"
    skill(workspace / "skills", "a")
    skill(tmp_path / "x", "leak")
    result = run("catalog", workspace, "--root", typed)
    assert result.returncode == 1
    (line,) = result.stderr.decode().splitlines()
    assert line.startswith(f"a13n-skills: skill_root_invalid: {typed}: --root {typed!r} ")
    assert b"leak" not in result.stdout


def test_a_host_path_elsewhere_names_nothing_in_the_workspace(tmp_path: Path) -> None:
    """An existing folder outside WORKSPACE is outside (``skill_root_invalid``), not missing;
    a host path that exists nowhere is missing. Neither is read."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    skill(tmp_path / "other" / "skills", "leak")
    typed = str(tmp_path / "other" / "skills")
    result = run("catalog", workspace, "--root", typed)
    assert result.returncode == 1
    (line,) = result.stderr.decode().splitlines()
    assert line.startswith(f"a13n-skills: skill_root_invalid: {typed}: --root {typed!r} ")
    assert "outside_workspace" in line
    assert b"leak" not in result.stdout
    nowhere = str(tmp_path / "nowhere" / "skills")
    result = run("catalog", workspace, "--root", nowhere)
    (line,) = result.stderr.decode().splitlines()
    assert line.startswith(f"a13n-skills: skill_root_missing: {nowhere}: --root {nowhere!r}: ")


# --------------------------------------------------- default roots, never silent


def test_github_skills_is_a_default_root(tmp_path: Path) -> None:
    skill(tmp_path / ".github" / "skills", "g")
    result = run("catalog", tmp_path, "--json")
    document = json.loads(result.stdout)
    assert [s["name"] for s in document["skills"]] == ["g"]
    assert document["no_skills_found"] is None


def test_no_skills_found_is_said_on_stderr_and_in_json(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "a")  # not a default root: catalog finds nothing
    for command in (("catalog",), ("catalog", "--json"), ("manifest",)):
        result = run(*command, tmp_path)
        assert result.returncode == 0
        notices = [
            line
            for line in result.stderr.decode().splitlines()
            if line.startswith("a13n-skills: warning: no_skills_found: ")
        ]
        assert len(notices) == 1, (command, result.stderr)
        assert ".agents/skills/, .claude/skills/, .github/skills/" in notices[0]
        assert "--root" in notices[0]
    document = json.loads(run("catalog", tmp_path, "--json").stdout)
    assert "no skills found" in document["no_skills_found"]
    explicit = run("catalog", tmp_path, "--root", "skills")
    assert b"no_skills_found" not in explicit.stderr


# ----------------------------------------------------------------------- --nested


def test_nested_finds_agent_roots_in_subfolders(tmp_path: Path) -> None:
    skill(tmp_path / ".agents" / "skills", "top")
    skill(tmp_path / "pkg" / "sub" / ".agents" / "skills", "deep")
    skill(tmp_path / "a" / "b" / "c" / ".claude" / "skills", "third")
    skill(tmp_path / "node_modules" / "dep" / ".agents" / "skills", "dependency")
    skill(tmp_path / ".venv" / ".agents" / "skills", "venv")
    plain = json.loads(run("catalog", tmp_path, "--json").stdout)
    assert [s["name"] for s in plain["skills"]] == ["top"]
    nested = json.loads(run("catalog", tmp_path, "--nested", "--json").stdout)
    assert [s["name"] for s in nested["skills"]] == ["deep", "third", "top"]
    assert "pkg/sub/.agents/skills" in nested["roots"]
    manifest = run("manifest", tmp_path, "--nested")
    names = [e.name for e in decode_manifest(manifest.stdout).skill_catalog.entries]
    assert names == ["deep", "third", "top"]


# ---------------------------------------------------------------- lint's walk


def test_lint_finds_skills_however_the_repository_lays_them_out(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "plain")
    skill(tmp_path / "skills" / ".curated", "curated")
    skill(tmp_path / "plugins" / "one" / "skills", "plugged")
    skill(tmp_path / "plugins" / "two" / "skills", "also-plugged")
    skill(tmp_path / "scientific-skills", "science")
    skill(tmp_path / "pkg" / "mod" / ".agents" / "skills", "nested")
    skill(tmp_path / "node_modules" / "dep" / "skills", "Dependency")  # skipped: bad name
    skill(tmp_path / "venv-here", "Venv")  # a virtual environment: skipped
    (tmp_path / "venv-here" / "pyvenv.cfg").write_text("home = /usr\n")
    skill(tmp_path / ".git" / "skills", "Git")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text("docs")
    (tmp_path / "scientific-skills" / "assets").mkdir()  # beside skill folders: no finding
    skill(tmp_path, "template")  # anthropics/skills: a skill at the top makes / a root
    result = run("lint", "--format", "json", cwd=tmp_path)
    document = json.loads(result.stdout)
    assert document["findings"] == [], document["findings"]
    assert document["summary"]["skills"] == 7
    assert result.returncode == 0
    # In a conventional root, a folder without SKILL.md is still worth a warning.
    (tmp_path / "skills" / "forgot").mkdir()
    (tmp_path / "skills" / "forgot" / "skill.md").write_text("lower case")
    findings = json.loads(run("lint", "--format", "json", cwd=tmp_path).stdout)["findings"]
    assert [(f["path"], f["rule"]) for f in findings] == [("skills/forgot", "skill_entry_skipped")]


def test_lint_path_may_be_a_folder_of_skill_folders(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        skill(tmp_path / "scientific-skills", name)
    result = run("lint", "scientific-skills", cwd=tmp_path)
    assert result.returncode == 0, result.stdout
    assert result.stdout.decode().splitlines()[-1] == "0 errors, 0 warnings in 3 skills"


def test_lint_same_file_twice_is_one_skill_without_override(tmp_path: Path) -> None:
    skill(tmp_path / ".agents" / "skills", "x")
    (tmp_path / ".claude" / "skills").mkdir(parents=True)
    os.symlink("../../.agents/skills/x", tmp_path / ".claude" / "skills" / "x")
    skill(tmp_path / ".claude" / "skills", "y")
    skill(tmp_path / ".agents" / "skills", "y", description="another y")
    result = run("lint", cwd=tmp_path)
    lines = result.stdout.decode().splitlines()
    overridden = [line for line in lines if "skill_overridden" in line]
    assert len(overridden) == 1
    assert ".agents/skills/y/SKILL.md" in overridden[0]
    assert lines[-1] == "0 errors, 1 warning in 3 skills"


def test_lint_walk_never_leaves_the_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    skill(workspace / "skills", "inside")
    skill(tmp_path / "outside" / "skills", "Outside")
    os.symlink(tmp_path / "outside", workspace / "linked")
    result = run("lint", cwd=workspace)
    assert result.returncode == 0, result.stdout
    assert b"Outside" not in result.stdout
    assert result.stdout.decode().splitlines()[-1] == "0 errors, 0 warnings in 1 skill"


# ------------------------------------------------------ the walk's depth bound, exactly


def _walk(root: Path, depth: int):  # type: ignore[no-untyped-def]
    from a13n_harness.cli._workspace import walk_workspace  # noqa: PLC0415
    from a13n_harness.environment.local import (  # noqa: PLC0415
        BlockingLocalFileOperator,
        run_blocking,
    )

    with BlockingLocalFileOperator(root) as files:
        return run_blocking(walk_workspace(files, depth=depth))


def _chain(root: Path, prefix: str, levels: int) -> Path:
    return root.joinpath(*(f"{prefix}{index}" for index in range(levels)))


@pytest.mark.parametrize("bound", [1, 2, 5])
def test_the_walk_lists_folders_down_to_its_bound_and_reports_the_first_level_past_it(
    tmp_path: Path, bound: int
) -> None:
    """A walk bounded at ``bound`` levels lists every folder ``bound`` levels down (an agent
    root held there is found, a skill folder there makes its parent a root) and nothing below;
    the first folder below is named in one ``workspace_depth`` problem. A tree exactly
    ``bound`` levels deep has no problem at all."""
    exact = tmp_path / "exact"
    (_chain(exact, "d", bound)).mkdir(parents=True)
    (_chain(exact, "d", bound) / "notes.txt").write_text("x")
    assert [problem.reason for problem in _walk(exact, bound).problems] == []
    at = tmp_path / "at"
    skill(_chain(at, "a", bound) / ".claude" / "skills", "x")  # the root's folder: bound deep
    skill(_chain(at, "e", bound - 1), "y")  # the skill folder itself: bound deep
    walked = _walk(at, bound)
    assert walked.agent_roots == (
        "/" + "/".join([f"a{i}" for i in range(bound)] + [".claude/skills"]),
    )
    assert walked.layout_roots == ("/" + "/".join(f"e{i}" for i in range(bound - 1)),)
    past = tmp_path / "past"
    skill(_chain(past, "a", bound + 1) / ".claude" / "skills", "x")
    skill(_chain(past, "e", bound), "y")
    walked = _walk(past, bound)
    assert (walked.agent_roots, walked.layout_roots) == ((), ())
    (problem,) = walked.problems
    assert problem.reason == "workspace_depth"
    assert problem.path == "/" + "/".join(f"a{i}" for i in range(bound + 1))
