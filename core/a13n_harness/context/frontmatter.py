"""SKILL.md frontmatter (docs/contract.md §2).

Grammar of the document prefix this module reads::

    document     = [BOM] fence frontmatter fence-or-eof ...
    BOM          = %xEF.BB.BF                      ; one, skipped
    fence        = "---" *( " " / HTAB ) ( LF / CRLF )
    fence-or-eof = "---" *( " " / HTAB ) ( LF / CRLF / end of data )
    frontmatter  = *line                            ; at most max_bytes bytes, strict UTF-8

Only the fences and the frontmatter are decoded and parsed: the body after the
closing fence is not examined, so parsing a bounded prefix of a file gives the
same answer as parsing the whole file.

The frontmatter is read through PyYAML's *event* stream (libyaml's C parser when
present), never its composer or constructor: those recurse and type scalars.
Every guard (one document, mapping root, no anchors, aliases or tags, scalar
keys, no duplicate keys, depth, node count) is checked as events arrive, so the
work done is bounded by ``max_bytes`` whatever the input.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import yaml
from yaml import events as _events

from a13n_harness.context._checks import (
    has_lone_surrogate,
    is_bytes_like,
    is_count,
    is_kind,
    plain_bytes,
    plain_fields,
    plain_str,
    utf8_error_at,
)
from a13n_harness.context.errors import DefinitionError, FrontmatterError

__all__ = [
    "NAME_MAX_CHARS",
    "FrontmatterLimits",
    "FrontmatterSpan",
    "SkillFrontmatter",
    "decisive_prefix",
    "find_frontmatter",
    "is_valid_name",
    "normalize_description",
    "parse_skill_document",
    "undecided",
]

NAME_MAX_CHARS = 64  # the Agent Skills name rule; a name is also a folder name and an identity
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*", re.ASCII)
_BOM = b"\xef\xbb\xbf"
_FENCE = re.compile(rb"---[ \t]*(?:\r?\n|\Z)")
_ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"

if yaml.__with_libyaml__:  # pragma: no branch - depends on how PyYAML was built
    # CParser alone: the event stream without a constructor or resolver to set up.
    _EventSource: type = yaml._yaml.CParser
else:  # pragma: no cover
    _EventSource = yaml.BaseLoader


@dataclass(frozen=True, slots=True)
class FrontmatterLimits:
    """Bounds on what one SKILL.md may make the parser do.

    A bad limit is a programming error and raises ``ValueError``.
    """

    # 32 KiB: thirty times the longest real frontmatter seen, and small enough
    # that reading it for 512 skills stays a few MB.
    max_bytes: int = 32_768
    # 16: real frontmatter nests 2-3 levels (metadata maps); 16 leaves room
    # for tooling keys while refusing nesting bombs early.
    max_depth: int = 16
    # 1,024: an order of magnitude above the largest real frontmatter, and the
    # cap that keeps the duplicate-key sets small.
    max_nodes: int = 1_024
    # 1,024: the Agent Skills description limit; longer ones are cut, not refused.
    max_description_chars: int = 1_024

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's int subclass as its plain number, then checked
        problem = _limits_problem(self)
        if problem is not None:
            raise ValueError(problem)


_LIMIT_FIELDS = ("max_bytes", "max_depth", "max_nodes", "max_description_chars")


def _limits_problem(limits: object) -> str | None:
    """What is wrong with ``limits``, or ``None``: also run on every parse, so limits
    forged past the constructor (``object.__setattr__``) are refused there too."""
    if not isinstance(limits, FrontmatterLimits):
        return f"limits must be a FrontmatterLimits, got {type(limits).__name__}"
    for field in _LIMIT_FIELDS:
        value = getattr(limits, field, None)
        if not is_count(value, 1):
            return f"FrontmatterLimits.{field} must be a positive int"
    return None


@dataclass(frozen=True, slots=True)
class SkillFrontmatter:
    """The parts of a SKILL.md frontmatter the catalog uses."""

    name: str
    description: str
    description_truncated: bool
    # ``disable-model-invocation`` (docs/contract.md §10): the skill is activated by the user
    # only and left out of the model's catalog. Fails closed: any value but a plain
    # (unquoted) ``false`` or null (``~``, ``null``, empty) disables, as a JavaScript host
    # reads a quoted "false" or a ``yes`` as true.
    disable_model_invocation: bool = False

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's str subclass as the plain str of its characters


def is_valid_name(name: object) -> bool:
    """Whether ``name`` is a skill name: ASCII ``[a-z0-9]+(-[a-z0-9]+)*``, at most 64 characters."""
    name = plain_str(name)  # a Host's str subclass: its characters, none of its methods
    return is_kind(name, str) and len(name) <= NAME_MAX_CHARS and _NAME.fullmatch(name) is not None


def normalize_description(text: str, max_chars: int = 1_024) -> tuple[str, bool]:
    """Collapse every whitespace run to one space, strip, and cut to ``max_chars``.

    Returns the description and whether it was cut. A cut keeps
    ``max_chars - 1`` code points and appends ``…``. A ``text`` that is not a
    ``str`` is ``description_invalid``; a ``max_chars`` that is not a positive
    ``int`` is ``skill_frontmatter_invalid`` with reason ``limits``.
    """
    text = plain_str(text)  # type: ignore[assignment]  # a Host's subclass: its characters
    if not is_kind(text, str):
        raise FrontmatterError("description_invalid", "a description must be a str")
    if not is_count(max_chars, 1):
        raise DefinitionError(
            "skill_frontmatter_invalid", "max_chars must be a positive int", reason="limits"
        )
    collapsed = " ".join(text.split())
    if len(collapsed) <= max_chars:
        return collapsed, False
    return collapsed[: max_chars - 1] + _ELLIPSIS, True


def parse_skill_document(
    data: bytes, limits: FrontmatterLimits = FrontmatterLimits()
) -> SkillFrontmatter:
    """Parse the frontmatter of a SKILL.md given as bytes.

    Raises :class:`FrontmatterError` (code ``skill_frontmatter_invalid``) with a
    ``reason`` and, where known, a 1-based ``line`` and ``column`` counted in
    the whole file (the opening fence is line 1).

    ``data`` must be ``bytes``, ``bytearray`` or ``memoryview``; anything else
    (a ``str``, whose encoding is unknown, ``None``, an ``int``) is refused with
    reason ``encoding``. ``limits`` that are not a valid ``FrontmatterLimits``
    (forged past its constructor) are ``skill_frontmatter_invalid`` with reason
    ``limits``.
    """
    if not is_bytes_like(data):
        raise FrontmatterError(
            "encoding", f"a SKILL.md must be bytes, got {type(data).__name__}", line=1, column=1
        )
    return _parse(data, limits, None)


class ParseRecord:
    """What one parse saw, for a caller that reads the frontmatter further (lint): where the
    fences are, the frontmatter's text and every YAML event, in order. Filled as the parse
    goes (a refusal leaves what was found before it), so one parse serves both.

    A plain class, like :class:`_Field`: nothing compares or prints it.
    """

    __slots__ = ("events", "span", "text")

    def __init__(self) -> None:
        self.span: FrontmatterSpan | None = None
        self.text: str | None = None  # the frontmatter, decoded
        self.events: list[_events.Event] = []


def parse_recorded(
    data: bytes, record: ParseRecord, limits: FrontmatterLimits = FrontmatterLimits()
) -> SkillFrontmatter:
    """:func:`parse_skill_document`, also filling ``record`` (:class:`ParseRecord`) with the
    span, the frontmatter and the YAML events it streamed: the same verdict, the same work.
    Lint's (:mod:`a13n_harness.context.lint`), so not in ``__all__``."""
    if not isinstance(record, ParseRecord):
        raise DefinitionError("skill_frontmatter_invalid", "record must be a ParseRecord")
    if not is_bytes_like(data):
        raise FrontmatterError(
            "encoding", f"a SKILL.md must be bytes, got {type(data).__name__}", line=1, column=1
        )
    return _parse(data, limits, record)


