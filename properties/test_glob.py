"""The glob matcher of lint's per-path ignores (``a13n_harness.cli._glob``).

docs/rules.md ("Configuration"): a per-path ignore is a glob in the language of
``fnmatch.fnmatchcase`` (``*`` crossing ``/``, ``?``, ``[...]`` with ``!`` and ranges, an
unclosed ``[`` a character). The matcher is held to ``fnmatchcase`` itself on drawn patterns
and paths (a differential test against the standard library), and to linear compilation;
:class:`GlobSet` gives every path the union of what its patterns give, as matching each
pattern in turn would.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from a13n_harness.cli import _glob
from a13n_harness.cli._glob import GlobSet, compile_glob

# Characters that mean something to a glob, a few that do not, and a range's ends.
_PATTERN_CHARACTERS = "*?[]!-^\\/abz."
_TEXT_CHARACTERS = "[]!-^\\/abz.*?Z"
patterns = st.text(st.sampled_from(_PATTERN_CHARACTERS), max_size=10)
texts = st.text(st.sampled_from(_TEXT_CHARACTERS), max_size=8)


def _reversed_range(pattern: str) -> bool:
    """Whether ``pattern`` spells ``x-y`` with ``x`` after ``y`` anywhere (perhaps a class's
    reversed range: ``fnmatch`` drops it by rewriting the set, and what is left may start
    with ``!`` and negate the set; here a reversed range is simply no member)."""
    return any(
        0 < index < len(pattern) - 1 and pattern[index - 1] > pattern[index + 1]
        for index, char in enumerate(pattern)
        if char == "-"
    )


def _fnmatch(text: str, pattern: str) -> bool | None:
    """``fnmatchcase``'s answer, ``None`` for the few patterns it crashes on and those with
    a reversed range (:func:`_reversed_range`)."""
    if _reversed_range(pattern):
        return None
    try:
        return fnmatch.fnmatchcase(text, pattern)
    except (IndexError, ValueError):  # e.g. a class its translation turns into a bad set
        return None


def _agrees(matches: Callable[[str, str], bool], pattern: str, text: str) -> None:
    expected = _fnmatch(text, pattern)
    if expected is not None:
        assert matches(text, pattern) == expected, (pattern, text)


def _ours(text: str, pattern: str) -> bool:
    return compile_glob(pattern).matches(text)


def test_a_reversed_range_is_no_member() -> None:
    """The one place the matcher departs from ``fnmatch``'s translation on purpose."""
    assert not compile_glob("[z-a]").matches("z")
    assert not compile_glob("[z-a]").matches("a")
    assert compile_glob("[!z-a]").matches("q")
    assert not compile_glob("[b-!![]^").matches("-^")  # fnmatch: a set negated by accident
    assert compile_glob("[b-!![]^").matches("[^")


@given(patterns, texts)
@example("[!]]", "]")
@example("[]-a]", "^")
@example("[a-z]", "q")
@example("[!a-z]", "Q")
@example("[a-c-e]", "-")
@example("[a-cd-f]", "e")
@example("[--a]", "0")
@example("[", "[")
@example("[!", "[!")
@example("*a*?[b]*", "xaybz")
@example("a*", "a/b/c")
def test_the_matcher_agrees_with_fnmatchcase(pattern: str, text: str) -> None:
    """Every pattern and path: the same answer as ``fnmatch.fnmatchcase``."""
    _agrees(_ours, pattern, text)
    # The path itself, and the pattern's own spelling, as paths.
    _agrees(_ours, pattern, pattern)


@given(st.lists(st.tuples(patterns, st.frozensets(st.sampled_from("xyz"))), max_size=6), texts)
@example([("a*", frozenset("x")), ("a", frozenset("y")), ("*b", frozenset("z"))], "ab")
@example([("ab", frozenset("y")), ("a?", frozenset("x"))], "ab")
def test_a_glob_set_gives_the_union_of_the_patterns_a_path_matches(
    entries: list[tuple[str, frozenset[str]]], text: str
) -> None:
    expected: set[str] = set()
    for pattern, values in entries:
        if compile_glob(pattern).matches(text):
            expected |= values
    assert GlobSet(entries).values_at(text) == expected


def test_negative_control_a_matcher_that_ignores_negation_fails_the_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The differential property can fail: a class whose ``!`` is dropped disagrees."""
    original = _glob._class
    monkeypatch.setattr(_glob, "_class", lambda body, negated: original(body, False))
    with pytest.raises(AssertionError):
        _agrees(_ours, "[!a]", "b")


def test_negative_control_a_set_that_drops_suffix_candidates_fails() -> None:
    """The union property can fail: an index looked up by prefix only misses ``*b``."""
    entries = [("*b", frozenset("z"))]
    broken = GlobSet(entries)
    broken._suffix_lengths = {prefix: [] for prefix in broken._suffix_lengths}
    assert broken.values_at("ab") != GlobSet(entries).values_at("ab")


@pytest.mark.parametrize("unit", ["[", "[!", "[a", "[]", "*[", "[*", "a-[", "[!]"])
def test_compiling_reads_each_character_a_bounded_number_of_times(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted work: the searches for a class's ``]`` read at most the pattern's length in
    all (fnmatch searched from every ``[`` to the end: quadratic)."""
    read = [0]

    class Counted(str):
        __slots__ = ()

        def find(self, sub: str, *span: int) -> int:  # type: ignore[override]
            start = span[0] if span else 0
            found = str.find(self, sub, *span)
            read[0] += (len(self) if found < 0 else found + 1) - start
            return found

    pattern = Counted(unit * 5000)
    compile_glob(pattern)
    assert read[0] <= len(pattern) + 1
