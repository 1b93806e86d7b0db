"""Lint reads each SKILL.md once and parses its YAML once (docs/decisions.md, "Lint reads
once, parses once").

Discovery, the document checks, the name of each skill for the conflict check, discovery's
final re-read and the scan of the roots an agent loads together all work from the one read
and the one parse of each document. Counted by patching the operator's read and the YAML
event source; each count is watched exceeding its bound on a driver that reads or parses again
(negative controls).
"""

from __future__ import annotations

import collections
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a13n_harness.capabilities.verdicts import clear_verdict_memo
from a13n_harness.cli import _lint as lint_module
from a13n_harness.cli import _lint_documents as documents_module
from a13n_harness.cli._lint import format_findings, lint
from a13n_harness.cli._lint_documents import LintDocuments
from a13n_harness.cli._output import Progress
from a13n_harness.context import frontmatter as frontmatter_module
from a13n_harness.context.lint import (
    DOCUMENT_MAX_BYTES,
    DocumentParse,
    check_document,
    check_parsed,
    parse_document,
)
from a13n_harness.environment import local as local_module
from a13n_harness.testing.controls import control_settings, property_fails

SKILL_FILE = "SKILL.md"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def skill_text(name: str, body: str = "Body.\n", extra: str = "", where: str = "") -> str:
    """A SKILL.md whose frontmatter names ``where`` it is, so each file's text is its own."""
    return f"---\nname: {name}\ndescription: Counts reads of {name}{where}.\n{extra}---\n{body}"


def build(base: Path) -> int:
    """A workspace with two roots an agent loads together (so the override scan runs), a
    skill in both, a skill discovery skips (no description), a name that is not its folder's,
    a byte-identical copy, a skill past discovery's first read, a nested SKILL.md and a body
    that is not UTF-8. Returns how many SKILL.md files it holds."""
    claude = base / ".claude" / "skills"
    agents = base / ".agents" / "skills"
    write(claude / "alpha" / SKILL_FILE, skill_text("alpha", "See `scripts/x.py`.\n"))
    write(agents / "alpha" / SKILL_FILE, skill_text("alpha", "Another.\n", where=" (agents)"))
    write(claude / "beta" / SKILL_FILE, "---\nname: beta\n---\nNo description.\n")
    write(claude / "gamma" / SKILL_FILE, skill_text("not-gamma", extra="license: 1.0\n"))
    write(agents / "same" / SKILL_FILE, skill_text("same"))
    write(agents / "same-copy" / SKILL_FILE, skill_text("same"))
    write(agents / "large" / SKILL_FILE, skill_text("large", "A line of the body.\n" * 3_000))
    write(agents / "large" / "inner" / SKILL_FILE, skill_text("inner"))
    (agents / "latin" / SKILL_FILE).parent.mkdir(parents=True)
    (agents / "latin" / SKILL_FILE).write_bytes(skill_text("latin").encode() + b"caf\xe9\n")
    return 9


class Counts:
    """Reads of each SKILL.md through the operator, and YAML parses of each frontmatter."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads: collections.Counter[str] = collections.Counter()
        self.parses: collections.Counter[str] = collections.Counter()
        walking = local_module._Operations._read_walking
        opened = local_module._read_opened
        source = frontmatter_module._EventSource
        parse = yaml.parse

        def read_walking(operations: object, path: str, limit: int) -> bytes:
            self.reads[path] += 1
            return walking(operations, path, limit)  # type: ignore[arg-type]

        def read_opened(handle: tuple[int, int], limit: int, path: str) -> bytes:
            self.reads[path] += 1
            return opened(handle, limit, path)

        def event_source(text: str) -> object:
            self.parses[text] += 1
            return source(text)

        def yaml_parse(stream: str, Loader: Any = yaml.Loader) -> object:
            self.parses[stream] += 1
            return parse(stream, Loader)

        monkeypatch.setattr(local_module._Operations, "_read_walking", read_walking)
        monkeypatch.setattr(local_module, "_read_opened", read_opened)
        monkeypatch.setattr(frontmatter_module, "_EventSource", event_source)
        monkeypatch.setattr(yaml, "parse", yaml_parse)  # no longer called by lint at all


def check_once(base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lint the workspace of :func:`build` at ``base``: every SKILL.md read once, every
    frontmatter parsed once (the byte-identical copy's text twice: two files)."""
    files = build(base)
    clear_verdict_memo()  # a parse remembered by an earlier test would hide one
    counts = Counts(monkeypatch)
    result = lint([str(base)], [], Progress())
    assert result.skills == files, result
    read = {path: n for path, n in counts.reads.items() if path.endswith(SKILL_FILE)}
    assert len(read) == files, read
    assert set(read.values()) == {1}, read
    assert sum(counts.parses.values()) == files, counts.parses
    assert sorted(counts.parses.values()) == [1] * (files - 2) + [2], counts.parses


