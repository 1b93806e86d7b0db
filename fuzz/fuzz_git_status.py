"""Any bytes given to ``parse_git_status`` give a valid ``GitStatus`` or ``git_status_invalid``.

Every invariant of the status holds when it is accepted; when it is refused,
the error is ``DefinitionError(code="git_status_invalid")`` with a documented
reason; nothing else ever escapes.

Bug class: a porcelain v2 parser that trusts its input. Truncated records, a
rename whose source field is missing, paths holding spaces, newlines or bytes
next to NUL, ahead/behind counts too long for ``int()`` or past ``2**64 - 1``,
branch names that are not UTF-8: each must end in the documented error or a
status that renders inside its one ``<git_status>`` line, never in an
``IndexError``, ``ValueError``, ``UnicodeDecodeError`` or a broken block.
"""

from __future__ import annotations

from _target import attempt, contract, instrumented, judge, main

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.context.errors import DefinitionError
    from a13n_harness.context.facts import (
        MAX_GIT_COUNT,
        EnvironmentFacts,
        GitStatus,
        parse_git_status,
        render_environment,
    )

_CODE = "git_status_invalid"


def _check_refused(_data: bytes, error: DefinitionError) -> None:
    assert error.code == _CODE, error.code
    assert error.reason in ("truncated", "record", "header", "missing_head"), error.reason


def _check_accepted(data: bytes, result: GitStatus) -> None:
    counts = (
        result.ahead,
        result.behind,
        result.staged,
        result.unstaged,
        result.untracked,
        result.conflicted,
        result.renamed,
    )
    assert all(type(c) is int and 0 <= c <= MAX_GIT_COUNT for c in counts), counts
    # Each change record ends in NUL, and a rename has two fields: counts are
    # bounded by the number of fields.
    fields = data.count(b"\0")
    assert result.staged <= fields
    assert result.unstaged <= fields
    assert result.untracked + result.conflicted + 2 * result.renamed <= fields
    for name in (result.branch, result.upstream):
        if name is not None:
            name.encode("utf-8")  # no surrogate: survives the manifest's strict UTF-8
    block = render_environment(EnvironmentFacts("/r", "sh", "linux", "2026-11-29", "UTC", result))
    assert len(block.splitlines()) == 8, block
    # Deterministic: the same bytes give the same status.
    assert attempt(parse_git_status, data) == result


def _verdict(data: bytes) -> str:
    """The contract of ``data``'s status checked (every invariant, or a documented refusal)."""
    return judge(data, attempt(parse_git_status, data), _check_accepted, _check_refused)


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
