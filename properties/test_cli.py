"""The ``a13n-skills`` command end to end (docs/contract.md §8), run as a subprocess
(usage, help and render-manifest's exact outputs, the command's own decisions, in process).

Every command, its ``--help``, and bad input: a manifest that is not JSON, an
unreadable workspace, a git that hangs, no git at all, thousands of changes,
paths with newlines. Bad input ends in exit 1 with one line
``a13n-skills: <code>: <message>`` on stderr and never a traceback; usage
errors exit 2.
"""

from __future__ import annotations

import datetime
import json
import os
import pty
import shutil
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from a13n_harness.cli import main
from a13n_harness.context.manifest import decode_manifest, encode_manifest
from a13n_harness.context.render import catalog_allowance, render_catalog
from bounded import run_bounded
from cli_run import DEMO, cli_environment, one_error_line, run_cli, run_here

DEMO_MANIFEST = DEMO.parent / "demo-manifest.json"
COMMANDS = ("catalog", "lint", "env", "manifest", "render-manifest")

# This module runs the command as ``python -m a13n_harness.cli``; test_cli_streams.py
# runs the installed console script.
run = partial(run_cli, via="module")


_GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main")


def git(cwd: Path, *args: str) -> None:
    run_bounded(
        [*_GIT, *args],
        cpu_seconds=60,
        cwd=cwd,
        env=cli_environment(),
        check=True,
        capture_output=True,
    )


def fake_git(directory: Path, body: str) -> Path:
    directory.mkdir()
    script = directory / "git"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return directory


def skill(root: Path, folder: str, text: str) -> Path:
    package = root / folder
    package.mkdir(parents=True)
    (package / "SKILL.md").write_text(text)
    return package


# ------------------------------------------------------------------- usage


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command: str) -> None:
    result = run_here(command, "--help")
    assert result.returncode == 0
    assert result.stdout.decode().startswith(f"usage: a13n-skills {command}")


def test_top_level_help_lists_every_command() -> None:
    result = run_here("--help")
    assert result.returncode == 0
    for command in COMMANDS:
        assert command in result.stdout.decode()


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("nonsense",),
        ("render-manifest",),
        ("render-manifest", "x.json", "--budget-bytes", "-1"),
        ("render-manifest", "x.json", "--budget-bytes", "ten"),
        ("render-manifest", "x.json", "--budget-bytes", "1", "--context-tokens", "5"),
        ("catalog", "--invalid", "maybe"),
        ("lint", "--format", "xml"),
        ("env", "--git-timeout", "0"),
        ("manifest", "--max-bytes", "1e9"),
    ],
)
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    result = run_here(*args)
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"usage: a13n-skills" in result.stderr


def test_main_in_process_returns_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert main(["lint", "--format", "xml"]) == 2
    assert main(["render-manifest", str(DEMO_MANIFEST), "--budget-bytes", "60"]) == 0
    captured = capsys.readouterr()
    assert captured.out.endswith(".agents/skills/ and .claude/skills/ have 6 skills\n")


# -------------------------------------------------------------------- env


def _block_lines(result: subprocess.CompletedProcess[bytes]) -> list[str]:
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    assert text.endswith("</environment_context>\n")
    return text.splitlines()


def _today_utc() -> set[str]:
    now = datetime.datetime.now(datetime.UTC)
    return {now.date().isoformat(), (now + datetime.timedelta(seconds=5)).date().isoformat()}


def test_env_in_a_git_repository_exact_block(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("a")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "a")
    (repo / "a.txt").write_text("b")
    (repo / "new").write_text("n")
    today = _today_utc()
    lines = _block_lines(run("env", repo, env={"SHELL": "/usr/bin/zsh", "TZ": "UTC"}))
    assert lines[4] in {f"  <current_date>{day}</current_date>" for day in today}
    del lines[4]
    assert lines == [
        "<environment_context>",
        f"  <cwd>{repo}</cwd>",
        "  <shell>zsh</shell>",
        f"  <os>{__import__('platform').system().lower()}</os>",
        "  <timezone>UTC</timezone>",
        "  <git_status>branch main, 0 ahead, 0 behind; "
        "0 staged, 1 unstaged, 1 untracked, 0 conflicted, 0 renamed</git_status>",
        "</environment_context>",
    ]