def _parse(data: bytes, limits: FrontmatterLimits, record: ParseRecord | None) -> SkillFrontmatter:
    problem = _limits_problem(limits)
    if problem is not None:
        raise DefinitionError("skill_frontmatter_invalid", problem, reason="limits")
    # bytes(data) would run a subclass's __bytes__: the base type copies the buffer itself.
    text, span = _frontmatter_text(plain_bytes(data), limits.max_bytes)  # type: ignore[arg-type]
    if record is not None:
        record.span, record.text = span, text
    name, description, invocation = _scan_events(
        text, limits, None if record is None else record.events
    )

    def refuse(reason: str, message: str, field: _Field) -> FrontmatterError:
        # Located only when refused: one O(index) count per parse, never one per value.
        line, column = _locate(text, field.index)
        return FrontmatterError(reason, message, line=line, column=column)

    if name is None:
        raise FrontmatterError("missing_name", "frontmatter has no name")
    if not isinstance(name.value, str) or not is_valid_name(name.value):
        raise refuse(
            "name_invalid",
            "name must be a scalar of lowercase ASCII letters, digits and single hyphens, "
            f"at most {NAME_MAX_CHARS} characters",
            name,
        )
    if description is None:
        raise FrontmatterError("missing_description", "frontmatter has no description")
    if not isinstance(description.value, str):
        raise refuse("description_invalid", "description must be a scalar", description)
    if has_lone_surrogate(description.value):
        # A YAML escape such as "\ud800" yields one; libyaml refuses it, the
        # pure parser does not, and no catalog can hold it.
        raise refuse("description_invalid", "description holds a lone surrogate", description)
    text_value, truncated = normalize_description(description.value, limits.max_description_chars)
    if not text_value:
        raise refuse("description_invalid", "description is empty", description)
    disabled = invocation is not None and invocation.value not in _INVOCABLE
    return SkillFrontmatter(name.value, text_value, truncated, disabled)


