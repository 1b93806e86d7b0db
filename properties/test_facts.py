"""Checkout facts (docs/contract.md §6): civil dates, git status parsing, the environment block.

Git status is checked against real ``git`` output from repositories built in
``tmp_path``; dates against :mod:`datetime`; the block against hostile values.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from a13n_harness.context.encoder import decode_value, encode_value
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.facts import (
    MAX_GIT_COUNT,
    EnvironmentFacts,
    GitStatus,
    civil_date,
    parse_git_status,
    render_environment,
)
from a13n_harness.environment.facts import collect_environment_facts, collect_git_status
from a13n_harness.testing.facts_strategies import (
    FIRST_LOCAL_SECOND,
    LAST_LOCAL_SECOND,
    MAX_OFFSET_SECONDS,
    environment_facts,
    git_paths,
    local_instants,
    porcelain_outputs,
)
from bounded import call_bounded, run_bounded

_EPOCH = datetime.datetime(1970, 1, 1)


def _datetime_date(epoch_seconds: int, offset: int) -> str:
    local = _EPOCH + datetime.timedelta(seconds=epoch_seconds + offset)
    return local.date().isoformat()


def _datetime_date_or_none(epoch_seconds: int, offset: int) -> str | None:
    try:
        return _datetime_date(epoch_seconds, offset)
    except OverflowError:
        return None


def _git_outcome(data: bytes) -> GitStatus | str:
    try:
        return parse_git_status(data)
    except DefinitionError as error:
        return error.code


def check_dates_against_datetime(date: Callable[[int, int], str], days: range) -> None:
    """``date`` at noon of each day (counted from the epoch) equals datetime's date."""
    for day in days:
        for offset in (0, -MAX_OFFSET_SECONDS, MAX_OFFSET_SECONDS):
            seconds = day * 86_400 + 43_200 - offset
            assert date(seconds, offset) == _datetime_date(seconds, offset), (day, offset)


# ---------------------------------------------------------------- civil_date


@given(local_instants())
def test_civil_date_equals_datetime_for_every_instant(instant: tuple[int, int]) -> None:
    """contract §6: ``civil_date`` gives the proleptic Gregorian date, years 1..9999."""
    epoch_seconds, offset = instant
    assert civil_date(epoch_seconds, offset) == _datetime_date(epoch_seconds, offset)


@given(st.integers(1, 9999), st.integers(-MAX_OFFSET_SECONDS, MAX_OFFSET_SECONDS))
@example(1900, 0)  # a century that is not a leap year
@example(2000, 0)  # a century that is
def test_civil_date_equals_datetime_around_every_year_boundary(year: int, offset: int) -> None:
    """Every year's first and last second, and the days around 28 February."""
    for moment in (
        datetime.datetime(year, 1, 1),
        datetime.datetime(year, 12, 31, 23, 59, 59),
        datetime.datetime(year, 2, 28, 23, 59, 59),
        datetime.datetime(year, 3, 1),
    ):
        local = (moment - _EPOCH) // datetime.timedelta(seconds=1)
        assert civil_date(local - offset, offset) == moment.date().isoformat()


_CYCLE_1600_2000 = range(-135_140, 11_323)  # 1600-01-01 .. 2000-12-31, days from the epoch


def test_civil_date_every_day_of_a_400_year_cycle() -> None:
    """Each day of 1600..2000 (a full cycle: every leap case) matches datetime."""
    check_dates_against_datetime(civil_date, _CYCLE_1600_2000)


