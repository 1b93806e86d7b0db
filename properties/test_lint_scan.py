"""Lint's body scan (``a13n_harness.context.lint``) against a plain reading of the same rules.

The scan is built for speed on hostile input: it skips to the lines that can matter, skips
a fenced block to its closing line, pairs code spans by one pass from the right, matches
comments to spans by bisection and blanks regions by slicing. :func:`plain_scan` below
reads the same rules the slow, obvious way (every line in turn, every backtick run paired
by a forward search, every comment checked against every span, one character at a time)
and must find the same references, comments and counts on thousands of small documents
made of the pieces those rules are about. The leaf rules both share (what a link
destination, a path in inline code and a normalised target are) have their own examples
in ``test_lint_core.py``; the caps (``REFERENCES_MAX``, the considered inline-code spans)
are checked at their exact bounds here.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.context.lint import REFERENCES_MAX, Reference, _rules, check_document
from a13n_harness.context.lint import _references as lint

_Span = tuple[int, int, int, int]  # opens, content starts, content ends, closes


def plain_spans(line: str) -> list[_Span]:
    """CommonMark code spans of a line: each backtick run closes at the next run of the same
    length, or is literal text."""
    runs: list[tuple[int, int]] = []
    index = 0
    while index < len(line):
        if line[index] != "`":
            index += 1
            continue
        end = index
        while end < len(line) and line[end] == "`":
            end += 1
        runs.append((index, end))
        index = end
    spans: list[_Span] = []
    opener = 0
    while opener < len(runs):
        start, inner = runs[opener]
        closer = next(
            (
                later
                for later in range(opener + 1, len(runs))
                if runs[later][1] - runs[later][0] == inner - start
            ),
            None,
        )
        if closer is None:
            opener += 1
            continue
        spans.append((start, inner, *runs[closer]))
        opener = closer + 1
    return spans


def plain_lead(line: str) -> bool | None:
    """``None``: the line keeps the example state (blank, indented, a list item); else
    whether it opens an example (a heading closes one)."""
    stripped = line.lstrip(" \t")
    if stripped in ("", "\r"):
        return None
    if stripped.startswith("#") and lint._HEADING.match(line):
        return False
    indent = len(line) - len(stripped)
    if indent >= 2 or (indent == 1 and line[0] == "\t"):
        return None
    if lint._LIST_ITEM.match(line):
        return None
    return bool(lint._EXAMPLE_LEAD.match(line))


def _margin_text(line: str) -> bool:
    """Text at the margin that starts no block: a paragraph's line."""
    return line[:1] not in ("", " ", "\t", "\r", *"-*+0123456789#`~>_=")


def plain_example(lines: list[str], index: int) -> bool:
    while index >= 0:
        lead = plain_lead(lines[index])
        if (
            lead is False
            and index
            and _margin_text(lines[index])
            and (_margin_text(lines[index - 1]) or plain_lead(lines[index - 1]) is True)
        ):
            index -= 1  # a wrapped line of the paragraph above
            continue
        if lead is not None:
            return lead
        index -= 1
    return False


@dataclass
class Found:
    references: list[Reference] = field(default_factory=list)
    found: int = 0
    considered: int = 0
    comments: list[tuple[int, int]] = field(default_factory=list)
    limit_at: tuple[int, int] = (1, 1)

    def add(self, reference: Reference | None) -> None:
        if reference is not None:
            self.found += 1
            if self.found <= REFERENCES_MAX:
                self.references.append(reference)

    def link(self, raw: str, number: int, column: int) -> None:
        if self.found >= REFERENCES_MAX:
            self.found += 1
            return
        target = lint._link_target(raw)
        if target is not None:
            self.add(lint._normalise(target, number, column, "link"))

    def code(self, content: str, number: int, column: int) -> None:
        if self.found >= REFERENCES_MAX:
            self.found += 1
            return
        for placeholder in _rules.PLACEHOLDERS:
            if content.startswith(placeholder + "/"):
                if lint._PLACED_PATH.fullmatch(content[len(placeholder) + 1 :]):
                    self.add(lint._normalise(content, number, column, "link"))
                return
        if lint._CODE_PATH.fullmatch(content):
            self.add(lint._normalise(content, number, column, "code"))