@dataclass(frozen=True, slots=True)
class FrontmatterSpan:
    """Where the parser found the frontmatter: byte offsets into the SKILL.md's bytes.

    ``start`` is the first byte after the opening fence's line (after a leading BOM),
    ``end`` the first byte of the closing fence's line, ``body`` the first byte after
    that line (the body's start; the length of the data when the file ends there).
    """

    start: int
    end: int
    body: int

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's int subclass as its plain number


def find_frontmatter(
    data: bytes, limits: FrontmatterLimits = FrontmatterLimits()
) -> FrontmatterSpan:
    """The fences of a SKILL.md given as bytes, found as :func:`parse_skill_document`
    finds them (the same scan): lint reads the frontmatter and the body from here.

    Raises :class:`FrontmatterError` with reason ``missing_fence``, ``unterminated``,
    ``too_large`` (past ``limits.max_bytes``) or ``encoding`` (``data`` that is not bytes,
    or a frontmatter that is not UTF-8); ``limits`` that are not a valid
    ``FrontmatterLimits`` are reason ``limits``.
    """
    data = plain_bytes(data)  # type: ignore[assignment]
    if not is_bytes_like(data):
        raise FrontmatterError(
            "encoding", f"a SKILL.md must be bytes, got {type(data).__name__}", line=1, column=1
        )
    problem = _limits_problem(limits)
    if problem is not None:
        raise DefinitionError("skill_frontmatter_invalid", problem, reason="limits")
    return _frontmatter_text(bytes(data), limits.max_bytes)[1]


