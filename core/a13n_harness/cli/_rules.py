"""The lint rules: one table, and the checks of one ``SKILL.md`` that need no I/O.

Every rule ``a13n-skills lint`` can report is a row of :data:`RULES` (its id,
severity, what it checks, the sentence of the Agent Skills specification it
comes from or "beyond the specification", and a failing example).
``docs/rules.md`` and the SARIF rule metadata are generated from this table and
a test keeps the document equal to it, so a rule cannot exist in one place only.

:func:`check_document` checks the bytes of one ``SKILL.md`` against its folder's
name: encoding, frontmatter, the six fields, the body's length, and it lists the
relative file references of the body for the caller to resolve (that needs the
file system, see :mod:`a13n_harness.cli._lint`).

Frontmatter is first parsed by :func:`parse_skill_document`, which enforces
every structural guard (size, depth, node count, aliases, tags, duplicate keys)
while the events stream; only a document that passes those guards is walked
again here to check the fields, so this walk is bounded the same way.

Field values are checked as a YAML 1.2 reader sees them: a plain (unquoted)
scalar that the YAML 1.2 core schema types as a number, a boolean or null
(``version: 1.0``, ``enabled: true``, ``license:``) is not a string, whatever
our own catalog parser (which keeps every scalar as written) makes of it,
because a JavaScript or Go client loading the same file gets a number.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import yaml

from a13n_harness.context._checks import has_lone_surrogate
from a13n_harness.context.errors import FRONTMATTER_REASONS, FrontmatterError
from a13n_harness.context.frontmatter import NAME_MAX_CHARS, FrontmatterLimits, parse_skill_document

__all__ = [
    "BODY_MAX_LINES",
    "COMPATIBILITY_MAX_CHARS",
    "DESCRIPTION_MAX_CHARS",
    "DOCUMENT_MAX_BYTES",
    "RULES",
    "SPEC_FIELDS",
    "DocumentCheck",
    "Issue",
    "Reference",
    "Rule",
    "check_document",
    "rule_for_error",
    "rule_markdown",
    "rules_document",
]

Severity = Literal["error", "warning", "note"]

DESCRIPTION_MAX_CHARS = 1_024  # the specification's "Must be 1-1024 characters"
COMPATIBILITY_MAX_CHARS = 500  # the specification's "Must be 1-500 characters if provided"
BODY_MAX_LINES = 500  # the specification's "Keep your main SKILL.md under 500 lines"
# 4 MiB: over a hundred times the largest published SKILL.md (about 30 KB); a bigger
# file is reported, never read whole or cut silently.
DOCUMENT_MAX_BYTES = 4 * 1024 * 1024
SPEC_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
"""The specification's six frontmatter fields, in its table's order."""

_BEYOND = "beyond the specification"


@dataclass(frozen=True, slots=True)
class Rule:
    """One lint rule: what ``docs/rules.md`` and the SARIF ``rules`` array say about it."""

    id: str
    severity: Severity
    title: str
    checks: str
    source: str
    example: str


def _rules(*rows: Rule) -> dict[str, Rule]:
    return {row.id: row for row in rows}


RULES: dict[str, Rule] = _rules(
    Rule(
        "skill_encoding_invalid",
        "error",
        "SKILL.md is not valid UTF-8",
        "The file must decode as strict UTF-8 (one leading BOM is allowed) and no value may "
        "hold a lone surrogate (a YAML escape such as `\\ud800`). The finding points at the "
        "first offending byte or value.",
        _BEYOND + " (YAML streams are Unicode; a lone surrogate cannot be written as UTF-8)",
        "---\nname: caf\\xe9\n---\n  (the byte 0xE9 alone, Latin-1 for é)",
    ),
    Rule(
        "skill_document_too_large",
        "error",
        "SKILL.md is too large to check",
        f"A SKILL.md over {DOCUMENT_MAX_BYTES} bytes is reported instead of being read whole.",
        _BEYOND,
        "a 5 MB SKILL.md",
    ),
    Rule(
        "skill_document_unsupported",
        "error",
        "SKILL.md is not a regular file",
        "SKILL.md must be a regular file (or a link to one inside the skill folder); a "
        "directory, a FIFO or a device named SKILL.md is reported, never read.",
        '"A skill is a directory containing, at minimum, a `SKILL.md` file".',
        "mkfifo my-skill/SKILL.md",
    ),
    Rule(
        "skill_frontmatter_invalid",
        "error",
        "SKILL.md has no usable YAML frontmatter",
        "Line 1 must be `---`, a closing `---` line must follow, and the YAML between them "
        "must be one mapping without anchors, aliases, tags, duplicate keys or excessive "
        "nesting. The finding carries the parser's reason (for example `duplicate_key`).",
        '"The `SKILL.md` file must contain YAML frontmatter followed by Markdown content."',
        "---\nname: a\nname: b\ndescription: d\n---",
    ),
    Rule(
        "skill_field_unknown",
        "error",
        "a top-level frontmatter field outside the specification",
        "Only `name`, `description`, `license`, `compatibility`, `metadata` and "
        "`allowed-tools` may appear at the top level; anything else belongs under `metadata`.",
        "The specification's frontmatter table lists exactly these six fields, and `metadata` "
        'is where "clients can ... store additional properties not defined by the Agent '
        'Skills spec".',
        "---\nname: pdf\ndescription: Fill PDF forms.\nversion: 2\n---",
    ),
    Rule(
        "skill_name_missing",
        "error",
        "the frontmatter has no name",
        "`name` is required.",
        '"The required `name` field" (frontmatter table: `name`, Required: Yes).',
        "---\ndescription: Fill PDF forms.\n---",
    ),
    Rule(
        "skill_name_invalid",
        "error",
        "the name breaks the naming rule",
        f"`name` must be a string of 1 to {NAME_MAX_CHARS} characters from `a-z`, `0-9` and "
        "`-`, must not start or end with a hyphen and must not contain `--`. This tool admits "
        "ASCII only: a name is an identity and a folder name, and identities admit no "
        "look-alike characters.",
        '"Must be 1-64 characters"; "May only contain unicode lowercase alphanumeric '
        'characters (`a-z`) and hyphens (`-`)"; "Must not start or end with a hyphen"; '
        '"Must not contain consecutive hyphens (`--`)".',
        "---\nname: PDF--Forms\ndescription: Fill PDF forms.\n---",
    ),
    Rule(
        "skill_name_mismatch",
        "error",
        "the name differs from the skill's folder",
        "`name` must equal the name of the folder that holds SKILL.md.",
        '"Must match the parent directory name".',
        "pdf-tools/SKILL.md holding `name: pdf`",
    ),
    Rule(
        "skill_description_missing",
        "error",
        "the frontmatter has no description",
        "`description` is required.",
        '"The required `description` field" (frontmatter table: `description`, Required: Yes).',
        "---\nname: pdf\n---",
    ),
    Rule(
        "skill_description_invalid",
        "error",
        "the description is not a non-empty string",
        "`description` must be a string with at least one non-blank character.",
        '"Must be 1-1024 characters"; frontmatter table: "Non-empty."',
        '---\nname: pdf\ndescription: ""\n---',
    ),
    Rule(
        "skill_description_too_long",
        "error",
        "the description is longer than 1,024 characters",
        f"`description` may hold at most {DESCRIPTION_MAX_CHARS} characters (Unicode code "
        "points of the value YAML delivers, as the reference validator counts). Discovery "
        "still lists such a skill with its description cut, and says so; lint is stricter.",
        '"Must be 1-1024 characters".',
        "---\nname: pdf\ndescription: <1,025 characters>\n---",
    ),
    Rule(
        "skill_compatibility_invalid",
        "error",
        "compatibility is not a string of 1 to 500 characters",
        f"`compatibility`, when present, must be a string of 1 to {COMPATIBILITY_MAX_CHARS} "
        "characters.",
        '"Must be 1-500 characters if provided".',
        "---\nname: pdf\ndescription: Fill PDF forms.\ncompatibility:\n---",
    ),
    Rule(
        "skill_license_invalid",
        "error",
        "license is not a string",
        "`license`, when present, must be a string (a license name or the name of a bundled "
        "license file).",
        'Frontmatter table: "License name or reference to a bundled license file."',
        "---\nname: pdf\ndescription: Fill PDF forms.\nlicense:\n  - MIT\n---",
    ),
    Rule(
        "skill_metadata_invalid",
        "error",
        "metadata is not a map of strings to strings",
        "`metadata`, when present, must be a mapping whose keys and values are strings; a "
        "nested list or map, or an unquoted number, boolean or null, is not a string.",
        '"A map from string keys to string values".',
        "---\nname: pdf\ndescription: Fill PDF forms.\nmetadata:\n  version: 1.0\n---",
    ),
    Rule(
        "skill_allowed_tools_invalid",
        "error",
        "allowed-tools is neither a string nor a list of strings",
        "`allowed-tools`, when present, must be a space-delimited string or a YAML sequence of "
        "strings.",
        '"Accepts either: A space-delimited string; A YAML sequence of strings".',
        "---\nname: pdf\ndescription: Fill PDF forms.\nallowed-tools:\n  read: true\n---",
    ),
    Rule(
        "skill_reference_escapes",
        "error",
        "a file reference leaves the skill folder",
        "A relative file reference of the body (a Markdown link or image, a link definition, "
        "or an inline-code path under `scripts/`, `references/` or `assets/`) must stay inside "
        "the skill folder: an absolute path, a `..` that climbs out, or a symbolic link whose "
        "target is outside is an error. A skill is copied and installed as one folder; what "
        "it points at outside does not travel with it, and an agent following the path reads "
        "files the skill's reviewer never saw.",
        _BEYOND + ' (the specification: "use relative paths from the skill root")',
        "See [the shared notes](../other-skill/NOTES.md).",
    ),
    Rule(
        "skill_reference_missing",
        "warning",
        "a file reference names no file",
        "A relative file reference of the body (as for `skill_reference_escapes`) that stays "
        "inside the skill folder must name an existing file or folder.",
        _BEYOND + ' (the specification: "use relative paths from the skill root")',
        "Run `scripts/extract.py` (with no scripts/extract.py in the folder).",
    ),
    Rule(
        "skill_body_too_long",
        "warning",
        "the body is longer than 500 lines",
        f"The Markdown body after the frontmatter should stay within {BODY_MAX_LINES} lines; "
        "the finding points at the first line past the limit.",
        '"Keep your main `SKILL.md` under 500 lines. Move detailed reference material to '
        'separate files."',
        "a SKILL.md whose body has 501 lines",
    ),
    Rule(
        "skill_entry_skipped",
        "warning",
        "a folder below a skill root is not a skill",
        "Every folder directly below a skill root must hold a SKILL.md (hidden entries and "
        "plain files are ignored).",
        '"A skill is a directory containing, at minimum, a `SKILL.md` file".',
        ".agents/skills/notes/ holding only README.md",
    ),
    Rule(
        "skill_overridden",
        "warning",
        "a skill of the same name in a later root wins",
        "Two roots hold a skill of the same name; discovery keeps the later root's.",
        _BEYOND,
        ".agents/skills/pdf/SKILL.md and .claude/skills/pdf/SKILL.md",
    ),
    Rule(
        "no_skills_found",
        "error",
        "no skill was checked",
        "Linting zero skills is reported, never a silent pass: the paths given hold no "
        "SKILL.md in any root lint knows (see the hint in the message).",
        _BEYOND,
        "a13n-skills lint src/",
    ),
    Rule(
        "skill_permission_denied",
        "error",
        "a read was refused",
        "A skill root, folder or SKILL.md could not be read, or a symbolic link leads out of "
        "the workspace (which discovery never follows).",
        _BEYOND,
        ".agents/skills/leak -> /etc",
    ),
    Rule(
        "skill_root_missing",
        "error",
        "a root given with --root does not exist",
        "Roots named with `--root` are required; the default roots are optional.",
        _BEYOND,
        "a13n-skills lint --root /skillz",
    ),
    Rule(
        "skill_root_unsupported",
        "error",
        "a root given with --root is not a directory",
        "A required root must be a directory.",
        _BEYOND,
        "a13n-skills lint --root /README.md",
    ),
    Rule(
        "skill_root_overflow",
        "error",
        "a root lists more entries than discovery reads",
        "Discovery refuses a root with more than 256 entries instead of cutting the listing.",
        _BEYOND,
        "a root holding 300 folders",
    ),
    Rule(
        "skill_name_conflict",
        "error",
        "two skills of one root share a name",
        "Within one root every skill's name must be unique.",
        _BEYOND + ' (implied by "Must match the parent directory name")',
        "skills/a/SKILL.md and skills/b/SKILL.md both holding `name: a`",
    ),
    Rule(
        "skill_root_invalid",
        "error",
        "a --root value is not a canonical path",
        "Roots start with `/` (the workspace) and hold no empty, `.` or `..` segment.",
        _BEYOND,
        "a13n-skills lint --root skills/../x",
    ),
    Rule(
        "skill_provider_failed",
        "error",
        "the file system failed",
        "Any other failure of the file system while scanning.",
        _BEYOND,
        "an I/O error reading a SKILL.md",
    ),
)
"""Every rule, in the order ``docs/rules.md`` lists them."""

_SCAN_ERROR_RULE = "skill_provider_failed"


def rule_markdown(rule: Rule) -> str:
    """The Markdown help of ``rule``: its section body in ``docs/rules.md`` and SARIF ``help``."""
    example = rule.example.replace("```", "` ` `")
    return (
        f"{rule.checks}\n\n"
        f"- Severity: `{rule.severity}`\n"
        f"- Source: {rule.source}\n\n"
        f"Failing example:\n\n```\n{example}\n```\n"
    )


_RULES_PREAMBLE = """\
# Lint rules