def test_lint_reads_each_skill_md_once_and_parses_its_yaml_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_once(tmp_path, monkeypatch)


def test_negative_control_a_driver_that_reads_again_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documents not kept between discovery and the checks: read twice, caught."""
    read = LintDocuments._read

    async def forgetful(self: LintDocuments, path: str) -> object:
        found = await read(self, path)
        self._documents.clear()
        return found

    monkeypatch.setattr(LintDocuments, "_read", forgetful)
    with pytest.raises(AssertionError, match=r"SKILL\.md"):
        check_once(tmp_path, monkeypatch)


def test_negative_control_checks_that_parse_again_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checks given no parse (they parse the bytes themselves): caught."""

    def parsing(
        data: bytes, parsed: object, folder: str | None, profile: str, counter: object
    ) -> object:
        return check_parsed(data, None, folder, profile, counter)  # type: ignore[arg-type]

    monkeypatch.setattr(lint_module, "check_parsed", parsing)
    with pytest.raises(AssertionError, match="Counts reads"):
        check_once(tmp_path, monkeypatch)


def test_negative_control_discovery_parsing_again_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discovery not handed the verdict (it parses each file itself): caught."""
    monkeypatch.setattr(documents_module, "remember_verdict", lambda *_: None)
    with pytest.raises(AssertionError, match="Counts reads"):
        check_once(tmp_path, monkeypatch)


def test_a_parse_is_used_only_for_the_bytes_it_holds() -> None:
    """The checks take a parse made already only for bytes equal to the parsed ones up to the
    end of the closing fence's line (all the parser reads); other bytes are parsed afresh, so
    the findings are always those of :func:`check_document`."""
    raw = b"---\nname: a\ndescription: d\n---\nThe body.\n"
    parsed = parse_document(raw)
    assert parsed.holds(raw)
    assert parsed.holds(raw.replace(b"The body.", b"Another."))
    for other in (
        raw.replace(b"name: a", b"name: b"),
        raw.replace(b"---\nThe", b"--- \nThe"),
        raw[:20],
    ):
        assert not parsed.holds(other), other
        assert check_parsed(other, parsed, "b") == check_document(other, "b")
    refused = parse_document(b"no fence\n")
    assert refused.span is None
    assert not refused.holds(b"no fence, and more\n")
    fenced = b"---\nname: b\ndescription: d\n---\n"
    assert check_parsed(fenced, refused, "b") == check_document(fenced, "b")


def test_the_linters_real_path_is_realpath(tmp_path: Path) -> None:
    """The driver's remembered real paths (one look at each name) answer what
    ``os.path.realpath`` answers: through links to folders, relative links, dangling and
    missing names, asked in any order."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / SKILL_FILE).write_text("x")
    os.symlink(tmp_path / "a", tmp_path / "link")
    os.symlink("b", tmp_path / "a" / "lb")
    os.symlink("../nowhere", tmp_path / "a" / "dangling")
    linter = lint_module._Linter(Progress())
    for path in (
        tmp_path / "link" / "lb" / SKILL_FILE,
        tmp_path / "a" / "b" / SKILL_FILE,
        tmp_path / "link" / "b" / SKILL_FILE,
        tmp_path / "a" / "dangling" / "x",
        tmp_path / "a" / "missing" / "y",
        tmp_path / "link",
        Path("/"),
    ):
        assert linter.real(str(path)) == os.path.realpath(path), path


# ------------------------------------------- the one read and parse change no finding