def _frontmatter_text(data: bytes, max_bytes: int) -> tuple[str, FrontmatterSpan]:
    """Find the fences and return the frontmatter between them, decoded, and where it is."""
    start = len(_BOM) if data.startswith(_BOM) else 0
    opening = _FENCE.match(data, start)
    if opening is None or not data[: opening.end()].endswith(b"\n"):
        raise FrontmatterError("missing_fence", "line 1 must be ---", line=1, column=1)
    body_start = opening.end()
    position = body_start
    # Scan line by line, never past max_bytes of frontmatter plus one fence line.
    while True:
        closing = _FENCE.match(data, position)
        if closing:
            break
        newline = data.find(b"\n", position, body_start + max_bytes + 1)
        if newline < 0:
            if len(data) - body_start > max_bytes:
                raise FrontmatterError(
                    "too_large", f"frontmatter exceeds {max_bytes} bytes", line=2, column=1
                )
            raise FrontmatterError("unterminated", "no closing --- line", line=2, column=1)
        position = newline + 1
        if position - body_start > max_bytes:
            raise FrontmatterError(
                "too_large", f"frontmatter exceeds {max_bytes} bytes", line=2, column=1
            )
    span = FrontmatterSpan(body_start, position, closing.end())
    try:
        return data[body_start:position].decode("utf-8"), span
    except UnicodeDecodeError as error:
        line, column = utf8_error_at(data, body_start + error.start)
        raise FrontmatterError(
            "encoding", "frontmatter is not valid UTF-8", line=line, column=column
        ) from None


# ------------------------------------------------ the fence decision of a bounded read
#
# Discovery reads a bounded prefix of each SKILL.md. The two functions below tell
# whether that prefix gives the verdict the whole file gives; they mirror the fence
# scan of :func:`_frontmatter_text` just above (and live beside it so that a change to
# one is seen next to the other, and mutation testing covers both).

_BLANKS = b" \t"


def _check_bytes_and_counts(data: object, *counts: object) -> bytes:
    if not is_kind(data, bytes):
        raise DefinitionError("skill_provider_failed", "document data must be bytes")
    for count in counts:
        if not is_count(count):
            raise DefinitionError("skill_provider_failed", "limits must be non-negative ints")
    plain: bytes = plain_bytes(data)  # type: ignore[assignment]  # a subclass: its bytes
    return plain


def _fence_end(data: bytes, position: int) -> int | None:
    """Where a fence-looking line at ``position`` decides: the offset of the byte after
    ``---`` and its blanks, or ``None`` when ``data`` ends inside ``---`` or the blanks
    (the file's next bytes decide), or ``-1`` when the line is not fence-like at all."""
    size = len(data)
    dashes = data[position : position + 3]
    if dashes != b"---":
        # Three bytes that are not ``---`` never start it: only a read ending inside the
        # dashes (fewer than three bytes left) leaves the line to the next bytes.
        return None if b"---".startswith(dashes) else -1
    end = position + 3
    while end < size and data[end] in _BLANKS:
        end += 1
    if end == size or (data[end] == 0x0D and end + 1 == size):
        return None
    return end


def undecided(data: bytes, max_bytes: int) -> bool:
    """Whether the frontmatter verdict of a file that *continues past* ``data`` may
    depend on the bytes that follow.

    Mirrors the fence scan of :func:`parse_skill_document` (opening fence, then
    each line start up to ``max_bytes`` of frontmatter). The verdict is decided by
    ``data`` alone unless a fence-like line (``---`` and blanks) runs into the end
    of ``data``, or the search for the end of a line reaches past it. When this
    returns ``False``, parsing ``data`` gives exactly what parsing the whole file gives.
    """
    data = _check_bytes_and_counts(data, max_bytes)
    size = len(data)
    if _BOM.startswith(data):
        return True  # a read ending inside a BOM or right after it: the next bytes decide
    start = len(_BOM) if data.startswith(_BOM) else 0
    end = _fence_end(data, start)
    if end is None:
        return True
    if end < 0:
        return False  # missing_fence either way
    if data[end] == 0x0A:
        body_start = end + 1
    elif data[end] == 0x0D and data[end + 1] == 0x0A:
        body_start = end + 2
    else:
        return False  # missing_fence either way
    window = body_start + max_bytes + 1
    position = body_start
    while True:
        end = _fence_end(data, position)
        if end is None:
            return True
        if end >= 0 and (data[end] == 0x0A or (data[end] == 0x0D and data[end + 1] == 0x0A)):
            return False  # the closing fence, whole in data
        newline = data.find(b"\n", position, window)
        if newline < 0:
            return window > size  # the whole file may hold a newline past data
        position = newline + 1
        if position - body_start > max_bytes:
            return False  # too_large either way


