"""Checkout facts as values (docs/contract.md §6).

The values here are pure data; collecting them (git, ``$SHELL``, the clock)
is I/O and lives in :mod:`a13n_harness.environment`. This module turns what
was collected into values and text: :func:`civil_date` (epoch seconds to a
calendar date by integer arithmetic), :func:`parse_git_status` (git's
porcelain v2 output to a :class:`GitStatus`) and :func:`render_environment`
(the ``<environment_context>`` block, every value encoded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from a13n_harness.context._checks import (
    MAX_U64,
    describe,
    is_bytes_like,
    is_kind,
    is_u64,
    plain_bytes,
    plain_fields,
    plain_record,
    type_name,
)
from a13n_harness.context.encoder import encode_value
from a13n_harness.context.errors import DefinitionError

__all__ = [
    "MAX_GIT_COUNT",
    "EnvironmentFacts",
    "GitStatus",
    "civil_date",
    "facts_problem",
    "parse_git_status",
    "plain_facts",
    "render_environment",
]


@dataclass(frozen=True, slots=True)
class GitStatus:
    """What ``git status --porcelain=v2 --branch -z`` says about a checkout.

    ``branch`` is ``None`` for a detached head; ``upstream`` is ``None`` when
    no upstream is configured. Every count is a non-negative ``int``.
    """

    branch: str | None
    upstream: str | None
    ahead: int
    behind: int
    staged: int
    unstaged: int
    untracked: int
    conflicted: int
    renamed: int

    def __post_init__(self) -> None:
        # A Host's str or int subclass is kept as its plain value (its methods never
        # decide what is rendered); the values themselves are checked where consumed.
        plain_fields(self)


@dataclass(frozen=True, slots=True)
class EnvironmentFacts:
    """The facts rendered in ``<environment_context>``; ``git`` is ``None`` outside a repository."""

    cwd: str
    shell: str
    os: str
    current_date: str
    timezone: str
    git: GitStatus | None

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses (and a forged GitStatus) as plain values


# --------------------------------------------------------------------------- dates

_SECONDS_PER_DAY = 86_400
# Days from 0001-01-01 (day 0 here) to 1970-01-01: 1969 years of 365 days plus
# their 477 leap days (1969 // 4 - 1969 // 100 + 1969 // 400).
_EPOCH_DAY = 719_162
# Days in the 9999 years 0001..9999: the upper end of the supported range.
_DAYS_IN_RANGE = 3_652_059
# Lengths of the Gregorian cycles: 400, 100 and 4 years, and one common year.
_DAYS_IN_400_YEARS = 146_097
_DAYS_IN_100_YEARS = 36_524
_DAYS_IN_4_YEARS = 1_461
_DAYS_IN_YEAR = 365
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _is_leap(year: int) -> bool:
    """The Gregorian rule: every 4th year, except centuries not divisible by 400."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def civil_date(epoch_seconds: int, utc_offset_seconds: int) -> str:
    """The local calendar date ``YYYY-MM-DD`` of an instant, by integer arithmetic.

    ``epoch_seconds`` counts seconds since 1970-01-01T00:00:00Z (negative before
    it); ``utc_offset_seconds`` is the local offset east of UTC (any ``int``; the
    collector passes the host's, which stays within +-26 h). The date is in the
    proleptic Gregorian calendar and must fall in years 1..9999, like
    :class:`datetime.date`; anything else, and any argument that is not an
    ``int`` (a ``bool`` is not), raises ``DefinitionError(code="date_out_of_range")``.

    No ``datetime``: the pure core has no clock and no platform calendar, and
    the property tests compare this function against ``datetime`` instead.

    >>> civil_date(0, 0), civil_date(-1, 0), civil_date(1_700_000_000, 3_600)
    ('1970-01-01', '1969-12-31', '2023-11-14')
    """
    for label, value in (
        ("epoch_seconds", epoch_seconds),
        ("utc_offset_seconds", utc_offset_seconds),
    ):
        if type(value) is not int:
            raise DefinitionError(
                "date_out_of_range", f"{label} must be an int, got {type_name(type(value))}"
            )
    day = (epoch_seconds + utc_offset_seconds) // _SECONDS_PER_DAY + _EPOCH_DAY
    if not 0 <= day < _DAYS_IN_RANGE:
        raise DefinitionError(
            "date_out_of_range",
            # describe(): str() of an int past 4,300 digits raises ValueError.
            f"instant {describe(epoch_seconds)} at offset {describe(utc_offset_seconds)} "
            "is outside years 1..9999",
        )
    # Peel whole 400-, 100-, 4- and 1-year cycles off the day count. The last day
    # of a 400-year cycle (or of a 4-year cycle) makes the smaller divmod reach 4;
    # it belongs to the last year of the cycle, so clamp to 3.
    cycles_400, day = divmod(day, _DAYS_IN_400_YEARS)
    cycles_100, day = divmod(day, _DAYS_IN_100_YEARS)
    if cycles_100 == 4:
        cycles_100, day = 3, _DAYS_IN_100_YEARS
    cycles_4, day = divmod(day, _DAYS_IN_4_YEARS)
    years, day = divmod(day, _DAYS_IN_YEAR)
    if years == 4:
        years, day = 3, _DAYS_IN_YEAR
    year = cycles_400 * 400 + cycles_100 * 100 + cycles_4 * 4 + years + 1
    month = 1
    for month_number, length in enumerate(_MONTH_DAYS, start=1):
        month = month_number
        if month_number == 2 and _is_leap(year):
            length += 1
        if day < length:
            break
        day -= length
    return f"{year:04d}-{month:02d}-{day + 1:02d}"