@pytest.mark.parametrize(
    ("epoch_seconds", "offset", "expected"),
    [
        (0, 0, "1970-01-01"),
        (-1, 0, "1969-12-31"),
        (86_399, 0, "1970-01-01"),
        (86_400, 0, "1970-01-02"),
        (0, -1, "1969-12-31"),
        (-1, 1, "1970-01-01"),
        (951_782_400, 0, "2000-02-29"),
        (-2_203_891_200, 0, "1900-03-01"),
        (4_107_456_000, 0, "2100-02-28"),
        (4_107_542_400, 0, "2100-03-01"),
        (1_795_910_400, 0, "2026-11-29"),
        (1_795_910_400, -1, "2026-11-28"),
        (0, MAX_OFFSET_SECONDS, "1970-01-02"),
        (0, -MAX_OFFSET_SECONDS, "1969-12-30"),
        (FIRST_LOCAL_SECOND, 0, "0001-01-01"),
        (LAST_LOCAL_SECOND, 0, "9999-12-31"),
        (FIRST_LOCAL_SECOND + MAX_OFFSET_SECONDS, -MAX_OFFSET_SECONDS, "0001-01-01"),
        (LAST_LOCAL_SECOND - MAX_OFFSET_SECONDS, MAX_OFFSET_SECONDS, "9999-12-31"),
    ],
)
def test_civil_date_exact_examples(epoch_seconds: int, offset: int, expected: str) -> None:
    assert civil_date(epoch_seconds, offset) == expected


@pytest.mark.parametrize(
    ("epoch_seconds", "offset"),
    [
        (FIRST_LOCAL_SECOND - 1, 0),
        (LAST_LOCAL_SECOND + 1, 0),
        (FIRST_LOCAL_SECOND, -1),
        (LAST_LOCAL_SECOND, 1),
        (0, 10**30),
        (-(10**30), 0),
        (2**64, 0),
    ],
)
def test_civil_date_outside_years_1_to_9999_is_date_out_of_range(
    epoch_seconds: int, offset: int
) -> None:
    with pytest.raises(DefinitionError) as raised:
        civil_date(epoch_seconds, offset)
    assert raised.value.code == "date_out_of_range"


@pytest.mark.parametrize(
    ("epoch_seconds", "offset"),
    [(True, 0), (0, False), (0.0, 0), ("0", 0), (0, None), (1.5, 0)],
)
def test_civil_date_rejects_non_int_arguments(epoch_seconds: object, offset: object) -> None:
    with pytest.raises(DefinitionError) as raised:
        civil_date(epoch_seconds, offset)  # type: ignore[arg-type]
    assert raised.value.code == "date_out_of_range"


@given(st.integers(), st.integers())
def test_civil_date_is_total_on_ints(epoch_seconds: int, offset: int) -> None:
    """Any pair of ints gives a date or ``date_out_of_range``, nothing else."""
    try:
        result = civil_date(epoch_seconds, offset)
    except DefinitionError as error:
        result = error.code
    assert result in ("date_out_of_range", _datetime_date_or_none(epoch_seconds, offset))


def test_negative_control_a_wrong_leap_rule_fails_the_datetime_property() -> None:
    """A date function that treats 1900 as leap must fail the comparison with datetime."""

    def century_leap(epoch_seconds: int, offset: int) -> str:
        day = datetime.date(1970, 1, 1) + datetime.timedelta(
            days=(epoch_seconds + offset) // 86_400
        )
        if day.year % 100 == 0 and day.year % 400 != 0 and day >= day.replace(month=3, day=1):
            day -= datetime.timedelta(days=1)
        return day.isoformat()

    with pytest.raises(AssertionError):
        check_dates_against_datetime(century_leap, _CYCLE_1600_2000)

    def shifted(epoch_seconds: int, offset: int) -> str:
        return civil_date(epoch_seconds + 86_400, offset)

    with pytest.raises(AssertionError):
        check_dates_against_datetime(shifted, range(1))


# --------------------------------------------------------- git status: synthetic


@given(porcelain_outputs())
def test_well_formed_porcelain_parses_to_its_counts(case: tuple[bytes, GitStatus]) -> None:
    """contract §6 counting rules over generated records with hostile paths."""
    data, expected = case
    assert parse_git_status(data) == expected


