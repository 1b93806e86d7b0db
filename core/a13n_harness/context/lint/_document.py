"""The document driver: one SKILL.md's bytes through the parser's guards, the field checks,
the content rules and the reference scanner, to one :class:`DocumentCheck`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a13n_harness.context._checks import is_bytes_like, plain_bytes, plain_fields, plain_str
from a13n_harness.context.errors import FRONTMATTER_REASONS, FrontmatterError
from a13n_harness.context.frontmatter import (
    FrontmatterLimits,
    FrontmatterSpan,
    ParseRecord,
    SkillFrontmatter,
    parse_recorded,
)
from a13n_harness.context.lint._content import (
    _body_size_issue,
    _content_issues,
    _count,
    _value_issues,
)
from a13n_harness.context.lint._fields import _Checker
from a13n_harness.context.lint._nodes import (
    _frontmatter_nodes,
    _Mapping,
    _Node,
    _Scalar,
    _scalars,
)
from a13n_harness.context.lint._references import Reference, _scan_body
from a13n_harness.context.lint._rules import (
    _CONSIDERED_MAX,
    DEFAULT_PROFILE,
    DOCUMENT_MAX_BYTES,
    PROFILES,
    REFERENCES_MAX,
    SPEC_FIELDS,
    Issue,
)
from a13n_harness.context.lint._text import BOM, _decode, _Text

if TYPE_CHECKING:
    from a13n_harness.context.tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class DocumentCheck:
    """What :func:`check_document` found in one SKILL.md."""

    issues: tuple[Issue, ...]
    references: tuple[Reference, ...]

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


# The parser's refusals of the document's structure: every frontmatter reason
# but the four about name and description, which the field checks below report
# in the specification's own words.
_STRUCTURAL = FRONTMATTER_REASONS - {
    "missing_name",
    "name_invalid",
    "missing_description",
    "description_invalid",
}
_SURROGATE_ESCAPE = re.compile(r"\\?(?:u[dD][89a-fA-F]|U0000[dD][89a-fA-F])")


@dataclass(frozen=True, slots=True, eq=False)
class DocumentParse:
    """The one parse of a SKILL.md's bytes lint makes (:func:`parse_document`): the parser's
    verdict (``frontmatter``, or the refusal ``error``), the fences it found (``span``), the
    frontmatter's text and its YAML nodes (``root``, when the parser's guards passed), built
    from the events of that same parse. The checks, the skill's name and discovery's verdict
    all come from it, so each document's YAML is parsed once.
    """

    data: bytes
    frontmatter: SkillFrontmatter | None
    error: FrontmatterError | None
    span: FrontmatterSpan | None
    text: str | None
    root: _Mapping | None

    def holds(self, data: bytes) -> bool:
        """Whether this is also the parse of ``data``: the same bytes, or the same bytes up
        to the end of the closing fence's line, which is all the parser reads (lint's masked
        directive lines are body lines, after it)."""
        if data is self.data:
            return True
        if self.span is None:
            return False
        end = self.span.body
        return len(data) >= end and data[:end] == self.data[:end]


def parse_document(data: bytes) -> DocumentParse:
    """Parse one SKILL.md's bytes once (the parser's guards at the default limits), keeping
    what the checks need: see :class:`DocumentParse`. Never raises for any bytes."""
    record = ParseRecord()
    frontmatter: SkillFrontmatter | None = None
    error: FrontmatterError | None = None
    try:
        frontmatter = parse_recorded(data, record, FrontmatterLimits())
    except FrontmatterError as refused:
        error = refused
    # The events are whole when the parser refused only the name or the description, which
    # it checks after the last event (the field checks report those in their own words).
    root = (
        _frontmatter_nodes(record.events)
        if error is None or error.reason not in _STRUCTURAL
        else None
    )
    return DocumentParse(data, frontmatter, error, record.span, record.text, root)


def _surrogate_escape_at(text: _Text, line: int, column: int) -> bool:
    """Whether libyaml's refusal at ``line:column`` is a ``\\uD800``-style escape."""
    index = text.index(line, column)
    return any(_SURROGATE_ESCAPE.match(text.text, start) for start in (max(index - 1, 0), index))


def check_document(
    data: bytes,
    folder: str | None,
    profile: str = DEFAULT_PROFILE,
    counter: TokenCounter | None = None,
) -> DocumentCheck:
    """Check one SKILL.md's bytes; ``folder`` is the name of the folder holding it.

    ``profile`` is one of :data:`PROFILES` (an unknown one reads as the default).
    Returns the issues in file order and the file references of the body
    (resolved by the caller). Never raises for any bytes; linear in their size.
    ``data`` that is not bytes, or a ``folder`` that is neither a ``str`` nor ``None``,
    is refused with ``skill_frontmatter_invalid`` (reason ``encoding``), as
    :func:`parse_skill_document` refuses it. ``counter`` (a
    :class:`~a13n_harness.context.tokens.TokenCounter`) measures the body in tokens
    instead of lines (``skill_body_too_long``); one that is not a counter or that fails is
    ``allowance_invalid`` (reason ``counter``), as the catalog's rendering reports it.
    """
    return check_parsed(data, None, folder, profile, counter)


