"""A root-confined file operator over a host directory.

:class:`LocalFileOperator` maps its ``/`` to a host directory and never lets a
path or a symbolic link reach outside it. How:

* Paths must be canonical (:mod:`a13n_harness.environment.paths`); nothing is
  normalized.
* Every path is walked one segment at a time from a descriptor of the root,
  opening each directory relative to its parent with ``O_NOFOLLOW``; a
  symbolic link met on the way is read with ``readlinkat`` and its target is
  resolved by the same walk. A relative target that climbs above the root, or
  an absolute target outside the root's real path, is refused with
  :class:`FilePermissionDenied` before anything behind it is touched, so
  whether an outside path exists never shows through an error. A link that
  stays inside is followed. More than :data:`MAX_LINK_HOPS` links in one walk
  is a loop: :class:`FileUnsupported`, never a hang.
* Because each step opens relative to a descriptor already checked, a
  directory swapped for a link between two calls cannot redirect the walk.
* A file is ``lstat``-ed before it is opened: a FIFO, socket or device is
  :class:`FileUnsupported` and never opened; regular files are opened with
  ``O_NONBLOCK | O_NOFOLLOW`` and checked again with ``fstat``.
* Reads stop at ``limit`` bytes, whatever the file's size.

Blocking work runs in one shared pool of :data:`EXECUTOR_THREADS` threads. A
cancelled call waits for its thread to finish before it re-raises, so no read outlives the task (and
the file scope) that started it. :meth:`LocalFileOperator.read_many` reads a
chunk of files in one thread hop, reusing the directory descriptors the paths
share; that is what keeps a scan near the cost of plain reads.

Requires POSIX ``dir_fd`` support (Linux, macOS, the BSDs).
"""

from __future__ import annotations

import asyncio
import errno
import os
import stat as stat_module
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from a13n_harness.environment.errors import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    FileUnsupported,
    NotADirectory,
)
from a13n_harness.environment.operator import DirectoryEntry, EntryKind, FileStat
from a13n_harness.environment.paths import is_canonical_path, path_segments

__all__ = ["EXECUTOR_THREADS", "MAX_LINK_HOPS", "LocalFileOperator"]

# 40: Linux's MAXSYMLINKS; a walk that follows more links than the kernel
# would is a loop (or an attack), and ends as an error instead of a hang.
MAX_LINK_HOPS = 40

_O_PATH = getattr(os, "O_PATH", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
# O_PATH: walk through directories without needing read permission on them
# and without "opening" them in any way a driver could observe.
_WALK_FLAGS = (_O_PATH or os.O_RDONLY) | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
_LIST_FLAGS = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC

_T = TypeVar("_T")

# 8 threads: the same bound as discovery's read workers, shared by every
# operator and every event loop, so a scan neither starts threads nor waits
# for a fresh default executor to shut down at the end of ``asyncio.run``.
EXECUTOR_THREADS = 8
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _shared_executor() -> ThreadPoolExecutor:
    global _executor  # noqa: PLW0603 - one lazily created pool for the process
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(EXECUTOR_THREADS, thread_name_prefix="a13n-files")
        return _executor


def _os_error(error: OSError, path: str) -> FileOperatorError:
    code = error.errno
    if code == errno.ENOENT:
        return FileNotFound("no such file or directory", path=path)
    if code in (errno.EACCES, errno.EPERM):
        return FilePermissionDenied("permission denied", path=path)
    if code == errno.ENOTDIR:
        return NotADirectory("not a directory", path=path)
    if code in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENODEV):
        return FileUnsupported(error.strerror or "unsupported file", path=path)
    return FileProviderError(f"{error.strerror or 'I/O error'} (errno {code})", path=path)


def _kind(mode: int) -> EntryKind:
    if stat_module.S_ISREG(mode):
        return "file"
    if stat_module.S_ISDIR(mode):
        return "directory"
    if stat_module.S_ISLNK(mode):
        return "symlink"
    return "other"


