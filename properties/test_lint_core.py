"""Lint's pure checks (``a13n_harness.context.lint``): what a reference is, the content rules,
the profiles. The file system is not involved: ``check_document`` and ``find_references``
take text and return values (``test_lint.py`` covers how the CLI resolves them)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.context.lint import (
    BASE64_MIN_CHARS,
    PLATFORM_FIELDS,
    PROFILES,
    REFERENCES_MAX,
    RULES,
    check_document,
    find_references,
)

HEAD = "---\nname: a\ndescription: d\n---\n"


def refs(markdown: str) -> list[tuple[str, int, int, str]]:
    return [(r.target, r.line, r.column, r.kind) for r in find_references(markdown)]


def found(text: str, profile: str = "agentskills") -> list[tuple[str, int, int]]:
    check = check_document(text.encode("utf-8"), "a", profile)
    return [(i.rule, i.line, i.column) for i in check.issues]


def messages(text: str, rule: str, profile: str = "agentskills") -> list[str]:
    check = check_document(text.encode("utf-8"), "a", profile)
    return [i.message for i in check.issues if i.rule == rule]


# ------------------------------------------------------------- references


def test_links_images_and_definitions_are_references_with_their_positions() -> None:
    text = 'See [a](x.md) and ![i](img/p.png).\n  [d]: <d e.md>\n[t](t.md "title")\n'
    assert refs(text) == [
        ("x.md", 1, 9, "link"),
        ("img/p.png", 1, 24, "link"),
        ("d e.md", 2, 8, "link"),
        ("t.md", 3, 5, "link"),
    ]


def test_urls_anchors_footnotes_and_mail_are_not_references() -> None:
    text = (
        "[w](https://e.org/x.md) [s](//cdn/x.js) [top](#usage) [m](mailto:a@b.c)\n"
        'Claim[^1].\n\n[^1]: GitHub Blog. (2022). "Mermaid." https://github.blog/x\n'
        "[^note]: A note with [a link](https://e.org).\n"
    )
    assert refs(text) == []


def test_code_blocks_code_spans_and_comments_hold_no_link() -> None:
    text = (
        "```md\n[in](fence.md)\n```\n"
        "~~~~\n[in](tilde.md)\n~~~~\n"
        "   ```\n   [in](indented-fence.md)\n   ```\n"
        "`[in](span.md)` and ``[in](span2.md)``\n"
        "<!-- [in](comment.md) -->\n<!--\n[in](open.md)\n-->\n"
        "[out](out.md)\n"
    )
    assert refs(text) == [("out.md", 15, 7, "link")]


def test_a_fence_needs_three_marks_and_a_backtick_fence_no_backtick_after_it() -> None:
    # ```x``` on one line is inline code, not a fence: the next line is prose.
    assert refs("```x```\n[a](a.md)\n") == [("a.md", 2, 5, "link")]
    assert refs("``\n[a](a.md)\n") == [("a.md", 2, 5, "link")]


def test_inline_code_paths_are_code_references_outside_examples() -> None:
    text = (
        "Run `scripts/run.py` then `references/a.md`.\n"
        "- **Example**: `scripts/rotate.py` for rotation\n"
        "e.g. `assets/logo.png`\n"
        "Not paths: `a` `npm run x` `~/.claude/skills/` `/etc/x` `$HOME/x` `*.md` `http://x/y`\n"
    )
    assert refs(text) == [("scripts/run.py", 1, 6, "code"), ("references/a.md", 1, 28, "code")]


def test_a_list_after_an_example_paragraph_is_an_example() -> None:
    text = (
        "Example: when building a big-query skill:\n\n"
        "1. A `references/schema.md` file\n"
        "2. A `scripts/q.py` script\n\n"
        "## Resources\n\n- `references/real.md`\n"
    )
    assert refs(text) == [("references/real.md", 8, 4, "code")]


def test_documented_placeholders_are_the_skill_folder_and_unknown_ones_are_skipped() -> None:
    text = (
        "[g]({baseDir}/references/g.md) `${CLAUDE_SKILL_DIR}/scripts/run.sh`\n"
        "`{baseDir}/run.sh` [p](${PLUGIN_ROOT}/x.md) `${C_ROOT}/scripts/x.py` [v]({other}/x)\n"
    )
    found_refs = find_references(text)
    assert [(r.target, r.path, r.climb, r.kind) for r in found_refs] == [
        ("{baseDir}/references/g.md", "references/g.md", 0, "link"),
        ("${CLAUDE_SKILL_DIR}/scripts/run.sh", "scripts/run.sh", 0, "link"),
        ("{baseDir}/run.sh", "run.sh", 0, "link"),
    ]


def test_targets_are_normalised_lexically() -> None:
    found_refs = find_references(
        "[a](./x/../y/z.md) [b](../s/n.md) [c](a/../../../t.md) [d](/etc/passwd) "
        "[e](~/x) [f](C:\\x) [g](x%20y.md) [h](a\\(b\\).md) [i](.)\n"
    )
    assert [(r.path, r.climb, r.absolute) for r in found_refs] == [
        ("y/z.md", 0, False),
        ("s/n.md", 1, False),
        ("t.md", 2, False),
        ("/etc/passwd", 0, True),
        ("~/x", 0, True),
        ("C:\\x", 0, True),
        ("x y.md", 0, False),
        ("a(b).md", 0, False),
        ("", 0, False),
    ]


def test_nested_brackets_and_an_image_inside_a_link() -> None:
    assert refs("[![alt](i.png)](b.md) [see [x]](c.md) \\[no](d.md)\n") == [
        ("i.png", 1, 9, "link"),
        ("b.md", 1, 17, "link"),
        ("c.md", 1, 33, "link"),
    ]


def test_references_are_capped_and_the_cap_is_reported() -> None:
    body = "".join(f"[r](r{i}.md)\n" for i in range(REFERENCES_MAX + 5))
    check = check_document((HEAD + body).encode(), "a")
    assert len(check.references) == REFERENCES_MAX
    limit = [i for i in check.issues if i.rule == "skill_reference_limit"]
    assert [(i.line, i.column) for i in limit] == [(4 + REFERENCES_MAX, 5)]
    # Negative control: at the cap exactly, nothing is reported.
    body = "".join(f"[r](r{i}.md)\n" for i in range(REFERENCES_MAX))
    assert "skill_reference_limit" not in [
        i.rule for i in check_document((HEAD + body).encode(), "a").issues
    ]


@pytest.mark.parametrize(
    "unit", ["[", "![x", "[a", "[\\]", "`a`", "[a](<", '[a](b "', "[a](b(", "`a/b`", "[[a]", "``a`"]
)
def test_hostile_lines_give_bounded_references(unit: str) -> None:
    line = unit * (50_000 // len(unit))
    found_refs = find_references(line + "\n")
    assert len(found_refs) <= REFERENCES_MAX
    assert all(r.line == 1 for r in found_refs)


# ------------------------------------------------------------- content rules


@pytest.mark.parametrize(
    ("char", "rule"),
    [
        ("\U000e0041", "skill_tag_characters"),
        ("\U000e007f", "skill_tag_characters"),
        ("\u202e", "skill_bidi_control"),
        ("\u2066", "skill_bidi_control"),
        ("\u061c", "skill_bidi_control"),
        ("\u200f", "skill_bidi_control"),
        ("\u200b", "skill_invisible_characters"),
        ("\u200d", "skill_invisible_characters"),
        ("\u00ad", "skill_invisible_characters"),
        ("\u2060", "skill_invisible_characters"),
        ("\ufeff", "skill_invisible_characters"),
    ],
)
def test_hidden_characters_are_reported_at_the_first_with_its_code_point(
    char: str, rule: str
) -> None:
    text = f"---\nname: a\ndescription: ab{char}c{char}\n---\nx {char}\n"
    assert [(r, line, col) for r, line, col in found(text) if r == rule] == [
        (rule, 3, 16),
        (rule, 5, 3),
    ]
    first, second = messages(text, rule)
    assert f"U+{ord(char):04X}" in first
    assert "2 " in first
    assert "the frontmatter" in first
    assert "the body" in second


@pytest.mark.parametrize("char", ["\u2028", "\x1b", "\x85", "\x7f", "\x00"])
def test_characters_yaml_refuses_raw_are_still_reported_in_the_body(char: str) -> None:
    text = f"{HEAD}x {char} {char}\n"
    assert [
        (r, line, col) for r, line, col in found(text) if r == "skill_invisible_characters"
    ] == [("skill_invisible_characters", 5, 3)]
    assert f"U+{ord(char):04X}" in messages(text, "skill_invisible_characters")[0]


@pytest.mark.parametrize(
    "char", ["\U000e0080", "\u200a", "\u2010", "\u202f", "\t", "é", "\U0001f600"]
)
def test_neighbours_of_the_hidden_sets_are_not_reported(char: str) -> None:
    rules = {rule for rule, _, _ in found(f"---\nname: a\ndescription: a{char}b\n---\nx{char}y\n")}
    assert not rules & {"skill_tag_characters", "skill_bidi_control", "skill_invisible_characters"}


def test_html_comments_outside_code_are_reported_once_with_a_count() -> None:
    text = (
        HEAD + "a\n`<!-- in code -->`\n```\n<!-- fenced -->\n```\nb <!-- one -->\n<!--\ntwo\n-->\n"
    )
    assert [(r, line, col) for r, line, col in found(text) if r == "skill_html_comment"] == [
        ("skill_html_comment", 10, 3)
    ]
    assert "2 HTML comments" in messages(text, "skill_html_comment")[0]
    assert "skill_html_comment" not in {r for r, _, _ in found(HEAD + "`<!-- x -->`\n")}


def test_long_base64_runs_are_reported_and_words_hashes_and_paths_are_not() -> None:
    payload = ("aB3+" * BASE64_MIN_CHARS)[:BASE64_MIN_CHARS]
    assert ("skill_base64_run", 6, 7) in found(HEAD + "x\ndata: " + payload + "==\n")
    short = payload[:-1]
    assert "skill_base64_run" not in {r for r, _, _ in found(HEAD + short + "\n")}
    hexdigest = "0123456789abcdef" * 20  # no upper case: a digest, not base64
    long_word = "a" * 500
    assert not {"skill_base64_run"} & {r for r, _, _ in found(HEAD + f"{hexdigest} {long_word}\n")}


# ------------------------------------------------------------------- profiles


def test_a_platform_field_is_not_portable_under_the_default_profile() -> None:
    text = "---\nname: a\ndescription: d\ndisable-model-invocation: true\nversion: 1\n---\n"
    assert found(text) == [("skill_field_not_portable", 4, 1), ("skill_field_unknown", 5, 1)]
    assert "Claude Code" in messages(text, "skill_field_not_portable")[0]
    assert found(text, "claude-code") == [("skill_field_unknown", 5, 1)]
    assert found(text, "codex") == [
        ("skill_field_not_portable", 4, 1),
        ("skill_field_unknown", 5, 1),
    ]


def test_every_documented_claude_code_field_used_as_documented_passes_its_profile() -> None:
    values = {
        "string": '"x"',
        "boolean": "false",
        "map": "\n  PreToolUse: []",
        "string-or-list": "[a, b]",
    }
    fields = "".join(
        f"{field}: {values[kind]}\n"
        for field, kind in PLATFORM_FIELDS["claude-code"].items()
        if field != "argument-hint"
    )
    # The documentation's own example of argument-hint, unquoted (a YAML list).
    text = f"---\nname: a\ndescription: d\n{fields}argument-hint: [issue-number]\n---\n"
    assert found(text, "claude-code") == []
    assert {r for r, _, _ in found(text)} == {"skill_field_not_portable"}


@pytest.mark.parametrize(
    ("line", "column"),
    [
        ('user-invocable: "no"', 17),
        ("disable-model-invocation: 1", 27),
        ("hooks: [a]", 8),
        ("model: 3", 8),
        ("paths: {a: b}", 8),
        ("arguments: [1]", 13),
    ],
)
def test_a_platform_field_of_the_wrong_type_is_an_error(line: str, column: int) -> None:
    text = f"---\nname: a\ndescription: d\n{line}\n---\n"
    assert ("skill_field_invalid", 4, column) in found(text, "claude-code")


def test_profiles_are_the_specification_and_each_platform() -> None:
    assert PROFILES == ("agentskills", "claude-code", "codex")
    assert all(rule.id in RULES for rule in RULES.values())


@given(st.sampled_from(PROFILES), st.text(max_size=300))
def test_profiles_differ_only_in_field_rules(profile: str, body: str) -> None:
    data = ("---\nname: a\ndescription: d\neffort: low\n---\n" + body).encode(
        "utf-8", "surrogatepass"
    )
    field_rules = {"skill_field_unknown", "skill_field_not_portable", "skill_field_invalid"}
    base = [i for i in check_document(data, "a").issues if i.rule not in field_rules]
    other = [i for i in check_document(data, "a", profile).issues if i.rule not in field_rules]
    assert base == other


def test_the_utf8_prefilter_is_the_hidden_set_on_every_code_point() -> None:
    from a13n_harness.context.lint import _ANY_HIDDEN, _UTF8_HIDDEN  # noqa: PLC0415

    differ = [
        point
        for point in range(0x110000)
        if not 0xD800 <= point <= 0xDFFF
        and (_ANY_HIDDEN.fullmatch(chr(point)) is None)
        != (_UTF8_HIDDEN.fullmatch(chr(point).encode("utf-8")) is None)
    ]
    assert differ == []
    # Negative control: the tag block's neighbours are outside both.
    assert _UTF8_HIDDEN.fullmatch("\U000e0080".encode()) is None