def test_env_json_has_the_manifest_shape(tmp_path: Path) -> None:
    result = run("env", tmp_path, "--json", env={"SHELL": "/bin/sh", "TZ": "Europe/Paris"})
    assert result.returncode == 0
    facts = json.loads(result.stdout)
    assert sorted(facts) == ["current_date", "cwd", "git", "os", "shell", "timezone"]
    assert (facts["cwd"], facts["shell"], facts["timezone"], facts["git"]) == (
        str(tmp_path),
        "sh",
        "Europe/Paris",
        None,
    )


def test_env_outside_a_repository(tmp_path: Path) -> None:
    lines = _block_lines(run("env", tmp_path))
    assert lines[6] == "  <git_status>not a git repository</git_status>"


def test_env_with_a_hanging_git_times_out_and_still_succeeds(tmp_path: Path) -> None:
    sleep = shutil.which("sleep")
    assert sleep is not None
    # The child holds git's stdout and leaves a marker after 20 s: a command that waited for
    # git (no timeout, or only git killed) returns after the marker, one that killed the
    # group at 0.5 s never sees it. No clock is read.
    marker = tmp_path / "slept"
    bin_dir = fake_git(tmp_path / "bin", f"({sleep} 20 && : > {marker}) &\nexec {sleep} 20")
    checkout = tmp_path / "checkout"  # a checkout, so that git is run at all
    for part in ("objects", "refs/heads"):
        (checkout / ".git" / part).mkdir(parents=True)
    (checkout / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    result = run("env", checkout, "--git-timeout", "0.5", env={"PATH": str(bin_dir)})
    assert not marker.exists(), "the command waited for git instead of killing it"
    assert _block_lines(result)[6] == "  <git_status>not a git repository</git_status>"


def test_env_with_no_git_on_path(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result = run("env", tmp_path, env={"PATH": str(empty)})
    assert _block_lines(result)[6] == "  <git_status>not a git repository</git_status>"


def test_env_with_thousands_of_changes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for index in range(1_500):
        (repo / f"tracked {index}").write_text("a")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "many")
    for index in range(1_500):
        (repo / f"tracked {index}").write_text("b")
        (repo / f"new\n{index}").write_text("n")
    lines = _block_lines(run("env", repo))
    assert lines[6] == (
        "  <git_status>branch main, 0 ahead, 0 behind; "
        "0 staged, 1500 unstaged, 1500 untracked, 0 conflicted, 0 renamed</git_status>"
    )


def test_env_path_with_newlines_and_tags_stays_framed(tmp_path: Path) -> None:
    hostile = tmp_path / "a\nb<cwd>&\u2028"
    hostile.mkdir()
    lines = _block_lines(run("env", hostile))
    assert len(lines) == 8
    assert lines[1] == f"  <cwd>{tmp_path}/a&#xA;b&lt;cwd&gt;&amp;&#x2028;</cwd>"


def test_env_of_a_missing_directory_is_an_error(tmp_path: Path) -> None:
    line = one_error_line(run("env", tmp_path / "missing"))
    assert line == f"a13n-skills: path_not_found: {tmp_path / 'missing'}: no such directory"


# -------------------------------------------------------- render-manifest


def test_render_manifest_demo_default_budget() -> None:
    result = run_here("render-manifest", DEMO_MANIFEST)
    assert result.returncode == 0
    manifest = decode_manifest(DEMO_MANIFEST.read_bytes())
    expected = render_catalog(manifest.skill_catalog, catalog_allowance(200_000, 16_000))
    assert result.stdout.decode() == expected.text
    assert expected.form == "listing"
    assert result.stderr.decode() == "listed=6 omitted=0 total=6 bytes=2184 budget=9200\n"


@pytest.mark.parametrize(
    ("options", "stdout", "summary"),
    [
        (
            ("--budget-bytes", "60"),
            ".agents/skills/ and .claude/skills/ have 6 skills\n",
            "listed=0 omitted=6 total=6 bytes=50 budget=60",
        ),
        (("--budget-bytes", "10"), "", "listed=0 omitted=6 total=6 bytes=0 budget=10"),
        (
            ("--context-tokens", "8192", "--reserve-tokens", "1024"),
            "<skills_instructions>\n"
            "## Skills\n"
            "A skill is a folder of instructions with a SKILL.md file. "
            "Read a listed skill's SKILL.md before you use it.\n"
            "6 more skills not listed.\n"
            "6 skills available (list .agents/skills/ and .claude/skills/ to see all)\n"
            "</skills_instructions>\n",
            "listed=0 omitted=6 total=6 bytes=262 budget=358",
        ),
    ],
)
def test_render_manifest_exact_outputs(options: tuple[str, ...], stdout: str, summary: str) -> None:
    result = run_here("render-manifest", DEMO_MANIFEST, *options)
    assert result.returncode == 0
    assert result.stdout.decode() == stdout
    assert result.stderr.decode() == summary + "\n"


def test_render_manifest_from_stdin_with_environment() -> None:
    result = run("render-manifest", "-", "--environment", stdin=DEMO_MANIFEST.read_bytes())
    assert result.returncode == 0
    text = result.stdout.decode()
    assert text.startswith("<environment_context>\n  <cwd>/workspace</cwd>\n")
    assert "</environment_context>\n<skills_instructions>\n" in text


def test_render_manifest_not_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"this is not json\n")
    assert one_error_line(run("render-manifest", bad)).startswith("a13n-skills: manifest_invalid: ")