def decisive_prefix(data: bytes, limit: int, max_bytes: int) -> bytes | None:
    """The bytes of a read of at most ``limit`` bytes that decide the file's verdict.

    A read shorter than ``limit`` is the whole file. A full one means the file
    may go on: its last byte only proves that, and the rest decides unless
    :func:`undecided`, in which case ``None`` asks for a longer read.
    """
    data = _check_bytes_and_counts(data, limit, max_bytes)
    if len(data) < limit:
        return data
    prefix = data[: limit - 1]
    return None if undecided(prefix, max_bytes) else prefix


class _Field:
    """A top-level value the catalog keeps, and where it starts.

    A plain class, not a dataclass: generating one costs the command's start-up
    about a millisecond, and nothing compares or prints a field.
    """

    __slots__ = ("index", "value")

    def __init__(self, value: str | None, index: int) -> None:
        self.value = value  # None: present but not a scalar
        self.index = index  # code point offset of the value in the frontmatter (0 when unknown)


def _locate(text: str, index: int) -> tuple[int, int]:
    """File line and column of code point ``index`` of the frontmatter.

    Lines are LF-separated, as the fences are (PyYAML's own marks also break
    lines at CR, U+0085, U+2028 and U+2029); the frontmatter starts on file
    line 2; columns count code points from 1.

    O(index): call it once per refusal, never once per event (a count per
    top-level value made many keys quadratic).
    """
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 2, index - line_start + 1


_Scalar = _events.ScalarEvent
_MappingStart = _events.MappingStartEvent
_SequenceStart = _events.SequenceStartEvent
_Ends = (_events.MappingEndEvent, _events.SequenceEndEvent)
_Skipped = (_events.StreamStartEvent, _events.DocumentEndEvent)
_INVOCATION = "disable-model-invocation"
_FIELDS = frozenset({"name", "description", _INVOCATION})  # the top-level values kept
_INVOCABLE = frozenset({"false", "False", "FALSE", "~", "null", "Null", "NULL", ""})
"""Plain values of ``disable-model-invocation`` that leave a skill to the model (YAML 1.2's
false and null); any other value, a quoted one or a collection disables model invocation."""


def _recording(
    get_event: Callable[[], _events.Event], recorded: list[_events.Event]
) -> Callable[[], _events.Event]:
    """``get_event`` that also appends each event to ``recorded``."""
    append = recorded.append

    def recording() -> _events.Event:
        event = get_event()
        append(event)
        return event

    return recording