def plain_line(state: Found, line: str, number: int, in_comment: bool, example: bool) -> bool:
    """One line's references and comments; whether a comment stays open after it."""
    start = line.index("-->") + 3 if in_comment else 0
    spans = [span for span in plain_spans(line) if span[0] >= start]
    comments: list[tuple[int, int]] = []
    cursor = start
    open_comment = False
    while (found := line.find("<!--", cursor)) >= 0:
        holder = [span for span in spans if span[0] <= found < span[3]]
        if holder:
            cursor = holder[0][3]
            continue
        close = line.find("-->", found + 4)
        if close < 0 or not lint._inert(line[found + 4 : close]):
            state.comments.append((number, found + 1))
        if close < 0:
            comments.append((found, len(line)))
            open_comment = True
            break
        comments.append((found, close + 3))
        cursor = close + 3
    spans = [span for span in spans if not any(a <= span[0] < b for a, b in comments)]
    marker = lint._EXAMPLE_MARK.search(line)
    if not example and "/" in line and state.found <= REFERENCES_MAX:
        for opened, inner, inner_end, _ in spans:
            raw = line[inner:inner_end]
            if "/" in raw and (marker is None or marker.start() > opened):
                if lint._OWNED.search(line[max(opened - lint._OWNED_WINDOW, 0) : opened]):
                    continue
                state.considered += 1
                if state.considered > _rules._CONSIDERED_MAX:
                    state.found = max(state.found, REFERENCES_MAX + 1)
                    if not state.references:
                        state.limit_at = (number, inner + 1)
                    break
                content = raw.strip()
                state.code(content, number, inner + raw.index(content) + 1)
    autolink = re.search(r"<file:[^\s<>]*>", line, re.IGNORECASE) is not None
    if "](" in line or "]:" in line or autolink:
        chars = list(line)
        blank = ([(0, start)] if start else []) + comments + [(s[0], s[3]) for s in spans]
        for a, b in blank:
            chars[a:b] = " " * (b - a)
        blanked = "".join(chars)
        definition = lint._DEFINITION.match(blanked)
        if definition and definition.group(2) in ("#", "<>", "<#>"):
            state.comments.append((number, blanked.index("[") + 1))
        elif definition and not definition.group(1).startswith("^"):
            state.link(definition.group(2), number, definition.start(2) + 1)
        for link in lint._LINK.finditer(blanked, definition.end() if definition else 0):
            if link.start() and blanked[link.start() - 1 : link.start() + 1] == "\\[":
                continue
            if "](" in link.group(1):
                for inner_link in lint._LINK.finditer(blanked, link.start(1), link.end(1)):
                    state.link(inner_link.group(2), number, inner_link.start(2) + 1)
            state.link(link.group(2), number, link.start(2) + 1)
        for found_link in re.finditer(r"<(file:[^\s<>]*)>", blanked, re.IGNORECASE):
            state.link(found_link.group(1), number, found_link.start(1) + 1)
    return open_comment


_PLAIN_ITEM = re.compile(r"([-*+]|[0-9]{1,9}[.)])( *)(.*)")
_PLAIN_BREAK = re.compile(r"(?:(?:- *){3,}|(?:\* *){3,}|(?:_ *){3,})")


def plain_starts_block(text: str) -> bool:
    """A list item, an ATX heading, a fence, a thematic break or a block quote."""
    return bool(
        (
            _PLAIN_ITEM.fullmatch(text)
            and (text[1:2] in ("", " ") or re.match(r"[0-9]+[.)]( |$)", text))
        )
        or re.match(r"#{1,6}( |$)", text)
        or text.startswith(("```", "~~~", ">"))
        or _PLAIN_BREAK.fullmatch(text)
    )


