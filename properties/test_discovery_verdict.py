"""Discovery reports what the whole SKILL.md would get.

Discovery reads a bounded prefix of each SKILL.md. Whatever the file, its
verdict (accepted with the same name and description, or refused with the
same reason, line and column) equals ``parse_skill_document`` on the whole
file: the bounded read is an optimisation, never a different answer.
"""

from __future__ import annotations

import asyncio

from hypothesis import example, given
from hypothesis import strategies as st

from a13n_harness.capabilities import FileSkillSource, SkillManager, SkillsPolicy, read_limit
from a13n_harness.capabilities.verdicts import (
    MEMO_BYTES,
    MEMO_ENTRIES,
    clear_verdict_memo,
    document_verdict,
    memo_size,
)
from a13n_harness.context.errors import DefinitionError, FrontmatterError
from a13n_harness.context.frontmatter import FrontmatterLimits, parse_skill_document
from a13n_harness.environment import MemoryFileOperator

Verdict = tuple[str, ...] | tuple[str, str | None, int | None, int | None]


def whole_file_verdict(data: bytes, limits: FrontmatterLimits) -> Verdict:
    try:
        front = parse_skill_document(data, limits)
    except FrontmatterError as error:
        return ("refused", error.reason, error.line, error.column)
    return ("accepted", front.name, front.description)


def discovery_verdict(data: bytes, limits: FrontmatterLimits) -> Verdict:
    manager = SkillManager(
        (FileSkillSource("s", ("/r",)),), policy=SkillsPolicy(frontmatter=limits)
    )
    files = MemoryFileOperator({"r": {"x": {"SKILL.md": data}}})
    try:
        scan = asyncio.run(manager.inspect(files=files))
    except FrontmatterError as error:
        return ("refused", error.reason, error.line, error.column)
    except DefinitionError as error:
        raise AssertionError(f"unexpected {error.code}: {error}") from None
    (item,) = scan.items
    return ("accepted", item.name, item.description)


DEFAULT = FrontmatterLimits()
SMALL = FrontmatterLimits(max_bytes=200)


def _pieces(limits: FrontmatterLimits) -> st.SearchStrategy[bytes]:
    limit = read_limit(limits)
    lengths = st.one_of(
        st.integers(0, 6),
        st.integers(limits.max_bytes - 6, limits.max_bytes + 6),
        st.integers(limit - 60, limit + 6),
    )
    runs = st.sampled_from([b" ", b"\t", b"x", b"\n", b"\r\n", b"-", b"\xc3"])
    fixed = st.sampled_from(
        [
            b"---\n",
            b"---\r\n",
            b"--- \t\n",
            b"---",
            b"---\r",
            b"name: a\n",
            b"description: d\n",
            b"\n",
            b"- ",
        ]
    )
    return st.one_of(fixed, st.builds(lambda run, count: run * count, runs, lengths))


@st.composite
def documents(draw: st.DrawFn, limits: FrontmatterLimits) -> bytes:
    """Files whose fences, padding and newline-free runs straddle the read bound."""
    head = draw(
        st.sampled_from(
            [b"---\nname: a\ndescription: d\n", b"\xef\xbb\xbf---\r\nname: a\r\n", b"", b"---\n"]
        )
    )
    return head + b"".join(draw(st.lists(_pieces(limits), max_size=6)))


REPORTED = b"---\nname: a\ndescription: d\n" + b"y" * 50_000


@given(documents(DEFAULT))
@example(REPORTED)
@example(b"---\nname: a\ndescription: d\n" + b"y" * (read_limit(DEFAULT) - 29))
@example(b"---\nname: a\ndescription: d\n---" + b" " * read_limit(DEFAULT) + b"\nbody")
@example(b"---" + b" " * read_limit(DEFAULT) + b"\nname: a\ndescription: d\n---\n")
def test_discovery_reports_what_the_whole_file_gets(data: bytes) -> None:
    assert discovery_verdict(data, DEFAULT) == whole_file_verdict(data, DEFAULT)


@given(documents(SMALL))
def test_discovery_reports_what_the_whole_file_gets_at_small_limits(data: bytes) -> None:
    assert discovery_verdict(data, SMALL) == whole_file_verdict(data, SMALL)


def test_the_reported_file_is_too_large_through_discovery() -> None:
    """`---\\nname: a\\ndescription: d\\n` then 50 KB without a newline: too_large, line 2."""
    assert discovery_verdict(REPORTED, DEFAULT) == ("refused", "too_large", 2, 1)


# --- the verdict memo: a rescan skips the parser, never changes an answer -----------------------


@given(documents(SMALL))
def test_a_rescan_through_the_memo_gives_the_same_verdict(data: bytes) -> None:
    clear_verdict_memo()
    first = discovery_verdict(data, SMALL)
    assert discovery_verdict(data, SMALL) == first == whole_file_verdict(data, SMALL)


def test_the_memo_keys_on_the_limits_too() -> None:
    """One document, two policies: each gets its own verdict, in either order."""
    data = b"---\nname: a\ndescription: " + b"d" * 300 + b"\n---\n"
    small = FrontmatterLimits(max_bytes=100)
    for order in ((DEFAULT, small), (small, DEFAULT)):
        clear_verdict_memo()
        for limits in order:
            assert discovery_verdict(data, limits) == whole_file_verdict(data, limits)
    assert whole_file_verdict(data, small) != whole_file_verdict(data, DEFAULT)


def test_the_memo_is_bounded() -> None:
    clear_verdict_memo()
    big = MEMO_BYTES // 64 - 64
    for index in range(80):
        document_verdict(b"---\nname: a\ndescription: %d\n---\n" % index + b"x" * big, 10**9, SMALL)
    for index in range(MEMO_ENTRIES + 50):
        document_verdict(b"---\nname: a\ndescription: %d\n---\n" % index, 10**9, SMALL)
    entries, size = memo_size()
    assert entries <= MEMO_ENTRIES
    assert size <= MEMO_BYTES
    clear_verdict_memo()
    assert memo_size() == (0, 0)
