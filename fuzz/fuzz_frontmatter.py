"""Any bytes given to ``parse_skill_document`` give a frontmatter or ``skill_frontmatter_invalid``.

When the document is accepted every invariant of docs/contract.md §2 holds: the name
is a valid ASCII skill name, the description is non-empty, whitespace-collapsed
and within ``max_description_chars`` (cut with ``…`` exactly when it was
longer), PyYAML's own loader agrees on both values, the body after the closing
fence is never examined, and CRLF line ends read like LF. When it is refused
the error is a ``FrontmatterError`` with code ``skill_frontmatter_invalid``, a
documented ``reason`` and a 1-based position. Nothing else ever escapes.

Bug class: a YAML front end that trusts its input. Alias and anchor bombs,
flow or block nesting 10,000+ deep (``RecursionError`` in a composer),
quadratic duplicate-key checks, positions found by counting from the start
for every value (many top-level keys, a long one-line flow mapping),
implicit typing (``name: no`` becoming ``False``), explicit tags
constructing objects, fences that are not quite fences (``---`` inside a
value, a BOM, CRLF, a missing or doubled fence), invalid UTF-8 and sizes
past the limit must all end in the documented error or a correct value,
never in a ``RecursionError``, ``UnicodeError``, ``KeyError`` or a wrong
name.
"""

from __future__ import annotations

import yaml

from _target import attempt, contract, instrumented, judge, main

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.context.errors import FRONTMATTER_REASONS, DefinitionError, FrontmatterError
    from a13n_harness.context.frontmatter import (
        FrontmatterLimits,
        SkillFrontmatter,
        is_valid_name,
        parse_skill_document,
    )

_CODE = "skill_frontmatter_invalid"
_LIMITS = FrontmatterLimits()
_BOM = b"\xef\xbb\xbf"


def _is_fence(line: bytes) -> bool:
    """``---``, then spaces or tabs, then LF, CRLF or the end of the data."""
    if line.endswith(b"\n"):
        line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
    return line.rstrip(b" \t") == b"---"


def _frontmatter_of(data: bytes) -> str:
    """The frontmatter of an accepted document, found independently of the parser (by lines)."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    lines = data.split(b"\n")
    lines = [line + b"\n" for line in lines[:-1]] + [lines[-1]]
    assert _is_fence(lines[0]), "accepted without an opening fence"
    body: list[bytes] = []
    for line in lines[1:]:
        if _is_fence(line):
            return b"".join(body).decode("utf-8")
        body.append(line)
    raise AssertionError("accepted without a closing fence")


def _normalized(text: str) -> str:
    words = " ".join(text.split())
    if len(words) > _LIMITS.max_description_chars:
        return words[: _LIMITS.max_description_chars - 1] + "…"
    return words


def _check_accepted(data: bytes, result: SkillFrontmatter) -> None:
    assert type(result) is SkillFrontmatter, type(result)
    assert is_valid_name(result.name), result.name
    assert result.name.isascii()
    description = result.description
    assert description, "empty description accepted"
    assert description == description.strip()
    assert "  " not in description
    assert not any(char.isspace() and char != " " for char in description), description
    assert len(description) <= _LIMITS.max_description_chars
    if result.description_truncated:
        assert len(description) == _LIMITS.max_description_chars
        assert description.endswith("…")
    # Differential against PyYAML's own (recursive, unguarded) loader: safe here
    # because the guards already bounded depth and size. CBaseLoader builds only str, list
    # and dict (no tags resolved, no object constructed): S506's unsafe loaders are others.
    loaded = yaml.load(_frontmatter_of(data), Loader=yaml.CBaseLoader)  # noqa: S506
    assert isinstance(loaded, dict), type(loaded)
    assert loaded.get("name") == result.name, (loaded.get("name"), result.name)
    assert _normalized(loaded["description"]) == description
    # Only the fences and the frontmatter are read: a hostile body changes nothing.
    if data.endswith(b"\n"):
        assert (
            attempt(parse_skill_document, data + b"\xff\xfe body <not yaml> [[[\n---\n") == result
        )
    # LF and CRLF line ends read alike (when the longer form still fits the limit).
    if b"\r" not in data and 2 * len(data) < _LIMITS.max_bytes:
        assert attempt(parse_skill_document, data.replace(b"\n", b"\r\n")) == result


def _check_refused(data: bytes, error: DefinitionError) -> None:
    assert isinstance(error, FrontmatterError), type(error)
    assert error.code == _CODE, error.code
    assert error.reason in FRONTMATTER_REASONS, error.reason
    for place in (error.line, error.column):
        assert place is None or (type(place) is int and place >= 1), (error.line, error.column)
    if error.line is not None:
        breaks = data.count(b"\n") + data.count(b"\r")
        assert error.line <= breaks + 2, (error.line, breaks)
    str(error)  # the message renders


def _verdict(data: bytes) -> str:
    return judge(data, attempt(parse_skill_document, data), _check_accepted, _check_refused)


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