@dataclass
class Blocks:
    """Indented code read line by line, tabs expanded to stops of four first."""

    items: list[int] = field(default_factory=list)
    paragraph: bool = False

    def code(self, line: str, fence: bool = False) -> bool:
        wide = line.removesuffix("\r").expandtabs(4)
        text = wide.lstrip(" ")
        if not text:
            self.paragraph = False
            return False
        column = len(wide) - len(text)
        starts = fence or plain_starts_block(text)
        while self.items and column < self.items[-1] and (starts or not self.paragraph):
            self.items.pop()
        if column - (self.items[-1] if self.items else 0) >= 4:
            return not self.paragraph
        item = _PLAIN_ITEM.fullmatch(text)
        if not fence and item and not _PLAIN_BREAK.fullmatch(text):
            marker, spaces, rest = item.groups()
            if spaces == "" and rest:  # `-x`, `1.x`: text, not an item
                self.paragraph = True
                return False
            if not rest or len(spaces) > 4:
                self.items.append(column + len(marker) + 1)
                self.paragraph = False
                return bool(rest)
            self.items.append(column + len(marker) + len(spaces))
            self.paragraph = True
            return False
        setext = self.paragraph and re.fullmatch(r"=+ *", text)
        self.paragraph = not (starts or setext)
        return False


def plain_scan(markdown: str) -> Found:
    """Every line in turn: indented code skipped, fenced blocks and comments by their
    closing line."""
    state = Found()
    lines = markdown.split("\n")
    blocks = Blocks()
    in_comment = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if blocks.code(line) and not in_comment:
            index += 1
            continue
        scanned = (
            "-->" in line
            if in_comment
            else "](" in line
            or "]:" in line
            or "<!--" in line
            or ("`" in line and "/" in line)
            or re.search("<file:", line, re.IGNORECASE) is not None
        )
        opened = lint._FENCE.match(line)
        fence = opened.group(1) if opened else ""
        if (
            not in_comment
            and opened
            and line.lstrip(" \t")[:3] in ("```", "~~~")
            and not (fence[0] == "`" and "`" in opened.group(2))
        ):
            blocks.paragraph = False
            index += 1
            while index < len(lines):
                closer = lint._FENCE.match(lines[index])
                if (
                    closer
                    and closer.group(1)[0] == fence[0]
                    and len(closer.group(1)) >= len(fence)
                    and not closer.group(2).strip()
                ):
                    break
                index += 1
        elif scanned:
            example = "`" in line and "/" in line and plain_example(lines, index)
            in_comment = plain_line(state, line, index + 1, in_comment, example)
        index += 1
    return state


PIECES = (
    *("`", "``", "```", "````", "~~~", "~~~~", "` a/b `", "``r/s``", "`p/q.py`", "`../x/y`"),
    *("[a](b/c.md)", "[x](", "](", "]:", "[", "]", "(", ")", "\\", "\\[n](o.md)", "\r"),
    *("[d]: e/f.md", "[^n]: x/y", "[k]: <l m.md>", "![i](img/a.png)", "[![i](a.png)](b.md)"),
    *("[t](<s p.md>)", '[u](v.md "t")', "[q](#frag)", "[w](../up.md)", "https://x.y/z"),
    *("<!--", "-->", "<!-- c -->", "<!---->", "[k]: ", " ", "  ", "\t", "- ", "1. ", "# "),
    *("a", "text", "x/y", "`<!--`", "`-->`", "[//]: # (c)", "[c]: <> 'x'", "[e]: #", "[f]: #g"),
    *("<file:///etc/p>", "<FILE:x y>", "<file:a>", "`<file:/b>`"),
    *("Example:", "e.g.", "**Example**", "examples:", "__Examples__", "`x`", "`{baseDir}/r`"),
    *("{baseDir}/run.sh", "`{baseDir}/s.sh`", "`{baseDir}/a/b`"),
    *("    ", "      ", "\t", "\n\n    ", "\n- ", "\n1. ", "\n  ", "\n# h\n"),
)


def documents(seed: int, count: int) -> list[str]:
    """``count`` small documents of one to ten lines of up to six pieces, the same each run."""
    rng = random.Random(seed)  # noqa: S311 - test documents, the same each run
    return [
        "\n".join(
            "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))
            for _ in range(rng.randint(1, 10))
        )
        for _ in range(count)
    ]


