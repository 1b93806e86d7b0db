"""Inline suppressions of lint findings in a SKILL.md body (pure: no I/O).

A private module of the command line's lint (not a public API of the core: its callers are
``a13n_harness.cli._lint`` and the tests), beside the lint package it serves.

A directive is an HTML comment that is a whole line of the body (blanks around it
allowed), outside fenced code blocks::

    <!-- a13n-skills: disable-next-line skill_reference_missing -->
    <!-- a13n-skills: disable-next-line skill_html_comment, skill_base64_run -- why -->
    <!-- a13n-skills: disable-file skill_body_too_long -->

``disable-next-line RULE[,RULE]`` drops the named rules' findings on the line right after
the directive; ``disable-file RULE[,RULE]`` drops them anywhere in the file (the
frontmatter included). Text after `` -- `` is the author's reason and is not read. A
directive in the frontmatter or in a fenced code block is text, not a directive (a skill
that teaches lint shows them there). A directive naming a rule this version does not
have, an unknown verb or no rule at all is a :class:`SuppressionProblem` (the caller
reports it as ``skill_suppression_invalid``); its known rules still apply.

A directive line is not content: :func:`mask_directives` empties those lines (keeping every
other byte, so every other line and column stays where it was) before the document is
checked, so a directive is never itself reported as a hidden HTML comment.

Cost: one pass over the lines, string operations only (no regular expression), so linear
in the document's length.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from a13n_harness.context.errors import FrontmatterError
from a13n_harness.context.frontmatter import find_frontmatter

__all__ = [
    "DIRECTIVE_PREFIX",
    "Directive",
    "SuppressionProblem",
    "Suppressions",
    "find_suppressions",
    "mask_directives",
]

DIRECTIVE_PREFIX = "a13n-skills:"
_VERBS: dict[str, Literal["next-line", "file"]] = {
    "disable-next-line": "next-line",
    "disable-file": "file",
}
# A message names at most this many characters of what the author wrote: one line each.
_SHOWN_CHARACTERS = 80
_BLANKS = " \t\r"


@dataclass(frozen=True, slots=True)
class Directive:
    """One directive: its 1-based line and column, its scope and the known rules it names."""

    line: int
    column: int
    scope: Literal["next-line", "file"]
    rules: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SuppressionProblem:
    """A directive that does not (wholly) mean what it says, at its 1-based line and column."""

    line: int
    column: int
    message: str


@dataclass(frozen=True, slots=True)
class Suppressions:
    """The directives of one document and the problems found in them."""

    directives: tuple[Directive, ...] = ()
    problems: tuple[SuppressionProblem, ...] = ()
    _file: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _lines: dict[int, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        lines: dict[int, set[str]] = {}
        whole: set[str] = set()
        for directive in self.directives:
            if directive.scope == "file":
                whole.update(directive.rules)
            else:
                lines.setdefault(directive.line + 1, set()).update(directive.rules)
        object.__setattr__(self, "_file", frozenset(whole))
        object.__setattr__(self, "_lines", {k: frozenset(v) for k, v in lines.items()})

    @property
    def lines(self) -> frozenset[int]:
        """The lines that hold a directive."""
        return frozenset(directive.line for directive in self.directives)

    def covers(self, rule: str, line: int) -> bool:
        """Whether a finding of ``rule`` at ``line`` is suppressed."""
        return rule in self._file or rule in self._lines.get(line, ())


def _short(value: str) -> str:
    shown = value if len(value) <= _SHOWN_CHARACTERS else value[:_SHOWN_CHARACTERS] + "..."
    return repr(shown)


def _fence(stripped: str) -> str | None:
    """The fence a line opens or closes (three or more backticks or tildes), else ``None``."""
    marker = stripped[:1]
    if marker not in ("`", "~"):
        return None
    length = len(stripped) - len(stripped.lstrip(marker))
    return marker * length if length >= 3 else None


def _body_start(lines: list[str], data: bytes | None) -> int:
    """The index of the body's first line: after the frontmatter's closing fence as the
    parser finds it (:func:`~a13n_harness.context.frontmatter.find_frontmatter`); for a
    frontmatter the parser refuses, after the first ``---`` line closing an opening one
    (else 0: a document without frontmatter is all body)."""
    if data is not None:
        try:
            return data.count(b"\n", 0, find_frontmatter(data).body)
        except FrontmatterError:
            pass
    if not lines or lines[0].rstrip(_BLANKS).lstrip("\ufeff") != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip(_BLANKS) == "---":
            return index + 1
    return len(lines)  # never closed: no body


def _parse(
    inner: str, line: int, column: int, known: Collection[str]
) -> tuple[Directive | None, list[SuppressionProblem]]:
    """The directive a comment's text (after ``a13n-skills:``) says, and its problems."""
    text = inner.split(" -- ", 1)[0]
    parts = text.split(None, 1)
    problems: list[SuppressionProblem] = []
    if not parts or parts[0] not in _VERBS:
        verb = _short(parts[0]) if parts else "nothing"
        problems.append(
            SuppressionProblem(
                line,
                column,
                f"unknown suppression directive {verb} (known: {', '.join(_VERBS)})",
            )
        )
        return None, problems
    scope = _VERBS[parts[0]]
    named = [rule.strip() for rule in (parts[1] if len(parts) > 1 else "").split(",")]
    named = [rule for rule in named if rule]
    if not named:
        message = f"{parts[0]} names no rule (write {parts[0]} RULE[,RULE])"
        problems.append(SuppressionProblem(line, column, message))
        return None, problems
    rules = tuple(dict.fromkeys(rule for rule in named if rule in known))
    for rule in dict.fromkeys(rule for rule in named if rule not in known):
        problems.append(
            SuppressionProblem(
                line,
                column,
                f"{parts[0]} names the unknown rule {_short(rule)}: nothing of it is "
                "suppressed (docs/rules.md lists the rules)",
            )
        )
    directive = Directive(line, column, scope, rules) if rules else None
    return directive, problems