def check_parsed(
    data: bytes,
    parsed: DocumentParse | None,
    folder: str | None,
    profile: str = DEFAULT_PROFILE,
    counter: TokenCounter | None = None,
) -> DocumentCheck:
    """:func:`check_document` of ``data`` with its parse made already (:func:`parse_document`),
    when the caller has it: lint's driver parses each SKILL.md once, for discovery, the name
    and these checks. A ``parsed`` that does not hold ``data`` (:meth:`DocumentParse.holds`)
    is not used: ``data`` is parsed here."""
    # A Host's subclass is taken as its plain value: its own methods never decide.
    data, folder, profile = plain_bytes(data), plain_str(folder), plain_str(profile)  # type: ignore[assignment]
    if not is_bytes_like(data):
        raise FrontmatterError(
            "encoding", f"a SKILL.md must be bytes, got {type(data).__name__}", line=1, column=1
        )
    if folder is not None and not isinstance(folder, str):
        raise FrontmatterError(
            "encoding", f"a folder name must be a str, got {type(folder).__name__}"
        )
    if not isinstance(profile, str) or profile not in PROFILES:
        profile = DEFAULT_PROFILE
    data = bytes(data)
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
    if not isinstance(parsed, DocumentParse) or not parsed.holds(data):
        parsed = parse_document(data)
    error = parsed.error
    if error is not None and error.reason in _STRUCTURAL:
        # The parser places every refusal of the structure (frontmatter.py: _locate's
        # line and column, 1 or more, or (2, 1) where YAML gives no mark).
        line, column = error.line, error.column
        assert line is not None
        assert column is not None
        if error.reason == "yaml_syntax" and _surrogate_escape_at(text, line, column):
            return DocumentCheck(
                (
                    Issue(
                        "skill_encoding_invalid",
                        line,
                        column,
                        "a YAML escape here yields a lone surrogate, which UTF-8 cannot carry",
                    ),
                ),
                (),
            )
        return DocumentCheck(
            (
                Issue(
                    "skill_frontmatter_invalid", line, column, f"{error.message} ({error.reason})"
                ),
            ),
            (),
        )
    # The parser's own scan found the fences (it passed them above). Both fence lines are
    # ASCII, so their bytes are code points; the frontmatter between them is decoded.
    span, frontmatter, root = parsed.span, parsed.text, parsed.root
    assert span is not None
    assert frontmatter is not None
    assert root is not None
    start = span.start - (len(BOM) if data.startswith(BOM) else 0)
    end = start + len(frontmatter)
    checker = _Checker(text, start)
    fields: dict[str, tuple[_Scalar, _Node]] = {}
    present = frozenset(key.value for key, _ in root.pairs)
    for key, value in root.pairs:
        fields[key.value] = (key, value)
        if key.value not in SPEC_FIELDS:
            checker.field(key, value, profile, present)
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

    body_start = end + span.body - span.end
    size = _body_size_issue(text, body_start, counter)
    if size is not None:
        checker.issues.append(size)
    written = list(_content_issues(text, start, end, "frontmatter"))
    checker.issues.extend(written)
    reported = {issue.rule for issue in written}
    checker.issues.extend(_value_issues(text, start, _scalars(root), reported))
    body = _scan_body(decoded, body_start, text.where(body_start)[0])
    checker.issues.extend(_content_issues(text, body_start, len(decoded), "body"))
    if body.comments:
        line, column = body.first_comment
        checker.issues.append(
            Issue(
                "skill_html_comment",
                line,
                column,
                f"the body holds {_count(body.comments, 'hidden comment')} (HTML `<!-- -->` "
                "or Markdown `[//]: #`; the first here); rendered Markdown hides it, the model "
                "reads it",
            )
        )
    if body.found > REFERENCES_MAX:
        line, column = (
            (body.references[-1].line, body.references[-1].column)
            if body.references
            else body.limit_at
        )
        checker.issues.append(
            Issue(
                "skill_reference_limit",
                line,
                column,
                f"the body names more than {REFERENCES_MAX} file references (or holds more "
                f"than {_CONSIDERED_MAX} inline-code spans with a slash); those up to here are "
                "checked, the rest are not",
            )
        )
    references = tuple(sorted(body.references, key=lambda r: (r.line, r.column)))
    issues = sorted(checker.issues, key=lambda issue: (issue.line, issue.column, issue.rule))
    return DocumentCheck(tuple(issues), references)
