"""The reference scanner: the file references of a Markdown body, each normalised
lexically, and its hidden comments, in one linear pass (see the package's docstring)."""

from __future__ import annotations

import re
import urllib.parse
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass
from itertools import accumulate, chain
from typing import Literal

from a13n_harness.context._checks import is_kind, plain_fields, plain_str
from a13n_harness.context.errors import FrontmatterError
from a13n_harness.context.lint._rules import _CONSIDERED_MAX, PLACEHOLDERS, REFERENCES_MAX


@dataclass(frozen=True, slots=True)
class Reference:
    """A file reference of the body, normalised lexically; the caller asks the file system.

    ``target`` is the path as written (URL-decoded, escapes and placeholder kept) for
    messages. ``kind`` is ``link`` (a Markdown link, image or link definition) or
    ``code`` (a path in inline code, which the caller keeps only when its first folder
    exists in the skill). ``absolute`` marks a path from the root (``/``, ``~``, a drive);
    otherwise the target is ``path`` (``/``-joined segments, ``""`` for the folder itself)
    below the folder ``climb`` levels above the skill folder (``0``: inside the skill).
    """

    target: str
    line: int
    column: int
    kind: Literal["link", "code"] = "link"
    path: str = ""
    climb: int = 0

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values

    absolute: bool = False


# A fence: three or more backticks or tildes after any indentation (a fence inside a list
# item is indented); a backtick fence's info string holds no backtick.
_FENCE = re.compile(r"[ \t]*+(`{3,}+|~{3,}+)(.*)")
_BACKTICK_SPLIT = re.compile(r"(`++)")
# Link text: characters other than brackets (a backslash escapes one), with bracketed
# groups one level deep (`[see [x]](y)`, `[![img](a.png)](b)`). Every quantifier is
# possessive, so an attempt that fails gives nothing back and stops at the next bracket.
_TEXT = r"(?:[^\[\]\\]|\\.)*+"
_LINK = re.compile(
    r"(?:!\[|\[)(" + _TEXT + r"(?:\[" + _TEXT + r"\]" + _TEXT + r")*+)\]"
    r"\([ \t]*+"
    r"(<(?:[^<>\n\\]|\\.)*+>|(?!<)(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*+\))++)"
    r"(?:[ \t]++(?:\"(?:[^\"\\]|\\.)*+\"|'(?:[^'\\]|\\.)*+'|\((?:[^()\\]|\\.)*+\)))?+"
    r"[ \t]*+\)"
)
_DEFINITION = re.compile(r"[ ]{0,3}\[((?:[^\[\]\\]|\\.)++)\]:[ \t]*+(<(?:[^<>\n\\]|\\.)*+>|\S++)")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]++:")
# Destinations of a definition that points nowhere: rendered Markdown shows nothing of it.
_NOWHERE = ("#", "<>", "<#>")
_FILE_URL = re.compile(r"[Ff][Ii][Ll][Ee]:")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
# A placeholder this tool cannot resolve: ${VAR}, $VAR, {var}, %VAR%, <var>.
_UNKNOWN_PLACEHOLDER = re.compile(r"\$\{?[A-Za-z_]|\{[A-Za-z_][\w-]*+\}|%[A-Za-z_]\w*+%|<[\w-]++>")
# A segment that stands for a name the reader picks, in a path given as a pattern: an
# ellipsis (`assets/...`), a name that says it is one (`filename.md`, `file-name.md`,
# `your-topic.md`), or a word ending in a capital N or X that stands for a number
# (`phaseN.md`, `stepX.md`).
_PLACEHOLDER_SEGMENT = re.compile(
    r"(?:\.{3,}+|\u2026)"
    r"|(?:file[-_]?name|your[-_][\w-]++|[a-z]++[NX])(?:\.\w++)?+"
)
# A comment that carries no instruction: a formatter's or linter's directive (its tool's
# name, then rule ids, switches or `key = value` settings, never words), a short label of a
# template (one to three words, none of them a command), or an attribution line. One line,
# no sentence break: anything longer may be talking to the model.
_DIRECTIVE = re.compile(
    r"(?:prettier|markdownlint|eslint|vale|textlint|cspell|spell-?checker|remark|lychee"
    r"|mdformat|alex|toc|tocstop)[\w:-]*+"
    r"(?:[ \t]++(?:[A-Za-z]*+[0-9][\w.-]*+|[\w-]*+[.:/][\w.:/-]*+|on|off|=|YES|NO|true|false))*+",
    re.IGNORECASE | re.ASCII,
)
_LABEL = re.compile(r"[A-Za-z][a-z]*+(?:[ ](?:[A-Za-z][a-z]*+|[0-9]++)){0,2}+", re.ASCII)
# Words of a command: a label or an attribution holding one may be talking to the model.
_COMMANDS = frozenset(
    (
        "always",
        "never",
        "ignore",
        "disregard",
        "forget",
        "override",
        "run",
        "execute",
        "exec",
        "delete",
        "remove",
        "send",
        "post",
        "upload",
        "download",
        "fetch",
        "curl",
        "read",
        "write",
        "tell",
        "say",
        "print",
        "output",
        "reveal",
        "do",
        "don't",
        "dont",
        "must",
        "should",
        "stop",
        "skip",
        "pretend",
        "act",
        "obey",
        "follow",
        "use",
        "call",
        "install",
        "open",
        "email",
        "leak",
        "exfiltrate",
        "copy",
        "paste",
        "replace",
        "change",
    )
)
_ATTRIBUTION = re.compile(
    r"(?:source:|generated by|auto-generated|copyright|\(c\)|\u00a9|spdx-license-identifier:"
    r"|author:|authors:|adapted from|based on|maintained by)"
    r"(?:[^.;!?\n]|\.(?! ))*+",
    re.IGNORECASE,
)
# A label's or an attribution's length at most: a longer one is prose.
_INERT_MAX = 120


