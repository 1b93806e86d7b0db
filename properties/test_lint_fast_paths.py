"""Lint's fast paths give what the plain reading gives.

Each shortcut lint takes for speed is held equal to the plain computation it replaces, on
generated text that reaches its edges, with a negative control showing the comparison
catches a shortcut that is one step wrong: positions counted without the line table, the
content rules searching only a part's non-ASCII rest, the wrapped-base64 guard, the
"writing skills" search run line by line, the vocabulary parse of a published file, and
the name's line read from the file's first 64 lines.
"""

from __future__ import annotations

import os
import re
from itertools import accumulate, product
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.cli._lint import _name_of, _RealPaths
from a13n_harness.context.lint import (
    BODY_MAX_TOKENS,
    _content,
    _references,
    check_document,
    parse_document,
)
from a13n_harness.context.lint._text import _Text

HEAD = "---\nname: a\ndescription: d\n---\n"

# ----------------------------------------------------------------- positions


def _plain_where(text: str, index: int) -> tuple[int, int]:
    starts = list(accumulate((len(line) + 1 for line in text.split("\n")), initial=0))[:-1]
    line = max(i for i, start in enumerate(starts) if start <= index or i == 0)
    return line + 1, index - starts[line] + 1


def _positions_agree(make: type[_Text], text: str, indices: list[int]) -> bool:
    positions = make(text)
    return all(positions.where(i) == _plain_where(text, i) for i in indices)


_LINES = st.text(st.sampled_from("ab\n\r é"), max_size=40)


@given(_LINES, st.lists(st.integers(-2, 45), max_size=30))
def test_positions_are_the_line_tables_however_many_are_asked(
    text: str, indices: list[int]
) -> None:
    """Counted up to the position while that is cheap, from the table after: the same
    answers, including past the text's end and before its start."""
    assert _positions_agree(_Text, text, indices)
    positions = _Text(text)
    assert positions.line_count == len(text.split("\n")) - text.endswith("\n")
    for line in range(-1, text.count("\n") + 3):
        for column in (-1, 1, 3, 50):
            starts = list(accumulate((len(x) + 1 for x in text.split("\n")), initial=0))[:-1]
            start = starts[min(max(line, 1), len(starts)) - 1]
            assert positions.index(line, column) == min(start + max(column, 1) - 1, len(text))


def test_positions_of_every_short_text_and_index() -> None:
    """Exhaustively: every text of up to seven characters of a letter, a line feed and a
    carriage return, each index from one before it to two past it asked first, then every
    index in order (the counting budget runs out on the way), and in reverse."""
    for size in range(8):
        for letters in product("a\n\r", repeat=size):
            text = "".join(letters)
            for index in range(-1, size + 3):  # each asked first, counted while it can be
                assert _positions_agree(_Text, text, [index, *range(size + 1)])
            assert _positions_agree(_Text, text, list(range(size + 3))[::-1])


def test_counting_stops_once_it_has_passed_over_the_text() -> None:
    """The work stays linear: positions are counted up to while their sum stays within the
    text's length, then the table is built once and answers the rest."""
    positions = _Text("ab\n" * 10)
    positions.where(25)
    counted = positions._starts is None
    positions.where(6)
    assert counted
    assert positions._starts is not None
    assert positions.where(29) == (10, 3)


def test_negative_control_a_count_that_misses_the_line_feed_before_a_position() -> None:
    class Shifted(_Text):
        def where(self, index: int) -> tuple[int, int]:
            line_start = self.text.rfind("\n", 0, max(index - 1, 0)) + 1
            return self.text.count("\n", 0, line_start) + 1, index - line_start + 1

    assert _positions_agree(_Text, "ab\ncd\n\nx", list(range(10)))
    assert not _positions_agree(Shifted, "ab\ncd\n\nx", list(range(10)))


# ----------------------------------------------------------- content rules


def test_no_content_rule_finds_a_character_of_the_ascii_text() -> None:
    """What the rules' fast path leaves out of a part (tab, line ends, printable ASCII)
    holds nothing a rule finds, and the emoji joiners are all of the invisible rule's."""
    shown = _content._ASCII_SHOWN.decode("ascii")
    for _, pattern, _ in _content._CONTENT_RULES:
        assert pattern.search(shown) is None
    assert all(_content._INVISIBLE.match(char) for char in _content._JOINER_CHARS)
    assert set(_content._EMOJI_JOINERS.findall("".join(map(chr, range(0x10000))))) == set(
        _content._JOINER_CHARS
    )
    # Negative control: a rule that also found tabs would be one the rest cannot see.
    assert re.compile("[\t\u200b]").search(shown) is not None


