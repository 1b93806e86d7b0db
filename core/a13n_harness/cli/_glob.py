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
              # "a-z" a range, the high end of a range does not start another; a "["
              # with no "]" after it is the character "["
    # One departure: a reversed range ("z-a") is no member, its ends neither; fnmatch
    # rewrites the set without it, and what is left can begin with "!" and negate it.
    char    = any other character, itself

Cost: compiling is linear in the pattern's length; matching a path of ``n`` characters
costs at most the pattern's length plus ``n`` squared (a segment is looked for at each
place of the path once), whatever the pattern holds. :class:`GlobSet` matches many
patterns at once: a path costs a look-up per distinct length of the patterns' literal
prefixes and suffixes, and only the patterns whose prefix and suffix fit it are matched.
"""

from __future__ import annotations

import bisect
import re
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


# A piece of a pattern: characters that stand for themselves (a str, one or more), any
# one character (None), or a set of characters.
_Token = str | None | _Class


# The characters that mean something outside a class; a run of others is one token.
_SPECIAL = re.compile(r"[*?\[]")
# Once no "]" is left, a "[" is a plain character too.
_SPECIAL_WITHOUT_CLASSES = re.compile(r"[*?]")


def _class(body: str, negated: bool) -> _Class:
    """The set a class body (after ``[`` and ``!``, before ``]``) stands for."""
    ranges: list[tuple[str, str]] = []
    in_range: set[int] = set()
    last_dash = -3
    dash = body.find("-", 1)
    while 0 < dash < len(body) - 1:
        if dash >= last_dash + 3:
            last_dash = dash
            in_range.update((dash - 1, dash, dash + 1))
            low, high = body[dash - 1], body[dash + 1]
            if low <= high:  # a reversed range matches nothing, its ends included
                ranges.append((low, high))
        dash = body.find("-", dash + 1)
    if in_range:
        members = frozenset(char for index, char in enumerate(body) if index not in in_range)
    else:
        members = frozenset(body)
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


def _segments(pattern: str) -> list[list[_Token]]:
    """The pattern's segments: what lies between its runs of stars, as tokens (a run of
    plain characters is one str)."""
    segments: list[list[_Token]] = [[]]
    segment = segments[0]
    classes: dict[tuple[str, bool], _Class] = {}  # one set per distinct spelling
    length = len(pattern)
    close = -1  # the next "]" at or after the last place searched (length: none)
    index = 0
    search = _SPECIAL.search
    while index < length:
        special = search(pattern, index)
        stop = length if special is None else special.start()
        if stop > index:
            segment.append(pattern[index:stop])
            index = stop
            continue
        char = pattern[index]
        index += 1
        if char == "*":
            if segment or len(segments) == 1:  # a run of stars is one
                segment = []
                segments.append(segment)
        elif char == "?":
            segment.append(None)
        else:  # "["
            negated = index < length and pattern[index] == "!"
            first = index + 1 if negated else index
            after = first + 1 if first < length and pattern[first] == "]" else first
            if close != length and close < after:
                # Searches start past the last "]" found, so no character is read twice.
                found = pattern.find("]", after)
                close = length if found < 0 else found
            if close == length:
                segment.append("[")
                search = _SPECIAL_WITHOUT_CLASSES.search
                continue
            body = pattern[first:close]
            made = classes.get((body, negated))
            if made is None:
                made = classes[body, negated] = _class(body, negated)
            segment.append(made)
            index = close + 1
    return segments


def _fits(segment: Sequence[_Token], text: str, at: int) -> bool:
    """Whether ``segment`` matches ``text`` at ``at`` (the caller checked it fits in)."""
    for token in segment:
        if token is None:
            at += 1
        elif isinstance(token, str):
            if not text.startswith(token, at):
                return False
            at += len(token)
        else:
            if text[at] not in token:
                return False
            at += 1
    return True


def _find(segment: Sequence[_Token], size: int, text: str, start: int, end: int) -> int:
    """The first place in ``text[start:end]`` where ``segment`` (``size`` characters)
    matches, else -1."""
    for at in range(start, end - size + 1):
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
    sizes: tuple[int, ...]  # characters each segment matches
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
        sizes = self.sizes
        end = length - sizes[-1]
        if not (_fits(segments[0], text, 0) and _fits(segments[-1], text, end)):
            return False
        position = sizes[0]
        for index in range(1, len(segments) - 1):
            literal = self.texts[index]
            if literal is not None:
                found = text.find(literal, position, end)
            else:
                found = _find(segments[index], sizes[index], text, position, end)
            if found < 0:
                return False
            position = found + sizes[index]
        return True


def compile_glob(pattern: str) -> Glob:
    """``pattern`` compiled (linear in its length); every string is a pattern."""
    segments = _segments(pattern)
    texts: list[str | None] = []
    sizes: list[int] = []
    for segment in segments:
        plain = [token for token in segment if isinstance(token, str)]
        texts.append("".join(plain) if len(plain) == len(segment) else None)
        sizes.append(sum(map(len, plain)) + len(segment) - len(plain))
    starred = len(segments) > 1
    prefix = _plain_run(segments[0])
    suffix = "" if not starred and texts[0] is not None else _plain_run(segments[-1], True)
    return Glob(
        pattern,
        tuple(map(tuple, segments)),
        tuple(texts),
        starred,
        prefix,
        suffix,
        tuple(sizes),
        sum(sizes),
    )


def _plain_run(tokens: Sequence[_Token], backwards: bool = False) -> str:
    """The plain characters ``tokens`` start with (``backwards``: end with)."""
    run: list[str] = []
    for token in reversed(tokens) if backwards else tokens:
        if not isinstance(token, str):
            break
        run.append(token)
    return "".join(reversed(run) if backwards else run)


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