def _scan_events(
    text: str, limits: FrontmatterLimits, recorded: list[_events.Event] | None = None
) -> tuple[_Field | None, _Field | None, _Field | None]:
    """Stream events, enforce every guard, and pick out ``name``, ``description`` and
    ``disable-model-invocation`` (its value kept only when it is a plain scalar).
    ``recorded``, when given, receives every event streamed (:class:`ParseRecord`).

    The open collections are a stack of key sets (``None`` for a sequence);
    ``expecting_key`` says whether the innermost mapping waits for a key.
    The loop dispatches on the exact event class, scalars first: this is the
    hot path of every scan.
    """

    def _fail(reason: str, message: str, event: _events.Event) -> FrontmatterError:
        mark = event.start_mark
        line, column = _locate(text, mark.index) if mark is not None else (2, 1)
        return FrontmatterError(reason, message, line=line, column=column)

    source = None
    stack: list[set[str] | None] = []
    expecting: list[bool] = []  # expecting_key of each enclosing mapping
    expecting_key = False
    nodes = 0
    max_nodes, max_depth = limits.max_nodes, limits.max_depth
    documents = 0
    fields: dict[str, _Field] = {}
    pending: str | None = None  # the top-level key whose value comes next
    try:
        # Inside the try: the pure parser's reader checks every character
        # when it is built, and refuses with a ReaderError.
        source = _EventSource(text)
        get_event = source.get_event
        if recorded is not None:  # the scan's own loop stays as it is for everyone else
            get_event = _recording(get_event, recorded)
        while True:
            event = get_event()
            kind = type(event)
            if kind is _Scalar or kind is _MappingStart or kind is _SequenceStart:
                if event.anchor is not None:
                    raise _fail("alias", "anchors are not allowed", event)
                if event.tag is not None:
                    raise _fail("tag", "explicit tags are not allowed", event)
                nodes += 1
                if nodes > max_nodes:
                    raise _fail("too_many_nodes", f"more than {max_nodes} nodes", event)
                if not stack and kind is not _MappingStart:
                    raise _fail("not_mapping", "frontmatter must be a mapping", event)
                keys = stack[-1] if stack else None
                if keys is not None and expecting_key:
                    if kind is not _Scalar:
                        raise _fail("non_scalar_key", "mapping keys must be scalars", event)
                    key = event.value
                    if key in keys:
                        raise _fail("duplicate_key", f"duplicate key {key!r}", event)
                    keys.add(key)
                    expecting_key = False
                    pending = key if len(stack) == 1 else None
                    continue
                if pending is not None and len(stack) == 1:
                    if pending in _FIELDS:
                        value = event.value if kind is _Scalar else None
                        if pending == _INVOCATION and value is not None and not event.implicit[0]:
                            value = None  # quoted: a string, not YAML's false
                        mark = event.start_mark
                        fields[pending] = _Field(value, mark.index if mark is not None else 0)
                    pending = None
                if kind is _Scalar:
                    expecting_key = keys is not None
                    continue
                if len(stack) >= max_depth:
                    raise _fail("too_deep", f"nesting deeper than {max_depth}", event)
                expecting.append(keys is not None)
                stack.append(set() if kind is _MappingStart else None)
                expecting_key = kind is _MappingStart
            elif kind in _Ends:
                stack.pop()
                # The collection was a value: its parent mapping now waits for a key.
                expecting_key = expecting.pop()
            elif kind is _events.AliasEvent:
                raise _fail("alias", "aliases are not allowed", event)
            elif kind is _events.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise _fail(
                        "multiple_documents", "frontmatter holds more than one document", event
                    )
            elif kind in _Skipped:
                continue
            else:  # StreamEndEvent, or None once the stream is exhausted
                break
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line, column = _locate(text, mark.index) if mark is not None else (2, 1)
        # libyaml 0.2.6 and later (PyYAML 6.0.4 wheels) refuse nesting past
        # 1,000 in the scanner, which reads ahead of the events our depth guard
        # sees: that refusal is too_deep too, whichever libyaml is installed.
        reason = "too_deep" if "maximum nesting depth" in str(error.problem) else "yaml_syntax"
        raise FrontmatterError(
            reason, str(error.problem or "invalid YAML"), line=line, column=column
        ) from None
    except yaml.YAMLError as error:
        # A ReaderError (an unacceptable character) carries a code point position.
        position = getattr(error, "position", None)
        if type(position) is int and _EventSource is not yaml.BaseLoader:
            # libyaml reports a byte offset into the UTF-8 it was given.
            position = len(text.encode("utf-8")[:position].decode("utf-8", "ignore"))
        line, column = _locate(text, position) if type(position) is int else (2, 1)
        raise FrontmatterError(
            "yaml_syntax", str(error) or "invalid YAML", line=line, column=column
        ) from None
    finally:
        if source is not None:
            source.dispose()
    if nodes == 0:
        raise FrontmatterError("not_mapping", "frontmatter is empty", line=2, column=1)
    return fields.get("name"), fields.get("description"), fields.get(_INVOCATION)