_NONE = Suppressions((), ())
_PREFIX_BYTES = DIRECTIVE_PREFIX.encode("ascii")


def find_suppressions(data: bytes | str, known: Collection[str]) -> Suppressions:
    """The directives of the document ``data`` (its bytes, or its text); ``known`` are the
    rule ids a directive may name. Lines are split at ``\\n`` as lint counts them."""
    # No directive, no problem: without the prefix the line pass below finds nothing (an
    # ASCII prefix is in the bytes exactly when it is in their text).
    if _PREFIX_BYTES not in data if isinstance(data, bytes) else DIRECTIVE_PREFIX not in data:
        return _NONE
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    lines = text.split("\n")
    directives: list[Directive] = []
    problems: list[SuppressionProblem] = []
    fence: str | None = None
    raw_data = data if isinstance(data, bytes) else None
    for index in range(_body_start(lines, raw_data), len(lines)):
        raw = lines[index]
        stripped = raw.strip(_BLANKS)
        if fence is not None:
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
            continue
        opened = _fence(stripped)
        if opened is not None:
            fence = opened
            continue
        if not (stripped.startswith("<!--") and stripped.endswith("-->") and len(stripped) >= 7):
            continue
        inner = stripped[4:-3].strip(_BLANKS)
        if not inner.startswith(DIRECTIVE_PREFIX):
            continue
        column = len(raw) - len(raw.lstrip(_BLANKS)) + 1
        directive, found = _parse(inner[len(DIRECTIVE_PREFIX) :], index + 1, column, known)
        problems.extend(found)
        # A directive whose every rule is unknown is still a directive line (masked).
        directives.append(directive or Directive(index + 1, column, "next-line", ()))
    return Suppressions(tuple(directives), tuple(problems))


def mask_directives(data: bytes, suppressions: Suppressions) -> bytes:
    """``data`` with each directive line emptied (its line feed kept): what lint checks, so a
    directive is not content (not a hidden comment) and every other position is unchanged."""
    masked = suppressions.lines
    if not masked:
        return data
    lines = data.split(b"\n")
    for line in masked:
        if 0 < line <= len(lines):
            lines[line - 1] = b"\r" if lines[line - 1].endswith(b"\r") else b""
    return b"\n".join(lines)
