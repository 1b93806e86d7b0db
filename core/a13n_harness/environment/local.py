"""A root-confined file operator over a host directory.

:class:`LocalFileOperator` maps its ``/`` to a host directory and never lets a
path or a symbolic link reach outside it. How:

* Paths must be canonical (:mod:`a13n_harness.environment.paths`); nothing is
  normalized.
* The root is opened once, when the operator is built, and pinned: every call
  walks from that descriptor, so renaming the root's path or replacing it by
  a link afterwards changes nothing the operator reads (SPEC 7).
* Every path is walked one segment at a time from the pinned root, opening
  each directory relative to its parent with ``O_NOFOLLOW``; a symbolic link
  met on the way is read with ``readlinkat`` and its target resolved
  *lexically* (:func:`~a13n_harness.environment.paths.resolve_link_target`:
  ``//x``, ``/./x``, ``a/../b`` and trailing slashes are spellings, not
  escapes), then walked the same way. A target that leaves the root is
  refused with :class:`FilePermissionDenied` before anything behind it is
  touched, so whether an outside path exists never shows through an error.
  More than :data:`MAX_LINK_HOPS` links in one walk is a loop:
  :class:`FileUnsupported`, never a hang.
* Because each step opens relative to a descriptor already checked, a
  directory swapped for a link between two calls cannot redirect the walk.
* A file is ``lstat``-ed before it is opened: a FIFO, socket or device is
  :class:`FileUnsupported` and never opened; regular files are opened with
  ``O_NONBLOCK | O_NOFOLLOW`` and checked again with ``fstat``. On Linux 5.6+
  a link-free read takes one ``openat2`` (``RESOLVE_BENEATH |
  RESOLVE_NO_SYMLINKS``) to an ``O_PATH`` handle instead, reopened through
  ``/proc/self/fd`` only when ``fstat`` says it is a regular file.
* Reads stop at ``limit`` bytes and allocate for what the file holds (its
  measured size, then doubling), never for ``limit``; no method recurses with
  the depth of a tree.

Blocking work runs in one shared pool of :data:`EXECUTOR_THREADS` threads. A
cancelled call waits for its thread to finish before it re-raises, so no read outlives the task (and
the file scope) that started it. :meth:`LocalFileOperator.read_many` reads a
chunk of files in one thread hop, reusing the directory descriptors the paths
share; that is what keeps a scan near the cost of plain reads.

Requires POSIX ``dir_fd`` support (Linux, macOS, the BSDs).
"""

from __future__ import annotations

import asyncio
import ctypes
import errno
import os
import stat as stat_module
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment.errors import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    FileUnsupported,
    NotADirectory,
)
from a13n_harness.environment.operator import DirectoryEntry, EntryKind, FileStat
from a13n_harness.environment.paths import (
    is_canonical_path,
    path_segments,
    resolve_link_target,
)

__all__ = ["EXECUTOR_THREADS", "MAX_LINK_HOPS", "LocalFileOperator", "check_host_directory"]

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
# The root alone is opened following links: its path is the caller's, trusted once, here.
_ROOT_FLAGS = (_O_PATH or os.O_RDONLY) | _O_DIRECTORY | _O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC

_T = TypeVar("_T")