@given(porcelain_outputs(), st.data())
def test_every_cut_inside_a_record_is_truncated(
    case: tuple[bytes, GitStatus], data: st.DataObject
) -> None:
    """A prefix that does not end in NUL is ``git_status_invalid`` (``truncated``)."""
    output, _ = case
    cut = data.draw(st.integers(1, len(output) - 1))
    prefix = output[:cut]
    if prefix.endswith(b"\0"):
        return
    with pytest.raises(DefinitionError) as raised:
        parse_git_status(prefix)
    assert (raised.value.code, raised.value.reason) == ("git_status_invalid", "truncated")


@given(st.binary(max_size=400))
@example(b"")
@example(b"\0")
@example(b"# branch.head \xff\xfe\0")
@example(b"# branch.head x\0# branch.ab +1 -1\0")
@example(b"# branch.head x\0# branch.upstream y\0# branch.ab +" + b"9" * 5000 + b" -0\0")
def test_arbitrary_bytes_give_a_status_or_git_status_invalid(data: bytes) -> None:
    status = _git_outcome(data)
    if isinstance(status, str):
        assert status == "git_status_invalid"
    else:
        for name in (status.branch, status.upstream):
            assert name is None or name.encode("utf-8").decode("utf-8") == name


@given(porcelain_outputs(), st.binary(max_size=40), st.data())
def test_bytes_spliced_into_valid_output_never_escape(
    case: tuple[bytes, GitStatus], junk: bytes, data: st.DataObject
) -> None:
    output, _ = case
    at = data.draw(st.integers(0, len(output)))
    status = _git_outcome(output[:at] + junk + output[at:])
    assert isinstance(status, GitStatus) or status == "git_status_invalid"