_GOOD = "---\nname: {name}\ndescription: Checks {name}.\n---\nSee `scripts/run.py`.\n"
_SHAPES = {
    "good": _GOOD,
    "other-name": "---\nname: other\ndescription: Named otherwise.\n---\nBody.\n",
    "no-description": "---\nname: {name}\n---\nBody.\n",
    "unterminated": "---\nname: {name}\ndescription: d\n<!-- a13n-skills: disable-file x -->\n",
    "directive": _GOOD + "<!-- a13n-skills: disable-next-line skill_reference_missing -->\n"
    "[x](missing.md)\n<!-- a13n-skills: bogus -->\n",
    "comment": _GOOD + "<!-- hidden -->\n",
    "long": _GOOD + "A line of the body.\n" * 2_500,
    "yaml": "---\nname: {name}\ndescription: [unclosed\n---\n",
    "no-fence": "name: {name}\n",
}
_ROOTS = (".claude/skills", ".agents/skills", "skills", "plugins/p/skills")
_entries = st.lists(
    st.tuples(
        st.sampled_from(_ROOTS),
        st.sampled_from(("a", "b", "c")),
        st.sampled_from(sorted(_SHAPES)),
        st.booleans(),  # the body not UTF-8
    ),
    min_size=1,
    max_size=7,
)


def _write_tree(base: Path, entries: list[tuple[str, str, str, bool]]) -> None:
    for root, folder, shape, latin in entries:
        path = base / root / folder / SKILL_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        data = _SHAPES[shape].format(name=folder).encode()
        path.write_bytes(data + (b"caf\xe9\n" if latin else b""))


class _Afresh(LintDocuments):
    """The driver as it was: every scan and the checks read the file again, discovery parses
    it itself (no verdict handed over)."""

    async def read_bytes(self, path: str, limit: int) -> bytes:
        return await self.files.read_bytes(path, limit)

    async def read_many(self, paths: Sequence[str], limit: int) -> Sequence[object]:  # type: ignore[override]
        return await self.files.read_many(paths, limit)

    async def document(self, path: str) -> tuple[bytes, DocumentParse]:
        data = await self.files.read_bytes(path, DOCUMENT_MAX_BYTES + 1)
        return data, parse_document(data)


def _lint_json(base: Path, afresh: bool) -> str:
    clear_verdict_memo()
    with pytest.MonkeyPatch.context() as patch:
        if afresh:
            patch.setattr(lint_module, "LintDocuments", _Afresh)
            patch.setattr(
                lint_module,
                "check_parsed",
                lambda data, _parsed, folder, profile, counter: check_document(
                    data, folder, profile, counter
                ),
            )
        result = lint([str(base)], [], Progress())
    return format_findings(result, "json", "0")


def check_unchanged(entries: list[tuple[str, str, str, bool]]) -> None:
    """Lint's findings on a tree are those of a driver that reads and parses again."""
    with tempfile.TemporaryDirectory() as base:
        _write_tree(Path(base), entries)
        assert _lint_json(Path(base), False) == _lint_json(Path(base), True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_entries)
def test_findings_are_those_of_a_driver_that_reads_and_parses_again(
    entries: list[tuple[str, str, str, bool]],
) -> None:
    check_unchanged(entries)


def test_negative_control_documents_cached_by_file_name_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cache keyed by the file's name, not its path, serves the first skill's bytes for
    every other: caught."""
    read = LintDocuments._read

    async def by_name(self: LintDocuments, path: str) -> object:
        found = self._documents.get(SKILL_FILE)
        if found is None:
            found = self._documents[SKILL_FILE] = await read(self, path)
        return found

    monkeypatch.setattr(LintDocuments, "_read", by_name)
    property_fails(
        settings(control_settings, suppress_health_check=[HealthCheck.function_scoped_fixture])(
            given(_entries)(check_unchanged)
        )
    )


def test_a_parse_holds_the_bytes_that_end_with_its_closing_fence_line() -> None:
    """Bytes that stop right after the closing fence's line (no body) are all the parser read:
    a parse of a longer document holds them, and another object of the same bytes too."""
    raw = b"---\nname: a\ndescription: d\n---\n"
    assert parse_document(raw + b"The body.\n").holds(raw)
    assert parse_document(raw).holds(bytes(bytearray(raw)))
    # Negative control: one byte short of the fence line's end is not held.
    assert not parse_document(raw + b"The body.\n").holds(raw[:-1])
