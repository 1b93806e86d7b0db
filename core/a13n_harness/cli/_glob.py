"""Shell globs (``fnmatch.fnmatchcase``'s language) compiled and matched in linear time.

``fnmatch`` translates a pattern to a regular expression, looking for the ``]`` of each
``[`` from that ``[`` onwards: a pattern of many unclosed ``[`` costs time quadratic in its
length before anything is matched (8,000 characters took 2.3 s). Here a pattern is read
once, in one pass (the closing ``]`` is found by a forward search that never scans a
character twice), into segments separated by ``*``, and a path is matched against them
without backtracking. Grammar (the language of ``fnmatchcase``, which
``properties/test_lint_config.py`` holds this matcher to)::

    pattern = (star | any | class | char)*
    star    = "*"+                  # any run of characters, "/" included
    any     = "?"                   # one character, "/" included
    class   = "[" ["!"] ["]"] (char but "]")* "]"
              # a set of characters: "!" first negates it, a "]" first is a member,
              # "a-z" a range (a reversed range is no member), the high end of a range
              # does not start another; a "[" with no "]" after it is the character "["
    char    = any other character, itself

Cost: compiling is linear in the pattern's length; matching a path of ``n`` characters
costs at most the pattern's length plus ``n`` squared (a segment is looked for at each
place of the path once), whatever the pattern holds. :class:`GlobSet` matches many
patterns at once: a path costs a look-up per distinct length of the patterns' literal
prefixes and suffixes, and only the patterns whose prefix and suffix fit it are matched.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Glob", "GlobSet", "compile_glob"]


@dataclass(frozen=True, slots=True)
class _Class:
    """A ``[...]`` set: members, sorted disjoint ranges (start, end) inclusive, negation."""

    members: frozenset[str]
    starts: tuple[str, ...]
    ends: tuple[str, ...]
    negated: bool

    def __contains__(self, char: object) -> bool:
        found = char in self.members
        if not found and self.starts and isinstance(char, str):
            index = bisect.bisect_right(self.starts, char) - 1
            found = index >= 0 and char <= self.ends[index]
        return found != self.negated


# One character of a pattern: itself (a str), any character (None), or a set.
_Token = str | None | _Class


class _Star:
    """The token of a run of ``*``."""


_STAR = _Star()


def _class(body: str, negated: bool) -> _Class:
    """The set a class body (after ``[`` and ``!``, before ``]``) stands for."""
    ranges: list[tuple[str, str]] = []
    in_range: set[int] = set()
    last_dash = -3
    for index in range(1, len(body) - 1):
        if body[index] == "-" and index >= last_dash + 3:
            last_dash = index
            in_range.update((index - 1, index, index + 1))
            low, high = body[index - 1], body[index + 1]
            if low <= high:  # a reversed range matches nothing, its ends included
                ranges.append((low, high))
    members = frozenset(char for index, char in enumerate(body) if index not in in_range)
    ranges.sort()
    starts: list[str] = []
    ends: list[str] = []
    for low, high in ranges:
        if ends and low <= ends[-1]:
            ends[-1] = max(ends[-1], high)
        else:
            starts.append(low)
            ends.append(high)
    return _Class(members, tuple(starts), tuple(ends), negated)


def _tokens(pattern: str) -> list[_Token | _Star]:
    """The pattern as tokens (a run of stars is one)."""
    tokens: list[_Token | _Star] = []
    length = len(pattern)
    close = -1  # the next "]" at or after the last place searched (length: none)
    index = 0
    while index < length:
        char = pattern[index]
        index += 1
        if char == "*":
            if not tokens or tokens[-1] is not _STAR:
                tokens.append(_STAR)
        elif char == "?":
            tokens.append(None)
        elif char == "[":
            negated = index < length and pattern[index] == "!"
            first = index + 1 if negated else index
            search = first + 1 if first < length and pattern[first] == "]" else first
            if close != length and close < search:
                # Searches start past the last "]" found, so no character is read twice.
                found = pattern.find("]", search)
                close = length if found < 0 else found
            if close == length:
                tokens.append("[")
                continue
            tokens.append(_class(pattern[first:close], negated))
            index = close + 1
        else:
            tokens.append(char)
    return tokens


def _fits(segment: Sequence[_Token], text: str, at: int) -> bool:
    """Whether ``segment`` matches ``text`` at ``at`` (the caller checked it fits in)."""
    for offset, token in enumerate(segment):
        if token is None:
            continue
        char = text[at + offset]
        if isinstance(token, str):
            if token != char:
                return False
        elif char not in token:
            return False
    return True


def _find(segment: Sequence[_Token], text: str, start: int, end: int) -> int:
    """The first place in ``text[start:end]`` where ``segment`` matches, else -1."""
    for at in range(start, end - len(segment) + 1):
        if _fits(segment, text, at):
            return at
    return -1


@dataclass(frozen=True, slots=True)
class Glob:
    """A compiled pattern: its segments between stars, literal prefix and suffix."""

    pattern: str
    segments: tuple[tuple[_Token, ...], ...]
    texts: tuple[str | None, ...]  # each segment as a str when it is all characters
    starred: bool
    prefix: str  # the characters every match starts with
    suffix: str  # the characters every match ends with, after the prefix's
    fixed: int  # characters every match consumes (the segments' lengths)

    @property
    def literal(self) -> bool:
        """Whether the pattern matches one string only (itself)."""
        return not self.starred and self.texts[0] is not None

    def matches(self, text: str) -> bool:
        """Whether ``text`` matches the whole pattern (``fnmatch.fnmatchcase``)."""
        length = len(text)
        segments = self.segments
        if not self.starred:
            if self.texts[0] is not None:
                return text == self.texts[0]
            return length == self.fixed and _fits(segments[0], text, 0)
        if length < self.fixed:
            return False
        first, last = segments[0], segments[-1]
        end = length - len(last)
        if not (_fits(first, text, 0) and _fits(last, text, end)):
            return False
        position = len(first)
        for index in range(1, len(segments) - 1):
            literal = self.texts[index]
            if literal is not None:
                found = text.find(literal, position, end)
            else:
                found = _find(segments[index], text, position, end)
            if found < 0:
                return False
            position = found + len(segments[index])
        return True


def compile_glob(pattern: str) -> Glob:
    """``pattern`` compiled (linear in its length); every string is a pattern."""
    tokens = _tokens(pattern)
    segments: list[list[_Token]] = [[]]
    for token in tokens:
        if isinstance(token, _Star):
            segments.append([])
        else:
            segments[-1].append(token)
    texts = tuple(
        "".join(t for t in segment if isinstance(t, str))
        if all(isinstance(t, str) for t in segment)
        else None
        for segment in segments
    )
    starred = len(segments) > 1
    prefix = _literal_run(tokens)
    suffix = "" if not starred and texts[0] is not None else _literal_run(tokens[::-1])[::-1]
    return Glob(
        pattern,
        tuple(tuple(segment) for segment in segments),
        texts,
        starred,
        prefix,
        suffix,
        sum(len(segment) for segment in segments),
    )


def _literal_run(tokens: Sequence[_Token | _Star]) -> str:
    """The characters ``tokens`` start with."""
    run: list[str] = []
    for token in tokens:
        if not isinstance(token, str):
            break
        run.append(token)
    return "".join(run)


class GlobSet:
    """Patterns, each with a value; what a path is given is the union of its patterns' values.

    Patterns are indexed by their literal prefix, then by their literal suffix: a path
    looks each distinct prefix length up once, each distinct suffix length of a prefix it
    has once, and matches only the patterns both fit (a literal pattern is one look-up).
    What is left to match one by one are patterns sharing a prefix and a suffix.
    """

    def __init__(self, entries: Iterable[tuple[str, frozenset[str]]]) -> None:
        self._exact: dict[str, set[str]] = {}
        self._index: dict[str, dict[str, list[tuple[Glob, frozenset[str]]]]] = {}
        for pattern, values in entries:
            glob = compile_glob(pattern)
            if glob.literal:
                self._exact.setdefault(pattern, set()).update(values)
                continue
            by_suffix = self._index.setdefault(glob.prefix, {})
            by_suffix.setdefault(glob.suffix, []).append((glob, values))
        self._prefix_lengths = sorted({len(prefix) for prefix in self._index})
        self._suffix_lengths = {
            prefix: sorted({len(suffix) for suffix in by_suffix})
            for prefix, by_suffix in self._index.items()
        }

    def __bool__(self) -> bool:
        return bool(self._exact or self._index)

    def values_at(self, text: str) -> frozenset[str]:
        """The union of the values of every pattern ``text`` matches."""
        found: set[str] = set(self._exact.get(text, ()))
        length = len(text)
        for size in self._prefix_lengths:
            if size > length:
                break
            prefix = text[:size]
            by_suffix = self._index.get(prefix)
            if by_suffix is None:
                continue
            for tail in self._suffix_lengths[prefix]:
                if size + tail > length:
                    break
                for glob, values in by_suffix.get(text[length - tail :], ()):
                    if not values <= found and glob.matches(text):
                        found.update(values)
        return frozenset(found)