<!-- Generated by rules_document() in core/a13n_harness/cli/_rules.py from its RULES table;
     properties/test_lint.py fails when this file and the table differ. -->

`a13n-skills lint` checks skills against the
[Agent Skills specification](https://agentskills.io/specification) and a few rules beyond it.
Every finding reads `path:line:column: severity: rule: message`; `error` fails the run
(exit 1), `warning` does not. Each rule below gives its id, its severity, what it checks,
the sentence of the specification it comes from (or "beyond the specification") and a
failing example.

Lint is stricter than discovery by design: `a13n-skills catalog` and `SkillManager` keep
listing a skill whose description is too long (cut to 1,024 characters, with a
diagnostic) or whose name differs from its folder, because real published skills do both;
lint reports both as errors, because the specification says "must".

Where this tool and the reference validator (`skills-ref`, command `agentskills`) differ
by design:

- Names are ASCII (`a-z`, `0-9`, `-`). The specification's wording ("unicode lowercase
  alphanumeric characters (`a-z`)") is ambiguous; `skills-ref` admits any Unicode
  lowercase letter. A name is an identity and a folder name, and identities admit no
  look-alikes, so `café` is an error here.
- Values are typed as a YAML 1.2 reader types them: `version: 1.0` under `metadata` is a
  number, not the string the specification requires (quote it: `version: "1.0"`).
  `skills-ref` reads YAML with strictyaml, which keeps every scalar a string, and accepts it.
- `license` and `allowed-tools` are type-checked, and the body's file references, its
  length and the file's encoding are checked; `skills-ref` checks none of these (it
  crashes on a SKILL.md that is not UTF-8).

