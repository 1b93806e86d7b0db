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

Run (new inputs go to the first, scratch, folder; ``corpus/`` is only read, and
refused as the first folder; crashes land in ``build/fuzz-artifacts/fuzz_git_status/``)::

    python fuzz/fuzz_git_status.py build/fuzz-corpus/fuzz_git_status \\
        corpus/fuzz_git_status -atheris_runs=N
"""

from __future__ import annotations

import contextlib

if __name__ == "__main__":
    import atheris

    _INSTRUMENTATION: contextlib.AbstractContextManager[object] = atheris.instrument_imports(
        include=["a13n_harness"]
    )
else:
    _INSTRUMENTATION = contextlib.nullcontext()

with _INSTRUMENTATION:
    from a13n_harness.context.errors import DefinitionError
    from a13n_harness.context.facts import (
        MAX_GIT_COUNT,
        EnvironmentFacts,
        GitStatus,
        parse_git_status,
        render_environment,
    )

_CODE = "git_status_invalid"


def _parse(data: bytes) -> GitStatus | DefinitionError:
    try:
        return parse_git_status(data)
    except DefinitionError as error:
        return error


def check(data: bytes) -> None:
    """Assert the contract for ``data``; raise on any breach."""
    result = _parse(data)
    if isinstance(result, DefinitionError):
        assert result.code == _CODE, result.code
        assert result.reason in ("truncated", "record", "header", "missing_head"), result.reason
        return
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
    assert _parse(data) == result


def outcome(data: bytes) -> str:
    """``accepted`` or ``<code>:<reason>``, as in ``corpus/fuzz_git_status/expected.json``."""
    result = _parse(data)
    if isinstance(result, DefinitionError):
        return f"{result.code}:{result.reason}"
    return "accepted"


def _test_one_input(data: bytes) -> None:
    check(data)


if __name__ == "__main__":
    from runner import fuzz  # fuzz/runner.py: artifacts kept, dictionary, corpus/ left alone

    fuzz(__file__, _test_one_input)
