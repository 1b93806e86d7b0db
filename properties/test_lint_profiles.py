"""Profiles and field names (docs/rules.md, "Profiles"): each platform's documented fields,
a field several platforms define credited to every one of them, and a near-miss of a known
field name answered with the field meant, not with "put it under metadata"."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.cli import main
from a13n_harness.context.lint import (
    PLATFORM_FIELDS,
    PLATFORM_NAMES,
    PROFILES,
    SPEC_FIELDS,
    check_document,
)


def findings(line: str, profile: str = "agentskills") -> list[tuple[str, str]]:
    """The (rule, message) of a document whose third field is ``line``."""
    text = f"---\nname: a\ndescription: d\n{line}\n---\n"
    return [(i.rule, i.message) for i in check_document(text.encode(), "a", profile).issues]


KNOWN = sorted({*SPEC_FIELDS, *(field for fields in PLATFORM_FIELDS.values() for field in fields)})

# VS Code / GitHub Copilot, "Use Agent Skills in VS Code", section "SKILL.md file format":
# https://code.visualstudio.com/docs/agent-customization/agent-skills
COPILOT = {
    "argument-hint": '"[test file] [options]"',
    "user-invocable": "false",
    "disable-model-invocation": "true",
    "context": "fork",
}


def test_copilot_is_a_profile_with_its_documented_fields() -> None:
    assert "copilot" in PROFILES
    assert set(PLATFORM_FIELDS["copilot"]) == set(COPILOT)
    assert PLATFORM_NAMES["copilot"] == "VS Code / GitHub Copilot"


@pytest.mark.parametrize("field", sorted(COPILOT))
def test_the_copilot_profile_admits_its_fields(field: str) -> None:
    assert findings(f"{field}: {COPILOT[field]}", "copilot") == []


def test_the_copilot_profile_checks_its_types_and_not_other_platforms_fields() -> None:
    assert [rule for rule, _ in findings('user-invocable: "no"', "copilot")] == [
        "skill_field_invalid"
    ]
    # `model` is Claude Code's, not Copilot's: portable nowhere but there.
    ((rule, message),) = findings("model: sonnet", "copilot")
    assert rule == "skill_field_not_portable"
    assert "Claude Code" in message
    assert "Copilot" not in message


def test_claude_code_documents_disallowed_tools() -> None:
    assert findings("disallowed-tools: Bash", "claude-code") == []
    assert findings("disallowed-tools: [Bash, Write]", "claude-code") == []


@pytest.mark.parametrize("field", KNOWN)
def test_not_portable_names_every_platform_that_defines_the_field(field: str) -> None:
    owners = [name for name, fields in PLATFORM_FIELDS.items() if field in fields]
    if not owners or field in SPEC_FIELDS:
        return
    value = "true" if PLATFORM_FIELDS[owners[0]][field] == "boolean" else "x"
    if PLATFORM_FIELDS[owners[0]][field] == "map":
        value = "{}"
    ((rule, message),) = findings(f"{field}: {value}")
    assert rule == "skill_field_not_portable"
    for owner in owners:
        assert PLATFORM_NAMES[owner] in message
        assert f"--profile {owner}" in message
    for other in set(PLATFORM_FIELDS) - set(owners):
        assert PLATFORM_NAMES[other] not in message


def test_shared_fields_are_credited_to_claude_code_and_copilot() -> None:
    for field in ("argument-hint", "user-invocable", "disable-model-invocation", "context"):
        value = "true" if "invoc" in field else "x"
        ((_, message),) = findings(f"{field}: {value}")
        assert "Claude Code and VS Code / GitHub Copilot" in message, message


# ------------------------------------------------------------ near-miss field names


def _near_misses(field: str) -> st.SearchStrategy[str]:
    """Spellings of ``field`` an author makes: another separator, another case, one or two
    characters dropped, doubled or changed (two only for a name of five characters or more)."""
    separators = st.just(field.replace("-", "_"))
    cased = st.sampled_from([field.upper(), field.title(), field.capitalize()])

    @st.composite
    def edited(draw: st.DrawFn) -> str:
        name = field
        edits = draw(st.integers(1, 2 if len(field) >= 5 else 1))
        for _ in range(edits):
            at = draw(st.integers(0, len(name) - 1))
            kind = draw(st.sampled_from(["drop", "double", "change"]))
            if kind == "drop" and len(name) > 2:
                name = name[:at] + name[at + 1 :]
            elif kind == "double":
                name = name[:at] + name[at] + name[at:]
            else:
                name = name[:at] + draw(st.sampled_from("qxz")) + name[at + 1 :]
        return name

    return st.one_of(separators, cased, edited())


@st.composite
def near_miss(draw: st.DrawFn) -> tuple[str, str]:
    field = draw(st.sampled_from(KNOWN))
    spelled = draw(_near_misses(field))
    if spelled in KNOWN:  # an edit that lands on another known field is that field
        spelled = field.replace("-", "_").upper()
    if spelled == field:
        spelled = field.upper()
    return field, spelled


@given(near_miss())
def test_a_near_miss_field_name_gets_did_you_mean(pair: tuple[str, str]) -> None:
    field, spelled = pair
    reported = [m for r, m in findings(f"{spelled}: x") if r == "skill_field_unknown"]
    assert len(reported) == 1, (spelled, reported)
    assert "did you mean" in reported[0], reported
    assert f"`{field}`" in reported[0] or "did you mean `" in reported[0], reported
    assert "put it under metadata" not in reported[0]


@pytest.mark.parametrize(
    ("spelled", "meant"),
    [
        ("user_invocable", "user-invocable"),
        ("user-invokable", "user-invocable"),
        ("Description2", "description"),
        ("allowed_tools", "allowed-tools"),
        ("disable_model_invocation", "disable-model-invocation"),
        ("argument_hint", "argument-hint"),
        ("Licence", "license"),
        ("METADATA", "metadata"),
    ],
)
def test_the_field_meant_is_named(spelled: str, meant: str) -> None:
    ((_, message),) = [f for f in findings(f"{spelled}: x") if f[0] == "skill_field_unknown"]
    assert f"did you mean `{meant}`" in message, message


def _camel(field: str) -> str:
    head, *rest = field.replace("_", "-").split("-")
    return head + "".join(part.capitalize() for part in rest)


@st.composite
def _camel_or_swapped(draw: st.DrawFn) -> tuple[str, str]:
    """A field written in camelCase with one character changed, or with two neighbouring
    characters swapped: one edit once the separators are set aside."""
    field = draw(st.sampled_from(KNOWN))
    if draw(st.booleans()):
        spelled = _camel(field)
        at = draw(st.integers(0, len(spelled) - 1))
        spelled = spelled[:at] + draw(st.sampled_from("qxz")) + spelled[at + 1 :]
    else:
        letters = [i for i in range(len(field) - 1) if field[i] != field[i + 1]]
        at = draw(st.sampled_from(letters))
        spelled = field[:at] + field[at + 1] + field[at] + field[at + 2 :]
    if spelled in KNOWN or spelled.lower() == field:
        spelled = field.upper()
    return field, spelled


@given(_camel_or_swapped())
def test_camel_case_with_a_typo_and_swapped_letters_get_did_you_mean(
    pair: tuple[str, str],
) -> None:
    _, spelled = pair
    ((_, message),) = [f for f in findings(f"{spelled}: x") if f[0] == "skill_field_unknown"]
    assert "did you mean `" in message, (spelled, message)


@pytest.mark.parametrize(
    ("spelled", "meant"),
    [
        ("nmae", "name"),
        ("anme", "name"),
        ("naem", "name"),
        ("descritpion", "description"),
        ("disableModelInvokation", "disable-model-invocation"),
        ("whenToUze", "when_to_use"),
        ("allowedTols", "allowed-tools"),
    ],
)
def test_a_swap_or_camel_case_with_a_typo_names_the_field_meant(spelled: str, meant: str) -> None:
    ((_, message),) = [f for f in findings(f"{spelled}: x") if f[0] == "skill_field_unknown"]
    assert f"did you mean `{meant}`" in message, message


@pytest.mark.parametrize(
    ("spelled", "meant"), [("Licence", "license"), ("user_invocable", "user-invocable")]
)
def test_a_rename_onto_a_field_that_is_already_set_says_so(spelled: str, meant: str) -> None:
    """Renaming would make a duplicate key (and --fix renames what lint suggests)."""
    text = f"---\nname: a\ndescription: d\n{spelled}: x\n{meant}: y\n---\n"
    issues = check_document(text.encode(), "a", "claude-code").issues
    ((message,),) = [(i.message,) for i in issues if i.rule == "skill_field_unknown"]
    assert message.endswith(
        f"did you mean `{meant}`? (`{meant}` is set as well: keep one of the two)"
    )


def test_fix_leaves_a_near_miss_alone_when_the_field_meant_is_set(tmp_path: Path) -> None:
    skill = tmp_path / "a"
    skill.mkdir()
    text = "---\nname: a\ndescription: d\nLicence: MIT\nlicense: X\n---\nBody.\n"
    (skill / "SKILL.md").write_text(text)
    assert main(["lint", "--no-config", "--fix", str(skill)]) == 1
    assert (skill / "SKILL.md").read_text() == text  # no duplicate `license` written


@pytest.mark.parametrize("far", ["version", "author", "tags", "category", "icon", "x"])
def test_a_field_far_from_every_known_name_still_goes_under_metadata(far: str) -> None:
    ((rule, message),) = findings(f"{far}: x")
    assert rule == "skill_field_unknown"
    assert "did you mean" not in message
    assert message.endswith("put it under metadata")


def test_the_command_line_offers_every_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = tmp_path / "skills" / "a"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: a\ndescription: d\nuser-invocable: false\n---\nBody.\n", encoding="utf-8"
    )
    for profile in PROFILES:
        code = main(["lint", "--no-config", "--profile", profile, str(tmp_path)])
        out = capsys.readouterr().out
        assert code == 0, (profile, out)
        portable = profile in ("claude-code", "copilot")
        assert ("skill_field_not_portable" in out) != portable, (profile, out)


# GitHub CLI's `gh skill install` records where a skill came from under `metadata`, keys
# prefixed `github-` (`local-path` for --from-local), string values, and writes the
# frontmatter back with its keys sorted (cli/cli, internal/skills/frontmatter/frontmatter.go,
# InjectGitHubMetadata and InjectLocalMetadata). A skill installed that way lints clean.
GH_INSTALLED = (
    "---\n"
    "description: Write conventional commit messages.\n"
    "metadata:\n"
    "    github-path: skills/git-commit\n"
    "    github-pinned: v1.2.0\n"
    "    github-ref: v1.2.0\n"
    "    github-repo: https://github.com/octo-org/skills\n"
    "    github-tree-sha: 0f3c9a1e5b7d2c4a6e8f0b1d3c5e7a9f1b3d5e7c\n"
    "name: git-commit\n"
    "---\n"
    "# Commits\n"
)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_skill_installed_by_gh_skill_install_lints_clean(profile: str) -> None:
    for text in (
        GH_INSTALLED,
        GH_INSTALLED.replace(
            "    github-tree-sha: 0f3c", '    github-tree-sha: "1234567"\n    x: 0f3c'
        ),
        "---\ndescription: d\nmetadata:\n    local-path: /home/ada/skills/git-commit\n"
        "name: git-commit\n---\n",
    ):
        assert check_document(text.encode(), "git-commit", profile).issues == (), text


def test_fix_renames_a_near_miss_when_only_the_body_holds_the_field_meant(tmp_path: Path) -> None:
    skill = tmp_path / "a"
    skill.mkdir()
    text = "---\nname: a\ndescription: d\nLicence: MIT\n---\nlicense: in the body\n"
    (skill / "SKILL.md").write_text(text)
    main(["lint", "--no-config", "--fix", str(skill)])
    assert (skill / "SKILL.md").read_text() == text.replace("Licence:", "license:")


# ------------------------------------------- the edit distance and near_miss's bounds


def _alignment_distance(a: str, b: str) -> int:
    """The optimal string alignment distance, written plainly (no band, no cut-off)."""
    rows = [
        [i + j if i == 0 or j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)
    ]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            rows[i][j] = min(
                rows[i - 1][j] + 1,
                rows[i][j - 1] + 1,
                rows[i - 1][j - 1] + (a[i - 1] != b[j - 1]),
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[-1][-1]


def test_the_edit_distance_is_the_plain_one_within_its_bound() -> None:
    """Every pair of strings over two letters up to five long, each bound from 0 to 3: the
    banded distance is the plain one when that is within the bound; past it, the plain one
    or, where the band cuts the work short, ``bound + 1``."""
    from a13n_harness.context.lint._fields import _distance  # noqa: PLC0415

    words = [""] + ["".join(p) for n in range(1, 6) for p in itertools.product("ab", repeat=n)]
    wrong = []
    for a in words:
        for b in words:
            plain = _alignment_distance(a, b)
            for bound in range(4):
                banded = _distance(a, b, bound)
                if banded != plain and not (plain > bound and banded == bound + 1):
                    wrong.append((a, b, bound, banded, plain))
    assert wrong == []
    # A swap of two neighbours is one edit in both (without it, "ab" and "ba" are two apart).
    assert (_alignment_distance("ab", "ba"), _distance("ab", "ba", 2)) == (1, 1)


@pytest.mark.parametrize(
    ("key", "meant"),
    [
        ("d" + "_" * 29 + "escription", "description"),  # 40 characters: still looked at
        ("d" + "_" * 30 + "escription", None),  # 41: past _NEAR_MAX, no spelling of a field
        ("descrptio", "description"),  # two edits of a long field
        ("nxmx", None),  # two edits of a short one (name) are too many
        ("nxme", "name"),  # one is not
        ("mxdxl", "model"),  # five characters is long: two edits
        ("hxoxs", "hooks"),
        ("dxallowed-tools", "allowed-tools"),  # two edits from both: the first field wins
        ("dsallowed-tools", "disallowed-tools"),  # the nearer field wins, wherever it is
        ("dallowed-tools", "allowed-tools"),
    ],
)
def test_near_miss_bounds_and_ties(key: str, meant: str | None) -> None:
    from a13n_harness.context.lint._fields import near_miss  # noqa: PLC0415

    assert near_miss(key) == meant
