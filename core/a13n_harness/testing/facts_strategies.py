"""Hypothesis strategies for checkout facts (docs/contract.md §6).

Importable by library users who want to test their own collectors or
renderers against the same generators the project uses:

- :func:`local_instants`: ``(epoch_seconds, utc_offset_seconds)`` pairs whose
  local time falls anywhere in years 1..9999, offsets within +-26 h;
- :func:`hostile_text`: text that tries to break framing (new lines,
  U+2028, bidi controls, closing tags, lone surrogates);
- :func:`git_statuses` and :func:`environment_facts`: arbitrary values;
- :func:`porcelain_outputs`: well-formed ``git status --porcelain=v2 --branch -z``
  output together with the :class:`GitStatus` it must parse to.
"""

from __future__ import annotations

from hypothesis import strategies as st

from a13n_harness.context.facts import MAX_GIT_COUNT, EnvironmentFacts, GitStatus
from a13n_harness.testing.strategies import _built_once

__all__ = [
    "FIRST_LOCAL_SECOND",
    "LAST_LOCAL_SECOND",
    "MAX_OFFSET_SECONDS",
    "environment_facts",
    "git_paths",
    "git_statuses",
    "hostile_text",
    "local_instants",
    "porcelain_outputs",
]

FIRST_LOCAL_SECOND = -62_135_596_800
"""0001-01-01T00:00:00 as seconds from the epoch."""
LAST_LOCAL_SECOND = 253_402_300_799
"""9999-12-31T23:59:59 as seconds from the epoch."""
MAX_OFFSET_SECONDS = 93_600
"""26 hours: beyond every offset a real zone has had (+-14 h today, +-15:56 historically)."""

_OID = "0123456789abcdef0123456789abcdef01234567"
_HOSTILE_PIECES = (
    "\n",
    "\r\n",
    "\u2028",
    "\u2029",
    "\u0085",
    "\u202e",
    "\ufeff",
    "\x00",
    "</cwd>",
    "</environment_context>",
    "<git_status>",
    "&amp;",
    "&#xA;",
    "\ud800",
    "\udfff",
)


@_built_once
def local_instants() -> st.SearchStrategy[tuple[int, int]]:
    """``(epoch_seconds, offset)`` with the local second in years 1..9999."""
    local = st.one_of(
        st.integers(FIRST_LOCAL_SECOND, LAST_LOCAL_SECOND),
        st.sampled_from(
            (FIRST_LOCAL_SECOND, LAST_LOCAL_SECOND, -1, 0, 86_399, 86_400, 951_782_400)
        ),
    )
    offset = st.one_of(
        st.integers(-MAX_OFFSET_SECONDS, MAX_OFFSET_SECONDS),
        st.sampled_from((-MAX_OFFSET_SECONDS, 0, MAX_OFFSET_SECONDS, -1, 1)),
    )
    return st.tuples(local, offset).map(lambda pair: (pair[0] - pair[1], pair[1]))


@_built_once
def hostile_text(min_size: int = 0) -> st.SearchStrategy[str]:
    """Arbitrary text (lone surrogates included) salted with framing breakers."""
    piece = st.one_of(st.text(), st.sampled_from(_HOSTILE_PIECES))
    return st.lists(piece, max_size=6).map("".join).filter(lambda s: len(s) >= min_size)


@_built_once
def _counts() -> st.SearchStrategy[int]:
    return st.one_of(st.integers(0, 10), st.integers(0, MAX_GIT_COUNT))


@_built_once
def git_statuses() -> st.SearchStrategy[GitStatus]:
    """Any :class:`GitStatus`: hostile names, counts up to ``2**64 - 1``."""
    return st.builds(
        GitStatus,
        branch=st.none() | hostile_text(),
        upstream=st.none() | hostile_text(),
        ahead=_counts(),
        behind=_counts(),
        staged=_counts(),
        unstaged=_counts(),
        untracked=_counts(),
        conflicted=_counts(),
        renamed=_counts(),
    )


@_built_once
def environment_facts() -> st.SearchStrategy[EnvironmentFacts]:
    """Any :class:`EnvironmentFacts`, every text field hostile."""
    return st.builds(
        EnvironmentFacts,
        cwd=hostile_text(),
        shell=hostile_text(),
        os=hostile_text(),
        current_date=hostile_text(),
        timezone=hostile_text(),
        git=st.none() | git_statuses(),
    )


@_built_once
def git_paths() -> st.SearchStrategy[bytes]:
    """A non-empty path as git prints it under ``-z``: any bytes but NUL."""
    hostile = st.sampled_from(
        (b"a b", b"new\nline", b"? x", b"1 .M", b"# branch.head x", b"\xff\xfe", b"\x01", b" ")
    )
    free = st.binary(min_size=1, max_size=12).map(lambda b: b.replace(b"\0", b"\x01"))
    return st.one_of(hostile, free)


_XY_LETTERS = ".MTADRCU"


@st.composite
def porcelain_outputs(draw: st.DrawFn) -> tuple[bytes, GitStatus]:
    """Well-formed porcelain v2 output and the status it must parse to."""
    # The strategies drawn from are built once (``_PORCELAIN``), not at every draw.
    header, record_count, kinds, xys = _PORCELAIN
    branch = draw(header)
    upstream = draw(header)
    ahead = behind = 0
    records = [b"# branch.oid " + _OID.encode()]
    records.append(b"# branch.head " + (b"(detached)" if branch is None else branch))
    if upstream is not None:
        records.append(b"# branch.upstream " + upstream)
        if draw(st.booleans()):
            ahead, behind = draw(_counts()), draw(_counts())
            records.append(f"# branch.ab +{ahead} -{behind}".encode())
    staged = unstaged = untracked = conflicted = renamed = 0
    for _ in range(draw(record_count)):
        kind = draw(kinds)
        path = draw(git_paths())
        if kind in "12":
            xy = draw(xys)
            staged += xy[0] != "."
            unstaged += xy[1] != "."
            head = f"{kind} {xy} N... 100644 100644 100644 {_OID} {_OID} "
            if kind == "1":
                records.append(head.encode() + path)
            else:
                renamed += 1
                records.append(head.encode() + b"R100 " + path)
                records.append(draw(git_paths()))
        elif kind == "u":
            conflicted += 1
            head = f"u UU N... 100644 100644 100644 100644 {_OID} {_OID} {_OID} "
            records.append(head.encode() + path)
        else:
            untracked += kind == "?"
            records.append(kind.encode() + b" " + path)
    status = GitStatus(
        branch=None if branch is None else branch.decode("utf-8", errors="replace"),
        upstream=None if upstream is None else upstream.decode("utf-8", errors="replace"),
        ahead=ahead,
        behind=behind,
        staged=staged,
        unstaged=unstaged,
        untracked=untracked,
        conflicted=conflicted,
        renamed=renamed,
    )
    return b"".join(record + b"\0" for record in records), status


def _header_value_ok(value: bytes) -> bool:
    return b"\0" not in value and value != b"(detached)"


_PORCELAIN = (
    st.none() | st.binary(min_size=1, max_size=10).filter(_header_value_ok),
    st.integers(0, 8),
    st.sampled_from("12u?!"),
    st.text(_XY_LETTERS, min_size=2, max_size=2),
)