def _summary(
    references: list[Reference], comments: list[tuple[int, int]], found: int, considered: int
) -> tuple[object, ...]:
    ordered = sorted(references, key=lambda r: (r.line, r.column))
    return ordered, len(comments), sorted(comments)[:1], found, considered


def _disagreements(markdowns: list[str]) -> list[str]:
    differ = []
    for markdown in markdowns:
        body = lint._scan_body(markdown, 0, 1)
        first = [body.first_comment] if body.comments else []
        scanned = _summary(body.references, first * body.comments, body.found, body.considered)
        plain = plain_scan(markdown)
        expected = _summary(plain.references, plain.comments, plain.found, plain.considered)
        if scanned != expected:
            differ.append(markdown)
    return differ


@pytest.mark.parametrize("seed", range(4))
def test_the_body_scan_finds_what_a_plain_reading_finds(seed: int) -> None:
    """References (target, position, kind, normalised path), comments (how many, the first
    one's place) and the counts behind the caps, on 600 documents per seed."""
    assert _disagreements(documents(seed, 600)) == []


def test_the_body_scan_inside_a_skill_md_is_placed_after_the_frontmatter() -> None:
    """The same documents as the body of a SKILL.md: every line number moves by the
    frontmatter's four lines, every column stays."""
    head = "---\nname: a\ndescription: d\n---\n"
    for markdown in documents(7, 300):
        check = check_document((head + markdown).encode("utf-8"), "a")
        plain = plain_scan(markdown)
        moved = sorted(
            (r.target, r.line + 4, r.column, r.kind, r.path, r.climb, r.absolute)
            for r in plain.references
        )
        found = sorted(
            (r.target, r.line, r.column, r.kind, r.path, r.climb, r.absolute)
            for r in check.references
        )
        assert found == moved, markdown
        comments = [i for i in check.issues if i.rule == "skill_html_comment"]
        assert [(i.line, i.column) for i in comments] == [
            (line + 4, column) for line, column in sorted(plain.comments)[:1]
        ], markdown