def _inert(text: str) -> bool:
    """Whether a one-line comment's ``text`` carries no instruction (see above)."""
    text = text.strip(" \t")
    if not text or len(text) > _INERT_MAX:
        return not text  # an empty comment hides nothing
    if _DIRECTIVE.fullmatch(text):
        return True
    return bool(_LABEL.fullmatch(text) or _ATTRIBUTION.fullmatch(text)) and _COMMANDS.isdisjoint(
        text.lower().split()
    )


# A path in another skill's folder, named just before it: "`other-skill`'s
# `references/catalog.md`" or "the `pdf` skill's `...`". Looked for in the few characters
# before the span only, so each span costs the same whatever the line holds.
_OWNED = re.compile("`(?:[ \t]++skill)?+['\u2019]s[ \t]++$")
_OWNED_WINDOW = 16
# A path in inline code: relative, at least two segments, file-name characters only.
_CODE_PATH = re.compile(r"(?:\./)?+[A-Za-z0-9_][\w.@+-]*+(?:/[\w.@+-]++)++/?+", re.ASCII)
_PLACED = tuple(placeholder + "/" for placeholder in PLACEHOLDERS)
# After a placeholder of the skill folder one segment is enough: `{baseDir}/run.sh`.
_PLACED_PATH = re.compile(r"[\w.@+-]++(?:/[\w.@+-]++)*+/?+", re.ASCII)
# An inline-code path in an example is an illustration, not a reference.
_EXAMPLE_MARK = re.compile(
    r"(?i)\b(?:e\.\s?g\.|for example|for instance)|\bexamples?\b\W{0,4}:", re.ASCII
)


def _may_mark_example(line: str) -> bool:
    """Whether ``line`` can hold an :data:`_EXAMPLE_MARK` (ASCII, case-insensitive: its
    ASCII letters lower one for one): each of its forms holds ``e.``, ``for`` or ``exampl``,
    found by substring searches where the expression tries every position."""
    lowered = line.lower()
    return "e." in lowered or "for" in lowered or "exampl" in lowered


_EXAMPLE_LEAD = re.compile(r"[ \t]*+(?:\*\*|__)?+examples?\b", re.IGNORECASE)
_LIST_ITEM = re.compile(r"[ \t]*+(?:[-*+]|[0-9]{1,9}[.)])(?:[ \t]|$)")
# A paragraph ending in a clause that says what something makes, then a colon ("The init
# script creates:", "generates the following files:"): the list after it names the files a
# script writes elsewhere, not files of this skill. The clause is the text after the line's
# last sentence break or comma, so the verb is the clause's, not an earlier sentence's.
_CLAUSE_BREAK = re.compile(r"[.;,!?](?:[*_]*+[ \t])")
_CREATION_VERB = re.compile(
    r"\b(?:creates|created|generates|generated|produces|produced|scaffolds|scaffolded"
    r"|writes|written|emits|outputs|initiali[sz]es|initiali[sz]ed|sets[ \t]++up|lays[ \t]++out"
    r"|will[ \t]++(?:create|generate|produce|scaffold|write|set[ \t]++up|lay[ \t]++out))\b",
    re.IGNORECASE,
)
_HEADING = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]|$)")


class _Spans:
    """Code spans of one line as four parallel lists of offsets: where each opens, where
    its content starts and ends, where it closes. Lists of ints, not a tuple per span:
    a line of 175,000 spans would otherwise make as many objects for the collector."""

    __slots__ = ("closes", "inner_ends", "inners", "opens")

    def __init__(
        self, opens: list[int], inners: list[int], inner_ends: list[int], closes: list[int]
    ) -> None:
        self.opens = opens
        self.inners = inners
        self.inner_ends = inner_ends
        self.closes = closes

    def keep(self, indexes: list[int]) -> _Spans:
        return _Spans(
            [self.opens[i] for i in indexes],
            [self.inners[i] for i in indexes],
            [self.inner_ends[i] for i in indexes],
            [self.closes[i] for i in indexes],
        )


_NO_SPANS = _Spans([], [], [], [])