class _OpenHow(ctypes.Structure):
    """Linux's ``struct open_how`` for ``openat2(2)``."""

    _fields_ = (("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64))


# An O_PATH handle opens nothing a driver sees; the reopen through /proc/self/fd
# follows that magic link by design, to the inode the handle already holds.
_HANDLE_FLAGS = (_O_PATH or os.O_RDONLY) | _O_NOFOLLOW | _O_CLOEXEC
_REOPEN_FLAGS = os.O_RDONLY | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC
_SYS_OPENAT2 = 437  # the same number on every architecture using the generic syscall table
# RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH: no link of any kind is
# followed and nothing outside the starting directory is reached.
_RESOLVE_CONFINED = 0x02 | 0x04 | 0x08
_openat2_state: list[Callable[[int, bytes], int] | None] = []


def _probe_openat2() -> Callable[[int, bytes], int] | None:
    """``openat2(dir_fd, path)`` for an ``O_PATH`` handle with a confined resolution, when the
    kernel has it and ``/proc/self/fd`` can reopen such a handle.

    The fast path of a read: one call resolves a whole link-free path below
    the root, refusing (``ELOOP``/``EXDEV``) any link and anything outside, and
    opens nothing a driver sees; ``fstat`` on the handle says what it is, and
    only a regular file is reopened (the same inode) for reading. Any failure
    sends the read down the general walk, which decides the error.
    """
    if sys.platform != "linux":
        return None
    try:
        syscall = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        return None
    how = _OpenHow(_HANDLE_FLAGS, 0, _RESOLVE_CONFINED)
    reference = ctypes.byref(how)
    size = ctypes.sizeof(how)

    def openat2(dir_fd: int, path: bytes) -> int:
        return int(syscall(_SYS_OPENAT2, dir_fd, path, reference, size))

    try:
        directory = os.open("/", _WALK_FLAGS)
    except OSError:
        return None
    handle = -1
    try:
        handle = openat2(directory, b".")
        if handle < 0:
            return None  # ENOSYS (before Linux 5.6) or refused by a sandbox
        os.close(os.open(f"/proc/self/fd/{handle}", _REOPEN_FLAGS | _O_DIRECTORY))
    except OSError:
        return None  # no /proc to reopen through
    finally:
        if handle >= 0:
            os.close(handle)
        os.close(directory)
    return openat2


def _openat2() -> Callable[[int, bytes], int] | None:
    if not _openat2_state:
        with _executor_lock:
            if not _openat2_state:
                _openat2_state.append(_probe_openat2())
    return _openat2_state[0]


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


def _check_data(data: object) -> bytes:
    # bytes(5) would allocate five NULs and bytes(10**10) ten gigabytes: only byte strings.
    if not isinstance(data, bytes | bytearray | memoryview):
        raise FileProviderError(f"data must be bytes, not {type(data).__name__}")
    return bytes(data)


def _check_paths(paths: object) -> list[object]:
    if isinstance(paths, str | bytes) or not isinstance(paths, Sequence):
        raise FileProviderError("paths must be a sequence of paths")
    return list(paths)


def check_host_directory(root: object) -> str:
    """``root`` as a host path string (``str`` or ``os.PathLike[str]``, non-empty, no NUL).

    Anything else is ``DefinitionError(code="skill_root_invalid", reason="host_root")``.
    """
    try:
        path = os.fspath(root)  # type: ignore[call-overload]
    except TypeError:
        path = None
    try:
        encodable = isinstance(path, str) and bool(os.fsencode(path))
    except UnicodeEncodeError:
        encodable = False
    if not encodable or not isinstance(path, str) or "\x00" in path:
        raise DefinitionError(
            "skill_root_invalid",
            f"an operator root must be a non-empty host path: {root!r}",
            reason="host_root",
        )
    return path


# 64 KiB: the first read after the measured size when a file turns out
# larger than fstat said (growing, or procfs-like with size 0); each later
# read doubles, so a read costs O(size) whatever ``limit`` is.
_GROWTH_CHUNK = 65_536
# 32 descriptors: how many directory levels ``remove`` keeps open while it
# empties a deep tree; deeper levels are reopened from the nearest open one,
# so a tree of any depth needs neither recursion nor one descriptor per level.
_REMOVE_WINDOW = 32


def _read_file(fd: int, limit: int, size: int) -> bytes:
    """At most ``limit`` bytes of the open file ``fd``, allocating for what it holds."""
    if limit == 0:
        return b""
    want = min(limit, max(size, 0) + 1)  # one byte past the measured size detects growth
    data = os.read(fd, want)
    if len(data) < want or len(data) == limit:
        return data
    parts = [data]
    total = len(data)
    step = max(_GROWTH_CHUNK, total)
    while total < limit:
        chunk = os.read(fd, min(step, limit - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        step = total
    return b"".join(parts)


@dataclass(slots=True)
class _Located:
    """``name`` inside the directory ``parent`` (``name is None``: ``parent`` itself)."""

    parent: int
    name: str | None
    mode: int | None  # lstat mode of name; None when it does not exist


class _Walker:
    """Resolves paths below the pinned root for the length of one blocking call.

    ``root_fd`` is borrowed from the operator and never closed here. Keeps the
    descriptors of the last link-free directory chain, so paths that share
    directories (every SKILL.md of one root) open only what differs.
    """

    def __init__(self, root_fd: int, root_segments: Sequence[str]) -> None:
        self._root_fd = root_fd
        self._root_segments = root_segments
        self._chain_fds: list[int] = []  # fds of _chain_names, below the root
        self._chain_names: list[str] = []
        self._scratch: list[int] = []  # descriptors owned by the last slow walk

    def close(self) -> None:
        self._release_scratch()
        for fd in self._chain_fds:
            os.close(fd)
        self._chain_fds = []
        self._chain_names = []

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
            return _Located(self._root_fd, None, stat_module.S_IFDIR)
        directories = segments[:-1]
        names = self._chain_names
        fds = self._chain_fds
        shared = 0
        for have, want in zip(names, directories, strict=False):
            if have != want:
                break
            shared += 1
        while len(names) > shared:
            names.pop()
            os.close(fds.pop())
        for segment in directories[shared:]:
            try:
                fd = os.open(segment, _WALK_FLAGS, dir_fd=fds[-1] if fds else self._root_fd)
            except OSError:
                return self._slow(path, segments, follow_last=follow_last)
            fds.append(fd)
            names.append(segment)
        parent = fds[-1] if fds else self._root_fd
        last = segments[-1]
        try:
            mode = os.stat(last, dir_fd=parent, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return _Located(parent, last, None)
        except OSError as error:
            raise _os_error(error, path) from None
        if follow_last and stat_module.S_ISLNK(mode):
            return self._slow(path, segments, follow_last=follow_last)
        return _Located(parent, last, mode)

    def _slow(self, path: str, segments: list[str], *, follow_last: bool) -> _Located:
        """The general walk: follows links lexically, refusing any that leave the root.

        ``resolved`` is the link-free chain walked so far (``fds`` holds its
        descriptors); a link replaces it with the segments its target names
        (:func:`~a13n_harness.environment.paths.resolve_link_target`), keeping
        the descriptors of the prefix both share.
        """
        fds = self._scratch
        resolved: list[str] = []
        pending = deque(segments)
        hops = 0
        try:
            while pending:
                segment = pending.popleft()
                current = fds[-1] if fds else self._root_fd
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
                    if not target:
                        raise FileNotFound("empty symbolic link", path=path)
                    leads = resolve_link_target(resolved, target, self._root_segments)
                    if leads is None:
                        raise FilePermissionDenied(
                            "symbolic link leads outside the root", path=path
                        )
                    shared = 0
                    for have, want in zip(resolved, leads, strict=False):
                        if have != want:
                            break
                        shared += 1
                    while len(resolved) > shared:
                        resolved.pop()
                        os.close(fds.pop())
                    pending.extendleft(reversed(leads[shared:]))
                    continue
                if last:
                    return _Located(current, segment, mode)
                if not stat_module.S_ISDIR(mode):
                    raise NotADirectory("not a directory", path=path)
                try:
                    fds.append(os.open(segment, _WALK_FLAGS, dir_fd=current))
                except OSError as error:
                    raise _os_error(error, path) from None
                resolved.append(segment)
            return _Located(fds[-1] if fds else self._root_fd, None, stat_module.S_IFDIR)
        except BaseException:
            self._release_scratch()
            raise

    # --- operations -------------------------------------------------------

    def read(self, path: str, limit: int) -> bytes:
        fast = self._read_confined(path, limit)
        if fast is not None:
            return fast
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
            measured = os.fstat(fd)
            if not stat_module.S_ISREG(measured.st_mode):
                raise FileUnsupported("not a regular file", path=path)
            return _read_file(fd, limit, measured.st_size)
        except OSError as error:
            raise _os_error(error, path) from None
        finally:
            os.close(fd)

    def _read_confined(self, path: str, limit: int) -> bytes | None:
        """The read when ``path`` is a regular file reached without any link, else ``None``.

        Nothing outside the root and nothing that is not a regular file is
        touched: ``openat2`` resolves the path to an ``O_PATH`` handle refusing
        any link and anything outside, ``fstat`` on the handle says what it is,
        and only a regular file is reopened, through ``/proc/self/fd``, as the
        very inode the handle holds (so it cannot have been swapped meanwhile).
        """
        openat2 = _openat2()
        if openat2 is None or path == "/":
            return None
        handle = openat2(self._root_fd, os.fsencode(path[1:]))
        if handle < 0:
            return None
        try:
            measured = os.fstat(handle)
            if not stat_module.S_ISREG(measured.st_mode):
                return None
            try:
                fd = os.open(f"/proc/self/fd/{handle}", _REOPEN_FLAGS)
            except OSError:
                return None
        finally:
            os.close(handle)
        try:
            return _read_file(fd, limit, measured.st_size)
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


def _list_kinds(fd: int) -> list[tuple[str, bool]]:
    with os.scandir(fd) as listing:
        return [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]


def _remove_tree(top_parent: int, top_name: str) -> None:
    """Remove the directory ``top_name`` of ``top_parent`` and all below it, links unfollowed.

    Iterative, with at most :data:`_REMOVE_WINDOW` directory descriptors open:
    ``names`` is the chain from ``top_name`` down to the directory being
    emptied, ``fds`` its descriptors (``-1`` once closed to stay in the
    window), ``pending`` the children of each level still to remove. A closed
    level is reopened by name from the top, one ``O_NOFOLLOW`` step at a time,
    so a directory swapped for a link meanwhile is refused, never followed.
    """
    names: list[str] = []
    fds: list[int] = []
    pending: list[list[tuple[str, bool]]] = []
    opened: deque[int] = deque()  # the levels whose descriptor is open, shallowest first

    def parent_of(level: int) -> int:
        return top_parent if level == 0 else fds[level - 1]

    def keep_window() -> None:
        while len(opened) > _REMOVE_WINDOW:
            level = opened.popleft()
            os.close(fds[level])
            fds[level] = -1

    def reopen(level: int) -> None:
        # Every level above a closed one is closed too (the window keeps the deepest).
        for index in range(level + 1):
            if fds[index] < 0:
                fds[index] = os.open(names[index], _LIST_FLAGS, dir_fd=parent_of(index))
                opened.append(index)
        ordered = sorted(opened)
        opened.clear()
        opened.extend(ordered)
        keep_window()

    def descend(name: str, parent: int) -> None:
        fd = os.open(name, _LIST_FLAGS, dir_fd=parent)
        names.append(name)
        fds.append(fd)
        opened.append(len(fds) - 1)
        pending.append(_list_kinds(fd))
        keep_window()

    try:
        descend(top_name, top_parent)
        while names:
            level = len(names) - 1
            if fds[level] < 0:
                reopen(level)
            children = pending[level]
            while children:
                child, is_directory = children.pop()
                if is_directory:
                    descend(child, fds[level])
                    break
                os.unlink(child, dir_fd=fds[level])
            else:
                os.close(fds[level])
                opened.pop()
                name = names.pop()
                fds.pop()
                pending.pop()
                if level > 0 and fds[level - 1] < 0:
                    reopen(level - 1)
                os.rmdir(name, dir_fd=parent_of(level))
    finally:
        for fd in fds:
            if fd >= 0:
                os.close(fd)


def _host_segments(real: str) -> list[str]:
    return [segment for segment in real.split("/") if segment]


def _pin(path: str) -> tuple[int, str]:
    """Open the host directory ``path`` once; its descriptor and its real path.

    The real path is only used to recognise absolute link targets that name
    the root; it is checked to name the very directory opened (same device
    and inode), so a swap between the two steps is refused, not half-pinned.
    """
    fd = os.open(path, _ROOT_FLAGS)
    try:
        real = os.path.realpath(path)
        opened = os.fstat(fd)
        named = os.stat(real)
        if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
            raise FileProviderError("the root changed while the operator was built", path="/")
    except BaseException:
        os.close(fd)
        raise
    return fd, real


class LocalFileOperator:
    """A :class:`~a13n_harness.environment.FileOperator` whose ``/`` is the host directory ``root``.

    The root is opened once, here, and pinned: every later call walks from
    that descriptor, so renaming ``root`` or replacing it by a link afterwards
    changes nothing the operator reads. A root that cannot be opened now
    (missing, not a directory, denied) stays so: every call raises the error
    opening it raised, even if the directory appears later.

    The descriptor lives as long as the operator: :meth:`close` (or leaving
    ``with LocalFileOperator(...) as files:``) releases it once the calls in
    flight finish, and a finalizer releases it when the operator is
    collected. A closed operator raises :class:`FileProviderError`. The
    descriptor is close-on-exec; a forked child inherits it and may keep using
    the operator (it only ever walks from it with ``*at`` calls, sharing no
    offset).
    """

    __slots__ = (
        "__weakref__",
        "_closed",
        "_error",
        "_fd",
        "_finalizer",
        "_lock",
        "_root",
        "_segments",
        "_users",
    )

    def __init__(self, root: str | os.PathLike[str]) -> None:
        path = check_host_directory(root)
        self._lock = threading.Lock()
        self._users = 0
        self._closed = False
        self._fd = -1
        self._error: FileOperatorError | None = None
        try:
            self._fd, self._root = _pin(path)
        except OSError as error:
            self._root = os.path.abspath(path)
            self._error = _os_error(error, "/")
        except FileOperatorError as error:
            self._root = os.path.abspath(path)
            self._error = error
        self._segments = _host_segments(self._root)
        self._finalizer = weakref.finalize(self, os.close, self._fd) if self._fd >= 0 else None

    @property
    def read_concurrency(self) -> int:
        """2: one chunk is read while the caller parses the previous one; more only contend."""
        return 2

    @property
    def root(self) -> str:
        """The real host path of this operator's ``/`` when it was built."""
        return self._root

    @property
    def closed(self) -> bool:
        return self._closed

    def __repr__(self) -> str:
        return f"LocalFileOperator({self._root!r})"

    def close(self) -> None:
        """Release the root descriptor (after the calls in flight); later calls fail."""
        with self._lock:
            self._closed = True
            self._release_if_idle()

    def __enter__(self) -> LocalFileOperator:
        return self

    def __copy__(self) -> LocalFileOperator:
        return self  # a handle: a copy would share (and could close) the one descriptor

    def __deepcopy__(self, memo: object) -> LocalFileOperator:
        return self

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilding from the path in another process would re-open the root by
        # path, which is exactly what pinning rules out: build one there instead.
        raise FileProviderError("a pinned LocalFileOperator cannot be pickled", path="/")

    def __exit__(self, *_: object) -> None:
        self.close()

    def _release_if_idle(self) -> None:
        if self._users == 0 and self._finalizer is not None:
            self._finalizer()  # closes the descriptor once
            self._finalizer = None

    def _acquire(self) -> int:
        with self._lock:
            if self._closed:
                raise FileProviderError("the file operator is closed", path="/")
            if self._error is not None:
                raise self._error.__class__(self._error.message, path=self._error.path)
            self._users += 1
            return self._fd

    def _release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._closed:
                self._release_if_idle()

    def _call(self, operation: Callable[[_Walker], _T]) -> _T:
        fd = self._acquire()
        try:
            with _Walker(fd, self._segments) as walker:
                return operation(walker)
        finally:
            self._release()

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
        checked = _check_paths(paths)

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
        payload = _check_data(data)
        await self._run(lambda walker: walker.write(checked, payload))

    async def make_directory(self, path: str) -> None:
        checked = _check_path(path)
        await self._run(lambda walker: walker.make_directory(checked))

    async def remove(self, path: str) -> None:
        checked = _check_path(path)
        await self._run(lambda walker: walker.remove(checked))