"""


def rules_document() -> str:
    """The text of ``docs/rules.md``: every rule of :data:`RULES`, in order."""
    sections = [
        f"## {rule.id}\n\n{rule.title[0].upper()}{rule.title[1:]}.\n\n{rule_markdown(rule)}"
        for rule in RULES.values()
    ]
    index = "| rule | severity | from the specification |\n|---|---|---|\n" + "".join(
        f"| [`{rule.id}`](#{rule.id}) | {rule.severity} | "
        f"{'no' if rule.source.startswith(_BEYOND) else 'yes'} |\n"
        for rule in RULES.values()
    )
    return _RULES_PREAMBLE + index + "\n" + "\n".join(sections)


def rule_for_error(code: str) -> str:
    """The rule id a scan's ``DefinitionError`` code is reported under."""
    return code if code in RULES else _SCAN_ERROR_RULE


@dataclass(frozen=True, slots=True)
class Issue:
    """One finding inside a SKILL.md (1-based line and column, in code points)."""

    rule: str
    line: int
    column: int
    message: str


@dataclass(frozen=True, slots=True)
class Reference:
    """A relative file reference of the body, to be resolved against the skill folder."""

    target: str
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class DocumentCheck:
    """What :func:`check_document` found in one SKILL.md."""

    issues: tuple[Issue, ...]
    references: tuple[Reference, ...]