_O = "0" * 40
_HEAD = b"# branch.oid " + _O.encode() + b"\0# branch.head main\0"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            _HEAD,
            GitStatus("main", None, 0, 0, 0, 0, 0, 0, 0),
        ),
        (
            b"# branch.oid (initial)\0# branch.head (detached)\0",
            GitStatus(None, None, 0, 0, 0, 0, 0, 0, 0),
        ),
        (
            _HEAD + b"# branch.upstream origin/main\0# branch.ab +1 -0\0",
            GitStatus("main", "origin/main", 1, 0, 0, 0, 0, 0, 0),
        ),
        (
            _HEAD + b"# stash 3\0? a\0! b\0",
            GitStatus("main", None, 0, 0, 0, 0, 1, 0, 0),
        ),
        (
            _HEAD + f"1 .M N... 100644 100644 100644 {_O} {_O} a b\0".encode(),
            GitStatus("main", None, 0, 0, 0, 1, 0, 0, 0),
        ),
        (
            _HEAD + f"1 MM N... 100644 100644 100644 {_O} {_O} a\nb\0".encode(),
            GitStatus("main", None, 0, 0, 1, 1, 0, 0, 0),
        ),
        (
            # The source "? x" must be consumed, not counted as untracked.
            _HEAD + f"2 R. N... 100644 100644 100644 {_O} {_O} R100 new\0? x\0".encode(),
            GitStatus("main", None, 0, 0, 1, 0, 0, 0, 1),
        ),
        (
            _HEAD + f"u UU N... 100644 100644 100644 100644 {_O} {_O} {_O} c\0".encode(),
            GitStatus("main", None, 0, 0, 0, 0, 0, 1, 0),
        ),
        (
            b"# branch.head \xff\xfeok\0",
            GitStatus("\ufffd\ufffdok", None, 0, 0, 0, 0, 0, 0, 0),
        ),
        (
            _HEAD
            + b"# branch.upstream u\0# branch.ab +18446744073709551615 -18446744073709551615\0",
            GitStatus("main", "u", MAX_GIT_COUNT, MAX_GIT_COUNT, 0, 0, 0, 0, 0),
        ),
    ],
)
def test_parse_git_status_exact_examples(data: bytes, expected: GitStatus) -> None:
    assert parse_git_status(data) == expected


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "missing_head"),
        (b"? a\0", "missing_head"),
        (_HEAD[:-1], "truncated"),
        (_HEAD + b"? a", "truncated"),
        (_HEAD + f"2 R. N... 100644 100644 100644 {_O} {_O} R100 new\0".encode(), "truncated"),
        (_HEAD + f"2 R. N... 100644 100644 100644 {_O} {_O} R100 new\0\0".encode(), "record"),
        (_HEAD + f"2 R. N... 100644 100644 100644 {_O} {_O} new\0old\0".encode(), "record"),
        (_HEAD + f"1 M N... 100644 100644 100644 {_O} {_O} a\0".encode(), "record"),
        (_HEAD + f"1 MX N... 100644 100644 100644 {_O} {_O} a\0".encode(), "record"),
        (_HEAD + f"1 M. N... 100644 100644 100644 {_O} {_O} \0".encode(), "record"),
        (_HEAD + f"1 M. N.. 100644 100644 100644 {_O} {_O} a\0".encode(), "record"),
        (_HEAD + f"1 M. N... 100648 100644 100644 {_O} {_O} a\0".encode(), "record"),
        (_HEAD + f"1 M. N... 100644 100644 100644 {_O[:-1]} {_O} a\0".encode(), "record"),
        (_HEAD + f"u UU N... 100644 100644 100644 {_O} {_O} {_O} c\0".encode(), "record"),
        (_HEAD + b"? \0", "record"),
        (_HEAD + b"?a\0", "record"),
        (_HEAD + b"x a\0", "record"),
        (_HEAD + b"\0", "record"),
        (_HEAD + b"# branch.head other\0", "header"),
        (_HEAD + b"# branch.upstream u\0# branch.ab 1 0\0", "header"),
        (_HEAD + b"# branch.upstream u\0# branch.ab +1 -\0", "header"),
        (_HEAD + b"# branch.upstream u\0# branch.ab +1 -18446744073709551616\0", "header"),
        (_HEAD + b"# branch.upstream u\0# branch.ab +1 -" + b"1" * 21 + b"\0", "header"),
        (_HEAD + b"# branch.upstream u\0# branch.ab +\xd9\xa1 -0\0", "header"),
        (_HEAD + b"# branch.ab +1 -1\0", "header"),
        (_HEAD + b"# branch.upstream \0", "header"),
        (_HEAD + b"#branch.head x\0", "record"),
    ],
)
def test_malformed_porcelain_is_git_status_invalid(data: bytes, reason: str) -> None:
    with pytest.raises(DefinitionError) as raised:
        parse_git_status(data)
    assert (raised.value.code, raised.value.reason) == ("git_status_invalid", reason)


# ------------------------------------------------------ git status: real git


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Isolate git from the machine's configuration for every git the test starts."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


_GIT = ("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main")


def git(cwd: Path, *args: str, check: bool = True) -> bytes:
    result = run_bounded([*_GIT, *args], cwd=cwd, capture_output=True, cpu_seconds=60)
    if check and result.returncode != 0:
        raise AssertionError(f"git {args} failed: {result.stderr!r}")
    return result.stdout


def status_of(repo: Path) -> GitStatus:
    """Parse what git itself prints, and check the collector sees the same."""
    parsed = parse_git_status(git(repo, "status", "--porcelain=v2", "--branch", "-z"))
    assert collect_git_status(repo) == parsed
    return parsed


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    (path / "tracked.txt").write_text("one\n")
    (path / "other.txt").write_text("other\n")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "initial")
    return path


def counts(status: GitStatus) -> tuple[int, ...]:
    return (
        status.staged,
        status.unstaged,
        status.untracked,
        status.conflicted,
        status.renamed,
    )


_needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git on PATH")
_isolated_git = pytest.mark.usefixtures("git_env")


def pytestmark_git(test: Callable[..., None]) -> Callable[..., None]:
    """A test that builds real repositories: git on PATH, the machine's config ignored."""
    marked: Callable[..., None] = _needs_git(_isolated_git(test))
    return marked


