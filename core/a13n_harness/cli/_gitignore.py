"""``.gitignore`` as git applies it to a skill lint found, without running git.

A ``SKILL.md`` is ignored when git would ignore it: it is **not tracked** (not in the
checkout's index: a tracked file is never ignored, whatever ``.gitignore`` says) and the last
pattern matching it, or one of its folders, in ``.git/info/exclude`` then the ``.gitignore``
of each folder from the repository's top down to its own, is not a negation (``!``); below an
ignored folder nothing is re-included. Patterns are git's: ``#`` comments, a leading ``/``
or a ``/`` inside anchors the pattern to its file's folder (else it matches a name at any
depth), a trailing ``/`` matches folders only, ``**`` as a whole segment matches any number
of folders, and each other segment is a shell glob matched by :mod:`a13n_harness.cli._glob`
(linear in its length; a segment never holds ``/``, so ``*`` stays inside it). A backslash
escapes a leading ``#`` or ``!`` and a trailing space; elsewhere it is itself.

Without an index git applies no ``.gitignore`` (no repository) and neither does lint; an
index this module cannot read in full (a split index, another hash, a truncated file) is
treated the same way: what is tracked is then unknown, and dropping a tracked skill would
blind the gate. The index is read, never written, bounded, as untrusted bytes; each
``.gitignore`` is read through the repository's confined operator (a link leaving it, a FIFO
or a file over :data:`GITIGNORE_MAX_BYTES` is no ``.gitignore``, as git refuses a linked one).

Cost: reading the index is linear in its size; a path costs, per pattern of the files on its
way, at most its segments times the pattern's segments look-ups.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Callable
from dataclasses import dataclass

from a13n_harness.cli._files import read_regular_file
from a13n_harness.cli._glob import Glob, compile_glob
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import FileOperatorError
from a13n_harness.environment.facts import _find_checkout  # finds a work tree, runs no git
from a13n_harness.environment.local import BlockingLocalFileOperator, run_blocking

__all__ = [
    "GITIGNORE_MAX_BYTES",
    "INDEX_MAX_BYTES",
    "PATTERNS_MAX",
    "GitIgnore",
    "gitignore_for",
    "read_index",
]

# A .gitignore is a few kilobytes; a larger one is not read (git has the same 100 MB guard
# in spirit: a pattern file is no data file).
GITIGNORE_MAX_BYTES = 1 << 20
# Patterns parsed in one run, over every .gitignore: a real repository has hundreds. Past it
# nothing more is ignored (the safe direction: a skill is checked), so a hostile .gitignore
# costs at most this many patterns' parsing and matching.
PATTERNS_MAX = 50_000
# The index of a 100,000-file repository is about 10 MB; a larger one is not read whole.
INDEX_MAX_BYTES = 256 << 20
_ENTRY_FIXED = 40  # ctime, mtime, dev, ino, mode, uid, gid, size: ten 4-byte fields


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """Git's offset varint (index version 4) at ``at``: its value and the next offset."""
    byte = data[at]
    value = byte & 0x7F
    at += 1
    while byte & 0x80:
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
        at += 1
    return value, at


def _entries(data: bytes, version: int, count: int, hash_size: int) -> frozenset[str] | None:
    paths: list[str] = []
    at = 12
    previous = b""
    for _ in range(count):
        start = at
        at += _ENTRY_FIXED + hash_size
        (flags,) = struct.unpack_from(">H", data, at)
        at += 2
        if version >= 3 and flags & 0x4000:
            at += 2
        if version == 4:
            strip, at = _varint(data, at)
            end = data.index(b"\0", at)
            if strip > len(previous):
                return None
            path = previous[: len(previous) - strip] + data[at:end]
            at = end + 1
        else:
            end = data.index(b"\0", at)
            path = data[at:end]
            at = start + ((end - start + 8) & ~7)
        length = flags & 0xFFF
        if length != 0xFFF and length != len(path):
            return None  # not this hash size, or not an index
        previous = path
        paths.append(os.fsdecode(path))
    if at > len(data):
        return None
    # Extensions: a split index ("link") holds only part of the entries.
    while at + 8 <= len(data) - hash_size:
        signature = data[at : at + 4]
        (size,) = struct.unpack_from(">I", data, at + 4)
        if signature == b"link":
            return None
        at += 8 + size
    return frozenset(paths)