# ------------------------------------------------------------------ positions


class _Text:
    """The decoded file with line starts, so positions are computed one way everywhere."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, index: int) -> tuple[int, int]:
        """1-based line and column of code point ``index``."""
        low, high = 0, len(self._starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self._starts[middle] <= index:
                low = middle
            else:
                high = middle - 1
        return low + 1, index - self._starts[low] + 1

    def index(self, line: int, column: int) -> int:
        """The code point index of a 1-based ``line`` and ``column`` (clamped to the text)."""
        start = self._starts[min(max(line, 1), len(self._starts)) - 1]
        return min(start + max(column, 1) - 1, len(self.text))

    @property
    def line_count(self) -> int:
        return len(self._starts) - (1 if self.text.endswith("\n") else 0)


def _decode(data: bytes) -> tuple[str | None, Issue | None]:
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    try:
        return body.decode("utf-8"), None
    except UnicodeDecodeError as error:
        prefix = body[: error.start]
        line = prefix.count(b"\n") + 1
        column = len(prefix[prefix.rfind(b"\n") + 1 :].decode("utf-8")) + 1
        bad = body[error.start : error.end].hex(" ")
        return None, Issue(
            "skill_encoding_invalid",
            line,
            column,
            f"SKILL.md is not valid UTF-8: byte(s) {bad} at byte offset {error.start} "
            f"({error.reason})",
        )


# ---------------------------------------------------------------- YAML nodes


@dataclass(frozen=True, slots=True)
class _Scalar:
    value: str
    plain: bool
    index: int


@dataclass(frozen=True, slots=True)
class _Mapping:
    pairs: tuple[tuple[_Scalar, _Node], ...]
    index: int


@dataclass(frozen=True, slots=True)
class _Sequence:
    items: tuple[_Node, ...]
    index: int


_Node = _Scalar | _Mapping | _Sequence

_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN"
)


def _core_type(node: _Node) -> str | None:
    """What a YAML 1.2 core-schema reader makes of ``node`` when it is not a string."""
    if isinstance(node, _Mapping):
        return "a map"
    if isinstance(node, _Sequence):
        return "a list"
    if not node.plain:
        return None
    if _NULL.fullmatch(node.value):
        return "null (empty)" if not node.value else f"null ({node.value})"
    if _BOOL.fullmatch(node.value):
        return f"the boolean {node.value}"
    if _INT.fullmatch(node.value) or _FLOAT.fullmatch(node.value):
        return f"the number {node.value}"
    return None


_SOURCE: type = yaml.CBaseLoader if yaml.__with_libyaml__ else yaml.BaseLoader


def _frontmatter_nodes(frontmatter: str) -> _Mapping:
    """The frontmatter's root mapping; only called once the parser's guards have passed.

    Built with an explicit stack (never recursion); indexes are code points of
    ``frontmatter``.
    """
    stack: list[tuple[list[_Node], int, bool]] = []  # (children, index, is_mapping)
    root: _Node | None = None
    for event in yaml.parse(frontmatter, Loader=_SOURCE):
        index = event.start_mark.index if event.start_mark is not None else 0
        node: _Node
        if isinstance(event, yaml.ScalarEvent):
            node = _Scalar(event.value, bool(event.implicit[0]), index)
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            stack.append(([], index, isinstance(event, yaml.MappingStartEvent)))
            continue
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            children, start, is_mapping = stack.pop()
            if is_mapping:
                keys = children[0::2]
                values = children[1::2]
                node = _Mapping(
                    tuple(
                        (key, value)
                        for key, value in zip(keys, values, strict=True)
                        if isinstance(key, _Scalar)
                    ),
                    start,
                )
            else:
                node = _Sequence(tuple(children), start)
        else:
            continue
        if stack:
            stack[-1][0].append(node)
        else:
            root = node
    if not isinstance(root, _Mapping):  # pragma: no cover - the parser refused it already
        return _Mapping((), 0)
    return root


# ------------------------------------------------------------------- fields

_NAME_CHARS = re.compile(r"[a-z0-9-]*", re.ASCII)
# The parser's refusals of the document's structure: every frontmatter reason
# but the four about name and description, which the field checks below report
# in the specification's own words.
_STRUCTURAL = FRONTMATTER_REASONS - {
    "missing_name",
    "name_invalid",
    "missing_description",
    "description_invalid",
}
_FENCE_LINE = re.compile(r"---[ \t]*(?:\r?\n|\Z)")


class _Checker:
    def __init__(self, text: _Text, offset: int) -> None:
        self.text = text
        self.offset = offset  # code point index of the frontmatter in the file
        self.issues: list[Issue] = []

    def add(self, rule: str, node_index: int, message: str) -> None:
        line, column = self.text.where(self.offset + node_index)
        self.issues.append(Issue(rule, line, column, message))

    def string(self, rule: str, field: str, node: _Node) -> str | None:
        """The field's string value, or ``None`` after reporting why it is not one."""
        kind = _core_type(node)
        if kind is not None:
            hint = "; quote it" if isinstance(node, _Scalar) and node.value else ""
            self.add(rule, node.index, f"{field} must be a string, not {kind}{hint}")
            return None
        assert isinstance(node, _Scalar)
        if has_lone_surrogate(node.value):
            self.add(
                "skill_encoding_invalid",
                node.index,
                f"{field} holds a lone surrogate (a YAML escape such as \\ud800), "
                "which UTF-8 cannot carry",
            )
            return None
        return node.value

    def name(self, node: _Node, folder: str | None) -> None:
        value = self.string("skill_name_invalid", "name", node)
        if value is None:
            return
        problems = []
        if not 1 <= len(value) <= NAME_MAX_CHARS:
            problems.append(f"must be 1-{NAME_MAX_CHARS} characters (it has {len(value)})")
        if not _NAME_CHARS.fullmatch(value):
            problems.append("may only hold lowercase a-z, digits 0-9 and hyphens")
        if value.startswith("-") or value.endswith("-"):
            problems.append("must not start or end with a hyphen")
        if "--" in value:
            problems.append("must not contain consecutive hyphens")
        if problems:
            self.add("skill_name_invalid", node.index, f"name {value!r} " + "; ".join(problems))
        if folder is not None and value != folder:
            self.add(
                "skill_name_mismatch",
                node.index,
                f"name {value!r} differs from its folder {folder!r}",
            )

    def description(self, node: _Node) -> None:
        value = self.string("skill_description_invalid", "description", node)
        if value is None:
            return
        if not value.strip():
            self.add("skill_description_invalid", node.index, "description is empty")
        elif len(value) > DESCRIPTION_MAX_CHARS:
            self.add(
                "skill_description_too_long",
                node.index,
                f"description has {len(value)} characters; the limit is {DESCRIPTION_MAX_CHARS}",
            )

    def compatibility(self, node: _Node) -> None:
        value = self.string("skill_compatibility_invalid", "compatibility", node)
        if value is None:
            return
        if not value:
            self.add("skill_compatibility_invalid", node.index, "compatibility is empty")
        elif len(value) > COMPATIBILITY_MAX_CHARS:
            self.add(
                "skill_compatibility_invalid",
                node.index,
                f"compatibility has {len(value)} characters; the limit is "
                f"{COMPATIBILITY_MAX_CHARS}",
            )

    def metadata(self, node: _Node) -> None:
        if not isinstance(node, _Mapping):
            kind = _core_type(node) or "a string"
            self.add("skill_metadata_invalid", node.index, f"metadata must be a map, not {kind}")
            return
        for key, value in node.pairs:
            key_kind = _core_type(key)
            if key_kind is not None:
                self.add(
                    "skill_metadata_invalid",
                    key.index,
                    f"metadata key must be a string, not {key_kind}; quote it",
                )
            self.string("skill_metadata_invalid", f"metadata value {key.value!r}", value)

    def allowed_tools(self, node: _Node) -> None:
        if isinstance(node, _Sequence):
            for item in node.items:
                self.string("skill_allowed_tools_invalid", "each allowed-tools item", item)
            return
        kind = _core_type(node)
        if kind is not None:
            self.add(
                "skill_allowed_tools_invalid",
                node.index,
                f"allowed-tools must be a space-delimited string or a list of strings, not {kind}",
            )
            return
        self.string("skill_allowed_tools_invalid", "allowed-tools", node)