@pytestmark_git
def test_real_git_clean_repository(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    assert status_of(repo) == GitStatus("main", None, 0, 0, 0, 0, 0, 0, 0)


@pytestmark_git
def test_real_git_repository_without_commits(tmp_path: Path) -> None:
    repo = tmp_path / "empty"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a").write_text("a")
    assert status_of(repo) == GitStatus("main", None, 0, 0, 0, 0, 1, 0, 0)


@pytestmark_git
def test_real_git_staged_unstaged_and_both(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / "new.txt").write_text("new\n")
    git(repo, "add", "new.txt")  # staged only (A.)
    (repo / "tracked.txt").write_text("two\n")  # unstaged only (.M)
    (repo / "other.txt").write_text("changed\n")
    git(repo, "add", "other.txt")
    (repo / "other.txt").write_text("changed again\n")  # both (MM)
    assert counts(status_of(repo)) == (2, 2, 0, 0, 0)


@pytestmark_git
def test_real_git_deletions_and_type_changes(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / "tracked.txt").unlink()  # .D
    git(repo, "rm", "-q", "--cached", "other.txt")  # D. plus an untracked file
    assert counts(status_of(repo)) == (1, 1, 1, 0, 0)


@pytestmark_git
def test_real_git_renames_with_spaces_and_newlines(tmp_path: Path) -> None:
    """A rename consumes its source field; names hold spaces, newlines and '? '."""
    repo = new_repo(tmp_path / "repo")
    weird = "? odd\nname with spaces.txt"
    (repo / weird).write_text("some content that git can match\n" * 5)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "weird")
    git(repo, "mv", weird, "1 .M renamed\nagain.txt")
    git(repo, "mv", "tracked.txt", "moved tracked.txt")
    status = status_of(repo)
    assert counts(status) == (2, 0, 0, 0, 2)
    raw = git(repo, "status", "--porcelain=v2", "--branch", "-z")
    assert weird.encode() in raw.split(b"\0")


