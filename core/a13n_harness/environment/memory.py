"""An in-memory :class:`~a13n_harness.environment.FileOperator`, for tests, fuzzing and Hosts.

Its tree is built from plain values: ``bytes`` is a file, a ``dict`` a
directory, :class:`MemorySymlink` a link (target in the operator's own
namespace, absolute or relative), :class:`MemorySpecial` a FIFO-like entry
that must never be opened, :class:`MemoryDenied` an entry whose access is
refused, :class:`MemoryBroken` one whose provider fails. Links obey the same
confinement as :class:`~a13n_harness.environment.LocalFileOperator`: a target
climbing above ``/`` is :class:`FilePermissionDenied`, more than
:data:`~a13n_harness.environment._confinement.MAX_LINK_HOPS` links a
:class:`FileUnsupported` loop. ``opened`` records every file read, in order.

Its link walk (:meth:`MemoryFileOperator._resolve`) is a second, independent
implementation of :mod:`a13n_harness.environment._confinement`, kept separate on
purpose: ``properties/test_operator_differential.py`` (and the fuzz target
``fuzz/fuzz_operator.py``) compares the two on drawn trees of escaping,
looping, hidden and oddly spelled links, and is the oracle for both. Only the
lexical spelling of a link target
(:func:`~a13n_harness.environment.paths.resolve_link_target`) is shared.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from a13n_harness.context._checks import describe, is_bytes_like, plain_bytes, plain_str
from a13n_harness.environment._confinement import MAX_LINK_HOPS
from a13n_harness.environment.errors import (
    FileNotFound,
    FilePermissionDenied,
    FileProviderError,
    FileUnsupported,
    NotADirectory,
    check_limit,
)
from a13n_harness.environment.operator import DirectoryEntry, EntryKind, FileStat, plain_fields
from a13n_harness.environment.paths import (
    is_canonical_path,
    path_segments,
    resolve_link_target,
)

__all__ = [
    "MemoryBroken",
    "MemoryDenied",
    "MemoryFileOperator",
    "MemoryNode",
    "MemorySpecial",
    "MemorySymlink",
]


@dataclass(frozen=True, slots=True)
class MemorySymlink:
    """A symbolic link to ``target``."""

    target: str

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


@dataclass(frozen=True, slots=True)
class MemorySpecial:
    """A FIFO, socket or device: listed as ``other``, never opened."""


@dataclass(frozen=True, slots=True)
class MemoryDenied:
    """An entry (listed as ``kind``) whose every access is refused."""

    kind: EntryKind = "file"

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


@dataclass(frozen=True, slots=True)
class MemoryBroken:
    """An entry (listed as ``kind``) whose every access fails in the provider."""

    kind: EntryKind = "file"

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


MemoryNode = (
    bytes | dict[str, "MemoryNode"] | MemorySymlink | MemorySpecial | MemoryDenied | MemoryBroken
)


def _leaf(node: object) -> MemoryNode:
    if isinstance(node, bytes | bytearray):
        return bytes(node)
    if isinstance(node, MemorySymlink | MemorySpecial | MemoryDenied | MemoryBroken):
        return node
    raise FileProviderError(f"not a memory tree node: {type(node).__name__}")


def _copy(tree: object) -> dict[str, MemoryNode]:
    """A private copy of ``tree``, built without recursion (trees may be thousands deep)."""
    if not isinstance(tree, Mapping):
        raise FileProviderError(f"a memory tree must be a mapping, not {type(tree).__name__}")
    root: dict[str, MemoryNode] = {}
    work: list[tuple[Mapping[object, object], dict[str, MemoryNode]]] = [(tree, root)]
    while work:
        source, target = work.pop()
        for name, child in source.items():
            if not isinstance(name, str):
                raise FileProviderError(f"a memory entry name must be a str: {describe(name)}")
            if isinstance(child, Mapping):
                copied: dict[str, MemoryNode] = {}
                target[name] = copied
                work.append((child, copied))
            else:
                target[name] = _leaf(child)
    return root


def _kind(node: MemoryNode) -> EntryKind:
    if isinstance(node, dict):
        return "directory"
    if isinstance(node, MemorySymlink):
        return "symlink"
    if isinstance(node, MemorySpecial):
        return "other"
    if isinstance(node, MemoryDenied | MemoryBroken):
        return node.kind
    return "file"


def _plain_path(path: str) -> str:
    """A Host's ``str`` subclass as its plain characters (none of its methods run)."""
    plain: str = plain_str(path)  # type: ignore[assignment]  # a non-str is refused later
    return plain