def test_negative_control_a_scan_that_drops_a_code_span_disagrees(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The comparison sees a scan that misses one span per line (the last one)."""
    spans = lint._code_spans

    def fewer(line: str) -> lint._Spans:
        found = spans(line)
        return found.keep(list(range(len(found.opens) - 1)))

    monkeypatch.setattr(lint, "_code_spans", fewer)
    assert _disagreements(documents(0, 600))


# ------------------------------------------------------------ counted work


class _Work:
    """Counts the characters the body scan's repeated searches pass over: each call of the
    event search or of the fence search from ``position`` costs the distance to what it
    found (or to the end of the text). Linear means the sum stays a small multiple of the
    text's length however the text is shaped."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.passed = 0
        event, fence_at = lint._EVENT, lint._fence_at
        work = self

        class Event:
            @staticmethod
            def search(text: str, position: int) -> object:
                found = event.search(text, position)
                work.passed += (found.start() if found else len(text)) - position
                return found

        def counted_fence_at(text: str, position: int, marks: str) -> int:
            found = fence_at(text, position, marks)
            work.passed += (len(text) if found < 0 else found) - position
            return found

        monkeypatch.setattr(lint, "_EVENT", Event())
        monkeypatch.setattr(lint, "_fence_at", counted_fence_at)


# Bodies of many fenced blocks: bare tilde fences, realistic tilde blocks with text
# between, backtick blocks, the two marks inside each other, and fences among links.
_FENCED_UNITS = {
    "bare tilde": "~~~\n~~~\n",
    "tilde python": "Run it:\n\n~~~python\nprint('hi')\nx = 1\n~~~\n\nThen read the output.\n",
    "backtick": "Run it:\n\n```python\nprint('hi')\n```\n\n",
    "tilde around backtick": "~~~\n```\n~~~\n",
    "backtick around tilde": "```\n~~~\n```\n",
    "long tilde fences": "~~~~\n~~~\n~~~~\n",
    "tildes and links": "~~~\n[a](b.md)\n~~~\nsee [c](d.md) and `e/f`\n",
    "tilde mid-line": "a ~~~ b\n~~~\nx\n~~~\n",
}


@pytest.mark.parametrize("unit", list(_FENCED_UNITS.values()), ids=list(_FENCED_UNITS))
def test_the_body_scan_passes_over_each_character_a_bounded_number_of_times(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every search the scan repeats is resumed or cached: over 1,000 fenced blocks the
    searches pass over at most four times the text (a search from each fence to the end
    would pass over it hundreds of times)."""
    body = unit * 1_000
    work = _Work(monkeypatch)
    lint._scan_body(body, 0, 1)
    assert work.passed <= 4 * len(body) + 64, (work.passed, len(body))


def test_the_body_scan_passes_over_a_far_tilde_fence_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thousand lines the scan stops at, then one tilde fence at the end: the search for
    it is made once and kept, not made again from each of those lines."""
    body = "`code` and [a](b.md)\n" * 1_000 + "~~~\nx\n~~~\n"
    work = _Work(monkeypatch)
    lint._scan_body(body, 0, 1)
    assert work.passed <= 4 * len(body) + 64, (work.passed, len(body))


@pytest.mark.parametrize("seed", range(2))
def test_the_body_scan_work_is_linear_on_generated_documents(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same bound on long documents made of every piece the rules are about."""
    body = "\n".join(documents(100 + seed, 400))
    work = _Work(monkeypatch)
    lint._scan_body(body, 0, 1)
    assert work.passed <= 4 * len(body) + 64, (work.passed, len(body))


# Whether a body teaches writing skills is one search over the whole body: asked only for a
# line with an arrow and a path in inline code, and once per body.
_NO_ARROW_ON_A_PATH = "See `references/a.md` and [b](b.md).\n" * 200 + "x -> y, `p -> q`\n"
_ARROWS = "Details \u2192 `references/a.md`\n" * 200


def _teaching_questions(monkeypatch: pytest.MonkeyPatch, body: str) -> int:
    asked: list[int] = []
    teaches = lint._teaches_writing_skills

    def counted(text: str, start: int) -> bool:
        asked.append(start)
        return teaches(text, start)

    monkeypatch.setattr(lint, "_teaches_writing_skills", counted)
    lint._scan_body(body, 0, 1)
    return len(asked)


def test_the_body_scan_asks_whether_a_body_teaches_only_at_an_arrow_and_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _teaching_questions(monkeypatch, _NO_ARROW_ON_A_PATH) == 0
    assert _teaching_questions(monkeypatch, _ARROWS) == 1


def test_negative_control_a_body_asked_at_every_arrow_is_seen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        lint._Body,
        "teaching",
        property(lambda body: lint._teaches_writing_skills(body.text, body.start)),
    )
    assert _teaching_questions(monkeypatch, _ARROWS) == 200


# The substring prefilters in front of two expressions the line scan asks about every
# line it reads: the arrow of advice, and the mark of an example.
_PIECES = st.sampled_from(
    [
        *"-=>. :\t",
        *"\u2192\u21d2\u27a1\u2190\u0130\u017f\u212a\u00e9",
        *("->", "=>", "e.g.", "E. G.", "for", "FOR example", "For Instance", "EXAMPLES"),
        *("exampl", "Example:", "x", "`a/b`"),
    ]
)


@given(st.lists(st.one_of(_PIECES, st.text(max_size=3)), max_size=12).map("".join))
def test_the_line_prefilters_pass_every_line_their_expression_matches(line: str) -> None:
    assert lint._has_arrow(line) is (lint._ARROW.search(line) is not None)
    assert lint._may_mark_example(line) or lint._EXAMPLE_MARK.search(line) is None


def test_negative_control_a_prefilter_that_misses_a_form_is_seen() -> None:
    """A prefilter without ``e.`` would pass by "e.g." (a piece the property draws)."""

    def without_e(line: str) -> bool:
        return "for" in line.lower() or "exampl" in line.lower()

    line = "See e.g. `references/a.md`"
    assert lint._EXAMPLE_MARK.search(line) is not None
    assert not without_e(line)
    assert lint._may_mark_example(line)