@pytestmark_git
def test_real_git_untracked_and_ignored(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    (repo / ".gitignore").write_text("*.log\nbuild/\n")
    (repo / "a.log").write_text("x")
    (repo / "build").mkdir()
    (repo / "build" / "out").write_text("x")
    (repo / "u1").write_text("x")
    (repo / "dir").mkdir()
    (repo / "dir" / "u2").write_text("x")
    (repo / "dir" / "u3").write_text("x")
    status = status_of(repo)
    assert counts(status) == (0, 0, 3, 0, 0)  # .gitignore, u1, dir/
    ignored = git(repo, "status", "--porcelain=v2", "--branch", "-z", "--ignored")
    assert b"! a.log\0" in ignored
    assert parse_git_status(ignored) == status


@pytestmark_git
def test_real_git_conflicts_after_a_merge(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "tracked.txt").write_text("feature\n")
    (repo / "both.txt").write_text("feature\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "feature")
    git(repo, "checkout", "-q", "main")
    (repo / "tracked.txt").write_text("main\n")
    (repo / "both.txt").write_text("main\n")
    (repo / "other.txt").write_text("main too\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "main")
    git(repo, "merge", "-q", "feature", check=False)
    status = status_of(repo)
    assert status.branch == "main"
    assert counts(status) == (0, 0, 0, 2, 0)  # UU tracked.txt, AA both.txt


@pytestmark_git
def test_real_git_detached_head(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    git(repo, "checkout", "-q", "--detach")
    assert status_of(repo) == GitStatus(None, None, 0, 0, 0, 0, 0, 0, 0)


@pytestmark_git
def test_real_git_ahead_and_behind_a_local_upstream(tmp_path: Path) -> None:
    origin = new_repo(tmp_path / "origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    for name in ("a", "b"):
        (clone / name).write_text(name)
        git(clone, "add", name)
        git(clone, "commit", "-q", "-m", name)
    (origin / "c").write_text("c")
    git(origin, "add", "c")
    git(origin, "commit", "-q", "-m", "c")
    git(clone, "fetch", "-q")
    assert status_of(clone) == GitStatus("main", "origin/main", 2, 1, 0, 0, 0, 0, 0)
    git(clone, "branch", "-q", "--set-upstream-to=main", "main", check=False)
    git(clone, "checkout", "-q", "-b", "topic", "--track", "main")
    assert status_of(clone) == GitStatus("topic", "main", 0, 0, 0, 0, 0, 0, 0)


@pytestmark_git
def test_real_git_upstream_gone_has_no_ab_line(tmp_path: Path) -> None:
    origin = new_repo(tmp_path / "origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-q", "-b", "topic", "--track", "origin/main")
    git(clone, "update-ref", "-d", "refs/remotes/origin/main")
    assert status_of(clone) == GitStatus("topic", "origin/main", 0, 0, 0, 0, 0, 0, 0)


@pytestmark_git
def test_real_git_thousands_of_changes(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    for index in range(2_500):
        (repo / f"file {index}\n.txt").write_text("x")
    assert counts(status_of(repo)) == (0, 0, 2_500, 0, 0)


@pytestmark_git
def test_real_git_non_utf8_branch_name(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    name = b"caf\xe9-\xff"
    git(repo, "checkout", "-q", "-b", os.fsdecode(name))
    status = status_of(repo)
    assert status.branch == "caf\ufffd-\ufffd"
    rendered = render_environment(EnvironmentFacts("/r", "sh", "linux", "d", "UTC", status))
    assert "<git_status>branch caf\ufffd-\ufffd, 0 ahead" in rendered


# ----------------------------------------------------------- collection


@pytestmark_git
def test_collector_outside_a_repository_gives_none(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / ".git").write_text("not a gitdir")  # a broken marker is "not a repository" too
    assert collect_git_status(plain) is None
    assert collect_git_status(tmp_path / "missing") is None


def _fake_git(directory: Path, body: str) -> None:
    """A ``git`` that does ``body`` for ``status`` (and lists an empty config otherwise)."""
    directory.mkdir()
    script = directory / "git"
    script.write_text(f'#!/bin/sh\ncase "$*" in *status*) ;; *) exit 0 ;; esac\n{body}\n')
    script.chmod(0o755)


def _repository_skeleton(path: Path) -> Path:
    """What makes a directory a git checkout, built by hand (the fake git cannot)."""
    for part in ("objects", "refs/heads"):
        (path / ".git" / part).mkdir(parents=True)
    (path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell script stands in for git")
def test_collector_kills_a_hanging_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A git that hangs is killed with its whole process group at the timeout.

    No clock is read: the fake git, and a child of it holding git's stdout, sleep for ten
    minutes. A collector without a timeout waits for the pipe to close, and so does one that
    killed git alone (the child still holds it): either blocks, and the bounded call gives it
    up as no progress (``bounded.call_bounded``), however busy the machine. The group killed
    at 0.5 s returns at once. Whatever the collector left asleep is killed on the way out.
    """
    sleep = shutil.which("sleep")
    assert sleep is not None
    group = tmp_path / "group"  # git's process id, the id of the group it leads
    _fake_git(tmp_path / "bin", f"echo $$ > {group}\n{sleep} 600 &\nexec {sleep} 600")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    checkout = _repository_skeleton(tmp_path / "checkout")
    try:
        status = call_bounded(
            lambda: collect_git_status(checkout, timeout=0.5), cpu_seconds=30, what="a hung git"
        )
        assert status is None
    finally:
        if group.is_file():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.killpg(int(group.read_text()), signal.SIGKILL)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell script stands in for git")
def test_collector_refuses_garbage_from_git(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = _repository_skeleton(tmp_path / "checkout")
    _fake_git(tmp_path / "bin", "printf '# branch.head main\\0? unterminated'")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert collect_git_status(checkout) is None
    (tmp_path / "bin" / "git").unlink()
    (tmp_path / "bin").rmdir()
    _fake_git(tmp_path / "bin", "printf '# branch.head main\\0? x\\0'")
    assert collect_git_status(checkout) == GitStatus("main", None, 0, 0, 0, 0, 1, 0, 0)


def test_collector_without_git_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    facts = collect_environment_facts(tmp_path)
    assert facts.git is None
    assert render_environment(facts).splitlines()[6] == (
        "  <git_status>not a git repository</git_status>"
    )


@pytest.mark.parametrize(
    ("shell", "expected"),
    [("/bin/bash", "bash"), ("/usr/local/bin/zsh", "zsh"), ("fish", "fish"), ("", "unknown")],
)
def test_collector_shell_is_the_basename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: str, expected: str
) -> None:
    monkeypatch.setenv("SHELL", shell)
    assert collect_environment_facts(tmp_path).shell == expected


def test_collector_shell_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHELL", raising=False)
    assert collect_environment_facts(tmp_path).shell == "unknown"


@pytest.mark.parametrize(
    ("tz", "expected"),
    [
        ("Europe/Paris", "Europe/Paris"),
        (":America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
        ("/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"),
        ("", "UTC"),
        ("UTC", "UTC"),
        ("EST5EDT,M3.2.0,M11.1.0", "EST5EDT,M3.2.0,M11.1.0"),
    ],
)
def test_collector_timezone_from_tz(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tz: str, expected: str
) -> None:
    monkeypatch.setenv("TZ", tz)
    assert collect_environment_facts(tmp_path).timezone == expected


@pytest.mark.skipif(not hasattr(time, "tzset"), reason="needs time.tzset")
def test_collector_date_follows_the_local_offset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The date is the local one: compare with datetime's local date under each TZ."""
    for tz in ("UTC", "Pacific/Kiritimati", "Etc/GMT+12"):
        monkeypatch.setenv("TZ", tz)
        time.tzset()
        try:
            before = datetime.datetime.now().date().isoformat()
            facts = collect_environment_facts(tmp_path)
            after = datetime.datetime.now().date().isoformat()
        finally:
            monkeypatch.delenv("TZ")
            time.tzset()
        assert facts.current_date in (before, after)


def test_collector_facts_shape(tmp_path: Path) -> None:
    facts = collect_environment_facts(tmp_path)
    assert facts.cwd == str(tmp_path)
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", facts.current_date)
    assert facts.os == (__import__("platform").system().lower() or "unknown")


# ------------------------------------------------------ render_environment

_LINE_SHAPES = (
    re.compile(r"<environment_context>"),
    re.compile(r"  <cwd>([^<>\n]*)</cwd>"),
    re.compile(r"  <shell>([^<>\n]*)</shell>"),
    re.compile(r"  <os>([^<>\n]*)</os>"),
    re.compile(r"  <current_date>([^<>\n]*)</current_date>"),
    re.compile(r"  <timezone>([^<>\n]*)</timezone>"),
    re.compile(r"  <git_status>([^<>\n]*)</git_status>"),
    re.compile(r"</environment_context>"),
)


def check_environment_block(
    facts: EnvironmentFacts, render: Callable[[EnvironmentFacts], str]
) -> None:
    """The block has exactly its eight lines and each value decodes back."""
    text = render(facts)
    assert text.endswith("\n")
    lines = text[:-1].split("\n")
    assert len(lines) == 8
    assert len(text.splitlines()) == 8  # no U+2028, U+0085 or other line break inside
    values: list[str] = []
    for line, shape in zip(lines, _LINE_SHAPES, strict=True):
        match = shape.fullmatch(line)
        assert match is not None, line
        values.extend(match.groups())
    text.encode("utf-8")  # no lone surrogate left raw
    assert [decode_value(v) for v in values[:5]] == [
        facts.cwd,
        facts.shell,
        facts.os,
        facts.current_date,
        facts.timezone,
    ]


@given(environment_facts())
@example(EnvironmentFacts("</cwd>\n<cwd>x", "a\u2028b", "\u0085", "\ud800", "&#xA;", None))
@example(
    EnvironmentFacts(
        "/",
        "sh",
        "linux",
        "d",
        "UTC",
        GitStatus("a\n</git_status>", "u\u2028", 0, 0, 0, 0, 0, 0, 0),
    )
)
def test_environment_block_has_exactly_its_lines(facts: EnvironmentFacts) -> None:
    """contract §6: every value encoded; whatever the values, the framing holds."""
    check_environment_block(facts, render_environment)


def test_negative_control_an_unescaped_block_fails_the_framing_property() -> None:
    def unescaped(facts: EnvironmentFacts) -> str:
        return render_environment(facts).replace("&#xA;", "\n")

    hostile = EnvironmentFacts("a\nb", "bash", "linux", "2026-11-29", "UTC", None)
    with pytest.raises(AssertionError):
        check_environment_block(hostile, unescaped)


_FULL = GitStatus("main", "origin/main", 1, 0, 2, 1, 3, 0, 0)


@pytest.mark.parametrize(
    ("facts", "git_line"),
    [
        (
            EnvironmentFacts("/repo", "bash", "linux", "2026-11-29", "UTC", _FULL),
            "branch main, upstream origin/main, 1 ahead, 0 behind; "
            "2 staged, 1 unstaged, 3 untracked, 0 conflicted, 0 renamed",
        ),
        (
            EnvironmentFacts("/repo", "bash", "linux", "2026-11-29", "UTC", None),
            "not a git repository",
        ),
        (
            EnvironmentFacts(
                "/repo",
                "bash",
                "linux",
                "2026-11-29",
                "UTC",
                GitStatus(None, None, 0, 0, 0, 0, 0, 4, 5),
            ),
            "branch (detached), 0 ahead, 0 behind; "
            "0 staged, 0 unstaged, 0 untracked, 4 conflicted, 5 renamed",
        ),
        (
            EnvironmentFacts(
                "/repo",
                "bash",
                "linux",
                "2026-11-29",
                "UTC",
                GitStatus("a<b>\n", "o/&", 7, 8, 0, 0, 0, 0, 0),
            ),
            "branch a&lt;b&gt;&#xA;, upstream o/&amp;, 7 ahead, 8 behind; "
            "0 staged, 0 unstaged, 0 untracked, 0 conflicted, 0 renamed",
        ),
    ],
)
def test_render_environment_exact_output(facts: EnvironmentFacts, git_line: str) -> None:
    assert render_environment(facts) == (
        "<environment_context>\n"
        "  <cwd>/repo</cwd>\n"
        "  <shell>bash</shell>\n"
        "  <os>linux</os>\n"
        "  <current_date>2026-11-29</current_date>\n"
        "  <timezone>UTC</timezone>\n"
        f"  <git_status>{git_line}</git_status>\n"
        "</environment_context>\n"
    )


def test_render_environment_encodes_every_text_fact() -> None:
    facts = EnvironmentFacts("/r\n</cwd>", "b\u2028", "<os>", "2026\u202e", "U&C\ufeff", None)
    assert render_environment(facts).splitlines()[1:6] == [
        "  <cwd>/r&#xA;&lt;/cwd&gt;</cwd>",
        "  <shell>b&#x2028;</shell>",
        "  <os>&lt;os&gt;</os>",
        "  <current_date>2026&#x202E;</current_date>",
        "  <timezone>U&amp;C&#xFEFF;</timezone>",
    ]


def test_render_environment_refuses_a_non_text_value() -> None:
    facts = EnvironmentFacts(None, "b", "o", "d", "t", None)  # type: ignore[arg-type]
    with pytest.raises(DefinitionError) as raised:
        render_environment(facts)
    assert raised.value.code == "context_value_invalid"


@given(git_paths())
def test_git_paths_strategy_never_holds_nul(path: bytes) -> None:
    assert path
    assert b"\0" not in path
    assert encode_value(path.decode("utf-8", "replace")).count("\n") == 0