_SURROGATE_ESCAPE = re.compile(r"\\?(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F])")


def _surrogate_escape_at(text: _Text, line: int | None, column: int | None) -> bool:
    """Whether libyaml's refusal at ``line:column`` is a ``\\uD800``-style escape."""
    if line is None or column is None:
        return False
    index = text.index(line, column)
    return any(_SURROGATE_ESCAPE.match(text.text, start) for start in (max(index - 1, 0), index))


def check_document(data: bytes, folder: str | None) -> DocumentCheck:
    """Check one SKILL.md's bytes; ``folder`` is the name of the folder holding it.

    Returns the issues in file order and the relative file references of the
    body (resolved by the caller). Never raises for any input.
    """
    if len(data) > DOCUMENT_MAX_BYTES:
        return DocumentCheck(
            (
                Issue(
                    "skill_document_too_large",
                    1,
                    1,
                    f"SKILL.md has more than {DOCUMENT_MAX_BYTES} bytes and is not checked",
                ),
            ),
            (),
        )
    decoded, failure = _decode(data)
    if decoded is None:
        assert failure is not None
        return DocumentCheck((failure,), ())
    text = _Text(decoded)
    try:
        parse_skill_document(data, FrontmatterLimits())
    except FrontmatterError as error:
        if error.reason == "yaml_syntax" and _surrogate_escape_at(text, error.line, error.column):
            return DocumentCheck(
                (
                    Issue(
                        "skill_encoding_invalid",
                        error.line or 1,
                        error.column or 1,
                        "a YAML escape here yields a lone surrogate, which UTF-8 cannot carry",
                    ),
                ),
                (),
            )
        if error.reason in _STRUCTURAL:
            return DocumentCheck(
                (
                    Issue(
                        "skill_frontmatter_invalid",
                        error.line or 1,
                        error.column or 1,
                        f"{error.message} ({error.reason})",
                    ),
                ),
                (),
            )
    opening = _FENCE_LINE.match(decoded)
    assert opening is not None  # the parser found it
    closing = _FENCE_LINE.search(decoded, opening.end())
    while closing is not None and closing.start() > 0 and decoded[closing.start() - 1] != "\n":
        closing = _FENCE_LINE.search(decoded, closing.start() + 1)
    assert closing is not None  # the parser found it
    frontmatter = decoded[opening.end() : closing.start()]
    checker = _Checker(text, opening.end())
    root = _frontmatter_nodes(frontmatter)
    fields: dict[str, tuple[_Scalar, _Node]] = {}
    for key, value in root.pairs:
        fields[key.value] = (key, value)
        if key.value not in SPEC_FIELDS:
            checker.add(
                "skill_field_unknown",
                key.index,
                f"field {key.value!r} is not one of the specification's six "
                f"({', '.join(SPEC_FIELDS)}); put it under metadata",
            )
    if "name" in fields:
        checker.name(fields["name"][1], folder)
    else:
        checker.issues.append(Issue("skill_name_missing", 1, 1, "the frontmatter has no name"))
    if "description" in fields:
        checker.description(fields["description"][1])
    else:
        checker.issues.append(
            Issue("skill_description_missing", 1, 1, "the frontmatter has no description")
        )
    if "license" in fields:
        checker.string("skill_license_invalid", "license", fields["license"][1])
    if "compatibility" in fields:
        checker.compatibility(fields["compatibility"][1])
    if "metadata" in fields:
        checker.metadata(fields["metadata"][1])
    if "allowed-tools" in fields:
        checker.allowed_tools(fields["allowed-tools"][1])

    body_start = closing.end()
    body_first_line = text.where(body_start)[0] if body_start < len(decoded) else None
    if body_first_line is not None:
        body_lines = text.line_count - body_first_line + 1
        if body_lines > BODY_MAX_LINES:
            checker.issues.append(
                Issue(
                    "skill_body_too_long",
                    body_first_line + BODY_MAX_LINES,
                    1,
                    f"the body has {body_lines} lines; keep SKILL.md under {BODY_MAX_LINES} "
                    "and move detail into referenced files",
                )
            )
    references = tuple(_references(text, body_start))
    issues = sorted(checker.issues, key=lambda issue: (issue.line, issue.column, issue.rule))
    return DocumentCheck(tuple(issues), references)