@pytest.mark.parametrize(
    ("content", "prefix"),
    [
        (b"\xff\xfe{}", "a13n-skills: manifest_invalid: "),
        (b"[" * 2_000_000, "a13n-skills: manifest_invalid: "),
        (b" " * 1_100_000, "a13n-skills: manifest_invalid: "),
        (
            b'{"environment":null,"skill_catalog":{"roots":[],"skills":[{"description":"d",'
            b'"file":"f","name":"a"}],"unlisted":18446744073709551615},"version":1}',
            "a13n-skills: catalog_total_unrepresentable: ",
        ),
    ],
    ids=["not_utf8", "json_array_2M_deep", "oversize_1_1MB", "total_past_u64"],
)
def test_render_manifest_hostile_files(tmp_path: Path, content: bytes, prefix: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    assert one_error_line(run("render-manifest", bad)).startswith(prefix)


def test_render_manifest_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    assert one_error_line(run("render-manifest", missing)) == (
        f"a13n-skills: path_not_found: {missing}: No such file or directory"
    )
    assert one_error_line(run("render-manifest", tmp_path)) == (
        f"a13n-skills: path_is_a_directory: {tmp_path}: Is a directory"
    )


# -------------------------------------------------------------- manifest


def test_demo_manifest_is_canonical_and_matches_the_demo_workspace() -> None:
    """The checked-in demo manifest re-encodes byte for byte and lists the demo's scan."""
    data = DEMO_MANIFEST.read_bytes()
    assert encode_manifest(decode_manifest(data)) == data
    result = run("manifest", DEMO)
    assert result.returncode == 0
    scanned = decode_manifest(result.stdout)
    assert scanned.skill_catalog == decode_manifest(data).skill_catalog
    assert scanned.environment is not None
    assert scanned.environment.cwd == str(DEMO)


def test_manifest_to_file_equals_stdout(tmp_path: Path) -> None:
    target = tmp_path / "m.json"
    to_file = run("manifest", DEMO, "-o", target, env={"TZ": "UTC"})
    to_stdout = run("manifest", DEMO, env={"TZ": "UTC"})
    assert to_file.returncode == to_stdout.returncode == 0
    assert to_file.stdout == b""
    assert target.read_bytes() == to_stdout.stdout
    assert to_file.stderr.decode().splitlines()[-1].startswith("listed=6 unlisted=0 bytes=")


def test_manifest_max_bytes_lists_a_prefix(tmp_path: Path) -> None:
    full = run("manifest", DEMO).stdout
    result = run("manifest", DEMO, "--max-bytes", str(len(full) - 1))
    manifest = decode_manifest(result.stdout)
    assert len(result.stdout) <= len(full) - 1
    assert (len(manifest.skill_catalog.entries), manifest.skill_catalog.unlisted) == (5, 1)
    line = one_error_line(run("manifest", DEMO, "--max-bytes", "10", "--invalid", "skip"))
    assert line.startswith("a13n-skills: manifest_invalid: ")


def test_manifest_unwritable_output(tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "m.json"
    assert one_error_line(run("manifest", DEMO, "-o", target)) == (
        f"a13n-skills: path_not_found: {target}: No such file or directory"
    )


# --------------------------------------------------------------- catalog


def test_catalog_of_the_demo_workspace() -> None:
    result = run("catalog", DEMO)
    assert result.returncode == 0
    lines = result.stdout.decode().splitlines()
    assert lines[:3] == [
        "<skills_instructions>",
        "## Skills",
        "A skill is a folder of instructions with a SKILL.md file. "
        "Read a listed skill's SKILL.md before you use it.",
    ]
    assert [line.split(":", 1)[0] for line in lines[3:9]] == [
        "- api-documentation",
        "- code-review",
        "- commit-messages",
        "- db-migrations",
        "- pdf-forms",
        "- release-notes",
    ]
    assert lines[6].endswith("index… (file: .claude/skills/db-migrations/SKILL.md)")
    assert lines[8].endswith("(file: .claude/skills/release-notes/SKILL.md)")
    assert lines[9:] == [
        "6 skills available (list .agents/skills/ and .claude/skills/ to see all)",
        "</skills_instructions>",
    ]
    stderr = result.stderr.decode().splitlines()
    assert stderr[-1] == "listed=6 omitted=0 total=6 bytes=2184 budget=9200"
    assert (
        f"a13n-skills: warning: {DEMO}/.agents/skills/broken-frontmatter/SKILL.md:4:1: "
        "skill_frontmatter_skipped: duplicate key 'name'"
    ) in stderr
    assert "\r" not in result.stderr.decode()  # no progress when stderr is not a terminal


def test_catalog_equals_rendering_the_demo_manifest() -> None:
    """Two commands' decisions compared, in this process (``run_here``): twelve runs."""
    for budget in ("0", "60", "400", "700", "2183", "2184"):
        catalog = run_here("catalog", DEMO, "--budget-bytes", budget)
        rendered = run_here("render-manifest", DEMO_MANIFEST, "--budget-bytes", budget)
        assert catalog.stdout == rendered.stdout
        assert catalog.stderr.splitlines()[-1] == rendered.stderr.splitlines()[-1]


def test_catalog_json(tmp_path: Path) -> None:
    result = run("catalog", DEMO, "--json", "--budget-bytes", "700")
    document = json.loads(result.stdout)
    assert document["rendering"]["form"] == "listing"
    assert (document["rendering"]["listed"], document["rendering"]["omitted"]) == (2, 4)
    assert document["roots"] == [
        ".agents/skills",
        ".claude/skills",
        ".github/skills",
        ".gemini/skills",
        ".cursor/skills",
        ".codex/skills",
    ]
    assert [s["name"] for s in document["skills"]][:2] == ["api-documentation", "code-review"]
    assert {d["code"] for d in document["diagnostics"]} >= {
        "skill_frontmatter_skipped",
        "skill_description_truncated",
        "skill_name_mismatch",
    }


def test_catalog_invalid_error_fails_with_position() -> None:
    assert one_error_line(run("catalog", DEMO, "--invalid", "error")) == (
        "a13n-skills: skill_frontmatter_invalid: /.agents/skills/broken-frontmatter/SKILL.md:4:1: "
        "duplicate key 'name' (duplicate_key)"
    )


def test_catalog_explicit_root_is_required(tmp_path: Path) -> None:
    line = one_error_line(run("catalog", tmp_path, "--root", "/skills"))
    assert line.startswith("a13n-skills: skill_root_missing: /skills: ")
    # A root as users type it is read in the workspace; one outside it is refused as typed.
    line = one_error_line(run("catalog", tmp_path, "--root", "skills/"))
    assert line.startswith("a13n-skills: skill_root_missing: skills/: --root 'skills/': ")
    line = one_error_line(run("catalog", tmp_path, "--root", "../skills"))
    assert line.startswith("a13n-skills: skill_root_invalid: ../skills: --root '../skills' ")


def test_catalog_of_an_empty_workspace(tmp_path: Path) -> None:
    result = run("catalog", tmp_path)
    assert result.returncode == 0
    assert result.stdout == b""
    notice, summary = result.stderr.decode().splitlines()
    assert notice.startswith(
        f"a13n-skills: warning: no_skills_found: no skills found in {tmp_path} (looked in "
        ".agents/skills/, .claude/skills/, .github/skills/, .gemini/skills/, .cursor/skills/, "
        ".codex/skills/); pass"
    )
    assert summary == "listed=0 omitted=0 total=0 bytes=0 budget=9200"


def test_catalog_of_a_missing_or_file_workspace(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    assert one_error_line(run("catalog", missing)) == (
        f"a13n-skills: path_not_found: {missing}: no such directory"
    )
    plain = tmp_path / "file"
    plain.write_text("x")
    assert one_error_line(run("lint", plain)) == (
        f"a13n-skills: path_not_a_directory: {plain}: not a SKILL.md, a skill folder or a workspace"
    )


def test_catalog_root_linking_outside_the_workspace(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    skill(outside, "leak", "---\nname: leak\ndescription: outside\n---\n")
    workspace = tmp_path / "ws"
    (workspace / ".agents").mkdir(parents=True)
    (workspace / ".agents" / "skills").symlink_to(outside)
    line = one_error_line(run("catalog", workspace))
    assert line.startswith("a13n-skills: skill_permission_denied: /.agents/skills")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_catalog_unreadable_root(tmp_path: Path) -> None:  # pragma: no cover - not as root
    root = tmp_path / ".agents" / "skills"
    skill(root, "a", "---\nname: a\ndescription: d\n---\n")
    root.chmod(0)
    try:
        line = one_error_line(run("catalog", tmp_path))
    finally:
        root.chmod(0o755)
    assert line.startswith("a13n-skills: skill_permission_denied: ")


# ------------------------------------------------------------------ lint

_DEMO_LINT = [
    ".agents/skills/api-docs/SKILL.md:2:7: error: skill_name_mismatch: "
    "name 'api-documentation' differs from its folder 'api-docs'",
    ".agents/skills/broken-frontmatter/SKILL.md:4:1: error: skill_frontmatter_invalid: "
    "duplicate key 'name' (duplicate_key)",
    ".claude/skills/db-migrations/SKILL.md:3:14: error: skill_description_too_long: "
    "description has 1392 characters; the limit is 1024",
    ".claude/skills/notes-without-skill:1:1: warning: skill_entry_skipped: "
    "no SKILL.md: no such file or directory",
    ".agents/skills/release-notes/SKILL.md:1:1: warning: skill_overridden: "
    "/.agents/skills/release-notes/SKILL.md (source 'workspace') is overridden by "
    "/.claude/skills/release-notes/SKILL.md (source 'workspace')",
]
_DEMO_SUMMARY = "3 errors, 2 warnings in 8 skills"


def test_lint_demo_text_exact() -> None:
    result = run("lint", cwd=DEMO)
    assert result.returncode == 1
    assert result.stdout.decode().splitlines() == [*_DEMO_LINT, _DEMO_SUMMARY]
    relative = run("lint", "examples/demo-workspace")
    assert relative.stdout.decode().splitlines() == [
        *(f"examples/demo-workspace/{line}" for line in _DEMO_LINT),
        _DEMO_SUMMARY,
    ]


def test_lint_demo_json() -> None:
    result = run("lint", DEMO, "--format", "json")
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document["version"] == 1
    assert document["summary"] == {"errors": 3, "notes": 0, "skills": 8, "warnings": 2}
    broken = [f for f in document["findings"] if f["rule"] == "skill_frontmatter_invalid"]
    assert broken == [
        {
            "column": 1,
            "line": 4,
            "message": "duplicate key 'name' (duplicate_key)",
            "path": f"{DEMO}/.agents/skills/broken-frontmatter/SKILL.md",
            "rule": "skill_frontmatter_invalid",
            "severity": "error",
        }
    ]


def test_lint_demo_sarif() -> None:
    result = run("lint", "--format", "sarif", cwd=DEMO)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document["version"] == "2.1.0"
    assert document["$schema"].endswith("sarif-2.1.0.json")
    (sarif_run,) = document["runs"]
    rules = [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]]
    results = sarif_run["results"]
    assert len(results) == 5
    for item in results:
        assert rules[item["ruleIndex"]] == item["ruleId"]
        assert item["level"] in ("error", "warning", "note")
        (location,) = item["locations"]
        assert set(location["physicalLocation"]["region"]) == {"startLine", "startColumn"}
    broken = [item for item in results if item["ruleId"] == "skill_frontmatter_invalid"]
    assert broken[0]["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {
                    # Relative to the repository's root (this checkout), not to the directory
                    # lint ran in: code scanning resolves it against the checkout.
                    "uri": "examples/demo-workspace/.agents/skills/broken-frontmatter/SKILL.md",
                    "uriBaseId": "%SRCROOT%",
                },
                "region": {"startLine": 4, "startColumn": 1},
            }
        }
    ]
    root = sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root == DEMO.parent.parent.resolve().as_uri() + "/"