# ---------------------------------------------------------------------- git status

MAX_GIT_COUNT = MAX_U64
"""The largest ahead/behind count accepted: git's own counters are machine
integers, and the manifest carries every count as an unsigned 64-bit value."""

# ``XY`` of a changed entry: ``.`` unchanged, else git's status letters.
_XY = rb"[.MTADRCU]{2}"
# ``<sub>``: ``N...`` or ``S`` followed by the commit-changed, tracked-changes
# and untracked-changes flags of a submodule.
_SUB = rb"(?:N\.\.\.|S[C.][M.][U.])"
_MODE = rb"[0-7]{6}"
# Object names: SHA-1 (40) or SHA-256 (64) hex digits.
_OID = rb"(?:[0-9a-f]{40}|[0-9a-f]{64})"
_ORDINARY = re.compile(
    rb"1 (" + _XY + rb") " + _SUB + rb" (?:" + _MODE + rb" ){3}(?:" + _OID + rb" ){2}(.+)",
    re.DOTALL,
)
_RENAMED = re.compile(
    rb"2 (" + _XY + rb") " + _SUB + rb" (?:" + _MODE + rb" ){3}(?:" + _OID + rb" ){2}"
    rb"[RC][0-9]{1,3} (.+)",
    re.DOTALL,
)
_UNMERGED = re.compile(
    rb"u (" + _XY + rb") " + _SUB + rb" (?:" + _MODE + rb" ){4}(?:" + _OID + rb" ){3}(.+)",
    re.DOTALL,
)
_PATH_ONLY = re.compile(rb"[?!] (.+)", re.DOTALL)
# ``# branch.ab +<ahead> -<behind>``: at most 20 digits (2**64 - 1 has 20), so
# ``int()`` never meets a string past its digit limit.
_AB = re.compile(rb"\+([0-9]{1,20}) -([0-9]{1,20})")
_HEADER = re.compile(rb"# ([a-z][a-z0-9.]*) (.+)", re.DOTALL)


def _name(raw: bytes) -> str:
    """Decode a branch or upstream name; bytes that are not UTF-8 become U+FFFD.

    Git ref names are bytes. A lossy ``errors="replace"`` keeps every result a
    plain ``str`` without surrogates, so the name survives ``encode_value``, the
    manifest's strict UTF-8 and its round trip; ``surrogateescape`` would not.
    """
    return raw.decode("utf-8", errors="replace")


def _invalid(reason: str, message: str) -> DefinitionError:
    return DefinitionError("git_status_invalid", message, reason=reason)