# --------------------------------------------------------------- references

_CODE_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)")
_LINK = re.compile(
    r"!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>\n]*>|[^\s()]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)
_DEFINITION = re.compile(r" {0,3}\[(?:[^\]\\]|\\.)+\]:\s*(<[^>\n]*>|\S+)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_CODE_PATH = re.compile(r"(?:\./)?(?:scripts|references|assets)/[^\s`*?{}\[\]<>$|;&'\"]+")


def _link_target(raw: str) -> str | None:
    """The file path a Markdown link target names, or ``None`` for a URL or an anchor."""
    target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    if not target or target.startswith(("#", "//")):
        return None
    if _SCHEME.match(target):
        return None
    target = target.split("#", 1)[0].split("?", 1)[0]
    return urllib.parse.unquote(target) if target else None


def _references(text: _Text, body_start: int) -> Iterator[Reference]:
    """Relative file references of the body, outside fenced code blocks."""
    decoded = text.text
    fence: str | None = None
    position = body_start
    while position < len(decoded):
        end = decoded.find("\n", position)
        end = len(decoded) if end < 0 else end + 1
        line = decoded[position:end].rstrip("\r\n")
        opened = _CODE_FENCE.match(line)
        if fence is not None:
            marker = opened.group(1) if opened else ""
            closes = marker[:1] == fence[0] and len(marker) >= len(fence)
            if closes and not line.strip().strip(fence[0]):
                fence = None
        elif opened:
            fence = opened.group(1)
        else:
            yield from _line_references(text, line, position)
        position = end


def _line_references(text: _Text, line: str, start: int) -> Iterator[Reference]:
    found: list[tuple[int, str]] = []
    blanked = line
    for span in _CODE_SPAN.finditer(line):
        content = span.group(2).strip()
        if _CODE_PATH.fullmatch(content):
            found.append((span.start(2) + span.group(2).index(content), content))
        # Links inside a code span are text, not links.
        blanked = (
            blanked[: span.start()] + " " * (span.end() - span.start()) + blanked[span.end() :]
        )
    for link in _LINK.finditer(blanked):
        target = _link_target(link.group(1))
        if target is not None:
            found.append((link.start(1), target))
    definition = _DEFINITION.match(blanked)
    if definition:
        target = _link_target(definition.group(1))
        if target is not None:
            found.append((definition.start(1), target))
    for column, target in sorted(found):
        line_number, column_number = text.where(start + column)
        yield Reference(target, line_number, column_number)