def test_lint_clean_workspace_exits_0(tmp_path: Path) -> None:
    skill(tmp_path / ".agents" / "skills", "ok", "---\nname: ok\ndescription: fine\n---\n")
    result = run("lint", tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        b"0 errors, 0 warnings in 1 skill\n",
        b"",
    )


def test_lint_reports_a_link_leaving_the_workspace_and_keeps_linting(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    workspace = tmp_path / "ws"
    agents = workspace / ".agents" / "skills"
    agents.mkdir(parents=True)
    (agents / "leak").symlink_to(outside)
    skill(workspace / ".claude" / "skills", "bad", "---\nname: Bad\ndescription: x\n---\n")
    result = run("lint", cwd=workspace)
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(".agents/skills/leak/SKILL.md:1:1: error: skill_permission_denied: ")
    assert lines[1].startswith(".claude/skills/bad/SKILL.md:2:7: error: skill_name_invalid: ")
    assert lines[2] == "2 errors, 0 warnings in 1 skill"


def test_lint_paths_with_newlines_stay_one_line_each(tmp_path: Path) -> None:
    root = tmp_path / ".agents" / "skills"
    skill(root, "odd\nfolder", "---\nname: odd\ndescription: d\n---\n")
    result = run("lint", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.decode().splitlines() == [
        ".agents/skills/odd\\nfolder/SKILL.md:2:7: error: skill_name_mismatch: "
        "name 'odd' differs from its folder 'odd\\nfolder'",
        "1 error, 0 warnings in 1 skill",
    ]


def test_lint_shows_progress_only_on_a_terminal(tmp_path: Path) -> None:
    skill(tmp_path / ".agents" / "skills", "ok", "---\nname: ok\ndescription: fine\n---\n")
    controller, terminal = pty.openpty()
    try:
        process = run_bounded(
            [sys.executable, "-m", "a13n_harness.cli", "lint", str(tmp_path)],
            env=cli_environment(),
            stdout=subprocess.PIPE,
            stderr=terminal,
            cpu_seconds=60,
        )
        os.close(terminal)
        terminal = -1
        seen = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if terminal >= 0:
            os.close(terminal)
        os.close(controller)
    assert process.returncode == 0
    assert b"a13n-skills: linting /.agents/skills" in seen
    assert seen.endswith(b"\r\x1b[K")


def test_catalog_and_manifest_pointer_names_only_scanned_roots(tmp_path: Path) -> None:
    """A default root that does not exist is skipped, so the pointer does not name it (§7)."""
    skill(tmp_path / ".agents/skills", "only", "---\nname: only\ndescription: The one.\n---\n")
    result = run("catalog", tmp_path, "--budget-bytes", "60")
    assert result.stdout == b".agents/skills/ has 1 skill\n"
    listing = run("catalog", tmp_path)
    assert b"1 skill available (list .agents/skills/ to see all)\n" in listing.stdout
    manifest = run("manifest", tmp_path)
    assert decode_manifest(manifest.stdout).skill_catalog.roots == (".agents/skills",)