def _code_spans(line: str) -> _Spans:
    """CommonMark code spans of one line.

    An opening run of backticks closes at the next run of the same length; an opener
    without one is literal text. The next run of each length is found by one pass
    from the right, so the pairing is linear in the number of runs. The runs come
    from one ``split`` and their offsets from one ``accumulate`` (no match objects:
    a line of 300,000 runs is common enough in a hostile file to matter).
    """
    parts = _BACKTICK_SPLIT.split(line)
    count = len(parts) // 2
    if count < 2:
        return _NO_SPANS
    offsets = list(accumulate(map(len, parts), initial=0))
    lengths = list(map(len, parts[1::2]))
    if len(set(lengths)) == 1:  # one run length (the usual case): runs pair in order
        # Pair j opens with run 2j and closes with run 2j+1; run k spans offsets 2k+1..2k+2.
        end = 4 * (count // 2) + 1
        return _Spans(offsets[1:end:4], offsets[2:end:4], offsets[3:end:4], offsets[4:end:4])
    following: list[int | None] = []  # built from the right, then turned round
    last: dict[int, int] = {}
    for index in range(count - 1, -1, -1):
        length = lengths[index]
        following.append(last.get(length))
        last[length] = index
    following.reverse()
    openers: list[int] = []
    closers: list[int] = []
    index = 0
    while index < count:
        closer = following[index]
        if closer is None:
            index += 1
            continue
        openers.append(index)
        closers.append(closer)
        index = closer + 1
    return _Spans(
        [offsets[2 * i + 1] for i in openers],
        [offsets[2 * i + 2] for i in openers],
        [offsets[2 * i + 1] for i in closers],
        [offsets[2 * i + 2] for i in closers],
    )


def _blank(line: str, starts: list[int], ends: list[int]) -> str:
    """``line`` with each region ``starts[i]:ends[i]`` (in order, apart) made spaces."""
    if not starts:
        return line
    kept = [line[a:b] for a, b in zip([0, *ends], [*starts, len(line)], strict=True)]
    gaps = [" " * (end - start) for start, end in zip(starts, ends, strict=True)]
    gaps.append("")
    return "".join(chain.from_iterable(zip(kept, gaps, strict=True)))


def _normalise(
    target: str, line: int, column: int, kind: Literal["link", "code"]
) -> Reference | None:
    """The reference ``target`` makes, or ``None`` for a URL, an anchor or a placeholder."""
    for placeholder in PLACEHOLDERS:
        if target == placeholder or target.startswith(placeholder + "/"):
            relative = target[len(placeholder) :]  # its leading "/" is an empty segment
            break
    else:
        relative = None
    if relative is None:
        if _UNKNOWN_PLACEHOLDER.search(target):
            return None
        if (
            target.startswith(("/", "\\", "~"))
            or (len(target) > 1 and target[1] == ":")
            or _FILE_URL.match(target)
        ):
            return Reference(target, line, column, kind, target, absolute=True)
        relative = target
    elif _UNKNOWN_PLACEHOLDER.search(relative):
        return None
    climb = 0
    segments: list[str] = []
    for segment in relative.replace("\\", "/").split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if segments:
                segments.pop()
            else:
                climb += 1
            continue
        segments.append(segment)
    if any(_PLACEHOLDER_SEGMENT.fullmatch(segment) for segment in segments):
        return None  # a pattern for the reader, not a file
    return Reference(target, line, column, kind, "/".join(segments), climb)


def _link_target(raw: str) -> str | None:
    """The file path a Markdown link destination names, or ``None`` for a URL or an anchor.

    A ``file:`` URL names a file on the reader's machine, so it is a path (kept as
    written, which :func:`_normalise` reads as absolute), not a URL to skip.
    """
    target = raw[1:-1] if raw.startswith("<") and raw.endswith(">") else raw
    if _FILE_URL.match(target):
        return urllib.parse.unquote(_ESCAPE.sub(r"\1", target))
    if target.startswith("//") or _SCHEME.match(target):
        return None
    target = target.partition("#")[0].partition("?")[0]  # an anchor alone leaves nothing
    if not target:
        return None
    return urllib.parse.unquote(_ESCAPE.sub(r"\1", target))


# Advice for laying out a skill: "Detailed patterns → `references/patterns.md`" in a skill
# that teaches writing skills says where a reader's own skill should keep its detail; it
# names no file of this skill. Such a skill names `SKILL.md`, the file it teaches to write
# (a skill speaking of itself says "this SKILL.md"). An arrow before an inline-code path
# on its line, outside code, marks the advice.
_SKILL_FILE = "SKILL.md"
_SELF = re.compile(r"\bthis[ \t]*+[`*_]*+$", re.IGNORECASE)
_SELF_WINDOW = 8  # "this `" and emphasis, before the name
# → ⇒ ⇨ ⟶ ⟹ ➔ ➜ ➝ ➞ ➡, and the ASCII -> and =>.
_ARROW_CHARS = "[\u2192\u21d2\u21e8\u27f6\u27f9\u2794\u279c\u279d\u279e\u27a1]"
_ARROW = re.compile(_ARROW_CHARS + "|->|=>")
_ARROW_CHAR = re.compile(_ARROW_CHARS)


def _has_arrow(line: str) -> bool:
    """``_ARROW.search(line) is not None``, by substring searches and, on a line that is not
    ASCII, one character class (an alternation is tried at every position)."""
    return (
        "->" in line
        or "=>" in line
        or (not line.isascii() and _ARROW_CHAR.search(line) is not None)
    )


# Or it speaks of writing one: "writing a skill", "creating your skills", "authoring skills",
# "skill authoring", "a new skill", "your skill" (not "your skill level"). Not "writing skills"
# alone: that is as often the ability to write.
_WRITING_SKILLS = re.compile(
    r"\b(?:writing|creating|authoring)[ \t]++(?:a|an|your|new)[ \t]++"
    r"(?:(?:agent|new|good|effective)[ \t]++)*+skills?\b"
    r"|\b(?:creating|authoring)[ \t]++(?:agent[ \t]++)?+skills\b"
    r"|\bskill[ \t]++(?:authoring|creation)\b|\ba[ \t]++new[ \t]++skill\b"
    r"|\byour[ \t]++skill\b(?![ \t]++level)",
    re.IGNORECASE,
)


# Every phrase of _WRITING_SKILLS holds "skill" as IGNORECASE reads it: these are the code
# points it takes for each letter (properties/test_lint_fast_paths.py checks them).
_SKILL_WORD = re.compile("[sS\u017f][kK\u212a][iI\u0130\u0131][lL][lL]")


def _speaks_of_writing_skills(text: str, start: int) -> bool:
    """``_WRITING_SKILLS.search(text, start) is not None``, searched only on the lines that
    hold a "skill" (a phrase of it never crosses a line end: only spaces and tabs join its
    words), each line once: the expression's alternatives are tried at every position of
    the lines it is run on, the word is found in C."""
    position = start
    while (word := _SKILL_WORD.search(text, position)) is not None:
        line_start = max(text.rfind("\n", 0, word.start()) + 1, start)
        line_end = text.find("\n", word.end())
        line_end = len(text) if line_end < 0 else line_end
        if _WRITING_SKILLS.search(text, line_start, line_end) is not None:
            return True
        position = line_end
    return False


def _teaches_writing_skills(text: str, start: int) -> bool:
    """Whether the body from ``start`` teaches writing skills: it names ``SKILL.md`` other
    than as "this SKILL.md" or the last segment of a path, or speaks of writing a skill
    (:data:`_WRITING_SKILLS`)."""
    found = text.find(_SKILL_FILE, start)
    while found >= 0:
        # `other-skill/SKILL.md` names another skill's file; "this SKILL.md" names its own.
        if text[found - 1 : found] not in ("/", "\\") and not _SELF.search(
            text, max(found - _SELF_WINDOW, start), found
        ):
            return True
        found = text.find(_SKILL_FILE, found + len(_SKILL_FILE))
    return _speaks_of_writing_skills(text, start)


def _first_arrow(line: str, opens: list[int], closes: list[int]) -> int:
    """Where the first arrow of ``line`` outside its code spans is, or ``len(line)``."""
    for gap_start, gap_end in zip([0, *closes], [*opens, len(line)], strict=True):
        arrow = _ARROW.search(line, gap_start, gap_end)
        if arrow is not None:
            return arrow.start()
    return len(line)


class _Body:
    """What one pass over the body found: references and HTML comments."""

    def __init__(self, text: str = "", start: int = 0) -> None:
        self.text = text  # the decoded file, the body from ``start``: for ``teaching``
        self.start = start
        self.references: list[Reference] = []
        self.comments = 0
        self.first_comment = (0, 0)
        self.open_comment = False  # an HTML comment runs on past the line
        self.found = 0  # references found, REFERENCES_MAX of them kept
        self.considered = 0  # inline-code spans with a slash looked at
        self.limit_at = (1, 1)  # where the limit struck when no reference was kept
        self._teaching: bool | None = None  # ``teaching``, once asked

    @property
    def teaching(self) -> bool:
        """Whether the body teaches writing skills (:func:`_teaches_writing_skills`), found
        on the first question and kept: most bodies never ask (no arrow before a path), and
        the answer is one pass over the body whoever asks."""
        if self._teaching is None:
            self._teaching = _teaches_writing_skills(self.text, self.start)
        return self._teaching

    def add(self, reference: Reference | None) -> None:
        if reference is not None:
            self.found += 1
            if self.found <= REFERENCES_MAX:
                self.references.append(reference)

    def comment(self, line: int, column: int) -> None:
        if not self.comments or (line, column) < self.first_comment:
            self.first_comment = (line, column)
        self.comments += 1

    def link(self, raw: str, line: int, column: int) -> None:
        if self.found >= REFERENCES_MAX:
            self.found += 1
            return
        target = _link_target(raw)
        if target is not None:
            self.add(_normalise(target, line, column, "link"))

    def code(self, content: str, line: int, column: int) -> None:
        if self.found >= REFERENCES_MAX:
            self.found += 1
            return
        if content.startswith(_PLACED):
            for placeholder in PLACEHOLDERS:
                if content.startswith(placeholder + "/"):
                    if _PLACED_PATH.fullmatch(content, len(placeholder) + 1):
                        self.add(_normalise(content, line, column, "link"))
                    return
        if _CODE_PATH.fullmatch(content):
            self.add(_normalise(content, line, column, "code"))


# Where a line can matter: a fence at its start, a link, a definition, a comment, a code
# span. Lines without one are never looked at one by one.
# Every alternative starts with one of three characters, so the engine skips to the next
# of them at memory speed; a tilde fence (no such character) is found by str.find.
_EVENT = re.compile(r"\]\(|\]:|<!--|`|<[Ff][Ii][Ll][Ee]:")
# An autolink to a file on the reader's machine (CommonMark 6.5): `<file:///etc/passwd>`.
_FILE_AUTOLINK = re.compile(r"<([Ff][Ii][Ll][Ee]:[^\s<>]*+)>")


def _lists_created_files(line: str) -> bool:
    """Whether a paragraph's last line ``line`` introduces a list of the files something
    creates: its last clause holds a creation verb and ends in ``:`` (emphasis around it
    allowed: ``**Creates:**``). String methods find the end: no pattern is tried at every
    position of a line of asterisks."""
    ended = line.rstrip(" \t\r*_")
    if not ended.endswith(":") or _HEADING.match(line):
        return False
    clause = ended[:-1]
    breaks = [found.end() for found in _CLAUSE_BREAK.finditer(clause)]
    return _CREATION_VERB.search(clause, breaks[-1] if breaks else 0) is not None


def _paragraph_lead(line: str) -> bool | None:
    """How ``line`` sets the example state: ``None`` when it inherits it (blank, a list
    item, indented two or more), else whether it opens an example."""
    stripped = line.lstrip(" \t")
    if not stripped or stripped == "\r":
        return None
    first = stripped[0]
    if first == "#" and _HEADING.match(line):
        return False
    indent = len(line) - len(stripped)
    if indent >= 2 or (indent and line[0] == "\t"):
        return None
    if first in "-*+0123456789" and _LIST_ITEM.match(line):
        return None
    return first in "Ee*_" and bool(_EXAMPLE_LEAD.match(line))


class _Examples:
    """Whether a line is in an example, found backwards on demand: the nearest line before
    it (or itself) that is a heading (no) or a paragraph's first line (an ``Example`` lead
    or not; a wrapped line is its paragraph's). Each line's answer is kept, so every line
    is looked at once at most."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.known: dict[int, bool] = {}

    def at(self, index: int) -> bool:
        walked = []
        answer = False
        start = index
        while index >= 0:
            if index != start and _lists_created_files(self.lines[index]):
                # Reached from below, a lead such as "The init script creates:": what follows
                # (its list, or its wrapped text) names another folder's files. The lead's own
                # line is not walked: a path on it (`scripts/init.py`) is this skill's.
                answer = True
                break
            if index in self.known:
                answer = self.known[index]
                break
            walked.append(index)
            line = self.lines[index]
            lead = _paragraph_lead(line)
            if (
                lead is False
                and index
                and line[:1] not in _MAY_START_A_BLOCK
                and (
                    self.lines[index - 1][:1] not in _MAY_START_A_BLOCK
                    or _paragraph_lead(self.lines[index - 1]) is True
                )
            ):
                # Text at the margin right below text at the margin or an example's lead
                # (`**Example**:`): a wrapped line of the same paragraph, in an example when
                # the paragraph's first line leads one.
                index -= 1
                continue
            if lead is not None:
                answer = lead
                break
            index -= 1
        for seen in walked:
            self.known[seen] = answer
        return answer


def _indentation(line: str, column: int = 0) -> int:
    """The columns of ``line``'s leading spaces and tabs when it starts at ``column`` (a tab
    moves to the next multiple of four, as CommonMark reads block structure)."""
    lead = line[: len(line) - len(line.lstrip(" \t"))]
    if "\t" not in lead:
        return len(lead)
    end = column
    for char in lead:
        end += 4 - end % 4 if char == "\t" else 1
    return end - column


class _Indented:
    """Which lines of the body are indented code (CommonMark 0.31, sections 4.4 and 5.2),
    read forwards on demand, each line once.

    A line indented four columns or more past the content of the list items it sits in is
    code, unless it continues an open paragraph (an indented code block cannot interrupt
    one). A list item's content starts after its marker and the one to four spaces that
    follow it; a line less indented than that leaves the item, unless it continues the
    item's paragraph (a lazy line). Block quotes and HTML blocks are read as paragraphs.
    Fenced blocks are the scan's (``fences``: first and last line index of each, in order,
    appended as the scan skips them); each reads as one line that ends a paragraph.
    """

    def __init__(self, lines: list[str], fences: list[tuple[int, int]]) -> None:
        self.lines = lines
        self.fences = fences
        self.next_fence = 0
        self.cursor = 0  # the first line not read yet
        self.items: list[int] = []  # content columns of the open list items, innermost last
        self.paragraph = False  # an open paragraph, which an indented line continues

    def at(self, index: int) -> bool:
        """Whether line ``index`` is indented code; asked in increasing order of lines."""
        code = False
        while self.cursor <= index:
            fence = self.fences[self.next_fence] if self.next_fence < len(self.fences) else None
            if fence is not None and fence[0] <= self.cursor:
                self.next_fence += 1
                if fence[0] == self.cursor:  # read its opening line as a block of its own
                    self._read(self.lines[self.cursor], fenced=True)
                self.cursor = max(self.cursor, fence[1] + 1)
                self.paragraph = False
                continue
            line = self.lines[self.cursor]
            self.cursor += 1
            if not line:  # blank: ends a paragraph, leaves every list item open
                self.paragraph = False
                code = False
                continue
            if not self.items and line[:1] not in _MAY_START_A_BLOCK:
                # Text at the margin outside any list opens or continues a paragraph.
                self.paragraph = True
                code = False
                continue
            code = self._read(line)
        return code

    def _read(self, line: str, fenced: bool = False) -> bool:
        line = line[:-1] if line.endswith("\r") else line
        text = line.lstrip(" \t")
        if not text:
            self.paragraph = False
            return False
        column = _indentation(line)
        items = self.items
        interrupts = fenced or _interrupts(text)
        while items and column < items[-1] and (interrupts or not self.paragraph):
            items.pop()
        inner = column - (items[-1] if items else 0)
        if inner >= 4:
            return not self.paragraph
        if fenced:
            return False
        marker = _LIST_MARKER.match(text)
        if marker is not None and not _THEMATIC.match(text):
            width = marker.end()
            rest = text[width:]
            spaces = _indentation(rest, column + width)
            if not rest.strip(" \t") or spaces > 4:  # empty, or the item starts with code
                items.append(column + width + 1)
                self.paragraph = False
                return bool(rest.strip(" \t"))
            items.append(column + width + spaces)
            self.paragraph = True
            return False
        self.paragraph = not (interrupts or (self.paragraph and _SETEXT.match(text) is not None))
        return False


# What ends a paragraph instead of continuing it: a list item, a heading, a fence, a
# thematic break, a block quote.
# The first characters of a line that is more than a paragraph's text at the margin: blank
# (the empty string), indented, or a list marker, heading, fence, break, quote or underline.
_MAY_START_A_BLOCK = frozenset(("", " ", "\t", "\r", *"-*+0123456789#`~>_="))
# A list item that may start with indented code (five columns or more after its marker).
_CODE_ITEM = re.compile(r"[ \t]*+(?:[-*+]|[0-9]{1,9}[.)])[ \t]{2}")
_MAY_START_AN_ITEM = frozenset(" \t-*+0123456789")  # the first characters _CODE_ITEM takes
_LIST_MARKER = re.compile(r"(?:[-*+]|[0-9]{1,9}[.)])(?=[ \t]|$)")
_THEMATIC = re.compile(r"([-*_])(?:[ \t]*+\1){2,}+[ \t]*+$")
_SETEXT = re.compile(r"=++[ \t]*+$")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")


def _interrupts(text: str) -> bool:
    """Whether a line whose text (after its indentation) is ``text`` starts a block that
    ends an open paragraph."""
    first = text[0]
    if first in "-*+0123456789":
        return _LIST_MARKER.match(text) is not None or _THEMATIC.match(text) is not None
    if first == "#":
        return _ATX.match(text) is not None
    if first in "`~":
        return text[:3] in ("```", "~~~")
    if first == "_":
        return _THEMATIC.match(text) is not None
    return first == ">"


def _scan_body(decoded: str, start: int, first_line: int) -> _Body:
    """The body's references and comments, in one pass that only stops at events.

    ``_EVENT`` finds the next line that can matter (a fence, a link, a definition, a
    comment, a code span); the lines between are skipped by ``str.count``. A fence skips
    to its closing line (:func:`_fence_at`), an open comment to its ``-->``. An event line
    is scanned only when it can hold a link, a comment or a path in inline code (a
    backtick and a slash), and only those ask whether they sit in an example.
    """
    body = _Body(decoded, start)
    text = decoded[start:]
    lines: list[str] = []  # split once, when a question about a line needs them
    examples: _Examples | None = None
    indented: _Indented | None = None
    fences: list[tuple[int, int]] = []  # first and last line index of each fenced block
    length = len(text)
    position = 0  # the start of a line
    number = first_line  # its number
    in_comment = False
    # The next event, searched again only once the scan has passed it (as _Next does, kept
    # here: it is asked after every line the scan looks at). A body without "~~~" has no
    # tilde fence to look for.
    event = -1
    tilde = _Next(lambda at: _fence_at(text, at, "~~~"), length) if "~~~" in text else None
    while position < length:
        if in_comment:
            found = text.find("-->", position)
            if found < 0:
                break
        else:
            if event < position:
                next_event = _EVENT.search(text, position)
                event = length if next_event is None else next_event.start()
            found = event if tilde is None else min(event, tilde.after(position))
            if found >= length:
                break
        line_start = text.rfind("\n", position, found) + 1 or position
        number += text.count("\n", position, line_start)
        line_end = text.find("\n", found)
        line_end = length if line_end < 0 else line_end
        line = text[line_start:line_end]
        position = line_end + 1
        refer = in_comment or _may_refer(line)
        if not refer and line.lstrip(" \t")[:3] not in ("```", "~~~"):
            # Nothing to read and no fence to open (a code span without a slash, the common
            # event): the line changes nothing, indented code or not, so no question about
            # its block is asked.
            number += 1
            continue
        if not in_comment and (
            (line[:1] in (" ", "\t") and _indentation(line) >= 4)
            or (line[:1] in _MAY_START_AN_ITEM and _CODE_ITEM.match(line))
        ):
            if indented is None:
                lines = lines or text.split("\n")
                indented = _Indented(lines, fences)
            if indented.at(number - first_line):  # code: nothing on it is a link or a fence
                number += 1
                continue
        if not in_comment and line.lstrip(" \t")[:3] in ("```", "~~~"):
            opened = _FENCE.match(line)
            if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
                opener = number - first_line
                position, number = _after_fence(text, position, number + 1, opened.group(1))
                fences.append((opener, number - first_line - 1))
                continue
        if refer:
            example = False
            if "`" in line and "/" in line:
                if examples is None:
                    lines = lines or text.split("\n")
                    examples = _Examples(lines)
                example = examples.at(number - first_line)
            _scan_line(body, line, number, in_comment, example)
            in_comment = body.open_comment
        number += 1
    return body


def _may_refer(line: str) -> bool:
    """Whether ``line`` (outside a comment) can hold a link, a comment or a path in inline
    code: the lines :func:`_scan_line` reads."""
    return (
        "](" in line
        or "]:" in line
        or "<!--" in line
        or ("<" in line and _FILE_AUTOLINK.search(line) is not None)
        or ("`" in line and "/" in line)
    )


class _Next:
    """The next place a search finds at or after a position, searched again only once the
    scan has passed it.

    The scan asks after every line it looks at; searching from each of them to the end
    of the text would pass over the text once per fence (quadratic on a body of many
    fences). ``find(position)`` is the first place at or after ``position`` (-1: none);
    the answer stays right for every later position up to it, so each character is
    passed over once per search, whatever the scan skips in between.
    """

    __slots__ = ("_at", "_find", "_none")

    def __init__(self, find: Callable[[int], int], none: int) -> None:
        self._find = find
        self._none = none  # what "nothing left" reads as: the text's length
        self._at = -1

    def after(self, position: int) -> int:
        if self._at < position:
            found = self._find(position)
            self._at = self._none if found < 0 else found
        return self._at


def _after_fence(text: str, position: int, number: int, fence: str) -> tuple[int, int]:
    """The start and number of the line after the fence ``fence`` opened closes (the end
    of ``text`` when it never does); ``position``, ``number``: the line after the opener."""
    search = position
    while True:
        line_start = _fence_at(text, search, fence[0] * 3)
        if line_start < 0:
            return len(text), number
        line_end = text.find("\n", line_start)
        after = len(text) if line_end < 0 else line_end + 1
        closer = _FENCE.match(text, line_start)  # it stops at the line's end
        if (
            closer is not None
            and len(closer.group(1)) >= len(fence)
            and not closer.group(2).strip()
        ):
            return after, number + text.count("\n", position, after)
        search = after


def _fence_at(text: str, position: int, marks: str) -> int:
    """The start of the next line from ``position`` (a line's start) that begins, after
    spaces and tabs, with ``marks`` (three backticks or tildes), or -1; ``str.find`` does
    the scanning, and each candidate is looked at once."""
    while True:
        found = text.find(marks, position)
        if found < 0:
            return -1
        line_start = text.rfind("\n", position, found) + 1 or position
        if not text[line_start:found].strip(" \t"):
            return line_start
        line_end = text.find("\n", found)
        if line_end < 0:
            return -1
        position = line_end + 1


def _scan_line(body: _Body, line: str, number: int, in_comment: bool, example: bool) -> None:
    # A comment open before the line ends on it: the body scan stops only at a "-->".
    start = line.find("-->") + 3 if in_comment else 0
    # A line with no slash, no link or definition and no comment needs no code spans
    # (they only find paths and hide brackets and comments): the common case, and the
    # cheap one for a line of a million backticks.
    autolink = "<" in line and _FILE_AUTOLINK.search(line) is not None
    wanted = "/" in line or "](" in line or "]:" in line or "<!--" in line or autolink
    spans = _code_spans(line) if wanted else _NO_SPANS
    if start and spans.opens:
        first = bisect_left(spans.opens, start)
        spans = spans.keep(list(range(first, len(spans.opens))))
    # HTML comments outside code spans, left to right.
    comment_starts: list[int] = []
    comment_ends: list[int] = []
    cursor = start
    open_comment = False
    while True:
        found = line.find("<!--", cursor)
        if found < 0:
            break
        inside = bisect_right(spans.opens, found) - 1
        if inside >= 0 and found < spans.closes[inside]:
            cursor = spans.closes[inside]
            continue
        close = line.find("-->", found + 4)
        if close < 0 or not _inert(line[found + 4 : close]):
            body.comment(number, found + 1)
        comment_starts.append(found)
        if close < 0:
            comment_ends.append(len(line))
            open_comment = True
            break
        comment_ends.append(close + 3)
        cursor = close + 3
    body.open_comment = open_comment
    if comment_starts:
        # Both lists are in order: the comment that could hold a span is found by bisection.
        spans = spans.keep(
            [
                i
                for i, opened in enumerate(spans.opens)
                if (at := bisect_right(comment_starts, opened) - 1) < 0
                or opened >= comment_ends[at]
            ]
        )
    marker = _EXAMPLE_MARK.search(line) if _may_mark_example(line) else None
    # At the cap one more candidate is still looked at: it is what reports the limit.
    if not example and "/" in line and body.found <= REFERENCES_MAX:
        advice = len(line)  # where advice starts; the body is asked only about an arrow
        if spans.opens and _has_arrow(line) and body.teaching:
            advice = _first_arrow(line, spans.opens, spans.closes)
        for span_start, content_start, content_end in zip(
            spans.opens, spans.inners, spans.inner_ends, strict=True
        ):
            raw = line[content_start:content_end]
            if span_start > advice:
                break  # the rest of the line is advice (_teaches_writing_skills)
            if "/" in raw and (marker is None or marker.start() > span_start):
                if _OWNED.search(line, max(span_start - _OWNED_WINDOW, 0), span_start):
                    continue  # another skill's file, named just before
                body.considered += 1
                if body.considered > _CONSIDERED_MAX:
                    body.found = max(body.found, REFERENCES_MAX + 1)
                    if not body.references:
                        body.limit_at = (number, content_start + 1)
                    break
                content = raw.strip()
                body.code(content, number, content_start + raw.index(content) + 1)
    if "](" not in line and "]:" not in line and not autolink:
        return
    if start or comment_starts:  # the comment's tail, comments and spans, in order
        starts = [*([0] if start else []), *comment_starts, *spans.opens]
        ends = [*([start] if start else []), *comment_ends, *spans.closes]
        order = sorted(range(len(starts)), key=starts.__getitem__)  # ints, not pairs
        blanked = _blank(line, [starts[i] for i in order], [ends[i] for i in order])
    else:  # code spans alone come in order and apart
        blanked = _blank(line, spans.opens, spans.closes)
    definition = _DEFINITION.match(blanked)
    if definition and definition.group(2) in _NOWHERE:
        # `[//]: # (text)`: a definition no link can use, the Markdown comment idiom.
        body.comment(number, blanked.index("[") + 1)
    elif definition and not definition.group(1).startswith("^"):
        body.link(definition.group(2), number, definition.start(2) + 1)
    for link in _LINK.finditer(blanked, definition.end() if definition else 0):
        if link.start() and blanked[link.start() - 1] == "\\" and blanked[link.start()] == "[":
            continue  # `\[not a link](x)`: an escaped bracket is text
        # An image inside a link's text: `[![alt](a.png)](b.md)` names two files.
        inner_text = link.group(1)
        if "](" in inner_text:
            for inner in _LINK.finditer(blanked, link.start(1), link.end(1)):
                body.link(inner.group(2), number, inner.start(2) + 1)
        body.link(link.group(2), number, link.start(2) + 1)
    if autolink:
        for autolinked in _FILE_AUTOLINK.finditer(blanked):
            body.link(autolinked.group(1), number, autolinked.start(1) + 1)


def find_references(markdown: str) -> tuple[Reference, ...]:
    """The file references of a Markdown body (lines counted from 1), in text order.

    The same scan :func:`check_document` runs over a body: linear in the length of
    ``markdown`` whatever its lines hold. A ``markdown`` that is not a ``str`` is refused
    with ``skill_frontmatter_invalid`` (reason ``encoding``).
    """
    markdown = plain_str(markdown)  # type: ignore[assignment]  # a Host's subclass: its text
    if not is_kind(markdown, str):
        raise FrontmatterError(
            "encoding", f"a Markdown body must be a str, got {type(markdown).__name__}"
        )
    return tuple(sorted(_scan_body(markdown, 0, 1).references, key=lambda r: (r.line, r.column)))


# The agent folders a project keeps its own skills in, at its repository's top: a skill in
# `<folder>/skills/` is used in place, with the repository around it.
PROJECT_AGENT_FOLDERS = (".agents", ".claude", ".github", ".gemini", ".cursor", ".codex")
# What makes a folder a Claude Code plugin (installed whole) or a marketplace (whose plugins,
# listed without a manifest of their own, are folders of it).
PLUGIN_MANIFESTS = (".claude-plugin/plugin.json", ".claude-plugin/marketplace.json")


def installation_unit(
    skill: Sequence[str], plugins: Set[int], marketplaces: Set[int] = frozenset()
) -> int:
    """The folder installed with a skill, as the number of leading segments of ``skill`` (the
    skill folder's path below its repository's top, one segment per folder) that name it.

    ``plugins`` and ``marketplaces`` hold the depths (0: the repository's top) of the folders
    on that path holding ``.claude-plugin/plugin.json`` and ``.claude-plugin/marketplace.json``.
    A project skill, in ``<agent folder>/skills/`` at the top (:data:`PROJECT_AGENT_FOLDERS`),
    is used in place: its unit is the repository (0). A skill inside a plugin is installed
    with it: the innermost plugin, the one that holds it. Inside a marketplace and no plugin
    manifest, the marketplace's folder (its plugins need no manifest of their own). Otherwise
    the skill folder alone (``len(skill)``). Pure: the caller gathers the facts.
    """
    if len(skill) >= 2 and skill[0] in PROJECT_AGENT_FOLDERS and skill[1] == "skills":
        return 0
    for found in (plugins, marketplaces):
        depths = [depth for depth in found if 0 <= depth <= len(skill)]
        if depths:
            return max(depths)
    return len(skill)