def parse_git_status(data: bytes) -> GitStatus:
    """Parse the output of ``git status --porcelain=v2 --branch -z``.

    Grammar (every record ends in NUL; ``SP`` is one space)::

        status   = 1*( record NUL )
        record   = header / ordinary / renamed SP? / unmerged / untracked / ignored
        header   = "# " key SP value        ; branch.oid, branch.head, branch.upstream,
                                             ; branch.ab "+"A SP "-"B; other keys skipped
        ordinary = "1 " XY SP sub SP 3(mode SP) 2(oid SP) path
        renamed  = "2 " XY SP sub SP 3(mode SP) 2(oid SP) ("R"/"C") score SP path NUL source
        unmerged = "u " XY SP sub SP 4(mode SP) 3(oid SP) path
        untracked = "? " path
        ignored  = "! " path
        path, source = 1*(any byte but NUL)

    ``# branch.head`` is required exactly once (``(detached)`` gives
    ``branch=None``); ``branch.upstream`` and ``branch.ab`` at most once, and an
    ``ab`` line needs an upstream. Ordinary and renamed records count ``staged``
    when X is not ``.`` and ``unstaged`` when Y is not ``.``; a renamed record
    also consumes its source field and counts in ``renamed``; ``u`` counts
    ``conflicted``, ``?`` ``untracked``; ``!`` is accepted and not counted.
    Branch and upstream names are decoded as UTF-8 with ``errors="replace"``
    (see :func:`_name`); paths are never decoded.

    Anything else (an unknown record type, a field out of shape, a missing
    final NUL, a rename without its source, a count above
    :data:`MAX_GIT_COUNT`, a repeated header) raises
    ``DefinitionError(code="git_status_invalid")`` with a ``reason``:
    ``truncated``, ``record``, ``header`` or ``missing_head``.
    """
    if not is_bytes_like(data):
        raise _invalid("record", f"expected bytes, got {type_name(type(data))}")
    data = plain_bytes(data)  # type: ignore[assignment]  # a subclass's __bytes__ not run
    if data and not data.endswith(b"\0"):
        raise _invalid("truncated", "the last record does not end in NUL")
    fields = data.split(b"\0")[:-1] if data else []
    headers: dict[bytes, bytes] = {}
    staged = unstaged = untracked = conflicted = renamed = 0
    index = 0
    while index < len(fields):
        record = fields[index]
        index += 1
        kind = record[:2]
        if kind == b"# ":
            header = _HEADER.fullmatch(record)
            if header is None:
                raise _invalid("header", f"header record {index} is malformed")
            key = header.group(1)
            if key in headers:
                raise _invalid("header", f"header {key.decode('ascii')} repeats")
            headers[key] = header.group(2)
            continue
        if kind == b"1 ":
            change = _ORDINARY.fullmatch(record)
        elif kind == b"2 ":
            change = _RENAMED.fullmatch(record)
            if change is not None:
                if index >= len(fields):
                    raise _invalid("truncated", "a rename record has no source path")
                if not fields[index]:
                    raise _invalid("record", "a rename record has an empty source path")
                index += 1
                renamed += 1
        elif kind == b"u ":
            if _UNMERGED.fullmatch(record) is None:
                raise _invalid("record", f"unmerged record {index} is malformed")
            conflicted += 1
            continue
        elif kind in (b"? ", b"! "):
            if _PATH_ONLY.fullmatch(record) is None:
                raise _invalid("record", f"record {index} has no path")
            if kind == b"? ":
                untracked += 1
            continue
        else:
            raise _invalid("record", f"record {index} has an unknown type")
        if change is None:
            raise _invalid("record", f"change record {index} is malformed")
        xy = change.group(1)
        if xy[0:1] != b".":
            staged += 1
        if xy[1:2] != b".":
            unstaged += 1
    return _status_from_headers(
        headers,
        staged=staged,
        unstaged=unstaged,
        untracked=untracked,
        conflicted=conflicted,
        renamed=renamed,
    )


def _status_from_headers(
    headers: dict[bytes, bytes],
    *,
    staged: int,
    unstaged: int,
    untracked: int,
    conflicted: int,
    renamed: int,
) -> GitStatus:
    head = headers.get(b"branch.head")
    if head is None:
        raise _invalid("missing_head", "no '# branch.head' header")
    upstream = headers.get(b"branch.upstream")
    ahead = behind = 0
    ab = headers.get(b"branch.ab")
    if ab is not None:
        counts = _AB.fullmatch(ab)
        if counts is None:
            raise _invalid("header", "'# branch.ab' is not '+A -B'")
        if upstream is None:
            raise _invalid("header", "'# branch.ab' without '# branch.upstream'")
        ahead, behind = int(counts.group(1)), int(counts.group(2))
        if ahead > MAX_GIT_COUNT or behind > MAX_GIT_COUNT:
            raise _invalid("header", "an ahead/behind count exceeds 2**64 - 1")
    return GitStatus(
        branch=None if head == b"(detached)" else _name(head),
        upstream=None if upstream is None else _name(upstream),
        ahead=ahead,
        behind=behind,
        staged=staged,
        unstaged=unstaged,
        untracked=untracked,
        conflicted=conflicted,
        renamed=renamed,
    )


# -------------------------------------------------------------- environment block