def _check_path(path: object) -> str:
    if not is_canonical_path(path):
        raise FilePermissionDenied("path is not a canonical absolute path", path=repr(path))
    assert isinstance(path, str)
    return path


def _check_limit(limit: object) -> int:
    if type(limit) is not int or limit < 0:
        raise FileProviderError("limit must be a non-negative int")
    return limit


@dataclass(slots=True)
class _Located:
    """``name`` inside the directory ``parent`` (``name is None``: ``parent`` itself)."""

    parent: int
    name: str | None
    mode: int | None  # lstat mode of name; None when it does not exist


class _Walker:
    """Resolves paths below one root for the length of one blocking call.

    Keeps the descriptors of the last link-free directory chain, so paths that
    share directories (every SKILL.md of one root) open only what differs.
    """

    def __init__(self, root: str) -> None:
        self._root = root
        try:
            root_fd = os.open(root, _WALK_FLAGS & ~_O_NOFOLLOW)
        except OSError as error:
            raise _os_error(error, "/") from None
        self._chain_fds: list[int] = [root_fd]
        self._chain_names: list[str] = []
        self._scratch: list[int] = []  # descriptors owned by the last slow walk

    def close(self) -> None:
        self._release_scratch()
        for fd in self._chain_fds:
            os.close(fd)
        self._chain_fds = []

    def __enter__(self) -> _Walker:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _release_scratch(self) -> None:
        for fd in self._scratch:
            os.close(fd)
        self._scratch = []

    def locate(self, path: str, *, follow_last: bool) -> _Located:
        """Find what ``path`` names; a missing last segment gives ``mode=None``."""
        self._release_scratch()
        segments = path_segments(path)
        if not segments:
            return _Located(self._chain_fds[0], None, stat_module.S_IFDIR)
        directories = segments[:-1]
        shared = 0
        for have, want in zip(self._chain_names, directories, strict=False):
            if have != want:
                break
            shared += 1
        while len(self._chain_names) > shared:
            self._chain_names.pop()
            os.close(self._chain_fds.pop())
        for segment in directories[shared:]:
            try:
                fd = os.open(segment, _WALK_FLAGS, dir_fd=self._chain_fds[-1])
            except OSError:
                return self._slow(path, segments, follow_last=follow_last)
            self._chain_fds.append(fd)
            self._chain_names.append(segment)
        last = segments[-1]
        try:
            mode = os.stat(last, dir_fd=self._chain_fds[-1], follow_symlinks=False).st_mode
        except FileNotFoundError:
            return _Located(self._chain_fds[-1], last, None)
        except OSError as error:
            raise _os_error(error, path) from None
        if follow_last and stat_module.S_ISLNK(mode):
            return self._slow(path, segments, follow_last=follow_last)
        return _Located(self._chain_fds[-1], last, mode)

    def _inside(self, target: str, path: str) -> list[str]:
        root = self._root
        if root == "/":
            return target.split("/")
        if target == root or target.startswith(root + "/"):
            return target[len(root) :].split("/")
        raise FilePermissionDenied("symbolic link leads outside the root", path=path)

    def _slow(self, path: str, segments: list[str], *, follow_last: bool) -> _Located:
        """The general walk: follows links, refusing any that leave the root."""
        fds = self._scratch
        root_fd = self._chain_fds[0]
        pending = deque(segments)
        hops = 0
        try:
            while pending:
                segment = pending.popleft()
                if segment in ("", "."):
                    continue
                if segment == "..":
                    if not fds:
                        raise FilePermissionDenied("symbolic link climbs above the root", path=path)
                    os.close(fds.pop())
                    continue
                current = fds[-1] if fds else root_fd
                last = not pending
                try:
                    mode = os.stat(segment, dir_fd=current, follow_symlinks=False).st_mode
                except FileNotFoundError:
                    if last:
                        return _Located(current, segment, None)
                    raise FileNotFound("no such file or directory", path=path) from None
                except OSError as error:
                    raise _os_error(error, path) from None
                if stat_module.S_ISLNK(mode) and (follow_last or not last):
                    hops += 1
                    if hops > MAX_LINK_HOPS:
                        raise FileUnsupported("symbolic link loop", path=path)
                    try:
                        target = os.readlink(segment, dir_fd=current)
                    except OSError as error:
                        raise _os_error(error, path) from None
                    if target.startswith("/"):
                        parts = self._inside(target, path)
                        while fds:
                            os.close(fds.pop())
                    else:
                        parts = target.split("/")
                    pending.extendleft(reversed(parts))
                    continue
                if last:
                    return _Located(current, segment, mode)
                if not stat_module.S_ISDIR(mode):
                    raise NotADirectory("not a directory", path=path)
                try:
                    fds.append(os.open(segment, _WALK_FLAGS, dir_fd=current))
                except OSError as error:
                    raise _os_error(error, path) from None
            return _Located(fds[-1] if fds else root_fd, None, stat_module.S_IFDIR)
        except BaseException:
            self._release_scratch()
            raise

    # --- operations -------------------------------------------------------

    def read(self, path: str, limit: int) -> bytes:
        found = self.locate(path, follow_last=True)
        if found.mode is None:
            raise FileNotFound("no such file or directory", path=path)
        if found.name is None or not stat_module.S_ISREG(found.mode):
            raise FileUnsupported(f"not a regular file ({_kind(found.mode)})", path=path)
        try:
            fd = os.open(found.name, _READ_FLAGS, dir_fd=found.parent)
        except OSError as error:
            raise _os_error(error, path) from None
        try:
            size = os.fstat(fd)
            if not stat_module.S_ISREG(size.st_mode):
                raise FileUnsupported("not a regular file", path=path)
            data = os.read(fd, limit) if limit else b""
            if len(data) >= limit or len(data) >= size.st_size:
                return data
            parts = [data]
            total = len(data)
            while total < limit:
                chunk = os.read(fd, limit - total)
                if not chunk:
                    break
                parts.append(chunk)
                total += len(chunk)
            return b"".join(parts)
        except OSError as error:
            raise _os_error(error, path) from None
        finally:
            os.close(fd)

    def list(self, path: str) -> list[DirectoryEntry]:
        found = self.locate(path, follow_last=True)
        if found.mode is None:
            raise FileNotFound("no such file or directory", path=path)
        if not stat_module.S_ISDIR(found.mode):
            raise NotADirectory("not a directory", path=path)
        try:
            fd = os.open(found.name or ".", _LIST_FLAGS, dir_fd=found.parent)
        except OSError as error:
            raise _os_error(error, path) from None
        entries: list[DirectoryEntry] = []
        try:
            with os.scandir(fd) as listing:
                for entry in listing:
                    kind: EntryKind
                    if entry.is_symlink():
                        kind = "symlink"
                    elif entry.is_dir(follow_symlinks=False):
                        kind = "directory"
                    elif entry.is_file(follow_symlinks=False):
                        kind = "file"
                    else:
                        kind = "other"
                    entries.append(DirectoryEntry(entry.name, kind))
        except OSError as error:
            raise _os_error(error, path) from None
        finally:
            os.close(fd)
        return entries

    def stat(self, path: str) -> FileStat:
        found = self.locate(path, follow_last=True)
        if found.mode is None:
            raise FileNotFound("no such file or directory", path=path)
        try:
            if found.name is None:
                result = os.fstat(found.parent)
            else:
                result = os.stat(found.name, dir_fd=found.parent, follow_symlinks=False)
        except OSError as error:
            raise _os_error(error, path) from None
        return FileStat(_kind(result.st_mode), result.st_size)

    def write(self, path: str, data: bytes) -> None:
        found = self.locate(path, follow_last=True)
        if found.name is None or (found.mode is not None and not stat_module.S_ISREG(found.mode)):
            raise FileUnsupported("not a regular file", path=path)
        try:
            fd = os.open(found.name, _WRITE_FLAGS, 0o644, dir_fd=found.parent)
        except OSError as error:
            raise _os_error(error, path) from None
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        except OSError as error:
            raise _os_error(error, path) from None
        finally:
            os.close(fd)

    def make_directory(self, path: str) -> None:
        segments = path_segments(path)
        for depth in range(1, len(segments) + 1):
            prefix = "/" + "/".join(segments[:depth])
            found = self.locate(prefix, follow_last=True)
            if found.mode is None:
                assert found.name is not None
                try:
                    os.mkdir(found.name, 0o755, dir_fd=found.parent)
                except FileExistsError:
                    continue
                except OSError as error:
                    raise _os_error(error, prefix) from None
            elif not stat_module.S_ISDIR(found.mode):
                raise NotADirectory("not a directory", path=prefix)

    def remove(self, path: str) -> None:
        if path == "/":
            raise FilePermissionDenied("the root cannot be removed", path=path)
        found = self.locate(path, follow_last=False)
        if found.mode is None or found.name is None:
            raise FileNotFound("no such file or directory", path=path)
        try:
            if stat_module.S_ISDIR(found.mode):
                _remove_tree(found.parent, found.name)
            else:
                os.unlink(found.name, dir_fd=found.parent)
        except OSError as error:
            raise _os_error(error, path) from None