def read_index(data: bytes) -> frozenset[str] | None:
    """The paths an index (``.git/index``'s bytes) tracks, ``/``-separated and relative to
    the top, or ``None`` when it cannot be read in full. Linear in ``len(data)``."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4) or count > len(data) // (_ENTRY_FIXED + 22):
        return None
    for hash_size in (20, 32):  # SHA-1, then SHA-256 repositories
        try:
            found = _entries(data, version, count, hash_size)
        except (IndexError, ValueError, struct.error):
            found = None
        if found is not None:
            return found
    return None


@dataclass(frozen=True, slots=True)
class _Pattern:
    base: tuple[str, ...]  # the folder of its file, below the top
    segments: tuple[Glob | None, ...]  # None: "**"
    anchored: bool
    folders_only: bool
    negated: bool
    source: str  # "path:line"


def _parse(
    text: str, base: tuple[str, ...], shown: str, limit: int = PATTERNS_MAX
) -> list[_Pattern]:
    """The patterns of one file, at most ``limit`` + 1 (more is past any bound)."""
    patterns: list[_Pattern] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        if len(patterns) > limit:
            break
        line = raw.rstrip("\r")
        if not line or line.startswith("#"):
            continue
        trimmed = line.rstrip(" ")
        if trimmed.endswith("\\") and len(trimmed) < len(line):
            trimmed = trimmed[:-1] + " "  # "\ " is one trailing space kept
        line = trimmed
        negated = line.startswith("!")
        if negated or line.startswith(("\\!", "\\#")):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        parts = [part for part in line.split("/") if part]
        if not parts:
            continue
        segments = tuple(None if part == "**" else compile_glob(part) for part in parts)
        patterns.append(
            _Pattern(base, segments, anchored, folders_only, negated, f"{shown}:{number}")
        )
    return patterns


def _match(segments: tuple[Glob | None, ...], parts: list[str]) -> bool:
    """Whether ``segments`` (``None`` for ``**``) match all of ``parts``: a table of at most
    ``len(segments) * len(parts)`` cells, each filled once."""
    reach = [True] + [False] * len(parts)  # reach[j]: parts[:j] matched so far
    for segment in segments:
        after = [False] * (len(parts) + 1)
        if segment is None:
            seen = False
            for j in range(len(parts) + 1):
                seen = seen or reach[j]
                after[j] = seen
        else:
            for j in range(len(parts)):
                if reach[j] and segment.matches(parts[j]):
                    after[j + 1] = True
        reach = after
    return reach[len(parts)]


class GitIgnore:
    """The ignore rules of one checkout; ``read(folder)`` gives a folder's ``.gitignore``
    text (``folder`` a tuple of segments below the top) or ``None``."""

    def __init__(
        self,
        tracked: frozenset[str] | Callable[[], frozenset[str] | None],
        # ``tracked``: the tracked paths, or what reads them on first need (``None``: unknown).
        read: Callable[[tuple[str, ...]], str | None],
        exclude: str | None = None,
        close: Callable[[], None] | None = None,
    ) -> None:
        self._load = tracked if callable(tracked) else None
        self._tracked: frozenset[str] | None = None if callable(tracked) else tracked
        self._read = read
        self.close = close if close is not None else (lambda: None)
        self._texts: dict[tuple[str, ...], str] = {}  # each folder's .gitignore, read once
        self._files: dict[tuple[str, ...], list[_Pattern]] = {}  # parsed on first need
        self._exclude = exclude or ""
        self._parsed = 0  # patterns parsed so far, against PATTERNS_MAX

    def tracked(self) -> frozenset[str] | None:
        """The tracked paths, read once, when a path first matches a pattern (``None``:
        unknown, so nothing is ignored): a checkout without ignored skills reads no index."""
        if self._load is not None:
            self._tracked, self._load = self._load(), None
        return self._tracked

    def _text(self, folder: tuple[str, ...]) -> str:
        if folder not in self._texts:
            self._texts[folder] = self._read(folder) or ""
        return self._texts[folder]

    def _patterns(self, folder: tuple[str, ...] | None) -> list[_Pattern] | None:
        """The parsed patterns of ``folder``'s file (``None``: ``.git/info/exclude``), or
        ``None`` once the run has parsed :data:`PATTERNS_MAX` patterns."""
        key = ("\0",) if folder is None else folder
        if key not in self._files:
            text = self._exclude if folder is None else self._text(folder)
            shown = ".git/info/exclude" if folder is None else "/".join((*folder, ".gitignore"))
            left = PATTERNS_MAX - self._parsed
            parsed = _parse(text, folder or (), shown, left) if text else []
            self._parsed += len(parsed)
            if self._parsed > PATTERNS_MAX:
                return None
            self._files[key] = parsed
        return self._files[key]

    def _verdict(
        self, parts: list[str], folder: bool, sources: list[list[_Pattern]]
    ) -> _Pattern | None:
        """The last pattern of ``sources`` matching ``parts`` (a path below the top)."""
        found: _Pattern | None = None
        for patterns in sources:
            for pattern in patterns:
                if pattern.folders_only and not folder:
                    continue
                if tuple(parts[: len(pattern.base)]) != pattern.base:
                    continue
                rest = parts[len(pattern.base) :]
                if not rest:
                    continue
                if pattern.anchored:
                    matched = _match(pattern.segments, rest)
                else:
                    glob = pattern.segments[0]
                    matched = glob is None or glob.matches(rest[-1])
                if matched:
                    found = pattern
        return found

    def ignored(self, path: str) -> str | None:
        """The pattern (``file:line``) that ignores ``path`` (``/``-separated, below the
        top), or ``None``: a tracked path is never ignored, and is answered before any
        pattern is matched (in a clone every file present is tracked: the patterns cost
        nothing there, however many a hostile ``.gitignore`` holds)."""
        parts = [part for part in path.split("/") if part]
        folders = [tuple(parts[:depth]) for depth in range(len(parts))]
        if not self._exclude and not any(self._text(folder) for folder in folders):
            return None  # no pattern on the way: no index read
        tracked = self.tracked()
        if tracked is None or path in tracked:
            return None
        # The pattern files on the way: .git/info/exclude, then each folder's from the top.
        sources = []
        for folder in [None, *folders]:
            patterns = self._patterns(folder)
            if patterns is None:
                return None  # past the bound: nothing more is ignored (never a hang)
            sources.append(patterns)
        for depth in range(1, len(parts) + 1):
            verdict = self._verdict(parts[:depth], depth < len(parts), sources[: depth + 1])
            if verdict is not None and not verdict.negated:
                return verdict.source
        return None


def gitignore_for(top: str) -> GitIgnore | None:
    """The ignore rules of the checkout whose work tree is ``top``, or ``None`` when it is no
    checkout or its index cannot be read in full (then nothing is ignored)."""
    try:
        checkout = _find_checkout(os.path.realpath(top))
    except (OSError, ValueError):
        return None
    if checkout is None or os.path.realpath(checkout.top) != os.path.realpath(top):
        return None

    def tracked() -> frozenset[str] | None:
        try:
            data = read_regular_file(os.path.join(checkout.gitdir, "index"), INDEX_MAX_BYTES + 1)
        except OSError:
            return None
        return read_index(data) if len(data) <= INDEX_MAX_BYTES else None

    try:
        exclude_bytes = read_regular_file(
            os.path.join(checkout.commondir, "info", "exclude"), GITIGNORE_MAX_BYTES
        )
        exclude = exclude_bytes.decode("utf-8", "replace")
    except OSError:
        exclude = None
    try:
        files = BlockingLocalFileOperator(checkout.top)
    except DefinitionError:
        return None

    def read(folder: tuple[str, ...]) -> str | None:
        path = "/" + "/".join((*folder, ".gitignore"))
        try:
            data = run_blocking(files.read_bytes(path, GITIGNORE_MAX_BYTES + 1))
        except (DefinitionError, FileOperatorError):
            return None
        if len(data) > GITIGNORE_MAX_BYTES:
            return None
        return data.decode("utf-8", "replace")

    return GitIgnore(tracked, read, exclude, files.close)
