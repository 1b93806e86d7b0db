"""Any bytes given to lint's pure checks give findings with real positions, in linear time.

``check_document`` (``a13n_harness.context.lint``) takes the bytes of a
``SKILL.md`` as a pull request writes them and must never raise: every issue
names a rule of ``RULES`` that concerns a file (no tool-level rule), sits at a
1-based line and column inside the document, and the issues come in file
order. Every file reference is normalised: its ``path`` holds no empty, ``.``
or ``..`` segment, ``climb`` counts the folders it leaves, an absolute one
climbs nothing, and at most ``REFERENCES_MAX`` are kept. The three profiles
agree on everything but the frontmatter fields they define. Links and code
spans inside a fenced code block are never references: appending one changes
no reference.

Bug class: a reference scanner that trusts its input. A link pattern that
rescans the rest of the line from every ``[`` (32,000 of them took 72 s), a
code span search that rebuilds the line per span, backtracking on ``![x``,
``[a``, ``[\\]``, `` `a` `` and ``[a](<`` repeated over a 1 MiB line; positions
counted in bytes or off by the frontmatter; a fence or an HTML comment that
leaks its links; a ``..`` that survives normalisation. The large seeds (1 MiB
lines of each shape, ``corpus/fuzz_lint/generated.json``) end in well under a
second each; libFuzzer's timeout turns a hang into a crash.
"""

from __future__ import annotations

from _target import attempt, contract, instrumented, main

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.context.errors import DefinitionError
    from a13n_harness.context.lint import (
        PROFILES,
        REFERENCES_MAX,
        RULES,
        DocumentCheck,
        check_document,
    )

_FIELD_RULES = frozenset({"skill_field_unknown", "skill_field_not_portable", "skill_field_invalid"})
_FILLER = b"[in a fence](fenced.md) `scripts/fenced.py` ![x](fenced.png)\n[d]: fenced.md\n"


def _lines(data: bytes) -> int:
    return data.count(b"\n") + 1


def _check_result(data: bytes, result: DocumentCheck) -> None:
    assert isinstance(result, DocumentCheck), type(result)
    lines = _lines(data)
    for issue in result.issues:
        assert issue.rule in RULES, issue.rule
        assert not RULES[issue.rule].tool_level, issue.rule
        assert type(issue.line) is int, issue
        assert 1 <= issue.line <= lines, (issue, lines)
        assert type(issue.column) is int, issue
        assert issue.column >= 1, issue
        assert isinstance(issue.message, str), issue
        assert issue.message, issue
    order = [(issue.line, issue.column, issue.rule) for issue in result.issues]
    assert order == sorted(order), order
    assert len(result.references) <= REFERENCES_MAX
    for reference in result.references:
        assert 1 <= reference.line <= lines, (reference, lines)
        assert reference.column >= 1, reference
        assert reference.kind in ("link", "code"), reference
        assert reference.climb >= 0, reference
        if reference.absolute:
            assert reference.climb == 0, reference
            continue
        if reference.path:
            segments = reference.path.split("/")
            assert all(part not in ("", ".", "..") for part in segments), reference


def _checked(data: bytes, profile: str) -> DocumentCheck:
    result = attempt(lambda document: check_document(document, "a", profile), data)
    assert not isinstance(result, DefinitionError), result  # lint refuses nothing: it reports
    _check_result(data, result)
    return result


def _verdict(data: bytes) -> str:
    results = {profile: _checked(data, profile) for profile in PROFILES}
    base = results[PROFILES[0]]

    def others(check: DocumentCheck) -> list[tuple[str, int, int]]:
        return [(i.rule, i.line, i.column) for i in check.issues if i.rule not in _FIELD_RULES]

    for profile, result in results.items():
        assert others(result) == others(base), profile
        assert result.references == base.references, profile
    # A fenced code block holds no reference: appended to a body without fences or
    # comments (whose state could swallow it), it adds none.
    if (
        b"```" not in data
        and b"~~~" not in data
        and b"<!--" not in data
        and data.endswith(b"\n")
        and len(base.references) < REFERENCES_MAX
    ):
        fenced = attempt(lambda d: check_document(d, "a"), data + b"```\n" + _FILLER + b"```\n")
        assert not isinstance(fenced, DefinitionError), fenced
        assert fenced.references == base.references, fenced.references
    rules = sorted({issue.rule for issue in base.issues})
    return "+".join(rules) if rules else "clean"


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