class MemoryFileOperator:
    """A file tree held in memory; see the module docstring."""

    def __init__(self, tree: Mapping[str, object] | None = None) -> None:
        self._root: dict[str, MemoryNode] = _copy({} if tree is None else tree)
        self.opened: list[str] = []

    def _resolve(
        self, path: object, *, follow_last: bool = True
    ) -> tuple[dict[str, MemoryNode], str | None]:
        """The directory holding what ``path`` names and its name (``None``: the root).

        The same walk as :class:`~a13n_harness.environment.LocalFileOperator`:
        ``resolved`` is the link-free chain so far; a link replaces it with the
        segments its target names, resolved lexically by
        :func:`~a13n_harness.environment.paths.resolve_link_target` (this
        operator's ``/`` is its own root, so an absolute target is read from
        it), and a target leaving the root is :class:`FilePermissionDenied`.
        """
        path = plain_str(path)  # a Host's str subclass: its characters, none of its methods
        if not is_canonical_path(path):
            raise FilePermissionDenied("path is not a canonical absolute path", path=describe(path))
        assert isinstance(path, str)
        stack: list[dict[str, MemoryNode]] = [self._root]
        resolved: list[str] = []
        pending = deque(path_segments(path))
        hops = 0
        while pending:
            segment = pending.popleft()
            node = stack[-1].get(segment)
            last = not pending
            if isinstance(node, MemorySymlink) and (follow_last or not last):
                hops += 1
                if hops > MAX_LINK_HOPS:
                    raise FileUnsupported("symbolic link loop", path=path, reason="link_loop")
                if not node.target:
                    raise FileNotFound("empty symbolic link", path=path)
                leads = resolve_link_target(resolved, node.target, ())
                if leads is None:
                    raise FilePermissionDenied(
                        "symbolic link leads outside the root", path=path, reason="link_escapes"
                    )
                shared = 0
                for have, want in zip(resolved, leads, strict=False):
                    if have != want:
                        break
                    shared += 1
                del resolved[shared:]
                del stack[shared + 1 :]
                pending.extendleft(reversed(leads[shared:]))
                continue
            if last:
                return stack[-1], segment
            if node is None:
                raise FileNotFound("no such file or directory", path=path)
            if isinstance(node, MemoryDenied):
                raise FilePermissionDenied("permission denied", path=path)
            if isinstance(node, MemoryBroken):
                raise FileProviderError("provider failure", path=path)
            if not isinstance(node, dict):
                raise NotADirectory("not a directory", path=path)
            stack.append(node)
            resolved.append(segment)
        return stack[-1], None

    def _node(self, path: object) -> MemoryNode:
        parent, name = self._resolve(path)
        if name is None:
            return parent
        node = parent.get(name)
        if node is None:
            raise FileNotFound("no such file or directory", path=str(path))
        if isinstance(node, MemoryDenied):
            raise FilePermissionDenied("permission denied", path=str(path))
        if isinstance(node, MemoryBroken):
            raise FileProviderError("provider failure", path=str(path))
        return node

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        path = _plain_path(path)
        node = self._node(path)
        if not isinstance(node, dict):
            raise NotADirectory("not a directory", path=path)
        return [DirectoryEntry(name, _kind(child)) for name, child in node.items()]

    def read_now(self, path: str, limit: int) -> bytes:
        """:meth:`read_bytes` without the coroutine."""
        path = _plain_path(path)
        check_limit(limit)
        if not is_canonical_path(path):
            raise FilePermissionDenied("path is not a canonical absolute path", path=describe(path))
        node = self._node(path)
        if not isinstance(node, bytes):
            raise FileUnsupported("not a regular file", path=path)
        self.opened.append(path)
        return node[:limit]

    async def read_bytes(self, path: str, limit: int) -> bytes:
        return self.read_now(path, limit)

    async def stat(self, path: str) -> FileStat:
        path = _plain_path(path)
        node = self._node(path)
        return FileStat(_kind(node), len(node) if isinstance(node, bytes) else 0)

    async def write_bytes(self, path: str, data: bytes) -> None:
        path = _plain_path(path)
        if not is_bytes_like(data):
            raise FileProviderError(f"data must be bytes, not {type(data).__name__}")
        parent, name = self._resolve(path)
        if name is None or isinstance(parent.get(name), dict | MemorySpecial):
            raise FileUnsupported("not a regular file", path=path)
        parent[name] = bytes(plain_bytes(data))  # type: ignore[call-overload]

    async def make_directory(self, path: str) -> None:
        path = _plain_path(path)
        segments = path_segments(path) if is_canonical_path(path) else None
        if segments is None:
            raise FilePermissionDenied("path is not a canonical absolute path", path=describe(path))
        for depth in range(1, len(segments) + 1):
            prefix = "/" + "/".join(segments[:depth])
            parent, name = self._resolve(prefix)
            if name is None:
                continue
            node = parent.get(name)
            if node is None:
                parent[name] = {}
            elif not isinstance(node, dict):
                raise NotADirectory("not a directory", path=prefix)

    async def remove(self, path: str) -> None:
        path = _plain_path(path)
        parent, name = self._resolve(path, follow_last=False)
        if name is None:
            raise FilePermissionDenied("the root cannot be removed", path=path)
        if name not in parent:
            raise FileNotFound("no such file or directory", path=path)
        del parent[name]