def _remove_tree(parent: int, name: str) -> None:
    fd = os.open(name, _LIST_FLAGS, dir_fd=parent)
    try:
        with os.scandir(fd) as listing:
            entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]
        for child, is_directory in entries:
            if is_directory:
                _remove_tree(fd, child)
            else:
                os.unlink(child, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


class LocalFileOperator:
    """A :class:`~a13n_harness.environment.FileOperator` whose ``/`` is the host directory ``root``.

    ``root`` is resolved once, at construction, to its real path; nothing
    outside that directory is ever opened, listed or reported on.
    """

    __slots__ = ("_root",)

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._root = os.path.realpath(os.fspath(root))

    @property
    def read_concurrency(self) -> int:
        """1: a local disk read is a few microseconds; parallel threads only contend."""
        return 1

    @property
    def root(self) -> str:
        """The real host path of this operator's ``/``."""
        return self._root

    def __repr__(self) -> str:
        return f"LocalFileOperator({self._root!r})"

    def _call(self, operation: Callable[[_Walker], _T]) -> _T:
        with _Walker(self._root) as walker:
            return operation(walker)

    async def _run(self, operation: Callable[[_Walker], _T]) -> _T:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(_shared_executor(), self._call, operation)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            # The thread cannot be interrupted; wait for it so no read
            # outlives the task (and the file scope) that started it.
            while not future.done():
                try:
                    await asyncio.wait((future,))
                except asyncio.CancelledError:
                    continue
            if not future.cancelled():
                future.exception()
            raise

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        checked = _check_path(path)
        return await self._run(lambda walker: walker.list(checked))

    async def read_bytes(self, path: str, limit: int) -> bytes:
        checked = _check_path(path)
        bound = _check_limit(limit)
        return await self._run(lambda walker: walker.read(checked, bound))

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        bound = _check_limit(limit)
        checked = list(paths)

        def chunk(walker: _Walker) -> list[bytes | FileOperatorError]:
            results: list[bytes | FileOperatorError] = []
            for path in checked:
                try:
                    results.append(walker.read(_check_path(path), bound))
                except FileOperatorError as error:
                    results.append(error)
            return results

        try:
            return await self._run(chunk)
        except FileOperatorError as error:  # the root itself failed: every read fails alike
            return [error] * len(checked)

    async def stat(self, path: str) -> FileStat:
        checked = _check_path(path)
        return await self._run(lambda walker: walker.stat(checked))

    async def write_bytes(self, path: str, data: bytes) -> None:
        checked = _check_path(path)
        payload = bytes(data)
        await self._run(lambda walker: walker.write(checked, payload))

    async def make_directory(self, path: str) -> None:
        checked = _check_path(path)
        await self._run(lambda walker: walker.make_directory(checked))

    async def remove(self, path: str) -> None:
        checked = _check_path(path)
        await self._run(lambda walker: walker.remove(checked))