def _git_line(git: GitStatus | None) -> str:
    if git is None:
        return "not a git repository"
    branch = "(detached)" if git.branch is None else encode_value(git.branch)
    parts = [f"branch {branch}"]
    if git.upstream is not None:
        parts.append(f"upstream {encode_value(git.upstream)}")

    def count(value: int, label: str) -> str:
        return f"{encode_value(str(value))} {label}"

    parts += [count(git.ahead, "ahead"), count(git.behind, "behind")]
    changes = ", ".join(
        (
            count(git.staged, "staged"),
            count(git.unstaged, "unstaged"),
            count(git.untracked, "untracked"),
            count(git.conflicted, "conflicted"),
            count(git.renamed, "renamed"),
        )
    )
    return f"{', '.join(parts)}; {changes}"


_FACT_FIELDS = ("cwd", "shell", "os", "current_date", "timezone")
_GIT_COUNT_FIELDS = ("ahead", "behind", "staged", "unstaged", "untracked", "conflicted", "renamed")


def plain_facts(facts: object) -> object:
    """``facts`` with every ``str`` or ``int`` subclass in it as its plain value, or as is.

    :class:`EnvironmentFacts` and :class:`GitStatus` keep plain values when
    constructed; one forged past its constructor (``object.__new__``,
    ``object.__setattr__``) is copied here, field by field, without running any
    of the values' methods (``plain_record``), before :func:`facts_problem` checks it.
    """
    if type(facts) is not EnvironmentFacts:
        return facts
    return plain_record(facts)


def facts_problem(facts: object) -> str | None:
    """What makes ``facts`` unusable, or ``None``.

    The dataclasses do not check their fields, so a Host can build (or forge)
    ``EnvironmentFacts`` holding anything; every consumer (rendering, the
    manifest) asks this first: five ``str`` facts, ``git`` a ``GitStatus`` or
    ``None``, its names ``str`` or ``None`` and its counts ``int`` (not
    ``bool``) from 0 to ``2**64 - 1`` (contract §6).
    """
    if not is_kind(facts, EnvironmentFacts):
        return f"expected EnvironmentFacts, got {type_name(type(facts))}"
    facts = plain_facts(facts)  # judged by its plain values, as it is rendered
    for name in _FACT_FIELDS:
        if type(getattr(facts, name, None)) is not str:
            return f"environment fact {name} must be a str"
    git = getattr(facts, "git", None)
    if git is None:
        return None
    if not is_kind(git, GitStatus):
        return f"git must be a GitStatus or None, got {type_name(type(git))}"
    for name in ("branch", "upstream"):
        value = getattr(git, name, None)
        if value is not None and type(value) is not str:
            return f"git {name} must be a str or None"
    for name in _GIT_COUNT_FIELDS:
        value = getattr(git, name, None)
        if not is_u64(value):
            return f"git {name} must be an int from 0 to 2**64 - 1"
    return None


def render_environment(facts: EnvironmentFacts) -> str:
    """The ``<environment_context>`` block (Codex framing), every value encoded.

    Exactly eight lines, each ending in ``\\n`` (so blocks concatenate like the
    catalog block does)::

        <environment_context>
          <cwd>{cwd}</cwd>
          <shell>{shell}</shell>
          <os>{os}</os>
          <current_date>{current_date}</current_date>
          <timezone>{timezone}</timezone>
          <git_status>{git}</git_status>
        </environment_context>

    ``{git}`` is ``not a git repository`` when ``facts.git`` is ``None``, else
    ``branch B[, upstream U], A ahead, B behind; S staged, N unstaged,
    T untracked, C conflicted, R renamed`` with ``B`` = ``(detached)`` for a
    detached head. Every field passes through :func:`encode_value`, so no value
    can add a line or a tag. A value that is not a ``str`` (a count that is
    not a non-negative ``int``, a ``git`` that is not a ``GitStatus``) raises
    ``DefinitionError(code="context_value_invalid")``.
    """
    facts = plain_facts(facts)  # type: ignore[assignment]
    problem = facts_problem(facts)
    if problem is not None:
        raise DefinitionError("context_value_invalid", problem)
    lines = (
        "<environment_context>",
        f"  <cwd>{encode_value(facts.cwd)}</cwd>",
        f"  <shell>{encode_value(facts.shell)}</shell>",
        f"  <os>{encode_value(facts.os)}</os>",
        f"  <current_date>{encode_value(facts.current_date)}</current_date>",
        f"  <timezone>{encode_value(facts.timezone)}</timezone>",
        f"  <git_status>{_git_line(facts.git)}</git_status>",
        "</environment_context>",
    )
    return "".join(line + "\n" for line in lines)