_HIDDEN_MIX = st.text(
    st.sampled_from(
        [
            *"ab \n\t#1*",
            *("\u200d", "\ufe0f", "\ufe0e", "\u20e3", "\u200b", "\u202e", "\u2066", "\u00ad"),
            *("\U000e0041", "\U0001f469", "\U0001f4bb", "\U0001f3fd", "\u2764", "\u3164"),
        ]
    ),
    max_size=40,
)


def _by_rest(text: str) -> list[tuple[int, int] | None]:
    rest = _content._rest(text)
    return [
        _content._hidden_of(pattern, text, 0, len(text), set(pattern.findall(rest)))
        for _, pattern, _ in _content._CONTENT_RULES
    ]


def _plain_hidden(text: str) -> list[tuple[int, int] | None]:
    return [_content._hidden(p, text, 0, len(text)) for _, p, _ in _content._CONTENT_RULES]


@given(_HIDDEN_MIX)
def test_hidden_characters_found_one_by_one_are_the_expressions(text: str) -> None:
    assert _by_rest(text) == _plain_hidden(text)


def test_many_distinct_hidden_characters_take_the_expression(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past a few distinct characters the one pass of the expression is used: a body of
    every tag character is passed over once, not twice per character."""
    text = "".join(map(chr, range(0xE0000, 0xE0080))) * 3
    expected = _plain_hidden(text)
    passes: list[int] = []
    plain = _content._hidden

    def counted(pattern, text, start, end):  # type: ignore[no-untyped-def]
        passes.append(len(text))
        return plain(pattern, text, start, end)

    monkeypatch.setattr(_content, "_hidden", counted)
    assert _by_rest(text) == expected
    assert passes == [len(text)]  # the tag rule's; the others find nothing


def test_negative_control_joiners_counted_as_hidden_are_caught() -> None:
    text = "x\U0001f469\u200d\U0001f4bb\u200by"

    def unexempt(
        pattern: re.Pattern[str], text: str, start: int, end: int, chars: set[str]
    ) -> tuple[int, int] | None:
        if pattern is _content._INVISIBLE and chars:
            return text.find(min(chars), start, end), sum(text.count(c) for c in chars)
        return _content._hidden_of(pattern, text, start, end, chars)

    rest = _content._rest(text)
    broken = [
        unexempt(p, text, 0, len(text), set(p.findall(rest))) for _, p, _ in _content._CONTENT_RULES
    ]
    assert _by_rest(text) == _plain_hidden(text)
    assert broken != _plain_hidden(text)


def _base64_findings(body: str) -> list[tuple[str, int, int]]:
    check = check_document((HEAD + body).encode("utf-8"), "a")
    return [(i.rule, i.line, i.column) for i in check.issues if i.rule == "skill_base64_run"]


_B64_LINE = st.builds(
    lambda width, end, indent: indent + ("aB3+" * 30)[:width] + end,
    st.sampled_from([20, 39, 40, 41, 64, 76]),
    st.sampled_from(["\n", "\r\n", "==\n", "\r\n\r\n", " x\n", "\n\n"]),
    st.sampled_from(["", "  ", "\t"]),
)


@given(st.lists(_B64_LINE, max_size=6))
def test_the_wrapped_block_guard_never_hides_a_block(lines: list[str]) -> None:
    body = "".join(lines)
    guarded = _base64_findings(body)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(_content, "_WRAP_ENDS", (b"",))  # every part reaches the expression
        assert _base64_findings(body) == guarded


def test_a_wrapped_block_with_windows_line_ends_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    payload = ("aB3+" * 80)[:256]
    body = "Data:\r\n\r\n" + "\r\n".join(payload[i : i + 64] for i in range(0, 256, 64)) + "\r\n"
    assert _base64_findings(body) == [("skill_base64_run", 7, 1)]
    # Negative control: a guard that knew only line feeds would hide it.
    monkeypatch.setattr(_content, "_WRAP_ENDS", (_content._WRAP_RUN + b"\n",))
    assert _base64_findings(body) == []


# ----------------------------------------------------- writing skills, by line


def test_the_skill_word_is_every_spelling_ignorecase_reads_as_skill() -> None:
    # Every code point once, in one string: a one-letter pattern's matches over it are the
    # code points it fully matches alone (one scan in C, not a million calls).
    every = "".join(chr(point) for point in range(0x110000) if not 0xD800 <= point <= 0xDFFF)
    for position, letter in enumerate("skill"):
        spelled = set(re.findall(letter, every, re.IGNORECASE))
        assert letter in spelled
        assert len(spelled) >= 2  # the case pair at least
        word = ["s", "k", "i", "l", "l"]
        taken = set()
        for char in spelled | {"x", "\u212b"}:
            word[position] = char
            if _references._SKILL_WORD.fullmatch("".join(word)):
                taken.add(char)
        assert taken == spelled, letter


_PHRASES = st.lists(
    st.sampled_from(
        [
            "writing a skill", "creating your skills", "authoring skills", "a new skill",
            "your skill", "your skill level", "skill authoring", "writing a new good skill",
            "writing a\nskill", "writing a \u017fkill", "WRITING A SKILL", "skills", "xskill",
            "writing a skillful", " ", "\n", "word", "your\tskill", "a new\n", "skill\n",
        ]
    ),
    max_size=8,
)  # fmt: skip


@given(_PHRASES, st.integers(0, 5))
def test_writing_skills_searched_by_line_is_the_expressions_search(
    parts: list[str], start: int
) -> None:
    text = "".join(parts)
    start = min(start, len(text))
    expected = _references._WRITING_SKILLS.search(text, start) is not None
    assert _references._speaks_of_writing_skills(text, start) is expected


def test_negative_control_a_word_class_without_the_long_s_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "When writing a \u017fkill, keep it short."
    assert _references._speaks_of_writing_skills(text, 0)
    monkeypatch.setattr(_references, "_SKILL_WORD", re.compile("[sS][kK][iI][lL][lL]"))
    assert not _references._speaks_of_writing_skills(text, 0)
    assert _references._WRITING_SKILLS.search(text) is not None


# ------------------------------------------------------------ the name's line


@pytest.mark.parametrize(("at", "expected"), [(2, 2), (63, 63), (64, 64), (65, 1), (200, 1)])
def test_the_name_line_is_read_from_the_first_64_lines(at: int, expected: int) -> None:
    filler = "".join(f"x{i}: y\n" for i in range(at - 2))
    body = "body\n" * 100
    data = f"---\n{filler}name: a\ndescription: d\n---\n{body}".encode()
    named = _name_of(data, parse_document(data))
    assert named == ("a", expected)
    assert check_document(data, "a").issues == check_document(data, "a").issues


# ------------------------------------------------------------ vocabulary parse


def _line_by_line(contents: bytes) -> dict[bytes, int]:
    import base64  # noqa: PLC0415

    ranks = {}
    for line in contents.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
    return ranks


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_a_published_vocabulary_parses_as_read_line_by_line(name: str) -> None:
    tokenizers = pytest.importorskip("a13n_harness.tokenizers")
    pytest.importorskip("tiktoken", reason="the tokens extra")
    from a13n_harness.context.errors import DefinitionError  # noqa: PLC0415

    try:
        path = tokenizers._data_path(name)
    except DefinitionError:
        pytest.skip(f"{name}'s package is not installed")
    contents = tokenizers._vocabulary_bytes(tokenizers._VOCABULARIES[name], path)
    assert tokenizers._RANKS_FILE.fullmatch(contents) is not None  # the fast path is taken
    assert tokenizers._parse_ranks(contents, path) == _line_by_line(contents)


@pytest.mark.parametrize(
    ("contents", "line"),
    [
        (b"YQ== 0\nYg== 1 2\n", 2),  # three fields
        (b"YQ== 0\nYg==\n", 2),  # one
        (b"YQ== 0\nYg= 1\n", 2),  # badly padded: the shape passes, the decoding does not
        (b"YQ== 0\n\tYg== x\n", 2),  # not a rank
    ],
)
def test_a_vocabulary_line_that_is_not_a_token_and_a_rank_is_named(
    contents: bytes, line: int
) -> None:
    from a13n_harness import tokenizers  # noqa: PLC0415
    from a13n_harness.context.errors import DefinitionError  # noqa: PLC0415

    with pytest.raises(DefinitionError, match=f"line {line} is not a token and a rank"):
        tokenizers._parse_ranks(contents, "v.tiktoken")


def test_well_shaped_lines_in_another_layout_parse_as_read_line_by_line() -> None:
    from a13n_harness import tokenizers  # noqa: PLC0415

    contents = b"YQ== 0\r\n\r\nYg== 1\nYw==  2\n  ZA== 3"
    assert tokenizers._RANKS_FILE.fullmatch(contents) is None  # read line by line
    assert tokenizers._parse_ranks(contents, "v") == _line_by_line(contents)


def test_negative_control_fields_paired_across_lines_are_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the shape check, three fields on a line and one on the next would pair up."""
    from a13n_harness import tokenizers  # noqa: PLC0415
    from a13n_harness.context.errors import DefinitionError  # noqa: PLC0415

    contents = b"YQ== 0 Yg==\n1\n"
    with pytest.raises(DefinitionError):
        tokenizers._parse_ranks(contents, "v")
    monkeypatch.setattr(tokenizers, "_RANKS_FILE", re.compile(rb"(?s).*"))
    assert tokenizers._parse_ranks(contents, "v") == {b"a": 0, b"b": 1}


# ------------------------------------------------------- real paths, remembered


def _tree_of_links(base: Path) -> list[str]:
    """Folders, links to folders (relative, absolute, up, dangling, a loop) and the paths
    lint may show below them, relative and absolute, with and without ``..``."""
    (base / "repo" / "skills" / "a").mkdir(parents=True)
    (base / "repo" / "elsewhere" / "b").mkdir(parents=True)
    os.symlink("../elsewhere", base / "repo" / "skills" / "linked")
    os.symlink(base / "repo" / "elsewhere" / "b", base / "repo" / "skills" / "absolute")
    os.symlink("missing", base / "repo" / "skills" / "dangling")
    os.symlink("loop", base / "repo" / "skills" / "loop")
    names = ["a", "linked", "linked/b", "absolute", "dangling", "loop", "nowhere", "linked/.."]
    paths = [f"repo/skills/{name}" for name in names]
    paths += ["repo/skills/linked/../a", "repo", ".", "repo/./skills/a", "repo//skills"]
    return paths + [str(base / path) for path in paths] + ["/", "/tmp"]


def test_remembered_real_paths_are_realpaths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _tree_of_links(tmp_path)
    monkeypatch.chdir(tmp_path)
    reals = _RealPaths()
    for path in paths + paths[::-1]:  # asked again: from what was remembered
        assert reals.real(path) == os.path.realpath(path), path


def test_negative_control_a_memo_that_never_looks_for_links_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _tree_of_links(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os.path, "islink", lambda path: False)
    reals = _RealPaths()
    assert any(reals.real(path) != os.path.realpath(path) for path in paths)


# ------------------------------------------------- the operator's root and stat


def _roots_through_links(base: Path) -> list[Path]:
    (base / "real" / "deep").mkdir(parents=True)
    os.symlink("real", base / "relative")
    os.symlink(base / "real" / "deep", base / "absolute")
    os.symlink("relative/deep", base / "chain")
    names = ["real", "real/deep", "relative", "absolute", "chain", "relative/deep"]
    return [base / name for name in names]


def _pinned(path: Path) -> str:
    from a13n_harness.environment._confinement import pin_root  # noqa: PLC0415

    fd, real = pin_root(str(path))
    os.close(fd)
    return real


def test_a_pinned_root_is_its_realpath_with_and_without_proc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from a13n_harness.environment import _confinement  # noqa: PLC0415

    roots = _roots_through_links(tmp_path)
    assert [_pinned(root) for root in roots] == [os.path.realpath(root) for root in roots]

    def no_proc() -> int:
        raise OSError("no /proc here")

    monkeypatch.setattr(_confinement, "_proc_fd", no_proc)
    assert [_pinned(root) for root in roots] == [os.path.realpath(root) for root in roots]


def test_negative_control_a_held_path_taken_as_given_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inode check alone accepts a path through a link: the kernel's path is what makes
    it the real one, which the comparison with realpath checks."""
    from a13n_harness.environment import _confinement  # noqa: PLC0415

    roots = _roots_through_links(tmp_path)
    given: list[str] = []
    monkeypatch.setattr(_confinement, "_held_path", lambda fd, opened: given[-1])
    pinned = []
    for root in roots:
        given.append(str(root))
        pinned.append(_pinned(root))
    assert pinned != [os.path.realpath(root) for root in roots]


def test_stat_says_what_an_lstat_says_of_the_path(tmp_path: Path) -> None:
    """Kind and size from the walk's own lstat of the last segment, or from a second look
    when the walk followed a link: the same as ``os.stat`` of the file it names."""
    from a13n_harness.environment.local import (  # noqa: PLC0415
        BlockingLocalFileOperator,
        run_blocking,
    )

    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "file.md").write_bytes(b"x" * 1234)
    (tmp_path / "empty").write_bytes(b"")
    os.symlink("folder/file.md", tmp_path / "link")
    os.symlink("folder", tmp_path / "folder-link")
    kinds = {"/folder": "directory", "/folder/file.md": "file", "/empty": "file"}
    kinds |= {"/link": "file", "/folder-link": "directory", "/folder-link/file.md": "file"}
    with BlockingLocalFileOperator(tmp_path) as files:
        for path, kind in kinds.items():
            found = run_blocking(files.stat(path))
            assert found.kind == kind, path
            if kind == "file":
                assert found.size == os.stat(tmp_path / path.lstrip("/")).st_size, path


# ------------------------------------------- the body's size, a line counted once


class _Characters:
    """Counts the characters other than spaces: deterministic, and unequal for lines of
    one length, so a count reused for the wrong line shows."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def count(self, text: str) -> int:
        self.asked.append(text)
        return len(text.replace(" ", ""))


def _plain_size_line(body: str, first_line: int) -> int | None:
    """The line ``skill_body_too_long`` names, every line counted afresh."""
    counter = _Characters()
    if counter.count(body) <= BODY_MAX_TOKENS:
        return None
    line, running = first_line, 0
    for piece in body.splitlines(keepends=True):
        running += counter.count(piece)
        if running > BODY_MAX_TOKENS:
            break
        line += 1
    return min(line, first_line + len(body.splitlines()) - 1)


def _size_line(body: str) -> int | None:
    check = check_document((HEAD + body).encode(), "a", counter=_Characters())
    found = [issue.line for issue in check.issues if issue.rule == "skill_body_too_long"]
    return found[0] if found else None


_SIZED_LINES = ["\n", "```\n", "x" * 700 + "\n", "y" * 699 + " \n", " " * 900 + "z\n"]
_SIZED_LINES += ["w" * 901 + "\n"]


@given(st.lists(st.sampled_from(_SIZED_LINES), max_size=40))
def test_a_line_met_again_is_counted_once_and_the_line_is_the_same(lines: list[str]) -> None:
    body = "".join(lines)
    assert _size_line(body) == _plain_size_line(body, 5)


def test_negative_control_counts_reused_by_length_are_caught() -> None:
    body = "".join([" " * 900 + "z\n", "w" * 901 + "\n"] * 8)
    reused: dict[int, int] = {}
    line, running = 5, 0
    for piece in body.splitlines(keepends=True):
        running += reused.setdefault(len(piece), len(piece.replace(" ", "")))
        if running > BODY_MAX_TOKENS:
            break
        line += 1
    assert _size_line(body) == _plain_size_line(body, 5) != line


def test_a_tail_below_the_top_is_relpaths_answer() -> None:
    from a13n_harness.cli._lint import _relative  # noqa: PLC0415

    tops = ["/", "/work", "/work/repo", "/work/repo/", "/work/re"]
    paths = ["/", "/work", "/work/repo", "/work/repo/skills/a", "/work/repository/b", "/other"]
    for top in tops:
        for path in paths:
            assert _relative(path, top) == os.path.relpath(path, top), (path, top)
    # Negative control: a prefix test without the separator takes a sibling for a child.
    assert "/work/repository/b".startswith("/work/repo")
    assert _relative("/work/repository/b", "/work/repo") == "../repository/b"


def test_the_first_characters_of_a_code_item_are_all_it_takes() -> None:
    taken = {
        chr(point)
        for point in range(0x110000)
        if _references._CODE_ITEM.match(chr(point) + "1.  x")
        or _references._CODE_ITEM.match(chr(point) + "  x")
    }
    assert taken <= _references._MAY_START_AN_ITEM
    # Negative control: the item markers are what the set must hold.
    assert {"-", "*", "+", "1", " ", "\t"} <= taken
