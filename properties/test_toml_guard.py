"""The pass that refuses TOML ``tomllib`` handles badly (``a13n_harness.cli._toml_guard``).

docs/decisions.md ("Lint's configuration is read like the checkout"): text the guard passes
is parsed by ``tomllib`` with nothing but ``TOMLDecodeError`` (no ``RecursionError``, no
``ValueError`` from the integer conversion limit) and in linear time (no key of more than
32 parts); the guard tokenizes strings and comments as ``tomllib`` does, so a valid
document whose strings hold dots, brackets and digits passes. The limits sit exactly
where they are stated.
"""

from __future__ import annotations

import contextlib
import json
import tomllib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from a13n_harness.cli import _toml_guard
from a13n_harness.cli._toml_guard import (
    DEPTH_MAX,
    DIGITS_MAX,
    KEY_PARTS_MAX,
    TomlLimit,
    check_toml,
)

# Pieces of TOML, hostile ones among them, for drawn texts good and bad.
_PIECES = [
    "a", "b", ".", " ", "=", "1", "7" * 60, "_", "[", "]", "[[", "]]", "{", "}", ",", "\n",
    '"', "'", '"""', "'''", "\\", '\\"', "#", "x.y.z", "1.5", "1979-05-27", "true", "-",
    "+", "e", "\t", "\r\n", "\\\n", '""', "''",
]  # fmt: skip


def _passes(text: str) -> bool:
    try:
        check_toml(text)
    except TomlLimit:
        return False
    return True


def _parses_or_decode_error(text: str) -> None:
    """``tomllib`` on ``text``: a document or ``TOMLDecodeError``, nothing else."""
    with contextlib.suppress(tomllib.TOMLDecodeError):
        tomllib.loads(text)


@given(st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
@example("a = " + "[" * 600 + "]" * 600)
@example("a = " + "{b=" * 400 + "1" + "}" * 400)
@example("a = " + "9" * 5000)
@example("a = [" + "9" * 5000 + "]")
@example('a = """x""""\n' + "b." * 40 + "c = 1\n")
def test_what_the_guard_passes_tomllib_parses_or_refuses_with_its_error(text: str) -> None:
    if _passes(text):
        _parses_or_decode_error(text)


def _key(parts: int) -> str:
    return ".".join(f"k{index}" for index in range(parts))


def _basic(value: str) -> str:
    return json.dumps(value)  # JSON's escapes are TOML basic-string escapes for these


def _multiline_basic(value: str) -> str:
    return '"""' + value.replace("\\", "\\\\").replace('"""', '""\\"') + '"""'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "").replace("\n", "") + "'"


def _multiline_literal(value: str) -> str:
    cleaned = value
    while "'''" in cleaned:
        cleaned = cleaned.replace("'''", "''")
    # Up to two quotes may end the content right before the closing delimiter.
    return "'''" + cleaned + "'''"


_HOSTILE = st.text(st.sampled_from("a.[]{}#\"'\\ 7\n"), max_size=80).map(
    lambda s: s + "." * (KEY_PARTS_MAX + 2) + "[" * (DEPTH_MAX + 2) + "7" * (DIGITS_MAX + 2)
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """A valid TOML document within the limits whose strings hold what the guard counts."""
    lines = []
    for index in range(draw(st.integers(1, 6))):
        value = draw(_HOSTILE)
        writer = draw(st.sampled_from([_basic, _multiline_basic, _literal, _multiline_literal]))
        if writer is _literal:
            value = value.replace("'", "")
        if writer is _basic:
            value = value.replace("\n", " ")
        depth = draw(st.integers(0, DEPTH_MAX - 1))
        text = "[" * depth + writer(value) + "]" * depth
        key = _key(draw(st.integers(1, KEY_PARTS_MAX - 1))) + f".v{index}"
        comment = draw(st.sampled_from(["", " # " + "a." * 40 + "[" * 40]))
        lines.append(f"{key} = {text}{comment}")
    return "\n".join(lines) + "\n"


@given(documents())
def test_a_valid_document_within_the_limits_passes_whatever_its_strings_hold(text: str) -> None:
    tomllib.loads(text)  # the drawn document is valid TOML
    check_toml(text)


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        (_key(KEY_PARTS_MAX) + " = 1\n", _key(KEY_PARTS_MAX + 1) + " = 1\n"),
        ("[" + _key(KEY_PARTS_MAX) + "]\n", "[" + _key(KEY_PARTS_MAX + 1) + "]\n"),
        (
            "a = " + "[" * DEPTH_MAX + "]" * DEPTH_MAX + "\n",
            "a = " + "[" * (DEPTH_MAX + 1) + "]" * (DEPTH_MAX + 1) + "\n",
        ),
        ("a = " + "1" * DIGITS_MAX + "\n", "a = " + "1" * (DIGITS_MAX + 1) + "\n"),
        ("a = " + "1_" * (DIGITS_MAX // 2 - 1) + "1\n", "a = " + "1_" * DIGITS_MAX + "1\n"),
    ],
)
def test_each_limit_is_exactly_where_it_is_stated(text: str, limit: str) -> None:
    check_toml(text)
    tomllib.loads(text)
    with pytest.raises(TomlLimit):
        check_toml(limit)


def test_negative_control_a_guard_that_reads_strings_as_text_fails_the_property() -> None:
    """The valid-document property can fail: a multi-line string read as text counts what
    it holds."""
    text = 'a = """' + "." * 40 + "[" * 40 + '"""\n'
    check_toml(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_toml_guard, "_string_end", lambda text, kind, start: start)
        with pytest.raises(TomlLimit):
            check_toml(text)


def test_negative_control_without_the_depth_limit_tomllib_recurses_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The parse property can fail: with no depth limit, deep arrays reach tomllib."""
    monkeypatch.setattr(_toml_guard, "DEPTH_MAX", 10**9)
    text = "a = " + "[" * 600 + "]" * 600
    assert _passes(text)
    with pytest.raises(RecursionError):
        _parses_or_decode_error(text)
